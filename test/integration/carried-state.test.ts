import { createHash } from 'node:crypto';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl } from '../unit/ingest-helper.js';
import { loadSession } from '../../src/engine/session.js';
import type { Manifest } from '../../src/store/manifest.js';
import { seal, serializeManifest } from '../../src/store/manifest.js';
import { decodeStateSync, encodeStateSync } from '../../src/store/state-file.js';
import { readJson, runCli, tempDir, testEnv } from '../helpers.js';
import { claudeTaskLines, writeTranscript } from '../transcripts.js';

const SESSION = '7d3e9a10-1b2c-4d5e-8f60-718293a4b5c6';

describe('a carried state written before a field of the state existed', () => {
  it('is read on, the task counter taken from the highest task id it holds, so an update after it names the right task', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const t = claudeTaskLines({ isSidechain: false, userType: 'external', cwd: '/home/dev/plan', sessionId: SESSION, version: '2.1.0' });
    const src = writeTranscript(`${SESSION}.jsonl`, jsonl(t.ask('split the migration into tasks and do them'), ...t.tasks(3), t.update('d2', '2', 'deleted')));
    const built = await runCli(['build', src, '--json'], { env });
    expect(built.code).toBe(0);
    const dir = (JSON.parse(built.out) as { dir: string }).dir;

    // The state as the release before task counting wrote it: no `taskSeq`. A mark in it shows it
    // was read, not rebuilt from the transcript.
    const m = await readJson<Manifest & { redactions: number }>(join(dir, 'manifest.json'));
    const state = JSON.parse(decodeStateSync(m.state_file, await readFile(join(dir, m.state_file))).toString('utf8')) as Record<string, unknown> & { redactions: number };
    expect(state.taskSeq).toBe(3);
    delete state.taskSeq;
    const old = encodeStateSync(m.state_file, JSON.stringify({ ...state, redactions: state.redactions + 1000 }));
    await writeFile(join(dir, m.state_file), old);
    const { manifest_sha256: _sealed, ...rest } = m;
    await writeFile(join(dir, 'manifest.json'), serializeManifest(seal({ ...rest, state_sha256: createHash('sha256').update(old).digest('hex') })));

    const loaded = await loadSession(dir);
    expect(loaded.state?.taskSeq).toBe(3);

    // Tasks 1 and 3 are left: counting from the length of the list would give "3" again.
    await appendFile(src, jsonl(t.create('c4', 'no result yet'), t.update('u4', '4', 'completed')));
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const after = await readJson<Manifest & { redactions: number }>(join(dir, 'manifest.json'));
    expect(after.redactions).toBe(m.redactions + 1000);
    const llm = await readJson<{ tasks: { text: string; status: string }[] }>(join(dir, 'HANDOFF.llm.json'));
    expect(llm.tasks.map((x) => [x.text, x.status])).toEqual([
      ['task 1', 'pending'],
      ['task 3', 'pending'],
      ['no result yet', 'completed'],
    ]);
    expect((await runCli(['verify', SESSION], { env })).code).toBe(0);
  });

  it('of version 3 (its plan written item by item) is read on, and written again with the plan as the task list', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const t = claudeTaskLines({ isSidechain: false, userType: 'external', cwd: '/home/dev/plan', sessionId: SESSION, version: '2.1.0' });
    const src = writeTranscript(`v3-${SESSION}.jsonl`, jsonl(t.ask('split the migration into tasks and do them'), ...t.tasks(3), t.update('u1', '1', 'in_progress')));
    const built = await runCli(['build', src, '--json'], { env });
    expect(built.code).toBe(0);
    const dir = (JSON.parse(built.out) as { dir: string }).dir;
    const m = await readJson<Manifest & { redactions: number }>(join(dir, 'manifest.json'));
    type Stored = Record<string, unknown> & { v: number; redactions: number; tasks: unknown[]; todos: { items: unknown; source: string } };
    const stored = async (file: string): Promise<Stored> => JSON.parse(decodeStateSync(file, await readFile(join(dir, file))).toString('utf8')) as Stored;
    const state = await stored(m.state_file);
    // Version 4 writes a plan that is the task list as a mark, not the tasks a second time (5 and 6 too).
    expect(state.v).toBe(6);
    expect(state.todos.items).toBe('tasks');
    const llmBefore = await readFile(join(dir, 'HANDOFF.llm.json'), 'utf8');
    expect((JSON.parse(llmBefore) as { tasks: unknown[] }).tasks).toHaveLength(3);

    // The same state as version 3 wrote it: the plan's items in full. A mark shows it was read, not rebuilt.
    const loadedNow = await loadSession(dir);
    const items = loadedNow.state?.todos?.items;
    expect(items).toHaveLength(3);
    const old = encodeStateSync(m.state_file, JSON.stringify({ ...state, v: 3, todos: { ...state.todos, items }, redactions: state.redactions + 1000 }));
    await writeFile(join(dir, m.state_file), old);
    const { manifest_sha256: _sealed, ...rest } = m;
    await writeFile(join(dir, 'manifest.json'), serializeManifest(seal({ ...rest, state_sha256: createHash('sha256').update(old).digest('hex') })));
    expect((await loadSession(dir)).state?.todos?.items).toEqual(items);

    await appendFile(src, jsonl(t.update('u2', '2', 'completed')));
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const after = await readJson<Manifest & { redactions: number }>(join(dir, 'manifest.json'));
    expect(after.redactions).toBe(m.redactions + 1000);
    expect((await stored(after.state_file)).todos.items).toBe('tasks');
    const llm = await readJson<{ tasks: { text: string; status: string }[]; current_state: Record<string, unknown> }>(join(dir, 'HANDOFF.llm.json'));
    const plan = [
      ['task 1', 'in_progress'],
      ['task 2', 'completed'],
      ['task 3', 'pending'],
    ];
    expect(llm.tasks.map((x) => [x.text, x.status])).toEqual(plan);
    expect(llm.current_state).toMatchObject({ completed: ['task 2'], in_progress: ['task 1'], not_started: ['task 3'], source: 'tasks' });
    expect(llm.current_state).not.toHaveProperty('items');
    expect((await runCli(['verify', `v3-${SESSION}`], { env })).code).toBe(0);
  });
});
