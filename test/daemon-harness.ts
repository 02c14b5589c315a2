import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { callDaemon } from '../src/control/client.js';
import type { Methods, MethodName } from '../src/control/protocol.js';
import { CLI, waitFor } from './helpers.js';

/** The daemon as a real child process, for tests that kill it and talk to its socket. */

export interface RunningDaemon {
  child: ChildProcess;
  socket: string;
  log: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  call<M extends MethodName>(method: M, params?: Methods[M]['params'], timeoutMs?: number): Promise<Methods[M]['result']>;
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function socketOf(root: string): string {
  return join(root, '.handoffd', 'handoffd.sock');
}

export interface SpawnOptions {
  /** A command the daemon runs under (setpriv, a shell that sets ulimit); it must exec its arguments. */
  prefix?: readonly string[];
}

/**
 * File modes bind root only when it lacks CAP_DAC_OVERRIDE: tests of unreadable files and
 * read-only stores run the daemon without it when they run as root (CI does). Null when that is
 * not possible here (root without setpriv): such a test says so and skips.
 */
export const UNPRIVILEGED: readonly string[] | null = (() => {
  if (process.getuid?.() !== 0) return [];
  return spawnSync('setpriv', ['--version']).status === 0 ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--'] : null;
})();

/** Whether this process can be denied a file by its mode (not root, or root without the capability). */
export const modesBindTests = process.getuid?.() !== 0;

export function spawnDaemon(env: NodeJS.ProcessEnv, args: readonly string[], opts: SpawnOptions = {}): { child: ChildProcess; log: () => string; exited: RunningDaemon['exited'] } {
  const argv = [...(opts.prefix ?? []), process.execPath, CLI, 'daemon', '--log-level', 'debug', ...args];
  const child = spawn(argv[0] as string, argv.slice(1), { env, cwd: env.HOME, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, log: () => log, exited };
}

export const call = callDaemon;

/** Starts a daemon and waits until its socket answers `hello`. */
export async function startDaemon(env: NodeJS.ProcessEnv, root: string, args: readonly string[], opts: SpawnOptions = {}): Promise<RunningDaemon> {
  const { child, log, exited } = spawnDaemon(env, args, opts);
  const socket = socketOf(root);
  let dead = false;
  void exited.then(() => (dead = true));
  await waitFor(async () => {
    if (dead) throw new Error(`the daemon exited while starting:\n${log()}`);
    try {
      // Started: it answers, and it has set up its watch and queued its backfill.
      return (await call(socket, 'hello')).pid === child.pid && log().includes('is running');
    } catch {
      return false;
    }
  }, `the daemon to answer on ${socket}`, 15_000, 30);
  return {
    child,
    socket,
    log,
    exited,
    call: (method, params, timeoutMs) => call(socket, method, params, timeoutMs),
    kill: async (signal = 'SIGKILL') => {
      child.kill(signal);
      return exited;
    },
  };
}
