import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, runCli, tempDir, testEnv } from '../helpers.js';
import { claudeTranscript, writeTranscript } from '../transcripts.js';

/** Sections of HANDOFF.md (SPEC §6) whose rules are not covered by the build and evidence tests. */

interface NextAction {
  text: string;
  rule: string;
  label: string;
  line: number | null;
}

async function build(text: string, id: string): Promise<{ next: NextAction; section: string; md: string }> {
  const env = testEnv();
  const src = writeTranscript(`${id}.jsonl`, text);
  const r = await runCli(['build', src, '--json'], { env });
  expect(r.code, r.err).toBe(0);
  const dir = (JSON.parse(r.out) as { dir: string }).dir;
  const llm = await readJson<{ next_action: NextAction }>(join(dir, 'HANDOFF.llm.json'));
  const md = await readFile(join(dir, 'HANDOFF.md'), 'utf8');
  const section = md.slice(md.indexOf('## Next Action\n'), md.indexOf('\n## ', md.indexOf('## Next Action\n') + 1));
  return { next: llm.next_action, section, md };
}

const done = [
  { content: 'Write the failing test', status: 'completed' as const },
  { content: 'Make the parser accept trailing commas', status: 'completed' as const },
];

/** A user line after the agent's last reply: a request nobody answered yet. */
function laterRequest(sessionId: string, text: string): string {
  return `${JSON.stringify({ type: 'user', isSidechain: false, userType: 'external', cwd: tempDir(), sessionId, version: '2.0.55', uuid: 'u9', timestamp: '2026-03-01T09:01:00.000Z', message: { role: 'user', content: text } })}\n`;
}

describe('Recent timeline', () => {
  it('names a tool once: a call reads "Bash: npm test", its result is prefixed with the tool', async () => {
    const id = '7a1d0c36-0000-4000-8000-00000000000d';
    const { md } = await build(claudeTranscript({ sessionId: id, cwd: tempDir(), request: 'Make the JSON parser accept trailing commas in arrays' }), id);
    // The timeline cites the transcript's own 1-based lines.
    expect(md).toContain('| 4 | TOOL | Bash: npm test |');
    expect(md).toContain('| 5 | TOOL | [Bash] Tests: 12 passed |');
    expect(md).not.toContain('[Bash] Bash:');
  });
});

describe('Next Action (SPEC §6: exactly one, never unknown while a rule applies; names its rule and line)', () => {
  it('continues the plan step of a plan written after the last request, reported, citing the plan line', async () => {
    const id = '7a1d0c36-0000-4000-8000-00000000000a';
    const { next, section } = await build(claudeTranscript({ sessionId: id, cwd: tempDir(), request: 'Make the JSON parser accept trailing commas in arrays' }), id);
    expect(next).toEqual({ text: 'Continue the plan step: Make the parser accept trailing commas', rule: 'plan_step', label: 'reported', line: 2 });
    expect(section).toContain('*reported* — rule: plan step (line 2)');
  });

  it('answers the last request when the transcript ends on it, inferred, citing the request', async () => {
    const id = '7a1d0c36-0000-4000-8000-00000000000b';
    const text = claudeTranscript({ sessionId: id, cwd: tempDir(), request: 'Make the JSON parser accept trailing commas in arrays', todos: done }) + laterRequest(id, 'Now also accept trailing commas in objects, please');
    const { next, section } = await build(text, id);
    expect(next).toMatchObject({ rule: 'unfinished_request', label: 'inferred', line: 7 });
    expect(next.text).toBe("Answer the user's last request: the transcript ends on it, before any reply of the agent (line 7: «Now also accept trailing commas in objects, please»)");
    expect(section).toContain('*inferred* — rule: unfinished request (line 7)');
  });

  it('says nothing is pending when the last request was answered, citing it; never invents work', async () => {
    const id = '7a1d0c36-0000-4000-8000-00000000000c';
    const { next, section } = await build(claudeTranscript({ sessionId: id, cwd: tempDir(), request: 'Make the JSON parser accept trailing commas in arrays', todos: done, reply: 'Both are done.' }), id);
    expect(next).toMatchObject({ rule: 'nothing_pending', label: 'inferred', line: 6 });
    expect(next.text).toContain('line 1: «Make the JSON parser accept trailing commas in arrays»');
    // Exactly one action: one paragraph of text and its label line.
    expect(section.trim().split(/\n\n+/)).toHaveLength(3);
  });

  it('says unknown, and why, when the transcript holds no request at all', async () => {
    const id = '7a1d0c36-0000-4000-8000-00000000000e';
    const only = `${JSON.stringify({ type: 'assistant', isSidechain: false, sessionId: id, cwd: tempDir(), uuid: 'a1', timestamp: '2026-03-01T09:00:00.000Z', message: { id: 'm1', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: 'Hello.' }] } })}\n`;
    const { next, section } = await build(only, id);
    expect(next).toMatchObject({ rule: 'unknown', label: 'unknown', line: null });
    expect(next.text).toMatch(/^unknown — the transcript holds no user request/);
    expect(section).toContain('*unknown* — nothing in the transcript decides it');
  });
});
