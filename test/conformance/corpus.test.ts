import { statSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rng } from '../../bench/soak-core.js';
import { CORPUS, corpusFiles, corpusPresent, everyFile, readLines, runCli, tempDir, testEnv } from '../helpers.js';
import { secretlintFindings } from '../secretlint.js';

/**
 * Conformance over the real transcripts in ../shared/corpus, read in place. When that folder is
 * absent the suite says so and skips; it is present for every developer and in CI.
 */

if (!corpusPresent) {
  console.warn(`[conformance] SKIPPED: the shared corpus is not at ${CORPUS}; the real-transcript suite did not run`);
}

const EMPTY = /2c5941bd-b9de-41d6-9414-221d175776f7/; // a 0-byte session file
const MALFORMED = /__malformed__/; // synthetic fixtures with lines that are not JSON

function expectedExit(file: string): number {
  if (EMPTY.test(file)) return 4;
  if (MALFORMED.test(file)) return 5;
  return 0;
}

interface Built {
  dir: string;
  timeline: { seq: number; class: string; text: string; tool?: unknown }[];
  renders: Record<string, string>;
}

const VOLATILE: [RegExp, string][] = [
  // HANDOFF.llm.json is compact JSON, the summary indented: either spacing.
  [/"generated_at": ?"[^"]+"/g, '"generated_at": "T"'],
  [/"captured_at": ?"[^"]+"/g, '"captured_at": "T"'],
  [/"revision": ?\d+/g, '"revision": N'],
  [/"chain_id": ?"[0-9a-f]+"/g, '"chain_id": "C"'],
  [/\b[0-9a-f]{64}\b/g, 'SHA'],
  [/^revision: \d+$/m, 'revision: N'],
  [/^chain_id: [0-9a-f]+$/m, 'chain_id: C'],
  [/^created_at: .+$/m, 'created_at: T'],
  [/revision: \d+ · /g, 'revision: N · '],
  [/at build time \([^)]*\)/g, 'at build time (T)'],
];

function normalize(text: string, root: string, source: string): string {
  let t = text.split(root).join('<root>').split(source).join('<source>');
  for (const [re, to] of VOLATILE) t = t.replace(re, to);
  return t;
}

async function collect(dir: string, root: string, source: string): Promise<Built> {
  const timeline = (await readLines(join(dir, 'timeline.jsonl'))).map((l) => {
    const { seq, class: cls, text, tool } = JSON.parse(l) as Built['timeline'][number];
    return { seq, class: cls, text, ...(tool === undefined ? {} : { tool }) };
  });
  const renders: Record<string, string> = {};
  for (const f of ['HANDOFF.md', 'HANDOFF.summary.json', 'HANDOFF.llm.json', 'TOOLS.md']) {
    renders[f] = normalize(await readFile(join(dir, f), 'utf8'), root, source);
  }
  return { dir, timeline, renders };
}

const files = corpusFiles();

/**
 * A store root of 100 characters at least, longer than a macOS `$TMPDIR` gives (about 70 with the
 * test's folder): a handoff names its store three times, and its size bound must hold there too,
 * not only under this machine's short /tmp.
 */
function longRoot(): string {
  const base = tempDir('handoff-corpus-');
  return join(base, 'store'.padEnd(Math.max(5, 100 - base.length - 1), '-'));
}


