import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.js';
import { Redactor } from '../../src/core/redact.js';
import type { Manifest } from '../../src/store/manifest.js';
import { startDaemon } from '../daemon-harness.js';
import type { FakeSecret } from '../fake-secrets.js';
import { fakeSecrets, leaksOf } from '../fake-secrets.js';
import { everyFile, readJson, readStoredText, runCli, tempDir, testEnv, waitFor } from '../helpers.js';
import { secretlintFindings } from '../secretlint.js';
import { writeTranscript } from '../transcripts.js';

/**
 * SPEC §9 and docs/SECURITY.md: nothing the store, the socket, the log or the terminal holds may
 * contain a credential from a transcript or from the command line. Every fake credential stands
 * in each of the places a transcript carries text — mid-sentence in a prompt, at the start of a
 * line inside the JSON-escaped input of a tool, in a shell command, in a tool result that is
 * itself JSON, in a Codex function_call_output, in a reply — and each transcript is written in
 * two appends cut inside a credential. Everything is then searched for the raw value, its
 * JSON-escaped form and any 16-character run of either, and scanned with secretlint's preset.
 */

const SECRETS = fakeSecrets();
/** A credential of a kind only the configuration knows: `redaction.patterns` must reach everywhere too. */
const ACME = `ACME-${'Q7ZK2M9XW4RT8VN3PL6H'}`;
const CONFIGURED: FakeSecret = { name: 'a credential only a configured pattern knows', kind: 'acme_key', value: ACME, text: `ticket ${ACME} opened` };
const CONFIG = { redaction: { patterns: [{ name: 'acme_key', pattern: 'ACME-[A-Z0-9]{20}' }] } };
const ALL = [...SECRETS, CONFIGURED];

const byName = (name: string): FakeSecret => SECRETS.find((s) => s.name === name) as FakeSecret;
const block = (secrets: readonly FakeSecret[]): string => secrets.map((s) => s.text).join('\n');
const line = (o: unknown): string => `${JSON.stringify(o)}\n`;

function claudeWithSecrets(cwd: string, sessionId: string): string {
  const base = { isSidechain: false, userType: 'external', cwd, sessionId, version: '2.0.55' };
  const assistant = (id: string, content: unknown[]): Record<string, unknown> => ({ ...base, type: 'assistant', message: { id, role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, usage: { input_tokens: 5, output_tokens: 5 } } });
  const all = block(ALL);
  return [
    line({ ...base, type: 'user', message: { role: 'user', content: `Deploy the billing service. ${ALL.map((s) => `Use ${s.text} for it`).join('; ')}.` } }),
    line(assistant('m1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: `cat > .env <<'EOF'\n${all}\nEOF\n./deploy.sh`, description: 'write the env file' } }])),
    line({ ...base, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: JSON.stringify({ stdout: all, exit: 0 }), is_error: false }] }, toolUseResult: { stdout: all, stderr: '', interrupted: false } }),
    line(assistant('m2', [{ type: 'tool_use', id: 't2', name: 'Write', input: { file_path: `${cwd}/config/prod.env`, content: `# production\n${all}\n` } }])),
    line(assistant('m3', [{ type: 'tool_use', id: 't3', name: 'TodoWrite', input: { todos: [{ content: `Rotate ${byName('a GitHub classic token').text}`, status: 'in_progress', activeForm: 'Rotating' }] } }])),
    line(assistant('m4', [{ type: 'text', text: `Deployed. For the record, I used:\n${all}` }])),
  ].join('');
}

