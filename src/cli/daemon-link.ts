import type { ResolvedConfig } from '../config.js';
import { ControlClient } from '../control/client.js';
import { holderState, readLock } from '../daemon/lock.js';
import { guardHolder } from '../daemon/store-guard.js';
import { DaemonNotRunningError, StoreLockedError } from '../errors.js';
import { Layout } from '../store/layout.js';

/**
 * While a daemon runs, commands that write the store go through its socket (SPEC §10: one
 * writer). Returns a connected client, or null when no daemon answers.
 */
export async function daemonIfRunning(config: ResolvedConfig): Promise<ControlClient | null> {
  let c: ControlClient;
  try {
    c = await ControlClient.connect(config.socketPath, 1000);
  } catch (e) {
    if (!(e instanceof DaemonNotRunningError)) throw e;
    const other = await daemonByLock(config);
    if (other === null) return null;
    c = other;
  }
  // Only the daemon of this very store may write it on our behalf.
  let hello;
  try {
    hello = await c.call('hello', undefined, 5000);
  } catch (e) {
    // A daemon that does not answer (stopped, or its thread held): the connection is closed, so
    // the command ends with the error instead of waiting on the socket for good.
    c.close();
    throw e;
  }
  if (hello.root !== config.root) {
    c.close();
    throw new StoreLockedError(`the daemon on ${config.socketPath} serves ${hello.root}, not ${config.root}`, {
      hint: 'stop that daemon or give this store its own socket (run without XDG_RUNTIME_DIR, or with another store root)',
    });
  }
  return c;
}

export async function withDaemon<T>(config: ResolvedConfig, viaDaemon: (c: ControlClient) => Promise<T>, local: () => Promise<T>): Promise<T> {
  const c = await daemonIfRunning(config);
  if (!c) return local();
  try {
    return await viaDaemon(c);
  } finally {
    c.close();
  }
}

/**
 * No daemon answers where this process looks, but the store's lock may name a live one whose
 * socket is elsewhere: a systemd service has `XDG_RUNTIME_DIR` set, a command run from cron or
 * `sudo` has not, and looks in another folder. Writing the store beside that daemon would make
 * two writers: its socket, as the lock records it, is used instead, and a daemon that holds the
 * lock but cannot be reached is an error, never a reason to write alone.
 */
export async function daemonByLock(config: ResolvedConfig): Promise<ControlClient | null> {
  const lockPath = new Layout(config.root).lockFile;
  const holder = readLock(lockPath);
  if (holder === null || !(await holderState(holder)).alive) {
    // Lock and socket deleted by a cleanup while the daemon runs: its store guard still says so.
    const guard = await guardHolder(config.root);
    if (guard === null) return null;
    throw new StoreLockedError(`a daemon (pid ${guard.pid}) runs on the store ${config.root}, but its lock file and socket are gone (it writes them again within seconds)`, {
      hint: 'run the command again in a few seconds: it goes through the daemon',
      details: { pid: guard.pid },
    });
  }
  if (typeof holder.socket === 'string' && holder.socket !== config.socketPath) {
    try {
      return await ControlClient.connect(holder.socket, 1000);
    } catch {
      // not reachable there either: refused below
    }
  }
  throw new StoreLockedError(`a daemon (pid ${holder.pid}) holds the store ${config.root}, but does not answer on ${config.socketPath}${holder.socket !== config.socketPath ? ` or on ${String(holder.socket)}` : ''}`, {
    hint: `run this command with the daemon's environment (its XDG_RUNTIME_DIR: its socket is ${String(holder.socket)}), or stop the daemon (kill ${holder.pid}) to write the store without it`,
    details: { pid: holder.pid, lock: lockPath },
  });
}