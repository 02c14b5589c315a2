import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { built } from './ledger-helper.js';
import { call, result, say, user } from './claude-records.js';

/**
 * Rules from the twelfth reading (docs/FIDELITY.md): writes that failed and were made later are
 * said however full the handoff is, not hidden behind a bare "None".
 */

const failedThenRedone = (): Record<string, unknown>[] => [
  call('p1', 'Edit', { file_path: '/nonexistent/w/app/layout.tsx', old_string: 'old title', new_string: 'new title' }),
  result('p1', 'String to replace not found in file.', { is_error: true }),
  call('p2', 'Edit', { file_path: '/nonexistent/w/app/layout.tsx', old_string: 'title', new_string: 'new title' }),
  result('p2', 'The file /nonexistent/w/app/layout.tsx has been updated successfully.'),
];

function notChanged(md: string): string {
  const repo = sections(md).get('Repository Evidence') ?? '';
  return repo.slice(repo.indexOf('### Writes that did not happen'), repo.indexOf('### Commits'));
}

describe('a write that failed and was made later', () => {
  it('is named with both lines in a handoff with room, and in both payloads', () => {
    const r = built(user('u1', 'Fix the page title'), ...failedThenRedone(), say('a1', 'Title fixed.'));
    expect(notChanged(r.md)).toMatch(/None left undone\. \*verified\* — 1 write\(s\) failed and the file was written after .*: `app\/layout\.tsx` 3 → 5\./);
    for (const p of [r.summary, r.llm] as { files_redone: unknown }[]) expect(p.files_redone).toEqual([{ path: '/nonexistent/w/app/layout.tsx', line: 3, redone_line: 5 }]);
  });

  it('is still counted, with its line, however near its size budget the handoff is', () => {
    // Long sessions of growing size: many long requests, files and agent messages fill every
    // section, and the budget levels cut them; the redone write is said at each size.
    for (const [n, tail] of [30, 45, 60, 75, 90].flatMap((n) => [0, 40, 80, 120, 160, 200, 240].map((t) => [n, t] as const))) {
      const filler: Record<string, unknown>[] = [];
      for (let i = 0; i < n; i += 1) {
        filler.push(user(`q${i}`, `Request ${i}: ${'please also reconsider the layout of the pricing tables and their footnotes '.repeat(6)}`));
        filler.push(call(`w${i}`, 'Write', { file_path: `/nonexistent/w/src/module-${i}/component-with-a-long-name-${i}.tsx`, content: `export const value${i} = ${i};\n` }));
        filler.push(result(`w${i}`, `File created successfully at: /nonexistent/w/src/module-${i}/component-with-a-long-name-${i}.tsx`));
        filler.push(say(`s${i}`, `Step ${i} done: ${'the component now renders its rows with the new spacing and the footnotes below. '.repeat(5)}`));
      }
      const r = built(user('u0', 'Rework the pricing page'), ...filler, ...failedThenRedone(), say('a1', `All done. ${'x'.repeat(tail)}`));
      const at = 1 + 4 * n + 2;
      expect(Buffer.byteLength(r.md)).toBeLessThanOrEqual(16000);
      const text = notChanged(r.md);
      expect(text, `n=${n} tail=${tail}`).toMatch(/None left undone\. \*verified\* — 1 write\(s\) failed and the file was written after/);
      expect(text, `n=${n} tail=${tail}`).toContain(`${at}`);
    }
  });
});
