import { describe, expect, it } from 'vitest';
import { call, edit, result, say, todos, todosDone, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';
import { coverageMissing, spansHold } from '../../src/core/outcome.js';
import { jobs } from '../../src/core/render/handoff-md.js';
import type { Analysis } from '../../src/core/analysis.js';
import { readsOnly } from '../../src/core/shell.js';

/**
 * Rules from the second round of the thirty-first reading's readers, left then and made in the
 * thirty-second stop (docs/FIDELITY.md): a claim of coverage a report contradicts, a plan step
 * tested before a later change, a deleted file that a later command reads.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });

const REPORT = [
  'tests/test_unit.py ..........................................            [100%]',
  '',
  '================================ tests coverage ================================',
  '_______________ coverage: platform linux, python 3.12.3-final-0 ________________',
  '',
  'Name                             Stmts   Miss Branch BrPart  Cover   Missing',
  '----------------------------------------------------------------------------',
  'deep_manifest/__init__.py            2      0      0      0   100%',
  'deep_manifest/deep_manifest.py     187      1     64      2    99%   163->165, 169',
  '----------------------------------------------------------------------------',
  'TOTAL                              190      1     64      2    99%',
  '============================== 66 passed in 4.15s ==============================',
].join('\n');

describe('coverage reports read for the lines no test ran', () => {
  it("reads coverage.py's Missing column without its branch arcs, and Jest's Uncovered Line #s", () => {
    expect(coverageMissing(REPORT)).toEqual([
      { file: 'deep_manifest/__init__.py', spans: '' },
      { file: 'deep_manifest/deep_manifest.py', spans: '169' },
    ]);
    const jest = [
      'File      | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s ',
      '----------|---------|----------|---------|---------|-------------------',
      'All files |   85.71 |       50 |     100 |   85.71 |                   ',
      ' foo.js   |   85.71 |       50 |     100 |   85.71 | 12-15,20          ',
    ].join('\n');
    expect(coverageMissing(jest)).toEqual([{ file: 'foo.js', spans: '12-15, 20' }]);
    expect(coverageMissing(`${jest}\n bar.js   |     100 |      100 |     100 |     100 |                   `)).toEqual([{ file: 'foo.js', spans: '12-15, 20' }, { file: 'bar.js', spans: '' }]);
    expect(coverageMissing('Name    Stmts   Miss Branch BrPart  Cover   Missing\n-----\na.py       10      0      4      1    97%   41->43\nTOTAL 10 0 4 1 97%')).toEqual([{ file: 'a.py', spans: '', partial: true }]);
    expect(spansHold('12-15, 20', 14)).toBe(true);
    expect(spansHold('12-15, 20', 16)).toBe(false);
    expect(coverageMissing('5 passed in 0.1s')).toBeNull();
    // A table whose every file is covered: a report, with nothing missing.
    expect(coverageMissing('Name    Stmts   Miss  Cover   Missing\n-----\na.py       10      0   100%\nTOTAL 10 0 100%')).toEqual([{ file: 'a.py', spans: '' }]);
  });
});

describe('a claim that a test covers a line the latest coverage report lists as missing (deep-manifest at 200: «None the transcript contradicts»)', () => {
  const session = (...after: Record<string, unknown>[]) =>
    built(
      user('u1', 'Support embedded tar archives, with 100% branch coverage'),
      edit('e1', 'tests/test_integration.py'),
      updated('e1', 'tests/test_integration.py'),
      bash('t1', '(source .venv/bin/activate && pytest)'),
      result('t1', REPORT),
      ...after,
    );

  it('is a claim the transcript contradicts, with the report that does', () => {
    const { md, summary } = session(say('a1', 'Interesting! tarfile strips the slash, so 163->165 is dead code.\n\nThe same applies to line 169 - `extractfile()` returning `None` only happens for special files like symlinks, but the test covers that.'));
    expect(md).toContain('- claim at line 6, evidence at line 5: The agent said «The same applies to line 169');
    expect(md).toContain('but the latest coverage report before it (line 5, `(source .venv/bin/activate && pytest)`) lists line 169 of `deep_manifest/deep_manifest.py` as run by no test, and no code changed between');
    expect(md).not.toContain('None the transcript contradicts');
    expect(JSON.stringify(summary)).toContain('lists line 169 of');
  });

  it('is settled, and no longer the first thing to do, once a later report lists its file with nothing missing (deep-manifest at 213)', () => {
    const CLEAN = REPORT.replace('deep_manifest/deep_manifest.py     187      1     64      2    99%   163->165, 169', 'deep_manifest/deep_manifest.py     186      0     62      0   100%').replace(/TOTAL.*/, 'TOTAL                              189      0     62      0   100%');
    const { md, summary } = session(
      say('a1', 'The same applies to line 169, but the test covers that.'),
      edit('e2', 'deep_manifest/deep_manifest.py'),
      updated('e2', 'deep_manifest/deep_manifest.py'),
      bash('t2', '(source .venv/bin/activate && pytest)'),
      result('t2', CLEAN),
    );
    expect(md).toContain('- claim at line 6, evidence at line 5 (settled in the session: the coverage report at line 10 lists that file with nothing missing): The agent said');
    expect(md).not.toContain('First settle the agent');
    expect(JSON.stringify(summary)).toContain('"settled_line":10');
    // Without the later report it is still the first thing to settle; nor does a report of another
    // folder's copy settle it, nor one whose file still misses a branch (the second skeptic's C02, C03).
    expect(session(say('a1', 'The same applies to line 169, but the test covers that.')).md).toContain('First settle the agent');
    const later = (command: string, out: string) => session(say('a1', 'The same applies to line 169, but the test covers that.'), bash('t2', command), result('t2', out)).md;
    expect(later('cd ../fork && pytest --cov', CLEAN)).toContain('First settle the agent');
    expect(later('pytest', CLEAN.replace('186      0     62      0   100%', '186      0     62      1    99%   41->43'))).toContain('First settle the agent');
  });

  it("is not decided when the sentence speaks of another file, quotes another's word, or something between may have changed the code (the skeptic's c01–c05)", () => {
    const claim = (text: string) => say('a1', text);
    expect(session(claim('The new test covers the empty-input case (it starts at line 169 of test_parser.py).')).md).not.toContain('as run by no test');
    expect(session(claim("Codecov's comment says line 169 is covered, but the local report lists it as missing, so the bot is wrong.")).md).not.toContain('as run by no test');
    const task = call('s1', 'Task', { description: 'Add a test', prompt: 'Add a test for line 169', subagent_type: 'general-purpose' });
    expect(session(task, result('s1', 'I added test_empty_input to tests/test_parser.py.'), claim('The test covers line 169 now.')).md).not.toContain('as run by no test');
    expect(session(bash('g1', 'git apply /tmp/fix.patch'), result('g1', ''), claim('The test covers line 169 now.')).md).not.toContain('as run by no test');
    // A read between changes nothing: the claim is still contradicted.
    expect(session(bash('g1', 'git diff --stat'), result('g1', ' 1 file changed'), claim('The test covers line 169 now.')).md).toContain('as run by no test');
  });

  it('is no claim when the sentence says the line is not covered, or asks, or plans', () => {
    for (const text of ['Line 169 is not covered yet.', 'Does the test cover line 169?', 'I will add a test so line 169 gets covered.', 'We need a test that covers line 169.']) {
      const { md } = session(say('a1', text));
      expect(md, text).toContain('None the transcript contradicts');
    }
  });

  it('is not decided when code changed after the report, or the line is not among the missing', () => {
    const changed = session(edit('e2', 'tests/test_integration.py'), updated('e2', 'tests/test_integration.py'), say('a1', 'Now the test covers line 169.'));
    expect(changed.md).not.toContain('as run by no test');
    const other = session(say('a1', 'The new test covers line 120 as well.'));
    expect(other.md).not.toContain('as run by no test');
  });
});

