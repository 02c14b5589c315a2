import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { built } from './ledger-helper.js';
import { base, call, result, say, user } from './claude-records.js';

/**
 * Rules from the eleventh reading (docs/FIDELITY.md): a file the session created and deleted
 * again, and checks that ran before a change to documentation only.
 */

describe('a file the session created and deleted again', () => {
  it('is shown with no net change, in the table and among the names beyond it', () => {
    const md = built(
      user('u1', 'Try a visual check script, then drop it'),
      call('w1', 'Write', { file_path: '/nonexistent/w/scripts/visual-check.mjs', content: 'import x from "y";\n' }),
      result('w1', 'File created successfully at: /nonexistent/w/scripts/visual-check.mjs'),
      call('d1', 'Bash', { command: 'rm scripts/visual-check.mjs' }),
      result('d1', ''),
      say('a1', 'Removed the script.'),
    );
    const repo = sections(md.md).get('Repository Evidence') ?? '';
    expect(repo).toMatch(/\| `scripts\/visual-check\.mjs` \| created, then deleted: no net change \|/);
    const summary = md.summary as { files_changed: { path: string; how: string; created_first?: boolean }[] };
    expect(summary.files_changed).toEqual([expect.objectContaining({ how: 'delete', created_first: true })]);
  });

  it('keeps a deletion of a file the session found as a deletion', () => {
    const md = built(user('u1', 'Delete the old script'), call('d1', 'Bash', { command: 'rm scripts/old.mjs' }), result('d1', ''), say('a1', 'Deleted.'));
    expect(sections(md.md).get('Repository Evidence')).toMatch(/\| `scripts\/old\.mjs` \| deleted \|/);
    expect((md.summary as { files_changed: Record<string, unknown>[] }).files_changed[0]).not.toHaveProperty('created_first');
  });
});

describe('checks before a change to documentation only', () => {
  const session = (last: string): Record<string, unknown>[] => [
    user('u1', 'Fix the parser and note it in the docs'),
    call('e1', 'Edit', { file_path: '/nonexistent/w/src/parser.ts', old_string: 'a', new_string: 'b' }),
    result('e1', 'The file /nonexistent/w/src/parser.ts has been updated.'),
    call('t1', 'Bash', { command: 'npm test' }),
    result('t1', 'Tests: 12 passed, 12 total'),
    call('e2', 'Edit', { file_path: `/nonexistent/w/${last}`, old_string: 'a', new_string: 'b' }),
    result('e2', `The file /nonexistent/w/${last} has been updated.`),
    say('a1', 'Done.'),
  ];

  it('does not leave the code unchecked', () => {
    for (const doc of ['README.md', '.gitignore', 'docs/guide.mdx', 'CHANGELOG']) {
      const md = built(...session(doc)).md;
      expect(md, doc).not.toContain('No test, build, type check or lint ran after the last file change');
    }
  });

  it('still says so after a change of code', () => {
    const md = built(...session('src/lexer.ts')).md;
    expect(md).toMatch(/No test, build, type check or lint ran after the last file change \(line \d+\)/);
  });
});

describe('a compaction', () => {
  it('is counted in the front matter, with the line of the last', () => {
    const compact = { ...base, type: 'system', subtype: 'compact_boundary', uuid: 'cb1', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 150000 } };
    const md = built(user('u1', 'Refactor the parser'), say('a1', 'Working on it.'), compact, user('u2', 'Continue'), say('a2', 'Done.')).md;
    expect(md).toMatch(/^context_compactions: 1$/m);
    expect(md).toMatch(/^context_last_compaction_line: 3$/m);
    const none = built(user('u1', 'Refactor the parser'), say('a1', 'Done.')).md;
    expect(none).toMatch(/^context_compactions: 0$/m);
    expect(none).toMatch(/^context_last_compaction_line: null$/m);
  });
});
