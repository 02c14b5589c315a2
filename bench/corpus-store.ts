import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Generated, Source } from './generate.js';
import { CORPUS, loadSources, PROJECT, transcriptPath, transcriptText } from './generate.js';
import { rng } from './soak-core.js';

/**
 * A cold store shaped like a real `~/.claude/projects` (plus Codex's sessions): many small
 * transcripts, some large, Claude and Codex, their sizes and line mix drawn from the shared corpus
 * measured at bench time. Each file replays one corpus transcript (fresh ids) to about that
 * transcript's own size, so a size drawn from the corpus comes with that transcript's line mix.
 * Without the corpus, the sizes below (PROVENANCE.tsv of ../shared/corpus, 2026-11-30, the
 * files the benchmark can read) are drawn instead and the project's own fixtures replayed.
 */

/** bytes and harness of the corpus's readable transcripts, as measured on 2026-11-30. */
export const DOCUMENTED_SIZES: ReadonlyArray<readonly [Source['harness'], number]> = [
  ['claude', 950], ['claude', 1945], ['claude', 3263], ['claude', 12690], ['claude', 33439], ['claude', 38837],
  ['claude', 48958], ['claude', 50956], ['claude', 113722], ['claude', 130462], ['claude', 165146], ['claude', 190547],
  ['claude', 198861], ['claude', 285514], ['claude', 460585], ['claude', 767942], ['claude', 1017888], ['claude', 1046885],
  ['claude', 1156543], ['claude', 1196306], ['claude', 1505258],
  ['codex', 685], ['codex', 1544], ['codex', 5369], ['codex', 22660], ['codex', 145596], ['codex', 308959],
  ['codex', 561309], ['codex', 1041630], ['codex', 1120773], ['codex', 1382739], ['codex', 1893930],
];

/** What kind of line a transcript line is, in the words of its harness. */
export function lineKind(line: string, harness: Source['harness']): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return 'unparsed';
  }
  if (harness === 'codex') {
    const p = o.payload as { type?: unknown } | undefined;
    if (o.type === 'response_item' || o.type === 'event_msg') return `${o.type}:${typeof p?.type === 'string' ? p.type : '?'}`;
    return String(o.type ?? '?');
  }
  const content = (o.message as { content?: unknown } | undefined)?.content;
  if (o.type === 'user' && Array.isArray(content) && content.some((c) => (c as { type?: unknown }).type === 'tool_result')) return 'user:tool_result';
  if (o.type === 'assistant' && Array.isArray(content) && content.some((c) => (c as { type?: unknown }).type === 'tool_use')) return 'assistant:tool_use';
  return String(o.type ?? '?');
}

export type LineMix = Record<string, number>;

/** Share of bytes per harness:kind, in percent, largest first. */
export function mixShares(bytes: LineMix): Array<[string, number]> {
  const total = Object.values(bytes).reduce((a, b) => a + b, 0) || 1;
  return Object.entries(bytes)
    .map(([k, v]): [string, number] => [k, Math.round((1000 * v) / total) / 10])
    .sort((a, b) => b[1] - a[1]);
}

export interface CorpusStore extends Generated {
  /** 'corpus' when ../shared/corpus was read, else 'documented sizes + fixtures'. */
  from: string;
  claudeFiles: string[];
  claudeBytes: number;
  sizes: { min: number; p50: number; p90: number; max: number };
  /** Bytes per line kind: in the corpus sources drawn from, and in the generated store. */
  sourceMix: LineMix;
  storeMix: LineMix;
}

