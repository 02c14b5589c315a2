import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonByLock } from '../../src/cli/daemon-link.js';
import { resolveConfig } from '../../src/config.js';
import { processStart } from '../../src/daemon/lock.js';
import { StoreLockedError } from '../../src/errors.js';
import { Layout } from '../../src/store/layout.js';
import { tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * A command that finds no daemon on its socket but a live one in the store's lock: the daemon
 * takes its lock before it opens its socket (seconds on a large store), and binds a deleted
 * socket again within seconds. The command waits for it to answer, for a while, rather than
 * saying at once that it does not.
 */

const children: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const s of servers.splice(0)) s.close();
});

/** A store whose lock names a live process (as a daemon that is starting), and no socket yet. */
async function lockedStore(): Promise<{ config: ReturnType<typeof resolveConfig>; holder: ChildProcess }> {
  const root = tempDir('handoff-store-');
  const env = testEnv({ HANDOFFS_ROOT: root });
  const config = resolveConfig({ cwd: root, env });
  const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(holder);
  const pid = holder.pid as number;
  await waitFor(() => processStart(pid) !== null, 'the holder to start');
  const lock = new Layout(config.root).lockFile;
  mkdirSync(dirname(lock), { recursive: true });
  writeFileSync(lock, JSON.stringify({ pid, pid_start: processStart(pid), started_at: new Date().toISOString(), socket: config.socketPath, version: '0.1.0' }));
  return { config, holder };
}

function listenLater(path: string, ms: number): void {
  setTimeout(() => {
    const s = createServer((c) => c.on('error', () => undefined));
    servers.push(s);
    mkdirSync(dirname(path), { recursive: true });
    s.listen(path);
  }, ms);
}

describe('a daemon that holds the lock and has not opened its socket yet', () => {
  it('is waited for, and reached once it listens', async () => {
    const { config } = await lockedStore();
    listenLater(config.socketPath, 700);
    const t0 = Date.now();
    const c = await daemonByLock(config, 5000);
    expect(c).not.toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
    c?.close();
  });

  it('is an error naming it when it does not answer within the grace', async () => {
    const { config, holder } = await lockedStore();
    const t0 = Date.now();
    const e = await daemonByLock(config, 800).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreLockedError);
    expect((e as Error).message).toContain(`a daemon (pid ${holder.pid as number}, started `);
    expect((e as Error).message).toMatch(/did not answer within 1 s on /);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(800);
  });

  it('is no daemon when it dies while it is waited for', async () => {
    const { config, holder } = await lockedStore();
    setTimeout(() => holder.kill('SIGKILL'), 300);
    expect(await daemonByLock(config, 5000)).toBeNull();
  });
});
