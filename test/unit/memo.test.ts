import { describe, expect, it } from 'vitest';
import { Memo } from '../../src/core/memo.js';

describe('Memo', () => {
  it('answers a key it was asked lately without computing again, and forgets the oldest past its bound', () => {
    const asked: string[] = [];
    const m = new Memo<number>(2);
    const len = (k: string): number => {
      asked.push(k);
      return k.length;
    };
    expect([m.get('a', len), m.get('bb', len), m.get('a', len)]).toEqual([1, 2, 1]);
    expect(asked).toEqual(['a', 'bb']);
    m.get('ccc', len); // a third key: 'a', the oldest, is forgotten
    m.get('bb', len);
    m.get('a', len);
    expect(asked).toEqual(['a', 'bb', 'ccc', 'a']);
  });
});
