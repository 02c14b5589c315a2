import { isTranscript } from './scan.js';

/** chokidar options as data (built in a pure function, used by the watch thread). */
export function chokidarOptions() {
  return {
    persistent: true,
    // The files chokidar finds in its first scan of a folder are not reported: the daemon scans
    // the folders itself once chokidar is ready (start() resolves then), so a transcript created
    // during chokidar's scan is found by the daemon's, and one created after it by an event.
    // Reporting them too would be thousands of events, each answered with a stat.
    ignoreInitial: true,
    // Only directories and transcripts: chokidar never watches anything else (no link, no FIFO).
    ignored: (path: string, stats?: { isFile(): boolean; isDirectory(): boolean }) => stats !== undefined && !stats.isDirectory() && !(stats.isFile() && isTranscript(path)),
    followSymlinks: false,
    awaitWriteFinish: false,
  } as const;
}

/** Messages between the daemon and its watch thread. */
export type ToWatchThread = { op: 'add'; path: string } | { op: 'unwatch'; path: string } | { op: 'close' };
export type FromWatchThread = { t: 'event'; kind: 'add' | 'change' | 'unlink'; path: string } | { t: 'ready' } | { t: 'error'; message: string } | { t: 'closed' };
