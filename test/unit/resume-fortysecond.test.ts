import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { call, edit, result, say, todos, todosDone, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/**
 * The forty-second stop's reading (docs/FIDELITY.md): six readers of handoffs cut where no earlier
 * reading cut them (posthog at 450, edgerunner at 460, rave-era at 320, agentcmd at 620, localpush's
 * longer rollout at 2300, the worktrees sample at 130).
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });

describe('a `git status` whose entries are new files staged and never committed (rave-era at 321: 47 of 67 entries `A`/`AM`)', () => {
  const session = (status: string) => [user('u1', 'Audit the app'), edit('e1', 'app/page.tsx'), updated('e1', 'app/page.tsx'), bash('g1', 'git status --short'), result('g1', status), say('a1', 'Audited.')];

  it('says how many are staged as new files, in no commit', () => {
    const { md } = built(...session('AM app/page.tsx\nA  lib/format.ts\n M README.md\n?? supabase/'));
    expect(md).toContain('listed 4 uncommitted file(s), 1 of them untracked (never added to git), 2 of them new files staged with `git add`, in no commit; 1 of the entries are untracked folders');
  });

  it('reads the long form\'s "new file:" too', () => {
    const long = 'On branch main\n\nNo commits yet\n\nChanges to be committed:\n  (use "git rm --cached <file>..." to unstage)\n\tnew file:   app/page.tsx\n\tnew file:   lib/format.ts\n\tmodified:   README.md\n';
    const { md } = built(...session(long));
    expect(md).toContain('2 of them new files staged with `git add`, in no commit');
  });

  it('says nothing of new files when every entry is a change to a tracked file', () => {
    const { md } = built(...session(' M app/page.tsx\nM  lib/format.ts'));
    expect(md).toContain('listed 2 uncommitted file(s)');
    expect(md).not.toContain('new files staged');
  });
});

describe('background jobs that failed, and no open failure (posthog at 450: «None» under Failures And Blockers, «2 failed» among the jobs)', () => {
  const notice = (id: string, status: string, summary: string) => user(`n-${id}`, `<task-notification>\n<task-id>${id}</task-id>\n<status>${status}</status>\n<summary>${summary}</summary>\n</task-notification>`);
  const started = (id: string, callId: string, command: string) => [call(callId, 'Bash', { command, run_in_background: true, description: 'fetch' }), result(callId, `Command running in background with ID: ${id}`)];

  it('names the latest in Failures And Blockers, pointing at the jobs', () => {
    const { md } = built(
      user('u1', 'Fetch the data'),
      ...started('bf1', 'b1', 'python src/fetch.py 2>&1 | tail -40'),
      notice('bf1', 'failed', 'Background command "fetch" failed with exit code 144'),
      say('a1', 'Looking at the fetcher.'),
    );
    expect(sections(md).get('Failures And Blockers')).toContain('No open failure of a check or command; a background job failed (`bf1`, started line 2, ended line 4): see Background jobs.');
  });

  it('says when the same program was started again after the latest', () => {
    const { md } = built(
      user('u1', 'Fetch the data'),
      ...started('bf1', 'b1', 'python src/fetch.py'),
      notice('bf1', 'failed', 'Background command "fetch" failed with exit code 1'),
      ...started('bf2', 'b2', 'python src/fetch.py'),
      say('a1', 'Started again.'),
    );
    expect(sections(md).get('Failures And Blockers')).toContain('a background job failed (`bf1`, started line 2, ended line 4); the same program runs again (`bf2`, line 5): see Background jobs.');
  });

  it('says "None" still when every job ended well', () => {
    const { md } = built(
      user('u1', 'Fetch the data'),
      ...started('bf1', 'b1', 'python src/fetch.py'),
      notice('bf1', 'completed', 'Background command "fetch" completed (exit code 0)'),
      say('a1', 'Fetched.'),
    );
    expect(sections(md).get('Failures And Blockers')).not.toContain('background job');
  });
});

describe('a plan step marked done with no run behind it, then the user saying it does not work (agentcmd at 620: «no line contradicts them»)', () => {
  const session = (after: Record<string, unknown>[]) => [
    user('u1', 'Make the team sheet update optimistically'),
    edit('e1', 'src/TeamSheet.tsx'),
    updated('e1', 'src/TeamSheet.tsx'),
    todos('t1', [['Improve the team update mutations, then validate', 'completed']]),
    todosDone('t1'),
    say('a1', 'Done: the sheet updates instantly.'),
    ...after,
  ];

  it("says the user's report came after the claim", () => {
    const { md } = built(...session([user('u2', 'It is still not working. No data is showing up')]));
    const claims = sections(md).get('Claims to double-check') ?? '';
    expect(claims).toContain('(unverified; the user said after them that it does not work, see each)');
    expect(claims).toContain('; after it the user said it does not work (line 7; see Failures And Blockers)');
    expect(claims).not.toContain('no line contradicts them');
  });

  it('keeps "no line contradicts them" when the user said nothing of the kind', () => {
    const { md } = built(...session([user('u2', 'Thanks, now add a test')]));
    const claims = sections(md).get('Claims to double-check') ?? '';
    expect(claims).toContain('no line contradicts them: they are unverified');
    expect(claims).not.toContain('the user said it does not work');
  });
});

describe('the output the transcript ends on, before the agent replied (worktrees at 130: the check the user asked for, cut short in the timeline)', () => {
  const printed = '=== agent-a4ca ===\nad2d134 alice: round 1\n04752c6 Add intent\n-- status --\n=== agent-a528 ===\ne081dab bob: round 1\n04752c6 Add intent\n-- status --';

  it('is quoted under the way the session ended, with its command', () => {
    const { md } = built(
      user('u1', 'Dispatch round 2'),
      say('a1', 'Round 2 dispatched. Waiting for their replies.'),
      user('u2', 'They seem stuck or done... can you check?'),
      bash('b1', 'for d in .claude/worktrees/agent-*; do git -C "$d" log --oneline -3; done'),
      result('b1', printed),
      call('s1', 'ToolSearch', { query: 'select:TaskOutput' }),
      result('s1', 'loaded'),
    );
    const state = sections(md).get('State right now (verbatim tail)') ?? '';
    // A ToolSearch's result came after it (the forty-third stop says so).
    expect(state).toContain('*verified* — the last shell output (line 5; a later call\'s result, at line 7, ends the transcript), of `for d in .claude/worktrees/agent-*; do git -C "$d" log --oneline -3; done` (line 4):');
    expect(state).toContain('e081dab bob: round 1');
  });

  it('is not quoted when the agent answered it', () => {
    const { md } = built(user('u1', 'Check the worktrees'), bash('b1', 'git worktree list'), result('b1', printed), say('a1', 'Both are at round 1.'));
    expect(md).not.toContain('the last output (line');
  });

  it('keeps its head and tail when it is long, and says how long it was', () => {
    const long = Array.from({ length: 200 }, (_, i) => `row ${i} of the listing`).join('\n');
    const { md } = built(user('u1', 'List them'), bash('b1', 'ls -1 data'), result('b1', long));
    const state = sections(md).get('State right now (verbatim tail)') ?? '';
    expect(state).toMatch(/the last output \(line 3\), of `ls -1 data` \(line 2\); \d{4} characters, its head and tail here \(the whole is that line of the transcript\):/);
    expect(state).toContain('row 0 of the listing');
    expect(state).toContain('row 199 of the listing');
    expect(state).not.toContain('row 100 of the listing');
  });
});

describe('the second six readers (posthog at 800, coderabbit at 160, agentcmd at 350, edgerunner at 560)', () => {
  const notice = (id: string, status: string, summary: string) => user(`n-${id}`, `<task-notification>\n<task-id>${id}</task-id>\n<status>${status}</status>\n<summary>${summary}</summary>\n</task-notification>`);

  it('calls a job the session killed by name stopped, not failed (posthog at 162: `pkill -f fetch.py`, then «failed with exit code 144»)', () => {
    const { md, summary } = built<{ jobs: { id: string; status: string; killed_at?: number }[] }>(
      user('u1', 'Fetch the data'),
      call('b1', 'Bash', { command: 'python src/fetch.py 2>&1 | tail -40', run_in_background: true, description: 'fetch' }),
      result('b1', 'Command running in background with ID: bf1'),
      bash('k1', 'pkill -f fetch.py; sleep 1'),
      result('k1', ''),
      notice('bf1', 'failed', 'Background command "fetch" failed with exit code 144'),
      say('a1', 'Stopped the old fetcher.'),
    );
    expect(summary.jobs).toEqual([expect.objectContaining({ id: 'bf1', status: 'stopped', killed_at: 4 })]);
    expect(md).toContain("- stopped (line 6) (by the session's own kill at line 4): `bf1`");
    expect(sections(md).get('Failures And Blockers')).not.toContain('background job');
  });

  it('still calls a job failed when the kill named another program', () => {
    const { summary } = built<{ jobs: { status: string }[] }>(
      user('u1', 'Fetch the data'),
      call('b1', 'Bash', { command: 'python src/fetch.py', run_in_background: true, description: 'fetch' }),
      result('b1', 'Command running in background with ID: bf1'),
      bash('k1', 'pkill -f streamlit'),
      result('k1', ''),
      notice('bf1', 'failed', 'Background command "fetch" failed with exit code 1'),
    );
    expect(summary.jobs.map((j) => j.status)).toEqual(['failed']);
  });

  it("takes a poll that says the job runs on for the poll's own result (coderabbit at 160: «No result is recorded for the call at line 159»)", () => {
    const { md } = built(
      user('u1', 'Reinstall the tool'),
      say('a1', 'Reinstalling.'),
      call('b1', 'Bash', { command: 'uv tool uninstall x && uv cache clean && uv tool install .', timeout: 30000 }),
      { ...result('b1', 'Command running in background with ID: 7d95c5'), toolUseResult: { stdout: '', stderr: '', backgroundTaskId: '7d95c5' } },
      call('p1', 'BashOutput', { bash_id: '7d95c5' }),
      result('p1', '<status>running</status>\n\n<stderr>\nUninstalled 1 executable: x\nClearing cache at: /home/u/.cache/uv\n</stderr>'),
    );
    expect(md).not.toContain('No result is recorded for the call at line 5');
  });

  it('says, after a go-ahead, that the session wrote files since (agentcmd at 350: both steps of line 189 written by 313)', () => {
    const { md } = built(
      user('u1', 'Is this done?'),
      say('a1', 'Not yet. Next steps: 1) add a hook that loads one team 2) drop the broad invalidations.'),
      user('u2', 'ok continue'),
      edit('e1', 'src/hooks/useTeam.ts'),
      updated('e1', 'src/hooks/useTeam.ts'),
      bash('b1', 'ls src'),
      result('b1', 'hooks'),
    );
    expect(sections(md).get('Next Action')).toContain('. Since the go-ahead the session wrote 1 file(s) (the latest `useTeam.ts`, line 5): some of those steps may be done; see Files changed');
  });

  it('says of a job still running that files were written after it started (edgerunner at 560: the server of 402, the edits of 556)', () => {
    const { md } = built(
      user('u1', 'Run the server and fix the risk gate'),
      call('b1', 'Bash', { command: 'cargo run -- serve', run_in_background: true, description: 'serve' }),
      result('b1', 'Command running in background with ID: s1'),
      edit('e1', 'src/risk.rs'),
      updated('e1', 'src/risk.rs'),
      edit('e2', 'README.md'),
      updated('e2', 'README.md'),
      say('a1', 'Gate fixed.'),
    );
    expect(md).toContain('; the session wrote 1 file(s) after it started (the latest `risk.rs`, line 5): it may run code older than them');
  });

  it('counts, for a job that runs a script it names, only writes of that script (posthog at 420: `analyze.py` written while `fetch.py` ran)', () => {
    const session = (path: string) =>
      built(
        user('u1', 'Fetch and analyze'),
        call('b1', 'Bash', { command: 'source .venv/bin/activate && python -u src/fetch.py 2>&1 | grep chunk', run_in_background: true, description: 'fetch' }),
        result('b1', 'Command running in background with ID: m1'),
        edit('e1', path),
        updated('e1', path),
        say('a1', 'Written.'),
      ).md;
    expect(session('src/analyze.py')).not.toContain('after it started');
    expect(session('src/fetch.py')).toContain('; the session wrote 1 file(s) after it started (the latest `fetch.py`, line 5): it may run code older than them');
  });
});

describe('the third six readers (the `37f83ec9` sample at 120, posthog at 1200)', () => {
  it("quotes, between the last output's head and tail, the lines of its middle that say what failed (`37f83ec9` at 123: the assertions sat between them)", () => {
    const passed = Array.from({ length: 40 }, (_, i) => `test/test_a.py::test_ok_${i} PASSED [${i}%]`).join('\n');
    const out = `${'=== test session starts ===\n'.repeat(30)}${passed}\ntest/test_link.py::test_link FAILED [99%]\n${'    some context line of the traceback\n'.repeat(60)}test/test_link.py:59: AssertionError\n${'x = 1\n'.repeat(200)}=== 1 failed, 40 passed in 0.41s ===`;
    const { md } = built(user('u1', 'Add the link test'), bash('b1', 'uv run pytest test/test_link.py -v'), result('b1', out, { is_error: true }));
    const state = sections(md).get('State right now (verbatim tail)') ?? '';
    expect(state).toContain('its head and tail here and the lines of its middle that say what failed');
    expect(state).toContain('\ntest/test_link.py::test_link FAILED [99%]\ntest/test_link.py:59: AssertionError\n…\n');
    expect(state).toContain('=== 1 failed, 40 passed in 0.41s ===');
  });

  it("names files a program's run wrote, not docs, as the changes after the last check (posthog at 1200: «later changes only to docs or ignore lists» of `scores.json`)", () => {
    const { md } = built(
      user('u1', 'Score the data'),
      bash('t1', 'pytest -q'),
      result('t1', '3 passed in 0.10s'),
      edit('e1', 'src/analyze.py'),
      updated('e1', 'src/analyze.py'),
      bash('r1', 'python src/analyze.py'),
      result('r1', 'Saved /nonexistent/w/data/scores.json'),
    );
    expect(md).toContain("No test, build, type check or lint ran after the last file change (line 5; later changes only to files a program's run wrote)");
    expect(md).not.toContain('later changes only to docs or ignore lists');
  });
});

describe("commands run outside Codex's sandbox (edgerunner at 460 and 560: a port's bind, a `curl` of localhost, each failed inside it first)", () => {
  const meta = { timestamp: '2026-07-10T18:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/nonexistent/w', cli_version: '0.125.0', originator: 'codex_cli_rs' } };
  const ctx = { timestamp: '2026-07-10T18:00:01Z', type: 'turn_context', payload: { cwd: '/nonexistent/w', approval_policy: 'on-request', sandbox_policy: { type: 'workspace-write', network_access: false }, model: 'gpt-5' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-07-10T18:00:10Z', type: 'response_item', payload });
  const say = (text: string) => item({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  const exec = (id: string, cmd: string, extra: Record<string, unknown> = {}) => item({ type: 'function_call', name: 'exec_command', call_id: id, arguments: JSON.stringify({ cmd, ...extra }) });
  const out = (id: string, code: number, text: string) => item({ type: 'function_call_output', call_id: id, output: `Process exited with code ${code}\nOutput:\n${text}` });

  it('names them beside the permissions, with the failure inside the sandbox before', () => {
    const { md, summary } = built<{ escalated?: unknown }>(
      meta,
      ctx,
      say('Check the server'),
      exec('c1', 'curl -sS http://127.0.0.1:8080/api/health'),
      out('c1', 7, "curl: (7) Couldn't connect to server"),
      exec('c2', 'curl -sS http://127.0.0.1:8080/api/health', { sandbox_permissions: 'require_escalated', justification: 'reach the local server' }),
      out('c2', 0, '{"ok":true}'),
    );
    expect(md).toContain("The session asked to run commands outside the sandbox (`require_escalated`: each one the user or a rule had to approve): the one at line 6, `curl -sS http://127.0.0.1:8080/api/health` (line 6; inside the sandbox it had failed, line 5) — *verified*.");
    expect(summary.escalated).toEqual({ count: 1, first_line: 6, runs: [{ line: 6, command: 'curl -sS http://127.0.0.1:8080/api/health', failed_inside_line: 5 }] });
  });

  it('reads the older form (`with_escalated_permissions`) and names a patch by its file', () => {
    const { md } = built(
      meta,
      ctx,
      say('Add the route'),
      item({ type: 'function_call', name: 'shell', call_id: 'p1', arguments: JSON.stringify({ command: ['bash', '-lc', "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: src/route.ts\n+export {};\n*** End Patch\nPATCH"], with_escalated_permissions: true }) }),
      item({ type: 'function_call_output', call_id: 'p1', output: JSON.stringify({ output: 'Success. Updated the following files:\nA src/route.ts\n', metadata: { exit_code: 0 } }) }),
    );
    expect(md).toContain('the one at line 4, `apply_patch (route.ts)` (line 4)');
  });

  it('says nothing when no command asked', () => {
    const { md, summary } = built<{ escalated?: unknown }>(meta, ctx, say('Check'), exec('c1', 'ls'), out('c1', 0, 'a'));
    expect(md).not.toContain('outside the sandbox (`require_escalated`');
    expect(summary.escalated).toBeUndefined();
  });
});

describe('the last three readers (deep-manifest at 160, edgerunner at 420)', () => {
  it("quotes a coverage report's row that lists the lines no test ran, from the last output's middle (deep-manifest at 160: «96%   163->165, 166->155, 169, 217-221»)", () => {
    const head = `${'=== test session starts ===\n'.repeat(20)}collected 58 items\n\ntests/test_unit.py ${'.'.repeat(40)} [100%]\n`;
    const table = 'Name                             Stmts   Miss Branch BrPart  Cover   Missing\n----------------------------------------------------------------------------\npkg/__init__.py                      2      0      0      0   100%\npkg/core.py                        187      6     64      4    96%   163->165, 166->155, 169, 217-221\n';
    const out = `${head}${table}${'-'.repeat(76)}\nTOTAL                              190      6     64      4    96%\nCoverage HTML written to dir htmlcov\n${'=== 58 passed in 3.13s ===\n'.repeat(6)}`;
    const { md } = built(user('u1', 'Add tar support with full coverage'), bash('b1', 'pytest -x'), result('b1', out));
    expect(sections(md).get('State right now (verbatim tail)')).toContain('\npkg/core.py                        187      6     64      4    96%   163->165, 166->155, 169, 217-221\n');
  });

  it('counts a job whose last line says its build failed, or that a host could not be resolved, as failed (edgerunner at 420: «2 background jobs failed» of 5)', async () => {
    const { endedOnError } = await import('../../src/core/jobs.js');
    const ended = (text: string) => ({ id: '1', line: 1, tool: 'exec', command: 'cargo test', status: 'ended' as const, lastEvent: { line: 2, text } });
    expect(endedOnError(ended('warning: build failed, waiting for other jobs to finish...'))).toBe(true);
    expect(endedOnError(ended("[6] Couldn't resolve host name (Could not resolve host: index.crates.io)"))).toBe(true);
    expect(endedOnError(ended('test result: ok. 6 passed; 0 failed'))).toBe(false);
  });

  it('counts the jobs not listed that ended on an error apart from those that ended (edgerunner whole: «16 ended» beside «5 background jobs failed»)', async () => {
    const { jobs } = await import('../../src/core/render/handoff-md.js');
    const job = (id: string, line: number, status: string, text?: string) => ({ id, tool: 'exec', line, command: 'cargo check', status, endLine: line + 2, ...(text === undefined ? {} : { lastEvent: { line: line + 2, text } }) });
    const a = { jobs: [{ id: 'r1', tool: 'exec', line: 400, command: 'cargo run -- serve', status: 'running' }, job('s1', 300, 'stopped'), job('e1', 200, 'ended', 'warning: build failed, waiting for other jobs to finish...'), job('e2', 100, 'ended', 'Finished `dev` profile'), job('e3', 50, 'ended', 'error: could not compile `x`')] };
    expect(jobs(a as never, 1)).toContain('4 more job(s) in HANDOFF.summary.json (2 ended on an error, 1 stopped, 1 ended).');
  });
});
