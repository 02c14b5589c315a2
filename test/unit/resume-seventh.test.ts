import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { LIMITS } from '../../src/core/state.js';
import { validator } from '../../src/store/schemas.js';
import { rendered } from './ledger-helper.js';

/**
 * Rules from the seventh reading (docs/FIDELITY.md): what HANDOFF.md said and the summary did not
 * (API errors and interruptions), and the plan the user approved.
 */

const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
const user = (uuid: string, content: unknown): Record<string, unknown> => ({ ...base, type: 'user', uuid, message: { role: 'user', content } });
const agent = (uuid: string, content: unknown[]): Record<string, unknown> => ({ ...base, type: 'assistant', uuid, message: { role: 'assistant', content } });
const planCall = (id: string, plan: string): Record<string, unknown> => agent(`a-${id}`, [{ type: 'tool_use', id, name: 'ExitPlanMode', input: { plan } }]);
const planResult = (id: string, text: string, isError = false): Record<string, unknown> => user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content: text, ...(isError ? { is_error: true } : {}) }]);
const APPROVED = (saved: string): string => `User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\nYour plan has been saved to: ${saved}\nYou can refer back to it if needed during implementation.\n\n## Approved Plan:\n# Plan`;
const REJECTED = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

interface Payload {
  plan: { line: number; text: string; chars?: number; approved: boolean | null; result_line: number | null; answer: string | null; saved_to: string | null; approved_before?: { line: number } | null } | null;
  incidents: { kind: string; line: number; text: string; label: string }[];
}

function built(...records: Record<string, unknown>[]): { md: string; summary: Payload; llm: Payload } {
  const r = rendered(...records);
  const summary = JSON.parse(r.summaryJson.toString('utf8')) as Payload;
  const llm = JSON.parse(r.llmJson.toString('utf8')) as Payload;
  expect(validator('handoff.summary')(summary)).toBe(true);
  expect(validator('handoff.llm')(llm)).toBe(true);
  return { md: r.handoffMd, summary, llm };
}

const PLAN = '# Plan: Add tar support\n\n## Steps\n\n1. Detect `.tar` and `.tgz`\n2. Extract members\n3. Run `pytest`';

describe('an interruption or API error the agent has not answered', () => {
  it('is in the summary (incidents, by transcript line) as HANDOFF.md lists it among the open failures', () => {
    const { md, summary, llm } = built(user('u1', 'Fix the flaky test'), { ...base, type: 'assistant', uuid: 'e1', isApiErrorMessage: true, message: { role: 'assistant', content: [{ type: 'text', text: 'API Error: Rate limit exceeded' }] } });
    expect(md).toContain('- *verified* API error (line 2): API Error: Rate limit exceeded');
    expect(summary.incidents).toEqual([{ kind: 'api_error', line: 2, text: 'API Error: Rate limit exceeded', label: 'verified' }]);
    expect(llm.incidents).toEqual(summary.incidents);
  });

  it('is not there once the agent has answered since', () => {
    const { summary } = built(
      user('u1', 'Fix the flaky test'),
      { ...base, type: 'assistant', uuid: 'e1', isApiErrorMessage: true, message: { role: 'assistant', content: [{ type: 'text', text: 'API Error: Rate limit exceeded' }] } },
      agent('a2', [{ type: 'text', text: 'Retrying: the test is fixed now.' }]),
    );
    expect(summary.incidents).toEqual([]);
  });
});

describe('a plan put to the user (ExitPlanMode)', () => {
  it('approved: HANDOFF.md shows it under Current State, with the approval and where Claude Code saved it', () => {
    const { md, summary, llm } = built(user('u1', 'Plan tar support'), planCall('p1', PLAN), planResult('p1', APPROVED('/home/u/.claude/plans/tar.md')));
    expect(md).toContain('## Current State\n\n### Plan\n\n*reported* — the latest plan the agent put to the user (line 2), approved by the user (line 3); Claude Code saved it to `/home/u/.claude/plans/tar.md`.\n\n```text\n# Plan: Add tar support\n');
    expect(summary.plan).toEqual({ label: 'reported', line: 2, text: PLAN, approved: true, result_line: 3, answer: null, saved_to: '/home/u/.claude/plans/tar.md' });
    expect(llm.plan?.approved_before).toBeNull();
    // Its headings are the plan's, inside the fence: HANDOFF.md's sections are unchanged.
    expect([...sections(md).keys()]).not.toContain('Steps');
  });

  it('rejected: not approved, with what the user said, and the plan approved before it named', () => {
    const { md, summary, llm } = built(
      user('u1', 'Plan tar support'),
      planCall('p1', PLAN),
      planResult('p1', APPROVED('/home/u/.claude/plans/tar.md')),
      planCall('p2', '# Plan: also zip'),
      planResult('p2', `${REJECTED}\n\nThe user provided the following reason for the rejection: keep zip out of it`, true),
    );
    expect(summary.plan?.approved).toBe(false);
    expect(summary.plan?.line).toBe(4);
    expect(summary.plan?.answer).toBe('rejected by the user: keep zip out of it');
    expect(md).toContain('(line 4), not approved (line 5): «rejected by the user: keep zip out of it»');
    expect(md).toContain("The plan approved before it (line 2, approved at line 3) is HANDOFF.llm.json's `plan.approved_before`.");
    expect(llm.plan?.approved_before?.line).toBe(2);
  });

  it('awaiting an answer, or answered by a result that does not approve it, is never called approved', () => {
    expect(built(user('u1', 'Plan it'), planCall('p1', PLAN)).summary.plan).toMatchObject({ approved: null, result_line: null });
    const { summary, md } = built(user('u1', 'Plan it'), planCall('p1', PLAN), planResult('p1', 'Exit plan mode? The user chose to keep planning.'));
    expect(summary.plan).toMatchObject({ approved: null, result_line: 3, answer: 'Exit plan mode? The user chose to keep planning.' });
    expect(md).toContain('its result (line 3) does not say it was approved');
  });

  it('says when the user wrote again after it', () => {
    const { md } = built(user('u1', 'Plan tar support'), planCall('p1', PLAN), planResult('p1', APPROVED('/p.md')), user('u2', 'Actually, do zip first'));
    expect(md).toContain('The user wrote again after it (line 4): it may be out of date.');
  });

  it('keeps a long plan: its head in HANDOFF.md and the summary, more in HANDOFF.llm.json, and a fence its backticks cannot close', () => {
    const long = `# Plan\n\n\`\`\`\ncode\n\`\`\`\n${'Step: do the next thing carefully. '.repeat(200)}`;
    const { md, summary, llm } = built(user('u1', 'Plan it'), planCall('p1', long), planResult('p1', APPROVED('/p.md')));
    expect(summary.plan?.text).toHaveLength(1500);
    expect(summary.plan?.chars).toBe(long.trim().length);
    expect(llm.plan?.text).toHaveLength(LIMITS.PLAN_CHARS);
    expect(md).toContain('````text\n# Plan\n\n```\ncode\n```\n');
    expect(md).toContain(`Its first 1499 of ${long.trim().length} characters; HANDOFF.llm.json's \`plan\` holds its first ${LIMITS.PLAN_CHARS - 1} (the whole is in the transcript).`);
  });

  it('is null where no plan was put', () => {
    const { summary, md } = built(user('u1', 'Fix it'), agent('a1', [{ type: 'text', text: 'Fixed.' }]));
    expect(summary.plan).toBeNull();
    expect(md).not.toContain('### Plan');
  });
});

