import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ResolvedConfig } from '../config.js';
import type { SessionClaims } from './claims.js';
import type { IndexEntry } from '../store/index-file.js';
import type { IndexStore } from '../store/index-store.js';
import type { BuildRequest, BuildResult } from './types.js';
import type { WireError, WireResult } from './wire.js';
import { errorFromWire, resultFromWire } from './wire.js';

/**
 * Build workers for a backfill (docs/ARCHITECTURE.md#parallel-backfill): each worker thread
 * holds an engine (worker.ts) and builds one whole session at a time, writing only that
 * session's folder. The main thread keeps the index: it sends every entry it learns to the
 * workers (in order, before the next build it hands out) and applies the entries each build
 * changed as the build's result arrives — so INDEX.json, PROJECT.md and links/ have one writer.
 *
 * A worker that dies (an exception outside a build, killed, out of memory) costs nothing: the
 * build it ran answers `lost`, and its session is built again by the caller. What the dead
 * build left half-written is residue the next build cuts away, as after a crash (commit.ts).
 */

export type ToWorker = { type: 'build'; id: number; req: BuildRequest } | { type: 'index'; entries: (IndexEntry | { removed: string })[] };

export type ToMain = { type: 'done'; id: number; result: WireResult; entries: IndexEntry[] } | { type: 'failed'; id: number; error: WireError; entries: IndexEntry[] } | { type: 'dependent'; id: number };

export interface WorkerData {
  config: ResolvedConfig;
  entries: IndexEntry[];
  /** The worker thread's niceness (Linux, where it is per thread), or null to leave it. */
  nice: number | null;
  /** The table of sessions being built that the main thread's engine uses (claims.ts). */
  claims: SharedArrayBuffer;
}

/** `built`; `dependent`: a subagent or fork, to build on the main thread; `lost`: the worker died. */
/** The worker script next to this module (dist/engine/worker.js once built). */
const WORKER_URL = new URL('./worker.js', import.meta.url);

export type PoolOutcome = { kind: 'built'; result: BuildResult } | { kind: 'dependent' } | { kind: 'lost'; why: string };

/**
 * Workers a backfill uses: the configured number, at most one fewer than the cores (the main
 * thread keeps one). None when the worker script is not there: the sources run untranspiled
 * (the tests' in-process CLI), where only dist/ has it.
 */
export function workerCount(configured: number, cores = availableParallelism()): number {
  if (!existsSync(fileURLToPath(WORKER_URL))) return 0;
  return Math.max(0, Math.min(configured, cores - 1));
}

interface Job {
  id: number;
  req: BuildRequest;
  resolve: (o: PoolOutcome) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  /** The worker's owner number in the claims table (its thread id + 1), kept: the id is gone once it exits. */
  owner: number;
  /** Handed to this worker, oldest first: the first is building, the others wait there. */
  jobs: Job[];
  idle: NodeJS.Timeout | null;
}

/** A worker with nothing to build ends after this long: an idle daemon holds no thread. */
const IDLE_MS = 10_000;
/**
 * A worker's young generation (V8's default is several times this): a build allocates short-lived
 * strings line after line, and a smaller nursery collected more often keeps the process's peak
 * memory ~20 MB lower at the same CPU time (measured on the corpus-distribution store).
 */
const YOUNG_GENERATION_MB = 8;
/** Niceness of a background worker thread, relative to none (the daemon's main thread). */
const BACKGROUND_NICE = 10;

export class BuildPool {
  private readonly slots = new Set<Slot>();
  private readonly waiting: Job[] = [];
  private pending: (IndexEntry | { removed: string })[] = [];
  private nextId = 1;
  private closed = false;
  private readonly drained: (() => void)[] = [];

  /**
   * `background`: the workers run at a lower CPU priority than the main thread (the daemon: a
   * live refresh on the main thread must not queue for a core behind the backfill, whatever
   * else the machine runs). A one-shot build wants every cycle and leaves it off.
   * `depth`: builds handed to one worker at a time, the first building and the rest waiting in
   * the worker, so that it never idles while the main thread, busy with a build of its own, has
   * not yet read its last answer (a one-shot build of many files: 2). Those builds must not
   * depend on each other's index entries (buildMany's first phase does not).
   */
  constructor(
    readonly size: number,
    private readonly config: ResolvedConfig,
    private readonly index: IndexStore,
    private readonly claims: SessionClaims,
    private readonly opts: { background?: boolean; idleMs?: number; depth?: number } = {},
  ) {
    index.observe((e) => {
      if (this.slots.size === 0) return;
      this.pending.push(e);
      if (this.pending.length === 1) queueMicrotask(() => this.broadcast());
    });
  }

