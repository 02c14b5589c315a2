import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import type { Manifest } from '../../src/store/manifest.js';
import { seal, serializeManifest } from '../../src/store/manifest.js';
import { readJson, runCli, spawnCli, tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * A subagent whose own transcript holds no task (Claude Code before 2.1 starts it with the
 * agent's first reply): its handoff takes the task its parent's call gave it, once the call's
 * result names the agent (`toolUseResult.agentId`), whichever of the two is built first, by the
 * CLI or by the daemon (with and without build workers).
 */

const PARENT = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
const AGENT = 'c8d9b115';
const TASK = 'Explore how ZIP archives are read. Focus on:\n\n1. How nested archives recurse\n2. How timestamps are taken\n\nReturn a summary of the key methods.';
const line = (o: unknown): string => `${JSON.stringify(o)}\n`;
const base = { isSidechain: false, userType: 'external', cwd: '/home/dev/manifest', sessionId: PARENT, version: '2.0.55', gitBranch: 'main' };

/** The parent up to its Task call (no result yet). */
function parentCall(): string {
  return (
    line({ ...base, type: 'user', uuid: 'u1', parentUuid: null, timestamp: '2026-03-01T09:00:00Z', message: { role: 'user', content: 'Add tar support like the ZIP support' } }) +
    line({ ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', timestamp: '2026-03-01T09:00:01Z', message: { id: 'm1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'tool_use', id: 'toolu_task', name: 'Task', input: { description: 'Explore ZIP processing', prompt: TASK, subagent_type: 'Explore' } }], usage: { input_tokens: 10, output_tokens: 5 } } })
  );
}

/** The call's result, naming the agent that ran it. */
function parentResult(): string {
  return line({ ...base, type: 'user', uuid: 'r1', parentUuid: 'a1', timestamp: '2026-03-01T09:01:00Z', message: { role: 'user', content: [{ tool_use_id: 'toolu_task', type: 'tool_result', content: [{ type: 'text', text: 'ZIP archives are read by process_zip().' }] }] }, toolUseResult: { status: 'completed', prompt: TASK, agentId: AGENT, content: [{ type: 'text', text: 'ZIP archives are read by process_zip().' }], totalDurationMs: 3000 } });
}

/** The subagent's own transcript, as Claude Code 2.0 wrote it: its first line is the agent's reply. */
function subagent(): string {
  const sub = { ...base, isSidechain: true, agentId: AGENT };
  return (
    line({ ...sub, type: 'assistant', uuid: 's1', parentUuid: null, timestamp: '2026-03-01T09:00:02Z', message: { id: 'x1', type: 'message', role: 'assistant', model: 'claude-haiku-4-5-20251001', content: [{ type: 'text', text: "I'll explore the ZIP handling first." }], usage: { input_tokens: 10, output_tokens: 5 } } }) +
    line({ ...sub, type: 'assistant', uuid: 's2', parentUuid: 's1', timestamp: '2026-03-01T09:00:30Z', message: { id: 'x2', type: 'message', role: 'assistant', model: 'claude-haiku-4-5-20251001', content: [{ type: 'text', text: 'ZIP archives are read by process_zip().' }], usage: { input_tokens: 10, output_tokens: 5 } } })
  );
}

function files(): { watch: string; parent: string; child: string } {
  const watch = tempDir('handoff-watch-');
  const dir = join(watch, '-home-dev-manifest');
  mkdirSync(dir, { recursive: true });
  return { watch, parent: join(dir, `${PARENT}.jsonl`), child: join(dir, `agent-${AGENT}.jsonl`) };
}

/** daemon.backfill_workers 1: a build of many files builds the independent ones in a worker too. */
function workersOn(env: NodeJS.ProcessEnv): void {
  const conf = join(env.XDG_CONFIG_HOME as string, 'handoff');
  mkdirSync(conf, { recursive: true });
  writeFileSync(join(conf, 'handoff.config.json'), JSON.stringify({ daemon: { backfill_workers: 1 } }));
}

const childDir = (root: string): string => join(root, 'projects', 'manifest', `${PARENT}.agent-${AGENT}`);

interface Summary {
  objective: string | null;
  objective_line: number | null;
  objective_from_parent: { session: string; line: number; description: string; chars: number } | null;
}

