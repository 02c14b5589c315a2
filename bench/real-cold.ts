import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFloorSplitCpu } from './cold.js';
import type { ProcessRun, StoreSize } from './cold-real.js';
import { buildProcess, findPeer, peerProcess, storeSize } from './cold-real.js';
import type { CorpusStore } from './corpus-store.js';
import { generateCorpusStore, makeRepos, mixShares } from './corpus-store.js';
import { median, round } from './metrics.js';

/**
 * The cold build a user meets on a first start: a store shaped like the corpus (many small
 * sessions, some large), built by one `handoff build` process, against the parse floor taken in
 * the same run on the same files, and beside a peer that re-reads every Claude transcript.
 */

const MiB = 2 ** 20;

export interface PeerFigures {
  name: string;
  files: number;
  bytes: number;
  seconds: number;
  cpu_seconds: number;
  mb_s: number;
  peak_rss_mb: number;
}

export interface RealColdFigures {
  from: string;
  /** How many git repositories the transcripts' recorded folders point to (0: git missing). */
  repos: number;
  files: number;
  bytes: number;
  claude_files: number;
  sizes: CorpusStore['sizes'];
  runs: number;
  seconds: number;
  files_s: number;
  mb_s: number;
  floor_mb_s: number;
  ratio: number;
  /** CPU seconds of the build process and of the floor, and their ratio (floor / build). */
  cpu_seconds: number;
  floor_cpu_seconds: number;
  cpu_ratio: number;
  peak_rss_mb: number;
  rss_how: string;
  /** Build workers of the figures above (daemon.backfill_workers; min with cores − 1). */
  workers: number;
  /**
   * Cores free for this process during the runs: twice the time one CPU-bound process takes over
   * the time two take side by side (2: both cores free; 1: the host's other work takes one).
   */
  free_cores: number;
  /**
   * What a second core is worth to this work on this host: two one-thread builds, each over half
   * the files into a store of its own, started together (wall until both end, and their CPU
   * seconds added), against the one-thread build over all of them. 2 would be a second core that
   * doubles the work done; the spin of free_cores is arithmetic alone and says little about it.
   */
  halves: { seconds: number; cpu_seconds: number; speedup: number; cpu_growth: number };
  /** The same build with the workers off (daemon.backfill_workers 0), in the same runs. */
  single: { seconds: number; files_s: number; mb_s: number; ratio: number; cpu_seconds: number; peak_rss_mb: number };
  store: StoreSize;
  store_share: number;
  source_mix: Array<[string, number]>;
  store_mix: Array<[string, number]>;
  peer: PeerFigures | { reason: string };
  /** The host's 1-minute load average at the start and the end of the runs (2 cores here). */
  load: [number, number];
}

const SPIN = 'let x = 0; for (let i = 0; i < 4e8; i += 1) x += i % 7; if (x < 0) console.log(x);';

function spin(n: number): Promise<number> {
  const t0 = performance.now();
  return Promise.all(
    Array.from({ length: n }, () => new Promise<void>((resolve, reject) => spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }).on('exit', () => resolve()).on('error', reject))),
  ).then(() => performance.now() - t0);
}

/** See RealColdFigures.free_cores. */
async function freeCores(): Promise<number> {
  const one = await spin(1);
  const two = await spin(2);
  return (2 * one) / two;
}

