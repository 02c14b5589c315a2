import { existsSync, realpathSync, statSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { sha256Hex } from '../core/canonical.js';
import type { Logger } from '../log.js';
import { StoreLockedError } from '../errors.js';
import { Layout } from '../store/layout.js';
import { isAlive, processStart } from './lock.js';

/**
 * A second guard of "one daemon per store" that no file operation can remove (Linux only): the
 * daemon binds a socket in the kernel's abstract namespace, named after the store's real path
 * and the user. The name has no file, so `rm` cannot delete it, and the kernel frees it when
 * the process ends, however it ends. The lock file stays the guard every platform has and the
 * one that names the holder; this one closes the gap a deleted lock file (with its socket)
 * would open: a second daemon writing the same timelines at once.
 *
 * Every user of the machine shares the abstract namespace, so a name held by a process that is
 * not a handoffd of this user is not obeyed (that would let anyone stop the daemon from
 * starting): the holder is asked for its pid, and only a live process of this user that
 * started when it says it did counts. Otherwise the daemon starts, guarded by the lock file.
 */

export interface GuardHolder {
  pid: number;
  pid_start: string | null;
}

const ASK_TIMEOUT_MS = 3000;

export function guardName(root: string, uid = process.getuid?.() ?? 0): string {
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // a store not created yet is named by the path given
  }
  return `\0handoffd-${uid}-${sha256Hex(real).slice(0, 32)}`;
}

export class StoreGuard {
  private constructor(private readonly server: Server) {}

  /**
   * Binds the guard, or throws StoreLockedError when a daemon of this user already holds it.
   * Resolves null where there is no abstract namespace, or the name is held by something that
   * is not a handoffd of this user (logged).
   */
  static async claim(root: string, log: Logger): Promise<StoreGuard | null> {
    if (process.platform !== 'linux') return null;
    const name = guardName(root);
    const me: GuardHolder = { pid: process.pid, pid_start: processStart(process.pid) };
    // A connection is answered with the holder's pid and nothing else (any user may connect).
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end(`${JSON.stringify(me)}\n`);
    });
    const bound = await new Promise<boolean>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' ? resolve(false) : reject(e)));
      server.listen(name, () => resolve(true));
    }).catch((e: Error) => {
      log.warn({ err: e.message }, `cannot bind the store guard (${e.message}); relying on the lock file alone`);
      return null;
    });
    if (bound === null) return null;
    if (bound) {
      server.unref();
      return new StoreGuard(server);
    }
    const holder = await ask(name);
    const why = holder ? liveDaemonOfMine(holder) : 'it did not say who it is';
    if (holder && why === null) {
      // The usual case is a daemon running as it should (its lock file there): said plainly; the
      // lock file's absence only when it is absent.
      const lockGone = !existsSync(new Layout(root).lockFile);
      throw new StoreLockedError(`another daemon (pid ${holder.pid}) runs on the store ${root}${lockGone ? ', though its lock file is gone' : ''}`, {
        hint: lockGone ? `stop it first (kill ${holder.pid}); it writes its lock file and socket again within seconds` : `\`handoff status\` asks it what it is doing; stop it first (kill ${holder.pid}, or \`systemctl --user stop handoffd\`), or point this one at another store with --root`,
        details: { pid: holder.pid },
      });
    }
    log.warn({ holder_pid: holder?.pid ?? null }, `the store guard's name is held by a process that is not a handoffd of this user (${why}); relying on the lock file alone`);
    return null;
  }

  close(): void {
    this.server.close();
  }
}

/**
 * The live daemon of this user that holds the store's guard, or null (no guard on this platform,
 * nobody holds it, or the holder is not a handoffd of this user). A command that finds no socket
 * and no lock asks it: a cleanup that deleted both leaves the daemon running for a few seconds
 * before it writes them again, and the command must not write the store beside it.
 */
export async function guardHolder(root: string): Promise<GuardHolder | null> {
  if (process.platform !== 'linux') return null;
  const holder = await ask(guardName(root));
  return holder !== null && liveDaemonOfMine(holder) === null ? holder : null;
}

/** null when the holder is a live process of this user that started when it says; else why not. */
function liveDaemonOfMine(h: GuardHolder): string | null {
  if (!Number.isInteger(h.pid) || h.pid <= 0 || h.pid === process.pid) return `pid ${String(h.pid)} is not another process`;
  if (!isAlive(h.pid)) return `pid ${h.pid} is not running`;
  try {
    if (statSync(`/proc/${h.pid}`).uid !== process.getuid?.()) return `pid ${h.pid} belongs to another user`;
  } catch {
    return `pid ${h.pid} cannot be inspected`;
  }
  if (h.pid_start === null || processStart(h.pid) !== h.pid_start) return `pid ${h.pid} did not start when it says`;
  return null;
}

function ask(name: string): Promise<GuardHolder | null> {
  return new Promise((resolve) => {
    const s = connect(name);
    let text = '';
    const done = (v: GuardHolder | null): void => {
      s.removeAllListeners();
      s.destroy();
      resolve(v);
    };
    s.setEncoding('utf8');
    s.setTimeout(ASK_TIMEOUT_MS, () => done(null));
    s.on('data', (d: string) => {
      text += d;
      if (text.length > 200) done(null);
    });
    s.once('end', () => {
      try {
        const v = JSON.parse(text) as GuardHolder;
        done(typeof v?.pid === 'number' ? { pid: v.pid, pid_start: typeof v.pid_start === 'string' ? v.pid_start : null } : null);
      } catch {
        done(null);
      }
    });
    s.once('error', () => done(null));
  });
}
