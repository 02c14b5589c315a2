import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { appendFile, readdir, readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { readJson, runCli, spawnCli, tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * The backfill in build workers (docs/ARCHITECTURE.md#parallel-backfill): the daemon as a child
 * process over transcripts last written an hour ago (backfill, not live), with
 * daemon.backfill_workers on and off.
 */

const TWO_CORES = availableParallelism() > 1;
const line = (o: unknown): string => `${JSON.stringify(o)}\n`;

/** A Claude Code session of `turns` request/tool/answer rounds, each ~2.5 KB, every text its own. */
function transcript(id: string, cwd: string, turns: number, extra: Record<string, unknown> = {}): string {
  const base = { isSidechain: false, userType: 'external', cwd, sessionId: id, version: '2.0.55', ...extra };
  const out: string[] = [];
  const ts = (k: number, s: number): string => new Date(Date.UTC(2026, 2, 1, 9, 0, 0) + k * 10_000 + s * 1000).toISOString();
  for (let k = 0; k < turns; k += 1) {
    const tag = `${id.slice(0, 8)} round ${k}`;
    const body = Array.from({ length: 30 }, (_, j) => `${tag} line ${j}: the parser reads ${(k * 31 + j * 7) % 97} tokens`).join('\n');
    out.push(line({ ...base, type: 'user', uuid: `u${k}`, timestamp: ts(k, 0), message: { role: 'user', content: `Please look at ${tag} and make the parser accept trailing commas` } }));
    out.push(line({ ...base, type: 'assistant', uuid: `a${k}`, timestamp: ts(k, 1), message: { id: `m${k}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'tool_use', id: `t${k}`, name: 'Bash', input: { command: `grep -n comma src/parse-${k}.ts` } }], usage: { input_tokens: 10, output_tokens: 5 } } }));
    out.push(line({ ...base, type: 'user', uuid: `r${k}`, timestamp: ts(k, 2), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: body }] } }));
    out.push(line({ ...base, type: 'assistant', uuid: `b${k}`, timestamp: ts(k, 3), message: { id: `n${k}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: `Done with ${tag}.` }], usage: { input_tokens: 10, output_tokens: 5 } } }));
  }
  return out.join('');
}

const uuid = (n: number): string => `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`;

/**
 * `files` sessions under three projects, plus one subagent of the first, all last written an
 * hour ago; returns the watched folder and every transcript's path.
 */
function writeSessions(files: number, turns: number): { watch: string; paths: string[] } {
  const watch = tempDir('handoff-watch-');
  const paths: string[] = [];
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (let i = 0; i < files; i += 1) {
    const dir = join(watch, `-home-dev-app${i % 3}`);
    mkdirSync(dir, { recursive: true });
    const p = join(dir, `${uuid(i)}.jsonl`);
    writeFileSync(p, transcript(uuid(i), `/home/dev/app${i % 3}`, turns + (i % 5)));
    paths.push(p);
  }
  const sub = join(watch, '-home-dev-app0', uuid(0), 'subagents');
  mkdirSync(sub, { recursive: true });
  const agent = join(sub, 'agent-a1b2c3.jsonl');
  writeFileSync(agent, transcript(uuid(0), '/home/dev/app0', 3, { isSidechain: true }));
  paths.push(agent);
  for (const p of paths) utimesSync(p, hourAgo, hourAgo);
  return { watch, paths };
}

function configure(env: NodeJS.ProcessEnv, workers: number): void {
  const dir = join(env.XDG_CONFIG_HOME as string, 'handoff');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'handoff.config.json'), JSON.stringify({ daemon: { backfill_workers: workers } }));
}

const running: RunningDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.kill('SIGKILL');
});

async function daemon(workers: number, watch: string, root = tempDir('handoff-store-')): Promise<{ d: RunningDaemon; root: string; env: NodeJS.ProcessEnv }> {
  const env = testEnv({ HANDOFFS_ROOT: root });
  configure(env, workers);
  const d = await startDaemon(env, root, ['--watch', watch]);
  running.push(d);
  return { d, root, env };
}

interface Session {
  timeline: string;
  tools: string;
  manifest: Record<string, unknown>;
}