describe('a plan step that says it tested, marked done after a change that followed its runs (coderabbit at 190: «Test the new default behavior» unproven)', () => {
  it('names the runs before the change: the step may have been done then', () => {
    const { md } = built(
      user('u1', 'Auto-detect the PR of the current branch'),
      edit('e1', 'extract.py'),
      updated('e1', 'extract.py'),
      bash('t1', 'pytest -q'),
      result('t1', '12 passed in 0.30s'),
      edit('e2', 'extract.py'),
      updated('e2', 'extract.py'),
      todos('p1', [['Make the PR argument optional', 'completed'], ['Test the new default behavior', 'completed']]),
      todosDone('p1'),
    );
    expect(md).toContain('- claim at line 8, unproven: the plan marks «Test the new default behavior» done, but no test, build, type check or lint ran after the last file change (line 7); a run before it, the latest `pytest -q` (line 5, passed): the step may have been done then');
  });

  it("names no run from before any change, and counts no scratch file as a change (the skeptic's c06, c08)", () => {
    const early = built(user('u1', 'Make parse reject empty input'), bash('t1', 'pytest -q'), result('t1', '12 passed in 0.30s'), edit('e1', 'src/parser.py'), updated('e1', 'src/parser.py'), todos('p1', [['Test the new behavior', 'completed']]), todosDone('p1'));
    expect(early.md).toContain('no test, build, type check or lint ran after the last file change (line 5)');
    expect(early.md).not.toContain('the step may have been done then');
    const scratch = built(user('u1', 'Make parse reject empty input'), edit('e1', 'src/parser.py'), updated('e1', 'src/parser.py'), bash('t1', 'pytest -q'), result('t1', '13 passed in 0.30s'), bash('r1', 'rm /tmp/scratch_parse.py'), result('r1', ''), todos('p1', [['Test the new behavior', 'completed']]), todosDone('p1'));
    expect(scratch.md).not.toContain('unproven');
  });

  it('says nothing of runs when none came before the change', () => {
    const { md } = built(
      user('u1', 'Auto-detect the PR of the current branch'),
      edit('e1', 'extract.py'),
      updated('e1', 'extract.py'),
      todos('p1', [['Test the new default behavior', 'completed']]),
      todosDone('p1'),
    );
    expect(md).toContain('no test, build, type check or lint ran after the last file change (line 3)');
    expect(md).not.toContain('the step may have been done then');
  });
});

