import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/redact.js';
import { renderAll } from '../../src/core/render/index.js';
import { ingestText, jsonl } from './ingest-helper.js';
import { transcriptFile } from './ledger-helper.js';
import { renderInput } from './render-input.js';

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
function kept(...records: Record<string, unknown>[]): string {
  const { state, turns } = ingestText(jsonl(...records));
  const r = renderAll(renderInput(transcriptFile(...records)));
  return [turns.map((t) => t.text).join('\n'), JSON.stringify(state), r.handoffMd, r.summaryJson.toString('utf8'), r.llmJson.toString('utf8')].join('\n');
}

const asked = (question: string, answers: string[], options: string[] = ['Read it from 1Password']) => [
  meta,
  event({ type: 'user_message', message: 'Connect the API to the staging database' }),
  item({ type: 'function_call', name: 'request_user_input', call_id: 'q1', arguments: JSON.stringify({ questions: [{ id: 'db', header: 'Database', question, options: options.map((label) => ({ label, description: '' })) }] }) }),
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
