import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStart } from '../../src/daemon/lock.js';
import { spawnDaemon } from '../daemon-harness.js';
import { CLI, copyFixture, readLines, ROOT, runCli, spawnCli, tempDir, testEnv, waitFor } from '../helpers.js';

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

  it('takes over a lock that does not parse once it is a few seconds old, and names a lock it cannot read', async () => {
    const { env, root, src } = await setup();
    const lock = join(root, '.handoffd', 'writer.lock');
    await writeFile(lock, '');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    const r = await spawnCli(['build', src], { env });
    expect(r.code, r.err).toBe(0);
    expect(existsSync(lock)).toBe(false);
    // A folder where the lock goes: an error naming it and the fix, at once.
    await mkdir(lock);
    const d = await spawnCli(['build', src], { env });
    expect(d.code).not.toBe(0);
    expect(d.err).toContain(lock);
    expect(d.err).toMatch(/rm -r/);
  });

  it('lets a daemon that waits for it be stopped by SIGTERM, with nothing written', async () => {
    const { env, root, src } = await setup();
    const other = await holder(root);
    const d = spawnDaemon(env, ['--watch', join(src, '..')]);
    children.push(d.child);
    await waitFor(() => d.log().includes('to finish writing the store'), 'the daemon to wait');
    d.child.kill('SIGTERM');
    const r = await d.exited;
    expect(r.code, d.log()).toBe(0);
    expect(d.log()).toMatch(/stopped before it started/);
    expect(existsSync(join(root, '.handoffd', 'handoffd.lock'))).toBe(false);
    expect(existsSync(join(root, 'projects'))).toBe(false);
    other.kill('SIGKILL');
  });

  it('is held by one process at a time when several take over a stale lock together', async () => {
    const root = tempDir('handoff-store-');
    const lock = join(root, '.handoffd', 'writer.lock');
    await mkdir(join(root, '.handoffd'), { recursive: true });
    const log = join(root, 'holds.log');
    // Each racer takes the lock, notes when it held it, and lets it go.
    const racer = `
      import { appendFileSync } from 'node:fs';
      import { WriterLock } from ${JSON.stringify(join(ROOT, 'dist', 'daemon', 'writer-lock.js'))};
      const w = await WriterLock.acquire(${JSON.stringify(lock)}, 'racer', { daemon: false, waitMs: 30000, pollMs: 5 });
      // The monotonic clock, which every process shares (performance.timeOrigin is each process's
      // own estimate of the wall clock, and two of them differ by a millisecond or so).
      const now = () => Number(process.hrtime.bigint()) / 1e6;
      const t0 = now();
      const until = Date.now() + 60; while (Date.now() < until) {}
      appendFileSync(${JSON.stringify(log)}, JSON.stringify({ pid: process.pid, from: t0, to: now() }) + '\\n');
      w.release();
    `;
    for (let round = 0; round < 6; round += 1) {
      const dead = spawn('true');
      const deadPid = dead.pid as number;
      await new Promise((resolve) => dead.on('exit', resolve));
      await writeFile(lock, JSON.stringify({ pid: deadPid, pid_start: null, started_at: new Date().toISOString(), what: 'handoff build', daemon: false }));
      await writeFile(log, '');
      const racers = Array.from({ length: 4 }, () => spawn(process.execPath, ['--input-type=module', '-e', racer], { stdio: 'ignore' }));
      await Promise.all(racers.map((c) => new Promise((resolve) => c.on('exit', resolve))));
      const holds = (await readFile(log, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { from: number; to: number }).sort((a, b) => a.from - b.from);
      expect(holds).toHaveLength(4);
      for (let i = 1; i < holds.length; i += 1) expect((holds[i] as { from: number }).from, `round ${round}`).toBeGreaterThanOrEqual((holds[i - 1] as { to: number }).to);
    }
  });
});

