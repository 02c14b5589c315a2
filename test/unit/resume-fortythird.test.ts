import { describe, expect, it } from 'vitest';
import { markChanged, markNotChanged } from '../../src/core/ledger.js';
import { sections } from '../../src/core/quality.js';
import { initialState } from '../../src/core/state.js';
import { call, edit, result, say, updated, user } from './claude-records.js';
import { analysed, built } from './ledger-helper.js';

/**
 * The forty-third stop's reading (docs/FIDELITY.md): six readers of handoffs cut where no earlier
 * reading cut them (posthog at 1000, edgerunner at 700, rave-era at 560, the `37f83ec9` sample at
 * 300, deep-manifest at 290, coderabbit at 250).
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });
/** Codex rollout records, all at one time. */
const at = '2026-04-26T10:00:00Z';
const item = (payload: Record<string, unknown>): Record<string, unknown> => ({ timestamp: at, type: 'response_item', payload });
const event = (payload: Record<string, unknown>): Record<string, unknown> => ({ timestamp: at, type: 'event_msg', payload });
const codexMeta = (version: string): Record<string, unknown> => ({ timestamp: at, type: 'session_meta', payload: { id: 'c-1', cwd: '/nonexistent/w', cli_version: version } });

describe('a `git status` that showed nothing staged, then a commit whose own `git add` staged its files (deep-manifest at 290)', () => {
  const status = (staged: string) =>
    `On branch master\n${staged}Changes not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n\tmodified:   src/a.py\n\tmodified:   tests/test_a.py\n`;
  const session = (listing: string) => [
    user('u1', 'Commit it'),
    edit('e1', 'src/a.py'),
    updated('e1', 'src/a.py'),
    edit('e2', 'tests/test_a.py'),
    updated('e2', 'tests/test_a.py'),
    bash('g1', 'git status'),
    result('g1', listing),
    bash('g2', 'git add src/a.py tests/test_a.py lib/b.py && git commit -m "feat"'),
    result('g2', '[master 70f2781] feat\n 3 files changed, 40 insertions(+)'),
  ];

  it('says none of them was staged (not "not all"), and that the `git add` staged them', () => {
    const { md } = built(...session(status('')));
    expect(md).toContain('showed 2 file(s) changed, none of them staged; the `git add` of the commit\'s own command staged them, and its commit at line 9 took them.');
    expect(md).not.toContain('not all of them staged');
  });

  it('says "not all" and "the rest" when the listing showed some staged', () => {
    const { md } = built(...session(status('Changes to be committed:\n  (use "git restore --staged <file>..." to unstage)\n\tmodified:   lib/b.py\n\n')));
    expect(md).toContain('changed, not all of them staged; the `git add` of the commit\'s own command staged the rest, and its commit at line 9 took them.');
  });
});

describe('files the session changed after the agent\'s last message, while the request is unfinished (the `37f83ec9` sample at 300: «Let me fix this:», then the fix)', () => {
  it('the Next Action says the step the message announced may be done, naming the file', () => {
    const { md } = built(user('u1', 'We lost the session list somehow :('), say('a1', 'I removed it by mistake. Let me fix this:'), edit('e1', 'templates/transcript.html'), updated('e1', 'templates/transcript.html'));
    expect(sections(md).get('Next Action')).toContain('After its last message (line 2) the session changed `transcript.html` (line 4): what the message says it will do may be done; read those changes before doing it again');
  });

  it('counts several files by the latest', () => {
    const { md } = built(user('u1', 'Fix both pages'), say('a1', 'Fixing both:'), edit('e1', 'a.html'), updated('e1', 'a.html'), edit('e2', 'b.html'), updated('e2', 'b.html'));
    expect(sections(md).get('Next Action')).toContain('the session changed 2 files (the latest `b.html`, line 6)');
  });

  it('says nothing when nothing was written after the message, or when the message came before the request', () => {
    const quiet = built(user('u1', 'Fix it'), say('a1', 'Looking:'), bash('b1', 'ls'), result('b1', 'a.html')).md;
    expect(sections(quiet).get('Next Action')).not.toContain('After its last message');
    const before = built(say('a0', 'Ready.'), user('u1', 'Fix it'), edit('e1', 'a.html'), updated('e1', 'a.html')).md;
    expect(sections(before).get('Next Action')).not.toContain('After its last message');
  });
});

