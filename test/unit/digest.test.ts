import { describe, expect, it } from 'vitest';
import { buildDigest, CHARS_PER_TOKEN, estimateTokens } from '../../src/core/digest.js';

/** The digest a model gets after a compaction, from hand-written payloads of both shapes. */

const PATH = '/home/dev/.handoffs/projects/uploader/5f0c1d2e/HANDOFF.md';

/** HANDOFF.summary.json with the fields of SPEC §4 / §6 (objective_line, requests, checks, …). */
function fullSummary(): Record<string, unknown> {
  return {
    schema_version: '1.0',
    kind: 'handoff.summary',
    session: { id: '5f0c1d2e', uuid: '5f0c1d2e', harness: 'claude', model: 'claude-sonnet-4-5', title: 'Upload retry backoff' },
    project: 'uploader',
    objective: 'Make the upload retry use exponential backoff and keep the tests green.',
    objective_line: 3,
    requests: [
      { line: 3, text: 'Make the upload retry use exponential backoff and keep the tests green.' },
      { line: 41, text: 'No, start the delay at 200 ms, not 100.' },
    ],
    state_now: 'The test expects the first delay to be 200 ms; I will start the backoff at 200.',
    end: { kind: 'mid-work', line: 152 },
    files_changed: [{ path: 'src/retry.ts', line: 90, how: 'edit' }],
    files_not_changed: [{ path: 'src/config.ts', line: 95, reason: 'the user rejected the write' }],
    checks: [
      { line: 110, command: 'npm test -- retry', outcome: 'fail' },
      { line: 98, command: 'npx tsc --noEmit', outcome: 'pass' },
    ],
    open_failures: [{ line: 111, text: 'FAIL test/retry.test.ts > expected 200, received 100' }],
    commits: [{ hash: 'abc1234def5678', subject: 'retry: exponential backoff', pushed: false, line: 130 }],
    next_action: { text: 'Fix the failing retry test: start the backoff at 200 ms', rule: 'open_failure', label: 'verified', line: 111 },
    contradictions: [{ claim_line: 140, evidence_line: 111, text: 'The agent says all tests pass; the last run failed' }],
    context: { level: 'red', used: 150000, limit: 200000, ratio: 0.75, compacted: true, compactions: 1 },
    git: { status: 'ok', reason: null, repo: '/work/uploader', branch: 'main', head: 'abc1234def5678', dirty: true, changed_total: 2, untracked_total: 0, captured_at: null },
    transfer_ready: true,
    provenance: { revision: 42, watermark: 151, total_turns: 152 },
  };
}

const opts = { budgetTokens: 2000, handoffPath: PATH, reason: 'compact' as const };

