import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { StoreLockedError, StoreWriteError } from '../errors.js';
import { isAlive, processStart } from './lock.js';

/**
 * One writer per store, daemon or not (SPEC §10). While a daemon runs, every command writes
 * through it; with none running, a one-shot command (a `build`, a `retitle`, a hook's build or
 * checkpoint) writes the store itself, and two of them at once (a hook beside a manual build, the
 * hooks of two agent sessions) would append to one timeline together and tear it. So a writer
 * holds this lock for as long as it writes: a one-shot command while it runs, a daemon for its
 * life. The lock is a file created exclusively, holding the writer's pid and the kernel's start
 * time of that process (a pid alone cannot tell a live writer from a process that got its pid
 * later); a writer killed without a word leaves a lock the next one takes over.
 *
 * Another writer's lock is waited for, up to `waitMs`, saying once whom it waits for. A daemon's
 * is not: a command that finds one started after it looked for a daemon, and run again goes
 * through it; a daemon that finds one is a second daemon (refused, as by the daemon lock).
 */

export interface WriterInfo {
  pid: number;
  pid_start: string | null;
  started_at: string;
  /** What writes: `handoff build`, `the daemon`, a hook. */
  what: string;
  daemon: boolean;
}

export interface WriterWait {
  /** A daemon waits for a one-shot command to end; a command never writes beside a daemon. */
  daemon: boolean;
  /** How long another live writer is waited for before the command gives up. */
  waitMs: number;
  /** Told once, when this writer starts to wait. */
  onWait?: (holder: WriterInfo) => void;
  /** How often the lock is tried again while another holds it. */
  pollMs?: number;
}

function readWriter(path: string): WriterInfo | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as WriterInfo;
    return typeof v?.pid === 'number' ? v : null;
  } catch {
    return null;
  }
}

/** Whether the process a writer lock names is still the one that wrote it. */
function writing(h: WriterInfo): boolean {
  if (!isAlive(h.pid)) return false;
  const now = processStart(h.pid);
  return h.pid_start === null || now === null || now === h.pid_start;
}

export class WriterLock {
  private held = true;
  private readonly onExit = (): void => this.release();

  private constructor(readonly path: string) {
    // A command ends by process.exit without unwinding: the lock goes with it.
    process.once('exit', this.onExit);
  }

  static async acquire(path: string, what: string, opts: WriterWait): Promise<WriterLock> {
    const me: WriterInfo = { pid: process.pid, pid_start: processStart(process.pid), started_at: new Date().toISOString(), what, daemon: opts.daemon };
    const deadline = Date.now() + opts.waitMs;
    let told = false;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    } catch (e) {
      throw new StoreWriteError(`cannot create ${dirname(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { hint: 'make the store folder writable by this user', cause: e });
    }
    for (;;) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        try {
          writeSync(fd, `${JSON.stringify(me)}\n`);
        } finally {
          closeSync(fd);
        }
        return new WriterLock(path);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST') throw new StoreWriteError(`cannot create the writer lock ${path}: ${code ?? (e as Error).message}`, { hint: 'make the store folder writable by this user', cause: e });
      }
      const holder = readWriter(path);
      // Unreadable (a writer between its create and its write) is judged on the next try.
      if (holder !== null && (!writing(holder) || (holder.pid === process.pid && holder.pid_start === me.pid_start))) {
        // Its writer is gone (or this very process left it, its release skipped): taken over.
        try {
          unlinkSync(path);
        } catch {
          // another writer took it over first
        }
        continue;
      }
      if (holder?.daemon === true) {
        throw opts.daemon
          ? new StoreLockedError(`another daemon (pid ${holder.pid}, started ${holder.started_at}) writes the store`, {
              hint: `stop it first (kill ${holder.pid}), or point this one at another store with --root`,
              details: { pid: holder.pid, lock: path },
            })
          : new StoreLockedError(`a daemon (pid ${holder.pid}) started writing the store while this command prepared to`, {
              hint: 'run the command again: it goes through the daemon',
              details: { pid: holder.pid, lock: path },
            });
      }
      if (Date.now() >= deadline) {
        const who = holder === null ? 'another writer' : `${holder.what} (pid ${holder.pid}, since ${holder.started_at})`;
        throw new StoreLockedError(`${who} is writing the store; gave up waiting after ${Math.round(opts.waitMs / 1000)} s`, {
          hint: 'run the command again once it has finished, or run the daemon (`handoff daemon`), which takes every write in turn',
          details: { lock: path, ...(holder === null ? {} : { pid: holder.pid }) },
        });
      }
      if (!told && holder !== null) {
        told = true;
        opts.onWait?.(holder);
      }
      await delay(opts.pollMs ?? 100);
    }
  }

  /** Removes the lock if it is still this process's. Idempotent. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    process.removeListener('exit', this.onExit);
    const h = readWriter(this.path);
    if (h?.pid !== process.pid) return;
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}
