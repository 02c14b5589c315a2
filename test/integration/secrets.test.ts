import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.js';
import { Redactor } from '../../src/core/redact.js';
import type { Manifest } from '../../src/store/manifest.js';
import { startDaemon } from '../daemon-harness.js';
import type { FakeSecret } from '../fake-secrets.js';
import { fakeSecrets, slice12 } from '../fake-secrets.js';
import { readJson, runCli, tempDir, testEnv, waitFor } from '../helpers.js';
import { writeTranscript } from '../transcripts.js';

/**
 * SPEC §9: nothing the store holds may contain a credential from the transcript. Each transcript
 * carries one credential of every kind in each of four places — the user's prompt, a shell
 * command, a tool result and the assistant's reply — and every file of the store is searched.
 */

const SECRETS = fakeSecrets();
const PLACES = 4;
const block = (secrets: readonly FakeSecret[]): string => secrets.map((s) => s.text).join('\n');
const line = (o: unknown): string => `${JSON.stringify(o)}\n`;

function claudeWithSecrets(cwd: string): string {
  const base = { isSidechain: false, userType: 'external', cwd, sessionId: 'c1a0de00-0000-4000-8000-000000000001', version: '2.0.55' };
  const assistant = (id: string, content: unknown[]): Record<string, unknown> => ({ ...base, type: 'assistant', message: { id, role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, usage: { input_tokens: 5, output_tokens: 5 } } });
  const secrets = block(SECRETS);
  return [
    line({ ...base, type: 'user', message: { role: 'user', content: `Deploy with:\n${secrets}` } }),
    line(assistant('m1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: `cat > .env <<'EOF'\n${secrets}\nEOF\n./deploy.sh`, description: 'write the env file' } }])),
    line({ ...base, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: `deployed with:\n${secrets}`, is_error: false }] }, toolUseResult: { stdout: secrets, stderr: '', interrupted: false } }),
    line(assistant('m2', [{ type: 'tool_use', id: 't2', name: 'Write', input: { file_path: `${cwd}/config/prod.json`, content: JSON.stringify({ env: secrets }) } }])),
    line(assistant('m3', [{ type: 'tool_use', id: 't3', name: 'TodoWrite', input: { todos: [{ content: `Rotate ${SECRETS[1]?.text ?? ''}`, status: 'in_progress', activeForm: 'Rotating' }] } }])),
    line(assistant('m4', [{ type: 'text', text: `Deployed. For the record, I used:\n${secrets}` }])),
  ].join('');
}

function codexWithSecrets(cwd: string): string {
  const ev = (type: string, payload: Record<string, unknown>): string => line({ timestamp: '2026-04-02T10:00:00.000Z', type, payload });
  const secrets = block(SECRETS);
  const prompt = `Deploy with:\n${secrets}`;
  const script = `cat > .env <<'EOF'\n${secrets}\nEOF\n./deploy.sh`;
  return [
    ev('session_meta', { id: '019d0000-0000-7000-8000-00000000c0de', cwd, cli_version: '0.104.0' }),
    // Some Codex versions write the UI mirror before the response item.
    ev('event_msg', { type: 'user_message', message: prompt, images: [] }),
    ev('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] }),
    ev('turn_context', { cwd, model: 'gpt-5.3-codex' }),
    ev('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: script }), call_id: 'c1' }),
    ev('response_item', { type: 'function_call_output', call_id: 'c1', output: `Process exited with code 0\nOutput:\n${secrets}` }),
    ev('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', script] }), call_id: 'c2' }),
    ev('event_msg', { type: 'exec_command_end', call_id: 'c2', command: ['bash', '-lc', script], exit_code: 0, aggregated_output: secrets }),
    ev('response_item', { type: 'custom_tool_call', call_id: 'c3', name: 'apply_patch', input: `*** Begin Patch\n*** Add File: config/prod.env\n${SECRETS.map((s) => `+${s.text.split('\n').join('\n+')}`).join('\n')}\n*** End Patch` }),
    ev('response_item', { type: 'function_call', name: 'update_plan', arguments: JSON.stringify({ plan: [{ step: `Rotate ${SECRETS[1]?.text ?? ''}`, status: 'in_progress' }] }), call_id: 'c4' }),
    ev('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Deployed. For the record, I used:\n${secrets}` }] }),
    ev('event_msg', { type: 'agent_message', message: `Deployed. For the record, I used:\n${secrets}` }),
  ].join('');
}

