import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { StoreLockedError, StoreWriteError } from '../errors.js';
import { writeError } from '../store/files.js';
import { isAlive, processStart } from './lock.js';

/**
 * One writer per store, daemon or not (SPEC §10). While a daemon runs, every command writes
 * through it; with none running, a one-shot command (a `build`, a `retitle`, a hook's build or
 * checkpoint) writes the store itself, and two of them at once (a hook beside a manual build, the
 * hooks of two agent sessions) would append to one timeline together and tear it. So a writer
 * holds this lock for as long as it writes: a one-shot command while it runs, a daemon for its
 * life. The lock is a file holding the writer's pid and the kernel's start time of that process
 * (a pid alone cannot tell a live writer from a process that got its pid later); a writer killed
 * without a word leaves a lock the next one takes over.
 *
 * The file is written whole before it becomes the lock (a temp file, then `link`, which fails
 * when the lock exists): no writer ever sees it empty or half written, whatever kills its maker. A
 * stale lock is taken over under a second, short-lived lock (`writer.lock.takeover`, created
 * exclusively): the one process holding it reads the lock again and removes it only if it is still
 * the record found stale, so a fresh lock another process has just made is never removed. A lock
 * that does not parse (written by hand, by an older version) is stale once a few seconds old.
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
  /** Ends the wait (a daemon stopped while it starts): acquire rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A lock that does not parse is stale once this old (a lock is never seen half written). */
const GARBAGE_GRACE_MS = 2000;
/** A takeover lock is held for microseconds: one this old was left by a process killed holding it. */
const TAKEOVER_STALE_MS = 10_000;

type Holder = { info: WriterInfo; text: string } | { info: null; text: string; ageMs: number } | null;

function readHolder(path: string): Holder {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new StoreWriteError(`cannot read the writer lock ${path}: ${code ?? (e as Error).message}`, {
      hint: `remove it (rm -r ${path}); it is made again by the next writer`,
      cause: e,
      details: { path },
    });
  }
  try {
    const v = JSON.parse(text) as WriterInfo;
    if (typeof v?.pid === 'number') return { info: v, text };
  } catch {
    // judged by its age below
  }
  let ageMs = 0;
  try {
    ageMs = Date.now() - statSync(path).mtimeMs;
  } catch {
    // gone meanwhile: judged again on the next try
  }
  return { info: null, text, ageMs };
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

  private constructor(
    readonly path: string,
    private readonly text: string,
  ) {
    // A command ends by process.exit without unwinding: the lock goes with it.
    process.once('exit', this.onExit);
  }

  static async acquire(path: string, what: string, opts: WriterWait): Promise<WriterLock> {
    const me: WriterInfo = { pid: process.pid, pid_start: processStart(process.pid), started_at: new Date().toISOString(), what, daemon: opts.daemon };
    const text = `${JSON.stringify(me)}\n`;
    const deadline = Date.now() + opts.waitMs;
    let told = false;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    } catch (e) {
      throw writeError('create', dirname(path), e);
    }
    for (;;) {
      opts.signal?.throwIfAborted();
      if (create(path, text)) return new WriterLock(path, text);
      const h = readHolder(path);
      if (h === null) continue; // released meanwhile: try again at once
      const stale = h.info === null ? h.ageMs >= GARBAGE_GRACE_MS : !writing(h.info) || (h.info.pid === process.pid && h.info.pid_start === me.pid_start);
      if (stale) {
        takeOver(path, h.text);
        continue;
      }
      if (h.info?.daemon === true) {
        throw opts.daemon
          ? new StoreLockedError(`another daemon (pid ${h.info.pid}, started ${h.info.started_at}) writes the store`, {
              hint: `stop it first (kill ${h.info.pid}), or point this one at another store with --root`,
              details: { pid: h.info.pid, lock: path },
            })
          : new StoreLockedError(`a daemon (pid ${h.info.pid}) started writing the store while this command prepared to`, {
              hint: 'run the command again: it goes through the daemon',
              details: { pid: h.info.pid, lock: path },
            });
      }
      if (Date.now() >= deadline) {
        const who = h.info === null ? `another writer (its lock ${path} does not say who)` : `${h.info.what} (pid ${h.info.pid}, since ${h.info.started_at})`;
        throw new StoreLockedError(`${who} is writing the store; gave up waiting after ${Math.round(opts.waitMs / 1000)} s`, {
          hint: 'run the command again once it has finished, or run the daemon (`handoff daemon`), which takes every write in turn',
          details: { lock: path, ...(h.info === null ? {} : { pid: h.info.pid }) },
        });
      }
      if (!told && h.info !== null) {
        told = true;
        opts.onWait?.(h.info);
      }
      await delay(opts.pollMs ?? 100, undefined, opts.signal ? { signal: opts.signal } : undefined);
    }
  }

  /**
   * Checked now and then by a daemon, which holds the lock for its life: one deleted under it (a
   * cleanup of the runtime folder) is written again, so that a command started next waits or goes
   * through the daemon. `other`: another writer made it meanwhile (the daemon logs it).
   */
  recheck(): 'held' | 'rewritten' | 'other' {
    if (!this.held) return 'held';
    try {
      return readFileSync(this.path, 'utf8') === this.text ? 'held' : 'other';
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return 'held';
    }
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      return create(this.path, this.text) ? 'rewritten' : 'other';
    } catch {
      return 'held'; // cannot be written now: tried again at the next check
    }
  }

  /** Removes the lock if it is still this one's. Idempotent. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    process.removeListener('exit', this.onExit);
    let now: string;
    try {
      now = readFileSync(this.path, 'utf8');
    } catch {
      return; // already gone
    }
    if (now !== this.text) return;
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

/** Makes the lock from a whole record (a temp file linked into place); false when one exists. */
function create(path: string, text: string): boolean {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}`;
  try {
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    throw writeError('create the writer lock', path, e);
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw writeError('create the writer lock', path, e);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // gone
    }
  }
}

/**
 * Removes the stale lock `seen`, under the takeover lock, only if the lock is still that record.
 * When another process holds the takeover lock, nothing is done: the caller tries again.
 */
function takeOver(path: string, seen: string): void {
  const guard = `${path}.takeover`;
  if (!create(guard, `${process.pid}\n`)) {
    try {
      if (Date.now() - statSync(guard).mtimeMs >= TAKEOVER_STALE_MS) unlinkSync(guard);
    } catch {
      // gone meanwhile
    }
    return;
  }
  try {
    let now: string | null = null;
    try {
      now = readFileSync(path, 'utf8');
    } catch {
      // gone: nothing to take over
    }
    if (now === seen) {
      try {
        unlinkSync(path);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT') {
          throw new StoreWriteError(`cannot remove the stale writer lock ${path}: ${code ?? (e as Error).message}`, {
            hint: `remove it (rm -r ${path}); it is made again by the next writer`,
            cause: e,
            details: { path },
          });
        }
      }
    }
  } finally {
    try {
      unlinkSync(guard);
    } catch {
      // gone
    }
  }
}
