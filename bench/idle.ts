import { setTimeout as sleep } from 'node:timers/promises';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchDaemon } from './daemon-proc.js';
import type { Source } from './generate.js';
import { loadSources, rewrite } from './generate.js';
import { cpuSeconds, openFds, round, rssMb } from './metrics.js';
import { rng } from './soak-core.js';

/**
 * The daemon at rest: watching thousands of transcripts after its backfill, it should use next
 * to no CPU, little memory, and as many file descriptors as it would for a handful of files.
 */

export interface IdleFigures {
  files: number;
  seconds: number;
  cpu_s: number;
  cpu_pct: number;
  /** The window right after the backfill, which may hold V8's one-off return of the heap the backfill grew. */
  first_cpu_pct: number;
  rss_mb: number;
  fds: number;
  fds_small: number;
  small_files: number;
  backfill_s: number;
  backfill_files_per_s: number;
}

/** Small, realistic transcripts: the opening lines of real sessions, fresh ids. */
async function writeMany(root: string, n: number, sources: Source[], seed: number): Promise<void> {
  const rand = rng(seed);
  for (let i = 0; i < n; i += 1) {
    const src = sources[i % sources.length] as Source;
    const id = `${String(i).padStart(8, '0')}-0000-4000-8000-${String(seed).padStart(12, '0')}`;
    const dir = join(root, `-home-dev-project-${i % 100}`);
    if (i < 100) await mkdir(dir, { recursive: true });
    const lines = src.lines.filter((l) => l.length < 4000).slice(0, 12);
    await writeFile(join(dir, `${id}.jsonl`), `${lines.map((l) => rewrite(l, src.harness, id, rand)).join('\n')}\n`);
  }
}

async function measure(cli: string, files: number, idleSeconds: number, seed: number): Promise<{ fds: number; cpu: number; firstPct: number; rss: number; backfill: number; seconds: number }> {
  const base = await mkdtemp(join(tmpdir(), 'handoff-bench-idle-'));
  try {
    const { sources } = loadSources();
    const watch = join(base, 'claude', 'projects');
    await writeMany(watch, files, sources.filter((s) => s.harness === 'claude'), seed);
    const t0 = performance.now();
    const d = await startBenchDaemon(cli, join(base, 'home'), join(base, 'store'), [watch]);
    try {
      await d.client.call('flush', { timeout_ms: 900_000 }, 910_000);
      const backfill = (performance.now() - t0) / 1000;
      let status = await d.client.call('status');
      if (status.sessions.length < files) throw new Error(`only ${status.sessions.length} of ${files} sessions were built`);
      // Idle means: backfill done, nothing queued or running; then a few seconds for the last
      // index write and garbage collection before the quiet is measured.
      while (status.backfill.running || status.queue.waiting > 0 || status.queue.running !== null) {
        await sleep(250);
        status = await d.client.call('status');
      }
      d.client.close();
      await sleep(5000);
      // Two windows back to back: the first may hold a one-off (V8's memory reducer hands back
      // the heap the backfill grew, 30 to 70 s after the work stops); the second is the daemon at rest.
      const window = async (): Promise<{ cpu: number; seconds: number }> => {
        const c0 = cpuSeconds(d.pid);
        const w0 = performance.now();
        await sleep(idleSeconds * 1000);
        return { cpu: cpuSeconds(d.pid) - c0, seconds: (performance.now() - w0) / 1000 };
      };
      const first = await window();
      const rest = await window();
      return { fds: openFds(d.pid), cpu: rest.cpu, firstPct: (first.cpu / first.seconds) * 100, rss: rssMb(d.pid), backfill, seconds: rest.seconds };
    } finally {
      await d.stop();
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

export async function idleBench(cli: string, o: { files: number; smallFiles: number; seconds: number; seed: number }): Promise<IdleFigures> {
  const small = await measure(cli, o.smallFiles, 1, o.seed);
  const big = await measure(cli, o.files, o.seconds, o.seed + 1);
  return {
    files: o.files,
    seconds: round(big.seconds, 1),
    cpu_s: round(big.cpu, 3),
    cpu_pct: round((big.cpu / big.seconds) * 100, 3),
    first_cpu_pct: round(big.firstPct, 3),
    rss_mb: big.rss,
    fds: big.fds,
    fds_small: small.fds,
    small_files: o.smallFiles,
    backfill_s: round(big.backfill, 1),
    backfill_files_per_s: round(o.files / big.backfill, 1),
  };
}