async function leaksIn(root: string): Promise<string[]> {
  const leaks: string[] = [];
  for (const f of await everyFile(root)) {
    const text = await readFile(f, 'utf8');
    for (const s of SECRETS) {
      if (text.includes(s.value)) leaks.push(`${s.kind} (whole) in ${f.slice(root.length)}`);
      else if (text.includes(slice12(s.value))) leaks.push(`${s.kind} (part) in ${f.slice(root.length)}`);
    }
  }
  return leaks;
}

async function everyFile(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await everyFile(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

describe.each([
  ['Claude Code', 'claude', claudeWithSecrets],
  ['Codex', 'codex', codexWithSecrets],
])('a %s transcript full of credentials', (_name, harness, write) => {
  it('leaves no credential, whole or in part, in any file of the store, and counts what it redacted', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const cwd = join(tempDir('handoff-cwd-'), 'billing');
    const src = writeTranscript(`${harness}-secrets.jsonl`, write(cwd));
    const b = await runCli(['build', src, '--json'], { env });
    expect(b.code, b.err).toBe(0);
    const dir = (JSON.parse(b.out) as { dir: string }).dir;
    expect((await runCli(['checkpoint', `${harness}-secrets`, '--note', `rotated ${SECRETS[4]?.value ?? ''}`], { env })).code).toBe(0);
    expect((await runCli(['finalize', `${harness}-secrets`], { env })).code).toBe(0);

    const files = await everyFile(root);
    const names = files.map((f) => f.slice(root.length + 1));
    expect(names).toEqual(expect.arrayContaining(['INDEX.json', 'projects/billing/PROJECT.md', expect.stringMatching(/\/history\/.+-checkpoint\.md$/), expect.stringMatching(/\/history\/\d{8}T\d{6}Z-[^/]+-secrets\.md$/), expect.stringMatching(/\/\.state-\d+\.json$/)]));
    expect(await leaksIn(root)).toEqual([]);

    const timeline = await readFile(join(dir, 'timeline.jsonl'), 'utf8');
    for (const kind of new Set(SECRETS.map((s) => s.kind))) expect(timeline, kind).toContain(`[REDACTED:${kind}]`);
    const m = await readJson<Manifest>(join(dir, 'manifest.json'));
    expect(m.redactions).toBeGreaterThanOrEqual(SECRETS.length * PLACES);
    // The quality gate's second, independent scan agrees: nothing left to find.
    expect(m.quality.failed).not.toContain('no_secrets');
    const vr = await runCli(["verify", `${harness}-secrets`], { env });
    expect(vr.code, vr.out + vr.err).toBe(0);
  });
});

describe('credentials where only names and ids are expected', () => {
  it('redacts record types, tool names and ids and timestamps copied from the line', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    // Credentials that identify themselves (a prefix such as ghp_ or AKIA); the others are only
    // secrets next to their label (`password=`), which a name or an id never carries.
    const redactor = new Redactor();
    const tokens = SECRETS.map((x) => x.value).filter((v) => !/\s/.test(v) && redactor.redact(v).count > 0);
    expect(tokens.length).toBeGreaterThan(5);
    const base = { isSidechain: false, cwd: join(tempDir('handoff-cwd-'), 'billing'), sessionId: 'c1a0de00-0000-4000-8000-0000000000aa', version: '2.0.55' };
    const text = [
      line({ ...base, type: 'user', timestamp: '2026-04-02T10:00:00.000Z', message: { role: 'user', content: 'Ship the release notes for version 2.4 today' } }),
      ...tokens.map((t, i) => line({ ...base, type: 'assistant', timestamp: t, message: { id: `m${i}`, role: 'assistant', content: [{ type: 'tool_use', id: t, name: t, input: { command: 'ls' } }] } })),
      ...tokens.map((t) => line({ ...base, type: t, content: 'a record of a type no reader knows' })),
    ].join('');
    const src = writeTranscript('names-secrets.jsonl', text);
    const b = await runCli(['build', src, '--json'], { env });
    expect(b.code, b.err).toBe(0);
    expect(await leaksIn(root)).toEqual([]);
    const m = await readJson<Manifest>(join((JSON.parse(b.out) as { dir: string }).dir, 'manifest.json'));
    expect(m.unknown_types).toEqual({ '(other)': tokens.length });
  });
});

