import { describe, expect, it } from 'vitest';
import { Findings } from '../../src/core/redaction/findings.js';
import { LiteralScanner } from '../../src/core/redaction/literals.js';

/** The literals a scanner handed a hit to, with where, in the order found. */
function hits(scanner: (log: string[]) => LiteralScanner, text: string): string[] {
  const log: string[] = [];
  scanner(log).scan(text, new Findings(text));
  return log;
}

const note =
  (log: string[], name: string) =>
  (_text: string, at: number): number => {
    log.push(`${name}@${at}`);
    return -1;
  };

describe('LiteralScanner', () => {
  it('finds a literal that must start a token only where one starts, never inside a word', () => {
    const s = (log: string[]): LiteralScanner => new LiteralScanner().add('token', note(log, 'token'));
    expect(hits(s, 'token x')).toEqual(['token@0']);
    expect(hits(s, 'a token, (token) my_token')).toEqual(['token@2', 'token@10', 'token@20']);
    expect(hits(s, 'stoken tokens2token')).toEqual(['token@7']);
  });

  it('finds a literal that may start inside a word there too', () => {
    const s = (log: string[]): LiteralScanner => new LiteralScanner().add('pwd', note(log, 'pwd'), { boundary: false });
    expect(hits(s, 'mypwd=1 pwd')).toEqual(['pwd@2', 'pwd@8']);
  });

  it('inside a word skips the literals that start a token and still finds one sharing their first characters that need not', () => {
    // `ND` (a two-letter prefix, any third character) and `ndx` share their start; only `ndx` may match inside a word.
    const s = (log: string[]): LiteralScanner =>
      new LiteralScanner()
        .add('ND', note(log, 'ND'))
        .add('ndx', note(log, 'ndx'), { boundary: false, caseless: true })
        .add('andy', note(log, 'andy'));
    expect(hits(s, 'and ND handy bNDx')).toEqual(['ND@4', 'ndx@14']);
    expect(hits(s, 'andy NDX')).toEqual(['andy@0', 'ND@5', 'ndx@5']);
  });

  it('finds a caseless literal that may start inside a word in any case', () => {
    const s = (log: string[]): LiteralScanner => new LiteralScanner().add('pw', note(log, 'pw'), { boundary: false, caseless: true });
    expect(hits(s, 'xPW yPw pw')).toEqual(['pw@1', 'pw@5', 'pw@8']);
  });

  it('reads a character past ASCII as no letter: a literal after one starts a token', () => {
    const s = (log: string[]): LiteralScanner => new LiteralScanner().add('key', note(log, 'key'));
    expect(hits(s, 'éкkey akey')).toEqual(['key@2']);
  });
});