function codexWithSecrets(cwd: string, id: string): string {
  const ev = (type: string, payload: Record<string, unknown>): string => line({ timestamp: '2026-04-02T10:00:00.000Z', type, payload });
  const all = block(ALL);
  const prompt = `Deploy the billing service. ${ALL.map((s) => `Use ${s.text} for it`).join('; ')}.`;
  const script = `cat > .env <<'EOF'\n${all}\nEOF\n./deploy.sh`;
  return [
    ev('session_meta', { id, cwd, cli_version: '0.104.0' }),
    // Some Codex versions write the UI mirror before the response item.
    ev('event_msg', { type: 'user_message', message: prompt, images: [] }),
    ev('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] }),
    ev('turn_context', { cwd, model: 'gpt-5.3-codex' }),
    ev('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: script }), call_id: 'c1' }),
    ev('response_item', { type: 'function_call_output', call_id: 'c1', output: `Process exited with code 0\nOutput:\n${all}` }),
    ev('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', script] }), call_id: 'c2' }),
    ev('response_item', { type: 'function_call_output', call_id: 'c2', output: JSON.stringify({ output: all, metadata: { exit_code: 0 } }) }),
    ev('event_msg', { type: 'exec_command_end', call_id: 'c2', command: ['bash', '-lc', script], exit_code: 0, aggregated_output: all }),
    ev('response_item', { type: 'custom_tool_call', call_id: 'c3', name: 'apply_patch', input: `*** Begin Patch\n*** Add File: config/prod.env\n${all.split('\n').map((l) => `+${l}`).join('\n')}\n*** End Patch` }),
    ev('response_item', { type: 'function_call', name: 'update_plan', arguments: JSON.stringify({ plan: [{ step: `Rotate ${byName('a GitHub classic token').text}`, status: 'in_progress' }] }), call_id: 'c4' }),
    ev('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Deployed. For the record, I used:\n${all}` }] }),
    ev('event_msg', { type: 'agent_message', message: `Deployed. For the record, I used:\n${all}` }),
  ].join('');
}

/** Where to cut a transcript in two appends: in the middle of a credential, in its last line. */
function cutInside(text: string, secret: FakeSecret): number {
  const at = text.lastIndexOf(secret.value.slice(0, 20));
  expect(at).toBeGreaterThan(0);
  return at + 10;
}


/**
 * Leaks in every file of a store: its contents and its name. With `transcriptPaths`, the one
 * place the store keeps a transcript's own path (the manifest's source record, INDEX.json's
 * `source`, which it reads the file by) is left out: docs/SECURITY.md says why.
 */
async function leaksIn(root: string, secrets: readonly FakeSecret[] = ALL, opts: { transcriptPaths?: boolean } = {}): Promise<string[]> {
  const leaks: string[] = [];
  for (const f of await everyFile(root)) {
    const rel = f.slice(root.length);
    let text = await readStoredText(f);
    if (opts.transcriptPaths && rel.endsWith('/manifest.json')) {
      const { sources: _s, source_paths: _p, manifest_sha256: _h, ...rest } = JSON.parse(text) as Record<string, unknown>;
      text = JSON.stringify(rest);
    } else if (opts.transcriptPaths && rel === '/INDEX.json') {
      text = JSON.stringify((JSON.parse(text) as Record<string, unknown>[]).map(({ source: _s, ...rest }) => rest));
    }
    leaks.push(...leaksOf(text, secrets, rel), ...leaksOf(rel, secrets, `the path ${rel}`));
  }
  return leaks;
}

async function withConfig(env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const dir = join(env.XDG_CONFIG_HOME as string, 'handoff');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'handoff.config.json'), JSON.stringify(CONFIG));
  return env;
}