describe('a Codex session built between its UI mirror and the response item', () => {
  it('keeps no credential in the reader state it persists, and still drops the twin', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const lines = codexWithSecrets(join(tempDir('handoff-cwd-'), 'billing')).split('\n');
    const src = writeTranscript('mirror-secrets.jsonl', `${lines.slice(0, 2).join('\n')}\n`);
    expect((await runCli(['build', src], { env })).code).toBe(0);
    expect(await leaksIn(root)).toEqual([]);
    await appendFile(src, lines.slice(2).join('\n'));
    const b = await runCli(['build', src, '--json'], { env });
    expect(b.code, b.err).toBe(0);
    const timeline = (await readFile(join((JSON.parse(b.out) as { dir: string }).dir, 'timeline.jsonl'), 'utf8')).split('\n').filter((l) => l.length > 0);
    const prompts = timeline.map((l) => JSON.parse(l) as { class: string; text: string }).filter((t) => t.class === 'USER' && t.text.startsWith('Deploy with:'));
    expect(prompts).toHaveLength(1);
    expect(await leaksIn(root)).toEqual([]);
  });
});

describe('the daemon with credentials in its transcripts', () => {
  it('says nothing of them over the socket, in notifications or in its log, even for a corrupt line', async () => {
    const root = tempDir('handoff-store-');
    const watch = tempDir('handoff-watch-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const d = await startDaemon(env, root, ['--watch', watch]);
    try {
      const heard: string[] = [];
      const sub = await ControlClient.connect(d.socket);
      sub.onNotification((event, params) => heard.push(`${event} ${JSON.stringify(params)}`));
      await sub.call('subscribe', {});
      const cwd = join(tempDir('handoff-cwd-'), 'billing');
      await writeFile(join(watch, 'claude-secrets.jsonl'), claudeWithSecrets(cwd));
      await writeFile(join(watch, 'codex-secrets.jsonl'), codexWithSecrets(cwd));
      // A line that is not JSON, made of a credential: the parser's complaint would quote it.
      const token = SECRETS.find((s) => s.kind === 'github_token') ?? (SECRETS[0] as FakeSecret);
      await writeFile(join(watch, 'corrupt.jsonl'), `${line({ role: 'user', content: 'a first request that is long enough' })}${token.value} {"role":"user"}\n`);
      await d.call('flush', { timeout_ms: 20_000 }, 25_000);
      await waitFor(async () => (await d.call('status')).sessions.some((s) => s.state === 'halted'), 'the corrupt session to halt');
      await waitFor(() => heard.some((h) => h.startsWith('halted ')) && heard.filter((h) => h.startsWith('built ')).length >= 2, 'built and halted notifications');
      const answers: unknown[] = [await d.call('status'), await d.call('sessions.list', {}), await d.call('verify', { all: true })];
      for (const id of ['claude-secrets', 'codex-secrets']) answers.push(await d.call('session.get', { id }));
      const cli = await runCli(['checkpoint', 'claude-secrets', '--note', `rotated ${SECRETS[4]?.value ?? ''}`], { env });
      expect(cli.code, cli.err).toBe(0);
      sub.close();
      const said = [...answers.map((a) => JSON.stringify(a)), ...heard, d.log(), cli.out, cli.err].join('\n');
      const leaks = SECRETS.filter((s) => said.includes(s.value) || said.includes(slice12(s.value))).map((s) => s.kind);
      expect(leaks).toEqual([]);
      expect(said).toMatch(/corrupt\.jsonl:2: line 2 \(byte offset \d+\) is not valid JSON: unexpected character/);
      expect(await leaksIn(root)).toEqual([]);
    } finally {
      await d.kill('SIGKILL');
    }
  });
});
