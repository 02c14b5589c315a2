import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { call, edit, REJECTED, result, say, todos, todosDone, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/**
 * Rules from the fourteenth reading (docs/FIDELITY.md): a plan step marked tested with no run
 * behind it is unproven, not contradicted; a plan the user refused is said to be refused, with
 * the line that refused it.
 */

describe('claims to double-check', () => {
  it('says a test step marked done with no run is unproven, not contradicted', () => {
    const { md, summary } = built(
      user('u1', 'Move the plus button out of the search bar'),
      edit('e1', 'Menu.tsx'),
      updated('e1', 'Menu.tsx'),
      todos('t1', [
        ['Move the button', 'completed'],
        ['Test the layout to ensure proper spacing', 'completed'],
      ]),
      todosDone('t1'),
      say('a1', 'Moved.'),
    );
    const section = sections(md).get('Claims to double-check') ?? '';
    expect(section).toContain("the agent's own claims that no run in the transcript proves (no line contradicts them: they are unverified):");
    expect(section).toContain('- claim at line 4, unproven: the plan marks «Test the layout to ensure proper spacing» done, but no test, build, type check or lint ran after the last file change (line 3)');
    expect(section).not.toMatch(/evidence at line|transcript contradicts/);
    expect(sections(md).get('Next Action')).not.toContain('First settle');
    expect(summary.contradictions).toEqual([{ claim_line: 4, evidence_line: 3, text: expect.stringContaining('Test the layout') as string, unproven: true }]);
  });

  it('tells the two kinds apart when both are there', () => {
    const { md } = built(
      user('u1', 'Fix the parser and keep the tests green'),
      edit('e1', 'parser.ts'),
      updated('e1', 'parser.ts'),
      call('b1', 'Bash', { command: 'npm test' }),
      result('b1', 'FAIL test/parser.test.ts\nTests: 1 failed', { is_error: true }),
      say('a1', 'All tests pass now.'),
      edit('e2', 'lexer.ts'),
      updated('e2', 'lexer.ts'),
      todos('t1', [['Verify the lexer change', 'completed']]),
      todosDone('t1'),
    );
    const section = sections(md).get('Claims to double-check') ?? '';
    expect(section).toContain("the agent's own claims that the transcript contradicts, or that no run in it proves:");
    expect(section).toMatch(/- claim at line 6, evidence at line 5: The agent said/);
    expect(section).toContain('- claim at line 9, unproven: the plan marks «Verify the lexer change» done');
    // The action says to settle the contradicted claim first; an unproven one is only listed.
    expect(sections(md).get('Next Action')).toContain("First settle the agent's claim the transcript contradicts (line 6, Claims to double-check) and what the session wrote from it.");
  });

  it("does not ask to settle first a claim the user's own next message contradicted and the agent answered", () => {
    const parts = [
      user('u1', 'Link the combined transcript from each session page'),
      edit('e1', 'renderer.py'),
      updated('e1', 'renderer.py'),
      say('a1', 'Done. No regressions in functionality.'),
      user('u2', 'Oh no, we lost the session navigation section somehow :('),
    ] as const;
    const open = built(...parts);
    // Unanswered, the report is the user's latest word: the claim is settled first.
    expect(sections(open.md).get('Next Action')).toContain("First settle the agent's claim");
    // A sentence of its own, whatever the action's text ended with.
    expect(sections(open.md).get('Next Action')).toMatch(/[.!?] First settle/);
    const { md } = built(...parts, edit('e2', 'renderer.py'), updated('e2', 'renderer.py'), say('a2', 'Restored the navigation.'));
    expect(sections(md).get('Claims to double-check')).toMatch(/- claim at line 4, evidence at line 5: The agent said «No regressions in functionality\.»/);
    expect(sections(md).get('Next Action')).not.toContain('First settle');
  });

  it('says what it checked when it found nothing', () => {
    const { md } = built(user('u1', 'Tidy the README'), edit('e1', 'README.md'), updated('e1', 'README.md'), say('a1', 'Tidied.'));
    expect(sections(md).get('Claims to double-check')).toBe('None the transcript contradicts, and no plan step marked done as tested with no run to prove it (other claims no run proves are not checked here).');
  });
});

describe('a plan the user refused', () => {
  it('is said to be refused, with the line that refused it and its words', () => {
    const plan = (id: string, text: string) => call(id, 'ExitPlanMode', { plan: text });
    const { md } = built(
      user('u1', 'Move the plus button'),
      plan('p1', '# Plan A\n\n1. Keep it inside the input'),
      user('r1', [{ type: 'tool_result', tool_use_id: 'p1', is_error: true, content: REJECTED }]),
      user('u2', 'Completely outside the search bar'),
      plan('p2', '# Plan B\n\n1. Move it outside'),
      result('p2', 'User has approved your plan. You can now start coding.'),
    );
    expect(md).toContain('Before it, the user refused the plan put at line 2 (line 3, a refusal), then wrote (line 4): «Completely outside the search bar».');
    expect(md).not.toContain('did not approve');
  });
});

describe('the front matter where git could not be read', () => {
  it('says beside a null branch which branch the transcript recorded', () => {
    const { md } = built({ ...user('u1', 'Move the plus button out of the search bar'), gitBranch: 'feat/react-refactor-v3' }, say('a1', 'Moved.'));
    expect(md).toMatch(/^branch: null {2}# not read now; the transcript recorded branch feat\/react-refactor-v3 from line 1$/m);
    // No commit recorded: a bare null.
    expect(md).toMatch(/^head: null$/m);
  });

  it('keeps a recorded name to one line, with no control character', () => {
    const { md } = built({ ...user('u1', 'Move the plus button out of the search bar'), gitBranch: 'feat/x\u0007\ny' }, say('a1', 'Moved.'));
    expect(md).toMatch(/^branch: null {2}# not read now; the transcript recorded branch feat\/x y from line 1$/m);
  });

  it('leaves a recorded HEAD (no branch name) out of the comment', () => {
    const { md } = built({ ...user('u1', 'Move the plus button out of the search bar'), gitBranch: 'HEAD' }, say('a1', 'Moved.'));
    expect(md).toMatch(/^branch: null$/m);
  });
});

describe('the resume instructions', () => {
  it('point at the files changed when there are some, and say where to look when there are none', () => {
    const changed = built(user('u1', 'Tidy the README'), edit('e1', 'README.md'), updated('e1', 'README.md'), say('a1', 'Tidied.')).md;
    expect(changed).toContain('3. Read the files named under Repository Evidence and their tests; prefer what they say now');
    const readOnly = built(user('u1', 'Review the plan for the media support'), call('r1', 'Read', { file_path: '/nonexistent/w/media.py' }), result('r1', 'class Image: ...'), say('a1', 'Reviewed.')).md;
    expect(readOnly).toContain('3. No file changed in this session: read the files it read (`media.py` at line 3) and the files the Objective and the latest request name; prefer what they say now');
    expect(readOnly).not.toContain('Read the files named under Repository Evidence');
  });

  it('say which files changed is not known when every edit\'s path was redacted, and to ask git', () => {
    const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
    const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
    const { md } = built(
      meta,
      { timestamp: '2026-02-23T11:55:00Z', type: 'event_msg', payload: { type: 'user_message', message: 'Fix the sync' } },
      item({ type: 'custom_tool_call', status: 'completed', call_id: 'p1', name: 'apply_patch', input: '[REDACTED_PATCH len=812 sha=0a1b2c3d]' }),
      item({ type: 'custom_tool_call_output', call_id: 'p1', output: '[REDACTED_OUTPUT len=200 sha=4e5f6a7b]' }),
    );
    expect(md).toContain("3. Which files changed is not known (1 edit(s) whose paths the transcript's publisher redacted): run `git status` and `git diff` in the repository");
    expect(md).not.toContain('No file changed in this session');
  });
});

describe('the latest request, answered only by a progress note', () => {
  const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.125.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
  const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'event_msg', payload });
  const ask = (text: string) => event({ type: 'user_message', message: text });
  const said = (text: string, phase: string) => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }], phase });

  it('says it has no final reply, and still gives the earlier request its last reply', () => {
    const { md, summary } = built(meta, ask('Fix the sync'), said('Fixed: the sync retries now.', 'final_answer'), ask('Now help me apply for the grant'), said('Checking the grant rules first.', 'commentary'));
    const section = sections(md).get('User requests and corrections') ?? '';
    expect(section).toContain('line 2 — Fix the sync (last reply: line 3)');
    expect(section).toContain("line 4 — Now help me apply for the grant (no final reply; progress note at line 5)");
    expect((summary.requests as { replied_line?: number }[]).map((q) => q.replied_line)).toEqual([3, 5]);
  });

  it('says so of an earlier request too, when later progress notes followed', () => {
    const note = (text: string) => event({ type: 'agent_message', message: text, phase: 'commentary' });
    const { md } = built(meta, ask('Implement the plan'), said('Running the visual check now.', 'commentary'), note('Running the visual check now.'), ask('Stop the browser work'), said('Stopping it.', 'commentary'), said('Stopped; the dashboard stays basic.', 'final_answer'));
    const section = sections(md).get('User requests and corrections') ?? '';
    expect(section).toContain("line 2 — Implement the plan (no final reply; progress note at line 3)");
    expect(section).toContain('line 5 — Stop the browser work (last reply: line 7)');
  });

  it("gives a request its turn's final reply when the user's next message came in mid-turn", () => {
    const started = (id: string) => event({ type: 'task_started', turn_id: id, model_context_window: 258400 });
    const complete = (id: string) => event({ type: 'task_complete', turn_id: id });
    const { md, summary } = built(
      meta,
      started('t1'),
      ask('Fix the screenshot layout'),
      said('Looking at the layout code.', 'commentary'),
      ask('Also keep the header fixed'),
      said('Both done: the layout and the fixed header.', 'final_answer'),
      complete('t1'),
      started('t2'),
      ask('Now the footer'),
      said('Checking the footer.', 'commentary'),
    );
    const section = sections(md).get('User requests and corrections') ?? '';
    expect(section).toContain("line 3 — Fix the screenshot layout (its turn's final reply: line 6, after the message of line 5 came in mid-turn)");
    expect(section).toContain('line 5 — Also keep the header fixed (last reply: line 6)');
    // A turn still running keeps its progress note: nothing completed it.
    expect(section).toContain('line 9 — Now the footer (no final reply; progress note at line 10)');
    expect((summary.requests as { replied_line?: number }[]).map((q) => q.replied_line)).toEqual([6, 6, 10]);
  });

  it('gives a final answer after a progress note its due', () => {
    const { md } = built(meta, ask('Implement the plan'), said('Working on it.', 'commentary'), said('Done: the plan is implemented.', 'final_answer'));
    expect(sections(md).get('User requests and corrections')).toContain('line 2 — Implement the plan (last reply: line 4)');
  });
});

