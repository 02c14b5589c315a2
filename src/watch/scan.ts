import type { Dirent, Stats } from 'node:fs';
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { Slicer } from '../slice.js';

/** Finding transcripts on disk: every `.jsonl` under the watch roots, with a stat of each. */

export interface FileStat {
  path: string;
  size: number;
  mtimeMs: number;
  /** Changes with chmod too: an unreadable transcript made readable again is noticed. */
  ctimeMs: number;
  dev: number;
  ino: number;
}

export const isTranscript = (path: string): boolean => path.endsWith('.jsonl');

/** Folders never worth descending into under a transcript root. */
const SKIP_DIRS = new Set(['node_modules', '.git']);

/**
 * Symbolic links below a root are not followed, neither to folders nor to files (see
 * watcher.ts); FIFOs, sockets and devices are never transcripts. Synchronous calls in slices of
 * a few milliseconds, yielding to the event loop between them: a rescan of thousands of
 * transcripts then costs a few milliseconds of CPU instead of a thread-pool round trip per file,
 * and the socket stays responsive while it runs, however many files one folder holds.
 */
/**
 * A name the file system holds in bytes that are not UTF-8 comes back from readdir with U+FFFD in
 * their place: a path that does not exist, and one the store, which keeps paths as text, could
 * not record. Such a transcript is reported (`ScanNotes.badName`) instead of skipped without a word.
 */
export type BadName = (path: string) => void;

/**
 * What a scan met that the user should hear of. `badName`: a transcript whose file name is not
 * UTF-8; `unreadable`: a folder this user may not list (its mode, say 000), every transcript in it
 * unseen until it can be.
 */
export interface ScanNotes {
  badName?: BadName;
  unreadable?: (dir: string, errno: string) => void;
  /** A transcript's name on something that is not a regular file: never read, so said. */
  special?: (path: string, kind: SpecialKind) => void;
}

/** What a `*.jsonl` that is not a regular file is: each is skipped (links are not followed, the rest never read). */
export type SpecialKind = 'symbolic link' | 'FIFO' | 'socket' | 'character device' | 'block device';

function specialKind(e: Dirent): SpecialKind | null {
  if (e.isSymbolicLink()) return 'symbolic link';
  if (e.isFIFO()) return 'FIFO';
  if (e.isSocket()) return 'socket';
  if (e.isCharacterDevice()) return 'character device';
  if (e.isBlockDevice()) return 'block device';
  return null;
}

/**
 * Bytes of a path past which no folder is entered: Linux names at most 4,095 (PATH_MAX less its
 * NUL), and a folder this deep holds no transcript an agent wrote (its harness could not name it
 * either). chokidar met ENAMETOOLONG there and never became ready, which stalled the daemon's start.
 */
export const PATH_BYTES = 3840;
export const tooLong = (path: string): boolean => path.length > PATH_BYTES / 4 && Buffer.byteLength(path) > PATH_BYTES;

export async function scanRoot(root: string, out: FileStat[] = [], slice = new Slicer(), exclude: Excluded = NONE_EXCLUDED, notes: ScanNotes = {}): Promise<FileStat[]> {
  if (isExcluded(root, exclude) || sameFolderAs(root, exclude)) return out;
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch (e) {
    // Gone: the rescan after it appears picks it up. Not to be listed: said, for nothing in it is read.
    const errno = (e as NodeJS.ErrnoException).code;
    if ((errno === 'EACCES' || errno === 'EPERM') && notes.unreadable) notes.unreadable(root, errno);
    return out;
  }
  const dirs: string[] = [];
  for (const e of entries) {
    await slice.tick();
    const p = join(root, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && !tooLong(p)) dirs.push(p);
    } else if (e.isFile() && isTranscript(e.name)) {
      const s = statFileSync(p);
      if (s) out.push(s);
      else if (notes.badName && e.name.includes('\uFFFD') && !existsSync(p)) notes.badName(p);
    } else if (notes.special && isTranscript(e.name)) {
      const kind = specialKind(e);
      if (kind !== null) notes.special(p, kind);
    }
  }
  for (const d of dirs) {
    await slice.tick();
    await scanRoot(d, out, slice, exclude, notes);
  }
  return out;
}

/** Every transcript under the roots, once each even when one root lies inside another. */
export async function scanRoots(roots: readonly string[], exclude: Excluded = NONE_EXCLUDED, notes: ScanNotes = {}): Promise<FileStat[]> {
  const found: FileStat[] = [];
  const slice = new Slicer();
  for (const root of roots) await scanRoot(root, found, slice, exclude, notes);
  const seen = new Set<string>();
  return found.filter((f) => !seen.has(f.path) && seen.add(f.path) !== undefined);
}

function toFileStat(path: string, s: Stats): FileStat | null {
  return s.isFile() ? { path, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, dev: s.dev, ino: s.ino } : null;
}

function statFileSync(path: string): FileStat | null {
  try {
    return toFileStat(path, lstatSync(path));
  } catch {
    return null;
  }
}

/** A regular file's stat; null for anything else (gone, a folder, a link, a FIFO, out of reach). */
export async function statFile(path: string): Promise<FileStat | null> {
  const st = await statOrDenied(path);
  return st === 'denied' ? null : st; // ENOENT after an event is a normal race
}

/**
 * As statFile, but a file this user may not reach (a folder above it lost its `x`) is `denied`,
 * not gone: its session is not marked gone for a mode that may come back.
 */
export async function statOrDenied(path: string): Promise<FileStat | null | 'denied'> {
  try {
    return toFileStat(path, await lstat(path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? 'denied' : null;
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Folders never read as transcripts' (the store's own): by path, and by device and inode, so that
 * one reached by another path (a bind mount of it, or of a folder it is) is known too.
 */
export interface Excluded {
  paths: readonly string[];
  /** `dev:ino` of each folder. */
  ids: readonly string[];
}

export const NONE_EXCLUDED: Excluded = { paths: [], ids: [] };

/**
 * The store's folder, as its real path (watch roots are compared by theirs) and its device and
 * inode: the daemon never watches it, and `handoff build` refuses a file inside it.
 */
export function ownStore(root: string): Excluded {
  try {
    return { paths: [realpathSync(root)], ids: [folderId(statSync(root))] };
  } catch {
    return { paths: [root], ids: [] };
  }
}

export function folderId(st: { dev: number; ino: number }): string {
  return `${st.dev}:${st.ino}`;
}

/** Whether a folder's stat (device and inode, where given) is an excluded folder's. */
export function hasExcludedId(st: { dev?: number; ino?: number }, exclude: Excluded): boolean {
  return st.dev !== undefined && st.ino !== undefined && exclude.ids.includes(folderId({ dev: st.dev, ino: st.ino }));
}

/** Whether `dir` is an excluded folder by its device and inode (one stat; false when it cannot be read). */
export function sameFolderAs(dir: string, exclude: Excluded): boolean {
  if (exclude.ids.length === 0) return false;
  try {
    return hasExcludedId(statSync(dir), exclude);
  } catch {
    return false;
  }
}

/** Whether `path` lies below one of `roots` (not one of them itself). */
export function isUnderAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`));
}

/** Whether `path` is one of the excluded folders or lies below one, by its path. */
export function isExcluded(path: string, exclude: Excluded): boolean {
  return exclude.paths.includes(path) || isUnderAny(path, exclude.paths);
}
