import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { watch } from 'chokidar';
import type { FromWatchThread, ToWatchThread } from './options.js';
import { chokidarOptions } from './options.js';

/**
 * chokidar, in a thread of its own. Its first scan of a folder costs a stat and a watch per file,
 * delivered in bursts: 5,000 transcripts kept the daemon's event loop (and so its socket) busy
 * for up to 1.8 s at a time. Here that work runs beside the daemon, which only receives the
 * hints: add, change, unlink of a path.
 */

// On Linux a nice value is per thread: the watch thread yields the CPU to the daemon's own
// thread (the socket, the builds) whenever both want it, as on a 2-core machine at start-up.
const WATCH_THREAD_NICE = 10;
try {
  setPriority(WATCH_THREAD_NICE);
} catch {
  // Not permitted here: the thread runs at the daemon's priority.
}

const port = parentPort;
if (!port) throw new Error('chokidar-thread.ts runs as a worker thread of the daemon');
const send = (m: FromWatchThread): void => port.postMessage(m);
const roots = (workerData as { roots: string[] }).roots;
const w = watch(roots, chokidarOptions());
w.on('add', (path) => send({ t: 'event', kind: 'add', path }));
w.on('change', (path) => send({ t: 'event', kind: 'change', path }));
w.on('unlink', (path) => send({ t: 'event', kind: 'unlink', path }));
w.on('error', (e) => send({ t: 'error', message: e instanceof Error ? e.message : String(e) }));
if (roots.length === 0) send({ t: 'ready' });
else w.once('ready', () => send({ t: 'ready' }));
port.on('message', (m: ToWatchThread) => {
  if (m.op === 'add') w.add(m.path);
  else if (m.op === 'unwatch') void w.unwatch(m.path);
  else
    void w.close().then(() => {
      send({ t: 'closed' });
      port.close();
    });
});
