import { appendFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { readJson, runCli, tempDir, testEnv, waitFor } from '../helpers.js';

const running: RunningDaemon[] = [];
afterEach(async (ctx) => {
  for (const d of running.splice(0)) {
    if (ctx.task.result?.state === 'fail') console.log(d.log());
    if (d.child.exitCode === null && d.child.signalCode === null) await d.kill('SIGKILL');
  }
});

let n = 0;
const line = (o: Record<string, unknown>): string => `${JSON.stringify({ sessionId: 'auto', cwd: '/nowhere/auto', uuid: `u${n++}`, ...o })}\n`;
const user = (text: string): string => line({ type: 'user', message: { role: 'user', content: text } });
const agent = (text: string, used: number): string =>
  line({ type: 'assistant', message: { id: `msg_${n}`, role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text }], usage: { input_tokens: used, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 10 } } });

/** A daemon watching one session, built: its first request and the agent's first reply. */
async function daemonWithSession(): Promise<{ d: RunningDaemon; src: string; dir: string }> {
  const root = tempDir('handoff-store-');
  const env = testEnv({ HANDOFFS_ROOT: root });
  const watch = tempDir('handoff-watch-');
  const d = await startDaemon(env, root, ['--watch', watch]);
  running.push(d);
  const src = join(watch, 'auto.jsonl');
  await writeFile(src, user('Port the billing report to the new ledger API') + agent('Starting.', 20_000));
  const dir = (await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'auto'), 'the session')).dir;
  return { d, src, dir };
}

describe('automatic finalize', () => {
  it('copies the handoff into history/ once when pressure turns red and once per compaction, never on every build', async () => {
    const { d, src, dir } = await daemonWithSession();
    // history/ is made by its first file (docs/FORMAT.md).
    const history = async (): Promise<string[]> => (await readdir(join(dir, 'history')).catch(() => [] as string[])).filter((f) => f.endsWith('.md')).sort();
    const revisionAt = async (rev: number): Promise<void> => {
      await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'auto' && s.revision >= rev), `revision ${rev}`);
    };
    expect(await history()).toEqual([]);
    await appendFile(src, agent('Halfway there.', 150_000)); // 0.75 of 200k: red
    await revisionAt(2);
    await waitFor(async () => (await history()).length === 1, 'a finalize when pressure turned red');
    await appendFile(src, agent('Still red.', 160_000));
    await revisionAt(3);
    await appendFile(src, agent('Still red, more.', 170_000));
    await revisionAt(4);
    expect(await history()).toHaveLength(1);
    await appendFile(src, line({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 170000 } }));
    await revisionAt(5);
    await waitFor(async () => (await history()).length === 2, 'a finalize for the compaction');
    await appendFile(src, agent('After the compaction.', 30_000));
    await revisionAt(6);
    expect(await history()).toHaveLength(2);
    const m = await readJson<{ finalized: { reason: string }[] }>(join(dir, 'manifest.json'));
    expect(m.finalized.map((f) => f.reason)).toEqual(['context pressure turned red', 'compaction']);
  });
});

describe('a history/ that is a file', () => {
  it('the daemon skips its automatic finalize, says so, and keeps building the session', async () => {
    const { d, src, dir } = await daemonWithSession();
    await writeFile(join(dir, 'history'), 'not a folder');
    await appendFile(src, agent('Halfway there.', 150_000)); // red: an automatic finalize
    await appendFile(src, agent('And more.', 160_000));
    await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'auto' && s.turns === 4 && s.state !== 'error'), 'the new turns built');
    await waitFor(() => /the automatic finalize \(context pressure turned red\) was skipped: .*history is a file, not a folder/.test(d.log()), 'the log to say the finalize was skipped');
  });

  it('a finalize asked for fails before anything is replaced, naming it; the previous revision stays whole', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = join(tempDir('handoff-src-'), 'auto.jsonl');
    await writeFile(src, user('Port the billing report to the new ledger API') + agent('Starting.', 20_000));
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const dir = (await readJson<{ dir: string }[]>(join(root, 'INDEX.json')))[0]?.dir as string;
    await writeFile(join(dir, 'history'), 'not a folder');
    await appendFile(src, agent('Halfway there.', 30_000));
    const r = await runCli(['finalize', 'auto'], { env });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`cannot keep a finalize copy: ${join(dir, 'history')} is a file, not a folder`);
    const v = await runCli(['verify', 'auto'], { env });
    expect(v.code, v.out).toBe(0);
  });
});