describe('a file the session deleted that a later command names (posthog at 561: `data/raw/prs.json` «deleted» while the fetch wrote it again)', () => {
  const session = (command: string, output: string, extra: Record<string, unknown> = {}) =>
    built(
      user('u1', 'Refetch the PR data'),
      bash('k1', 'cp data/raw/prs.json data/raw/prs_partial.json'),
      result('k1', ''),
      bash('d1', 'rm -f data/raw/prs.json data/raw/issues.json'),
      result('d1', ''),
      bash('b1', 'python3 src/fetch.py > /tmp/fetch.log 2>&1 &'),
      result('b1', ''),
      bash('c1', command),
      result('c1', output, extra),
    );
  const row = (md: string): string => md.split('\n').find((l) => l.startsWith('| `data/raw/prs.json`')) ?? '';

  it('may be there again when a command that succeeded reads it by its path', () => {
    const { md, summary } = session(`python3 -c "import json; prs = json.loads(open('/nonexistent/w/data/raw/prs.json').read()); print(len(prs))"`, '1759');
    expect(row(md)).toContain('| deleted; a command that succeeded later names it (line 9): it may be there again (something the session ran, a script or a job, may have made it) |');
    expect(JSON.stringify(summary)).toContain('"named_again_line":9');
    const rel = session('wc -c data/raw/prs.json', '819694 data/raw/prs.json');
    expect(row(rel.md)).toContain('it may be there again');
  });

  it('stays deleted for a bare name, a longer name, or a command that failed', () => {
    expect(row(session('grep -rn prs.json src', 'src/fetch.py:12: OUT = "prs.json"').md)).toMatch(/\| deleted \|/);
    expect(row(session('cat data/raw/prs.json.bak | head -1', '[').md)).toMatch(/\| deleted \|/);
    expect(row(session('cat data/raw/prs.json', 'cat: data/raw/prs.json: No such file or directory', { is_error: true }).md)).toMatch(/\| deleted \|/);
  });

  it("stays deleted for a command that tests whether it is there, searches for its name, is git's, or runs in another folder (the skeptic's c09–c13)", () => {
    for (const [command, output] of [
      ['test ! -e data/raw/prs.json && echo gone', 'gone'],
      ["ls data/raw/prs.json 2>/dev/null || echo 'not there'", 'not there'],
      ["grep -rn 'data/raw/prs.json' src/", "src/fetch.py:12: OUT = 'data/raw/prs.json'"],
      ['git commit -am "drop the partial data"', '[main 1a2b3c4] drop the partial data\n 1 file changed, 0 insertions(+), 1 deletion(-)\n delete mode 100644 data/raw/prs.json'],
      ['cd ../archive && wc -c data/raw/prs.json', '819694 data/raw/prs.json'],
      ['python3 -c "import os; print(os.path.exists(\'data/raw/prs.json\'))"', 'False: missing'],
    ]) expect(row(session(command as string, output as string).md), command).toMatch(/\| deleted \|/);
  });
});