async function oneBuild(cli: string, files: readonly string[], base: string, measureStore: boolean, workers: number): Promise<{ run: ProcessRun; size: StoreSize | null }> {
  const dir = await mkdtemp(join(base, 'run-'));
  try {
    const cfg = join(dir, 'home', '.config', 'handoff');
    mkdirSync(cfg, { recursive: true });
    writeFileSync(join(cfg, 'handoff.config.json'), JSON.stringify({ daemon: { backfill_workers: workers } }));
    const run = await buildProcess(cli, files, join(dir, 'home'), join(dir, 'store'));
    return { run, size: measureStore ? storeSize(join(dir, 'store')) : null };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** RealColdFigures.halves: every other file to each of two one-thread builds, side by side. */
async function halvesSideBySide(cli: string, files: readonly string[], base: string): Promise<{ seconds: number; cpuSeconds: number }> {
  const t0 = performance.now();
  const runs = await Promise.all([0, 1].map((k) => oneBuild(cli, files.filter((_, i) => i % 2 === k), base, false, 0)));
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: runs.reduce((a, r) => a + r.run.cpuSeconds, 0) };
}

export async function realColdBench(cli: string, opts: { bytes: number; runs: number; seed: number }, log: (m: string) => void): Promise<RealColdFigures> {
  const base = await mkdtemp(join(tmpdir(), 'handoff-bench-real-'));
  try {
    log(`cold (corpus distribution): generating ${Math.round(opts.bytes / MiB)} MiB`);
    const repos = makeRepos(join(base, 'repos'), 40);
    const g = await generateCorpusStore(join(base, 'data'), { totalBytes: opts.bytes, seed: opts.seed, repos });
    log(`cold (corpus distribution): ${g.files.length} files (${g.claudeFiles.length} Claude), ${(g.bytes / MiB).toFixed(0)} MiB, from ${g.from}`);
    const mb = g.bytes / MiB;
    const peerBin = findPeer();
    const load0 = round(loadavg()[0] as number, 1);
    const floor: number[] = [];
    const floorCpu: number[] = [];
    const sample = (): void => {
      const f = parseFloorSplitCpu(g.files);
      floor.push(f.seconds);
      floorCpu.push(f.cpuSeconds);
    };
    const build: ProcessRun[] = [];
    const single: ProcessRun[] = [];
    const halves: { seconds: number; cpuSeconds: number }[] = [];
    const cores: number[] = [];
    const workers = Math.min(1, availableParallelism() - 1);
    const peer: ProcessRun[] = [];
    let size: StoreSize | null = null;
    // Interleaved, so floor, build and peer see the same machine load; the floor is taken right
    // before and right after each build (two samples per run).
    for (let i = 0; i < opts.runs; i += 1) {
      sample();
      cores.push(await freeCores());
      const r = await oneBuild(cli, g.files, base, size === null, workers);
      size ??= r.size;
      build.push(r.run);
      sample();
      // The workers off, right after: the same files and (nearly) the same load.
      single.push((await oneBuild(cli, g.files, base, false, 0)).run);
      halves.push(await halvesSideBySide(cli, g.files, base));
      if ('argv' in peerBin) peer.push(await peerProcess(peerBin.argv, join(base, 'data', 'claude'), join(base, 'peer-home')));
      log(`cold (corpus distribution) run ${i + 1}/${opts.runs}: build ${(mb / r.run.seconds).toFixed(1)} MB/s (${r.run.seconds.toFixed(1)} s, ${r.run.peakRssMb} MB peak; workers off ${(single.at(-1) as ProcessRun).seconds.toFixed(1)} s; two halves side by side ${(halves.at(-1) as { seconds: number }).seconds.toFixed(1)} s), floor ${(mb / (floor.at(-1) as number)).toFixed(1)} MB/s${peer.length > 0 ? `, peer ${(peer.at(-1) as ProcessRun).seconds.toFixed(1)} s` : ''}`);
    }
    const s = median(build.map((b) => b.seconds));
    const floorS = median(floor);
    const cpuS = median(build.map((b) => b.cpuSeconds));
    const floorCpuS = median(floorCpu);
    const st = size as StoreSize;
    const claudeMb = g.claudeBytes / MiB;
    const peerS = peer.length > 0 ? median(peer.map((p) => p.seconds)) : 0;
    return {
      from: g.from,
      repos: repos.length,
      files: g.files.length,
      bytes: g.bytes,
      claude_files: g.claudeFiles.length,
      sizes: g.sizes,
      runs: opts.runs,
      seconds: round(s),
      files_s: round(g.files.length / s, 1),
      mb_s: round(mb / s),
      floor_mb_s: round(mb / floorS),
      ratio: round(floorS / s, 3),
      cpu_seconds: round(cpuS),
      floor_cpu_seconds: round(floorCpuS),
      cpu_ratio: round(floorCpuS / cpuS, 3),
      peak_rss_mb: median(build.map((b) => b.peakRssMb)),
      rss_how: (build[0] as ProcessRun).how,
      workers,
      free_cores: round(median(cores), 2),
      halves: (() => {
        const hs = median(halves.map((h) => h.seconds));
        const hc = median(halves.map((h) => h.cpuSeconds));
        const ss = median(single.map((b) => b.seconds));
        const sc = median(single.map((b) => b.cpuSeconds));
        return { seconds: round(hs), cpu_seconds: round(hc), speedup: round(ss / hs, 2), cpu_growth: round(hc / sc, 2) };
      })(),
      single: (() => {
        const ss = median(single.map((b) => b.seconds));
        return { seconds: round(ss), files_s: round(g.files.length / ss, 1), mb_s: round(mb / ss), ratio: round(floorS / ss, 3), cpu_seconds: round(median(single.map((b) => b.cpuSeconds))), peak_rss_mb: median(single.map((b) => b.peakRssMb)) };
      })(),
      store: { ...st, breakdown: st.breakdown.slice(0, 12) },
      store_share: round(st.du_bytes / g.bytes, 3),
      source_mix: mixShares(g.sourceMix).slice(0, 14),
      store_mix: mixShares(g.storeMix).slice(0, 14),
      peer:
        'argv' in peerBin
          ? { name: `ccusage ${peerBin.version} \`session --json --offline\``, files: g.claudeFiles.length, bytes: g.claudeBytes, seconds: round(peerS), cpu_seconds: round(median(peer.map((p) => p.cpuSeconds))), mb_s: round(claudeMb / peerS), peak_rss_mb: median(peer.map((p) => p.peakRssMb)) }
          : { reason: peerBin.reason },
      load: [load0, round(loadavg()[0] as number, 1)],
    };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

const kb = (b: number): string => (b >= MiB ? `${(b / MiB).toFixed(2)} MiB` : `${(b / 1024).toFixed(1)} KiB`);

/** The realistic half of the cold-build section of docs/PERFORMANCE.md. */
export function realColdMarkdown(c: RealColdFigures, before: { date: string; commit: string; figures: Record<string, string> } | null): string {
  const p = c.peer;
  const peerRow = 'reason' in p ? `| a peer that re-reads every Claude transcript (ccusage; it reads no Codex) | not run: ${p.reason} |` : `| a peer that re-reads every Claude transcript (it reads no Codex): ${p.name} | ${p.mb_s} MB/s (${p.seconds} s for ${p.files} files, ${(p.bytes / MiB).toFixed(0)} MiB; ${p.cpu_seconds} CPU s), peak ${p.peak_rss_mb} MB → build / peer **${round(c.mb_s / p.mb_s, 2)}** |`;
  const st = c.store;
  const rows = st.breakdown.map((b) => `| \`${b.file}\` | ${b.files} | ${kb(b.bytes)} | ${round((100 * b.bytes) / st.apparent_bytes, 1)} % | ${round((100 * b.bytes) / c.bytes, 1)} % |`);
  const generated = new Map(c.store_mix);
  const mixRows = c.source_mix.map(([k, v]) => `| ${k} | ${v} % | ${generated.get(k) ?? 0} % |`);
  const beforeRows = before
    ? Object.entries(before.figures)
        .map(([k, v]) => `| ${k} | ${v} | the table above (this run) |`)
        .join('\n')
    : '';
  return `### On a store shaped like a real one

${c.files} transcripts (${c.claude_files} Claude Code, ${c.files - c.claude_files} Codex), ${(c.bytes / MiB).toFixed(0)} MiB, from ${kb(c.sizes.min)} to
${kb(c.sizes.max)} (median ${kb(c.sizes.p50)}, p90 ${kb(c.sizes.p90)}), as a \`~/.claude/projects\` and \`~/.codex/sessions\`
look after some months. Sizes and line mix come from ${c.from}: each file replays one corpus
transcript (fresh ids) to that transcript's size times a log-normal jitter (σ 0.35). Without the corpus the
sizes measured on it on 2026-11-30 (bench/corpus-store.ts) are drawn and the project's fixtures replayed.
${c.repos > 0 ? `The folders the transcripts record are replaced by ${c.repos} real git repositories (one commit, one uncommitted change), as on a user's machine, so a build's git probes run.` : 'git is not installed here: the recorded folders do not exist, and no git probe runs.'}
Bytes per line kind (the largest kinds):

| line kind | corpus | generated store |
|---|---|---|
${mixRows.join('\n')}

The build is one \`node dist/cli.js build <every file>\` process into a fresh store, timed from spawn to
exit (${c.rss_how} for its peak memory); the floor reads each file whole, splits it into lines and
\`JSON.parse\`s every line, on one core, in the same run on the same files. Median of ${c.runs}. The host's
load average was ${c.load[0]} at the start and ${c.load[1]} at the end (2 cores, shared with other builds): wall
times stretch with it, so the ratios and the CPU seconds are the figures to compare. MB/s counts 2^20 bytes.
Each run builds twice, right after each other: with the build worker (the default, docs/ARCHITECTURE.md#parallel-backfill)
and with \`daemon.backfill_workers: 0\`. The worker can only shorten the wall time when a second core is free. When the
host's other work takes that core (the "cores free" figure below 2), the worker cannot help, and what it costs — a second V8
heap and its collector, dearer git spawns from a larger process, ${round(100 * (c.cpu_seconds / c.single.cpu_seconds - 1))} % more CPU seconds in these runs — makes the build slower.
How much a second core can give this work at all is measured apart from the worker: two separate one-thread
builds, each over every other file into its own store, started together. Were the two cores independent, they would
end in about half the time of one build over all the files (2×); the figure below is what this host gives.

| figure | value |
|---|---|
| build, main thread + ${c.workers} build worker (daemon.backfill_workers ${c.workers}, the default) | **${c.files_s} files/s, ${c.mb_s} MB/s** (${c.seconds} s) |
| build, one thread (daemon.backfill_workers 0), same runs | ${c.single.files_s} files/s, ${c.single.mb_s} MB/s (${c.single.seconds} s; ${c.single.cpu_seconds} CPU s, peak ${c.single.peak_rss_mb} MB) |
| workers on / off (wall) | **${round(c.single.seconds / c.seconds, 2)}×** (cores free for the build, measured before each run: ${c.free_cores} of 2) |
| what a second core gives this work here: two one-thread builds over half the files each, side by side, against one over all | **${c.halves.speedup}×** (${c.halves.seconds} s for both; their CPU seconds ${c.halves.cpu_seconds}, ${c.halves.cpu_growth}× the one build's) |
| parse floor (whole-file read + split + JSON.parse, one core) | ${c.floor_mb_s} MB/s |
| **build / floor** (wall; target ≥ 0.5; both cores may be used) | **${c.ratio}** with the worker, ${c.single.ratio} without |
| CPU seconds: build process / floor → floor ÷ build | ${c.cpu_seconds} s / ${c.floor_cpu_seconds} s → ${c.cpu_ratio} |
| peak RSS of the build process (target ≤ 200 MB) | **${c.peak_rss_mb} MB** |
| store on disk (du) / source bytes (target ≤ 30 %) | **${round(100 * c.store_share, 1)} %** (${(st.du_bytes / MiB).toFixed(0)} MiB on disk, ${(st.apparent_bytes / MiB).toFixed(0)} MiB in ${st.files} files, ${st.sessions} sessions) |
${peerRow}

Where the store's bytes are (largest first; "share of source" is against the transcripts' bytes):

| file | files | bytes | share of store | share of source |
|---|---|---|---|---|
${rows.join('\n')}
${
  before
    ? `
Before issue 13's optimisations (measured ${before.date} at ${before.commit} with this benchmark; the
"after" figures are those of the table above, measured in this run):

| figure | before | after |
|---|---|---|
${beforeRows}
`
    : ''
}`;
}