describe('a transcript that records HEAD while the session\'s git says a branch', () => {
  it('says the branch the session\'s own git status gave, beside the HEAD recorded', () => {
    const { md } = built(
      { ...user('u1', 'Commit and push the dashboard'), gitBranch: 'HEAD' },
      call('g1', 'Bash', { command: 'git status' }),
      { ...result('g1', 'On branch main\nYour branch is up to date with \'origin/main\'.\n\nnothing to commit, working tree clean'), gitBranch: 'HEAD' },
      say('a1', 'Pushed.'),
    );
    const evidence = sections(md).get('Repository Evidence') ?? '';
    // Not "a detached HEAD, or a repository with no commit yet": the session's git says where it is.
    expect(evidence).toContain("not a branch name (what the harness read when it recorded it; the session's own git output names the branch) — *reported*.");
    expect(evidence).toContain("The session's own `git status` (line 3) says it is on branch `main` — *verified* from git's output.");
  });

  it('says what HEAD may mean only when no git output of the session names a branch', () => {
    const { md } = built({ ...user('u1', 'Look at the dashboard'), gitBranch: 'HEAD' }, say('a1', 'It renders.'));
    expect(sections(md).get('Repository Evidence')).toContain('not a branch name (a detached HEAD, or a repository with no commit yet, when it was recorded) — *reported*.');
  });
});

describe("the session's latest git log, when a commit came after it", () => {
  it('says HEAD moved on, and where', () => {
    const { md } = built(
      user('u1', 'Commit the dashboard'),
      call('l1', 'Bash', { command: 'git log --oneline -1' }),
      result('l1', '9bffcc8 Final SUBMISSION.md with deployed URL'),
      call('c1', 'Bash', { command: 'git commit -am "Expand SUBMISSION.md"' }),
      result('c1', '[main c566cc2] Expand SUBMISSION.md\n 1 file changed, 12 insertions(+)'),
      say('a1', 'Committed.'),
    );
    expect(sections(md).get('Repository Evidence')).toContain("its latest `git log` of HEAD (line 3) began with `9bffcc8` «Final SUBMISSION.md with deployed URL» (HEAD moved after it: the session's commit at line 5; Commits made in this session has it)");
  });
});
