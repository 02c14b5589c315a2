import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coldBuild, parseFloorReadline, parseFloorSplit } from './cold.js';
import { COLD_BEFORE } from './cold-baseline.js';
import type { RealColdFigures } from './real-cold.js';
import { realColdBench, realColdMarkdown } from './real-cold.js';
import { generateStore, PROJECT } from './generate.js';
import type { HookFigures } from './hooks.js';
import { hooksBench } from './hooks.js';
import { idleBench } from './idle.js';
import type { IdleFigures } from './idle.js';
import { machine, median, round } from './metrics.js';
import type { RedactionFigures } from './redaction.js';
import { redactionFigures, redactionMarkdown } from './redaction.js';
import { refreshBench } from './refresh.js';
import type { SoakResult } from './soak-core.js';
import type { RefreshFigures } from './refresh.js';
import type { BackfillRefreshFigures } from './refresh-backfill.js';
import { backfillRefreshBench, backfillRefreshMarkdown } from './refresh-backfill.js';

/**
 * `npm run bench [-- --json] [-- --quick] [-- --redaction] [-- --only cold|refresh|idle|hooks]`: the figures
 * behind the product's claims, measured as medians and as ratios within one run (these machines
 * are shared and noisy), then written to docs/PERFORMANCE.md. `--redaction` measures the redactor
 * alone and prints its figures; `--only cold` (or HANDOFF_BENCH_ONLY=cold) the cold builds alone,
 * rewriting only their section. Nothing it generates is kept.
 */

const args = new Set(process.argv.slice(2));
const JSON_OUT = args.has('--json');
const QUICK = args.has('--quick');
/** `-- --only hooks`: the hook figures alone, printed, docs/PERFORMANCE.md left as it is. */
const ONLY = (() => {
  const i = process.argv.indexOf('--only');
  return i === -1 ? (process.env.HANDOFF_BENCH_ONLY ?? null) : (process.argv[i + 1] ?? null);
})();
const REDACTION_ONLY = args.has('--redaction');
const CLI = join(PROJECT, 'dist', 'cli.js');
const MiB = 2 ** 20;

const SIZES = QUICK
  ? { realBytes: 40 * MiB, coldBytes: 40 * MiB, runs: 2, largeBytes: 20 * MiB, appends: 30, backfillFiles: 20, backfillBytes: 20 * MiB, idleFiles: 500, idleSeconds: 5, hookRuns: 15, hookBytes: 5 * MiB }
  : { realBytes: 160 * MiB, coldBytes: 200 * MiB, runs: 3, largeBytes: 100 * MiB, appends: 100, backfillFiles: 60, backfillBytes: 60 * MiB, idleFiles: 5000, idleSeconds: 60, hookRuns: 60, hookBytes: 20 * MiB };

const STARTED = performance.now();
const log = (msg: string): void => {
  process.stderr.write(`[bench +${Math.round((performance.now() - STARTED) / 1000)} s] ${msg}\n`);
};

interface ColdFigures {
  bytes: number;
  files: number;
  turns: number;
  runs: number;
  seconds: number;
  mb_s: number;
  parse_floor_mb_s: number;
  ratio: number;
  whole_file_floor_mb_s: number;
  whole_file_ratio: number;
}

