import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/core/state.js';
import type { Manifest } from '../../src/store/manifest.js';
import { seal, serializeManifest } from '../../src/store/manifest.js';
import { decodeStateSync, encodeStateSync } from '../../src/store/state-file.js';
import { readJson, runCli, tempDir, testEnv } from '../helpers.js';

/**
 * A Codex session on Windows names each patched file twice: relative in the apply_patch text
 * (`lib/prices.ts`) and absolute in the patch_apply_end event (`C:\Users\dev\Shop\lib\prices.ts`).
 * The handoff lists the file once.
 */

const CWD = 'C:\\Users\\dev\\Shop';
const at = (s: number): string => new Date(Date.UTC(2026, 4, 2, 10, 0, s)).toISOString();

function windowsSession(): string {
  let s = 0;
  const line = (type: string, payload: Record<string, unknown>): string => JSON.stringify({ timestamp: at((s += 1)), type, payload });
  const patch = (id: string, files: Record<string, string>, ok: boolean, changes: Record<string, unknown>): string[] => [
    line('response_item', { type: 'custom_tool_call', status: 'completed', call_id: id, name: 'apply_patch', input: `*** Begin Patch\n${Object.entries(files).map(([f, body]) => `${body} ${f}\n+export const rate = 1;`).join('\n')}\n*** End Patch` }),
    line('event_msg', { type: 'patch_apply_end', call_id: id, turn_id: 't1', stdout: ok ? 'Success.' : '', stderr: ok ? '' : 'context not found', success: ok, changes }),
    line('response_item', { type: 'custom_tool_call_output', call_id: id, output: JSON.stringify({ output: ok ? `Success. Updated the following files:\n${Object.keys(files).map((f) => `M ${f}`).join('\n')}\n` : 'apply_patch verification failed: context not found', metadata: { exit_code: ok ? 0 : 1, duration_seconds: 0.1 } }) }),
  ];
  return [
    line('session_meta', { id: '019e0000-aaaa-7bbb-8ccc-ddddeeeeffff', timestamp: at(0), cwd: CWD, originator: 'codex-tui', cli_version: '0.125.0', source: 'cli', model_provider: 'openai' }),
    line('turn_context', { turn_id: 't1', cwd: CWD, approval_policy: 'on-request', model: 'gpt-5.5' }),
    line('event_msg', { type: 'user_message', message: 'Add a price helper and mention it in the readme.', images: [] }),
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Add a price helper and mention it in the readme.' }] }),
    ...patch('call_a', { 'lib/prices.ts': '*** Add File:', 'README.md': '*** Update File:' }, true, {
      [`${CWD}\\lib\\prices.ts`]: { type: 'add', content: 'export const rate = 1;\n' },
      [`${CWD}\\README.md`]: { type: 'update', unified_diff: '@@\n+rate\n', move_path: null },
    }),
    // A refused patch, its file named in another case by the event: one write that did not happen,
    // spelled as first reported, under the working folder's own spelling.
    ...patch('call_b', { 'lib/tax.ts': '*** Update File:' }, false, { [`c:\\users\\dev\\shop\\LIB\\TAX.ts`]: { type: 'update', unified_diff: '@@\n+x\n', move_path: null } }),
    line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The price helper is in lib/prices.ts; the tax patch did not apply.' }] }),
  ].join('\n') + '\n';
}

async function build(): Promise<{ env: NodeJS.ProcessEnv; src: string; dir: string }> {
  const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
  const src = join(tempDir('handoff-work-'), 'shop-session.jsonl');
  await writeFile(src, windowsSession());
  const r = await runCli(['build', src, '--json'], { env });
  expect(r.code, r.err).toBe(0);
  return { env, src, dir: (JSON.parse(r.out) as { dir: string }).dir };
}

interface Llm {
  files_changed: { path: string; line: number; how: string; what?: string[] }[];
  files_not_changed: { path: string }[];
  files_touched: { path: string }[];
}