describe.each([
  ['Claude Code', 'claude', (cwd: string) => claudeWithSecrets(cwd, 'c1a0de00-0000-4000-8000-000000000001')],
  ['Codex', 'codex', (cwd: string) => codexWithSecrets(cwd, '019d0000-0000-7000-8000-00000000c0de')],
])('a %s transcript full of credentials, built from the command line', (_name, harness, write) => {
  it('leaves no credential, whole or in part, in the store, in show or export, or in what the commands print', async () => {
    const root = tempDir('handoff-store-');
    const env = await withConfig(testEnv({ HANDOFFS_ROOT: root }));
    const cwd = join(tempDir('handoff-cwd-'), 'billing');
    const text = write(cwd);
    const cut = cutInside(text, byName('an Anthropic key'));
    const src = writeTranscript(`${harness}-secrets.jsonl`, text.slice(0, cut));
    const printed: string[] = [];
    const cli = async (args: string[], want = 0): Promise<string> => {
      const r = await runCli(args, { env });
      printed.push(r.out, r.err);
      expect(r.code, r.err).toBe(want);
      return r.out;
    };
    await cli(['build', src, '--json']);
    await appendFile(src, text.slice(cut));
    const objective = byName('a GitHub fine-grained token');
    const dir = (JSON.parse(await cli(['build', src, '--json', '--objective', `Ship it with ${objective.text}`])) as { dir: string }).dir;
    const id = `${harness}-secrets`;
    await cli(['checkpoint', id, '--note', `rotated ${byName('a Stripe live key').value} and ${ACME}`]);
    await cli(['retitle', id, `deploy with ${byName('an npm token').value}`]);
    await cli(['rename', id, `billing ${byName('a Hugging Face token').value}`]);
    await cli(['finalize', id]);
    printed.push(await cli(['show', id]), await cli(['show', id, '--json']), await cli(['export', id]));
    // Errors quote what they were given: a credential typed where an id belongs.
    const wrong = await runCli(['show', byName('a Vault token').value], { env });
    expect(wrong.code).not.toBe(0);
    expect(wrong.err).toMatch(/REDACTED:vault_token/);
    printed.push(wrong.out, wrong.err);

    expect(await leaksIn(root)).toEqual([]);
    expect(leaksOf(printed.join('\n'), ALL, 'the terminal')).toEqual([]);
    expect(printed.join('\n')).toMatch(/credential\(s\) in --objective were redacted before writing/);
    expect(await secretlintFindings(await everyFile(root))).toEqual([]);

    const moved = (await readJson<{ id: string; dir: string }[]>(join(root, 'INDEX.json'))).find((s) => s.id === id);
    expect(moved?.dir).toMatch(/\/projects\/billing-redacted-huggingface_token\/deploy-with-redacted-npm_token$/);
    // A long text keeps only its head and tail in the timeline (docs/FORMAT.md): the markers are
    // looked for in every file the session holds.
    const held = (await Promise.all((await everyFile(moved?.dir ?? dir)).map((f) => readStoredText(f)))).join('\n');
    const missing = [...new Set(ALL.map((s) => s.kind))].filter((kind) => !held.includes(`[REDACTED:${kind}]`));
    expect(missing).toEqual([]);
    const m = await readJson<Manifest>(join(moved?.dir ?? dir, 'manifest.json'));
    expect(m.redactions).toBeGreaterThanOrEqual(ALL.length * 4);
    // The quality gate's second, independent scan agrees: nothing left to find.
    expect(m.quality.failed).not.toContain('no_secrets');
    expect((await runCli(['verify', id], { env })).code).toBe(0);
  });
});

