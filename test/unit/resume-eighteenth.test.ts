import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { call, edit, result, say, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/** Rules from the eighteenth reading (docs/FIDELITY.md) not covered beside the code they changed. */

type Fixed = { line: number; fixed_line: number; rerun: string; fixed_by?: string };

describe('a failure got past by running again', () => {
  const script = 'uv run python -c "\nimport tempfile\nfrom app import render\nprint(\'link found:\', \'href\' in render())\n"';

  it('says a script that ran again without an error ran, not that it passed', () => {
    const out = built<{ fixed_failures: Fixed[] }>(
      user('u1', 'Add the combined transcript link'),
      edit('e1', 'render.py'),
      updated('e1', 'render.py'),
      call('b1', 'Bash', { command: `cd test && ${script}` }),
      result('b1', '(eval):cd:1: no such file or directory: test', { is_error: true }),
      call('b2', 'Bash', { command: script }),
      result('b2', 'link found: False'),
      say('a1', 'The link is missing from the output.'),
    );
    expect(out.summary.fixed_failures).toMatchObject([{ rerun: 'ran_clean' }]);
    const fixed = out.summary.fixed_failures[0] as Fixed;
    // The command that ran clean, on one line: its first line alone was `uv run python -c "`.
    expect(fixed.fixed_by).toContain('uv run python -c " import tempfile from app import render');
    const md = sections(out.md).get('What is broken / open') ?? out.md;
    expect(md).toContain(`line ${fixed.line}, ran again without an error at line ${fixed.fixed_line}`);
    expect(md).not.toContain('a later run passed');
  });

  it('says a check that ran again and passed passed', () => {
    const out = built<{ fixed_failures: Fixed[] }>(
      user('u1', 'Fix the retry test'),
      edit('e1', 'retry.py'),
      updated('e1', 'retry.py'),
      call('b1', 'Bash', { command: 'pytest tests/test_retry.py' }),
      result('b1', 'Exit code 1\n===== 1 failed, 3 passed in 0.41s =====', { is_error: true }),
      edit('e2', 'retry.py'),
      updated('e2', 'retry.py'),
      call('b2', 'Bash', { command: 'pytest tests/test_retry.py' }),
      result('b2', '===== 4 passed in 0.39s ====='),
      say('a1', 'Fixed.'),
    );
    expect(out.summary.fixed_failures).toMatchObject([{ rerun: 'passed' }]);
    expect(out.md).toContain(`a later run passed at line ${out.summary.fixed_failures[0]?.fixed_line}`);
  });
});

describe("why files the session wrote are not in its latest listing", () => {
  const write = (id: string, file: string, cwd = '/nonexistent/w'): Record<string, unknown>[] => [
    { ...call(id, 'Write', { file_path: file, content: 'x = 1\n' }), cwd },
    { ...result(id, `File created successfully at: ${file}`), cwd },
  ];
  const bash = (id: string, command: string, output: string, cwd = '/nonexistent/w'): Record<string, unknown>[] => [{ ...call(id, 'Bash', { command }), cwd }, { ...result(id, output), cwd }];
  const listing = (md: string): string => md.split('\n').find((l) => l.includes("the session's latest `git status`")) ?? '';

  it('names a commit after the write and a folder outside the session, not an untracked file, for a `git status` listing', () => {
    const { md } = built(
      user('u1', 'Ship the readiness script'),
      ...write('w1', '/nonexistent/w/STATUS.md'),
      ...write('w2', '/home/u/.claude/projects/w/memory/notes.md'),
      ...bash('b1', 'git add STATUS.md && git commit -m "docs: status"', '[main 73f00b8] docs: status\n 1 file changed, 3 insertions(+)'),
      ...write('w3', '/nonexistent/w/docs/adr-21.md'),
      ...write('w4', '/nonexistent/w/README.md'),
      ...bash('b2', 'git status --short', '?? docs/adr-21.md\n'),
      say('a1', 'Shipped.'),
    );
    const line = listing(md);
    expect(line).toContain('listed 1 untracked file(s), never added to git: `docs/adr-21.md`.');
    expect(line).toContain('3 file(s) it wrote before it are not in it: 1 outside the folder the session ran in, which it does not cover; 1 written before a commit of the session\'s (line 7), which may have taken them; 1 changed back, or ignored by git.');
    expect(line).not.toContain('untracked), or');
  });

  it('says a listing of named paths did not ask about the others', () => {
    const { md } = built(user('u1', 'Polish the pages'), ...write('w1', '/nonexistent/w/app/page.tsx'), ...write('w2', '/nonexistent/w/lib/db.ts'), ...bash('b1', 'git status --short -- app/page.tsx', '?? app/page.tsx\n'), say('a1', 'Done.'));
    expect(listing(md)).toContain('1 file(s) it wrote before it are not in it: the listing named only the paths it asked about.');
  });

  it('finds a file written by its Windows path in the listing git printed with slashes', () => {
    const cwd = 'C:\\Users\\u\\app';
    const { md } = built(
      { ...user('u1', 'Polish the event page'), cwd },
      ...write('w1', 'C:\\Users\\u\\app\\app\\events\\[slug]\\page.tsx', cwd),
      ...bash('b1', 'git status --short', '?? app/events/[slug]/page.tsx\n', cwd),
      { ...say('a1', 'Done.'), cwd },
    );
    const line = listing(md);
    expect(line).toContain('`app/events/[slug]/page.tsx`.');
    expect(line).not.toContain('not in it');
  });
});
