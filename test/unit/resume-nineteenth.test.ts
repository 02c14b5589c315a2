import { describe, expect, it } from 'vitest';
import { decideOutcome } from '../../src/core/outcome.js';
import { sections } from '../../src/core/quality.js';
import { agent, call, edit, result, say, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/** Rules from the nineteenth reading (docs/FIDELITY.md) not covered beside the code they changed. */

const run = (id: string, command: string, out: string, isError = false) => [call(id, 'Bash', { command }), result(id, out, isError ? { is_error: true } : {})];

describe('a claim that checks pass, made after the code changed since they ran', () => {
  const session = [
    user('u1', 'Make the team sheet load faster'),
    ...run('l1', 'pnpm lint', 'No lint errors'),
    ...run('t1', 'pnpm test', ' Test Files  3 passed (3)\n      Tests  7 passed (7)'),
    edit('e1', 'src/TeamSheet.tsx'),
    updated('e1', 'src/TeamSheet.tsx'),
    ...run('c1', 'pnpm check-types', ''),
    say('a1', 'All three checks are green:\n- `pnpm lint`\n- `pnpm test`\n- `pnpm check-types`'),
  ];

  it('is said to rest on runs a later change made stale (no line contradicts it), naming every stale run', () => {
    const r = built<{ contradictions: Record<string, unknown>[] }>(...session);
    const claims = sections(r.md).get('Claims to double-check') ?? '';
    expect(claims).toContain("the agent's own claims that rest on checks run before a later change:");
    expect(claims).not.toContain('contradicts');
    expect(claims).toContain('claim at line 10, a later change at line 7: The agent said «All three checks are green:», but TeamSheet.tsx changed (line 7) after the latest `pnpm test` (line 5), and it did not run again before the claim; nor did `pnpm lint` (line 3), older still');
    expect(sections(r.md).get('Next Action')).toContain("First settle the agent's claim that rests on checks run before a later change (line 10, Claims to double-check)");
    expect(r.summary.contradictions).toEqual([expect.objectContaining({ claim_line: 10, evidence_line: 7, stale: true })]);
  });

  it('is still said contradicted when the latest check before it failed', () => {
    const r = built(user('u1', 'Fix the sheet'), ...run('t1', 'pnpm test', ' Tests  1 failed | 6 passed (7)', true), say('a1', 'All tests pass.'));
    const claims = sections(r.md).get('Claims to double-check') ?? '';
    expect(claims).toContain("the agent's own claims that the transcript contradicts:");
    expect(claims).toContain('claim at line 4, evidence at line 3:');
  });
});

describe('a pytest run given a path that is not there', () => {
  it('failed (the tests it names are not there); a selection of no test failed too, but opens no failure', () => {
    const notFound = 'ERROR: file or directory not found: test/test_link.py\n\n============ test session starts ============\ncollected 0 items\n\n============ no tests ran in 0.01s ============';
    expect(decideOutcome('test', undefined, false, notFound)).toEqual({ outcome: 'fail', line: 'ERROR: file or directory not found: test/test_link.py' });
    expect(decideOutcome('test', 4, false, notFound).outcome).toBe('fail');
    expect(decideOutcome('test', 5, false, '==== 205 deselected in 0.5s ====')).toEqual({ outcome: 'fail', line: '==== 205 deselected in 0.5s ====', nothingRan: true });
    expect(decideOutcome('test', undefined, false, 'collected 0 items\n\n==== no tests ran in 0.01s ====')).toMatchObject({ outcome: 'fail', nothingRan: true });
  });

  it('is a failure the run with the right path closes', () => {
    const r = built<{ fixed_failures: { line: number; fixed_line: number }[] }>(
      user('u1', 'Add the link tests'),
      ...run('t1', 'uv run pytest test/test_link.py -v', 'ERROR: file or directory not found: test/test_link.py\n\n============ no tests ran in 0.01s ============', true),
      ...run('t2', 'uv run pytest /nonexistent/w/test/test_link.py -v', '============ 3 passed in 0.30s ============'),
      say('a1', 'The link tests pass.'),
    );
    expect(r.summary.fixed_failures).toEqual([expect.objectContaining({ line: 3, fixed_line: 5 })]);
  });
});

describe('a session that changed no file the transcript shows', () => {
  it('names the files it read in the resume step', () => {
    const r = built(
      user('u1', 'What do you think of the convention in work-and-dev-docs.md?'),
      call('r1', 'Read', { file_path: '/nonexistent/w/work-and-dev-docs.md' }),
      result('r1', '     1\t# Work and dev docs\n     2\tPlans go in work/, references in docs/.'),
      call('r2', 'Read', { file_path: '/nonexistent/w/README.md' }),
      result('r2', '     1\t# Project'),
      say('a1', 'It is a sound convention.'),
    );
    expect(sections(r.md).get('Resume Instructions')).toContain('3. No file changed in this session: read the files it read (`README.md` at line 5, `work-and-dev-docs.md` at line 3) and the files the Objective and the latest request name;');
  });

  it('says a call whose tool name or command is unreadable may have written files, in Repository Evidence and the resume step', () => {
    const r = built(
      user('u1', 'Run the cloud workflow'),
      agent('c-x', [{ type: 'tool_use', id: 'x1', name: '[REDACTED_NAME len=43 sha=c186413b]', input: {} }]),
      result('x1', '[REDACTED_OUTPUT len=16329 sha=b2b9cdde]'),
      say('a1', 'Done.'),
    );
    const repo = sections(r.md).get('Repository Evidence') ?? '';
    expect(repo).toContain('### Files changed in this session\n\nNone the transcript shows. *unknown* — 1 call of a tool whose name is unreadable (line 2) may have written files');
    expect(sections(r.md).get('Verification')).toContain("1 call, at line 2, of a tool whose name the transcript's publisher redacted: which tool, and what it did, are not known.");
    expect(sections(r.md).get('Resume Instructions')).toContain('3. No file change can be read in this session, but 1 call of a tool whose name is unreadable (line 2) may have written some: run `git status`');
  });
});

describe('a pull request offered, then a checkout of another branch', () => {
  const push = (then: Record<string, unknown>[]) =>
    built(
      user('u1', 'Push this and start the dashboard branch'),
      edit('e1', 'src/team.ts'),
      updated('e1', 'src/team.ts'),
      ...run('g1', 'git commit -am "Speed up the team sheet"', '[fix/team 1a2b3c4] Speed up the team sheet\n 1 file changed, 2 insertions(+)'),
      ...run('p1', 'git push -u origin fix/team', "remote: \nremote: Create a pull request for 'fix/team' on GitHub by visiting:\nremote:      https://github.com/o/r/pull/new/fix/team\nremote: \nTo github.com:o/r.git\n * [new branch]      fix/team -> fix/team"),
      ...then,
      say('a1', 'Pushed; the new branch is ready.'),
    );

  it('says the pull request is of the pushed branch, not of the one the session moved to', () => {
    const next = sections(push(run('k1', 'git checkout -b feat/dashboard main', "Switched to a new branch 'feat/dashboard'")).md).get('Next Action') ?? '';
    expect(next).toContain('Open the pull request the last push offered: https://github.com/o/r/pull/new/fix/team. The session then moved to `feat/dashboard` (its git checkout or switch at line 9): the pull request is of the branch that push sent, `fix/team`, and checks of its work run there — in a worktree of it (`git worktree add`), which leaves `feat/dashboard` and its files as they are');
  });

  it('says nothing of a checkout back to the pushed branch', () => {
    const next = sections(push(run('k1', 'git checkout fix/team', "Switched to branch 'fix/team'")).md).get('Next Action') ?? '';
    expect(next).toContain('Open the pull request the last push offered: https://github.com/o/r/pull/new/fix/team');
    expect(next).not.toContain('moved to');
  });
});

describe('the count of messages after the objective', () => {
  it("says the user's answers to the agent's own questions apart, as the list shows them", () => {
    const { md } = built(
      user('u1', 'Move the plus button next to the search'),
      say('a1', 'Looking.'),
      call('q1', 'AskUserQuestion', { questions: [{ question: 'Where should the button go?', header: 'Position', multiSelect: false, options: [{ label: 'Right of search', description: '' }] }] }),
      result('q1', 'User has answered your questions: "Where should the button go?"="Right of search". You can now continue with the user\'s answers in mind.'),
      user('u2', 'Completely outside the search bar'),
      say('a2', 'Moved.'),
    );
    const objective = sections(md).get('Objective (verbatim)') ?? '';
    expect(objective).toContain("1 more message(s) came after it (besides 1 answer(s) to the agent's own question(s)), the latest at line 5");
    expect(sections(md).get('User requests and corrections')).toContain('line 4 — answer:');
  });
});

describe('a transcript that ends on a call with no result', () => {
  it('names that call in the next action, with what it read or ran', () => {
    const { md } = built(
      user('u1', 'Show me the Task tool'),
      say('a1', 'Done: the subagent searched the web.'),
      user('u2', 'ok'),
      say('a2', "I'll read that session file to see what's in it."),
      call('r1', 'Read', { file_path: '/nonexistent/w/logs/0a297c06.jsonl' }),
    );
    expect(sections(md).get('Next Action')).toContain("Continue the user's last request, which the agent was still working on (line 3: «ok»). Its last call (line 5: Read `/nonexistent/w/logs/0a297c06.jsonl`) has no result: whether it ran is not known");
  });
});
