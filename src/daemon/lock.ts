import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { probe } from '../control/socket-path.js';
import { StoreLockedError, StoreWriteError } from '../errors.js';

/**
 * One daemon per store (SPEC §10): a lock file holding the owner's pid *and* the kernel's start
 * time of that process, created exclusively. A pid alone cannot tell a live daemon from a
 * process that got the same pid after a reboot or a wrap-around; the pair can. A lock whose
 * holder is gone is taken over; a live one is refused with exit 7 naming the holder.
 * (The socket is a second guard: a new daemon also refuses to start while another answers it.)
 */

export interface LockInfo {
  pid: number;
  /** When the process started, as the kernel counts it (Linux: clock ticks since boot); null where unknown. */
  pid_start?: string | null;
  started_at: string;
  socket: string;
  version: string;
}

/**
 * A lock without a start time to compare (written on a system without /proc, or by an older
 * version) is judged by its socket instead; a daemon this young may not have bound it yet.
 */
const STARTUP_GRACE_MS = 30_000;

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

export function readLock(path: string): LockInfo | null {
  try {
    return parseLock(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function parseLock(text: string): LockInfo | null {
  try {
    const info = JSON.parse(text) as LockInfo;
    return typeof info?.pid === 'number' ? info : null;
  } catch {
    return null;
  }
}

/** Whether the process a lock names is still the daemon that wrote it, and why not. */
export async function holderState(holder: LockInfo, now = Date.now()): Promise<{ alive: boolean; why: string }> {
  const pid = holder.pid;
  if (pid === process.pid && holder.pid_start && holder.pid_start === processStart(pid)) return { alive: false, why: 'this very process wrote it' };
  if (pid === process.pid || !isAlive(pid)) return { alive: false, why: `pid ${pid} is not running` };
  const current = processStart(pid);
  if (holder.pid_start && current !== null) {
    return current === holder.pid_start ? { alive: true, why: `pid ${pid} is running` } : { alive: false, why: `pid ${pid} now belongs to another process (it started after the lock was written)` };
  }
  if (typeof holder.socket === 'string' && (await probe(holder.socket))) return { alive: true, why: `a daemon answers on ${holder.socket}` };
  const age = now - Date.parse(holder.started_at);
  if (Number.isFinite(age) && age >= 0 && age < STARTUP_GRACE_MS) return { alive: true, why: `pid ${pid} started ${Math.round(age / 1000)} s ago and may still be starting` };
  return { alive: false, why: `pid ${pid} is running, but nothing answers on its socket ${holder.socket}` };
}

export class StoreLock {
  private held = false;

  constructor(
    readonly path: string,
    private readonly info: LockInfo,
  ) {}

  async acquire(): Promise<{ tookOver: (LockInfo & { why: string }) | null }> {
    let tookOver: (LockInfo & { why: string }) | null = null;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        this.create();
        this.held = true;
        return { tookOver };
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST') {
          // A full disk is no permission problem: the fix says which it is.
          const hint = code === 'ENOSPC' || code === 'EDQUOT' ? "free space on the store's disk (or lift the quota), then start again" : 'make the store folder writable by this user';
          throw new StoreWriteError(`cannot create the lock ${this.path}: ${code ?? (e as Error).message}`, { hint, cause: e });
        }
      }
      const holder = readLock(this.path);
      const state = holder ? await holderState(holder) : { alive: false, why: 'the lock file is unreadable' };
      if (holder && state.alive) {
        throw new StoreLockedError(`another daemon (pid ${holder.pid}, started ${holder.started_at}) holds the store lock ${this.path}`, {
          hint: `stop it first (kill ${holder.pid}, or \`systemctl --user stop handoffd\`), or point this one at another store with --root`,
          details: { pid: holder.pid, lock: this.path },
        });
      }
      // The holder is gone (or the file is unreadable): take the lock over.
      tookOver = holder ? { ...holder, why: state.why } : null;
      try {
        unlinkSync(this.path);
      } catch {
        // Another starter removed it first; retry the exclusive create.
      }
    }
    throw new StoreLockedError(`could not take the store lock ${this.path} after 3 attempts`, { hint: 'another daemon is starting at the same moment; try again' });
  }

  /**
   * Checked now and then while the daemon runs: a lock file deleted under it (a cleanup script,
   * an `rm` of the wrong folder) is written again, so that a daemon started next is refused; a
   * lock another live daemon wrote means that one started while the file was missing, and this
   * one must stop writing the store.
   */
  async recheck(): Promise<{ state: 'held' } | { state: 'rewritten'; why: string } | { state: 'taken'; holder: LockInfo }> {
    if (!this.held) return { state: 'held' };
    let why: string;
    let text: string | null = null;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { state: 'held' }; // unreadable for now: judged next time
    }
    if (text === null) why = 'the lock file was deleted';
    else {
      const holder = parseLock(text);
      if (holder && holder.pid === process.pid && holder.pid_start === this.info.pid_start) return { state: 'held' };
      // Another daemon's record is judged as a starting daemon judges it (holderState).
      const other = holder ? await holderState(holder) : null;
      if (holder && other?.alive) return { state: 'taken', holder };
      why = holder ? `the lock file named pid ${holder.pid}: ${other?.why ?? ''}` : 'the lock file held something else';
      try {
        unlinkSync(this.path);
      } catch {
        // gone meanwhile
      }
    }
    try {
      this.create();
    } catch {
      // A daemon starting at this very moment wrote it first: judged at the next check.
    }
    return { state: 'rewritten', why };
  }

  /** Creates the lock file with this daemon's record; EEXIST when one is there. */
  private create(): void {
    const fd = openSync(this.path, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(this.info)}\n`);
    } finally {
      closeSync(fd);
    }
  }

  /** Removes the lock if it is still ours. Idempotent. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    const holder = readLock(this.path);
    if (holder?.pid === process.pid) {
      try {
        unlinkSync(this.path);
      } catch {
        // already gone
      }
    }
  }
}