/** What a build decides, per session folder: timeline, TOOLS.md and the manifest without what the clock or a coin sets. */
async function storeOf(root: string): Promise<Map<string, Session>> {
  const out = new Map<string, Session>();
  for (const project of await readdir(join(root, 'projects'))) {
    for (const name of await readdir(join(root, 'projects', project), { withFileTypes: true })) {
      if (!name.isDirectory()) continue;
      const dir = join(root, 'projects', project, name.name);
      const m = await readJson(join(dir, 'manifest.json'));
      // Times, the random chain id, the digests of renders that print a time, and the revision
      // count (a parent re-rendered for its subagent once or twice, by build order) differ.
      for (const k of ['created_at', 'updated_at', 'manifest_sha256', 'chain_id', 'render_sha256', 'render_bytes', 'revisions', 'state_file', 'git', 'finalized']) delete m[k];
      out.set(`${project}/${name.name}`, { timeline: await readFile(join(dir, 'timeline.jsonl'), 'utf8'), tools: await readFile(join(dir, 'TOOLS.md'), 'utf8'), manifest: m });
    }
  }
  return out;
}

describe('a backfill in build workers', () => {
  it.skipIf(!TWO_CORES)('builds the same store as a single-threaded backfill: timelines, TOOLS.md, manifests, subagent links; verify --all passes', async () => {
    const { watch, paths } = writeSessions(24, 8);
    const a = await daemon(1, watch);
    await a.d.call('flush', { timeout_ms: 120_000 }, 130_000);
    expect(a.d.log()).toMatch(/backfill builds in 1 worker thread/);
    expect(a.d.log()).toMatch(/built in a worker/);
    await a.d.kill('SIGTERM');
    const b = await daemon(0, watch);
    await b.d.call('flush', { timeout_ms: 120_000 }, 130_000);
    expect(b.d.log()).not.toMatch(/built in a worker/);
    await b.d.kill('SIGTERM');

    const parallel = await storeOf(a.root);
    const single = await storeOf(b.root);
    expect(parallel.size).toBe(paths.length);
    expect([...parallel.keys()].sort()).toEqual([...single.keys()].sort());
    for (const [k, s] of single) expect(parallel.get(k), k).toEqual(s);
    const parent = [...parallel.values()].find((s) => s.manifest.session === uuid(0));
    expect(parent?.manifest.subagents).toHaveLength(1);
    const v = await runCli(['verify', '--all'], { env: a.env });
    expect(v.err).toBe('');
    expect(v.code).toBe(0);
    expect(v.out.match(/^PASS /gm)).toHaveLength(paths.length);
  }, 180_000);

  it.skipIf(!TWO_CORES)('builds a live append at once while a worker is still in the middle of a large backfill build', async () => {
    const { watch } = writeSessions(6, 10);
    // ~25 MB: seconds of work, newest of the backfill, so a worker takes it first.
    const big = join(watch, '-home-dev-big', `${uuid(800)}.jsonl`);
    mkdirSync(join(watch, '-home-dev-big'), { recursive: true });
    writeFileSync(big, transcript(uuid(800), '/home/dev/big', 10_000));
    const recent = new Date(Date.now() - 1_800_000);
    utimesSync(big, recent, recent);
    const live = join(watch, '-home-dev-live', `${uuid(900)}.jsonl`);
    mkdirSync(join(watch, '-home-dev-live'), { recursive: true });
    writeFileSync(live, transcript(uuid(900), '/home/dev/live', 2));
    const { d } = await daemon(1, watch);
    const turnsOf = async (id: string): Promise<number> => (await d.call('status')).sessions.find((x) => x.id === id)?.turns ?? 0;
    await waitFor(async () => (await turnsOf(uuid(900))) > 0, 'the live session to be built', 30_000);
    await waitFor(async () => (await d.call('status')).queue.running === big, 'the large backfill build to start', 30_000, 10);
    const before = await turnsOf(uuid(900));
    const t0 = Date.now();
    await appendFile(live, line({ type: 'user', sessionId: uuid(900), cwd: '/home/dev/live', uuid: 'z1', timestamp: new Date().toISOString(), message: { role: 'user', content: 'One more request while the backfill runs: keep the comma rule' } }));
    await waitFor(async () => (await turnsOf(uuid(900))) > before, 'the appended turn to be built', 20_000, 10);
    const took = Date.now() - t0;
    // The large build has not finished: the append did not wait for it.
    expect(await turnsOf(uuid(800))).toBe(0);
    const q = (await d.call('status')).queue;
    expect(q.running).toBe(big);
    expect(q.in_workers[0]).toBe(big);
    expect(took).toBeLessThan(1500);
  }, 120_000);

  it.skipIf(!TWO_CORES)('loses and duplicates nothing when the daemon is SIGKILLed in the middle of it', async () => {
    const { watch, paths } = writeSessions(30, 40);
    const root = tempDir('handoff-store-');
    const first = await daemon(1, watch, root);
    await waitFor(async () => {
      const s = await first.d.call('status');
      return s.backfill.done >= 4 && s.backfill.done < s.backfill.total;
    }, 'the backfill to be under way', 60_000, 10);
    await first.d.kill('SIGKILL');
    const again = await daemon(1, watch, root);
    await again.d.call('flush', { timeout_ms: 120_000 }, 130_000);
    await again.d.kill('SIGTERM');

    // The reference: a one-shot, single-threaded build of every transcript.
    const refRoot = tempDir('handoff-ref-');
    const refEnv = testEnv({ HANDOFFS_ROOT: refRoot });
    configure(refEnv, 0);
    const ref = await spawnCli(['build', ...paths], { env: refEnv });
    expect(ref.code).toBe(0);
    const got = await storeOf(root);
    const want = await storeOf(refRoot);
    expect(got.size).toBe(paths.length);
    for (const [k, s] of want) expect(got.get(k)?.timeline, k).toBe(s.timeline);
    const v = await runCli(['verify', '--all'], { env: again.env });
    expect(v.code).toBe(0);
  }, 180_000);
});

