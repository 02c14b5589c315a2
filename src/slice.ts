import { setImmediate as yieldToLoop } from 'node:timers/promises';

/**
 * Long loops on the daemon's thread (thousands of sessions, a multi-megabyte answer) run in
 * slices of a few milliseconds: the socket is answered between two slices. The budget is time,
 * not a count of items: the same loop costs four times as long on a host whose cores are shared,
 * and `hello` must answer within 100 ms there too.
 */
export const SLICE_MS = 4;

export class Slicer {
  private since = performance.now();

  constructor(private readonly budgetMs = SLICE_MS) {}

  /** This slice is used up: the caller should `await pause()` before going on. */
  get due(): boolean {
    return performance.now() - this.since >= this.budgetMs;
  }

  /** Lets the event loop run what waits (I/O, timers), then starts a new slice. */
  async pause(): Promise<void> {
    await yieldToLoop();
    this.since = performance.now();
  }

  /** `pause()` when the slice is used up; otherwise nothing. */
  async tick(): Promise<void> {
    if (this.due) await this.pause();
  }
}

const SORT_RUN = 256;
const CHECK_EVERY = 64;

/**
 * `[...items].sort(compare)` (the same order: stable) in slices: runs of SORT_RUN items are
 * sorted, then merged pairwise, the event loop free whenever `slice` is used up. Sorting five
 * thousand sessions at once costs 2 ms on an idle core and over 20 ms on a shared one.
 */
export async function sortInSlices<T>(items: Iterable<T>, compare: (a: T, b: T) => number, slice = new Slicer()): Promise<T[]> {
  let runs: T[][] = [];
  let run: T[] = [];
  for (const x of items) {
    run.push(x);
    if (run.length < SORT_RUN) continue;
    runs.push(run.sort(compare));
    run = [];
    await slice.tick();
  }
  if (run.length > 0 || runs.length === 0) runs.push(run.sort(compare));
  while (runs.length > 1) {
    const next: T[][] = [];
    for (let i = 0; i < runs.length; i += 2) {
      const a = runs[i] as T[];
      const b = runs[i + 1];
      next.push(b === undefined ? a : await merge(a, b, compare, slice));
    }
    runs = next;
  }
  return runs[0] as T[];
}

async function merge<T>(a: readonly T[], b: readonly T[], compare: (a: T, b: T) => number, slice: Slicer): Promise<T[]> {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    // Ties take from the first run: the sort stays stable.
    out.push(compare(b[j] as T, a[i] as T) < 0 ? (b[j++] as T) : (a[i++] as T));
    if (out.length % CHECK_EVERY === 0) await slice.tick();
  }
  while (i < a.length) out.push(a[i++] as T);
  while (j < b.length) out.push(b[j++] as T);
  return out;
}
