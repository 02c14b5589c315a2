import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { appendFile, mkdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { CLI, copyFixture, readJson, ROOT, runCli, tempDir, testEnv, waitFor } from '../helpers.js';

const running: RunningDaemon[] = [];
afterEach(async (ctx) => {
  for (const d of running.splice(0)) {
    if (ctx.task.result?.state === 'fail') console.log(`daemon log (pid ${d.child.pid}):\n${d.log()}`);
    if (d.child.exitCode === null && d.child.signalCode === null) await d.kill('SIGKILL');
  }
});

async function start(env: NodeJS.ProcessEnv, root: string, args: string[]): Promise<RunningDaemon> {
  const d = await startDaemon(env, root, args);
  running.push(d);
  return d;
}

const userLine = (text: string): string => `${JSON.stringify({ role: 'user', content: text })}\n`;

describe('daemon lifecycle', () => {
  it('starts at once when no watch folder exists yet, says so, and stops within 5 s', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const missing = join(tempDir('handoff-watch-'), 'not', 'yet');
    const d = await start(env, root, ['--watch', missing]);
    await waitFor(() => d.log().includes('is running'), 'the start-up log line', 5000);
    expect(d.log()).toContain(`${missing} does not exist yet; it will be watched as soon as it appears`);
    const t0 = Date.now();
    const r = await d.kill('SIGTERM');
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  /** A daemon watching one folder, with no periodic rescan within the test (an hour apart). */
  async function watching(): Promise<{ env: NodeJS.ProcessEnv; watch: string; d: RunningDaemon }> {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    await mkdir(join(env.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    await writeFile(join(env.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ watch: { rescan_interval_s: 3600 } }));
    const watch = join(tempDir('handoff-watch-'), 'projects');
    await mkdir(watch);
    return { env, watch, d: await start(env, root, ['--watch', watch]) };
  }

  /** The folder made again is watched: its session built, and a later append seen live. */
  async function watchedAgain(env: NodeJS.ProcessEnv, watch: string, d: RunningDaemon): Promise<void> {
    await waitFor(async () => (await d.call('status')).sessions.some((x) => x.id === 'again'), 'the session in the folder made again to be built', 15_000);
    await waitFor(() => d.log().includes(`${watch} appeared; watching it now`), 'the log to say the folder is watched again', 15_000);
    await appendFile(join(watch, 'p', 'again.jsonl'), userLine('one more request, appended live'));
    await waitFor(async () => (await runCli(['show', 'again', '--json'], { env })).out.includes('one more request, appended live'), 'the append to be built', 15_000);
  }

  it('watches a watch folder deleted and made again at once, not at the next rescan', async () => {
    const { env, watch, d } = await watching();
    await rm(watch, { recursive: true });
    // Made again, as a tool that resets its folder does, with a session in it.
    await mkdir(join(watch, 'p'), { recursive: true });
    await writeFile(join(watch, 'p', 'again.jsonl'), userLine('a session in the folder made again'));
    await watchedAgain(env, watch, d);
  });

  it('watches a watch folder deleted and made again in one instant, with the same inode number', async () => {
    const { env, watch, d } = await watching();
    const before = statSync(watch).ino;
    // In one tick, before any event of the deletion is handled: ext4 gives the new folder the old one's inode number.
    rmSync(watch, { recursive: true });
    mkdirSync(join(watch, 'p'), { recursive: true });
    writeFileSync(join(watch, 'p', 'again.jsonl'), userLine('a session in the folder made again'));
    if (statSync(watch).ino !== before) console.warn('this file system gave the new folder another inode number: the case this test is for did not arise');
    await watchedAgain(env, watch, d);
  });

  it('backfills what changed while it was away, newest first, within backfill_days, and reports progress', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    const now = Date.now() / 1000;
    for (let i = 0; i < 6; i += 1) {
      const p = join(watch, `s${i}.jsonl`);
      await writeFile(p, userLine(`session number ${i} asks for something useful`));
      await utimes(p, now - 86400 * i, now - 86400 * i); // s0 newest … s5 oldest
    }
    const old = join(watch, 'ancient.jsonl');
    await writeFile(old, userLine('an old session from last quarter'));
    await utimes(old, now - 86400 * 90, now - 86400 * 90);
    // The input itself, checked before the daemon sees it: if this ever fails, the file system
    // (not the daemon) dropped the timestamp.
    expect((await stat(old)).mtimeMs).toBeLessThan(Date.now() - 80 * 86_400_000);
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const s = await d.call('status');
    expect(s.backfill).toMatchObject({ total: 6, done: 6, failed: 0, running: false });
    expect(s.sessions.map((x) => x.id).sort()).toEqual(['s0', 's1', 's2', 's3', 's4', 's5']);
    const built = [...d.log().matchAll(/"session":"(s\d)","rev":1/g)].map((m) => m[1]);
    expect(built).toEqual(['s0', 's1', 's2', 's3', 's4', 's5']);
    await d.kill('SIGTERM');
    // Appended while no daemon ran: the next start catches up; backfill_days 0 takes everything.
    await appendFile(join(watch, 's3.jsonl'), `${JSON.stringify({ role: 'assistant', content: 'answered later' })}\n`);
    await mkdir(join(env.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    await writeFile(join(env.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ watch: { backfill_days: 0 } }));
    const d2 = await start(env, root, ['--watch', watch]);
    await d2.call('flush', { timeout_ms: 20_000 }, 25_000);
    const s2 = await d2.call('status');
    expect(s2.backfill.total).toBe(2);
    expect(s2.sessions.find((x) => x.id === 's3')?.turns).toBe(2);
    expect(s2.sessions.find((x) => x.id === 'ancient')?.turns).toBe(1);
  });

  it('sweeps temp files a killed writer left, keeps the handoff of a deleted transcript as gone, and reloads config on SIGHUP', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    const src = await copyFixture('codex-rollout.jsonl', watch, 'doomed.jsonl');
    const built = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { dir: string };
    const stray = join(built.dir, 'manifest.json.123456789');
    await writeFile(stray, 'half a manifest');
    // Watch paths from config (not --watch, which would beat config on reload too).
    const cfgDir = join(env.XDG_CONFIG_HOME as string, 'handoff');
    await mkdir(cfgDir, { recursive: true });
    await writeFile(join(cfgDir, 'handoff.config.json'), JSON.stringify({ watch: { paths: [watch] } }));
    const d = await start(env, root, []);
    expect(existsSync(stray)).toBe(false);
    await rm(src);
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'doomed' && x.state === 'gone'), 'the deleted transcript to show as gone');
    const m = await readJson<{ source_state: string }>(join(built.dir, 'manifest.json'));
    expect(m.source_state).toBe('gone');
    expect(existsSync(join(built.dir, 'HANDOFF.md'))).toBe(true);
    expect((await runCli(['verify', 'doomed', '--source'], { env })).out).toMatch(/SOURCE-GONE/);
    // SIGHUP: a config that adds a folder to watch takes effect without a restart.
    const extra = tempDir('handoff-extra-');
    await writeFile(join(cfgDir, 'handoff.config.json'), JSON.stringify({ watch: { paths: [watch, extra] } }));
    d.child.kill('SIGHUP');
    await waitFor(async () => (await d.call('status')).watch.some((w) => w.path === extra), 'the reloaded watch paths');
    await writeFile(join(extra, 'new.jsonl'), userLine('a session in the newly configured folder'));
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'new'), 'a session in the reloaded folder');
  });

  it('keeps every session it built in the index across a SIGHUP in the middle of a backfill', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    const n = 80;
    for (let i = 0; i < n; i += 1) await writeFile(join(watch, `s${i}.jsonl`), userLine(`request number ${i} for the hangup test`));
    const d = await start(env, root, ['--watch', watch]);
    await waitFor(async () => (await d.call('status')).backfill.done >= 10, 'the backfill to be under way');
    d.child.kill('SIGHUP');
    await waitFor(() => d.log().includes('configuration reloaded'), 'the reload');
    await d.call('flush', { timeout_ms: 60_000 }, 65_000);
    expect((await d.call('sessions.list')).length).toBe(n);
    expect((await readJson<unknown[]>(join(root, 'INDEX.json'))).length).toBe(n);
  });

  it('stops within 5 s on SIGTERM while a client waits in flush', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    for (let i = 0; i < 150; i += 1) await writeFile(join(watch, `s${i}.jsonl`), userLine(`request number ${i} for the stop test`));
    const d = await start(env, root, ['--watch', watch]);
    const waiting = d.call('flush', { timeout_ms: 60_000 }, 65_000).then(
      () => 'finished',
      (e: Error) => e.message,
    );
    await waitFor(async () => (await d.call('status')).backfill.done >= 5, 'the backfill to be under way');
    const t0 = Date.now();
    const r = await d.kill('SIGTERM');
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await waiting).toMatch(/finished|stopping|closed|no daemon/i);
  });

  it('stops cleanly on SIGTERM or SIGINT while a write has signal-exit listening (write-file-atomic, as INDEX.json is written)', async () => {
    // signal-exit listening once the daemon listens, as write-file-atomic has it listen during
    // each write of INDEX.json: it sends the signal again when it finds no listener but its own,
    // which ended the daemon at once (its stop, and the state files it writes, never run).
    const dir = tempDir('handoff-preload-');
    const preload = join(dir, 'signal-exit-listening.mjs');
    const marker = join(dir, 'listening');
    const atomic = join(ROOT, 'node_modules', 'write-file-atomic', 'package.json');
    writeFileSync(
      preload,
      [
        `import { writeFileSync } from 'node:fs';`,
        `import { createRequire } from 'node:module';`,
        `import { isMainThread } from 'node:worker_threads';`,
        `const { onExit } = createRequire(${JSON.stringify(atomic)})('signal-exit');`,
        `const timer = setInterval(() => {`,
        `  if (!isMainThread || process.listenerCount('SIGTERM') === 0 || process.listenerCount('SIGINT') === 0) return;`,
        `  clearInterval(timer);`,
        `  onExit(() => {});`,
        `  writeFileSync(${JSON.stringify(marker)}, '');`,
        `}, 5);`,
        `timer.unref();`,
        '',
      ].join('\n'),
    );
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      rmSync(marker, { force: true });
      const root = tempDir('handoff-store-');
      const env = testEnv({ HANDOFFS_ROOT: root, NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` });
      const d = await start(env, root, ['--watch', tempDir('handoff-watch-')]);
      await waitFor(() => existsSync(marker), 'signal-exit to listen after the daemon');
      const r = await d.kill(signal);
      expect(r, d.log()).toEqual({ code: 0, signal: null });
      expect(d.log()).toContain(`stopping (${signal})`);
      expect(d.log()).toContain('"msg":"stopped"');
    }
  });

  it('leaves alone sessions of the store whose transcripts live outside its watch folders', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const elsewhere = tempDir('handoff-work-');
    await writeFile(join(elsewhere, 'by-hand.jsonl'), `${userLine('a session built with handoff build')}not json at all\n`);
    expect((await runCli(['build', join(elsewhere, 'by-hand.jsonl'), '--allow-bad-lines'], { env })).code).toBe(0);
    const d = await start(env, root, ['--watch', tempDir('handoff-watch-')]);
    await d.call('flush', { timeout_ms: 30_000 }, 35_000);
    const st = await d.call('status');
    expect(st.backfill.total).toBe(0);
    expect(st.sessions.filter((x) => x.state === 'halted')).toEqual([]);
    expect(d.log()).toMatch(/found 0 transcript\(s\); 0 to build/);
  });

  it('applies backfill_days to a watch folder that appears after start', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const later = join(tempDir('handoff-watch-'), 'restored');
    const d = await start(env, root, ['--watch', later]);
    // A folder restored from a backup: one old transcript, one written today.
    const staging = tempDir('handoff-staging-');
    await writeFile(join(staging, 'old.jsonl'), userLine('a session from last quarter'));
    const now = Date.now() / 1000;
    await utimes(join(staging, 'old.jsonl'), now - 86400 * 90, now - 86400 * 90);
    await writeFile(join(staging, 'new.jsonl'), userLine('a session from today'));
    await rename(staging, later);
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'new'), 'the new transcript in the folder that appeared');
    await d.call('flush', { timeout_ms: 30_000 }, 35_000);
    expect((await d.call('status')).sessions.map((x) => x.id)).toEqual(['new']);
  });

  it('builds an old transcript moved into a watched folder, or in a subfolder that appears, whatever its time', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 30_000 }, 35_000);
    const staging = tempDir('handoff-staging-');
    const now = Date.now() / 1000;
    // `mv` (or `cp -p`, `rsync -a`) keeps a transcript's time: last quarter's.
    await writeFile(join(staging, 'moved.jsonl'), userLine('a session moved in from another machine'));
    await utimes(join(staging, 'moved.jsonl'), now - 86400 * 90, now - 86400 * 90);
    await rename(join(staging, 'moved.jsonl'), join(watch, 'moved.jsonl'));
    await mkdir(join(staging, 'project'));
    await writeFile(join(staging, 'project', 'restored.jsonl'), userLine('a session in a project folder restored'));
    await utimes(join(staging, 'project', 'restored.jsonl'), now - 86400 * 90, now - 86400 * 90);
    await rename(join(staging, 'project'), join(watch, 'project'));
    await waitFor(async () => (await d.call('status')).sessions.filter((x) => x.id === 'moved' || x.id === 'restored').length === 2, 'both old transcripts to be built', 30_000);
  });

  it('reads a transcript that was gone and came back as it was, and says it is there again', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    const aside = tempDir('handoff-aside-');
    await writeFile(join(watch, 'back.jsonl'), userLine('a session moved out and back'));
    const d = await start(env, root, ['--watch', watch]);
    const built = await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'back' && x.turns === 1), 'the session to be built');
    await rename(join(watch, 'back.jsonl'), join(aside, 'back.jsonl'));
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'back' && x.state === 'gone'), 'the session to be gone');
    // Back untouched: the same inode, the same size.
    await rename(join(aside, 'back.jsonl'), join(watch, 'back.jsonl'));
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'back' && x.state !== 'gone'), 'the session to be there again', 20_000);
    await waitFor(async () => (await readJson<{ source_state: string }>(join(built.dir, 'manifest.json'))).source_state === 'present', 'its manifest to say present');
  });

  it('counts a transcript once when one watch folder lies inside another', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    await mkdir(join(watch, 'sub'));
    await writeFile(join(watch, 'sub', 'nested.jsonl'), userLine('a request in a nested folder'));
    await writeFile(join(watch, 'top.jsonl'), userLine('a request at the top'));
    const d = await start(env, root, ['--watch', watch, '--watch', join(watch, 'sub')]);
    await d.call('flush', { timeout_ms: 30_000 }, 35_000);
    const st = await d.call('status');
    expect(st.backfill).toMatchObject({ total: 2, done: 2, running: false });
    expect(d.log()).toMatch(/found 2 transcript\(s\)/);
  });

  it('streams refreshes with `status --follow` and waits for the queue with `status --wait`', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    await start(env, root, ['--watch', watch]);
    const follow = spawn(process.execPath, [CLI, 'status', '--follow', '--json'], { env, cwd: env.HOME, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    follow.stdout.on('data', (b: Buffer) => (out += b.toString()));
    follow.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((r) => follow.on('exit', (code) => r(code)));
    await waitFor(() => err.includes('following refreshes'), 'status --follow to subscribe');
    await writeFile(join(watch, 'f.jsonl'), userLine('please follow this session as it grows'));
    const line = await waitFor(() => out.split('\n').find((l) => l.includes('"event":"built"')), 'a built notification on stdout');
    expect(JSON.parse(line)).toMatchObject({ event: 'built', session: 'f', turns: 1 });
    follow.kill('SIGINT');
    expect(await exited).toBe(0);
    await appendFile(join(watch, 'f.jsonl'), `${JSON.stringify({ role: 'assistant', content: 'done' })}\n`);
    const w = await runCli(['status', '--wait', '--json'], { env });
    expect(w.code).toBe(0);
    expect((JSON.parse(w.out) as { sessions: { id: string; turns: number }[] }).sessions.find((s) => s.id === 'f')?.turns).toBe(2);
    const text = await runCli(['status'], { env, columns: 80 });
    expect(text.out).toMatch(/^PROJECT\s+SESSION\s+TITLE\s+HARNESS\s+TURNS\s+PRESSURE\s+LAG\s+REFRESHED\s+STATE$/m);
    for (const l of text.out.split('\n')) expect(l.length).toBeLessThanOrEqual(80);
  });
});
