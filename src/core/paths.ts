/**
 * One file, one path. A transcript names a written file in whatever form its tool used: Codex's
 * apply_patch text says `lib/a.ts`, its patch_apply_end event `C:\repo\lib\a.ts`, a shell redirect
 * `./lib//a.ts`. The ledger keys files by the form `filePath` gives, so every report of one file
 * meets in one entry: a relative path is joined to the folder the write ran in, `.`/`..` segments
 * and doubled separators are collapsed, and a Windows path is written with `\` and an upper-case
 * drive letter, spelled like the working folder where it lies under it.
 *
 * The rules are the transcript's platform's, never the host's: the daemon runs on Linux or macOS
 * and reads transcripts written on Windows. A path is Windows-shaped when it, or the folder it is
 * read against, starts with a drive letter or holds a backslash; Windows-shaped paths compare
 * without regard to case (`fileKey`), POSIX paths exactly.
 */

interface Parsed {
  /** `/`, `C:\`, `\\server\share\`, `\` (the current drive's root), or null for a relative path. */
  root: string | null;
  segments: string[];
}

const DRIVE_ROOT = /^([A-Za-z]):(?:[\\/]|$)/;
const DRIVE_RELATIVE = /^[A-Za-z]:(?![\\/])/;
/** A path the shell expands (`~`, `$HOME`, `%USERPROFILE%`): it names no folder this can join. */
const EXPANDED = /^[~$%]/;

export function windowsShaped(p: string): boolean {
  return DRIVE_ROOT.test(p) || p.includes('\\');
}

function parse(p: string, windows: boolean): Parsed | null {
  if (!windows) return { root: p.startsWith('/') ? '/' : null, segments: p.split('/') };
  let s = p.replace(/\//g, '\\');
  // `\\?\C:\x` is `C:\x` with the length limit lifted.
  if (/^\\\\[?.]\\[A-Za-z]:\\/.test(s)) s = s.slice(4);
  const drive = DRIVE_ROOT.exec(s);
  if (drive) return { root: `${(drive[1] as string).toUpperCase()}:\\`, segments: s.slice(3).split('\\') };
  // `C:x` is relative to the current folder of drive C:, which a transcript does not record.
  if (DRIVE_RELATIVE.test(s)) return null;
  const unc = /^\\\\([^\\]+)\\([^\\]+)(?:\\|$)/.exec(s);
  if (unc) return { root: `\\\\${unc[1]}\\${unc[2]}\\`, segments: s.slice(unc[0].length).split('\\') };
  if (s.startsWith('\\')) return { root: '\\', segments: s.split('\\') };
  return { root: null, segments: s.split('\\') };
}

/** Drops empty and `.` segments and resolves `..`; above a root there is nothing to go up to. */
function collapse(segments: readonly string[], rooted: boolean): string[] {
  const out: string[] = [];
  for (const s of segments) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(s);
  }
  return out;
}

function format(root: string | null, segments: readonly string[], windows: boolean): string {
  const sep = windows ? '\\' : '/';
  const body = segments.join(sep);
  if (root === null) return body.length > 0 ? body : '.';
  return `${root}${body}`;
}

const fold = (s: string, windows: boolean): string => (windows ? s.toLowerCase() : s);

/**
 * The form a written file's path is kept in: `path` as a tool gave it, `cwd` the folder the write
 * ran in (the session's recorded working folder, or a call's own). A relative path with no
 * absolute `cwd` to join stays relative (collapsed); so does one the shell expands (`~/x`,
 * `$HOME/x`), and a Windows path relative to a drive's own folder (`C:x`).
 */
export function filePath(path: string, cwd?: string): string {
  if (path.length === 0 || EXPANDED.test(path)) return path;
  const base = cwd !== undefined && cwd.length > 0 && !EXPANDED.test(cwd) ? cwd : undefined;
  const windows = windowsShaped(path) || (base !== undefined && windowsShaped(base));
  const p = parse(path, windows);
  if (p === null) return path;
  const c = base === undefined ? null : parse(base, windows);
  const at = c !== null && c.root !== null ? { root: c.root, segments: collapse(c.segments, true) } : null;
  if (p.root === null) {
    if (at === null) return format(null, collapse(p.segments, false), windows);
    return format(at.root, collapse([...at.segments, ...p.segments], true), windows);
  }
  let root = p.root;
  // `\x` on Windows is the root of the working folder's drive.
  if (root === '\\' && at !== null && at.root !== '\\') root = at.root;
  const segments = collapse(p.segments, true);
  if (windows && at !== null && fold(root, true) === fold(at.root, true) && at.segments.length <= segments.length) {
    // Under the working folder: spelled as the working folder is, whatever case the tool used.
    if (at.segments.every((s, i) => fold(s, true) === fold(segments[i] as string, true))) {
      return format(at.root, [...at.segments, ...segments.slice(at.segments.length)], true);
    }
  }
  return format(root, segments, windows);
}

/** A path's last part, its file's name, whichever separator the path uses. */
export function fileName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** What two paths of one file have in common: the path itself, or on Windows its lower case. */
export function fileKey(path: string): string {
  return fold(path, windowsShaped(path));
}

/**
 * The key `rec` already holds for `path`'s file: `path` itself, or a Windows spelling that differs
 * only in case. Written paths come out of `filePath`, so nothing else can differ.
 */
export function heldKey(rec: Readonly<Record<string, unknown>>, path: string): string | undefined {
  if (Object.hasOwn(rec, path)) return path;
  if (!windowsShaped(path)) return undefined;
  const k = path.toLowerCase();
  for (const key of Object.keys(rec)) if (key.toLowerCase() === k) return key;
  return undefined;
}

/**
 * `path` (in filePath's form) as seen from `folder`, when it lies under it: `lib\a.ts` for
 * `C:\repo\lib\a.ts` from `C:\repo`. Null when it lies elsewhere, or is the folder itself.
 */
export function relativeTo(path: string, folder: string): string | null {
  const base = filePath(folder);
  const windows = windowsShaped(base) || windowsShaped(path);
  const sep = windows ? '\\' : '/';
  if (!base.startsWith('/') && !windows) return null;
  const prefix = base.endsWith(sep) ? base : `${base}${sep}`;
  if (path.length <= prefix.length || fold(path.slice(0, prefix.length), windows) !== fold(prefix, windows)) return null;
  return path.slice(prefix.length);
}
