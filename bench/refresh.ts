import { setTimeout as sleep } from 'node:timers/promises';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { startBenchDaemon } from './daemon-proc.js';
import type { Source } from './generate.js';
import { loadSources, rewrite, transcriptText } from './generate.js';
import { median, percentile, round } from './metrics.js';
import { rng } from './soak-core.js';

/**
 * Refresh latency: with the daemon running, the time from appending one realistic turn to the
 * `built` notification for that session, on a small transcript and on a very large one. A
 * refresh must cost the new bytes, not the file: the two medians should be close.
 */

export interface RefreshFigures {
  small_bytes: number;
  large_bytes: number;
  appends: number;
  small_p50_ms: number;
  small_p99_ms: number;
  large_p50_ms: number;
  large_p99_ms: number;
  ratio: number;
  /** The engine's own time for the same builds (the notification's build_ms), p50. */
  small_build_p50_ms: number;
  large_build_p50_ms: number;
  initial_build_s: number;
  /** When several runs were made (bench.ts): each run's large / small ratio and p50s. */
  run_ratios?: number[];
  run_p50s?: [number, number][];
}

const GAP_MS = 80; // longer than the debounce below: each append is a refresh of its own

export async function refreshBench(cli: string, o: { smallBytes: number; largeBytes: number; appends: number; seed: number }): Promise<RefreshFigures> {
  const base = await mkdtemp(join(tmpdir(), 'handoff-bench-refresh-'));
  try {
    const rand = rng(o.seed);
    const { sources } = loadSources();
    // A long real session (not the image-heavy ones), so appended turns are ordinary ones.
    const claude = sources.filter((s) => s.harness === 'claude' && s.lines.length > 100).sort((a, b) => b.lines.length - a.lines.length)[0] ?? (sources[0] as Source);
    const watch = join(base, 'watch', '-home-dev-bench');
    await mkdir(watch, { recursive: true });
    const small = join(watch, '11111111-1111-4111-8111-111111111111.jsonl');
    const large = join(watch, '22222222-2222-4222-8222-222222222222.jsonl');
    await writeFile(small, transcriptText(claude, o.smallBytes, rand, basename(small, '.jsonl')));
    await writeFile(large, transcriptText(claude, o.largeBytes, rand, basename(large, '.jsonl')));
    const turns = claude.lines.filter((l) => l.includes('"type":"assistant"') && l.includes('"type":"text"') && l.length < 8000);
    const d = await startBenchDaemon(cli, join(base, 'home'), join(base, 'store'), [join(base, 'watch')], { watch: { debounce_ms: 50 } });
    try {
      const t0 = performance.now();
      await d.client.call('flush', { timeout_ms: 600_000 }, 610_000);
      const initial = (performance.now() - t0) / 1000;
      const waiting = new Map<string, () => void>();
      const buildMs: Record<string, number[]> = {};
      d.client.onNotification((event, p) => {
        if (event !== 'built') return;
        const { session, build_ms } = p as { session: string; build_ms: number };
        const done = waiting.get(session);
        if (done) {
          waiting.delete(session);
          (buildMs[session] ??= []).push(build_ms);
          done();
        }
      });
      await d.client.call('subscribe', { events: ['built'] });
      const lat: Record<'small' | 'large', number[]> = { small: [], large: [] };
      for (let i = 0; i < o.appends; i += 1) {
        for (const [which, path] of [['small', small], ['large', large]] as const) {
          const id = basename(path, '.jsonl');
          const line = `${rewrite(turns[i % turns.length] as string, 'claude', id, rand)}\n`;
          const built = new Promise<void>((resolve) => waiting.set(id, resolve));
          const start = performance.now();
          await appendFile(path, line);
          await built;
          lat[which].push(performance.now() - start);
          await sleep(GAP_MS);
        }
      }
      const sp50 = median(lat.small);
      const lp50 = median(lat.large);
      return {
        small_bytes: o.smallBytes,
        large_bytes: o.largeBytes,
        appends: o.appends,
        small_p50_ms: round(sp50),
        small_p99_ms: round(percentile(lat.small, 99)),
        large_p50_ms: round(lp50),
        large_p99_ms: round(percentile(lat.large, 99)),
        ratio: round(lp50 / sp50),
        small_build_p50_ms: round(median(buildMs[basename(small, '.jsonl')] ?? [0])),
        large_build_p50_ms: round(median(buildMs[basename(large, '.jsonl')] ?? [0])),
        initial_build_s: round(initial),
      };
    } finally {
      await d.stop();
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
