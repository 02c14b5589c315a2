import type { ResolvedConfig } from '../config.js';
import { ControlClient } from '../control/client.js';
import { DaemonNotRunningError, StoreLockedError } from '../errors.js';

/**
 * While a daemon runs, commands that write the store go through its socket (SPEC §10: one
 * writer). Returns a connected client, or null when no daemon answers.
 */
export async function daemonIfRunning(config: ResolvedConfig): Promise<ControlClient | null> {
  let c: ControlClient;
  try {
    c = await ControlClient.connect(config.socketPath, 1000);
  } catch (e) {
    if (e instanceof DaemonNotRunningError) return null;
    throw e;
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