describe("subagents' commits after a `git log` that would show them (worktrees at 122, FundWise at 150: «a commit of theirs would not show here»)", () => {
  const task = (id: string) => call(id, 'Task', { description: 'Research', prompt: 'Write work/research.md and commit it on a branch of your own.', subagent_type: 'general-purpose' });
  const LOG_ALL = '*   1b6c52f merge round 1\n|\\\n| * ad2d134 alice: round 1\n|/\n* 04752c6 Add intent';

  it('a `git log --all` after every report lists what they committed', () => {
    const { md } = built(
      user('u1', 'Have two teammates research and commit'),
      task('t1'),
      task('t2'),
      result('t1', 'Done.\n\n- **Commit SHA:** `ad2d13474e6b9c0d1e2f3a4b5c6d7e8f90a1b2c3`'),
      result('t2', 'Done: I wrote work/research-b.md and committed it.'),
      bash('g1', 'git log --all --oneline --graph -20'),
      result('g1', LOG_ALL),
    );
    expect(md).toContain(': every commit they had made by then is among those the `git log --all` at line 7, run after their reports, lists (it shows every branch, within any limit it was given); which of them are theirs, beyond those their reports name, it does not say.');
    expect(md).not.toContain('a commit of theirs would not show here');
  });

  it('a `git log` of the branch after the report lists what it committed there', () => {
    const { md } = built(user('u1', 'Research the partners'), task('t1'), result('t1', 'Brief added to ROADMAP.md.'), bash('g1', 'git log --oneline -5'), result('g1', '88bf269 docs(status): add agent handoff queue\n1a2b3c4 fix(lifi): route'));
    expect(md).toContain(': every commit of theirs on the branch checked out is among those the `git log` at line 5, run after its report, lists (HEAD `88bf269` «docs(status): add agent handoff queue»); which of them are theirs it does not say, and one on another branch would not show there.');
  });

  it("is still not known after a log that leaves commits out or runs elsewhere (the skeptic's c14–c18)", () => {
    for (const command of ['git log --all --oneline --author=alice', 'git log --all --oneline -- src/', 'git log --all --oneline | grep -v -i research', 'cd ../upstream && git log --all --oneline', 'git log --all --oneline --grep=fix', 'git log --all --until=yesterday --oneline']) {
      const { md } = built(user('u1', 'Research'), task('t1'), result('t1', 'Done: I wrote work/research.md and committed it.'), bash('g1', command), result('g1', LOG_ALL));
      expect(md, command).toContain('may have committed: a commit of theirs would not show here.');
    }
    for (const command of ['git log --oneline --grep=docs -3', 'git log --oneline --until=2026-01-01', 'git log --oneline -- src/']) {
      const { md } = built(user('u1', 'Research'), task('t1'), result('t1', 'Done: I wrote work/research.md and committed it.'), bash('g1', command), result('g1', '88bf269 docs(status): add agent handoff queue'));
      expect(md, command).not.toContain('HEAD `88bf269`');
    }
  });

  it('is still not known when the log came before a report, or a subagent has not reported', () => {
    const before = built(user('u1', 'Research'), task('t1'), bash('g1', 'git log --all --oneline'), result('g1', LOG_ALL), result('t1', 'Done: I wrote work/research.md and committed it.'));
    expect(before.md).toContain('may have committed: a commit of theirs would not show here.');
    const running = built(user('u1', 'Research'), task('t1'), task('t2'), result('t1', 'Done: I wrote work/research.md and committed it.'), bash('g1', 'git log --all --oneline'), result('g1', LOG_ALL));
    expect(running.md).toContain('may have committed: a commit of theirs would not show here.');
  });
});

