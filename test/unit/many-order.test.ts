import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { byFolder } from '../../src/engine/many.js';

/** A many-file build hands each thread whole folders, the folders with the most bytes first. */

const root = mkdtempSync(join(tmpdir(), 'handoff-many-order-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(dir: string, name: string, bytes: number): string {
  mkdirSync(join(root, dir), { recursive: true });
  const p = join(root, dir, name);
  writeFileSync(p, 'x'.repeat(bytes));
  return p;
}

describe('the order of a many-file build', () => {
  it('groups the transcripts by folder, the largest folder first, each in the order given', () => {
    const sources = [file('a', '1.jsonl', 10), file('b', '1.jsonl', 500), file('a', '2.jsonl', 30), file('c', '1.jsonl', 100), file('b', '2.jsonl', 1), join(root, 'gone', 'x.jsonl')];
    const reqs = sources.map((source) => ({ source }));
    return expect(byFolder(reqs, [0, 1, 2, 3, 4, 5])).resolves.toEqual([[1, 4], [3], [0, 2], [5]]);
  });

  it('leaves out what it is not asked to order', () =>
    expect(byFolder([{ source: file('d', '1.jsonl', 5) }, { source: file('d', '2.jsonl', 5) }], [1])).resolves.toEqual([[1]]));
});

describe('the working folder a transcript records', () => {
  const codex = (day: string, name: string, cwd: string): string => {
    mkdirSync(join(root, day), { recursive: true });
    const p = join(root, day, name);
    writeFileSync(p, `${JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', type: 'session_meta', payload: { id: name, cwd } })}\n`);
    return p;
  };

  it('groups transcripts of one day by the folder each worked in, not by the day', async () => {
    const sources = [codex('2026/01/01', 'a.jsonl', '/repo/one'), codex('2026/01/01', 'b.jsonl', '/repo/two'), codex('2026/01/02', 'c.jsonl', '/repo/one')];
    const groups = await byFolder(
      sources.map((source) => ({ source })),
      [0, 1, 2],
    );
    expect(groups).toContainEqual([0, 2]);
    expect(groups).toContainEqual([1]);
    expect(groups).toHaveLength(2);
  });
});
