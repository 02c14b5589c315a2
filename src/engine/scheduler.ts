import PQueue from 'p-queue';

/**
 * The build queue (SPEC §10). The main lane is one p-queue with concurrency 1: live builds,
 * store writes asked over the socket (`exclusive`), and every build that cannot go to a worker.
 * A session already queued is not queued again; one that changes while it builds is queued once
 * more when that build ends. Live sessions outrank backfill. DEBOUNCE_MS bounds how often one
 * session is rebuilt: the first change after a quiet spell runs at once, a burst is folded into
 * one build.
 *
 * With build workers (pool.ts), backfill builds the `offload` accepts run in a second lane, as
 * many at once as there are workers, beside the main lane: a live build never waits behind them.
 * A live build with a bulk read ahead (`Offload.bulk`: a transcript of gigabytes, or one line that
 * long), or a transcript's first build, goes to that lane too (ahead of backfill there), so that it
 * does not hold every other session's refresh.
 * A build a client asked for with a bulk read ahead goes there too (`offloadFor`), ahead of all.
 * One key never builds in both lanes at once (a key running in one is queued again when it
 * ends); a backfill build raised to live while it waits moves to the main lane; `exclusive`
 * work and `pauseOffload` callers wait until no worker build runs, and none starts meanwhile.
 */

export type Priority = 'live' | 'backfill';
const RANK: Record<Priority, number> = { live: 1, backfill: 0 };

export interface SchedulerOptions {
  debounceMs: number;
  now?: () => number;
}

/**
 * Where a backfill build goes: `pool`, a worker; `main`, the main lane; `after`, the main lane
 * once the worker lane is empty (a session that depends on others, built after them as a
 * single-threaded backfill would).
 */
export type Lane = 'pool' | 'main' | 'after';

/** Backfill builds that may run off the main thread. */
export interface Offload {
  /** How many may run at once. */
  slots: number;
  lane(key: string): Lane;
  /** `after`: it turned out to depend on another session (or its worker died); it is built on the main lane after the others. */
  run(key: string): Promise<'done' | 'after'>;
  /**
   * The build goes to a worker even when live, where it cannot hold every other session's refresh
   * on the main lane: it has gigabytes to read (or one line that long), or it is a transcript's
   * first build (a burst of new transcripts came in ahead of a session being worked on).
   */
  bulk?(key: string): boolean;
}