describe('an open failure of a check, with files written after it (edgerunner at 248: `npm run build` failed, the fix written at 251–252)', () => {
  const FAIL = "src/App.tsx(23,25): error TS2339: Property 'env' does not exist on type 'ImportMeta'.\nsrc/main.tsx(3,8): error TS2307: Cannot find module './styles.css'.";

  it('says the files written since and that the check did not run again', () => {
    const { md, summary } = built(
      user('u1', 'Build the web app'),
      bash('b1', 'npm run build'),
      result('b1', `Exit code 2\n${FAIL}`, { is_error: true }),
      edit('e1', 'web/src/vite-env.d.ts'),
      updated('e1', 'web/src/vite-env.d.ts'),
      edit('e2', 'web/tsconfig.node.json'),
      updated('e2', 'web/tsconfig.node.json'),
      edit('e3', 'README.md'),
      updated('e3', 'README.md'),
    );
    expect(md).toContain('— 2 files were changed after it (the latest, `tsconfig.node.json`, at line 7), and `npm run build` did not run again since: whether they fix it is not known');
    expect(JSON.stringify(summary)).toContain('"changed_since":{"files":2,"path":"/nonexistent/w/web/tsconfig.node.json","line":7,"command":"npm run build"}');
  });

  it("says a deletion as one, a narrower run of the same tool since, and leaves out scratch files and a rerun in the background (the skeptic's c23–c26)", () => {
    const FAILED = 'FAILED tests/test_parser.py::test_empty - ValueError\n1 failed in 0.1s';
    const start = [user('u1', 'Make the parser tests pass'), bash('p1', 'pytest -q'), result('p1', `Exit code 1\n${FAILED}`, { is_error: true })];
    const narrower = built(...start, edit('e1', 'src/parser.py'), updated('e1', 'src/parser.py'), bash('p2', 'pytest -q tests/test_parser.py::test_empty'), result('p2', '1 passed in 0.05s'));
    expect(narrower.md).toContain('— `parser.py` was changed after it (line 5), and `pytest -q` did not run again since (`pytest -q tests/test_parser.py::test_empty`, of the same tool, ran after it: line 7, passed): whether that change fixes it is not known');
    const deleted = built(...start, bash('r1', 'rm src/legacy_parser.py'), result('r1', ''));
    expect(deleted.md).toContain('— `legacy_parser.py` was changed after it (line 5) (deleted)');
    const scratch = built(...start, bash('d1', 'git diff > /tmp/wip.patch'), result('d1', ''));
    expect(scratch.md).not.toContain('did not run again since');
    const rerun = built(...start, edit('e1', 'src/parser.py'), updated('e1', 'src/parser.py'), call('p2', 'Bash', { command: 'pytest -q', description: 'rerun', run_in_background: true }), result('p2', 'Command running in background with ID: b1'));
    expect(rerun.md).not.toContain('did not run again since');
  });

  it('says nothing more when nothing was written after it, or when it ran again and failed again', () => {
    const none = built(user('u1', 'Build the web app'), bash('b1', 'npm run build'), result('b1', `Exit code 2\n${FAIL}`, { is_error: true }));
    expect(none.md).not.toContain('did not run again since');
    const again = built(
      user('u1', 'Build the web app'),
      bash('b1', 'npm run build'),
      result('b1', `Exit code 2\n${FAIL}`, { is_error: true }),
      edit('e1', 'web/src/vite-env.d.ts'),
      updated('e1', 'web/src/vite-env.d.ts'),
      bash('b2', 'npm run build'),
      result('b2', `Exit code 2\n${FAIL}`, { is_error: true }),
    );
    expect(again.md).not.toContain('did not run again since');
  });
});

describe('background jobs the handoff has no room to list (posthog at 400: «4 more job(s) in HANDOFF.summary.json» hid two failed fetches)', () => {
  it('are counted by how they ended', () => {
    const job = (id: string, line: number, status: Analysis['jobs'][number]['status']) => ({ id, tool: 'Bash', line, command: 'python src/fetch.py', status, ...(status === 'running' ? {} : { endLine: line + 2 }) });
    const a = { jobs: [job('run1', 355, 'running'), job('f1', 99, 'failed'), job('f2', 115, 'failed'), job('s1', 172, 'stopped'), job('c1', 103, 'completed')] } as unknown as Analysis;
    expect(jobs(a, 1)).toContain('4 more job(s) in HANDOFF.summary.json (2 failed, 1 stopped, 1 completed).');
    // At the fullest level the latest that ended are listed; the rest still counted.
    expect(jobs(a, 0)).toContain('1 more job(s) in HANDOFF.summary.json (1 completed).');
  });
});

