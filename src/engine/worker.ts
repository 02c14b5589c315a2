import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { Redactor } from '../core/redact.js';
import type { IndexEntry } from '../store/index-file.js';
import { IndexStore } from '../store/index-store.js';
import { Layout } from '../store/layout.js';
import { SessionClaims } from './claims.js';
import { DigestCache } from './digests.js';
import { Engine } from './engine.js';
import { gitProbe } from './index.js';
import type { ToMain, ToWorker, WorkerData } from './pool.js';
import { DependentSession } from './types.js';
import { errorToWire, resultToWire } from './wire.js';

/**
 * A build worker (pool.ts): an engine of its own over a snapshot of the main thread's index,
 * kept current by the entries the main thread sends. It builds whole sessions that depend on
 * no other, writing only that session's folder, in commit.ts's crash-safe order; INDEX.json,
 * PROJECT.md and links/ stay the main thread's, which applies the entries this build changed.
 * It never migrates a legacy layout (openEngine does that, on the main thread, before any worker).
 */

const port = parentPort;
if (!port) throw new Error('worker.ts runs as a worker thread');
const data = workerData as WorkerData;
if (data.nice !== null) {
  try {
    // On Linux a thread's niceness is its own: this lowers the worker, not the daemon.
    setPriority(0, data.nice);
  } catch {
    // Not permitted here: the worker runs at the daemon's priority.
  }
}
const layout = new Layout(data.config.root);
const index = IndexStore.of(layout, data.entries);
const engine = new Engine({
  config: data.config,
  layout,
  redactor: new Redactor(data.config.redactionPatterns),
  git: gitProbe(data.config),
  digests: new DigestCache(64),
  index,
  now: () => new Date(),
  cacheSessions: 0,
  claims: new SessionClaims(data.claims),
});
let changed: IndexEntry[] = [];
let applying = false;
index.observe((e) => {
  if (!applying && !('removed' in e)) changed.push(e);
});

port.on('message', (m: ToWorker) => {
  if (m.type === 'index') {
    applying = true;
    try {
      for (const e of m.entries) {
        if ('removed' in e) index.remove(e.removed);
        else index.upsert(e);
      }
    } finally {
      applying = false;
    }
    return;
  }
  jobs.push(m);
  void drain();
});

/** Builds handed over ahead (pool.ts `depth`) wait here; one builds at a time. */
const jobs: Extract<ToWorker, { type: 'build' }>[] = [];
let draining = false;
async function drain(): Promise<void> {
  if (draining) return;
  draining = true;
  try {
    for (let m = jobs.shift(); m !== undefined; m = jobs.shift()) await build(m.id, m.req.source, m);
  } finally {
    draining = false;
  }
}

async function build(id: number, path: string, m: Extract<ToWorker, { type: 'build' }>): Promise<void> {
  changed = [];
  let out: ToMain;
  try {
    const result = await engine.build({ ...m.req, independentOnly: true });
    out = { type: 'done', id, result: resultToWire(result), entries: changed };
  } catch (e) {
    out = e instanceof DependentSession ? { type: 'dependent', id } : { type: 'failed', id, error: errorToWire(e), entries: changed };
  } finally {
    // The main thread may move or rebuild this session next: nothing about it is remembered here.
    engine.forget(path);
  }
  changed = [];
  port?.postMessage(out);
}
