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
