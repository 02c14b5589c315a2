import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the daemon's old generation grow past what survived its last full collection
 * before it collects again. V8's own choice on a machine with memory to spare is up to four
 * times: with about 30 MB live and a backfill promoting garbage all along (renders and states
 * kept across the awaits of their writes), the heap reached 110-120 MB between collections.
 * 1.5 times bounds that at about 45 MB; measured on the hostile workspace (docs/PERFORMANCE.md,
 * "Daemon memory") it lowered the peak RSS by about 30 MB for the same CPU time.
 *
 * V8 reads this flag at every full collection, so it is set here, when the daemon starts, and
 * applies however the daemon was started (`npm start`, `handoff daemon`, the service units); a
 * value given on node's command line wins. `handoff build` of many files sets it too, before its
 * build workers start (they read it as their heaps are made): a cold build of 86 files peaked at
 * 214 MB without it, 170 MB with it, in about 4 % more time.
 */
export const HEAP_GROWING_PERCENT = 50;

export function tuneHeap(execArgv: readonly string[] = process.execArgv): string[] {
  const given = execArgv.some((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a));
  if (given) return [];
  const flags = [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`];
  for (const f of flags) setFlagsFromString(f);
  return flags;
}