describe('an install that installed a cached build older than the edits, and no open failure (coderabbit at 250: «No open failure.»)', () => {
  const install = (id: string, built: boolean) => [
    bash(id, 'uv tool install .'),
    result(id, `Resolved 4 packages in 2ms\n${built ? '   Building tool @ file:///w\n      Built tool @ file:///w\n' : ''}Installed 4 packages in 5ms\n + tool==0.1.0 (from file:///w)\nInstalled 1 executable: tool`),
  ];

  it('Failures And Blockers points at Checks Not Run', () => {
    const { md } = built(user('u1', 'Make the help show the new examples'), ...install('i1', true), edit('e1', 'tool.py'), updated('e1', 'tool.py'), ...install('i2', false), say('a1', 'The installed copy still shows the old help.'));
    expect(sections(md).get('Failures And Blockers')).toContain('No open failure of a check or command; the installed command runs code older than files written since its install (line 7): see Checks Not Run.');
    expect(sections(md).get('Verification')).toContain('built nothing (uv printed no `Built …` line)');
  });

  it('says nothing of it when the last install built the edits', () => {
    const { md } = built(user('u1', 'Make the help show the new examples'), edit('e1', 'tool.py'), updated('e1', 'tool.py'), ...install('i1', true), say('a1', 'Done.'));
    expect(sections(md).get('Failures And Blockers')).not.toContain('installed command');
  });
});

describe('a background job "completed" whose command pipes its output into `tail` (posthog at 1000: `bnyxbxdis`, the same crashing fetcher as the failed job beside it)', () => {
  const notice = (id: string) => user(`n-${id}`, `<task-notification>\n<task-id>${id}</task-id>\n<status>completed</status>\n<summary>Background command "fetch" completed (exit code 0)</summary>\n</task-notification>`);
  const started = (id: string, callId: string, command: string) => [call(callId, 'Bash', { command, run_in_background: true, description: 'fetch' }), result(callId, `Command running in background with ID: ${id}`)];

  it('says the exit code was its pipe\'s', () => {
    const { md } = built(user('u1', 'Fetch the data'), ...started('bj1', 'b1', 'python src/fetch.py 2>&1 | tail -60'), notice('bj1'), say('a1', 'Fetched.'));
    expect(sections(md).get('Current State')).toContain("completed (exit code 0 from its pipe's `tail`: the program's own is not known)");
  });

  it('says "completed" alone of a job with no pipe, or with `pipefail`', () => {
    for (const command of ['python src/fetch.py', 'set -o pipefail; python src/fetch.py | tail -60']) {
      const { md } = built(user('u1', 'Fetch the data'), ...started('bj1', 'b1', command), notice('bj1'), say('a1', 'Fetched.'));
      expect(sections(md).get('Current State')).toContain('completed (line 4)');
      expect(md).not.toContain("from its pipe's");
    }
  });
});

describe('failed writes of more files than the ledger keeps records of (edgerunner at 700: "14 file(s)" of the 16 its failed patches named)', () => {
  it('keeps one record a file, its latest failure, so the bound counts files', () => {
    const st = initialState();
    const l = st.ledger;
    const files = Array.from({ length: 16 }, (_, i) => `/w/src/f${i}.rs`);
    // A patch of ten files fails, then three patches of the same files fail again.
    for (const f of files.slice(0, 10)) markNotChanged(l, f, 10, 'apply_patch verification failed');
    for (const f of files.slice(4, 16)) markNotChanged(l, f, 20, 'apply_patch verification failed');
    for (const f of files.slice(8, 12)) markNotChanged(l, f, 30, 'apply_patch verification failed');
    for (const f of files) markChanged(l, f, 'edit', 'apply_patch', 40, false);
    const a = analysed(st);
    expect(a.filesRedone).toHaveLength(16);
    expect(a.writeFailuresDropped).toBe(0);
    expect(a.filesRedone.find((r) => r.path === '/w/src/f9.rs')).toEqual({ path: '/w/src/f9.rs', line: 30, at: 40 });
  });

  it('says "at least" when files went past the bound', () => {
    const st = initialState();
    const l = st.ledger;
    const files = Array.from({ length: 25 }, (_, i) => `/w/src/f${i}.rs`);
    for (const f of files) markNotChanged(l, f, 10, 'apply_patch verification failed');
    for (const f of files) markChanged(l, f, 'edit', 'apply_patch', 20, false);
    const a = analysed(st);
    expect(a.writeFailuresDropped).toBe(5);
    expect(a.filesRedone).toHaveLength(20);
  });

  it('renders the floor', () => {
    const patch = (id: string, n: number) => call(id, 'Edit', { file_path: `/nonexistent/w/f${n}.py`, old_string: 'x', new_string: 'y' });
    const records: Record<string, unknown>[] = [user('u1', 'Rename x')];
    for (let n = 0; n < 22; n += 1) records.push(patch(`p${n}`, n), result(`p${n}`, 'Error: String to replace not found in file.', { is_error: true }));
    for (let n = 0; n < 22; n += 1) records.push(edit(`e${n}`, `f${n}.py`), updated(`e${n}`, `f${n}.py`));
    records.push(say('a1', 'Renamed.'));
    const { md } = built(...records);
    expect(md).toMatch(/at least 20 file\(s\) had a write that was refused or failed/);
  });
});