describe('what an edit defines (coderabbit at 110: `parse_pr_input`, the anchor the new function went after, listed as written)', () => {
  const OLD = 'def parse_pr_input(input_str: str) -> str:\n    """Parse PR URL or owner/repo/number format."""\n    return input_str.strip()\n';
  const row = (md: string): string => md.split('\n').find((l) => l.startsWith('| `extract.py`')) ?? '';

  it('is the definitions it added, not those it kept from its old text', () => {
    const added = `${OLD}\n\ndef get_current_branch_pr() -> Optional[str]:\n    """Get the PR URL for the current branch using gh CLI."""\n    return None\n`;
    const { md } = built(user('u1', 'Auto-detect the PR'), call('e1', 'Edit', { file_path: '/nonexistent/w/extract.py', old_string: OLD, new_string: added }), updated('e1', 'extract.py'));
    expect(row(md)).toContain('get_current_branch_pr: Get the PR URL for the current branch using gh CLI.');
    expect(row(md)).not.toContain('parse_pr_input');
  });

  it("is none of those it kept when it only took one out, and drops one a later edit took out (the skeptic's c27, c29)", () => {
    const TWO = 'def a():\n    return 1\n\n\ndef b():\n    return 2\n';
    const removed = built(user('u1', 'Drop b'), call('e1', 'Edit', { file_path: '/nonexistent/w/extract.py', old_string: TWO, new_string: 'def a():\n    return 1\n' }), updated('e1', 'extract.py'));
    expect(row(removed.md)).toMatch(/\| edit \| 3 \|\s*\|$/);
    const later = built(
      user('u1', 'Try a fast path'),
      call('e1', 'Edit', { file_path: '/nonexistent/w/extract.py', old_string: 'def a():\n    return 1\n', new_string: 'def a():\n    return 1\n\n\ndef fast_path():\n    return 0\n' }),
      updated('e1', 'extract.py'),
      call('e2', 'Edit', { file_path: '/nonexistent/w/extract.py', old_string: 'def a():\n    return 1\n\n\ndef fast_path():\n    return 0\n', new_string: 'def a():\n    return 1\n' }),
      updated('e2', 'extract.py'),
    );
    expect(row(later.md)).not.toContain('fast_path');
  });

  it('is the definition it changed inside, when it added none', () => {
    const changed = OLD.replace('return input_str.strip()', 'return input_str.strip().lower()');
    const { md } = built(user('u1', 'Lower-case the input'), call('e1', 'Edit', { file_path: '/nonexistent/w/extract.py', old_string: OLD, new_string: changed }), updated('e1', 'extract.py'));
    expect(row(md)).toContain('parse_pr_input');
  });
});

describe('a file the user pointed at, written by the session after the agent read it (37f83ec9 at 180: functions the read showed, replaced at line 18)', () => {
  const read = call('r1', 'Read', { file_path: '/nonexistent/w/docs/spec.md' });
  const got = result('r1', '     1\t# Spec\n     2\t- rule 1: keep the build under 5 MB');

  it('says its lines are as they were at that read', () => {
    const { md } = built(user('u1', 'Read docs/spec.md and tighten its rules.'), read, got, edit('e1', 'docs/spec.md'), updated('e1', 'docs/spec.md'));
    expect(md).toContain('`/nonexistent/w/docs/spec.md` — named at line 1, read at line 3 (the read returned lines 1–2) — the session wrote it after that read (line 5): these lines are as they were then');
  });

  it('says nothing of it when the session did not write it after', () => {
    const { md } = built(user('u1', 'Read docs/spec.md and list its rules.'), read, got, say('a1', 'One rule.'));
    expect(md).not.toContain('the session wrote it after that read');
  });

  it("says deleted or moved when the session did that (the skeptic's c32, c33)", () => {
    const gone = built(user('u1', 'Read docs/spec.md and drop it if it is stale.'), read, got, bash('g1', 'git rm docs/spec.md'), result('g1', "rm 'docs/spec.md'"));
    expect(gone.md).toContain('— the session deleted it after that read (line 5)');
  });
});