/** A normal draw (Box–Muller) for the size jitter. */
function gauss(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

interface Draw {
  src: Source;
  bytes: number;
  kinds: string[];
  /** The working folders the source records (`cwd` of Claude lines, of Codex payloads). */
  cwds: string[];
}

function cwdsOf(s: Source): string[] {
  const out = new Set<string>();
  for (const l of s.lines) {
    try {
      const o = JSON.parse(l) as { cwd?: unknown; payload?: { cwd?: unknown } };
      if (typeof o.cwd === 'string') out.add(o.cwd);
      if (typeof o.payload?.cwd === 'string') out.add(o.payload.cwd);
    } catch {
      /* a line that is not JSON records no folder */
    }
  }
  return [...out];
}

function draws(corpus: string): { list: Draw[]; from: string } {
  const { sources, from } = loadSources(corpus);
  const kinds = (s: Source): string[] => s.lines.map((l) => `${s.harness}:${lineKind(l, s.harness)}`);
  if (from === corpus) return { list: sources.map((s) => ({ src: s, bytes: s.bytes, kinds: kinds(s), cwds: cwdsOf(s) })), from: `the corpus (${relative(PROJECT, corpus)}, ${sources.length} readable transcripts)` };
  const byHarness = new Map(sources.map((s) => [s.harness, s]));
  const list = DOCUMENTED_SIZES.flatMap(([h, bytes]) => {
    const s = byHarness.get(h);
    return s ? [{ src: s, bytes, kinds: kinds(s), cwds: cwdsOf(s) }] : [];
  });
  return { list, from: 'documented sizes (corpus absent), fixtures replayed' };
}

/**
 * Writes transcripts until `totalBytes`: each draws a corpus transcript at random, takes its size
 * times a log-normal jitter (σ 0.35, so sizes between the corpus's own are covered too) and
 * replays its lines to that size. With `repos`, the folders the transcripts record are replaced by
 * those (so a build finds real repositories there, as it would on a user's machine).
 */

/** `k` small git repositories under `dir` (one commit, one uncommitted change), or [] without git. */
export function makeRepos(dir: string, k: number): string[] {
  const out: string[] = [];
  try {
    for (let i = 0; i < k; i += 1) {
      const repo = join(dir, `bench-project-${i}`);
      mkdirSync(join(repo, 'src'), { recursive: true });
      writeFileSync(join(repo, 'src', 'main.ts'), `export const n = ${i};\n`);
      const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };
      execFileSync('git', ['init', '-q', repo], { env, stdio: 'ignore' });
      execFileSync('git', ['-C', repo, 'add', '.'], { env, stdio: 'ignore' });
      execFileSync('git', ['-C', repo, 'commit', '-qm', 'start'], { env, stdio: 'ignore' });
      writeFileSync(join(repo, 'src', 'main.ts'), `export const n = ${i + 1};\n`);
      out.push(repo);
    }
  } catch {
    return [];
  }
  return out;
}
export async function generateCorpusStore(root: string, opts: { totalBytes: number; seed: number; repos?: readonly string[]; corpus?: string }): Promise<CorpusStore> {
  const { list, from } = draws(opts.corpus ?? CORPUS);
  if (list.length === 0) throw new Error('no source transcripts found for the benchmark');
  const rand = rng(opts.seed);
  const sourceMix: LineMix = {};
  for (const d of list) d.src.lines.forEach((l, i) => (sourceMix[d.kinds[i] as string] = (sourceMix[d.kinds[i] as string] ?? 0) + Buffer.byteLength(l) + 1));
  const storeMix: LineMix = {};
  const files: string[] = [];
  const claudeFiles: string[] = [];
  const sizes: number[] = [];
  let bytes = 0;
  let claudeBytes = 0;
  for (let n = 0; bytes < opts.totalBytes; n += 1) {
    const d = list[Math.floor(rand() * list.length)] as Draw;
    const target = Math.max(500, Math.round(d.bytes * Math.exp(0.35 * gauss(rand))));
    const id = [8, 4, 4, 4, 12].map((k) => Array.from({ length: k }, () => Math.floor(rand() * 16).toString(16)).join('')).join('-');
    let text = transcriptText(d.src, target, rand, id);
    // On a real machine the recorded folders exist (and are repositories): file n works in
    // repos[n mod k], the same k as the project folders of transcriptPath.
    const repo = opts.repos?.[n % opts.repos.length];
    if (repo !== undefined) for (const c of d.cwds) text = text.split(JSON.stringify(c)).join(JSON.stringify(repo));
    // Line i of a replay is line i (mod its length) of the source, with fresh ids.
    text.split('\n').forEach((l, i) => {
      if (l.length === 0) return;
      const k = d.kinds[i % d.kinds.length] as string;
      storeMix[k] = (storeMix[k] ?? 0) + Buffer.byteLength(l) + 1;
    });
    const path = transcriptPath(root, d.src.harness, id, n);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, text);
    const size = Buffer.byteLength(text);
    files.push(path);
    sizes.push(size);
    bytes += size;
    if (d.src.harness === 'claude') {
      claudeFiles.push(path);
      claudeBytes += size;
    }
  }
  sizes.sort((a, b) => a - b);
  return {
    files,
    bytes,
    claudeRoot: join(root, 'claude', 'projects'),
    codexRoot: join(root, 'codex', 'sessions'),
    from,
    claudeFiles,
    claudeBytes,
    sizes: { min: sizes[0] as number, p50: quantile(sizes, 0.5), p90: quantile(sizes, 0.9), max: sizes.at(-1) as number },
    sourceMix,
    storeMix,
  };
}
