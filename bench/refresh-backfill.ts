import { setTimeout as sleep } from 'node:timers/promises';
import { appendFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { startBenchDaemon } from './daemon-proc.js';
import type { Source } from './generate.js';
import { loadSources, rewrite, transcriptText } from './generate.js';
import { median, percentile, round } from './metrics.js';
import { rng } from './soak-core.js';

/**
 * Refresh latency while a backfill runs: a daemon starts over a store of transcripts last written
 * an hour ago (its start-up backfill) and one live session; one turn at a time is appended to the
 * live one and timed to its `built` notification, for as long as the backfill lasts. Run with
 * the build workers on (the backfill on the other core) and off (the backfill between the
 * refreshes on the one thread), on the same files.
 */

export interface BackfillRefreshRun {
  workers: number;
  /** Appends timed while the backfill was still running. */
  appends: number;
  p50_ms: number;
  p99_ms: number;
  backfill_s: number;
}

export interface BackfillRefreshFigures {
  files: number;
  bytes: number;
  on: BackfillRefreshRun;
  off: BackfillRefreshRun;
  /** The host's 1-minute load average before and after (2 cores here, shared). */
  load: [number, number];
  /** When several runs were made (bench.ts): each run's p50 with the workers on, and off. */
  run_on_p50s?: number[];
  run_off_p50s?: number[];
}

const MiB = 2 ** 20;
const GAP_MS = 80;

export async function backfillRefreshBench(cli: string, o: { files: number; bytes: number; maxAppends: number; seed: number }): Promise<BackfillRefreshFigures> {
  const base = await mkdtemp(join(tmpdir(), 'handoff-bench-refresh-bf-'));
  try {
    const rand = rng(o.seed);
    const { sources } = loadSources();
    const usable = sources.filter((s) => s.lines.length > 20);
    const hourAgo = new Date(Date.now() - 3_600_000);
    const old = join(base, 'watch', '-home-dev-old');
    await mkdir(old, { recursive: true });
    for (let i = 0; i < o.files; i += 1) {
      const src = usable[i % usable.length] as Source;
      const id = `${String(i).padStart(8, '0')}-0000-4000-8000-00000000b0f1`;
      const p = join(old, `${id}.jsonl`);
      await writeFile(p, transcriptText(src, o.bytes / o.files, rand, id));
      await utimes(p, hourAgo, hourAgo);
    }
    const claude = sources.filter((s) => s.harness === 'claude' && s.lines.length > 100).sort((a, b) => b.lines.length - a.lines.length)[0] ?? (sources[0] as Source);
    const turns = claude.lines.filter((l) => l.includes('"type":"assistant"') && l.includes('"type":"text"') && l.length < 8000);
    const liveDir = join(base, 'watch', '-home-dev-live');
    await mkdir(liveDir, { recursive: true });
    const live = join(liveDir, '33333333-3333-4333-8333-333333333333.jsonl');
    await writeFile(live, transcriptText(claude, MiB, rand, basename(live, '.jsonl')));
    const run = async (workers: number): Promise<BackfillRefreshRun> => {
      const home = join(base, `home-${workers}`);
      const d = await startBenchDaemon(cli, home, join(base, `store-${workers}`), [join(base, 'watch')], { watch: { debounce_ms: 50 }, daemon: { backfill_workers: workers } });
      try {
        const id = basename(live, '.jsonl');
        const waiting = new Map<string, () => void>();
        d.client.onNotification((event, p) => {
          const done = event === 'built' ? waiting.get((p as { session: string }).session) : undefined;
          if (done) {
            waiting.delete((p as { session: string }).session);
            done();
          }
        });
        await d.client.call('subscribe', { events: ['built'] });
        // The live session is built first (it outranks the backfill).
        for (;;) {
          const s = await d.client.call('status');
          if (s.sessions.some((x) => x.id === id)) break;
          await sleep(20);
        }
        const lat: number[] = [];
        for (let i = 0; i < o.maxAppends; i += 1) {
          const s = await d.client.call('status');
          if (!s.backfill.running) break;
          const built = new Promise<void>((resolve) => waiting.set(id, resolve));
          const start = performance.now();
          await appendFile(live, `${rewrite(turns[i % turns.length] as string, 'claude', id, rand)}\n`);
          await built;
          lat.push(performance.now() - start);
          await sleep(GAP_MS);
        }
        await d.client.call('flush', { timeout_ms: 600_000 }, 610_000);
        const s = await d.client.call('status');
        const started = Date.parse(s.backfill.started_at ?? '');
        const finished = Date.parse(s.backfill.finished_at ?? '');
        return { workers, appends: lat.length, p50_ms: round(median(lat)), p99_ms: round(percentile(lat, 99)), backfill_s: round((finished - started) / 1000) };
      } finally {
        await d.stop();
      }
    };
    const load0 = round(loadavg()[0] as number, 1);
    const on = await run(1);
    const off = await run(0);
    return { files: o.files, bytes: o.bytes, on, off, load: [load0, round(loadavg()[0] as number, 1)] };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

export function backfillRefreshMarkdown(f: BackfillRefreshFigures, quietP50: number): string {
  const row = (label: string, r: BackfillRefreshRun): string => `| ${label} | ${r.appends} | **${r.p50_ms} ms** | ${r.p99_ms} ms | ${r.backfill_s} s |`;
  return `### While a backfill runs

A daemon started over ${f.files} transcripts last written an hour ago (${(f.bytes / MiB).toFixed(0)} MiB: its start-up backfill) and one live
1 MiB session; one turn at a time appended to the live session (every ${GAP_MS} ms) and timed to its \`built\`
notification for as long as the backfill ran. Same files, one daemon after the other${f.run_on_p50s ? `, in ${f.run_on_p50s.length} runs; the run with the median p50 (workers on) is shown, and each run's p50: ${f.run_on_p50s.join(', ')} ms with the worker, ${(f.run_off_p50s ?? []).join(', ')} ms without` : ''}:

| daemon.backfill_workers | appends during the backfill | p50 (target ≤ 25 ms) | p99 | backfill took |
|---|---|---|---|---|
${row(`${f.on.workers} (the backfill on the other core)`, f.on)}
${row(`${f.off.workers} (the backfill on the main thread)`, f.off)}

With the workers off a refresh outranks the backfill but waits for the backfill build under way; with them on it
waits for none (the worker also runs at a lower CPU priority than the main thread). What the worker still takes from
a refresh is mostly disk, not the main thread: a profile of the daemon's main thread during the backfill shows it
idle but for the live builds (the worker's results, INDEX.json and the status lines cost it about 1 % of the run),
while the live build's file writes took about half again as long as with no backfill — its atomic replaces and
the manifest's flush wait on the same file-system journal as the worker's writes. For comparison, a refresh with
no backfill running took ${quietP50} ms at the median in the same run (the table above). The host's load average was
${f.load[0]} before and ${f.load[1]} after these runs (2 cores, shared): every latency here stretches with it.
`;
}