describe('a Codex session on Windows', () => {
  it('lists a file its patch names relative and its event names absolute once, in HANDOFF.llm.json and HANDOFF.md', async () => {
    const { dir } = await build();
    const llm = await readJson<Llm>(join(dir, 'HANDOFF.llm.json'));
    expect(llm.files_changed.map((f) => f.path)).toEqual([`${CWD}\\lib\\prices.ts`, `${CWD}\\README.md`]);
    // The entry is the later report (the tool's output), with what the patch text defines; the
    // event says the patch added the file (`type: add`): a create.
    expect(llm.files_changed[0]).toMatchObject({ how: 'create', what: ['rate'] });
    expect(llm.files_changed[1]).toMatchObject({ how: 'patch' });
    expect(llm.files_not_changed.map((f) => f.path)).toEqual([`${CWD}\\LIB\\TAX.ts`]);
    expect(llm.files_touched.map((f) => f.path).sort()).toEqual([`${CWD}\\LIB\\TAX.ts`, `${CWD}\\README.md`, `${CWD}\\lib\\prices.ts`]);

    const md = await readFile(join(dir, 'HANDOFF.md'), 'utf8');
    const section = md.slice(md.indexOf('### Files changed in this session'), md.indexOf('### Commits made in this session'));
    const rows = section.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.map((r) => r.split(' | ')[0])).toEqual(['| `README.md`', '| `lib\\prices.ts`']);
    expect(section).toContain(`paths under \`${CWD}\` are given from there`);
    expect(section).not.toMatch(/more in HANDOFF\.summary\.json/);
    expect(section.match(/tax\.ts/gi)).toHaveLength(1);
  });

  it('merges the duplicates of a state written before paths took one form at the next build, without re-reading the transcript', async () => {
    const { env, src, dir } = await build();
    const m = await readJson<Manifest>(join(dir, 'manifest.json'));
    const st = JSON.parse(decodeStateSync(m.state_file, await readFile(join(dir, m.state_file))).toString('utf8')) as SessionState;

    // The state as the code before wrote it: each file once relative, once absolute, no form mark.
    // The redaction count is a mark that shows the state was read, not rebuilt from the transcript.
    const { paths: _form, ...old } = st;
    const l = old.ledger;
    l.changed = { [`${CWD}\\lib\\prices.ts`]: { line: 6, how: 'patch', tool: 'apply_patch' }, [`${CWD}\\README.md`]: { line: 6, how: 'patch', tool: 'apply_patch' }, 'lib/prices.ts': { line: 7, how: 'patch', tool: 'apply_patch', what: ['rate'] }, 'README.md': { line: 7, how: 'patch', tool: 'apply_patch', what: ['rate'] } };
    l.changedTotal = 4;
    l.notChanged = { 'c:\\users\\dev\\shop\\LIB\\TAX.ts': { line: 9, reason: 'the patch did not apply' }, 'lib/tax.ts': { line: 10, reason: 'the tool reported an error' } };
    old.redactions += 1000;
    const bytes = encodeStateSync(m.state_file, JSON.stringify(old));
    await writeFile(join(dir, m.state_file), bytes);
    const { manifest_sha256: _sealed, ...rest } = m;
    await writeFile(join(dir, 'manifest.json'), serializeManifest(seal({ ...rest, state_sha256: createHash('sha256').update(bytes).digest('hex') })));

    // The transcript did not grow: the build re-renders because the state changed, not the source.
    const again = await runCli(['build', src, '--json'], { env });
    expect(again.code, again.err).toBe(0);
    const after = await readJson<Manifest & { redactions: number }>(join(dir, 'manifest.json'));
    expect(after.revisions).toBe(m.revisions + 1);
    expect(after.redactions).toBe((m as Manifest & { redactions: number }).redactions + 1000);
    const upgraded = JSON.parse(decodeStateSync(after.state_file, await readFile(join(dir, after.state_file))).toString('utf8')) as SessionState;
    expect(upgraded.paths).toBe(1);
    expect(upgraded.ledger.changedTotal).toBe(2);
    const llm = await readJson<Llm>(join(dir, 'HANDOFF.llm.json'));
    expect(llm.files_changed.map((f) => [f.path, f.line, f.what])).toEqual([
      [`${CWD}\\lib\\prices.ts`, 7, ['rate']],
      [`${CWD}\\README.md`, 7, ['rate']],
    ]);
    expect(llm.files_not_changed.map((f) => f.path)).toEqual([`${CWD}\\LIB\\TAX.ts`]);
    const v = await runCli(['verify', after.session], { env });
    expect(v.code, v.out + v.err).toBe(0);
    await rm(src);
  });
});
