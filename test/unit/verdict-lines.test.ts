import { describe, expect, it } from 'vitest';
import { cutBeforeRedaction } from '../../src/core/cut.js';
import { verdictLines } from '../../src/core/ingest.js';
import { seededStrings } from '../helpers.js';

/** What the line pattern finds: every whole line holding a verdict word, shortened where no word is split, at most 40. */
function reference(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^.*(?:fail|error|passed|succeeded|Diff in|would reformat|vulnerabilit|test result|Finished).*$/gim)) {
    out.push(cutBeforeRedaction(m[0], 200));
    if (out.length >= 40) break;
  }
  return out;
}

function outputs(count: number, seed: number): string[] {
  const parts = ['ok ', 'FAIL', 'fail', 'Error', 'PASSED', 'succeeded', 'diff in', 'Diff in', 'would reformat', 'Vulnerabilities', 'test result', 'finished', 'x'.repeat(150), 'é🚀', ' ', '\n', '\r', '\r\n', '\u2028', '\u2029', '\n\n', 'erro', 'fai'];
  return seededStrings(count, seed, parts, 120);
}

describe('verdict lines from the middle of a long output', () => {
  it('are the whole lines a line pattern finds, in order, shortened and at most 40', () => {
    const matrix = Array.from({ length: 60 }, (_, i) => `job ${i}: ${i % 3 === 0 ? 'FAILED' : 'passed'} ${'.'.repeat(i * 5)}`).join('\n');
    expect(verdictLines(matrix)).toEqual(reference(matrix));
    expect(verdictLines(matrix)).toHaveLength(40);
    expect(verdictLines('compiling\nerror[E0308]: mismatched types\r\nwarning only\u2028test result: ok')).toEqual(['error[E0308]: mismatched types', 'test result: ok']);
  });

  it('agree with the line pattern on any mix of verdict words, line ends and long lines', () => {
    for (const text of outputs(3000, 7)) expect(verdictLines(text)).toEqual(reference(text));
  });
});
