import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { call, edit, result, say, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/** Rules from the seventeenth reading (docs/FIDELITY.md) not covered beside the code they changed. */

describe('the Verification table', () => {
  it('says that checks chained with && are a target of their own, only when a row is one', () => {
    const run = (id: string, command: string, out: string) => [call(id, 'Bash', { command }), result(id, out)];
    const chained = built(
      user('u1', 'Report corrupted archives'),
      edit('e1', 'scan.py'),
      updated('e1', 'scan.py'),
      ...run('b1', 'ruff check . && pytest', 'All checks passed!\n===== 66 passed in 3.81s ====='),
      ...run('b2', 'pytest', '===== 68 passed in 4.22s ====='),
      say('a1', 'Done.'),
    ).md;
    const table = sections(chained).get('Verification') ?? '';
    expect(table).toContain('(`pytest -x` and `pytest` alike; checks chained with `&&` are a target of their own):');
    const alone = built(user('u1', 'Report corrupted archives'), edit('e1', 'scan.py'), updated('e1', 'scan.py'), ...run('b2', 'pytest', '===== 68 passed in 4.22s ====='), say('a1', 'Done.')).md;
    expect(sections(alone).get('Verification')).toContain('(`pytest -x` and `pytest` alike):');
  });
});
