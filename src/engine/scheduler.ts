import PQueue from 'p-queue';

/**
 * The build queue (SPEC §10): one p-queue with concurrency 1, so builds never overlap. A session
 * already queued is not queued again; one that changes while it builds is queued once more when
 * that build ends. Live sessions outrank backfill. DEBOUNCE_MS bounds how often one session is
 * rebuilt: the first change after a quiet spell runs at once, a burst is folded into one build.
 */

export type Priority = 'live' | 'backfill';
const RANK: Record<Priority, number> = { live: 1, backfill: 0 };

export interface SchedulerOptions {
  debounceMs: number;
  now?: () => number;
}

export class Scheduler {
  private readonly queue = new PQueue({ concurrency: 1 });
  private readonly queued = new Map<string, Priority>();
  private readonly again = new Map<string, Priority>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; priority: Priority }>();
  private readonly lastEnd = new Map<string, number>();
  private running: string | null = null;
  private stopped = false;
  private readonly now: () => number;

  constructor(
    private readonly run: (key: string, priority: Priority) => Promise<void>,
    private opts: SchedulerOptions,
  ) {
    this.now = opts.now ?? (() => Date.now());
  }

  setDebounce(ms: number): void {
    this.opts = { ...this.opts, debounceMs: ms };
  }

  schedule(key: string, priority: Priority): void {
    if (this.stopped) return;
    if (this.running === key) {
      this.again.set(key, maxPriority(this.again.get(key), priority));
      return;
    }
    const q = this.queued.get(key);
    if (q !== undefined) {
      if (RANK[priority] > RANK[q]) {
        this.queued.set(key, priority);
        this.queue.setPriority(key, RANK[priority]);
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
    this.queued.set(key, priority);
    void this.queue.add(
      async () => {
        const p = this.queued.get(key) ?? priority;
        this.queued.delete(key);
        this.running = key;
        try {
          await this.run(key, p);
        } finally {
          this.running = null;
          this.lastEnd.set(key, this.now());
          const next = this.again.get(key);
          if (next !== undefined) {
            this.again.delete(key);
            this.schedule(key, next);
          }
        }
      },
      { priority: RANK[priority], id: key },
    );
  }

  /** A one-off write (a CLI command through the socket) run in the same queue, ahead of builds. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.add(fn, { priority: 2 }) as Promise<T>;
  }

  get waiting(): number {
    return this.queued.size + this.timers.size;
  }

  get liveWaiting(): number {
    let n = 0;
    for (const p of this.queued.values()) if (p === 'live') n += 1;
    return n;
  }

  get current(): string | null {
    return this.running;
  }

  get idle(): boolean {
    return this.running === null && this.queued.size === 0 && this.timers.size === 0 && this.again.size === 0;
  }

  /** Resolves when nothing is queued, debounced or running. */
  async onIdle(): Promise<void> {
    while (!this.idle) {
      if (this.timers.size > 0 && this.queue.size === 0 && this.queue.pending === 0) {
        await new Promise((r) => setTimeout(r, Math.max(5, this.opts.debounceMs / 4)));
      } else await this.queue.onIdle();
    }
  }

  /** Stops taking work: queued and debounced builds are dropped, the running one finishes. */
  stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.queue.clear();
    this.queued.clear();
    this.again.clear();
    return this.queue.onIdle();
  }
}

function maxPriority(a: Priority | undefined, b: Priority): Priority {
  return a !== undefined && RANK[a] >= RANK[b] ? a : b;
}