describe('the digest', () => {
  it('carries the objective, next action, open failures and every other fact with its line', () => {
    const d = buildDigest(fullSummary(), null, opts);
    expect(d.text).toContain('## Objective (line 3)\nMake the upload retry use exponential backoff');
    expect(d.text).toContain('## Next action (rule: open failure, line 111, verified)\nFix the failing retry test');
    expect(d.text).toContain('- line 111: FAIL test/retry.test.ts > expected 200, received 100');
    expect(d.text).toContain('- line 41: No, start the delay at 200 ms, not 100.');
    expect(d.text).toContain('ended: mid-work, line 152');
    expect(d.text).toContain('- line 110: FAIL `npm test -- retry`');
    expect(d.text).toContain('- line 98: pass `npx tsc --noEmit`');
    expect(d.text).toContain('- line 90: src/retry.ts (edit)');
    expect(d.text).toContain('- line 95: src/config.ts: the user rejected the write');
    expect(d.text).toContain('- line 130: abc1234def retry: exponential backoff (NOT pushed)');
    expect(d.text).toContain('The agent says all tests pass; the last run failed (claim line 140, evidence line 111)');
    expect(d.text).toContain(PATH);
    expect(d.text).toContain('revision 42, 152 turns');
    expect(d.omitted).toEqual([]);
    expect(d.shortened).toEqual([]);
  });

  it('puts the most important facts first', () => {
    const d = buildDigest(fullSummary(), null, opts);
    expect(d.included).toEqual(['objective', 'next_action', 'open_failures', 'requests', 'state_now', 'contradictions', 'checks', 'files_changed', 'files_not_changed', 'commits', 'repository']);
    const at = (s: string): number => d.text.indexOf(s);
    expect(at('## Objective')).toBeLessThan(at('## Next action'));
    expect(at('## Next action')).toBeLessThan(at('## Open failures'));
    expect(at('## Open failures')).toBeLessThan(at('## User requests'));
    expect(at('## Checks')).toBeLessThan(at('## Files changed'));
  });

  it('stays within the token budget, keeping the latest requests and saying what it cut', () => {
    const s = fullSummary();
    s.requests = Array.from({ length: 300 }, (_, i) => ({ line: 10 + i, text: `request number ${i}: ${'please also handle this case carefully '.repeat(6)}` }));
    const d = buildDigest(s, null, opts);
    expect(d.tokens).toBeLessThanOrEqual(2000);
    expect(estimateTokens(d.text)).toBe(d.tokens);
    expect(d.text).toContain('request number 299:');
    expect(d.text).not.toContain('request number 0:');
    expect(d.text).toMatch(/- … \d+ earlier in HANDOFF\.md/);
    expect(d.shortened).toContain('requests');
    expect(d.text).toContain('## Objective (line 3)');
    expect(d.text).toContain('## Next action');
    expect(d.text).toContain('- line 111: FAIL test/retry.test.ts');
    expect(d.text).toMatch(/\(Cut to 2000 tokens\. .*Shortened: requests\. HANDOFF\.md has all of it\.\)/);
  });

  it('holds a small budget too, and still names HANDOFF.md', () => {
    for (const budget of [200, 400, 700]) {
      const d = buildDigest(fullSummary(), null, { ...opts, budgetTokens: budget });
      expect(d.tokens, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(d.text).toContain(PATH);
      expect(d.text.length).toBeLessThanOrEqual(budget * CHARS_PER_TOKEN);
    }
  });

  it('cuts one long objective in its text instead of dropping it', () => {
    const s = fullSummary();
    s.objective = `Refactor the uploader ${'and then some more '.repeat(200)}`;
    const d = buildDigest(s, null, { ...opts, budgetTokens: 300 });
    expect(d.text).toContain('## Objective (line 3)\nRefactor the uploader');
    expect(d.tokens).toBeLessThanOrEqual(300);
  });

  it('reads the older payloads: open failures, commands, files and messages cite their seq', () => {
    const summary = {
      session: { id: 'claude-session', title: null },
      objective: 'Make the upload retry use exponential backoff.',
      state_now: 'Running the tests again.',
      next_action: { text: 'Continue the in-progress task: Add exponential backoff', source: 'in_progress_todo', label: 'reported', seq: 6 },
      open_loops: ['In progress: Add exponential backoff'],
      provenance: { revision: 3, total_turns: 15 },
    };
    const llm = {
      failures: [{ kind: 'tool_error', text: 'expected 200 received 100', tool: 'Bash', exit_code: 1, seq: 11, label: 'verified' }],
      verification: [
        { command: 'ls -la', result: 'passed', exit_code: 0, seq: 8, result_seq: 9 },
        { command: 'npm test -- retry', result: 'failed', exit_code: 1, seq: 10, result_seq: 11 },
      ],
      files_touched: [{ path: 'src/retry.ts', tool: 'Edit', first_seq: 7, last_seq: 7, count: 1 }],
      current_state: { completed: ['Read the retry loop'], in_progress: ['Add exponential backoff'], not_started: ['Run the test suite'] },
      turns: [
        { seq: 2, class: 'USER', text: 'Make the upload retry use exponential backoff.' },
        { seq: 12, class: 'AGENT', text: 'Looking.' },
        { seq: 13, class: 'USER', text: 'Keep the first delay at 200 ms.' },
      ],
    };
    const d = buildDigest(summary, llm, opts);
    expect(d.text).toContain('## Next action (rule: in progress todo, seq 6, reported)');
    expect(d.text).toContain('- seq 11: Bash (exit 1): expected 200 received 100');
    expect(d.text).toContain('- seq 11: FAIL `npm test -- retry`');
    expect(d.text).not.toContain('ls -la');
    expect(d.text).toContain('- seq 7: src/retry.ts (Edit)');
    expect(d.text).toContain('- seq 13: Keep the first delay at 200 ms.');
    expect(d.text).toContain('- [~] Add exponential backoff');
    expect(d.text).toContain('revision 3, 15 turns');
  });

  it('never throws on payloads of the wrong shape and still points at HANDOFF.md', () => {
    for (const [s, l] of [
      [null, null],
      [42, 'x'],
      [{ objective: 7, requests: 'no', checks: [1, null, { command: 5 }], next_action: [] }, { failures: {}, turns: [null] }],
    ] as const) {
      const d = buildDigest(s, l, opts);
      expect(d.text).toContain(PATH);
      expect(d.tokens).toBeLessThanOrEqual(2000);
    }
  });

  it('strips terminal control sequences from transcript text', () => {
    const s = fullSummary();
    s.objective = 'Fix \u001b[31mthe\u001b[0m bug\u0007 now';
    const d = buildDigest(s, null, opts);
    expect(d.text).toContain('Fix the bug now');
    // eslint-disable-next-line no-control-regex
    expect(d.text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });

  it('says so when the handoff could not be brought up to date first', () => {
    const d = buildDigest(fullSummary(), null, { ...opts, stale: 'the daemon did not finish reading the transcript in time; the last lines may be missing' });
    expect(d.text).toContain('Note: the daemon did not finish reading the transcript in time');
  });

  it('tells a resumed session why it gets the handoff', () => {
    expect(buildDigest(fullSummary(), null, { ...opts, reason: 'resume' }).text).toContain('This session was resumed after a compaction');
  });
});

describe('the digest under the smallest budget', () => {
  it('still fits the objective in 200 tokens, and the next action in 300', () => {
    const tiny = buildDigest(fullSummary(), null, { ...opts, budgetTokens: 200 });
    expect(tiny.included[0]).toBe('objective');
    expect(tiny.text).toMatch(/\(Cut to 200 tokens[.;]/);
    expect(tiny.tokens).toBeLessThanOrEqual(200);
    const small = buildDigest(fullSummary(), null, { ...opts, budgetTokens: 300 });
    expect(small.included.slice(0, 2)).toEqual(['objective', 'next_action']);
    expect(small.tokens).toBeLessThanOrEqual(300);
  });

  it('gives no single list the whole budget: a flood of requests leaves room for checks and files', () => {
    const s = fullSummary();
    s.requests = Array.from({ length: 300 }, (_, i) => ({ line: 10 + i, text: `request ${i} ${'x'.repeat(200)}` }));
    const d = buildDigest(s, null, opts);
    expect(d.included).toEqual(expect.arrayContaining(['checks', 'files_changed', 'commits']));
  });
});
