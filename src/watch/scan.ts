import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Finding transcripts on disk: every `.jsonl` under the watch roots, with a stat of each. */

export interface FileStat {
  path: string;
  size: number;
  mtimeMs: number;
  dev: number;
  ino: number;
}

export const isTranscript = (path: string): boolean => path.endsWith('.jsonl');

/** Folders never worth descending into under a transcript root. */
const SKIP_DIRS = new Set(['node_modules', '.git']);

export async function scanRoot(root: string, out: FileStat[] = []): Promise<FileStat[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return out; // gone or unreadable: the rescan after it appears picks it up
  }
  for (const e of entries) {
    const p = join(root, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) await scanRoot(p, out);
    } else if ((e.isFile() || e.isSymbolicLink()) && isTranscript(e.name)) {
      const s = await statFile(p);
      if (s) out.push(s);
    }
  }
  return out;
}

export async function statFile(path: string): Promise<FileStat | null> {
  try {
    const s = await stat(path);
    return s.isFile() ? { path, size: s.size, mtimeMs: s.mtimeMs, dev: s.dev, ino: s.ino } : null;
  } catch {
    return null; // ENOENT after an event is a normal race
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
