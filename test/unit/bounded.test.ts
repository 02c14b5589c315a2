import { describe, expect, it } from 'vitest';
import { setBounded, trimRecord } from '../../src/core/bounded.js';

/** A deterministic sequence of keys with repeats, array indexes and `__proto__` mixed in. */
function keys(n: number, seed: number, extra: readonly string[]): string[] {
  let x = seed;
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const r = x % 100;
    out.push(r < 5 && extra.length > 0 ? (extra[x % extra.length] as string) : r < 25 ? `toolu_${x % 40}` : `call_${i}`);
  }
  return out;
}

function both(seq: readonly string[], max: number, start: Record<string, number> = {}): [Record<string, number>, Record<string, number>] {
  const slow: Record<string, number> = { ...start };
  const fast: Record<string, number> = { ...start };
  seq.forEach((k, i) => {
    slow[k] = i;
    trimRecord(slow, max);
    setBounded(fast, k, i, max);
    expect(Object.keys(fast)).toEqual(Object.keys(slow));
  });
  return [slow, fast];
}

describe('setBounded', () => {
  it('keeps the same keys, values and order as a set followed by trimRecord', () => {
    const [slow, fast] = both(keys(3000, 7, []), 128);
    expect(fast).toEqual(slow);
    expect(Object.keys(fast)).toHaveLength(128);
  });

  it('stays exact when keys are array indexes (listed first) or __proto__', () => {
    for (const seed of [1, 2, 3]) {
      const [slow, fast] = both(keys(2000, seed, ['7', '0', '42', '__proto__', '01', '4294967296']), 50);
      expect(fast).toEqual(slow);
      expect(Object.getPrototypeOf(fast)).toBe(Object.prototype);
    }
  });

  it('trims a record that came in over its bound (a state written under a larger limit)', () => {
    const start = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`old_${i}`, i]));
    const [slow, fast] = both(['old_5', 'new_1', 'old_299', 'new_2'], 100, start);
    expect(fast).toEqual(slow);
    expect(Object.keys(fast)).toHaveLength(100);
  });
});
