import { describe, expect, it } from 'vitest';
import type { Analysis } from '../../src/core/analysis.js';
import { jobs } from '../../src/core/render/handoff-md.js';
import { call, edit, REJECTED, result, say, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/**
 * The forty-first stop's reading (docs/FIDELITY.md): six readers of handoffs cut where no earlier
 * reading cut them (posthog at 1100, coderabbit at 220, deep-manifest at 290, the `37f83ec9`
 * sample at 250, localpush's other rollout at 600, edgerunner at 150).
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });
const unstagedStatus = 'On branch master\nChanges not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n\tmodified:   src/a.py\n\tmodified:   tests/test_a.py\n\nno changes added to commit (use "git add" and/or "git commit -a")';

describe('a `git status` of unstaged files, then a commit whose own `git add` staged them (deep-manifest at 257: «showed 3 file(s), all staged»)', () => {
  const session = (addThenCommit: string, between: Record<string, unknown>[] = []) => [
    user('u1', 'Commit the tar support'),
    edit('e1', 'src/a.py'),
    updated('e1', 'src/a.py'),
    edit('e2', 'tests/test_a.py'),
    updated('e2', 'tests/test_a.py'),
    bash('g1', 'git status'),
    result('g1', unstagedStatus),
    ...between,
    bash('g2', addThenCommit),
    result('g2', '[master 70f2781] feat: tar\n 2 files changed, 40 insertions(+)'),
  ];

  it('says the listing showed them changed, not staged, and that the commit’s own command staged them', () => {
    const { md } = built(...session('git add src/a.py tests/test_a.py && git commit -m "feat: tar"'));
    expect(md).toContain("the session's latest `git status` (line 7) showed 2 file(s) changed, none of them staged; the `git add` of the commit's own command staged them, and its commit at line 9 took them.");
    expect(md).not.toContain('all staged');
  });

  it('names the line of a `git add` run apart from the commit', () => {
    const { md } = built(...session('git commit -m "feat: tar"', [bash('g0', 'git add src/a.py tests/test_a.py'), result('g0', '')]));
    expect(md).toContain('showed 2 file(s) changed, none of them staged; the `git add` at line 9 staged them, and its commit at line 11 took them.');
  });

  it('still says "all staged" of a listing that showed them staged', () => {
    const staged = 'On branch master\nChanges to be committed:\n  (use "git restore --staged <file>..." to unstage)\n\tmodified:   src/a.py\n\tmodified:   tests/test_a.py\n';
    const { md } = built(...session('git commit -m "feat: tar"').map((r, i) => (i === 6 ? result('g1', staged) : r)));
    expect(md).toContain("the session's latest `git status` (line 7) showed 2 file(s), all staged, and its commit at line 9 took them.");
  });
});

describe("an echo's stub while a background job ran on (posthog at 1100: «issues.json … the text «[]»» after the fetcher rewrote it)", () => {
  const notice = (id: string, body: string) => user(`n-${id}`, `<task-notification>\n<task-id>${id}</task-id>\n${body}\n</task-notification>`);
  const session = (ended: boolean) => [
    user('u1', 'Fetch the data and build the dashboard'),
    call('m1', 'Bash', { command: 'python -u src/fetch.py', run_in_background: true, description: 'fetch' }),
    result('m1', 'Command running in background with ID: bf1'),
    bash('s1', "mkdir -p data/raw && echo '[]' > data/raw/issues.json"),
    result('s1', ''),
    ...(ended ? [notice('bf1', '<status>completed</status>\n<summary>Background command "fetch" completed (exit code 0)</summary>')] : []),
    call('r1', 'Read', { file_path: '/nonexistent/w/README.md' }),
    result('r1', '1\t# Dashboard'),
  ];

  it('says the text was the session’s then, and that the job ran on past it', () => {
    const { md } = built(...session(true));
    expect(md).toContain('| the text «[]», then; the background job of line 2 ran on to line 6 and may have rewritten it |');
    expect(built(...session(false)).md).toContain('the text «[]», then; the background job of line 2 runs on and may have rewritten it');
  });

  it('says the text alone when no job ran past the write', () => {
    const { md } = built(...session(true).filter((_, i) => i !== 1 && i !== 2));
    expect(md).toContain('| the text «[]» |');
  });
});

describe('a check that failed since the request, then a write, the session cut before it ran again (the `37f83ec9` sample at 250)', () => {
  const session = (rerun: boolean) => [
    user('u1', 'Do we even need the helper then?'),
    edit('e1', 'src/render.py'),
    updated('e1', 'src/render.py'),
    bash('t1', 'uv run pytest test/test_link.py -v'),
    result('t1', 'Exit code 1\n============ 3 failed, 3 passed in 0.4s ============', { is_error: true }),
    edit('e2', 'src/render.py'),
    updated('e2', 'src/render.py'),
    ...(rerun ? [bash('t2', 'uv run pytest test/test_link.py -v'), result('t2', '============ 6 passed in 0.4s ============')] : []),
    call('r1', 'Read', { file_path: '/nonexistent/w/src/render.py' }),
    result('r1', '1\tdef render(): pass'),
  ];

  it('tells the next agent, in the Next Action, that the check waits on a run', () => {
    const { md } = built(...session(false));
    expect(md).toContain("Continue the user's last request, which the agent was still working on (line 1: «Do we even need the helper then?»). Since the request, `uv run pytest test/test_link.py -v` failed (line 5) and `render.py` was written after it (line 7); it has not run again: whether that fixes it is not known until it does");
  });

  it('says nothing of it once the check ran again', () => {
    expect(built(...session(true)).md).not.toContain('Since the request,');
  });
});

describe('a server started again after its first start ended on an error (edgerunner at 400: «No open failure», job 65 running)', () => {
  const serve = 'cargo run -p edgerunner -- serve --bind 127.0.0.1:8080';
  const job = (id: string, line: number, status: Analysis['jobs'][number]['status'], last?: string) => ({ id, tool: 'exec', line, command: serve, status, ...(status === 'running' ? {} : { endLine: line + 5 }), ...(last === undefined ? {} : { lastEvent: { line: line + 5, text: last } }) });

  it('says, beside the running one, how the run before it ended', () => {
    const a = { jobs: [job('65', 402, 'running'), job('63477', 394, 'ended', 'Error: Operation not permitted (os error 1)')] } as unknown as Analysis;
    expect(jobs(a, 3)).toContain("`cargo run -p edgerunner -- serve --bind 127.0.0.1:8080`; the same program's run before it, `63477` (started line 394), ended on an error (line 399): «Error: Operation not permitted (os error 1)»");
    // Where the ended jobs are listed, it is said there, once.
    const full = jobs(a, 0);
    expect(full).toContain('- ended (line 399): `63477` (exec, started line 394) — last output (line 399): «Error: Operation not permitted (os error 1)»');
    expect(full).not.toContain("the same program's run before it");
  });

  it('says nothing of a run before it that ended without an error', () => {
    const a = { jobs: [job('65', 402, 'running'), job('63477', 394, 'ended', 'Listening on 127.0.0.1:8080')] } as unknown as Analysis;
    expect(jobs(a, 0)).not.toContain("the same program's run before it");
  });
});

describe('a write that did not happen, and no other failure (FundWise at 200: «No open failure.» beside a failed package.json edit)', () => {
  it('is named in Failures And Blockers, pointing at the list of writes that did not happen', () => {
    const { md } = built(
      user('u1', 'Wire the readiness script into package.json'),
      edit('e1', 'package.json'),
      result('e1', '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>', { is_error: true }),
      call('r1', 'Read', { file_path: '/nonexistent/w/package.json' }),
      result('r1', '1\t{ "name": "w" }'),
    );
    expect(md).toContain('## Failures And Blockers\n\nNo open failure of a check or command; a write did not happen (`package.json`, line 3): see Writes that did not happen.');
  });

  it('but not a write the user refused: a decision, which User requests lists (the `37f83ec9` sample at 72)', () => {
    const { md } = built(
      user('u1', 'Add a test for the link'),
      call('w1', 'Write', { file_path: '/nonexistent/w/test_link.py', content: 'x\n' }),
      result('w1', REJECTED, { is_error: true }),
      user('u2', 'Save it as a permanent unit test instead'),
    );
    expect(md).toContain('- `test_link.py` (line 3): rejected by the user');
    expect(md).not.toContain('a write did not happen');
  });
});

describe('checks run after the message quoted as the state now (agentcmd at 560: «Not run: project lint/tests», lint passed at 549)', () => {
  it('are named beside it, the latest of each command', () => {
    const { md } = built(
      user('u1', 'Refactor the team sheet'),
      edit('e1', 'src/sheet.tsx'),
      updated('e1', 'src/sheet.tsx'),
      say('a1', 'Done: the sheet loads one team.\n\nNot run: project lint/tests.'),
      bash('l1', 'pnpm lint'),
      result('l1', 'src/team.ts\n  12:9  warning  teamLead is assigned a value but never used\n\n✖ 1 problem (0 errors, 1 warning)'),
      edit('e2', 'src/team.ts'),
      updated('e2', 'src/team.ts'),
      bash('l2', 'pnpm lint'),
      result('l2', '✔ No ESLint warnings or errors'),
      call('r1', 'Read', { file_path: '/nonexistent/w/src/sheet.tsx' }),
      result('r1', '1\texport {}'),
    );
    expect(md).toContain('; checks ran after it: `pnpm lint` passed (line 10) (see Recent timeline)');
  });
});

describe('a test run that selected no test (`37f83ec9` at 330: «`uv run pytest -m unit -v` last ran at line 46, before files it checks changed»)', () => {
  const session = (out: string) => [
    user('u1', 'Fix the link and keep a test for it'),
    bash('t1', 'uv run pytest -m unit -v'),
    result('t1', `Exit code 5\n${out}`, { is_error: true }),
    edit('e1', 'src/render.py'),
    updated('e1', 'src/render.py'),
    bash('t2', 'uv run pytest test/test_link.py -v'),
    result('t2', '============ 6 passed in 0.4s ============'),
    edit('e2', 'src/render.py'),
    updated('e2', 'src/render.py'),
    bash('t3', 'uv run ruff check src'),
    result('t3', 'All checks passed!'),
  ];

  it('is not dated as a check to run again: it checked nothing', () => {
    const { md } = built(...session('=========================== 205 deselected in 0.58s ============================'));
    expect(md).toContain('| `uv run pytest -m unit -v` | failed | line 3, exit 5: selected no test:');
    expect(md).not.toContain('`uv run pytest -m unit -v` last ran at line 3');
  });

  it('but a run that failed its tests is', () => {
    const { md } = built(...session('=========================== 2 failed, 3 passed in 0.58s ============================').map((r, i) => (i === 2 ? result('t1', 'Exit code 1\n== 2 failed, 3 passed in 0.58s ==', { is_error: true }) : r)));
    expect(md).toContain('`uv run pytest -m unit -v` last ran at line 3');
  });
});

describe('the last readers of this stop (agentcmd at 150, edgerunner at 700, posthog at 500)', () => {
  it("counts the calls after the user's message when the agent has written no text (agentcmd at 150: «no agent reply yet» over 50 calls and a patch)", () => {
    const { md } = built(
      user('u1', 'Make the team sheet fast'),
      call('r1', 'Read', { file_path: '/nonexistent/w/src/team.ts' }),
      result('r1', '1\texport {}'),
      edit('e1', 'src/team.ts'),
      updated('e1', 'src/team.ts'),
    );
    expect(md).toContain("the user's last message (the agent has written no text since) (line 1); the session went on after it with 2 tool call(s), up to line 4, which changed 1 file (`team.ts`, line 5): what it asks may be done since");
    expect(md).not.toContain('no agent reply yet');
    // With no call after it, it is still the request with no reply.
    expect(built(user('u1', 'Make the team sheet fast')).md).toContain("the user's last message (no agent reply yet)");
  });

  it('takes a run of the tests for a run of `cargo test --no-run` (edgerunner at 700: «`cargo test --workspace --no-run` last ran at line 511» after the tests passed at 702)', () => {
    const { md } = built(
      user('u1', 'Harden the service'),
      bash('b1', 'cargo test --workspace --no-run'),
      result('b1', '    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.63s'),
      edit('e1', 'src/engine.rs'),
      updated('e1', 'src/engine.rs'),
      bash('t1', 'cargo test --workspace'),
      result('t1', 'test result: ok. 13 passed; 0 failed; 0 ignored'),
    );
    expect(md).not.toContain('`cargo test --workspace --no-run` last ran at line 3');
  });

  it('says of a file deleted while a background job ran on that the job may have made it again (posthog at 500: `prs.json` «deleted» while the fetcher rewrote it)', () => {
    const { md } = built(
      user('u1', 'Fetch again from the start'),
      bash('s1', "echo '[]' > data/raw/prs.json"),
      result('s1', ''),
      bash('d1', 'rm -f data/raw/prs.json && date'),
      result('d1', '15:23:29'),
      call('m1', 'Bash', { command: 'python -u src/fetch.py', run_in_background: true, description: 'fetch' }),
      result('m1', 'Command running in background with ID: bf2'),
    );
    expect(md).toContain('| `data/raw/prs.json` | deleted | 5 (2 writes, the first at 3) | the text «[]»; the background job of line 6 runs on and may have made it again |');
  });
});

describe('a format check, then the formatter run clean (edgerunner at 250: «`cargo fmt --all -- --check && cargo check` last ran at line 181» after `cargo fmt --all && cargo check` passed at 245)', () => {
  const session = (then: string) => [
    user('u1', 'Scaffold the workspace'),
    edit('e1', 'src/main.rs'),
    updated('e1', 'src/main.rs'),
    bash('c1', 'cargo fmt --all -- --check && cargo check --workspace'),
    result('c1', 'Exit code 1\nDiff in /nonexistent/w/src/main.rs:', { is_error: true }),
    edit('e2', 'src/main.rs'),
    updated('e2', 'src/main.rs'),
    bash('c2', then),
    result('c2', '    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.90s'),
    bash('t1', 'cargo test --workspace'),
    result('t1', 'test result: ok. 3 passed; 0 failed'),
  ];

  it('is not dated as stale once the formatter ran clean after the change', () => {
    expect(built(...session('cargo fmt --all && cargo check --workspace')).md).not.toContain('`cargo fmt --all -- --check && cargo check --workspace` last ran at line');
  });

  it('is, when only the compiler ran again', () => {
    expect(built(...session('cargo check --workspace')).md).toContain('`cargo fmt --all -- --check && cargo check --workspace` last ran at line 5');
  });
});

describe("a commit the session did not make, then a push of HEAD's branch (agentcmd at 800: «if that push sent HEAD's branch, the commit is on the remote too»)", () => {
  const session = (push: string) => [
    user('u1', 'Commit and push the team work, then open a PR'),
    bash('g0', 'git log --oneline -1'),
    result('g0', '9d35684 Previous work'),
    bash('g1', 'git add -A && git status -sb'),
    result('g1', '## fix/team-optimization-v2\nM  src/team.ts'),
    bash('g2', 'git log --oneline -1'),
    result('g2', 'a7bfa7b optimized team loading'),
    bash('g3', push),
    result('g3', 'To github.com:acme/app.git\n * [new branch]      fix/team-optimization-v2 -> fix/team-optimization-v2'),
  ];

  it('says the commit is on the remote when the push named the branch HEAD was on', () => {
    const { md, summary } = built<{ session_git: { foreign_head: { pushed_line?: number; pushed_branch?: string } } }>(...session('git push origin fix/team-optimization-v2'));
    expect(md).toContain("the push at line 9 came after it with HEAD unmoved and sent HEAD's branch (`fix/team-optimization-v2`), so the commit is on the remote too");
    expect(summary.session_git.foreign_head).toMatchObject({ pushed_line: 9, pushed_branch: 'fix/team-optimization-v2' });
  });

  it('keeps the hedge when no listing said which branch HEAD was on', () => {
    const unlisted = session('git push origin fix/team-optimization-v2').map((r, i) => (i === 3 ? bash('g1', 'git add -A') : i === 4 ? result('g1', '') : r));
    const { md } = built(...unlisted);
    expect(md).toContain("the push at line 9 came after it with HEAD unmoved, so if that push sent HEAD's branch, the commit is on the remote too");
  });
});

describe('a plan longer than the head kept of it (deep-manifest at 120: step 8, in progress, past the 3,999 characters shown)', () => {
  const step = (n: number) => `### ${n}. Update \`step_${n}()\`\n\n${'Explain the change in words. '.repeat(8)}\n\n\`\`\`python\n# not a heading: a comment in code\nx = ${n}\n\`\`\`\n`;
  const PLAN = `# Plan: Add Tar Support\n\n## Implementation\n\n${Array.from({ length: 16 }, (_, i) => step(i + 1)).join('\n')}\n## Files to Modify\n\n- \`app/main.py\`\n`;
  it('names the headings of the part left out, not the comments of its code', () => {
    const { md } = built(user('u1', 'Add tar support'), call('p1', 'ExitPlanMode', { plan: PLAN }), result('p1', 'User has approved your plan. You can now start coding.'), edit('e1', 'app/main.py'), updated('e1', 'app/main.py'));
    expect(PLAN.length).toBeGreaterThan(4000);
    expect(md).toMatch(/is only in the transcript at line 2; its headings: «### \d+\. Update `step_\d+\(\)`», /);
    expect(md).toContain('«## Files to Modify»');
    expect(md).not.toContain('«# not a heading');
  });
});
