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

/**
 * The young generation ("nursery") of a one-shot build of many files is held at the size V8
 * starts it with (2 MB). V8 grows it to 32 MB as objects survive, and fixes that maximum when node
 * starts (`--max-semi-space-size` on node's command line, which `handoff build` cannot give
 * itself), but reads `--semi-space-growth-factor` at each growth: at 1 it grows no more. A worker's
 * start sets V8's flags afresh (set once, the nursery grew to 32 MB after the build worker
 * started), so it is set again every NURSERY_TICK_MS. A cold build of the benchmark's 317 files
 * peaked at 206-215 MB without it and 176-189 MB with it (183 MB in `npm run bench`), for more scavenges on the main thread
 * (about 740 instead of 110; docs/PERFORMANCE.md has the CPU seconds of both). Holding it at 8 MB
 * instead was tried: a long synchronous stretch grows it past any cap a timer checks.
 *
 * Not for the daemon: its nursery at 32 MB keeps a burst of builds' garbage from being promoted
 * (a growth factor of 1 there read 231 MB against 196-243: more was promoted). A value of any of
 * these flags on node's command line wins: nothing is set. Returns a stop function.
 */
const NURSERY_TICK_MS = 100;
const NURSERY_FLAGS = /^--(?:max|min)[-_]semi[-_]space[-_]size(=|$)|^--semi[-_]space[-_]growth[-_]factor(=|$)/;

export function holdNursery(execArgv: readonly string[] = process.execArgv): () => void {
  if (execArgv.some((a) => NURSERY_FLAGS.test(a))) return () => {};
  const hold = (): void => setFlagsFromString('--semi-space-growth-factor=1');
  hold();
  const timer = setInterval(hold, NURSERY_TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
