import { describe, expect, it } from 'vitest';
import { segments, words } from '../../src/core/shell.js';
import { seededStrings } from '../helpers.js';

/*
 * The splitter and the word reader read by character code and copy runs of text. These
 * references read a character at a time, as the rules are written in prose: the two must agree
 * on every input, quotes, escapes and line continuations included.
 */

function referenceSegments(command: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (let i = 0; i < command.length; i += 1) {
    const c = command[i] as string;
    if (quote !== null) {
      cur += c;
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) cur += command[++i];
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      cur += c;
      continue;
    }
    if (c === '\\' && i + 1 < command.length) {
      const n = command[i + 1] as string;
      i += 1;
      if (n !== '\n') cur += c + n;
      continue;
    }
    const two = command.slice(i, i + 2);
    if (two === '&&' || two === '||') {
      out.push(cur);
      cur = '';
      i += 1;
      continue;
    }
    if (c === ';' || c === '\n' || (c === '|' && command[i + 1] !== '&')) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim().replace(/^\(+\s*/, '').replace(/\s*\)+$/, '').trim()).filter((s) => s.length > 0);
}

function referenceWords(segment: string): string[] {
  const out: string[] = [];
  let cur = '';
  let started = false;
  let quote: string | null = null;
  for (let i = 0; i < segment.length; i += 1) {
    const c = segment[i] as string;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < segment.length) cur += segment[++i];
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      started = true;
      continue;
    }
    if (c === '\\' && i + 1 < segment.length) {
      cur += segment[++i];
      started = true;
      continue;
    }
    if (/\s/.test(c)) {
      if (started) out.push(cur);
      cur = '';
      started = false;
      continue;
    }
    cur += c;
    started = true;
  }
  if (started) out.push(cur);
  return out;
}

/** Deterministic commands over the characters the readers treat specially, and some they do not. */
function commands(count: number, seed: number): string[] {
  const alphabet = ['a', 'b', 'x', ' ', ' ', '\t', '\n', '\r', '\\', "'", '"', ';', '&', '|', '(', ')', '>', '2', '\u00a0', '\u2028', 'é', '🚀', '$', '-'];
  return seededStrings(count, seed, alphabet, 40);
}

describe('splitting a command line and reading its words', () => {
  it('agrees with the character-at-a-time reading on commands people write', () => {
    const samples = [
      '(cd web && npm test) | tail -20',
      'pytest -q tests/test_a.py || echo "failed; see log" ; git status',
      'git commit -m "fix: a \\"quoted\\" word" && git push',
      "echo 'a && b' |& tee out.log",
      'make \\\n  build \\\n  test',
      'FOO=1 uv run pytest -k "not slow"\ncargo test',
      'ends with a backslash \\',
      'unterminated "quote && more',
    ];
    for (const c of samples) {
      expect(segments(c)).toEqual(referenceSegments(c));
      for (const seg of [c, ...segments(c)]) expect(words(seg)).toEqual(referenceWords(seg));
    }
  });

  it('agrees with the character-at-a-time reading on any mix of quotes, escapes, separators and spaces', () => {
    for (const c of commands(20000, 42)) {
      expect(segments(c)).toEqual(referenceSegments(c));
      expect(words(c)).toEqual(referenceWords(c));
    }
  });
});
