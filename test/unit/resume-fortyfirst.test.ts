import { describe, expect, it } from 'vitest';
import { call, edit, result, updated, user } from './claude-records.js';
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
    expect(md).toContain("the session's latest `git status` (line 7) showed 2 file(s) changed, not all of them staged; the `git add` of the commit's own command staged the rest, and its commit at line 9 took them.");
    expect(md).not.toContain('all staged');
  });

  it('names the line of a `git add` run apart from the commit', () => {
    const { md } = built(...session('git commit -m "feat: tar"', [bash('g0', 'git add src/a.py tests/test_a.py'), result('g0', '')]));
    expect(md).toContain('showed 2 file(s) changed, not all of them staged; the `git add` at line 9 staged the rest, and its commit at line 11 took them.');
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
