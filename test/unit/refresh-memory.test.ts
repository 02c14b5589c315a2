import { mkdirSync, rmSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { oneLine } from '../../src/core/render/handoff-md.js';
import { openEngine } from '../../src/engine/index.js';
import type { Engine } from '../../src/engine/index.js';
import { fixture, tempDir, testEnv } from '../helpers.js';

async function engineFor(root: string): Promise<Engine> {
  return openEngine(resolveConfig({ cwd: root, env: testEnv({ HANDOFFS_ROOT: root }) }), { cacheSessions: 8 });
}

/** The fixture's lines: the first half to start with, the rest to append. */
async function halves(): Promise<[string, string]> {
  const lines = (await readFile(fixture('claude-session.jsonl'), 'utf8')).split(/(?<=\n)/);
  const cut = Math.floor(lines.length / 2);
  return [lines.slice(0, cut).join(''), lines.slice(cut).join('')];
}

describe('the state a refresh keeps in memory', () => {
  it('is left behind by a build that fails after folding new turns: the next build counts each turn once', async () => {
    const [first, rest] = await halves();
    const work = tempDir('handoff-work-');
    const src = join(work, 'claude-session.jsonl');
    await writeFile(src, first);
    const engine = await engineFor(tempDir('handoff-store-'));
    const a = await engine.build({ source: src });
    // Nothing changed: an up-to-date build hands the state back untouched.
    expect((await engine.build({ source: src })).up_to_date).toBe(true);
    await appendFile(src, rest);
    // HANDOFF.md cannot be replaced: the commit fails after the new turns were folded into the state.
    rmSync(join(a.dir, 'HANDOFF.md'));
    mkdirSync(join(a.dir, 'HANDOFF.md', 'blocked'), { recursive: true });
    await expect(engine.build({ source: src })).rejects.toThrow();
    rmSync(join(a.dir, 'HANDOFF.md'), { recursive: true });
    const b = await engine.build({ source: src });

    const fresh = await engineFor(tempDir('handoff-store-'));
    const whole = await fresh.build({ source: src });
    expect(b.new_turns).toBeGreaterThan(0);
    expect(b.turns).toBe(whole.turns);
    const summary = (dir: string): Promise<{ counts: unknown; requests: unknown }> => readFile(join(dir, 'HANDOFF.summary.json'), 'utf8').then((t) => JSON.parse(t) as { counts: unknown; requests: unknown });
    expect((await summary(b.dir)).counts).toEqual((await summary(whole.dir)).counts);
    expect((await summary(b.dir)).requests).toEqual((await summary(whole.dir)).requests);
  });
});

describe('oneLine (HANDOFF.md)', () => {
  const reference = (s: string, n: number): string => {
    const t = s.replace(/\s+/g, ' ').trim();
    return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
  };

  it('cuts a long text exactly as collapsing the whole text first would', () => {
    let seed = 7;
    const rand = (k: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    const pieces = ['a', 'word ', '  ', '\n\n\n', '\t', '\u00a0', ' \u3000', '\u2028', 'ü', '漢字', '          '.repeat(8), 'x'.repeat(50)];
    for (let i = 0; i < 3000; i += 1) {
      const parts: string[] = [];
      for (let j = rand(120); j > 0; j -= 1) parts.push(pieces[rand(pieces.length)] as string);
      const s = parts.join('');
      for (const n of [1, 5, 60, 140, 400]) expect(oneLine(s, n)).toBe(reference(s, n));
    }
  });
});
