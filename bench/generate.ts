import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { rng } from './soak-core.js';

/**
 * Realistic transcripts for benchmarks, made at run time and never committed: the turns of the
 * real Claude Code and Codex transcripts in ../shared/corpus replayed with fresh session ids
 * (or, where that folder is absent, the project's own fixtures).
 */

/** The project folder: the nearest folder above this module holding package.json. */
function projectRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export const PROJECT = projectRoot();
export const CORPUS = resolve(PROJECT, '..', 'shared', 'corpus');
const FIXTURES = join(PROJECT, 'test', 'fixtures');

export interface Source {
  harness: 'claude' | 'codex';
  lines: string[];
  bytes: number;
}

/** Skips the malformed and empty files: benchmarks measure reading, not error paths. */
export function loadSources(root = CORPUS): { sources: Source[]; from: string } {
  const out: Source[] = [];
  const take = (dir: string, harness: Source['harness'], names: string[]): void => {
    for (const n of names) {
      if (!n.endsWith('.jsonl') || /malformed|2c5941bd/.test(n)) continue;
      const text = readFileSync(join(dir, n), 'utf8');
      const lines = text.split('\n').filter((l) => l.length > 0);
      if (lines.length < 3) continue;
      out.push({ harness, lines, bytes: Buffer.byteLength(text) });
    }
  };
  const corpus = existsSync(join(root, 'claude-code')) ? root : null;
  if (corpus) {
    take(join(corpus, 'claude-code'), 'claude', readdirSync(join(corpus, 'claude-code')).sort());
    take(join(corpus, 'codex'), 'codex', readdirSync(join(corpus, 'codex')).sort());
    return { sources: out, from: corpus };
  }
  take(FIXTURES, 'claude', ['claude-session.jsonl']);
  take(FIXTURES, 'codex', ['codex-rollout.jsonl', 'codex-mirror-first.jsonl']);
  return { sources: out, from: FIXTURES };
}

function uuid(rand: () => number): string {
  const h = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** One source line with this file's ids in place of the original ones. */
export function rewrite(line: string, harness: Source['harness'], sessionId: string, rand: () => number, marker?: string): string {
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (harness === 'claude') {
    if ('sessionId' in obj) obj.sessionId = sessionId;
    if ('uuid' in obj) obj.uuid = uuid(rand);
    const msg = obj.message as { content?: unknown } | undefined;
    if (marker && msg && typeof msg.content === 'string') msg.content = `${marker} ${msg.content}`;
  } else {
    const p = obj.payload as Record<string, unknown> | undefined;
    if (obj.type === 'session_meta' && p) p.id = sessionId;
    if (marker && p && obj.type === 'response_item' && p.type === 'message' && Array.isArray(p.content)) {
      const first = p.content[0] as { text?: unknown } | undefined;
      if (first && typeof first.text === 'string') first.text = `${marker} ${first.text}`;
    }
  }
  return JSON.stringify(obj);
}

export interface Generated {
  files: string[];
  bytes: number;
  claudeRoot: string;
  codexRoot: string;
}

/** The path a transcript of `harness` gets, laid out as the agent lays out its own. */
export function transcriptPath(root: string, harness: Source['harness'], id: string, n: number): string {
  if (harness === 'claude') return join(root, 'claude', 'projects', `-home-dev-bench-project-${n % 40}`, `${id}.jsonl`);
  const day = String(1 + (n % 28)).padStart(2, '0');
  return join(root, 'codex', 'sessions', '2026', '11', day, `rollout-2026-11-${day}T10-00-00-${id}.jsonl`);
}

/** Builds the text of one transcript of about `target` bytes by replaying a source's lines. */
export function transcriptText(src: Source, target: number, rand: () => number, id: string): string {
  const parts: string[] = [];
  let size = 0;
  while (size < target) {
    for (const l of src.lines) {
      const line = `${rewrite(l, src.harness, id, rand)}\n`;
      parts.push(line);
      size += Buffer.byteLength(line);
      if (size >= target) break;
    }
  }
  return parts.join('');
}

/**
 * Writes transcripts totalling at least `totalBytes`, sizes drawn between `minBytes` and
 * `maxBytes`, Claude and Codex in the corpus's own proportion.
 */
export async function generateStore(root: string, opts: { totalBytes: number; minBytes: number; maxBytes: number; seed: number }): Promise<Generated> {
  const { sources } = loadSources();
  if (sources.length === 0) throw new Error('no source transcripts found for the benchmark');
  const rand = rng(opts.seed);
  const files: string[] = [];
  let bytes = 0;
  for (let n = 0; bytes < opts.totalBytes; n += 1) {
    const src = sources[n % sources.length] as Source;
    const id = uuid(rand);
    const target = opts.minBytes + Math.floor(rand() * (opts.maxBytes - opts.minBytes));
    const text = transcriptText(src, target, rand, id);
    const path = transcriptPath(root, src.harness, id, n);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, text);
    files.push(path);
    bytes += Buffer.byteLength(text);
  }
  return { files, bytes, claudeRoot: join(root, 'claude', 'projects'), codexRoot: join(root, 'codex', 'sessions') };
}
