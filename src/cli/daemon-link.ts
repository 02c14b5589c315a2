import type { ResolvedConfig } from '../config.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { ControlClient, connectAndHello, isUnanswered } from '../control/client.js';
import type { Methods } from '../control/protocol.js';
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
  let hello;
  try {
    ({ client: c, hello } = await helloDaemon(config, 1000));
  } catch (e) {
    if (e instanceof DaemonNotRunningError) return null;
    throw e;
  }
  // Only the daemon of this very store may write it on our behalf.
  if (hello.root !== config.root) {
    c.close();
    throw new StoreLockedError(`the daemon on ${config.socketPath} serves ${hello.root}, not ${config.root}`, {
      hint: 'stop that daemon or give this store its own socket (run without XDG_RUNTIME_DIR, or with another store root)',
    });
  }
  return c;
}

/** How long a daemon that took the connection is given to answer `hello`. */
export const HELLO_TIMEOUT_MS = 5000;

/**
 * A connection to this store's daemon that has answered `hello`. A daemon that takes the
 * connection and answers nothing (stopped with SIGSTOP or Ctrl-Z, held by a debugger) still
 * holds the store: the command ends with StoreLockedError (exit 7), naming its pid and how to let
 * it go on, instead of waiting for good or exiting 1, which would read as "verify failed".
 */
export async function helloDaemon(config: ResolvedConfig, connectTimeoutMs?: number): Promise<{ client: ControlClient; hello: Methods['hello']['result'] }> {
  try {
    return await connectAndHello(() => connectToDaemon(config, connectTimeoutMs), HELLO_TIMEOUT_MS);
  } catch (e) {
    if (!isUnanswered(e, 'hello')) throw e;
    const holder = readLock(new Layout(config.root).lockFile);
    const pid = holder?.pid;
    const who = pid === undefined ? 'the daemon' : `the daemon (pid ${pid})`;
    throw new StoreLockedError(`${who} holds the store ${config.root} but did not answer within ${HELLO_TIMEOUT_MS / 1000} s on ${config.socketPath}: it is stopped (SIGSTOP, Ctrl-Z in its terminal, a debugger) or its thread is held`, {
      hint: pid === undefined ? 'let it go on (`kill -CONT <its pid>`, or `fg` in its terminal), or stop it and start it again; nothing is written beside it meanwhile' : `let it go on (\`kill -CONT ${pid}\`, or \`fg\` in its terminal), or stop it (\`kill ${pid}\`) and start it again; nothing is written beside it meanwhile`,
      details: { ...(pid === undefined ? {} : { pid }), socket: config.socketPath },
    });
  }
}

/**
 * A connection to this store's daemon: on the socket this process looks at, else on the one the
 * store's lock names (a service's runtime folder). DaemonNotRunningError when neither answers.
 */
export async function connectToDaemon(config: ResolvedConfig, timeoutMs?: number): Promise<ControlClient> {
  try {
    return await ControlClient.connect(config.socketPath, timeoutMs);
  } catch (e) {
    if (!(e instanceof DaemonNotRunningError)) throw e;
    const other = await daemonByLock(config);
    if (other === null) throw e;
    return other;
  }
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
 * How long a live daemon that holds the lock is given to answer. It takes its lock before it
 * opens its socket (it loads the index and starts its worker in between: seconds on a large
 * store), and binds the socket again within GUARD_CHECK_MS when a cleanup deleted it: a command
 * run in either moment waits for it rather than saying that it does not answer.
 */
export const ANSWER_GRACE_MS = 5000;
const ANSWER_POLL_MS = 100;

/**
 * No daemon answers where this process looks, but the store's lock may name a live one whose
 * socket is elsewhere: a systemd service has `XDG_RUNTIME_DIR` set, a command run from cron or
 * `sudo` has not, and looks in another folder. Writing the store beside that daemon would make
 * two writers: its socket, as the lock records it, is used instead, and a daemon that holds the
 * lock but cannot be reached in ANSWER_GRACE_MS is an error, never a reason to write alone.
 */
export async function daemonByLock(config: ResolvedConfig, graceMs = ANSWER_GRACE_MS): Promise<ControlClient | null> {
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
  const sockets = [config.socketPath, ...(typeof holder.socket === 'string' && holder.socket !== config.socketPath ? [holder.socket] : [])];
  const deadline = Date.now() + graceMs;
  for (let first = true; ; first = false) {
    // The caller has just tried this process's own socket: the first round asks the lock's.
    for (const path of first ? sockets.slice(1) : sockets) {
      try {
        return await ControlClient.connect(path, 1000);
      } catch {
        // not reachable there (yet)
      }
    }
    if (Date.now() >= deadline) break;
    await sleep(ANSWER_POLL_MS);
    // Gone while it was waited for (it failed to start, or stopped): no daemon holds the store.
    if (!(await holderState(holder)).alive) return null;
  }
  throw new StoreLockedError(`a daemon (pid ${holder.pid}, started ${holder.started_at}) holds the store ${config.root}, but did not answer within ${Math.round(graceMs / 1000)} s on ${config.socketPath}${holder.socket !== config.socketPath ? ` or on ${String(holder.socket)}` : ''}`, {
    hint: `run this command with the daemon's environment (its XDG_RUNTIME_DIR: its socket is ${String(holder.socket)}), or stop the daemon (kill ${holder.pid}) to write the store without it`,
    details: { pid: holder.pid, lock: lockPath },
  });
}