import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStart } from '../../src/daemon/lock.js';
import { spawnDaemon } from '../daemon-harness.js';
import { CLI, copyFixture, readLines, runCli, spawnCli, tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * One writer per store with no daemon too (daemon/writer-lock.ts): a one-shot command that writes
 * the store waits while another holds the writer lock, a daemon started meanwhile waits for it,
 * and a lock its writer left when it was killed is taken over.
 */

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A live process that holds the store's writer lock as a one-shot `handoff build` would. */
async function holder(root: string): Promise<ChildProcess> {
  const other = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(other);
  await waitFor(() => processStart(other.pid as number) !== null, 'the holder to start');
  await writeFile(join(root, '.handoffd', 'writer.lock'), JSON.stringify({ pid: other.pid, pid_start: processStart(other.pid as number), started_at: new Date().toISOString(), what: 'handoff build', daemon: false }));
  return other;
}

async function setup(): Promise<{ env: NodeJS.ProcessEnv; root: string; src: string }> {
  const root = tempDir('handoff-store-');
  const env = testEnv({ HANDOFFS_ROOT: root });
  const src = await copyFixture('codex-rollout.jsonl', tempDir('handoff-work-'), 'rollout.jsonl');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(root, '.handoffd'), { recursive: true });
  return { env, root, src };
}

function spawnBuild(env: NodeJS.ProcessEnv, src: string): { child: ChildProcess; err: () => string; done: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, 'build', src], { env, cwd: env.HOME, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, err: () => err, done };
}

describe('the store writer lock', () => {
  it('makes a one-shot build wait while another command writes the store, then build', async () => {
    const { env, root, src } = await setup();
    const other = await holder(root);
    const b = spawnBuild(env, src);
    await waitFor(() => b.err().includes(`waiting for handoff build (pid ${other.pid}) to finish writing the store`), 'the build to say whom it waits for');
    // Nothing written while the other holds the store.
    expect(existsSync(join(root, 'projects'))).toBe(false);
    other.kill('SIGKILL');
    expect(await b.done).toBe(0);
    expect(existsSync(join(root, '.handoffd', 'writer.lock'))).toBe(false);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('makes a daemon started meanwhile wait for that command before it writes', async () => {
    const { env, root, src } = await setup();
    const watch = join(src, '..');
    const other = await holder(root);
    const d = spawnDaemon(env, ['--watch', watch]);
    children.push(d.child);
    await waitFor(() => d.log().includes(`waiting for handoff build (pid ${other.pid}) to finish writing the store`), 'the daemon to say whom it waits for');
    expect(existsSync(join(root, 'projects'))).toBe(false);
    other.kill('SIGKILL');
    await waitFor(() => existsSync(join(root, 'INDEX.json')) && readFile(join(root, 'INDEX.json'), 'utf8').then((t) => t.includes('rollout')), 'the daemon to build the session', 20_000);
    // A one-shot command now goes through the daemon, which holds the lock for its life.
    const lock = JSON.parse(await readFile(join(root, '.handoffd', 'writer.lock'), 'utf8')) as { pid: number; daemon: boolean };
    expect(lock).toMatchObject({ pid: d.child.pid, daemon: true });
    const r = await spawnCli(['build', src], { env });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/up-to-date/);
    d.child.kill('SIGTERM');
    await d.exited;
    expect(existsSync(join(root, '.handoffd', 'writer.lock'))).toBe(false);
  });

  it('is taken over from a writer that was killed', async () => {
    const { env, root, src } = await setup();
    const other = await holder(root);
    other.kill('SIGKILL');
    await waitFor(() => processStart(other.pid as number) === null, 'the holder to be gone');
    const r = await spawnCli(['build', src], { env });
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toContain('waiting for');
  });

  it('keeps each turn once when two one-shot builds of one transcript start together', async () => {
    const { env, src } = await setup();
    const [a, b] = await Promise.all([spawnCli(['build', src, '--json'], { env }), spawnCli(['build', src, '--json'], { env })]);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    const dir = (JSON.parse(a.out) as { dir: string }).dir;
    const seqs = (await readLines(join(dir, 'timeline.jsonl'))).map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect([JSON.parse(a.out).up_to_date, JSON.parse(b.out).up_to_date].sort()).toEqual([false, true]);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });
});