describe('the daemon with credentials in its transcripts and its requests', () => {
  it('says nothing of them over the socket, in a subscribe stream, in its log or its store, even for a corrupt line', async () => {
    const root = tempDir('handoff-store-');
    const watch = tempDir('handoff-watch-');
    const env = await withConfig(testEnv({ HANDOFFS_ROOT: root }));
    const d = await startDaemon(env, root, ['--watch', watch]);
    try {
      const heard: string[] = [];
      const sub = await ControlClient.connect(d.socket);
      sub.onNotification((event, params) => heard.push(`${event} ${JSON.stringify(params)}`));
      await sub.call('subscribe', {});
      const cwd = join(tempDir('handoff-cwd-'), 'billing');
      const files: [string, string, FakeSecret][] = [
        ['claude-secrets.jsonl', claudeWithSecrets(cwd, 'c1a0de00-0000-4000-8000-000000000002'), byName('a PEM private key')],
        ['codex-secrets.jsonl', codexWithSecrets(cwd, '019d0000-0000-7000-8000-00000000beef'), byName('a JWT')],
      ];
      // Each transcript arrives in two appends, the first ending inside a credential.
      for (const [name, text, secret] of files) await writeFile(join(watch, name), text.slice(0, cutInside(text, secret)));
      await d.call('flush', { timeout_ms: 20_000 }, 25_000);
      for (const [name, text, secret] of files) await appendFile(join(watch, name), text.slice(cutInside(text, secret)));
      // A transcript named after a credential: its path reaches the log and the socket's answers.
      const named = byName('a GitLab token');
      await writeFile(join(watch, `deploy-${named.value}.jsonl`), [line({ role: 'user', content: 'Ship the release notes for version 2.4 today, please' }), line({ role: 'assistant', content: 'Done.' })].join(''));
      // A line that is not JSON, made of a credential: the parser's complaint would quote it.
      const token = byName('a GitHub classic token');
      await writeFile(join(watch, 'corrupt.jsonl'), `${line({ role: 'user', content: 'a first request that is long enough' })}${token.value} {"role":"user"}\n`);
      await d.call('flush', { timeout_ms: 20_000 }, 25_000);
      await waitFor(async () => (await d.call('status')).sessions.some((s) => s.state === 'halted'), 'the corrupt session to halt');
      await waitFor(() => heard.some((h) => h.startsWith('halted ')) && heard.filter((h) => h.startsWith('built ')).length >= 3, 'built and halted notifications');

      // Requests that carry credentials, through the daemon's queue.
      const printed: string[] = [];
      const cli = async (args: string[]): Promise<void> => {
        const r = await runCli(args, { env });
        printed.push(r.out, r.err);
        expect(r.code, r.err).toBe(0);
      };
      await cli(['checkpoint', 'claude-secrets', '--note', `rotated ${byName('DB_PASS=').text}`]);
      await cli(['retitle', 'codex-secrets', `fix ${byName('a Vault token').value}`]);
      await cli(['build', join(watch, 'claude-secrets.jsonl'), '--objective', `Deploy with ${byName('a Twilio API key').text}`]);
      await waitFor(() => heard.some((h) => h.startsWith('built ') && h.includes('fix-redacted-vault_token')), 'the retitle notification');
      // show and export read the store, whose INDEX.json the daemon rewrites at most once a second.
      await waitFor(async () => (await readJson<{ dir: string }[]>(join(root, 'INDEX.json'))).some((e) => e.dir.endsWith('/fix-redacted-vault_token')), 'INDEX.json to name the retitled folder');
      const answers: unknown[] = [await d.call('status'), await d.call('sessions.list', {}), await d.call('verify', { all: true })];
      for (const id of ['claude-secrets', 'codex-secrets']) answers.push(await d.call('session.get', { id }));
      for (const id of ['claude-secrets', 'codex-secrets']) for (const args of [['show', id], ['export', id]]) await cli(args);
      sub.close();

      expect(leaksOf(answers.map((a) => JSON.stringify(a)).join('\n'), ALL, 'a socket answer')).toEqual([]);
      expect(leaksOf(heard.join('\n'), ALL, 'the subscribe stream')).toEqual([]);
      expect(leaksOf(d.log(), ALL, 'the log')).toEqual([]);
      expect(leaksOf(printed.join('\n'), ALL, 'the terminal')).toEqual([]);
      expect(d.log()).toMatch(/corrupt\.jsonl:2: line 2 \(byte offset \d+\) is not valid JSON: unexpected character/);
      expect(await leaksIn(root, ALL, { transcriptPaths: true })).toEqual([]);
      expect(await secretlintFindings(await everyFile(root))).toEqual([]);
    } finally {
      await d.kill('SIGKILL');
    }
  });
});

describe('credentials in the names a store is built from', () => {
  it('keeps them out of session ids, folder names, titles and every render; the manifest keeps the transcript path as it is', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const folderToken = byName('a GitLab token');
    const fileToken = byName('a GitHub classic token');
    const names = [folderToken, fileToken];
    const folder = join(tempDir('handoff-src-'), `team-${folderToken.value}`);
    await mkdir(folder);
    const src = join(folder, `deploy-${fileToken.value}.jsonl`);
    // An unfinished last line: the build's warning about it names the transcript.
    await writeFile(src, [line({ role: 'user', content: 'Ship the release notes for version 2.4 today, please' }), line({ role: 'assistant', content: 'Done: the notes are in docs/RELEASE.md.' }), '{"role":"user","content":"and the'].join(''));
    const b = await runCli(['build', src, '--json'], { env });
    expect(b.code, b.err).toBe(0);
    const out = JSON.parse(b.out) as { session: string; project: string; dir: string };
    expect(out.session).toMatch(/^deploy-\[REDACTED:github_token\]-[0-9a-f]{8}$/);
    expect(out.project).toBe('team-redacted-gitlab_token');
    expect(b.err).toMatch(/has no newline yet/);
    expect(leaksOf(b.out + b.err, names, 'the terminal')).toEqual([]);
    // The commands that print a session's paths print them redacted.
    for (const args of [['list'], ['verify', out.session, '--source'], ['show', out.session, '--path'], ['status']]) {
      const r = await runCli(args, { env });
      expect(leaksOf(r.out + r.err, names, `handoff ${args.join(' ')}`)).toEqual([]);
    }
    expect(await leaksIn(root, names, { transcriptPaths: true })).toEqual([]);
    // Without that exception the search does find the path: the test can see a leak.
    expect(await leaksIn(root, names)).not.toEqual([]);
  });
});

