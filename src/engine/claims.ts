import { setTimeout as sleep } from 'node:timers/promises';
import { threadId } from 'node:worker_threads';

/**
 * The sessions being built right now, shared by the threads of one process: the main lane and
 * the build workers (pool.ts). The scheduler keeps one build per transcript path, but two paths
 * can lead to one session — a transcript hard-linked under two watched roots, one spelt through a
 * symbolic link, two files that carry the same session id — and two builds of one session at
 * once append to one timeline: turns duplicated, lost, a broken chain. A build claims its session
 * id before it reads the session's folder and holds it until its commit, so that the second waits
 * (the main lane), or is handed back to be built after (a worker: `independentOnly`), and then
 * sees the first one's commit.
 *
 * A table of SLOTS (hash, owner) pairs in a SharedArrayBuffer, guarded by a spin lock held for a
 * scan of the table only. A hash that two ids share makes one wait for the other: never wrong.
 * A worker that dies holding a claim has it released by the pool (releaseOwner).
 */
export class SessionClaims {
  static readonly SLOTS = 64;
  private readonly a: Int32Array;
  readonly owner: number;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4 * (1 + 2 * SessionClaims.SLOTS))) {
    this.a = new Int32Array(buffer);
    // 0 marks a free slot: thread ids start at 0 (the main thread).
    this.owner = threadId + 1;
  }

  /**
   * Claims every key for this thread, or none: false when another thread holds one of them (or
   * the table is full). One build claims its transcript's inode and its session's id together.
   */
  tryClaim(keys: readonly string[]): boolean {
    const hs = keys.map(hash);
    return this.locked(() => {
      const free: number[] = [];
      for (let i = 0; i < SessionClaims.SLOTS; i += 1) {
        const at = 1 + 2 * i;
        const held = this.a[at] as number;
        if (held !== 0 && hs.includes(held)) return false;
        if (held === 0) free.push(at);
      }
      if (free.length < hs.length) return false;
      hs.forEach((h, i) => {
        const at = free[i] as number;
        this.a[at] = h;
        this.a[at + 1] = this.owner;
      });
      return true;
    });
  }

  /**
   * Waits, at least `pollMs`, until no other thread holds any of `keys` (then claiming may still
   * lose a race: try again). At least once: a claim refused for a full table finds nothing held,
   * and must not be asked again at once.
   */
  async whileHeld(keys: readonly string[], pollMs = 20): Promise<void> {
    const hs = keys.map(hash);
    const held = (): boolean =>
      this.locked(() => {
        for (let i = 0; i < SessionClaims.SLOTS; i += 1) if (hs.includes(this.a[1 + 2 * i] as number)) return true;
        return false;
      });
    do await sleep(pollMs);
    while (held());
  }

  release(keys: readonly string[]): void {
    const hs = keys.map(hash);
    this.locked(() => {
      for (let i = 0; i < SessionClaims.SLOTS; i += 1) {
        const at = 1 + 2 * i;
        if (hs.includes(this.a[at] as number) && this.a[at + 1] === this.owner) {
          this.a[at] = 0;
          this.a[at + 1] = 0;
        }
      }
    });
  }

  /** Releases what a thread held: a worker that died in a build. */
  releaseOwner(owner: number): void {
    this.locked(() => {
      for (let i = 0; i < SessionClaims.SLOTS; i += 1) {
        const at = 1 + 2 * i;
        if (this.a[at + 1] === owner) {
          this.a[at] = 0;
          this.a[at + 1] = 0;
        }
      }
    });
  }

  private locked<T>(f: () => T): T {
    // Held for one scan of 64 slots: a thread that finds it taken spins for that long at most.
    while (Atomics.compareExchange(this.a, 0, 0, 1) !== 0);
    try {
      return f();
    } finally {
      Atomics.store(this.a, 0, 0);
    }
  }
}

/** What a build claims: its transcript's file, and its session. */
export const inodeKey = (dev: number, ino: number): string => `inode:${dev}:${ino}`;
export const sessionKey = (id: string): string => `session:${id}`;

/** FNV-1a over the key's UTF-16 code units, never 0 (a free slot). */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h === 0 ? 1 : h;
}
