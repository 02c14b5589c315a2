import { join } from 'node:path';
import type { Excluded } from './scan.js';
import { hasExcludedId, isExcluded, isTranscript, NONE_EXCLUDED, tooLong } from './scan.js';

/** chokidar options as data (built in a pure function, used by the watch thread). */
export function chokidarOptions(exclude: Excluded = NONE_EXCLUDED) {
  return {
    persistent: true,
    // Directories found in chokidar's first scan are not reported: the daemon scans the folders
    // itself once chokidar is ready (start() resolves then), so a transcript created during
    // chokidar's scan is found by the daemon's, and one created after it by an event.
    ignoreInitial: true,
    // Directories only. chokidar would otherwise give every transcript a watch of its own (an
    // fs.watch handle, listeners, throttles: 5,000 transcripts held about 45 MB); the watch on
    // the folder already reports every change to a file in it, and the thread turns those raw
    // events into hints (hintOf). No link, no FIFO is ever watched.
    // And never the store itself, where a watch folder holds it (its timelines are JSONL too).
    // And never a path too long for the system to name (chokidar stalled before `ready` on one).
    ignored: (path: string, stats?: { isDirectory(): boolean; dev?: number; ino?: number }) => tooLong(path) || (stats !== undefined && (!stats.isDirectory() || hasExcludedId(stats, exclude))) || isExcluded(path, exclude),
    followSymlinks: false,
    awaitWriteFinish: false,
  } as const;
}

/**
 * A raw fs.watch event of a watched folder as a hint about one transcript in it: `change` when
 * the file was written, `rename` when it appeared or went (a stat tells which). Null for
 * anything else: the folder itself, files that are not transcripts.
 */
export function hintOf(event: string, name: string | null | undefined, details: unknown): { kind: 'change' | 'rename'; path: string } | null {
  const folder = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
  if (typeof folder !== 'string' || typeof name !== 'string' || name.length === 0 || !isTranscript(name)) return null;
  return { kind: event === 'change' ? 'change' : 'rename', path: join(folder, name) };
}

/** Messages between the daemon and its watch thread. */
/** A folder stops being watched by a fresh thread on the rest (watcher.ts WatchThread.unwatch), not by chokidar's unwatch. */
export type ToWatchThread = { op: 'add'; path: string } | { op: 'close' };
export type FromWatchThread = { t: 'event'; kind: 'add' | 'change' | 'unlink'; path: string } | { t: 'ready' } | { t: 'error'; message: string } | { t: 'closed' };

