import { lstat, readdir } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { watch } from 'chokidar';
import type { FromWatchThread, ToWatchThread } from './options.js';
import { chokidarOptions, hintOf } from './options.js';
import type { Excluded } from './scan.js';
import { isTranscript } from './scan.js';

/**
 * chokidar, in a thread of its own. Its first scan of a folder costs a stat and a watch per
 * entry, delivered in bursts: 5,000 transcripts kept the daemon's event loop (and so its socket)
 * busy for up to 1.8 s at a time. Here that work runs beside the daemon, which only receives the
 * hints: add, change, unlink of a path.
 *
 * chokidar watches folders only (options.ts); what happens to a transcript comes from its
 * folder's watch as a raw event; a burst of appends is gathered into one hint per COALESCE_MS.
 */

// On Linux a nice value is per thread: the watch thread yields the CPU to the daemon's own
// thread (the socket, the builds) whenever both want it, as on a 2-core machine at start-up.
const WATCH_THREAD_NICE = 10;
const COALESCE_MS = 20;
const ANNOUNCE_AGAIN_MS = 1000;
try {
  setPriority(WATCH_THREAD_NICE);
} catch {
  // Not permitted here: the thread runs at the daemon's priority.
}

const port = parentPort;
if (!port) throw new Error('chokidar-thread.ts runs as a worker thread of the daemon');
const send = (m: FromWatchThread): void => port.postMessage(m);
const { roots, exclude } = workerData as { roots: string[]; exclude: Excluded };

/** path → whether it appeared or went (then a stat says which) rather than only changed. */
const pending = new Map<string, boolean>();
let timer: NodeJS.Timeout | null = null;
/** Batches go out in order: one whose stats are still running is not overtaken by the next. */
let sending: Promise<void> = Promise.resolve();

/**
 * The first event after a quiet spell goes out at once (a refresh waits for no timer); those
 * that follow within COALESCE_MS are gathered and go out at its end, and so on while they come.
 */
function note(path: string, renamed: boolean): void {
  pending.set(path, renamed || pending.get(path) === true);
  if (timer !== null) return;
  deliver();
  gather();
}

function gather(): void {
  timer = setTimeout(() => {
    timer = null;
    if (pending.size === 0) return;
    deliver();
    gather();
  }, COALESCE_MS);
}

function deliver(): void {
  const batch = [...pending];
  pending.clear();
  sending = sending.then(async () => {
    for (const [path, renamed] of batch) {
      if (!renamed) send({ t: 'event', kind: 'change', path });
      else send({ t: 'event', kind: (await exists(path)) ? 'add' : 'unlink', path });
    }
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** A folder that appeared after the first scan: transcripts written before its watch began. */
async function announce(dir: string): Promise<void> {
  try {
    for (const name of await readdir(dir)) if (isTranscript(name)) note(join(dir, name), true);
  } catch {
    // Gone again already: nothing to announce.
  }
}

const w = watch(roots, chokidarOptions(exclude));
w.on('raw', (event, name, details) => {
  const h = hintOf(event, name, details);
  if (h) note(h.path, h.kind === 'rename');
});
// Looked at twice: a transcript created while chokidar sets up the folder's watch is seen by neither
// the first look nor the watch.
w.on('addDir', (dir) => {
  void announce(dir);
  setTimeout(() => void announce(dir), ANNOUNCE_AGAIN_MS).unref();
});
// The daemon drops the transcripts it knows below a folder that went.
w.on('unlinkDir', (dir) => send({ t: 'event', kind: 'unlink', path: dir }));
w.on('error', (e) => send({ t: 'error', message: e instanceof Error ? e.message : String(e) }));
if (roots.length === 0) send({ t: 'ready' });
else w.once('ready', () => send({ t: 'ready' }));
port.on('message', (m: ToWatchThread) => {
  if (m.op === 'add') w.add(m.path);
  else
    void w.close().then(() => {
      if (timer) clearTimeout(timer);
      send({ t: 'closed' });
      port.close();
    });
});
