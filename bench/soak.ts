import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../src/engine/index.js';
import { resolveConfig } from '../src/config.js';
import type { Source } from './generate.js';
import { loadSources, PROJECT, rewrite } from './generate.js';
import type { SoakFile } from './soak-core.js';
import { handoffFacts, rng, runSoak } from './soak-core.js';

/**
 * `npm run soak -- [--seconds N] [--json]`: writers append realistic turns, each carrying a unique
 * marker, to 50 transcripts while the daemon is killed with SIGKILL at random moments (and now and
 * then stopped with SIGTERM) and restarted. With a one-second live window, most builds are
 * backfill and run in the build workers. Exits non-zero unless no turn was lost or duplicated, and
 * every session's handoff says what a one-shot build of its finished transcript says.
 */

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const at = argv.indexOf('--seconds');
const seconds = at === -1 ? 60 : Number(argv[at + 1]);
if (!Number.isFinite(seconds) || seconds < 5) {
  process.stderr.write('soak: --seconds must be a number of seconds, at least 5\n');
  process.exit(2);
}
const FILES = 50;
const LINES_PER_FILE = Math.max(40, Math.ceil((seconds * 10_000) / 60 / FILES) + 10);

function files(seed: number): SoakFile[] {
  const { sources } = loadSources();
  const rand = rng(seed);
  const usable = sources.map((s) => ({ ...s, lines: s.lines.filter((l) => l.length < 16_000) })).filter((s) => s.lines.length > 5);
  return Array.from({ length: FILES }, (_, f) => {
    const src = usable[f % usable.length] as Source;
    const id = `${String(f).padStart(8, '0')}-5eed-4000-8000-${String(seed).padStart(12, '0')}`;
    const lines: string[] = [];
    for (let i = 0; i < LINES_PER_FILE; i += 1) lines.push(rewrite(src.lines[i % src.lines.length] as string, src.harness, id, rand, `[soak f${f} l${i}]`));
    const name = src.harness === 'claude' ? join('claude', `-soak-${f % 5}`, `${id}.jsonl`) : join('codex', `rollout-2026-11-29T00-00-00-${id}.jsonl`);
    return { name, bytes: Buffer.from(`${lines.join('\n')}\n`) };
  });
}

async function expected(path: string): Promise<{ turns: [number, string, string][]; handoff: unknown }> {
  const root = await mkdtemp(join(tmpdir(), 'handoff-soak-ref-'));
  try {
    const engine = await openEngine(resolveConfig({ cwd: root, env: { HOME: root, HANDOFFS_ROOT: root } }));
    const r = await engine.build({ source: path });
    const { readFile } = await import('node:fs/promises');
    const turns = (await readFile(join(r.dir, 'timeline.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l): [number, string, string] => {
        const t = JSON.parse(l) as { seq: number; class: string; text: string };
        return [t.seq, t.class, t.text];
      });
    return { turns, handoff: await handoffFacts(r.dir) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const base = await mkdtemp(join(tmpdir(), 'handoff-soak-'));
try {
  const home = join(base, 'home');
  const root = join(base, 'store');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(home, { recursive: true });
  // Transcripts quiet for a second are backfill, not live: each restart's start-up scan, and
  // every file between two bursts, is built in the build workers (daemon.backfill_workers),
  // while the file being written is built on the main thread — both lanes, killed at random.
  await mkdir(join(home, '.config', 'handoff'), { recursive: true });
  writeFileSync(join(home, '.config', 'handoff', 'handoff.config.json'), JSON.stringify({ watch: { live_window_s: 1 }, daemon: { backfill_workers: 1 } }));
  const seed = Number(process.env.HANDOFF_SOAK_SEED ?? Date.now() % 100_000);
  const r = await runSoak({
    cli: join(PROJECT, 'dist', 'cli.js'),
    env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), HANDOFFS_ROOT: root },
    root,
    watch: join(base, 'watch'),
    files: files(seed),
    minKills: Math.max(5, Math.ceil(seconds / 6)),
    seconds,
    sigtermEvery: 5,
    seed,
    expected,
    log: json ? undefined : (m) => process.stderr.write(`[soak] ${m}\n`),
  });
  const out = { lines: r.lines, files: r.files, kills: r.kills, sigterms: r.sigterms, lost: r.lost, dup: r.dup, mismatched: r.mismatched, handoffs_differ: r.handoffs_differ, seconds: r.seconds, seed };
  // The last result is kept for docs/PERFORMANCE.md (written by `npm run bench`).
  writeFileSync(join(PROJECT, '.bench', 'soak-last.json'), `${JSON.stringify({ ...out, requested_seconds: seconds, date: new Date().toISOString() })}\n`);
  if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
  else process.stdout.write(`soak: ${out.lines} lines into ${out.files} transcripts, ${out.kills} SIGKILLs and ${out.sigterms} SIGTERMs in ${out.seconds} s → lost ${out.lost}, duplicated ${out.dup}, changed ${out.mismatched}; handoffs unlike a one-shot build: ${out.handoffs_differ} (seed ${seed})\n`);
  if (r.handoffs_differ > 0 && !json) for (const d of r.details) if (!d.handoff_same) process.stderr.write(`[soak] ${d.file}: the handoff differs in ${d.handoff_diff?.join(', ')}\n`);
  process.exitCode = r.lost === 0 && r.dup === 0 && r.mismatched === 0 && r.handoffs_differ === 0 ? 0 : 1;
} finally {
  await rm(base, { recursive: true, force: true });
}