describe('a call whose result the harness wrote before the call itself (FundWise at 230: the Edit\'s result at 227, the call at 229)', () => {
  it('is not said to have no result, and How it ended says where its result is', () => {
    const { md } = built(user('u1', 'Update issues.md'), say('a1', 'Committing first.'), result('e1', 'The file /nonexistent/w/issues.md has been updated successfully.'), say('a2', 'Now update issues.md:'), edit('e1', 'issues.md'));
    expect(md).toContain('the transcript ends on a tool call whose result the harness wrote before it (line 3), before the agent replied');
    expect(md).not.toContain('has no result');
  });

  it('still says a call with no result anywhere has none', () => {
    const { md } = built(user('u1', 'Update issues.md'), say('a2', 'Now update issues.md:'), edit('e1', 'issues.md'));
    expect(md).toContain('the transcript ends on a tool call with no result');
  });
});

describe('a `git add` after the latest listing, with no commit after it (agentcmd at 780: «1 of them untracked (never added to git)», all eight staged at 774)', () => {
  const session = (...after: Record<string, unknown>[]) =>
    built(user('u1', 'Commit and open the PR'), edit('e1', 'src/a.ts'), updated('e1', 'src/a.ts'), bash('g1', 'git status -sb'), result('g1', '## fix/x\n M src/a.ts\n?? src/b.ts'), ...after, say('a1', 'Staged.')).md;

  it('says what it staged, the untracked file among them', () => {
    const md = session(bash('g2', 'git add src/a.ts src/b.ts'), result('g2', ''));
    expect(md).toContain('listed 2 uncommitted file(s), 1 of them untracked (not added to git then): `src/a.ts`, `src/b.ts`. Since then the `git add` at line 7 staged 2 of them, the untracked one among them, and no commit came after it.');
  });

  it('does not count a `git add` that failed', () => {
    const md = session(bash('g2', 'git add src/(x)/a.ts'), result('g2', "Exit code 2\nbash: -c: line 0: syntax error near unexpected token `('", { is_error: true }));
    expect(md).toContain('1 of them untracked (never added to git)');
    expect(md).not.toContain('Since then the `git add`');
  });
});

describe('a task list item marked done that says something is kept running, and the session stopped it after (edgerunner at 800)', () => {
  const notice = (id: string, status: string) => user(`n-${id}`, `<task-notification>\n<task-id>${id}</task-id>\n<status>${status}</status>\n<summary>Background command "serve" ${status}</summary>\n</task-notification>`);
  const serve = (id: string, callId: string) => [call(callId, 'Bash', { command: 'npm run dev -- --port 3000', run_in_background: true, description: 'serve' }), result(callId, `Command running in background with ID: ${id}`)];
  const list = call('t1', 'TodoWrite', { todos: [{ content: 'Keep the dev server running for the user', status: 'completed', activeForm: 'Keeping' }] });

  it('is a claim the transcript contradicts', () => {
    const { md } = built(user('u1', 'Build the page and keep the server up'), ...serve('srv1', 'b1'), list, result('t1', 'Todos have been modified successfully.'), notice('srv1', 'killed'), say('a1', 'Done.'));
    expect(sections(md).get('Claims to double-check')).toContain('the task list marks «Keep the dev server running for the user» done, but the session stopped `npm run dev -- --port 3000` (started line 2) at line 6, and did not start it again');
  });

  it('is not when the server was started again', () => {
    const { md } = built(user('u1', 'Build the page and keep the server up'), ...serve('srv1', 'b1'), list, result('t1', 'Todos have been modified successfully.'), notice('srv1', 'killed'), ...serve('srv2', 'b2'), say('a1', 'Restarted.'));
    expect(sections(md).get('Claims to double-check')).not.toContain('Keep the dev server running');
  });
});

