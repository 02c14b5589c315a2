import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SoakFile } from '../../bench/soak-core.js';
import { compare, handoffFacts, runSoak } from '../../bench/soak-core.js';
import { CLI, corpusFiles, corpusPresent, fixture, readLines, runCli, tempDir, testEnv } from '../helpers.js';

/**
 * The daemon under fire: real Claude and Codex transcripts appended in random pieces while the
 * daemon is SIGKILLed at random moments (at least 5 times) and restarted. After flush, every
 * session's timeline equals a one-shot build of the finished file: 0 lost, 0 duplicated; and its
 * handoff says what the one-shot build's says (a state left behind is caught up exactly).
 */

async function sources(): Promise<SoakFile[]> {
  if (!corpusPresent) {
    console.warn('[crash-soak] the shared corpus is absent: soaking the project fixtures instead');
    return Promise.all(['claude-session.jsonl', 'codex-rollout.jsonl', 'codex-mirror-first.jsonl'].map(async (f) => ({ name: f, bytes: await readFile(fixture(f)) })));
  }
  const pick = (re: RegExp): string => corpusFiles().find((f) => re.test(f)) as string;
  const chosen = [
    pick(/fe869ecb-c176/), // Claude 1.0.24, summaries and thinking
    pick(/03eb5929-52b3/), // Claude 2.1.42, progress lines
    pick(/subagents__agent-a4ca/), // Claude 2.1.114 subagent file
    pick(/rollout-2026-02-23T12-47-42/), // Codex 0.104, one call without output
    pick(/rollout-2026-02-23T20-34-25/), // Codex, small complete session
  ];
  return Promise.all(chosen.map(async (f) => ({ name: basename(f), bytes: await readFile(f) })));
}

async function oneShot(path: string): Promise<{ turns: [number, string, string][]; handoff: unknown }> {
  const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-ref-') });
  const r = await runCli(['build', path, '--json'], { env });
  if (r.code !== 0) throw new Error(r.err);
  const dir = (JSON.parse(r.out) as { dir: string }).dir;
  const turns = (await readLines(join(dir, 'timeline.jsonl'))).map((l): [number, string, string] => {
    const t = JSON.parse(l) as { seq: number; class: string; text: string };
    return [t.seq, t.class, t.text];
  });
  return { turns, handoff: await handoffFacts(dir) };
}

describe('crash soak', () => {
  it('counts lost, duplicated and changed turns', () => {
    const a: [number, string, string][] = [
      [0, 'USER', 'a'],
      [1, 'AGENT', 'b'],
      [2, 'TOOL', 'c'],
    ];
    expect(compare(a, a)).toEqual({ lost: 0, dup: 0, mismatched: 0 });
    expect(compare(a, [a[0] as never, a[0] as never, [2, 'TOOL', 'x']])).toEqual({ lost: 1, dup: 1, mismatched: 1 });
  });

  it('loses and duplicates no turn while the daemon is SIGKILLed at random moments', async () => {
    const root = tempDir('handoff-soak-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const r = await runSoak({
      cli: CLI,
      env,
      root,
      watch: join(tempDir('handoff-watch-'), 'projects'),
      files: await sources(),
      minKills: 5,
      seconds: 6,
      sigtermEvery: 4,
      seed: Number(process.env.HANDOFF_TEST_SEED ?? 7),
      expected: oneShot,
    });
    expect(r.kills).toBeGreaterThanOrEqual(5);
    expect(r.details.every((d) => d.expected > 0)).toBe(true);
    expect({ lost: r.lost, dup: r.dup, mismatched: r.mismatched, handoffs_differ: r.handoffs_differ }, JSON.stringify(r.details, null, 1)).toEqual({ lost: 0, dup: 0, mismatched: 0, handoffs_differ: 0 });
    const v = await runCli(['verify', '--all'], { env });
    expect(v.code, v.out).toBe(0);
  }, 120_000);
});