async function cold(): Promise<ColdFigures> {
  const root = await mkdtemp(join(tmpdir(), 'handoff-bench-data-'));
  try {
    log(`generating ${Math.round(SIZES.coldBytes / MiB)} MiB of transcripts`);
    const g = await generateStore(root, { totalBytes: SIZES.coldBytes, minBytes: 1 * MiB, maxBytes: 4 * MiB, seed: 42 });
    const mb = g.bytes / MiB;
    const floor: number[] = [];
    const whole: number[] = [];
    const build: number[] = [];
    let turns = 0;
    // Interleaved, so the floor and the build see the same machine load.
    // The floor is taken right before and right after each build (two samples per run).
    for (let i = 0; i < SIZES.runs; i += 1) {
      floor.push(await parseFloorReadline(g.files));
      whole.push(parseFloorSplit(g.files));
      const r = await coldBuild(g.files);
      floor.push(await parseFloorReadline(g.files));
      build.push(r.seconds);
      turns = r.turns;
      log(`cold run ${i + 1}/${SIZES.runs}: build ${(mb / r.seconds).toFixed(1)} MB/s, floor ${(mb / (floor.at(-1) as number)).toFixed(1)} MB/s`);
    }
    const s = median(build);
    const mbS = mb / s;
    const floorS = mb / median(floor);
    const wholeS = mb / median(whole);
    return {
      bytes: g.bytes,
      files: g.files.length,
      turns,
      runs: SIZES.runs,
      seconds: round(s),
      mb_s: round(mbS),
      parse_floor_mb_s: round(floorS),
      ratio: round(mbS / floorS, 3),
      whole_file_floor_mb_s: round(wholeS),
      whole_file_ratio: round(mbS / wholeS, 3),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The cold-build section of docs/PERFORMANCE.md (also spliced in alone by \`-- --only cold\`). */
function coldSection(real: RealColdFigures, c: ColdFigures): string {
  return `## Cold build (one-shot, whole store)

${realColdMarkdown(real, COLD_BEFORE)}
### On large files

${c.files} transcripts of 1 to 4 MiB each, built in the bench process by the engine itself (\`openEngine\`,
\`build\` per file): the per-line costs, with per-file costs spread thin. Median of ${c.runs}.

| figure | value |
|---|---|
| transcripts | ${c.files} files, ${(c.bytes / MiB).toFixed(0)} MiB, ${c.turns} turns (real Claude Code and Codex turns replayed with fresh ids) |
| build | **${c.mb_s} MB/s** (${c.seconds} s) |
| parse floor (readline + JSON.parse per line) | ${c.parse_floor_mb_s} MB/s |
| **ratio** (build / floor; target ≥ 0.35) | **${c.ratio}** |
| stricter floor (whole-file read + split + JSON.parse) | ${c.whole_file_floor_mb_s} MB/s → ratio ${c.whole_file_ratio} |

A build does everything the floor does and also: classifies every line, redacts every string, hashes the
source and chains every turn, writes timeline.jsonl and TOOLS.md, and renders and seals the handoff of
each of the ${c.files} sessions.

`;
}

function coldLines(r: RealColdFigures, c: ColdFigures): string[] {
  const p = r.peer;
  return [
    `cold     ${r.files} files (${(r.bytes / MiB).toFixed(0)} MiB, corpus distribution): ${r.files_s} files/s, ${r.mb_s} MB/s vs floor ${r.floor_mb_s} MB/s → ratio ${r.ratio} (CPU time ${r.cpu_ratio}); peak RSS ${r.peak_rss_mb} MB; store ${Math.round(1000 * r.store_share) / 10} % of the source`,
    `cold     workers off (daemon.backfill_workers 0): ${r.single.files_s} files/s, ${r.single.mb_s} MB/s → ratio ${r.single.ratio}; on/off ${round(r.single.seconds / r.seconds, 2)}× with ${r.free_cores} of 2 cores free; two halves side by side ${r.halves.speedup}× (CPU ×${r.halves.cpu_growth})`,
    'reason' in p ? `cold     peer not run: ${p.reason}` : `cold     peer ${p.name}: ${p.mb_s} MB/s (${p.seconds} s on ${p.files} Claude files), peak RSS ${p.peak_rss_mb} MB`,
    `cold     large files: ${c.mb_s} MB/s vs parse floor ${c.parse_floor_mb_s} MB/s → ratio ${c.ratio} (${(c.bytes / MiB).toFixed(0)} MiB, ${c.files} files)`,
  ];
}

/** The refresh section of docs/PERFORMANCE.md (also spliced in alone by `-- --only refresh`). */
function refreshSection(f: RefreshFigures, bf: BackfillRefreshFigures): string {
  return `## Refresh latency (daemon running)

Time from appending one realistic turn to the \`built\` notification for that session, ${f.appends} appends each, in
${f.run_ratios?.length ?? 1} runs (a new daemon each): the table gives the run with the median ratio, and each run's ratio below it.

| transcript | p50 | p99 |
|---|---|---|
| small (${(f.small_bytes / MiB).toFixed(0)} MiB) | ${f.small_p50_ms} ms | ${f.small_p99_ms} ms |
| large (${(f.large_bytes / MiB).toFixed(0)} MiB) | ${f.large_p50_ms} ms | ${f.large_p99_ms} ms |
| **large / small (p50; target ≤ 1.5)** | **${f.ratio}** | |
| large / small in each run (${f.run_p50s?.map(([a, b]) => `${a} / ${b} ms`).join(', ') ?? ''}) | ${f.run_ratios?.join(', ') ?? ''} | |
| the engine's own build, p50 (the notification's \`build_ms\`), small / large | ${f.small_build_p50_ms} / ${f.large_build_p50_ms} ms | |

A refresh reads only the new bytes: the first build of the large transcript took ${f.initial_build_s} s, each
refresh after it reads one turn. What still grows with a long session is what every refresh rewrites: the
handoff's bounded parts (the 200-turn window, the last 200 requests, up to 1,000 files, the task list…) are full
on the large session and nearly empty on the small one, so its renders are about three times the bytes
(HANDOFF.llm.json 260 / 108 KB, HANDOFF.summary.json 171 / 36 KB), and serializing, encoding, hashing and
writing them costs in proportion. The carried state (378 / 166 KB before compression) is no longer written by
every refresh: a live build leaves it behind for up to 16 commits or 256 KiB of transcript, and a restart folds
what is behind again (docs/FORMAT.md, "A state left behind"). The engine's build time through the daemon
(the row above) is longer than the same build in-process because a daemon builds once per append, 80 ms apart,
with cold caches: in-process, an 80 ms pause before each build took the small session from 7.9 to 10.9 ms and
the large from 13.3 to 17.6 ms of wall time.

What was taken out of a refresh, in the order it was done (each checked byte for byte against the renders
before it on every corpus transcript):
- the state handed to the build instead of deep-copied twice; HANDOFF.md's shared sections rendered once, not
  once per shortening tried; each payload encoded once and its digest placeholders overwritten in place (issue
  13's earlier changes: in-process CPU 53 → 30 ms on the large session, 24 → 16 ms on the small one);
- the quality gate's second secret scan tokenises only the lines of HANDOFF.md that hold a credential prefix
  (the same hits: tested against the whole-text scan on generated texts);
- HANDOFF.md's shortening levels are measured by their parts, joined once, and a long session whose unshortened
  sections alone pass the size bound goes straight to the shortest level instead of trying four;
- the summary's members are encoded to JSON and UTF-8 once for both payloads (HANDOFF.llm.json holds them all);
- a live refresh leaves the carried state file behind (written every 16th commit, when the session goes quiet,
  and when the daemon stops): encoding, compressing and writing it was a fifth to a third of a refresh. Paired in
  one process (2026-12-01: two copies of a transcript, one refreshed lazily and one writing the state each time,
  alternating, 160 appends each, p50): 16.89 → 11.71 ms wall and 17.78 → 10.19 ms CPU on 100 MiB, 10.51 → 7.82 ms
  wall on 1 MiB; the mean, which counts the 16th refresh that writes it, 17.52 → 12.45 ms on 100 MiB. In the
  daemon the table went from 17.39 / 26.05 ms (ratio 1.5, the run before the change, host load 1.4) to 12.6 /
  17.18 ms (1.36, host load 1.0) right after it; the table above is a later run on the final tree. Runs an hour
  apart on this shared host differ by a third in absolute terms; the paired figures are the change's own.
The three before it, paired in one process with the code before them (2026-12-01: both engines in one process,
alternating on the same appends, 100 each, CPU p50, two runs): 22.2 → 18.6 and 20.1 → 17.2 ms on the large
session, 11.5 → 11.1 and 10.4 → 9.8 ms on the small one (two engines in one process share its caches, so these
are higher than either alone).
Once the bounded parts are full the cost stops growing (in-process CPU p50 before these last changes: 14.6 ms
on 1 MiB, 23.2 ms on 20 MiB, 27.1 ms on 100 MiB, 27.9 ms on 300 MiB). Flattening the first 20 MiB further would
mean smaller bounds, that is a handoff that keeps fewer of the session's requests and tasks.
The engine's own cost, without a daemon or a socket, per phase and with a CPU profile:
\`node .bench/bench/refresh-inproc.js [appends] [largeMiB] [small|large] [profile.cpuprofile]\`.

${backfillRefreshMarkdown(bf, f.small_p50_ms)}
`;
}

function refreshLines(f: RefreshFigures, bf: BackfillRefreshFigures): string[] {
  return [
    `refresh  p50 ${f.small_p50_ms} ms (1 MiB) vs ${f.large_p50_ms} ms (${(f.large_bytes / MiB).toFixed(0)} MiB) → ratio ${f.ratio} (runs: ${f.run_ratios?.join(', ') ?? ''}); p99 ${f.small_p99_ms} / ${f.large_p99_ms} ms; engine build p50 ${f.small_build_p50_ms} / ${f.large_build_p50_ms} ms`,
    `refresh  during a backfill: p50 ${bf.on.p50_ms} ms (p99 ${bf.on.p99_ms}, ${bf.on.appends} appends; runs: ${bf.run_on_p50s?.join(', ') ?? ''}) with ${bf.on.workers} worker; ${bf.off.p50_ms} ms (p99 ${bf.off.p99_ms}, ${bf.off.appends} appends; runs: ${bf.run_off_p50s?.join(', ') ?? ''}) with none`,
  ];
}

/** The hooks section of docs/PERFORMANCE.md (also spliced in alone by `-- --only hooks`). */
function hooksSection(h: HookFigures): string {
  return `## Hooks

What a harness waits for: \`node dist/cli.js hook <event>\` started as a new process with the harness's JSON
on stdin, timed from spawn to exit, ${h.runs} runs each, with the daemon running and a ${(h.transcript_bytes / MiB).toFixed(0)} MiB Claude Code
transcript. Before every \`session-start\` (source \`compact\`) one turn is appended, so each run makes the
daemon read new bytes before the digest is written. The host's load average was ${h.load_avg[0]} before the runs
and ${h.load_avg[1]} after (2 cores, shared): Node's start-up and module loading stretch with it, and they are
most of the slow tail (docs/HOOKS.md#the-time-budget).

| hook | p50 | p99 |
|---|---|---|
| \`session-start\` (compact: catch up, digest) | **${h.session_start_p50_ms} ms** | ${h.session_start_p99_ms} ms |
| \`statusline\`, as installed: \`sh hooks/handoff-statusline.sh\` (no Node) | **${h.statusline_shell_p50_ms} ms** | ${h.statusline_shell_p99_ms} ms |
| \`handoff hook statusline\` (the Node equivalent, for Windows) | ${h.statusline_p50_ms} ms | ${h.statusline_p99_ms} ms |
| \`node -e 0\` in the same loop (starting Node alone) | ${h.node_p50_ms} ms | |
| the same two hooks with a handoff.config.json (p50) | ${h.session_start_config_p50_ms} ms / ${h.statusline_config_p50_ms} ms | |

${h.session_start_answered} of ${h.runs} \`session-start\` runs answered with an up-to-date digest inside the 300 ms budget
(median ${h.digest_tokens_p50} tokens). Beyond starting Node, a hook costs ${round(h.session_start_p50_ms - h.node_p50_ms)} ms
(\`session-start\`) and ${round(h.statusline_p50_ms - h.node_p50_ms)} ms (\`statusline\`) at the median: loading its modules,
one round trip on the socket (a build of the new bytes for \`session-start\`), reading the payloads. A config
file is validated once and then remembered (docs/CONFIG.md): loading the validator and compiling the schema
would cost a hook about 200 ms here. Starting Node alone takes ${h.node_p50_ms} ms on this shared host: no Node
process here can answer the status line within 50 ms, so the figure that is the hook's own is its share above
Node's start-up. That is why the status line installed is a POSIX sh script: the daemon keeps each live
session's line in a file (\`.handoffd/status/<session id>\`) and the script prints it with shell builtins
(${h.statusline_shell_answered} of ${h.runs} runs printed the session's line).

`;
}

function markdown(r: Report): string {
  const m = r.machine;
  const c = r.cold;
  const f = r.refresh;
  const i = r.idle;
  const h = r.hooks;
  return `# Performance

Written by \`npm run bench\` on ${r.date.slice(0, 10)}. Every figure is a median of several runs; ratios are
measured within the same run, because the machines this runs on are shared and noisy. Reproduce with:

    npm ci && npm run bench            # about 8 minutes on 2 cores; --quick for a smaller pass
    npm run bench -- --json            # the same figures as one JSON object
    npm run bench -- --only cold       # the cold builds alone (or HANDOFF_BENCH_ONLY=cold), about 4 minutes

The cold build is measured beside ccusage when it can be run: \`CCUSAGE_BIN=<path to ccusage's
dist/index.js>\` (e.g. after \`npm i --prefix /tmp/peer ccusage@17.2.1\`), else an installed one found by
\`npx --no-install ccusage\`; without either the table says it was not run.

Machine: ${m.cpu}, ${m.cores} cores, ${m.ram_gb} GiB RAM, ${m.kernel}, Node ${m.node}.

${coldSection(r.real, c)}${refreshSection(f, r.refreshBackfill)}${idleSection(i)}## Daemon memory (hostile workspace)

The workspace of \`test/integration/hostile-workspace.test.ts\`: a watch root with symbolic-link loops,
5,000 small transcripts in 50 folders, a FIFO, an unreadable file and one 70 MB line; 1,000 idle
connections; the backfill to its end (\`flush\`), then \`verify --all\` through the daemon. Peak RSS is the
daemon's VmHWM (node's own 44 MB of mapped code included). Measured on 2026-12-01 on the 2-core host
above while other work kept its load average between 2.3 and 9 (no quiet window was to be had that day;
the code before these changes read 287 MB on a quiet box); * marks the test's own reading. Reproduce
with \`npm run build && npx tsc -p tsconfig.bench.json && node .bench/bench/daemon-memory.js --runs 3\`.

| | peak RSS, median | runs at a host load of 4 to 9 | runs at a load of 2.3 to 5 | daemon CPU |
|---|---|---|---|---|
| before (4f3d159) | **292 MB** | 304, 310, 313 | 272, 278*, 292, 292 | 66-73 s |
| after, V8's default heap growth | 213 MB | 196, 204, 207, 213, 229, 239, 243 | | 51-65 s |
| **after (as shipped)** | **178 MB** | 177*, 178, 178, 179, 180 | 168, 169*, 170, 179, 192 | 48-61 s |

Before, the peak fell during \`verify --all\`; after, at the end of the backfill.

Where the memory went, from \`--trace-gc\`, \`/proc/<pid>/status\` sampled every 50 ms and V8's sampling
heap profiler set to record what only a full collection freed (garbage that outlived two scavenges):

- **About 30 MB is live** at the end (5,000 index entries and file records, 1,000 connections, the
  engine's caches); the rest of the heap was garbage waiting for a full collection. V8 lets the old
  generation grow to up to four times what survived the last full collection on a machine with memory
  to spare, so every megabyte of garbage promoted per second became heap: 110-120 MB used and up to
  196 MB reserved.
- **\`verify --all\`: 160 MB of that garbage.** readline's async iterator sets up a queue of 2,048 slots
  for each file it reads; verify read every timeline that way. It now reads in 16 KiB chunks into one
  buffer and splits lines as readline does (\`src/store/verify.ts\`, test/unit/verify-lines.test.ts):
  31 MB of garbage for the whole verify, most of it the answer itself.
- **Atomic writes: 80 MB per backfill.** write-file-atomic registers a signal-exit handler for every
  file, which starts and stops a dozen signal watchers each time, to remove the temp file should a
  signal end the process half-way; in the synchronous form no signal handler can run during the write,
  so it never could. \`writeAtomic\` now does write-file-atomic's steps itself (temp file named the same
  way, fsync when asked, exact mode, rename; test/unit/store-write.test.ts); INDEX.json keeps the
  library's asynchronous form.
- **chokidar: about 45 MB for the 5,000 watched files** (an fs.watch handle, listeners and throttles
  per file, in the watch thread's heap and outside it). chokidar now watches folders only: a folder's
  watch already reports every change to a file in it, and the watch thread turns those raw events into
  the same add, change and unlink hints (a folder made after start is read twice for transcripts
  written before its watch began; one that goes takes its transcripts with it). The thread's heap holds
  4 MB after its first scan instead of 18 MB.
- **Links: a few MB per INDEX.json flush**: every entry's keywords were found again at each flush;
  they are now kept per entry (a WeakMap, so no more than the index holds).
- **The heap's growth: about 30 MB, and most of the spread.** With the causes above removed, the peak
  still varied from 196 to 243 MB with V8's own growth factor. \`handoff daemon\` sets
  \`--heap-growing-percent=50\` when it starts (\`src/daemon/heap.ts\`; V8 reads the flag at every full
  collection, so it applies however the daemon is started: \`npm start\`, \`handoff daemon\`, the service
  units; a value on node's command line wins). Measured side by side: peak 175-180 MB against
  196-243 MB; daemon CPU a median of 58 s either way (54-61 s against 51-65 s: the host's noise is
  larger than the cost). Traced in one run each: 19 full collections instead of 5, each pausing the
  event loop at most 34 ms (37 ms without the flag), 0.33 s of such pauses instead of 0.12 s, and
  2.3 s of collector pauses in all against 2.2 s. \`--optimize-for-size\` on node's command line read
  140 MB but cost 18 % more CPU, and much of what it changes (code, the young generation) is fixed when
  node starts, before the daemon could set it; \`--semi-space-growth-factor=1\` read worse (231 MB: more
  was promoted).
- **Not where it went**: the 1,000 idle connections cost about 5.5 KB of heap each (5.5 MB in all,
  measured alone: RSS 93.9 to 94.9 MB); the 70 MB line is read through one 4 MiB buffer and never held.
  What remains is the render of each build (HANDOFF.md, payloads) and the engine's state cache kept
  across the awaits of their writes (\`src/core/render/\`, \`src/engine/memory.ts\`): about 80 MB of
  garbage per 5,000 builds, now collected at 1.5 times the live heap.

The hostile-workspace test asserts a peak under 240 MB (the issue asked for 300): a quarter above the
highest reading since (192 MB), for a loaded host's slower collector; the daemon as it was before fails
it (272-313 MB).

${hooksSection(h)}## Crash soak

${r.soak ? `\`npm run soak -- --seconds ${r.soak.requested_seconds ?? Math.round(r.soak.seconds)}\` (${r.soak.date.slice(0, 10)}, ${r.soak.seconds} s with the final flush and check): ${r.soak.lines} lines appended in random pieces to ${r.soak.files} transcripts while the daemon was killed with SIGKILL ${r.soak.kills} times and stopped with SIGTERM ${r.soak.sigterms} times: **${r.soak.lost} turns lost, ${r.soak.dup} duplicated${r.soak.mismatched === undefined ? '' : `, ${r.soak.mismatched} changed`}${r.soak.handoffs_differ === undefined ? '' : `, and ${r.soak.handoffs_differ} sessions whose handoff differs from a one-shot build of the finished transcript`}**${r.soak.handoffs_differ === undefined ? '' : ' (a session whose carried state was caught up from the transcript after a kill must render what a one-shot build renders)'}. The soak's daemon has \`watch.live_window_s: 1\` and one build worker: every transcript quiet for a second, and every start-up scan, is built in the worker while the file being written is built on the main thread.` : 'Run `npm run soak -- --seconds 60` to add the crash soak here.'}

## Redactor

${redactionMarkdown(r.redaction)}

## Where a cold build's time goes

From \`node --cpu-prof\` of one \`handoff build\` of the corpus-distribution store above (315 files,
161 MiB, recorded folders in 40 git repositories; 2026-12-01; shares of the sampled time):

| cost | where | share |
|---|---|---|
| git probes: about 4.2 \`git\` processes per session, each spawn blocking the main thread | \`src/git/evidence.ts\` via \`captureGit\` and \`inferProject\` | 13.5 %, plus much of the 11.9 % idle |
| redaction of every string of every line, whole tool outputs included | \`src/core/ingest.ts:sanitize\` → \`src/core/redact.ts\`, \`redaction/literals.ts\` | 17.7 % |
| folding facts: shell commands tokenised several times, ledger updates | \`src/core/reduce.ts:applyFact\`, \`src/core/shell.ts\`, \`src/core/ledger.ts\` | 12.5 % |
| the timeline line of each turn: canonical JSON, a new sha256 Hash, a Buffer | \`src/core/timeline.ts:chainLine\` | 5.7 % |
| writes of each commit (7 files created, 5 renames, the manifest fsynced) | \`src/store/files.ts:writeAtomic\` | 7.0 % (fsync 3.5 %) |
| \`JSON.parse\` of each line (the floor) and the harness readers | \`src/core/ingest.ts:ingestLine\`, \`observe\` | 5.7 % + 5.2 % |
| garbage collection | | 4.9 % |
| renders (once per session) and sealing | \`src/core/render/index.ts:renderAll\`, \`digestOf\` | 3.1 % |

With git evidence turned off the same build took 23 % less wall time and 14 % less CPU. INDEX.json is
written once per one-shot build and at most once per interval by the daemon: it costs nothing per
session. Reproduce with \`node .bench/bench/cold-profile.js\` (after \`npx tsc -p tsconfig.bench.json\`),
which also counts the syscalls per session with strace, and read a profile with
\`node .bench/bench/cpuprofile-summary.js <file.cpuprofile>\`. An earlier profile of large files only
(2026-11-30) led to three fixes: redaction checks literal triggers before any pattern, each timeline
line is laid out and encoded once, commits write synchronously.

What was done about it since (2026-12-01, store format 3): a repository's git evidence is shared by
the sessions in it, its branch and HEAD are read from the ref files and its work tree found from its
\`.git\` without a process, and a backfill build reuses a capture for up to 5 minutes while HEAD and the
index are unchanged (git processes per session on an 86-file profile: 2.6 before, 1.5 after, before the
backfill reuse); a command's programs are read once per command; the redactor remembers its results for
short texts (a line's kind, tool name and call id); the state is compressed on the thread pool while
the renders are hashed; and the backfill uses a build worker on the second core.

Then (store format 4, same day): shell commands are split by character code (segments 186 → 25-74 ms
over the store's 2,226 commands ×5), the bounded records of tool calls keep their keys' order beside
them, each turn's chain hash is one \`crypto.hash\` call, the redactor remembers the last long text (a
tool's output is redacted as its turn and again as its fact), and \`sanitize\` lists a fact's keys:
the pure core's per-line CPU (ingest and chain) fell about a fifth, 9.9× to 8.0× the \`JSON.parse\` of
the same lines (60 MiB, median of 15, both versions alternating in one process). The store keeps less
of tool output than of the user's and agent's words (docs/FORMAT.md, store format 4). Still per line
and not yet cut: redaction (about a fifth of the pure core: the literal scanner's loop and its trigger
hits), \`JSON.parse\` itself (a seventh), the harness readers (an eighth).

Then (later the same day): the redactor's memory of short texts keeps two generations instead of
dropping its oldest key on every miss (a backfill asks about every line's time and call id once, and
most of those asks missed, each paying an iterator and a delete), a line's time in ISO 8601 form is
not redacted (it holds digits and separators only), and TOOLS.md's excerpt no longer hashes the whole
text it cuts. The pure core's per-line throughput on the 60 MiB profile store rose 17 % (13.25 →
15.45 MB/s of CPU time, medians of 6 rounds, the session's first and last versions alternating);
whole single-thread builds of the same store, 8 alternating pairs, differ by about 5 % of CPU, within
this host's noise. Measured and not taken: redacting only the parts of a long tool output the store
keeps would save at most a tenth of the pure core (texts over 600 characters take 10 % of it, over
4,000 characters 6 %), at the price of what \`text_sha256\` proves and of a cut that may split a
credential; the state compressed with brotli quality 1 instead of 5 would save 3 % of a cold build's
CPU for states 23 % larger.

Then (the next day): the first lines of a transcript that say who it belongs to were read by
decoding and splitting its whole 256 KiB window, though most transcripts tell all in a line or two.
They are now decoded one line at a time, from a first read of 32 KiB (the rest of the window only
for a longer first line, as a Codex session's instructions can be): \`peek\` of the 317 files of the
benchmark's store took 373 ms, now 79 to 89 ms (median of 7 passes, three alternating pairs against
one whole-window read at 92 to 103 ms), about 1 % of a cold build's CPU.

## Notes

- Creating and renaming files on this machine's ext4 (mounted with \`discard\`) costs between 0.2 and
  2.3 ms a file, depending on the load of the shared host; a build creates seven files, so per-build fixed
  costs, and the backfill rate, are better on a laptop's file system. The ratios do not depend on it.
  The file system is mounted without a journal (the kernel's log says so), and there ext4 checks each
  free inode it might hand out for a recent deletion: \`perf record\` of a one-thread cold build put
  8 % of its samples in \`openat\` and 1.8 % in \`mkdir\`, nearly all of it in \`find_inode_bit\` and
  \`recently_deleted\`. A journaled file system (a laptop's) does not pay that.
- The event-loop delay that \`status\` reports is sampled every 20 ms: at 5 ms its wake-ups alone cost 2 %
  of a core at rest (counted per thread from /proc over 40 s, 2,000 transcripts: 82 ticks, then 28).
- The first idle window opens 5 s after the backfill's queue empties, so it may include a one-off: V8 hands
  back the heap that the burst of 5,000 builds grew (RSS about 195 MB falling to 112 MB) in one
  collection 30 to 70 s after the work stops (its memory reducer, about 0.45 s of CPU here). At rest the
  daemon wakes only for the periodic rescan, which stats every transcript once a minute (0.10 to 0.13 s
  for 5,000 here, about 0.2 %). This was traced second by second on 2026-11-30: a 60 s window that
  holds the collection reads 1.0 to 1.3 %, one after it 0.18 %. Both windows are measured and shown.
- Only the manifest (the commit point) is fsynced. See docs/FORMAT.md for what a power failure can and
  cannot do to a store.
`;
}

function idleSection(i: IdleFigures): string {
  return `## Idle daemon

| figure | value |
|---|---|
| transcripts watched | ${i.files} (backfilled in ${i.backfill_s} s, ${i.backfill_files_per_s} files/s) |
| CPU at rest (the second window after the backfill) | ${i.cpu_s} s over ${i.seconds} s = **${i.cpu_pct} %** (target ≤ 1 %) |
| CPU in the first window after the backfill (may hold V8's one-off heap return, see Notes) | ${i.first_cpu_pct} % |
| resident memory, at the end | **${i.rss_mb} MB** (target ≤ 150 MB) |
| open file descriptors | **${i.fds}** with ${i.files} transcripts, ${i.fds_small} with ${i.small_files} |

`;
}

/** Replaces one `## ` section of a Markdown file (or adds it before the crash soak section). */
function spliceSection(path: string, heading: string, body: string): void {
  const doc = readFileSync(path, 'utf8');
  const at = doc.indexOf(heading);
  if (at !== -1) {
    const next = doc.indexOf('\n## ', at + heading.length);
    writeFileSync(path, doc.slice(0, at) + body + (next === -1 ? '' : doc.slice(next + 1)));
    return;
  }
  const soak = doc.indexOf('## Crash soak\n');
  writeFileSync(path, soak === -1 ? `${doc}\n${body}` : doc.slice(0, soak) + body + doc.slice(soak));
}

/** What `npm run soak` keeps of its last run in .bench/soak-last.json. */
type SoakFigures = Pick<SoakResult, 'lines' | 'files' | 'kills' | 'sigterms' | 'lost' | 'dup' | 'seconds'> & { mismatched?: number; handoffs_differ?: number; requested_seconds?: number; date: string };

function lastSoak(): SoakFigures | null {
  try {
    return JSON.parse(readFileSync(join(PROJECT, '.bench', 'soak-last.json'), 'utf8')) as SoakFigures;
  } catch {
    return null;
  }
}

interface Report {
  date: string;
  soak: SoakFigures | null;
  machine: ReturnType<typeof machine>;
  quick: boolean;
  real: RealColdFigures;
  cold: ColdFigures;
  refresh: RefreshFigures;
  refreshBackfill: BackfillRefreshFigures;
  idle: IdleFigures;
  hooks: HookFigures;
  redaction: RedactionFigures;
  seconds: number;
}

function redactionLines(f: RedactionFigures): string[] {
  const fp = f.fp;
  return [
    `redact   ${f.mb_s} MB/s on the corpus text; slowest adversarial input ${f.worst_mb_s} MB/s (${f.worst_case})`,
    `redact   false positives on the corpus: ${fp.code} of ${fp.removed} removals hit code, ${fp.notCredential} hit no credential, ${fp.unclassified} unclassified; ${fp.kept} labelled values kept; sample of ${fp.sample}, ${fp.missed} credentials kept`,
  ];
}

if (REDACTION_ONLY) {
  const f = redactionFigures(QUICK);
  process.stdout.write(JSON_OUT ? `${JSON.stringify(f)}\n` : `${redactionLines(f).join('\n')}\n`);
  process.exit(0);
}

const started = performance.now();
if (ONLY === 'hooks') {
  log(`hooks only: ${SIZES.hookRuns} runs on a ${Math.round(SIZES.hookBytes / MiB)} MiB transcript`);
  const h = await hooksBench(CLI, { transcriptBytes: SIZES.hookBytes, runs: SIZES.hookRuns, seed: 13 });
  process.stdout.write(JSON_OUT ? `${JSON.stringify(h)}\n` : `hooks    session-start p50 ${h.session_start_p50_ms} ms p99 ${h.session_start_p99_ms} ms; statusline (sh) p50 ${h.statusline_shell_p50_ms} ms p99 ${h.statusline_shell_p99_ms} ms; statusline (node) p50 ${h.statusline_p50_ms} ms p99 ${h.statusline_p99_ms} ms; node -e 0 p50 ${h.node_p50_ms} ms; ${h.session_start_answered}/${h.runs} answered\n`);
  if (!QUICK) spliceSection(join(PROJECT, 'docs', 'PERFORMANCE.md'), '## Hooks\n', hooksSection(h));
  process.exit(0);
}
/** The run whose figure is the median of the runs' (the runs' own figures kept beside it). */
function medianRun<T>(runs: readonly T[], figure: (r: T) => number): T {
  return [...runs].sort((a, b) => figure(a) - figure(b))[Math.floor(runs.length / 2)] as T;
}

/**
 * Daemons one after the other (three, two with --quick), each timed over its own appends: one run's figures move with
 * the host (a shared VM), so the run with the median ratio is the one reported, the others beside it.
 */
async function refreshFigures(): Promise<[RefreshFigures, BackfillRefreshFigures]> {
  const runs: RefreshFigures[] = [];
  for (let i = 1; i <= SIZES.runs; i += 1) {
    log(`refresh run ${i}/${SIZES.runs}: small 1 MiB and large ${Math.round(SIZES.largeBytes / MiB)} MiB, ${SIZES.appends} appends each`);
    runs.push(await refreshBench(CLI, { smallBytes: 1 * MiB, largeBytes: SIZES.largeBytes, appends: SIZES.appends, seed: 7 }));
  }
  const bfRuns: BackfillRefreshFigures[] = [];
  for (let i = 1; i <= SIZES.runs; i += 1) {
    log(`refresh during a backfill of ${Math.round(SIZES.backfillBytes / MiB)} MiB, workers on and off, run ${i}/${SIZES.runs}`);
    bfRuns.push(await backfillRefreshBench(CLI, { files: SIZES.backfillFiles, bytes: SIZES.backfillBytes, maxAppends: SIZES.appends, seed: 9 }));
  }
  const r = { ...medianRun(runs, (x) => x.ratio), run_ratios: runs.map((x) => x.ratio), run_p50s: runs.map((x): [number, number] => [x.small_p50_ms, x.large_p50_ms]) };
  const bf = { ...medianRun(bfRuns, (x) => x.on.p50_ms), run_on_p50s: bfRuns.map((x) => x.on.p50_ms), run_off_p50s: bfRuns.map((x) => x.off.p50_ms) };
  return [r, bf];
}

if (ONLY === 'idle') {
  log(`idle only: ${SIZES.idleFiles} transcripts, ${SIZES.idleSeconds} s`);
  const i = await idleBench(CLI, { files: SIZES.idleFiles, smallFiles: 50, seconds: SIZES.idleSeconds, seed: 11 });
  process.stdout.write(idleSection(i));
  if (!QUICK) spliceSection(join(PROJECT, 'docs', 'PERFORMANCE.md'), '## Idle daemon\n', idleSection(i));
  process.exit(0);
}

if (ONLY === 'refresh') {
  const [r, bf] = await refreshFigures();
  process.stdout.write(JSON_OUT ? `${JSON.stringify({ refresh: r, refreshBackfill: bf })}\n` : `${refreshLines(r, bf).join('\n')}\n`);
  if (!QUICK) spliceSection(join(PROJECT, 'docs', 'PERFORMANCE.md'), '## Refresh latency', refreshSection(r, bf));
  process.exit(0);
}
log(`machine: ${machine().cpu}, ${machine().cores} cores; ${QUICK ? 'quick pass' : 'full pass'}`);
const realFig = await realColdBench(CLI, { bytes: SIZES.realBytes, runs: SIZES.runs, seed: 42 }, log);
const coldFig = await cold();
if (ONLY === 'cold') {
  if (JSON_OUT) process.stdout.write(`${JSON.stringify({ real: realFig, cold: coldFig })}\n`);
  else process.stdout.write(`${coldLines(realFig, coldFig).join('\n')}\n`);
  if (!QUICK) spliceSection(join(PROJECT, 'docs', 'PERFORMANCE.md'), '## Cold build', coldSection(realFig, coldFig));
  process.exit(0);
}
const [refreshFig, refreshBackfillFig] = await refreshFigures();
log(`idle: ${SIZES.idleFiles} transcripts, ${SIZES.idleSeconds} s`);
const idleFig = await idleBench(CLI, { files: SIZES.idleFiles, smallFiles: 50, seconds: SIZES.idleSeconds, seed: 11 });
log(`hooks: ${SIZES.hookRuns} runs of session-start and statusline`);
const hooksFig = await hooksBench(CLI, { transcriptBytes: SIZES.hookBytes, runs: SIZES.hookRuns, seed: 13 });
const report: Report = {
  date: new Date().toISOString(),
  soak: lastSoak(),
  machine: machine(),
  quick: QUICK,
  real: realFig,
  cold: coldFig,
  refresh: refreshFig,
  refreshBackfill: refreshBackfillFig,
  idle: idleFig,
  hooks: hooksFig,
  redaction: redactionFigures(QUICK),
  seconds: round((performance.now() - started) / 1000, 1),
};
if (!QUICK) writeFileSync(join(PROJECT, 'docs', 'PERFORMANCE.md'), markdown(report));
if (JSON_OUT) process.stdout.write(`${JSON.stringify(report)}\n`);
else {
  const c = report.cold;
  const f = report.refresh;
  const i = report.idle;
  process.stdout.write(
    [
      ...coldLines(report.real, c),
      ...refreshLines(f, report.refreshBackfill),
      `idle     ${i.cpu_pct} % CPU at rest (${i.first_cpu_pct} % in the first window), ${i.rss_mb} MB RSS, ${i.fds} fds for ${i.files} files (${i.fds_small} for ${i.small_files})`,
      `hooks    session-start p50 ${report.hooks.session_start_p50_ms} ms p99 ${report.hooks.session_start_p99_ms} ms; statusline (sh) p50 ${report.hooks.statusline_shell_p50_ms} ms p99 ${report.hooks.statusline_shell_p99_ms} ms, (node) p50 ${report.hooks.statusline_p50_ms} ms (node -e 0: ${report.hooks.node_p50_ms} ms)`,
      ...redactionLines(report.redaction),
      `(${report.seconds} s${QUICK ? '; quick pass: docs/PERFORMANCE.md not rewritten' : '; written to docs/PERFORMANCE.md'})`,
    ].join('\n') + '\n',
  );
}
