import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, tuneHeap } from '../../src/daemon/heap.js';

describe("the daemon's heap", () => {
  it('is told to grow by half, not fourfold, between full collections', () => {
    expect(tuneHeap([])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    expect(HEAP_GROWING_PERCENT).toBeLessThanOrEqual(100);
  });

  it("names a flag this node's V8 knows (setFlagsFromString would ignore an unknown one without a word)", () => {
    const r = spawnSync(process.execPath, [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, '-e', '0'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const bogus = spawnSync(process.execPath, ['--heap-growing-percentage=50', '-e', '0'], { encoding: 'utf8' });
    expect(bogus.status).not.toBe(0);
  });

  it('leaves a growth given on node’s command line alone', () => {
    expect(tuneHeap(['--heap-growing-percent=80'])).toEqual([]);
    expect(tuneHeap(['--heap_growing_percent=80'])).toEqual([]);
  });
});

describe("a one-shot build's nursery", () => {
  // A child of its own: V8's flags are the process's. It allocates as a build does (objects that
  // survive a while) and reports the largest nursery it saw, with and without the cap.
  const largest = (cap: boolean, nodeFlags: string[] = []): number => {
    const script = `
      import { getHeapSpaceStatistics } from 'node:v8';
      import { holdNursery } from ${JSON.stringify(new URL('../../dist/daemon/heap.js', import.meta.url).href)};
      if (${cap}) holdNursery(process.execArgv);
      let max = 0;
      const seen = () => { max = Math.max(max, getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size); };
      const keep = [];
      for (let round = 0; round < 40; round += 1) {
        for (let i = 0; i < 100000; i += 1) keep.push({ i, text: 'line ' + i + ' of round ' + round });
        if (keep.length > 300000) keep.splice(0, 200000);
        seen();
        await new Promise((r) => setTimeout(r, 25));
      }
      process.stdout.write(String(max));`;
    const r = spawnSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    return Number(r.stdout);
  };

  it('stays at the size V8 starts it with, where V8 alone grows it to 32 MB (it reads the growth factor at each growth)', () => {
    expect(largest(false)).toBeGreaterThanOrEqual(16 * 2 ** 20);
    expect(largest(true)).toBeLessThanOrEqual(4 * 2 ** 20);
  });

  it('is left to a size given on node’s command line', () => {
    expect(largest(true, ['--max-semi-space-size=16'])).toBeGreaterThanOrEqual(16 * 2 ** 20);
    expect(largest(true, ['--semi_space_growth_factor=3'])).toBeGreaterThanOrEqual(16 * 2 ** 20);
  });
});