async function expectTask(root: string): Promise<void> {
  const md = await readFile(join(childDir(root), 'HANDOFF.md'), 'utf8');
  expect(md).toContain(`## Objective (verbatim)\n\n\`\`\`text\n${TASK}\n\`\`\``);
  expect(md).toContain(`*reported* — the task the session that started this subagent (\`${PARENT}\`) gave it: its call at line 2 of that session's transcript («Explore ZIP processing»). This subagent's own transcript does not hold it; every other line cited here is this transcript's`);
  // Unknowns does not say otherwise.
  expect(md).not.toContain('Objective: the transcript holds no user request');
  const summary = await readJson<Summary>(join(childDir(root), 'HANDOFF.summary.json'));
  expect(summary).toMatchObject({ objective: TASK, objective_line: null, objective_from_parent: { session: PARENT, line: 2, description: 'Explore ZIP processing', chars: TASK.length } });
  expect((await readJson<{ objective: string | null }>(join(childDir(root), 'manifest.json'))).objective).toBe(TASK);
}

describe("a subagent's task, from its parent's call", () => {
  it('is taken when the parent is built after the subagent (the subagent is re-rendered), and when before', async () => {
    // `many`: the parent is built with another session, as a backfill does (buildMany's first pass).
    for (const order of ['child-first', 'child-first-many', 'parent-first'] as const) {
      const root = tempDir('handoff-store-');
      const env = testEnv({ HANDOFFS_ROOT: root });
      const { parent, child } = files();
      writeFileSync(parent, parentCall() + parentResult());
      writeFileSync(child, subagent());
      if (order !== 'parent-first') {
        expect((await runCli(['build', child], { env })).code).toBe(0);
        expect(await readFile(join(childDir(root), 'HANDOFF.md'), 'utf8')).toContain("*unknown* — this subagent's transcript does not hold the task it was given");
      }
      if (order === 'child-first-many') workersOn(env);
      const other = join(tempDir('handoff-work-'), 'other.jsonl');
      writeFileSync(other, line({ type: 'user', sessionId: 'other', cwd: '/home/dev/other', message: { role: 'user', content: 'Something else entirely' } }));
      // In a process of its own, as the CLI runs (in this one, no build worker can start).
      const built = order === 'child-first-many' ? await spawnCli(['build', parent, other], { env }) : await runCli(['build', parent], { env });
      expect(built.code, built.err).toBe(0);
      if (order === 'parent-first') expect((await runCli(['build', child], { env })).code).toBe(0);
      await expectTask(root);
      // The parent lists the agent it ran, not the task's text again.
      const llm = await readJson<{ subagents: { launched: Record<string, unknown>[] } }>(join(root, 'projects', 'manifest', PARENT, 'HANDOFF.llm.json'));
      expect(llm.subagents.launched).toEqual([{ id: 'toolu_task', description: 'Explore ZIP processing', seq: 1, result_seq: 2, ok: true, line: 2, agent: AGENT, read_only: true }]);
      const v = await runCli(['verify', '--all'], { env });
      expect(v.out.match(/^PASS /gm), v.out).toHaveLength(order === 'child-first-many' ? 3 : 2);
    }
  }, 60_000);

  it("is rendered by the subagent's first build when the parent, built before, has recorded the agent since", async () => {
    // The subagent's build re-renders its parent, which learns the agent and re-renders the
    // subagent: done inside the subagent's own claim, that waited on itself for good.
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const { parent, child } = files();
    writeFileSync(parent, parentCall());
    expect((await runCli(['build', parent], { env })).code).toBe(0);
    await appendFile(parent, parentResult());
    writeFileSync(child, subagent());
    expect((await runCli(['build', child], { env })).code).toBe(0);
    await expectTask(root);
  }, 15_000);

  it('is said unknown while the parent has not recorded which agent ran the call', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const { parent, child } = files();
    writeFileSync(parent, parentCall());
    writeFileSync(child, subagent());
    expect((await runCli(['build', parent, child], { env })).code).toBe(0);
    const summary = await readJson<Summary>(join(childDir(root), 'HANDOFF.summary.json'));
    expect(summary).toMatchObject({ objective: null, objective_from_parent: null });
  }, 30_000);
});

const running: RunningDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.kill('SIGKILL');
});