describe('changes to a session queued or interrupted', () => {
  const line = (text: string): string => `${JSON.stringify({ role: 'user', content: text })}\n`;

  it('a retitle killed before its move whose name another session took since is dropped, and the session builds on', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const work = tempDir('handoff-work-');
    const [f, g] = [join(work, 's-f.jsonl'), join(work, 's-g.jsonl')];
    await writeFile(f, line('first session'));
    await writeFile(g, line('second session'));
    expect((await runCli(['build', f, g, '--project', 'p'], { env })).code).toBe(0);
    const killed = await spawnCli(['retitle', 's-f', 'Shared name'], { env: { ...env, HANDOFF_CRASH_AT: 'after-change-marker' } });
    expect(killed.signal).toBe('SIGKILL');
    expect((await runCli(['retitle', 's-g', 'Shared name'], { env })).code).toBe(0);
    const { appendFile } = await import('node:fs/promises');
    await appendFile(f, line('a turn after the interrupted retitle'));
    const r = await runCli(['build', f, '--json'], { env });
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as { dir: string; session: string; turns: number };
    expect(out).toMatchObject({ session: 's-f', dir: join(root, 'projects', 'p', 's-f'), turns: 2 });
    expect(existsSync(join(out.dir, '.change-pending'))).toBe(false);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('a finalize queued behind a retitle of the same session follows it to its new folder', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    await writeFile(join(watch, 's-a.jsonl'), line('a session to retitle and finalize at once'));
    const d = spawnDaemon(env, ['--watch', watch]);
    children.push(d.child);
    const { ControlClient } = await import('../../src/control/client.js');
    const { socketOf } = await import('../daemon-harness.js');
    await waitFor(async () => (await runCli(['list', '--json'], { env })).out.includes('"s-a"'), 'the session to be built', 20_000);
    const c = await ControlClient.connect(socketOf(root));
    try {
      const [moved, finalized] = await Promise.all([c.call('session.update', { id: 's-a', title: 'Moved away' }, 0), c.call('finalize', { id: 's-a' }, 0)]);
      expect(moved).toMatchObject({ session: 's-a', dir: join(root, 'projects', 'p', 'moved-away').replace('/p/', `/${(moved as { project: string }).project}/`) });
      expect(finalized).toMatchObject({ session: 's-a', dir: (moved as { dir: string }).dir });
    } finally {
      c.close();
    }
    d.child.kill('SIGTERM');
    await d.exited;
  });
});

describe('a session a killed one-shot retitle moved', () => {
  it('is found by id where it went: show, verify and the retitle given again work before any build', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = await copyFixture('codex-rollout.jsonl', tempDir('handoff-work-'), 'rollout.jsonl');
    expect((await runCli(['build', src, '--project', 'p'], { env })).code).toBe(0);
    expect((await spawnCli(['retitle', 'rollout', 'Ledger totals'], { env: { ...env, HANDOFF_CRASH_AT: 'after-move' } })).signal).toBe('SIGKILL');
    // INDEX.json still names projects/p/rollout, which is gone.
    expect(existsSync(join(root, 'projects', 'p', 'rollout'))).toBe(false);
    const show = await runCli(['show', 'rollout'], { env });
    expect(show.code, show.err).toBe(0);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
    const again = await runCli(['retitle', 'rollout', 'Ledger totals', '--json'], { env });
    expect(again.code, again.err).toBe(0);
    expect(existsSync(join(root, 'projects', 'p', 'ledger-totals', 'manifest.json'))).toBe(true);
    expect(existsSync(join(root, 'projects', 'p', 'ledger-totals', '.change-pending'))).toBe(false);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });
});

describe('a runtime folder deleted under a running daemon', () => {
  it.skipIf(process.platform !== 'linux')('keeps a one-shot command from writing beside the daemon, which writes its locks again', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    await writeFile(join(watch, 'a.jsonl'), `${JSON.stringify({ role: 'user', content: 'a session of the daemon' })}\n`);
    const d = spawnDaemon(env, ['--watch', watch]);
    children.push(d.child);
    await waitFor(async () => (await runCli(['list', '--json'], { env })).out.includes('"a"'), 'the session to be built', 20_000);
    const { rm } = await import('node:fs/promises');
    await rm(join(root, '.handoffd'), { recursive: true, force: true });
    const other = join(tempDir('handoff-work-'), 'other.jsonl');
    await writeFile(other, `${JSON.stringify({ role: 'user', content: 'a session built by hand' })}\n`);
    const r = await spawnCli(['build', other], { env });
    expect(r.code, r.err).toBe(7);
    expect(r.err).toContain(`a daemon (pid ${d.child.pid}) runs on the store`);
    expect(existsSync(join(root, 'projects')) && (await runCli(['list', '--json'], { env })).out.includes('"other"')).toBe(false);
    await waitFor(() => existsSync(join(root, '.handoffd', 'writer.lock')) && existsSync(join(root, '.handoffd', 'handoffd.lock')), 'the daemon to write its locks again', 15_000);
    expect(d.log()).toMatch(/the writer lock was deleted; wrote it again/);
    const again = await spawnCli(['build', other], { env });
    expect(again.code, again.err).toBe(0);
    d.child.kill('SIGTERM');
    await d.exited;
  });
});
