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
