import type { ResolvedConfig } from '../config.js';
import { ControlClient } from '../control/client.js';
import { DaemonNotRunningError } from '../errors.js';

/**
 * While a daemon runs, commands that write the store go through its socket (SPEC §10: one
 * writer). Returns a connected client, or null when no daemon answers.
 */
export async function daemonIfRunning(config: ResolvedConfig): Promise<ControlClient | null> {
  try {
    return await ControlClient.connect(config.socketPath, 1000);
  } catch (e) {
    if (e instanceof DaemonNotRunningError) return null;
    throw e;
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
