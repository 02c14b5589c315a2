import { describe, expect, it } from 'vitest';
import { Slicer, sortInSlices } from '../../src/slice.js';

describe('sorting in slices', () => {
  it('gives the order Array.prototype.sort gives, ties kept in their input order', async () => {
    let seed = 7;
    const rand = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (const n of [0, 1, 2, 255, 256, 257, 1000, 5001]) {
      const items = Array.from({ length: n }, (_, i) => ({ key: Math.floor(rand() * 40), i }));
      const byKey = (a: { key: number }, b: { key: number }): number => a.key - b.key;
      const sorted = await sortInSlices(items, byKey);
      expect(sorted).toEqual([...items].sort(byKey));
      expect(sorted).toHaveLength(n);
    }
  });

  it('lets the event loop run while it sorts once its slice is used up', async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => (i * 7919) % 20_000);
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 0);
    let finished = false;
    // A budget of zero: every check finds the slice used up.
    const sorting = sortInSlices(items, (a, b) => a - b, new Slicer(0)).then((s) => {
      finished = true;
      return s;
    });
    await new Promise((r) => setTimeout(r, 1));
    const during = turns;
    const sorted = await sorting;
    clearInterval(ticker);
    expect(finished).toBe(true);
    expect(during).toBeGreaterThan(0);
    expect(sorted.slice(0, 3)).toEqual([0, 1, 2]);
  });
});

describe('a slicer', () => {
  it('is due once its budget of time is spent, and not again until it has paused', async () => {
    // A budget far above a scheduler's hiccup on a loaded host: the checks right after the
    // construction and the pause must not find it spent already.
    const s = new Slicer(100);
    expect(s.due).toBe(false);
    const start = performance.now();
    while (performance.now() - start < 110);
    expect(s.due).toBe(true);
    await s.pause();
    expect(s.due).toBe(false);
  });
});