describe('readsOnly: a shell command that changes no file', () => {
  it.each(['git diff --stat', 'cat a.py | head -5', 'grep -rn foo src/ 2>/dev/null', 'sed -n 1,20p a.py', `python3 -c "import tarfile; print(tarfile.__file__)"`, '(source .venv/bin/activate && python3 -c "print(1)")', 'ls -la && git status --short'])('%s reads only', (c) => expect(readsOnly(c)).toBe(true));
  it.each(['git apply fix.patch', 'sed -i s/a/b/ a.py', 'echo x > a.py', 'cat a.py >> b.py', `python3 -c "open('a.py', 'w').write('x')"`, 'python3 script.py', 'npm test', 'git stash pop', 'patch -p1 < fix.diff'])('%s may write', (c) => expect(readsOnly(c)).toBe(false));
});

describe('jobs past the bound (the skeptic\'s c36: a dev server started first, then 31 short jobs)', () => {
  it('keeps the one still running', () => {
    const records: Record<string, unknown>[] = [user('u1', 'Start the server and fetch the shards'), call('srv', 'Bash', { command: 'npm run dev', description: 'dev server', run_in_background: true }), result('srv', 'Command running in background with ID: srv1')];
    for (let i = 1; i <= 31; i += 1) {
      records.push(call(`j${i}`, 'Bash', { command: `python fetch.py --shard ${i}`, description: `shard ${i}`, run_in_background: true }), result(`j${i}`, `Command running in background with ID: bj${i}`));
      records.push(user(`n${i}`, `<task-notification>\n<task-id>bj${i}</task-id>\n<status>completed</status>\n<summary>Background command "shard ${i}" completed (exit code 0)</summary>\n</task-notification>`));
    }
    const { md } = built(...records);
    expect(md).toContain('**running, no end recorded** `srv1`');
  });
});

describe("a user's word that something was lost (37f83ec9 at 294: «we lost the session navigation section», read as no failure)", () => {
  it.each(['Oh no, we lost the session navigation section from the combined transcript somehow :(', 'You broke the login page', 'The sidebar disappeared after your change', 'The export no longer works'])('%s is a problem the user reports', (text) => {
    const { md } = built(user('u0', 'Simplify the navigation'), edit('e1', 'templates/transcript.html'), updated('e1', 'templates/transcript.html'), user('u1', text));
    expect(md).toContain('the user says it does not work');
  });
  it.each([
    'Make sure we keep the header when you simplify it',
    'Now that the old API is gone, update the docs',
    // The second skeptic's: a question, a condition, a changelog, praise, a game's text, a quote, the past that was fixed, a test to write, an order.
    'Have we lost any orders in the migration?',
    'If you broke the public API, revert that part',
    'Fixed: - Export button disappeared on mobile',
    'Great, you broke the record: the import is 3x faster',
    'Add a game-over screen that says You lost!',
    'A customer wrote: > the coupon field no longer works. It was their ad blocker, nothing to fix. Just draft a polite reply.',
    'Yesterday the banner disappeared but you fixed it, thanks',
    'Write a test for the bug where the banner disappeared',
    'Make sure the legacy banner no longer shows on print.',
  ])('%s is not', (text) => {
    const { md } = built(user('u1', text));
    expect(md).not.toContain('the user says it does not work');
  });
});

