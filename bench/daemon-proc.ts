import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ControlClient } from '../src/control/client.js';

/** A daemon child process for the benchmarks, configured through its own config file. */

export interface BenchDaemon {
  child: ChildProcess;
  pid: number;
  socket: string;
  client: ControlClient;
  stop(): Promise<void>;
}

export async function startBenchDaemon(cli: string, home: string, root: string, watch: readonly string[], options: Record<string, unknown> = {}): Promise<BenchDaemon> {
  const cfgDir = join(home, '.config', 'handoff');
  await mkdir(cfgDir, { recursive: true });
  const { watch: watchOpts, ...rest } = options;
  await writeFile(join(cfgDir, 'handoff.config.json'), JSON.stringify({ ...rest, watch: { paths: [...watch], backfill_days: 0, ...((watchOpts as object | undefined) ?? {}) } }));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), HANDOFFS_ROOT: root, NODE_ENV: 'production' };
  // HANDOFF_BENCH_NODE_FLAGS (e.g. --cpu-prof) lets a profile of the daemon itself be taken.
  const flags = (process.env.HANDOFF_BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f.length > 0);
  const child = spawn(process.execPath, [...flags, cli, 'daemon', '--log-level', 'warn'], { env, cwd: home, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const socket = join(root, '.handoffd', 'handoffd.sock');
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the daemon exited while starting (code ${child.exitCode})`);
    try {
      const client = await ControlClient.connect(socket, 500);
      const hello = await client.call('hello', undefined, 5000);
      if (hello.pid === child.pid) {
        return {
          child,
          pid: child.pid as number,
          socket,
          client,
          stop: async () => {
            client.close();
            child.kill('SIGTERM');
            await exited;
          },
        };
      }
      client.close();
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error('the daemon did not come up within 30 s');
    await sleep(50);
  }
}