describe('a Codex rollout that ends on the agent\'s reasoning after a tool result', () => {
  const start = [
    codexMeta('0.40.0'),
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Make the team sheet fast' }] }),
    item({ type: 'function_call', name: 'shell', call_id: 's1', arguments: JSON.stringify({ command: ['bash', '-lc', 'rg useUpdateTeam -n'] }) }),
    item({ type: 'function_call_output', call_id: 's1', output: JSON.stringify({ output: 'hooks/useUpdateTeam.ts:66:export function useUpdateTeam() {', metadata: { exit_code: 0 } }) }),
  ];

  it('its reasoning event before the reasoning item (agentcmd at 200): the agent\'s latest reasoning, where it ended', () => {
    const { md } = built(...start, event({ type: 'agent_reasoning', text: '**Refining mutation cache updates**\n\nOptimistic update in onMutate, roll back on error.' }));
    expect(md).toContain("the transcript ends on the agent's reasoning (line 5) after a tool result (line 4), before the agent replied");
  });

  it('one record of it, when the reasoning item follows its event', () => {
    const text = '**Refining mutation cache updates**';
    const { md } = built(...start, event({ type: 'agent_reasoning', text }), item({ type: 'reasoning', summary: [{ type: 'summary_text', text }], content: null }));
    expect(md).toContain("the transcript ends on the agent's reasoning (line 6) after a tool result (line 4), before the agent replied");
    // The event is no turn of its own: the timeline holds the reasoning once, at the item's line.
    expect(md).toMatch(/## Recent timeline \(last \d+ of 4 turns\)/);
  });

  it('a reasoning item with no words (raze at 140, edgerunner at 250): said so, not "ends on a tool result"', () => {
    const { md } = built(...start, event({ type: 'token_count', info: null }), item({ type: 'reasoning', summary: [], content: null, encrypted_content: 'gAAAAAB' }));
    expect(md).toContain("the transcript ends on a record of the agent's reasoning whose words it does not hold (line 6), after a tool result (line 4), before the agent replied");
    expect(md).not.toContain('the transcript ends on a tool result');
  });
});

describe('a push of `HEAD` to a branch, where the harness recorded `HEAD` (posthog at 600: «a detached HEAD, or a repository with no commit yet»)', () => {
  it('says where the push sent it', () => {
    const md = built(
      { ...user('u1', 'Publish it'), gitBranch: 'HEAD' },
      bash('g1', 'git init -b main && git add -A && git commit -qm "Initial" | tail -1'),
      result('g1', ' create mode 100644 app.py'),
      bash('g2', 'gh repo create o/r --public --source=. --push'),
      result('g2', "https://github.com/o/r\nTo https://github.com/o/r.git\n * [new branch]      HEAD -> main\nbranch 'main' set up to track 'origin/main'."),
      say('a1', 'Published.'),
    ).md;
    expect(md).toContain("not a branch name (what the harness read when it recorded it; the session's own git output says where its work went) — *reported*. The session's `git push` (line 5) sent `HEAD` to `main` on the remote — *verified* from git's output.");
  });
});

describe('the last shell output, when a later call of another tool has the last result (FundWise at 120: «the last output (line 117)», a Read\'s at 120)', () => {
  it('is said to be the last shell output, and where the transcript ends', () => {
    const { md } = built(
      user('u1', 'Index the ADRs'),
      bash('g1', 'grep -n "Repo structure" docs/adr/0018.md'),
      result('g1', '12:## Repo structure'),
      call('r1', 'Read', { file_path: '/nonexistent/w/docs/adr/0018.md' }),
      result('r1', '     1→# ADR 0018'),
    );
    expect(md).toContain('the last shell output (line 3; a later call\'s result, at line 5, ends the transcript), of `grep -n "Repo structure" docs/adr/0018.md` (line 2)');
  });

  it('is the last output when the transcript ends on it', () => {
    const { md } = built(user('u1', 'Index the ADRs'), bash('g1', 'grep -n "Repo structure" docs/adr/0018.md'), result('g1', '12:## Repo structure'));
    expect(md).toContain('the last output (line 3), of `grep');
  });
});

describe('a task list written since the request that marks every item done (agentcmd at 500: the plan of 408 closed)', () => {
  it('the Next Action says so', () => {
    const { md } = built(
      user('u1', 'Make the sheet fast'),
      edit('e1', 'hooks/useTeam.ts'),
      updated('e1', 'hooks/useTeam.ts'),
      call('t1', 'TodoWrite', { todos: [{ content: 'Add a focused hook', status: 'completed', activeForm: 'Adding' }, { content: 'Stop broad invalidations', status: 'completed', activeForm: 'Stopping' }] }),
      result('t1', 'Todos have been modified successfully.'),
      bash('b1', 'git diff --stat'),
      result('b1', ' hooks/useTeam.ts | 4 ++--'),
    );
    expect(sections(md).get('Next Action')).toContain("the agent's task list, written since (line 4), marks all 2 of its item(s) done (under Current State)");
  });

  it('says nothing of it while an item is left', () => {
    const { md } = built(
      user('u1', 'Make the sheet fast'),
      call('t1', 'TodoWrite', { todos: [{ content: 'Add a focused hook', status: 'completed', activeForm: 'Adding' }, { content: 'Stop broad invalidations', status: 'pending', activeForm: 'Stopping' }] }),
      result('t1', 'Todos have been modified successfully.'),
      bash('b1', 'git diff --stat'),
      result('b1', ' hooks/useTeam.ts | 4 ++--'),
    );
    expect(sections(md).get('Next Action')).not.toContain('marks all');
  });
});

describe("a Codex rollout that ends on the agent's message as its event, before the message item (edgerunner at 150)", () => {
  const start = [
    codexMeta('0.144.0'),
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Implement the plan.' }] }),
    item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading the workspace first.' }] }),
    item({ type: 'function_call', name: 'shell', call_id: 's1', arguments: JSON.stringify({ command: ['bash', '-lc', 'ls'] }) }),
    item({ type: 'function_call_output', call_id: 's1', output: JSON.stringify({ output: 'README.md', metadata: { exit_code: 0 } }) }),
  ];

  it('a progress note: the agent\'s last message, and where it ended', () => {
    const { md } = built(...start, event({ type: 'agent_message', message: 'I’m creating the backend foundation now: fixed-point prices and replay checksums.', phase: 'commentary' }));
    const state = sections(md).get('State right now (verbatim tail)') ?? '';
    expect(state).toContain('I’m creating the backend foundation now');
    expect(state).toContain("the agent's last message (line 6), a progress note");
    expect(state).toContain("the transcript ends on the agent's progress note (line 6, which Codex wrote as its event; the message item that carries it is not in the transcript; the harness marked it commentary, not a final answer)");
  });

  it('a final answer that asks the user: the question is the one the Next Action quotes', () => {
    const { md } = built(...start, event({ type: 'agent_message', message: 'The scaffold is in place. Should I wire the live feed next?', phase: 'final_answer' }));
    expect(md).toContain('**How it ended: waiting-on-user** (line 6)');
    expect(sections(md).get('Next Action')).toContain('Should I wire the live feed next?');
  });

  it('nothing of it when the event comes after its item (as some versions write them)', () => {
    const text = 'The scaffold is in place.';
    const { md } = built(...start, item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }), event({ type: 'agent_message', message: text }));
    expect(sections(md).get('State right now (verbatim tail)')).toContain("the agent's last message (line 6)");
    expect(md).not.toContain('which Codex wrote as its event');
  });

  it('one message, not two, when the item follows its event', () => {
    const text = 'I’m creating the backend foundation now.';
    const { md } = built(...start, event({ type: 'agent_message', message: text, phase: 'commentary' }), item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }], phase: 'commentary' }));
    expect(sections(md).get('State right now (verbatim tail)')).toContain("the agent's last message (line 7)");
    expect(md).not.toContain('which Codex wrote as its event');
  });
});