describe('handoff build of many files', () => {
  it.skipIf(!TWO_CORES)('builds them in workers into the store one thread builds, and a SIGKILL in a worker mid-commit is completed by the next build', async () => {
    const { paths } = writeSessions(12, 6);
    const one = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    configure(one, 0);
    const two = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    configure(two, 1);
    const a = await spawnCli(['build', ...paths], { env: one });
    const b = await spawnCli(['build', ...paths], { env: two });
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(b.out.trim().split('\n')).toHaveLength(paths.length);
    expect(await storeOf(two.HANDOFFS_ROOT as string)).toEqual(await storeOf(one.HANDOFFS_ROOT as string));

    // Killed at the renders of some commit (in a worker or on the main thread, whichever gets there first).
    const three = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    configure(three, 1);
    const killed = await spawnCli(['build', ...paths], { env: { ...three, HANDOFF_CRASH_AT: 'after-renders' } });
    expect(killed.signal).toBe('SIGKILL');
    const done = await spawnCli(['build', ...paths], { env: three });
    expect(done.code).toBe(0);
    const got = await storeOf(three.HANDOFFS_ROOT as string);
    for (const [k, s] of await storeOf(one.HANDOFFS_ROOT as string)) expect(got.get(k)?.timeline, k).toBe(s.timeline);
    expect((await runCli(['verify', '--all'], { env: three })).code).toBe(0);
  }, 120_000);
});

describe('a build worker that dies mid-commit', () => {
  it.skipIf(!TWO_CORES)('costs nothing: its session is built again on the main thread, by the CLI and by the daemon', async () => {
    const { watch, paths } = writeSessions(6, 6);
    const ref = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    configure(ref, 0);
    expect((await spawnCli(['build', ...paths], { env: ref })).code).toBe(0);
    const want = await storeOf(ref.HANDOFFS_ROOT as string);

    const cli = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-'), HANDOFF_WORKER_EXIT_AT: 'after-renders' });
    configure(cli, 1);
    const r = await spawnCli(['build', ...paths], { env: cli });
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(paths.length);
    const viaCli = await storeOf(cli.HANDOFFS_ROOT as string);
    for (const [k, s] of want) expect(viaCli.get(k)?.timeline, k).toBe(s.timeline);
    expect((await runCli(['verify', '--all'], { env: cli })).code).toBe(0);

    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root, HANDOFF_WORKER_EXIT_AT: 'after-renders' });
    configure(env, 1);
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    await d.call('flush', { timeout_ms: 60_000 }, 70_000);
    expect(d.log()).toMatch(/a build worker exited \(code 70\) while building .*; building it again on the main thread/);
    const viaDaemon = await storeOf(root);
    for (const [k, s] of want) expect(viaDaemon.get(k)?.timeline, k).toBe(s.timeline);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  }, 120_000);
});

describe('daemon.backfill_workers', () => {
  it('is validated like every key: a negative or fractional count is a config error naming the key', async () => {
    for (const bad of [-1, 1.5, 'two', 65]) {
      const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
      const dir = join(env.XDG_CONFIG_HOME as string, 'handoff');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'handoff.config.json'), JSON.stringify({ daemon: { backfill_workers: bad } }));
      const r = await runCli(['config'], { env });
      expect(r.code, String(bad)).toBe(2);
      expect(r.err).toMatch(/\/daemon\/backfill_workers/);
    }
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const r = await runCli(['config', '--json'], { env });
    expect(JSON.parse(r.out)).toMatchObject({ options: { daemon: { backfill_workers: 1 } } });
  });
});