describe.skipIf(!corpusPresent)('conformance: the real corpus', () => {
  it('holds Claude Code and Codex transcripts', () => {
    expect(files.filter((f) => f.includes('/claude-code/')).length).toBeGreaterThan(10);
    expect(files.filter((f) => f.includes('/codex/')).length).toBeGreaterThan(3);
  });

  describe.each(files.map((f) => [basename(f), f]))('%s', (_name, file) => {
    it('builds (or fails with its documented exit code), verifies, and is up-to-date the second time', async () => {
      const root = longRoot();
      const env = testEnv({ HANDOFFS_ROOT: root });
      const want = expectedExit(file);
      const r = await runCli(['build', file, '--json'], { env });
      expect(r.code, r.err).toBe(want);
      if (MALFORMED.test(file)) {
        expect(r.err).toMatch(/line \d+ \(byte offset \d+\) is not valid JSON/);
        const ok = await runCli(['build', file, '--allow-bad-lines', '--json'], { env });
        expect(ok.code, ok.err).toBe(0);
      }
      if (want === 4) return;
      const built = JSON.parse(r.out.trim().split('\n')[0] as string) as { session: string; dir: string };
      const id = built.session;
      // The handoff's size bound (docs/FORMAT.md): every real session fits it.
      expect(Buffer.byteLength(await readFile(join(built.dir, 'HANDOFF.md'), 'utf8')), 'HANDOFF.md within its 16,000 bytes').toBeLessThanOrEqual(16_000);
      const v = await runCli(['verify', id, '--source'], { env });
      expect(v.code, v.out + v.err).toBe(0);
      expect(v.out).toMatch(/^PASS /);
      const again = await runCli(['build', file, ...(MALFORMED.test(file) ? ['--allow-bad-lines'] : [])], { env });
      expect(again.out).toMatch(/^handoff: up-to-date \(/);
    });

    it('leaves nothing in any file of its store that secretlint\'s recommended rules call a secret', async () => {
      if (EMPTY.test(file)) return;
      const root = tempDir('handoff-corpus-scan-');
      const r = await runCli(['build', file, ...(MALFORMED.test(file) ? ['--allow-bad-lines'] : [])], { env: testEnv({ HANDOFFS_ROOT: root }) });
      expect(r.code, r.err).toBe(0);
      const stored = await everyFile(root);
      expect(stored.length).toBeGreaterThan(5);
      expect(await secretlintFindings(stored)).toEqual([]);
    });

    it('builds the same timeline and renders when written in 2–5 appends cut at random bytes', async () => {
      if (EMPTY.test(file)) return;
      const flags = MALFORMED.test(file) ? ['--allow-bad-lines'] : [];
      const bytes = await readFile(file);
      // Fixed per file so a failure replays; HANDOFF_TEST_SEED explores other cuts.
      const extra = Number(process.env.HANDOFF_TEST_SEED ?? 0);
      const seed = (bytes.length * 2654435761 + basename(file).length + extra) >>> 0;
      const rand = rng(seed);
      const pieces = 2 + Math.floor(rand() * 4);
      const cuts = [...new Set(Array.from({ length: pieces - 1 }, () => 1 + Math.floor(rand() * (bytes.length - 1))))].sort((a, b) => a - b);

      const oneRoot = tempDir('handoff-one-');
      const oneEnv = testEnv({ HANDOFFS_ROOT: oneRoot });
      // Both copies sit in a folder of the same name: a transcript without a cwd files under it.
      const work = join(tempDir('handoff-src-'), 'transcripts');
      await mkdir(work);
      const src = join(work, basename(file));
      await writeFile(src, bytes);
      const one = await runCli(['build', src, '--json', ...flags], { env: oneEnv });
      expect(one.code, one.err).toBe(0);
      const oneDir = (JSON.parse(one.out) as { dir: string }).dir;

      const incRoot = tempDir('handoff-inc-');
      const incEnv = testEnv({ HANDOFFS_ROOT: incRoot });
      const incWork = join(tempDir('handoff-src-'), 'transcripts');
      await mkdir(incWork);
      const incSrc = join(incWork, basename(file));
      await writeFile(incSrc, '');
      let prev = 0;
      let incDir: string | null = null;
      for (const cut of [...cuts, bytes.length]) {
        await appendFile(incSrc, bytes.subarray(prev, cut));
        prev = cut;
        const r = await runCli(['build', incSrc, '--json', ...flags], { env: incEnv });
        expect([0, 4], `seed ${seed}, cut ${cut}: ${r.err}`).toContain(r.code);
        if (r.code === 0) incDir = (JSON.parse(r.out) as { dir: string }).dir;
      }
      expect(incDir, `seed ${seed}`).not.toBeNull();
      expect(statSync(incSrc).size).toBe(bytes.length);
      const a = await collect(oneDir, oneRoot, src);
      const b = await collect(incDir as string, incRoot, incSrc);
      expect(b.timeline, `seed ${seed} cuts ${cuts.join(',')}`).toEqual(a.timeline);
      for (const f of Object.keys(a.renders)) expect(b.renders[f], `${f}, seed ${seed} cuts ${cuts.join(',')}`).toBe(a.renders[f]);
      const v = await runCli(['verify', basename(incDir as string), '--source'], { env: incEnv });
      expect(v.code, v.out).toBe(0);
    });
  });
});