describe('a write that did not happen, retried by a write the transcript has no result for (coderabbit at 200)', () => {
  it('says the later write has no result', () => {
    const { md } = built(
      user('u1', 'Document it in the README'),
      edit('e0', 'README.md'),
      updated('e0', 'README.md'),
      edit('e1', 'README.md'),
      result('e1', '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>', { is_error: true }),
      call('r1', 'Read', { file_path: '/nonexistent/w/README.md' }),
      result('r1', '     1→# Tool'),
      edit('e2', 'README.md'),
    );
    expect(md).toContain('a later write of it (line 8) has no result: whether it applied is not known');
  });
});

describe('a last message that hands the user a step and says what the agent does after it (posthog at 1250)', () => {
  it('is waiting on the user, with that sentence', () => {
    const { md } = built(user('u1', 'Deploy it'), say('a1', 'The app is private.\n\n1. Open its settings\n2. Set it public\n\nThen re-paste the URL and I\'ll smoke-test it again before stopping the timer.'));
    expect(md).toContain("**How it ended: waiting-on-user** (line 2) — *inferred*: the agent's last message asks the user: «Then re-paste the URL and I'll smoke-test it again before stopping the timer.»");
  });

  it('is not when the agent only says what it will do next', () => {
    for (const said of ['Deployed. Then I will send the report and close the ticket.', "Deployed. Then I'll send the PR and I'll ping the team."]) {
      const { md } = built(user('u1', 'Deploy it'), say('a1', said));
      expect(md).not.toContain('waiting-on-user');
    }
  });
});
