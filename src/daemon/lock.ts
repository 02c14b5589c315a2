import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { StoreLockedError, StoreWriteError } from '../errors.js';

/**
 * One daemon per store (SPEC §10): a lock file holding the owner's pid, created exclusively.
 * A lock whose pid is dead is taken over; a live one is refused with exit 7 naming the holder.
 * (The socket is a second guard: a new daemon also refuses to start while another answers it.)
 */

export interface LockInfo {
  pid: number;
  started_at: string;
  socket: string;
  version: string;
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLock(path: string): LockInfo | null {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : null;
  } catch {
    return null;
  }
}

export class StoreLock {
  private held = false;

  constructor(
    readonly path: string,
    private readonly info: LockInfo,
  ) {}

  acquire(): { tookOver: LockInfo | null } {
    let tookOver: LockInfo | null = null;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const fd = openSync(this.path, 'wx', 0o600);
        try {
          writeSync(fd, `${JSON.stringify(this.info)}\n`);
        } finally {
          closeSync(fd);
        }
        this.held = true;
        return { tookOver };
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST') {
          throw new StoreWriteError(`cannot create the lock ${this.path}: ${code ?? (e as Error).message}`, { hint: 'make the store folder writable by this user', cause: e });
        }
      }
      const holder = readLock(this.path);
      if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
        throw new StoreLockedError(`another daemon (pid ${holder.pid}, started ${holder.started_at}) holds the store lock ${this.path}`, {
          hint: `stop it first (kill ${holder.pid}, or \`systemctl --user stop handoffd\`), or point this one at another store with --root`,
          details: { pid: holder.pid, lock: this.path },
        });
      }
      // The holder is dead (or the file is unreadable): take the lock over.
      tookOver = holder;
      try {
        unlinkSync(this.path);
      } catch {
        // Another starter removed it first; retry the exclusive create.
      }
    }
    throw new StoreLockedError(`could not take the store lock ${this.path} after 3 attempts`, { hint: 'another daemon is starting at the same moment; try again' });
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
