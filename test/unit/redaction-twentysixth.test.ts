import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/redact.js';
import { ingestText, jsonl } from './ingest-helper.js';
import { kept } from './kept-helper.js';

/**
 * Two leaks the twenty-fourth red team left (docs/SECURITY.md), closed on 2026-12-05: a password
 * typed as the answer to a Codex `request_user_input` question that names it (the question is on
 * the call's line, the answer alone on the output's), and a token Codex's own "…N tokens
 * truncated…" marker cuts in two. Every value below is made up.
 */

const PASSWORD = 'Qc9oEhWN3IqJPZpjgQxg';
const GH = 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';

const meta = { timestamp: '2026-05-02T10:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.125.0', originator: 'codex_cli_rs' } };
const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-05-02T10:00:10Z', type: 'event_msg', payload });
const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-05-02T10:00:10Z', type: 'response_item', payload });

/** Everything a build keeps of the records: the timeline's texts, the state, HANDOFF.md and both payloads. */
const asked = (question: string, answers: string[], options: string[] = ['Read it from 1Password'], extra: Record<string, unknown> = {}) => [
  meta,
  event({ type: 'user_message', message: 'Connect the API to the staging database' }),
  item({ type: 'function_call', name: 'request_user_input', call_id: 'q1', arguments: JSON.stringify({ questions: [{ id: 'db', header: 'Database', question, ...extra, options: options.map((label) => ({ label, description: '' })) }] }) }),
  item({ type: 'function_call_output', call_id: 'q1', output: JSON.stringify({ answers: { db: { answers } } }) }),
  item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Thanks, connecting now.' }], phase: 'commentary' }),
];

describe("a Codex request_user_input answer to a question that asks for a secret", () => {
  it('is masked in the timeline, the state, the handoff and both payloads', () => {
    const all = kept(...asked('What is the staging DB password?', [PASSWORD]));
    expect(all).not.toContain(PASSWORD);
    expect(all).toContain('answer: db: [REDACTED:typed_password]');
  });

  it('and in a note the user typed', () => {
    const all = kept(...asked('Which API token should the worker use?', [`user_note: use ${PASSWORD}`]));
    expect(all).not.toContain(PASSWORD);
  });

  it("is kept when it is one of the question's options, or the question asks for no secret", () => {
    expect(kept(...asked('What is the staging DB password?', ['Read it from 1Password']))).toContain('answer: db: Read it from 1Password');
    expect(kept(...asked('Which database should the API use?', ['staging-eu'], ['staging-us']))).toContain('answer: db: staging-eu');
  });
});