export class Scheduler {
  private readonly queue = new PQueue({ concurrency: 1 });
  private readonly pool: PQueue;
  private readonly queued = new Map<string, Priority>();
  /** Keys queued in the worker lane (a subset of `queued`). */
  private readonly pooled = new Set<string>();
  /** Backfill keys waiting for the worker lane to empty (a subset of `queued`). */
  private readonly held = new Set<string>();
  private readonly again = new Map<string, Priority>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; priority: Priority }>();
  /**
   * When each key's last build ended, for the debounce: only keys that ended less than
   * DEBOUNCE_MS ago are held (in the order they ended), so a daemon that sees millions of
   * transcripts come and go over months does not keep one entry for each.
   */
  private readonly lastEnd = new Map<string, number>();
  private running: string | null = null;
  private readonly offloaded = new Set<string>();
  private pauses = 0;
  /** Told whenever a worker build ends. */
  private readonly quiet: (() => void)[] = [];
  /** Keys the main lane works on outside a build (exclusiveFor): no worker starts them meanwhile. */
  private readonly claimed = new Set<string>();
  /** Worker builds that came up while their key was claimed, run once the claim ends. */
  private readonly deferred = new Map<string, Priority>();
  private stopped = false;
  private readonly now: () => number;

  constructor(
    private readonly run: (key: string, priority: Priority) => Promise<void>,
    private opts: SchedulerOptions,
    private offload: Offload | null = null,
  ) {
    // A clock that never goes back: the debounce's memory is ordered by it.
    this.now = opts.now ?? (() => performance.now());
    this.pool = new PQueue({ concurrency: Math.max(1, offload?.slots ?? 1) });
  }

  setDebounce(ms: number): void {
    this.opts = { ...this.opts, debounceMs: ms };
  }

  /** Replaces the worker lane's builder (a reload); call while paused. */
  setOffload(offload: Offload | null): void {
    this.offload = offload;
    if (offload) this.pool.concurrency = Math.max(1, offload.slots);
  }

  schedule(key: string, priority: Priority): void {
    if (this.stopped) return;
    if (this.running === key || this.offloaded.has(key)) {
      this.again.set(key, maxPriority(this.again.get(key), priority));
      return;
    }
    const q = this.queued.get(key);
    if (q !== undefined) {
      if (RANK[priority] > RANK[q]) {
        this.queued.set(key, priority);
        // A bulk read stays with the worker it waits for, ahead of the backfill there; the main lane is for short builds.
        if (this.pooled.has(key) && this.isBulk(key)) {
          this.raiseInPool(key, priority);
          return;
        }
        // Waiting for a worker, it now waits on the main lane, where live work goes first.
        if (this.pooled.delete(key) || this.held.delete(key)) this.addMain(key, priority);
        else this.queue.setPriority(key, RANK[priority]);
      }
      return;
    }
    const t = this.timers.get(key);
    if (t) {
      t.priority = maxPriority(t.priority, priority);
      return;
    }
    const wait = this.opts.debounceMs - (this.now() - (this.lastEnd.get(key) ?? -Infinity));
    if (wait > 0) {
      const timer = setTimeout(() => {
        const p = this.timers.get(key)?.priority ?? priority;
        this.timers.delete(key);
        this.enqueue(key, p);
      }, wait);
      this.timers.set(key, { timer, priority });
      return;
    }
    this.enqueue(key, priority);
  }

  private enqueue(key: string, priority: Priority): void {
    if (this.stopped) return;
    // Taken by a build a client asked for while its debounce ran (offloadFor): after it.
    if (this.running === key || this.offloaded.has(key)) {
      this.again.set(key, maxPriority(this.again.get(key), priority));
      return;
    }
    this.queued.set(key, priority);
    const o = this.offload;
    let lane: Lane = 'main';
    if (o !== null && o.slots > 0) {
      if (priority === 'backfill') lane = o.lane(key);
      else if (this.isBulk(key) && o.lane(key) === 'pool') lane = 'pool';
    }
    if (lane === 'pool') {
      this.pooled.add(key);
      // Live before backfill in the worker lane too: a new session is not left behind a backfill.
      void this.pool.add(() => this.runOffloaded(key, o as Offload), { priority: RANK[priority], id: key });
    } else if (lane === 'after') this.hold(key);
    else this.addMain(key, priority);
  }

  private raiseInPool(key: string, priority: Priority): void {
    try {
      this.pool.setPriority(key, RANK[priority]);
    } catch {
      // Started meanwhile: nothing left to raise.
    }
  }

  private isBulk(key: string): boolean {
    return this.offload?.bulk?.(key) === true;
  }

  private hold(key: string): void {
    this.held.add(key);
    this.releaseHeld();
  }

  /** Held keys go to the main lane once no worker build is queued or running. */
  private releaseHeld(): void {
    if (this.pooled.size > 0 || this.offloaded.size > 0 || this.held.size === 0) return;
    const keys = [...this.held];
    this.held.clear();
    for (const k of keys) this.addMain(k, this.queued.get(k) ?? 'backfill');
  }

  private addMain(key: string, priority: Priority): void {
    void this.queue.add(
      async () => {
        // Queued twice (moved here from the worker lane, then built): the later turn is a no-op.
        if (!this.queued.has(key) || this.pooled.has(key) || this.held.has(key)) return;
        const p = this.queued.get(key) ?? priority;
        this.queued.delete(key);
        this.running = key;
        try {
          await this.run(key, p);
        } finally {
          this.running = null;
          this.wake();
          this.ended(key);
        }
      },
      { priority: RANK[priority], id: key },
    );
  }

  private async runOffloaded(key: string, o: Offload): Promise<void> {
    // Moved to the main lane since (raised to live), or dropped by stop().
    if (!this.pooled.delete(key)) return;
    this.queued.delete(key);
    if (this.claimed.has(key)) {
      this.deferred.set(key, 'backfill');
      return;
    }
    this.offloaded.add(key);
    let where: 'done' | 'after' = 'done';
    try {
      where = await o.run(key);
    } catch {
      where = 'after';
    } finally {
      this.offloaded.delete(key);
      this.wake();
    }
    if (where === 'after' && !this.stopped) {
      const p = maxPriority(this.again.get(key), 'backfill');
      this.again.delete(key);
      this.queued.set(key, p);
      if (p === 'live') this.addMain(key, p);
      else this.hold(key);
    } else this.ended(key);
    this.releaseHeld();
  }

  private ended(key: string): void {
    const now = this.now();
    // Moved to the end: the map stays in the order builds ended, and what is too old to delay
    // anything is dropped from its start.
    this.lastEnd.delete(key);
    this.lastEnd.set(key, now);
    for (const [k, t] of this.lastEnd) {
      if (now - t < this.opts.debounceMs) break;
      this.lastEnd.delete(k);
    }
    const next = this.again.get(key);
    if (next !== undefined) {
      this.again.delete(key);
      this.schedule(key, next);
    }
  }

  /** How many keys' last build ends are held for the debounce (those within DEBOUNCE_MS). */
  get rememberedEnds(): number {
    return this.lastEnd.size;
  }

  /**
   * Waits until no build runs in a worker, and starts none until the returned function is
   * called: for work that may touch any session's folder (marking a session gone, verify).
   */
  async pauseOffload(): Promise<() => void> {
    this.pauses += 1;
    this.pool.pause();
    await this.workersQuiet(() => this.offloaded.size > 0);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.pauses -= 1;
      if (this.pauses === 0 && !this.stopped) this.pool.start();
      this.wake();
    };
  }

  /** A one-off write (a CLI command through the socket) run in the main lane, ahead of builds, with no worker build running. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.add(
      async () => {
        const resume = await this.pauseOffload();
        try {
          return await fn();
        } finally {
          resume();
        }
      },
      { priority: 2 },
    ) as Promise<T>;
  }

  /**
   * exclusive() for work on one transcript (a build a client asked for): it waits only for a
   * worker building that very key, not for the whole worker lane, and no worker starts the key
   * until it is done.
   */
  exclusiveFor<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.queue.add(
      async () => {
        this.claimed.add(key);
        try {
          await this.workersQuiet(() => this.offloaded.has(key));
          return await fn();
        } finally {
          this.claimed.delete(key);
          this.wake();
          const p = this.deferred.get(key);
          this.deferred.delete(key);
          if (p !== undefined) this.schedule(key, p);
        }
      },
      { priority: 2 },
    ) as Promise<T>;
  }

  /**
   * A build a client asked for that has a bulk read ahead (a hook's build of a transcript of
   * hundreds of megabytes): run in the worker lane, ahead of the backfill there, so that the main
   * lane stays free for the refreshes of the sessions being worked on. It starts once neither
   * lane builds the key and no `exclusive` work holds the workers; meanwhile neither lane starts
   * the key, and a change seen meanwhile (or a build of the key already waiting) builds it once
   * more after it.
   */
  offloadFor<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.pool.add(
      async () => {
        await this.workersQuiet(() => this.running === key || this.offloaded.has(key) || this.claimed.has(key) || this.pauses > 0);
        this.takeQueued(key);
        this.offloaded.add(key);
        try {
          return await fn();
        } finally {
          this.offloaded.delete(key);
          this.wake();
          if (!this.stopped) this.ended(key);
          this.releaseHeld();
        }
      },
      { priority: 2 },
    ) as Promise<T>;
  }

  /** A build of the key waiting in a lane is taken out of it and asked for again once the current one ends. */
  private takeQueued(key: string): void {
    const p = this.queued.get(key);
    if (p === undefined) return;
    this.queued.delete(key);
    this.pooled.delete(key);
    this.held.delete(key);
    this.again.set(key, maxPriority(this.again.get(key), p));
  }

  /** Tells every waiter of workersQuiet to look again: a build ended, or the workers were let go. */
  private wake(): void {
    for (const w of this.quiet.splice(0)) w();
  }

  private async workersQuiet(busy: () => boolean): Promise<void> {
    while (busy()) await new Promise<void>((r) => this.quiet.push(r));
  }

  /** Keys queued or running in the worker lane. */
  isOffloaded(key: string): boolean {
    return this.pooled.has(key) || this.offloaded.has(key);
  }

  get waiting(): number {
    return this.queued.size + this.timers.size;
  }

  get liveWaiting(): number {
    let n = 0;
    for (const p of this.queued.values()) if (p === 'live') n += 1;
    return n;
  }

  /** The build on the main lane, else one running in a worker. */
  get current(): string | null {
    return this.running ?? this.offloaded.values().next().value ?? null;
  }

  /** Builds running in workers now. */
  get inWorkers(): number {
    return this.offloaded.size;
  }

  /** The keys (transcript paths) handed to the workers now, in the order they were handed. */
  get workerKeys(): string[] {
    return [...this.offloaded];
  }

  /** Nothing runs on the main lane (worker builds may). */
  get mainIdle(): boolean {
    return this.running === null;
  }

  get idle(): boolean {
    return this.running === null && this.offloaded.size === 0 && this.queued.size === 0 && this.timers.size === 0 && this.again.size === 0;
  }

  /** Resolves when nothing is queued, debounced or running. */
  async onIdle(): Promise<void> {
    while (!this.idle) {
      if (this.timers.size > 0 && this.queue.size === 0 && this.queue.pending === 0 && this.pool.size === 0 && this.pool.pending === 0) {
        await new Promise((r) => setTimeout(r, Math.max(5, this.opts.debounceMs / 4)));
      } else await Promise.all([this.queue.onIdle(), this.pool.onIdle()]);
    }
  }

  /** Stops taking work: queued and debounced builds are dropped, the running ones finish. */
  stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.queue.clear();
    this.pool.clear();
    this.queued.clear();
    this.pooled.clear();
    this.held.clear();
    this.deferred.clear();
    this.again.clear();
    this.pool.start();
    return Promise.all([this.queue.onIdle(), this.pool.onIdle()]).then(() => undefined);
  }
}

function maxPriority(a: Priority | undefined, b: Priority): Priority {
  return a !== undefined && RANK[a] >= RANK[b] ? a : b;
}
