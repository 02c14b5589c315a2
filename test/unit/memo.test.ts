import { describe, expect, it } from 'vitest';
import { Memo } from '../../src/core/memo.js';

describe('Memo', () => {
  const counting = (): { asked: string[]; len: (k: string) => number } => {
    const asked: string[] = [];
    return {
      asked,
      len: (k: string): number => {
        asked.push(k);
        return k.length;
      },
    };
  };

  it('answers a key it was asked lately without computing again', () => {
    const { asked, len } = counting();
    const m = new Memo<number>(2);
    expect([m.get('a', len), m.get('bb', len), m.get('a', len)]).toEqual([1, 2, 1]);
    expect(asked).toEqual(['a', 'bb']);
  });

  it('keeps the previous generation, and brings a key asked again back into the young one', () => {
    const { asked, len } = counting();
    const m = new Memo<number>(2);
    m.get('a', len);
    m.get('bb', len);
    m.get('ccc', len); // the young generation was full: a and bb are now the old one
    expect(m.get('a', len)).toBe(1); // from the old generation, not computed
    expect(asked).toEqual(['a', 'bb', 'ccc']);
    m.get('dddd', len); // young {ccc, a} was full: it becomes the old one, bb is forgotten
    m.get('a', len);
    m.get('bb', len);
    expect(asked).toEqual(['a', 'bb', 'ccc', 'dddd', 'bb']);
  });

  it('forgets what was not asked for two generations, so it never holds more than twice its bound', () => {
    const { asked, len } = counting();
    const m = new Memo<number>(3);
    for (const k of ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']) m.get(k, len);
    m.get('k1', len);
    expect(asked.filter((k) => k === 'k1')).toHaveLength(2);
  });
});