describe('the twenty-sixth red team, on the rules above', () => {
  it('masks the answers to questions worded otherwise, or flagged secret by Codex, and every one of a long call', () => {
    for (const q of ["What's the DB pass for staging?", 'Paste the key for staging', 'What value should I put in OPENAI_API_KEY?', 'Wie lautet das Passwort?', 'What login should I use (user:pass)?', 'Enter the MFA code from your app', 'And the key for the Stripe test account?']) {
      expect(kept(...asked(q, [PASSWORD], ['Skip'])), q).not.toContain(PASSWORD);
    }
    expect(kept(...asked('What should I use for the staging admin login?', [PASSWORD], ['Skip'], { isSecret: true }))).not.toContain(PASSWORD);
    const many = Array.from({ length: 9 }, (_, i) => ({ id: `h${i}`, header: 'Hosts', question: `What is the root password of host ${i}?`, options: [{ label: 'Skip', description: '' }] }));
    const all = kept(
      meta,
      event({ type: 'user_message', message: 'Set up the hosts' }),
      item({ type: 'function_call', name: 'request_user_input', call_id: 'q1', arguments: JSON.stringify({ questions: many }) }),
      item({ type: 'function_call_output', call_id: 'q1', output: JSON.stringify({ answers: Object.fromEntries(many.map((q, i) => [q.id, { answers: [`${PASSWORD}${i}`] }])) }) }),
    );
    expect(all).not.toContain(PASSWORD);
  });

  it('keeps the answers to questions about a secret that ask for none, and options typed again', () => {
    expect(kept(...asked('Which token budget should each call get?', ['8k tokens per call'], ['4k']))).toContain('8k tokens per call');
    expect(kept(...asked('Should I pin the versions?', ['Pin only Django'], ['Yes']))).toContain('Pin only Django');
    expect(kept(...asked('Should login support OTP?', ['Authenticator app only'], ['Yes']))).toContain('Authenticator app only');
    expect(kept(...asked('Where should secrets load from?', ['AWS Secrets Manager'], ['Env']))).toContain('AWS Secrets Manager');
    expect(kept(...asked('What is the staging DB password?', ['read it from 1password.'], ['Read it from 1Password']))).toContain('read it from 1password.');
  });

  it('masks a typed answer again wherever a later line repeats it', () => {
    const all = kept(
      ...asked('What is the staging DB password?', [PASSWORD]),
      item({ type: 'function_call', name: 'exec_command', call_id: 'c1', arguments: JSON.stringify({ cmd: `psql -h db.staging -U app <<< ${PASSWORD}` }) }),
      item({ type: 'function_call_output', call_id: 'c1', output: `Process exited with code 0\nOutput:\nconnected with ${PASSWORD}\n` }),
    );
    expect(all).not.toContain(PASSWORD);
    const { state } = ingestText(jsonl(...asked('What is the staging DB password?', [PASSWORD])));
    expect(state.typed).toEqual([expect.stringMatching(/^20:[0-9a-f]{5}$/)]);
    expect(JSON.stringify(state)).not.toContain(PASSWORD);
  });

  it("masks Claude Code's AskUserQuestion answer of one word to a question that asks for a secret, not a chosen phrase", () => {
    const claude = (answer: string) => {
      const base = { sessionId: 's', cwd: '/w', timestamp: '2026-07-10T16:02:53Z' };
      return kept(
        { ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'Deploy staging' } },
        { ...base, type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'AskUserQuestion', input: { questions: [{ question: 'Paste the key for staging', header: 'Staging', options: [{ label: 'Generate one', description: '' }], multiSelect: false }] } }] } },
        { ...base, type: 'user', uuid: 'r1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: `User has answered your questions: "Paste the key for staging"="${answer}". You can now continue with the user's answers in mind.` }] } },
      );
    };
    expect(claude(PASSWORD)).not.toContain(PASSWORD);
    expect(claude('Generate one')).toContain('"Paste the key for staging"="Generate one"');
  });

  it('removes a cut token written with three dots or counted in characters, and its rest on the next line', () => {
    const r = new Redactor();
    for (const text of [`${GH.slice(0, 34)}...2307 tokens truncated...${GH.slice(-6)} done`, `${GH.slice(0, 30)}…120 chars truncated…${GH.slice(-10)} done`, `${GH.slice(0, 30)}…12 tokens truncated…\n${GH.slice(-10)}\nnext`]) {
      const out = r.redact(text).text;
      expect(out, text).not.toContain(GH.slice(4, 16));
      expect(out, text).not.toContain(GH.slice(-6));
    }
  });

  it('keeps words a marker cuts after a short or common prefix', () => {
    const r = new Redactor();
    for (const text of ['api-gateway-v2…12 tokens truncated…-prod-eu-west-1', 'pnpm_store_v3…12 tokens truncated…/cache', 'npm_config_cache…40 tokens truncated…/home', 'sdk-android-34.0…9 tokens truncated…done']) expect(r.redact(text).text).toBe(text);
  });
});

describe("a token Codex's truncation marker cuts in two", () => {
  const r = new Redactor();
  const cut = `${GH.slice(0, 34)}…2307 tokens truncated…${GH.slice(-6)}`;

  it('is removed on both sides of the marker, bare and inside JSON', () => {
    for (const text of [`export GH=${cut} done`, JSON.stringify({ output: `token ${cut}\n` })]) {
      const out = r.redact(text).text;
      expect(out).not.toContain(GH.slice(0, 12));
      expect(out).not.toContain(GH.slice(-6));
      expect(out).toContain('…2307 tokens truncated…');
    }
  });

  it('and through a tool output of a Codex session to the store', () => {
    const all = kept(
      meta,
      event({ type: 'user_message', message: 'Check the release job' }),
      item({ type: 'function_call', name: 'exec_command', call_id: 'c1', arguments: JSON.stringify({ cmd: 'cat .ci/env.log' }) }),
      item({ type: 'function_call_output', call_id: 'c1', output: `Process exited with code 0\nOutput:\nrelease v1.2.0 ${cut}\nok\n` }),
    );
    expect(all).not.toContain(GH.slice(0, 12));
  });

  it('leaves words the marker cuts alone, and a prefix with no digit after it', () => {
    for (const text of ['as ambiguous by…2307 tokens truncated…oceed without', 'pip install sk-learnmore-plugin…12 tokens truncated…abc']) expect(r.redact(text).text).toBe(text);
  });
});