describe("a subagent's task, in the daemon", () => {
  for (const workers of [0, 1]) {
    it(`is rendered when the parent's result names the agent after both were built (backfill_workers ${workers})`, async () => {
      const root = tempDir('handoff-store-');
      const env = testEnv({ HANDOFFS_ROOT: root });
      const conf = join(env.XDG_CONFIG_HOME as string, 'handoff');
      mkdirSync(conf, { recursive: true });
      writeFileSync(join(conf, 'handoff.config.json'), JSON.stringify({ daemon: { backfill_workers: workers } }));
      const { watch, parent, child } = files();
      writeFileSync(parent, parentCall());
      writeFileSync(child, subagent());
      const d = await startDaemon(env, root, ['--watch', watch]);
      running.push(d);
      const childMd = join(childDir(root), 'HANDOFF.md');
      await waitFor(() => existsSync(childMd) && existsSync(join(root, 'projects', 'manifest', PARENT, 'HANDOFF.md')), 'both handoffs', 20_000);
      expect(await readFile(childMd, 'utf8')).toContain('*unknown*');
      await appendFile(parent, parentResult());
      await waitFor(async () => (await readFile(childMd, 'utf8')).includes(TASK.split('\n')[0] as string), "the subagent's task in its handoff", 20_000);
      await d.call('flush', { timeout_ms: 20_000 }, 25_000);
      await expectTask(root);
    }, 60_000);
  }

  it('is rendered when a backfill in a build worker brings the parent its result, the subagent built by an earlier run', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const conf = join(env.XDG_CONFIG_HOME as string, 'handoff');
    mkdirSync(conf, { recursive: true });
    writeFileSync(join(conf, 'handoff.config.json'), JSON.stringify({ daemon: { backfill_workers: 1 } }));
    const { watch, parent, child } = files();
    writeFileSync(parent, parentCall());
    writeFileSync(child, subagent());
    const first = await startDaemon(env, root, ['--watch', watch]);
    running.push(first);
    await first.call('flush', { timeout_ms: 20_000 }, 25_000);
    expect(await readFile(join(childDir(root), 'HANDOFF.md'), 'utf8')).toContain('*unknown*');
    await first.kill('SIGTERM');
    // The parent went on while no daemon ran; an hour old, it is backfill, built in the worker.
    await appendFile(parent, parentResult());
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const p of [parent, child]) utimesSync(p, hourAgo, hourAgo);
    const second = await startDaemon(env, root, ['--watch', watch]);
    running.push(second);
    await second.call('flush', { timeout_ms: 20_000 }, 25_000);
    await waitFor(async () => (await readFile(join(childDir(root), 'HANDOFF.md'), 'utf8')).includes(TASK.split('\n')[0] as string), "the subagent's task in its handoff", 20_000);
    expect(second.log()).toMatch(/built in a worker/);
    await expectTask(root);
  }, 60_000);
});

describe("a subagent's task, when the re-render its parent's build asked for was lost", () => {
  /**
   * The store a stop leaves when it empties the daemon's queue between a parent's commit and its
   * subagent's re-render: the subagent committed before the parent, with no objective. Made here
   * by sealing the subagent's manifest back to that (its objective null, its time before the
   * parent's commit), and forgetting the re-render.
   */
  async function lostRerender(): Promise<{ env: NodeJS.ProcessEnv; root: string; watch: string; child: string }> {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const { watch, parent, child } = files();
    writeFileSync(parent, parentCall() + parentResult());
    writeFileSync(child, subagent());
    expect((await runCli(['build', child, parent], { env })).code).toBe(0);
    const p = join(childDir(root), 'manifest.json');
    const { manifest_sha256: _s, ...m } = await readJson<Manifest>(p);
    await writeFile(p, serializeManifest(seal({ ...m, objective: null, updated_at: '2026-01-01T00:00:00.000Z' })));
    // INDEX.json as the commit left it (the next command reads the entry from there).
    const indexPath = join(root, 'INDEX.json');
    const index = await readJson<{ id: string; objective: string | null; updated: string; manifest_sha256: string }[]>(indexPath);
    const sealed = await readJson<Manifest>(p);
    for (const e of index) if (e.id === sealed.session) Object.assign(e, { objective: null, updated: sealed.updated_at, manifest_sha256: sealed.manifest_sha256 });
    await writeFile(indexPath, JSON.stringify(index));
    return { env, root, watch, child };
  }

  it('is rendered by the next build of the subagent, not reported up to date', async () => {
    const { env, root, child } = await lostRerender();
    const r = await runCli(['build', child], { env });
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(/up-to-date/);
    await expectTask(root);
    // Once: it is the later commit now.
    expect((await runCli(['build', child], { env })).out).toMatch(/up-to-date/);
  });

  it('is rendered by the daemon at its start, though neither transcript changed', async () => {
    const { env, root, watch } = await lostRerender();
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    await waitFor(async () => (await readJson<{ objective: string | null }>(join(childDir(root), 'manifest.json'))).objective === TASK, 'the subagent re-rendered with its task', 20_000);
    await expectTask(root);
  });
});
