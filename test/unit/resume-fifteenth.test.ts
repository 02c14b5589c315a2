import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { call, edit, REJECTED, rejectedBecause, result, say, todos, todosDone, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/**
 * Rules from the fifteenth reading (docs/FIDELITY.md): where git cannot be read now, the front
 * matter names the latest branch the transcript decides, with its line (the session's own checkout
 * after the branch the harness recorded), and a checkout after the latest `git log` is not called a
 * commit.
 */

describe('the front matter where git could not be read', () => {
  it("names the branch the session's own checkout moved to after the one the harness recorded", () => {
    const { md } = built(
      { ...user('u1', 'Push this, then start feat/dashboard-refactor from main'), gitBranch: 'fix/team-optimization-v2' },
      call('g1', 'Bash', { command: 'git checkout main && git pull && git checkout -b feat/dashboard-refactor' }),
      { ...result('g1', "Switched to branch 'main'\nAlready up to date.\nSwitched to a new branch 'feat/dashboard-refactor'"), gitBranch: 'fix/team-optimization-v2' },
      say('a1', 'Done.'),
    );
    expect(md).toMatch(
      /^branch: null {2}# not read now; its git checkout\/switch at line 3 moved to feat\/dashboard-refactor; the transcript recorded branch fix\/team-optimization-v2 from line 1$/m,
    );
  });

  it("names the branch of the session's own later git status, where the harness recorded none", () => {
    const { md } = built(
      { ...user('u1', 'What branch is this?'), gitBranch: 'HEAD' },
      call('g1', 'Bash', { command: 'git status' }),
      result('g1', 'On branch release\nnothing to commit, working tree clean'),
      say('a1', 'release.'),
    );
    expect(md).toMatch(/^branch: null {2}# not read now; its git status at line 3 was on release$/m);
  });

  it('says only what the harness recorded when the session never left that branch', () => {
    const { md } = built(
      { ...user('u1', 'Check the branch'), gitBranch: 'main' },
      call('g1', 'Bash', { command: 'git status' }),
      result('g1', 'On branch main\nnothing to commit, working tree clean'),
      say('a1', 'main.'),
    );
    expect(md).toMatch(/^branch: null {2}# not read now; the transcript recorded branch main from line 1$/m);
  });
});

describe("the session's latest git log, when HEAD may have moved after it", () => {
  it('calls a checkout a checkout, not a commit, and sends no one to a commit list', () => {
    const { md } = built(
      user('u1', 'Push the branch, then start a new one'),
      call('l1', 'Bash', { command: 'git log --oneline -1' }),
      result('l1', 'a7bfa7b optimized team loading'),
      call('c1', 'Bash', { command: 'git checkout -b feat/dashboard-refactor' }),
      result('c1', "Switched to a new branch 'feat/dashboard-refactor'"),
      say('a1', 'Switched.'),
    );
    const evidence = sections(md).get('Repository Evidence') ?? '';
    expect(evidence).toContain(
      "its latest `git log` of HEAD (line 3) began with `a7bfa7b` «optimized team loading» (HEAD may have moved after it: the session's `git checkout` or `git switch` at line 5)",
    );
    expect(evidence).not.toMatch(/session's commit|Commits made in this session has/);
  });

  it('says a later reset may have moved it', () => {
    const { md } = built(
      user('u1', 'Undo the last commit'),
      call('l1', 'Bash', { command: 'git log --oneline -1' }),
      result('l1', 'a7bfa7b optimized team loading'),
      call('r1', 'Bash', { command: 'git reset --hard HEAD~1' }),
      result('r1', 'HEAD is now at 9d35684 start'),
      say('a1', 'Reset.'),
    );
    expect(sections(md).get('Repository Evidence')).toContain("(HEAD may have moved after it: the session's git command at line 5 can move it — a merge, pull, rebase, reset or checkout)");
  });
});

describe('Current State from tasks', () => {
  it('calls the line the tasks’ latest update, since no whole list was printed there', () => {
    const { md } = built(
      user('u1', 'Plan the migration'),
      call('t1', 'TaskCreate', { subject: 'Write the schema', description: 'tables first' }),
      result('t1', 'Task #1 created successfully: Write the schema'),
      call('t2', 'TaskUpdate', { taskId: '1', status: 'completed' }),
      result('t2', 'Updated task #1 status'),
      say('a1', 'Schema written.'),
    );
    const state = sections(md).get('Current State') ?? '';
    expect(state).toMatch(/^\*reported\* — from the agent's tasks as of their latest update \(line 4\)/);
    expect(state).not.toContain('task list');
  });
});

describe('a merge commit named by a later git log', () => {
  it('cites the merge for the commit and the log for its hash', () => {
    const { md, summary } = built(
      user('u1', 'Merge the three research branches'),
      call('m1', 'Bash', { command: 'git merge --no-ff alice/a bob/b -m "merge round 1: research docs"' }),
      result('m1', "Trying simple merge with bob/b\nMerge made by the 'octopus' strategy.\n work/a.md | 40 ++++\n create mode 100644 work/a.md"),
      call('l1', 'Bash', { command: 'git log --oneline --graph -3' }),
      result('l1', '*---.   1b6c52f merge round 1: research docs\n|\\ \\ \n| * e081dab bob: research\n* 04752c6 Add intent'),
      say('a1', 'Merged.'),
    );
    expect(sections(md).get('Repository Evidence')).toContain('- `1b6c52f` merge round 1: research docs (line 3, named by the `git log` at line 5) — not pushed');
    expect(summary.commits).toEqual([expect.objectContaining({ hash: '1b6c52f', line: 3, hash_line: 5 })]);
  });
});

describe('a plan the user sent back with words', () => {
  it('is said to be sent back with changes to make, not refused', () => {
    const plan = (id: string, text: string) => call(id, 'ExitPlanMode', { plan: text });
    const { md } = built(
      user('u1', 'Make this installable as a uv tool'),
      plan('p1', '# Plan\n\n1. Rename the script\n2. Switch to hatchling'),
      user('r1', [{ type: 'tool_result', tool_use_id: 'p1', is_error: true, content: rejectedBecause('Keep the name of the py file, otherwise gtg') }]),
      plan('p2', '# Plan\n\n1. Keep the name\n2. Switch to hatchling'),
      result('p2', 'User has approved your plan. You can now start coding.'),
    );
    expect(md).toContain('Before it, the user sent back the plan put at line 2 with changes to make (line 3, a refusal with the words «Keep the name of the py file, otherwise gtg»).');
    expect(md).not.toContain('refused the plan');
  });
});

describe('a plan step marked tested', () => {
  it('is not called unproven when a run after the last change, later than the plan, covers it', () => {
    const { md, summary } = built(
      user('u1', 'Make the PR the default input'),
      edit('e1', 'extract.py'),
      updated('e1', 'extract.py'),
      todos('t1', [['Test the new default behavior', 'completed']]),
      todosDone('t1'),
      call('b1', 'Bash', { command: 'pytest -q' }),
      result('b1', '3 passed in 0.12s'),
      say('a1', 'Done.'),
    );
    expect(sections(md).get('Claims to double-check') ?? '').not.toContain('unproven');
    expect(summary.contradictions).toEqual([]);
  });

  it('is still unproven when no run came after the last change at all', () => {
    const { summary } = built(
      user('u1', 'Make the PR the default input'),
      call('b1', 'Bash', { command: 'pytest -q' }),
      result('b1', '3 passed in 0.12s'),
      edit('e1', 'extract.py'),
      updated('e1', 'extract.py'),
      todos('t1', [['Test the new default behavior', 'completed']]),
      todosDone('t1'),
      say('a1', 'Done.'),
    );
    expect(summary.contradictions).toEqual([expect.objectContaining({ claim_line: 6, evidence_line: 5, unproven: true })]);
  });
});

describe('a plan refused, then put again word for word', () => {
  it('says the refused plan is the latest one, so the refusal was not of its content', () => {
    const plan = (id: string, text: string) => call(id, 'ExitPlanMode', { plan: text });
    const { md } = built(
      user('u1', 'Report corrupted archives'),
      plan('p1', '# Plan\n\n1. Mark corrupted archives'),
      user('r1', [{ type: 'tool_result', tool_use_id: 'p1', is_error: true, content: REJECTED }]),
      user('u2', 'First commit the previous work, then proceed with this plan'),
      plan('p2', '# Plan\n\n1. Mark corrupted archives'),
      result('p2', 'User has approved your plan. You can now start coding.'),
    );
    // What the user wrote after refusing it says the refusal reordered the work.
    expect(md).toContain('Before it, the user refused the plan put at line 2, word for word the plan of line 5 (line 3, a refusal), then wrote (line 4): «First commit the previous work, then proceed with this plan».');
  });
});

describe('a message of thanks alone', () => {
  const afterPlan = (last: string) =>
    built(
      user('u1', 'Plan the migration'),
      todos('t1', [['Write the schema', 'completed']]),
      todosDone('t1'),
      say('a1', 'Done.'),
      user('u2', last),
      say('a2', 'You are welcome.'),
    ).md;

  it('does not make the task list out of date', () => {
    expect(sections(afterPlan('Excellent work, thank you!')).get('Current State') ?? '').not.toContain('out of date');
    expect(sections(afterPlan('perfect, thanks!!')).get('Current State') ?? '').not.toContain('out of date');
  });

  it('does when it asks for more', () => {
    expect(sections(afterPlan('Great, now deploy it')).get('Current State') ?? '').toContain('written before the latest request (line 5), so it may be out of date');
  });
});

describe('the line a next action rule cites', () => {
  it('says it is the latest write, not proof that nothing was committed', () => {
    const { md } = built(user('u1', 'Fix the parser'), edit('e1', 'parser.ts'), updated('e1', 'parser.ts'), say('a1', 'Fixed.'));
    expect(sections(md).get('Next Action')).toContain('*inferred* — rule: uncommitted changes (line 3: the latest write)');
  });
});