describe('a Codex call rejected as its turn was aborted (agentcmd at 265: «rejected … never written after» read as the design refused)', () => {
  const meta = { timestamp: '2025-09-25T01:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.40.0', originator: 'codex_cli_rs' } };
  const at = (payload: Record<string, unknown>, type = 'response_item') => ({ timestamp: '2025-09-25T01:35:55Z', type, payload });
  const ask = at({ type: 'user_message', message: 'Refactor the TeamSheet', images: [] }, 'event_msg');
  const patch = at({ type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: src/TeamSheet.tsx\n@@\n-a\n+b\n*** End Patch\nPATCH"] }), call_id: 'call_1' });
  const rejected = at({ type: 'function_call_output', call_id: 'call_1', output: 'patch rejected by user' });
  const next = at({ type: 'user_message', message: 'ok continue', images: [] }, 'event_msg');

  it('says the user may have stopped the turn at the approval prompt', () => {
    const { md, llm } = built(meta, ask, at({ type: 'turn_aborted', reason: 'interrupted' }, 'event_msg'), patch, rejected, next);
    expect(md).toContain('line 5 — rejected the call at line 4: `apply_patch …/w/src/TeamSheet.tsx` (recorded with the interruption of its turn, line 3: the user may have stopped the turn at the approval prompt rather than refused the call)');
    expect(JSON.stringify(llm)).toContain('"aborted_line":3');
  });

  it('says nothing of it for a rejection in a running turn', () => {
    const { md } = built(meta, ask, patch, rejected, next);
    expect(md).toContain('line 4 — rejected the call at line 3');
    expect(md).not.toContain('recorded with the interruption');
  });
});

describe('the last call, a patch of several files that failed (edgerunner at 552: «a write of `risk.rs`» beside an error in `server.rs`)', () => {
  it('names every file of it', () => {
    const meta = { timestamp: '2026-05-01T10:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.125.0', originator: 'codex_cli_rs' } };
    const at = (payload: Record<string, unknown>, type = 'response_item') => ({ timestamp: '2026-05-01T10:00:01Z', type, payload });
    const patch = "*** Begin Patch\n*** Update File: crates/core/src/risk.rs\n@@\n-a\n+b\n*** Update File: crates/core/src/engine.rs\n@@\n-c\n+d\n*** Update File: crates/service/src/server.rs\n@@\n-e\n+f\n*** End Patch";
    const { summary } = built<{ next_action: { text: string } }>(
      meta,
      at({ type: 'user_message', message: 'Harden the backend', images: [] }, 'event_msg'),
      at({ type: 'custom_tool_call', name: 'apply_patch', input: patch, call_id: 'p1', status: 'completed' }),
      at({ type: 'custom_tool_call_output', call_id: 'p1', output: JSON.stringify({ output: 'apply_patch verification failed: Failed to find expected lines in crates/service/src/server.rs', metadata: { exit_code: 1 } }) }),
    );
    expect(summary.next_action.text).toContain('Its last call, a write of 3 files (`risk.rs`, `engine.rs`, `server.rs`), failed (line 4: ');
    expect(summary.next_action.text).toContain('that write changed nothing');
  });

  it("tells two files of one name apart, and says a failed shell command may have done part of it (the second skeptic's P02, P04)", () => {
    const { summary } = built<{ next_action: { text: string } }>(
      user('u1', 'Rename the helper everywhere'),
      bash('s1', "sed -i 's/old_name/new_name/' src/net/mod.py src/db/mod.py src/c.py"),
      result('s1', "Exit code 2\nsed: can't read src/c.py: No such file or directory", { is_error: true }),
    );
    expect(summary.next_action.text).toContain('Its last call, a write of 3 files (`net/mod.py`, `db/mod.py`, `c.py`), failed (line 3: ');
    expect(summary.next_action.text).toContain('a shell command that fails may have done part of it first (check the files)');
  });
});

describe("git's removals that leave the file, and dry runs (the second skeptic's D01, D03)", () => {
  it('are no deletion or move', async () => {
    const { shellWrites } = await import('../../src/core/shell.js');
    expect(shellWrites('git rm --cached docs/spec.md')).toEqual([]);
    expect(shellWrites('git rm -n docs/spec.md')).toEqual([]);
    expect(shellWrites('git mv -n a.md b.md')).toEqual([]);
    expect(shellWrites('git rm docs/spec.md')).toEqual([{ path: 'docs/spec.md', how: 'delete' }]);
  });
});

describe('a failed shell command of several files under Writes that did not happen (the second skeptic\'s P04, P05)', () => {
  it('is said apart, as may have written some of them, not as verified unchanged', () => {
    const { md, summary } = built(
      user('u1', 'Rename the helper everywhere'),
      bash('s1', "sed -i 's/old_name/new_name/' src/a.py src/b.py src/c.py"),
      result('s1', "Exit code 2\nsed: can't read src/c.py: No such file or directory", { is_error: true }),
      edit('e1', 'src/d.py'),
      result('e1', '<tool_use_error>String to replace not found in file.</tool_use_error>', { is_error: true }),
    );
    const section = md.slice(md.indexOf('### Writes that did not happen'), md.indexOf('### Commits'));
    expect(section).toContain('*verified* — attempted, never changed afterwards');
    expect(section).toMatch(/\*verified\*[^*]*`src\/d\.py`/);
    expect(section).toContain('*unknown* — a shell command of several files that failed, which may have written some of them before it failed');
    expect(section).toMatch(/\*unknown\*[\s\S]*`src\/a\.py` \(line 3\)[\s\S]*`src\/c\.py` \(line 3\)/);
    expect(JSON.stringify(summary)).toContain('"maybe_written":true');
  });
});
