import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/engine/scheduler.js';
import { waitFor } from '../helpers.js';

/** The main lane's debounce (engine/scheduler.ts): how often one key builds, and what it remembers to know. */

function scheduler(debounceMs: number) {
  let clock = 0;
  const built: string[] = [];
  const s = new Scheduler(
    async (k) => {
      built.push(k);
    },
    { debounceMs, now: () => clock },
  );
  return { s, built, advance: (ms: number) => (clock += ms) };
}

describe('the debounce', () => {
  it('builds the first change at once and the next one DEBOUNCE_MS after the build ended', async () => {
    const { s, built } = scheduler(200);
    s.schedule('a', 'live');
    await waitFor(() => built.length === 1, 'the first build');
    const t0 = performance.now();
    s.schedule('a', 'live');
    s.schedule('a', 'live');
    expect(built).toEqual(['a']);
    await waitFor(() => built.length === 2, 'the held change');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(150);
    await s.onIdle();
    expect(built).toEqual(['a', 'a']);
    s.stop();
  });

  it('forgets the keys whose last build ended more than DEBOUNCE_MS ago, as other builds end', async () => {
    const { s, built, advance } = scheduler(100);
    for (let i = 0; i < 5000; i += 1) s.schedule(`gone-${i}`, 'backfill');
    await waitFor(() => built.length === 5000, 'the 5,000 builds');
    await s.onIdle();
    expect(s.rememberedEnds).toBe(5000);
    advance(50);
    s.schedule('recent', 'live');
    await waitFor(() => built.includes('recent'), 'a build 50 ms later');
    await s.onIdle();
    expect(s.rememberedEnds).toBe(5001);
    advance(60);
    s.schedule('later', 'live');
    await waitFor(() => built.includes('later'), 'a build 110 ms after the first');
    await s.onIdle();
    // The 5,000 ended 110 ms ago: forgotten; `recent` (60 ms) and `later` still delay a change.
    expect(s.rememberedEnds).toBe(2);
    s.stop();
  });
});