describe('credentials where only names and ids are expected', () => {
  it('redacts record types, tool names and ids and timestamps copied from the line', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    // Credentials that identify themselves (a prefix such as ghp_ or AKIA); the others are only
    // secrets next to their label (`password=`), which a name or an id never carries.
    const redactor = new Redactor();
    const tokens = SECRETS.filter((s) => s.text === s.value && !/\s/.test(s.value) && redactor.redact(s.value).count > 0);
    expect(tokens.length).toBeGreaterThan(20);
    const base = { isSidechain: false, cwd: join(tempDir('handoff-cwd-'), 'billing'), sessionId: 'c1a0de00-0000-4000-8000-0000000000aa', version: '2.0.55' };
    const text = [
      line({ ...base, type: 'user', timestamp: '2026-04-02T10:00:00.000Z', message: { role: 'user', content: 'Ship the release notes for version 2.4 today' } }),
      ...tokens.map((t, i) => line({ ...base, type: 'assistant', timestamp: t.value, message: { id: `m${i}`, role: 'assistant', content: [{ type: 'tool_use', id: t.value, name: t.value, input: { command: 'ls' } }] } })),
      ...tokens.map((t) => line({ ...base, type: t.value, content: 'a record of a type no reader knows' })),
    ].join('');
    const src = writeTranscript('names-secrets.jsonl', text);
    const b = await runCli(['build', src, '--json'], { env });
    expect(b.code, b.err).toBe(0);
    expect(await leaksIn(root, tokens)).toEqual([]);
    const m = await readJson<Manifest>(join((JSON.parse(b.out) as { dir: string }).dir, 'manifest.json'));
    expect(m.unknown_types).toEqual({ '(other)': tokens.length });
  });
});

describe('a Codex session built between its UI mirror and the response item', () => {
  it('keeps no credential in the reader state it persists, and still drops the twin', async () => {
    const root = tempDir('handoff-store-');
    const env = await withConfig(testEnv({ HANDOFFS_ROOT: root }));
    const lines = codexWithSecrets(join(tempDir('handoff-cwd-'), 'billing'), '019d0000-0000-7000-8000-00000000c0df').split('\n');
    const src = writeTranscript('mirror-secrets.jsonl', `${lines.slice(0, 2).join('\n')}\n`);
    expect((await runCli(['build', src], { env })).code).toBe(0);
    expect(await leaksIn(root)).toEqual([]);
    await appendFile(src, lines.slice(2).join('\n'));
    const b = await runCli(['build', src, '--json'], { env });
    expect(b.code, b.err).toBe(0);
    const timeline = (await readFile(join((JSON.parse(b.out) as { dir: string }).dir, 'timeline.jsonl'), 'utf8')).split('\n').filter((l) => l.length > 0);
    const prompts = timeline.map((l) => JSON.parse(l) as { class: string; text: string }).filter((t) => t.class === 'USER' && t.text.startsWith('Deploy the billing service.'));
    expect(prompts).toHaveLength(1);
    expect(await leaksIn(root)).toEqual([]);
  });
});

describe('a credential written as a redaction pattern', () => {
  it('is removed from what `handoff config --json` prints', async () => {
    const work = tempDir('handoff-work-');
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    await writeFile(join(work, 'handoff.config.json'), JSON.stringify({ redaction: { patterns: ['hunter2-Zx9qLm2Wp7', { name: 'acme', pattern: 'acme_[a-z0-9]{32}' }] } }));
    const r = await runCli(['config', '--json'], { env, cwd: work });
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toContain('hunter2-Zx9qLm2Wp7');
    // A pattern that is no literal secret is shown as written.
    expect(JSON.parse(r.out).options.redaction.patterns[1]).toEqual({ name: 'acme', pattern: 'acme_[a-z0-9]{32}' });
  });
});
