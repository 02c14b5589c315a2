import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, runCli, tempDir, testEnv } from '../helpers.js';
import { claudeTranscript, writeTranscript } from '../transcripts.js';

/** Sections of HANDOFF.md (SPEC §6) whose rules are not covered by the build and evidence tests. */

interface NextAction {
  text: string;
  source: string;
  label: string;
  seq: number | null;
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
    expect(md).toContain('| 3 | TOOL | Bash: npm test |');
    expect(md).toContain('| 4 | TOOL | [Bash] Tests: 12 passed |');
    expect(md).not.toContain('[Bash] Bash:');
  });
});

describe('Next Action (SPEC §6: exactly one: the in-progress todo, else the last unanswered request, else unknown)', () => {
  it('is the in-progress todo, reported, with the seq of the list that says so', async () => {
    const id = '7a1d0c36-0000-4000-8000-00000000000a';
    const { next, section } = await build(claudeTranscript({ sessionId: id, cwd: tempDir(), request: 'Make the JSON parser accept trailing commas in arrays' }), id);
    expect(next).toEqual({ text: 'Continue the in-progress task: Make the parser accept trailing commas', source: 'in_progress_todo', label: 'reported', seq: 1 });
    expect(section).toContain('*reported* — in progress todo (seq 1)');
  });

  it('falls back to the last user request no reply follows, inferred', async () => {
    const id = '7a1d0c36-0000-4000-8000-00000000000b';
    const text = claudeTranscript({ sessionId: id, cwd: tempDir(), request: 'Make the JSON parser accept trailing commas in arrays', todos: done }) + laterRequest(id, 'Now also accept trailing commas in objects, please');
    const { next, section } = await build(text, id);
    expect(next).toMatchObject({ source: 'unanswered_user_request', label: 'inferred', seq: 6 });
    expect(next.text).toBe("Answer the user's last request (no reply recorded yet): Now also accept trailing commas in objects, please");
    expect(section).toContain('*inferred* — unanswered user request (seq 6)');
  });

  it('says unknown, and why, when neither exists; never invents one', async () => {
    const id = '7a1d0c36-0000-4000-8000-00000000000c';
    const { next, section } = await build(claudeTranscript({ sessionId: id, cwd: tempDir(), request: 'Make the JSON parser accept trailing commas in arrays', todos: done }), id);
    expect(next).toMatchObject({ source: 'unknown', label: 'unknown', seq: null });
    expect(next.text).toMatch(/^unknown — the transcript records no in-progress task and no unanswered request/);
    expect(section).toContain('*unknown* — nothing in the transcript decides it');
    // Exactly one action: one paragraph of text and its label line.
    expect(section.trim().split(/\n\n+/)).toHaveLength(3);
  });
});