describe('a working directory the session moved', () => {
  const at = (cwd: string, uuid: string, content: unknown[], type = 'assistant'): Record<string, unknown> => ({ ...base, cwd, type, uuid, message: { role: type, content } });
  const session = (...cwds: string[]): ReturnType<typeof built> =>
    built(
      user('u1', 'Run the tests'),
      ...cwds.flatMap((cwd, i) => [at(cwd, `c${i}`, [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: 'cd test' } }]), at(cwd, `r${i}`, [{ type: 'tool_result', tool_use_id: `t${i}`, content: '' }], 'user')]),
    );
  type Git = { session_git: { recorded: { cwd: string }; cwd_moved: { began_in: string; line: number | null } | null } };

  it('says where it ended, from which line, and where it began (`cd test` persists between shell calls)', () => {
    const { md, summary } = session('/nonexistent/w', '/nonexistent/w/test');
    expect(md).toContain('*reported* — the working directory is `/nonexistent/w/test` from line 4 on (the session began in `/nonexistent/w`): later relative paths are relative to it.');
    const git = (summary as unknown as Git).session_git;
    expect(git.recorded.cwd).toBe('/nonexistent/w/test');
    expect(git.cwd_moved).toEqual({ began_in: '/nonexistent/w', line: 4 });
  });

  it('says nothing when it came back to where it began', () => {
    const { md, summary } = session('/nonexistent/w', '/nonexistent/w/.claude/worktrees/a', '/nonexistent/w');
    expect(md).not.toContain('the working directory is');
    expect((summary as unknown as Git).session_git.cwd_moved).toBeNull();
  });
});

describe("the repository Codex recorded the session's clone of", () => {
  const meta = (url: string): Record<string, unknown> => ({ timestamp: '2026-03-12T15:10:41Z', type: 'session_meta', payload: { id: 'c-1', cwd: '/nonexistent/agno', cli_version: '0.114.0', git: { commit_hash: 'c41a097bcd1a7cea5174883f1827226354fb94b5', branch: 'feat/multimodal-embedder', repository_url: url } } });
  const ask = { timestamp: '2026-03-12T15:11:00Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Review the multimodal embedder plan' }] } };
  type Recorded = { session_git: { recorded: { branch: string; repository_url: string | null } } };

  it('is named beside the recorded branch, and in the payloads', () => {
    const { md, summary } = built(meta('git@github.com:agno-agi/agno'), ask);
    expect(md).toContain('Recorded by the transcript: branch `feat/multimodal-embedder` (at commit `c41a097bcd1a` when the session started) in `/nonexistent/agno`, a clone of `git@github.com:agno-agi/agno` — *reported*.');
    expect((summary as unknown as Recorded).session_git.recorded).toMatchObject({ branch: 'feat/multimodal-embedder', repository_url: 'git@github.com:agno-agi/agno' });
  });

  it('never carries a credential the URL holds', () => {
    const token = `ghp_${'Zq8Xv2Lm9Rt4Wy7Kp3Nd6Hs1Jf5Gb0Tc2Ae'}`;
    const { md, summary, llm } = built(meta(`https://octo:${token}@github.com/agno-agi/agno.git`), ask);
    for (const text of [md, JSON.stringify(summary), JSON.stringify(llm)]) expect(text).not.toContain(token);
    expect((summary as unknown as Recorded).session_git.recorded.repository_url).toContain('github.com/agno-agi/agno.git');
  });
});