  /** Builds in a worker. Rejects with the build's own error (the same class it threw there). */
  run(req: BuildRequest): Promise<PoolOutcome> {
    if (this.closed) return Promise.resolve({ kind: 'lost', why: 'the build workers are stopped' });
    return new Promise((resolve, reject) => {
      this.waiting.push({ id: this.nextId++, req, resolve, reject });
      this.dispatch();
    });
  }

  /** Builds in a worker right now. */
  get busy(): number {
    let n = 0;
    for (const s of this.slots) n += s.jobs.length;
    return n;
  }

  get threads(): number {
    return this.slots.size;
  }

  /** Resolves when no build runs in a worker and none waits. */
  idle(): Promise<void> {
    if (this.busy === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  /** Ends every worker; builds still waiting answer `lost`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.waiting.splice(0)) j.resolve({ kind: 'lost', why: 'the build workers are stopped' });
    await Promise.all([...this.slots].map((s) => this.end(s)));
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      let slot = [...this.slots].find((s) => s.jobs.length === 0);
      if (!slot && this.slots.size < this.size) slot = this.spawn();
      slot ??= [...this.slots].find((s) => s.jobs.length < (this.opts.depth ?? 1));
      if (!slot) return;
      const job = this.waiting.shift() as Job;
      if (slot.idle) clearTimeout(slot.idle);
      slot.idle = null;
      slot.jobs.push(job);
      // Every entry the main thread knows is sent before the build that may need it.
      this.broadcast();
      slot.worker.postMessage({ type: 'build', id: job.id, req: job.req } satisfies ToWorker);
    }
  }

  private spawn(): Slot {
    // The others hear what is pending; the new one starts from the whole index.
    this.broadcast();
    const nice = this.opts.background && process.platform === 'linux' ? BACKGROUND_NICE : null;
    const worker = new Worker(WORKER_URL, { workerData: { config: this.config, entries: this.index.all(), nice, claims: this.claims.buffer } satisfies WorkerData, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    const slot: Slot = { worker, owner: worker.threadId + 1, jobs: [], idle: null };
    this.slots.add(slot);
    worker.on('message', (m: ToMain) => this.answer(slot, m));
    worker.on('error', (e) => this.lose(slot, `a build worker failed: ${e.message}`));
    worker.on('exit', (code) => this.lose(slot, `a build worker exited (code ${code})`));
    return slot;
  }

  private answer(slot: Slot, m: ToMain): void {
    const at = slot.jobs.findIndex((j) => j.id === m.id);
    if (at === -1) return;
    const job = slot.jobs.splice(at, 1)[0] as Job;
    // The entries this build changed are the main thread's to keep (and to send to the others).
    if (m.type !== 'dependent') for (const e of m.entries) this.index.upsert(e);
    if (m.type === 'done') job.resolve({ kind: 'built', result: resultFromWire(m.result) });
    else if (m.type === 'failed') job.reject(errorFromWire(m.error));
    else job.resolve({ kind: 'dependent' });
    this.settle(slot);
  }

  private settle(slot: Slot): void {
    this.dispatch();
    if (slot.jobs.length === 0 && this.slots.has(slot) && !slot.idle) {
      slot.idle = setTimeout(() => void this.end(slot), this.opts.idleMs ?? IDLE_MS);
      slot.idle.unref();
    }
    if (this.busy === 0 && this.waiting.length === 0) for (const w of this.drained.splice(0)) w();
  }

  private lose(slot: Slot, why: string): void {
    if (!this.slots.delete(slot)) return;
    if (slot.idle) clearTimeout(slot.idle);
    // What the dead worker's build held is not held by anyone now.
    this.claims.releaseOwner(slot.owner);
    for (const job of slot.jobs.splice(0)) job.resolve({ kind: 'lost', why });
    this.settle(slot);
  }

  private async end(slot: Slot): Promise<void> {
    if (!this.slots.delete(slot)) return;
    if (slot.idle) clearTimeout(slot.idle);
    for (const job of slot.jobs.splice(0)) job.resolve({ kind: 'lost', why: 'the build workers are stopped' });
    await slot.worker.terminate();
    this.claims.releaseOwner(slot.owner);
    if (this.busy === 0 && this.waiting.length === 0) for (const w of this.drained.splice(0)) w();
  }

  private broadcast(): void {
    if (this.pending.length === 0) return;
    const entries = this.pending;
    this.pending = [];
    for (const s of this.slots) s.worker.postMessage({ type: 'index', entries } satisfies ToWorker);
  }
}
