import { appendFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { STATE_VERSION } from '../../src/core/state.js';
import { STATE_EVERY_COMMITS } from '../../src/engine/commit.js';
import { openEngine } from '../../src/engine/index.js';
import type { Engine } from '../../src/engine/index.js';
import { StateBehindGone } from '../../src/engine/types.js';
import type { Manifest } from '../../src/store/manifest.js';
import { seal, serializeManifest, stateBehind } from '../../src/store/manifest.js';
import { decodeStateSync } from '../../src/store/state-file.js';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { copyFixture, fixture, readJson, runCli, tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * A live refresh of the daemon leaves the state file behind its commit for a few commits
 * (BuildRequest.lazyState): what is behind is folded again from the transcript by the next build
 * that reads the state from disk, so nothing a handoff says is lost to a crash or a restart.
 */

const running: RunningDaemon[] = [];
afterEach(async (ctx) => {
  for (const d of running.splice(0)) {
    if (ctx.task.result?.state === 'fail') console.log(`daemon log (pid ${d.child.pid}):\n${d.log()}`);
    if (d.child.exitCode === null && d.child.signalCode === null) await d.kill('SIGKILL');
  }
});

function engineFor(root: string): Promise<Engine> {
  return openEngine(resolveConfig({ cwd: root, env: testEnv({ HANDOFFS_ROOT: root }) }), { cacheSessions: 8 });
}

async function fixtureLines(name: string): Promise<string[]> {
  return (await readFile(fixture(name), 'utf8')).split(/(?<=\n)/).filter((l) => l.length > 0);
}

const manifestOf = (dir: string): Promise<Manifest> => readJson<Manifest>(join(dir, 'manifest.json'));
const storedState = async (dir: string, m: Manifest): Promise<unknown> => JSON.parse(decodeStateSync(m.state_file, await readFile(join(dir, m.state_file))).toString('utf8'));

/** What a resuming agent reads, without what differs between two builds of the same bytes. */
async function payload(dir: string): Promise<unknown> {
  const llm = await readJson<Record<string, unknown>>(join(dir, 'HANDOFF.llm.json'));
  const { generated_at: _g, provenance: _p, artifacts: _a, git: _git, chain_id: _c, ...rest } = llm;
  return rest;
}

describe('a state file left behind by live refreshes', () => {
  it('is folded up to the commit again by the next build that reads it from disk: the handoff and the state are those of a build from scratch', async () => {
    for (const name of ['claude-session.jsonl', 'codex-rollout.jsonl']) {
      const lines = await fixtureLines(name);
      const src = join(tempDir('handoff-work-'), name);
      const store = tempDir('handoff-store-');
      await writeFile(src, lines.slice(0, 4).join(''));
      const first = await (await engineFor(store)).build({ source: src });
      const m0 = await manifestOf(first.dir);

      // Live refreshes, one line each: the state file stays where the first build wrote it.
      let engine = await engineFor(store);
      let i = 4;
      // Fewer than STATE_EVERY_COMMITS of them, after which one writes it (the next test).
      for (; i < Math.min(lines.length - 3, 4 + STATE_EVERY_COMMITS - 1); i += 1) {
        await appendFile(src, lines[i] as string);
        const r = await engine.build({ source: src, lazyState: true });
        expect(r.state_behind, `${name} line ${i + 1}`).toBe(true);
      }
      const behind = await manifestOf(first.dir);
      expect(behind.state_file).toBe(m0.state_file);
      expect(behind.state_sha256).toBe(m0.state_sha256);
      expect(behind.state_at).toEqual({ offset: m0.sources[0]?.offset, lines: m0.sources[0]?.lines });
      expect(behind.revisions).toBeGreaterThan(m0.revisions + 2);
      // The store is whole as committed: the state file is the one the manifest names.
      expect((await runCli(['verify', first.session], { env: testEnv({ HANDOFFS_ROOT: store }) })).code).toBe(0);

      // A restart (or a crash): a new engine reads the state from disk, behind, and folds the rest.
      engine = await engineFor(store);
      for (; i < lines.length; i += 1) {
        await appendFile(src, lines[i] as string);
        await engine.build({ source: src, lazyState: true });
      }
      expect(stateBehind(await manifestOf(first.dir))).not.toBeNull();
      const done = await engine.build({ source: src, checkpoint: true });
      expect(done.up_to_date).toBe(false);
      expect(done.state_behind).toBe(false);
      const m = await manifestOf(done.dir);
      expect(stateBehind(m)).toBeNull();
      expect(m.state_at).toEqual({ offset: m.sources[0]?.offset, lines: m.sources[0]?.lines });
      // Nothing left behind: a checkpoint asks for nothing more.
      expect((await engine.build({ source: src, checkpoint: true })).up_to_date).toBe(true);

      const whole = await (await engineFor(tempDir('handoff-store-'))).build({ source: src });
      expect(done.turns).toBe(whole.turns);
      expect(await payload(done.dir)).toEqual(await payload(whole.dir));
      expect(await storedState(done.dir, m)).toEqual(await storedState(whole.dir, await manifestOf(whole.dir)));
    }
  });

  it('is written at least every STATE_EVERY_COMMITS commits, and by any build that is not a live refresh', async () => {
    const src = join(tempDir('handoff-work-'), 'live.jsonl');
    const store = tempDir('handoff-store-');
    await writeFile(src, (await fixtureLines('claude-session.jsonl')).join(''));
    const engine = await engineFor(store);
    const first = await engine.build({ source: src });
    const turn = (n: number): string => `${JSON.stringify({ type: 'user', sessionId: 's', cwd: '/home/dev/uploader', message: { role: 'user', content: `step ${n}: keep going` } })}\n`;
    const written: number[] = [];
    for (let n = 1; n <= STATE_EVERY_COMMITS * 2; n += 1) {
      await appendFile(src, turn(n));
      const r = await engine.build({ source: src, lazyState: true });
      if (!r.state_behind) written.push(r.revision);
    }
    expect(written).toEqual([first.revision + STATE_EVERY_COMMITS, first.revision + 2 * STATE_EVERY_COMMITS]);
    await appendFile(src, turn(0));
    expect((await engine.build({ source: src, lazyState: true })).state_behind).toBe(true);
    // A build that is not lazy (the CLI, a backfill, a hook) writes it.
    await appendFile(src, turn(-1));
    const plain = await engine.build({ source: src });
    expect(plain.state_behind).toBe(false);
    expect(stateBehind(await manifestOf(plain.dir))).toBeNull();
  });

  it('is never left behind when it was written by a version from before `state_at`: that version would read on from it', async () => {
    const lines = await fixtureLines('claude-session.jsonl');
    const src = join(tempDir('handoff-work-'), 'old.jsonl');
    const store = tempDir('handoff-store-');
    await writeFile(src, lines.slice(0, 8).join(''));
    const first = await (await engineFor(store)).build({ source: src });
    // The manifest as a version from before `state_at` wrote it.
    const { manifest_sha256: _s, state_at: _a, ...rest } = await manifestOf(first.dir);
    await writeFile(join(first.dir, 'manifest.json'), serializeManifest(seal(rest)));
    const engine = await engineFor(store);
    await appendFile(src, lines[8] as string);
    const r = await engine.build({ source: src, lazyState: true });
    expect(r.state_behind).toBe(false);
    const m = await manifestOf(first.dir);
    expect(m.state_file).not.toBe(rest.state_file);
    expect(((await storedState(first.dir, m)) as { v: number }).v).toBe(STATE_VERSION);
    await appendFile(src, lines[9] as string);
    expect((await engine.build({ source: src, lazyState: true })).state_behind).toBe(true);
  });

  it('of a transcript that is gone, with no way to fold what is behind: the handoff stays as last built, and a change says why it cannot be made', async () => {
    const lines = await fixtureLines('claude-session.jsonl');
    const src = join(tempDir('handoff-work-'), 'gone.jsonl');
    const store = tempDir('handoff-store-');
    await writeFile(src, lines.slice(0, 6).join(''));
    const engine = await engineFor(store);
    const first = await engine.build({ source: src });
    for (const line of lines.slice(6)) {
      await appendFile(src, line);
      await engine.build({ source: src, lazyState: true });
    }
    const before = await readFile(join(first.dir, 'HANDOFF.md'), 'utf8');
    const m = await manifestOf(first.dir);
    expect(stateBehind(m)).not.toBeNull();
    await rm(src);

    const restarted = await engineFor(store);
    expect(await restarted.markGone(first.dir, src)).toBeNull();
    await expect(restarted.update(first.dir, { title: 'a new name' })).rejects.toBeInstanceOf(StateBehindGone);
    expect(await readFile(join(first.dir, 'HANDOFF.md'), 'utf8')).toBe(before);
    expect((await manifestOf(first.dir)).manifest_sha256).toBe(m.manifest_sha256);

    // The engine that holds the state in memory marks it gone, writing the state with it.
    const other = await engineFor(tempDir('handoff-store-'));
    const src2 = join(tempDir('handoff-work-'), 'gone2.jsonl');
    await writeFile(src2, lines.slice(0, 6).join(''));
    const b = await other.build({ source: src2 });
    await appendFile(src2, lines.slice(6).join(''));
    expect((await other.build({ source: src2, lazyState: true })).state_behind).toBe(true);
    await rm(src2);
    const marked = await other.markGone(b.dir, src2);
    expect(marked).not.toBeNull();
    expect(marked === 'moved' ? null : marked?.state_behind).toBe(false);
    expect((await manifestOf(b.dir)).source_state).toBe('gone');
  });
});

describe('the daemon', () => {
  it('leaves the state file behind while a session is live, and writes it when it stops', async () => {
    const root = tempDir('handoff-store-');
    const watch = tempDir('handoff-watch-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    // The stop writes the states only within its budget (4 s by default): on a loaded host the
    // watcher's close alone has taken that long. What is tested is that it writes them.
    await mkdir(join(env.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    await writeFile(join(env.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ daemon: { shutdown_timeout_ms: 60_000 } }));
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    const src = await copyFixture('claude-session.jsonl', watch, 'live.jsonl');
    const built = await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'live' && s.turns === 15), 'the new session to be built');
    const dir = built.dir;
    for (let n = 1; n <= 3; n += 1) {
      await appendFile(src, `${JSON.stringify({ type: 'user', sessionId: 's', cwd: '/home/dev/uploader', message: { role: 'user', content: `step ${n}` } })}\n`);
      await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'live' && s.turns === 15 + n), `appended turn ${n}`);
    }
    const live = await manifestOf(dir);
    expect(stateBehind(live)).not.toBeNull();
    await d.kill('SIGTERM');
    const stopped = await manifestOf(dir);
    expect(stateBehind(stopped), d.log()).toBeNull();
    expect(stopped.turn_count).toBe(18);
    expect((await runCli(['verify', 'live'], { env })).code).toBe(0);
  });
});
