import { cpSync, renameSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../../src/config.js';
import { readIndexFile } from '../../src/hooks/context.js';
import type { IndexEntry } from '../../src/store/index-file.js';
import { copyFixture, readJson, readLines, runCli, tempDir, testEnv } from '../helpers.js';

/**
 * A store is a folder a user may copy (a backup restored beside the original, a test copy) or
 * move (to another disk). INDEX.json records each session's folder by its absolute path: a
 * command run on the copy must read and write the copy's folders, never the original's.
 */

const USER = (text: string): string => `${JSON.stringify({ role: 'user', content: text })}\n`;

async function timelineOf(root: string, id: string): Promise<string[]> {
  const entry = (await readJson<IndexEntry[]>(join(root, 'INDEX.json'))).find((e) => e.id === id);
  if (!entry) throw new Error(`${id} is not in ${root}/INDEX.json`);
  return readLines(join(entry.dir, 'timeline.jsonl'));
}

describe('a store copied or moved to another folder', () => {
  it('builds into the copy it is given, leaving the original as it was', async () => {
    const base = tempDir('handoff-copy-');
    const original = join(base, 'original');
    const copy = join(base, 'copy');
    const env = testEnv();
    const src = await copyFixture('generic.jsonl', tempDir('handoff-src-'), 'copied.jsonl');
    const other = await copyFixture('claude-session.jsonl', tempDir('handoff-src-'), 'other.jsonl');
    expect((await runCli(['build', '--root', original, src, other], { env })).code).toBe(0);
    const before = await timelineOf(original, 'generic-demo');
    cpSync(original, copy, { recursive: true });

    await appendFile(src, USER('and one more thing in the copy'));
    const built = await runCli(['build', '--root', copy, src], { env });
    expect(built.code, built.err).toBe(0);

    expect(await readLines(join(original, 'projects', ...(await projectAndName(original, 'generic-demo')), 'timeline.jsonl'))).toEqual(before);
    const index = await readJson<IndexEntry[]>(join(copy, 'INDEX.json'));
    expect(index.map((e) => e.dir.startsWith(join(copy, 'projects'))).every(Boolean), JSON.stringify(index.map((e) => e.dir))).toBe(true);
    expect(await timelineOf(copy, 'generic-demo')).toHaveLength(before.length + 1);
    expect(await readFile(join(index.find((e) => e.id === 'generic-demo')!.dir, 'HANDOFF.md'), 'utf8')).toContain('and one more thing in the copy');
    for (const root of [original, copy]) expect((await runCli(['verify', '--root', root, '--all'], { env })).code).toBe(0);
    // What the copy's commands show is the copy's: the original's HANDOFF.md has no such request.
    const shown = await runCli(['show', '--root', copy, 'generic-demo'], { env });
    expect(shown.out).toContain('and one more thing in the copy');
    expect((await runCli(['show', '--root', original, 'generic-demo'], { env })).out).not.toContain('and one more thing in the copy');
  });

  it('gives a hook reading the copy\'s INDEX.json the copy\'s folders', async () => {
    const base = tempDir('handoff-copy-');
    const original = join(base, 'original');
    const copy = join(base, 'copy');
    const src = await copyFixture('generic.jsonl', tempDir('handoff-src-'), 'hooked.jsonl');
    expect((await runCli(['build', '--root', original, src], { env: testEnv() })).code).toBe(0);
    cpSync(original, copy, { recursive: true });
    // Only the original's INDEX.json is read: the copy's still names the original's folders.
    const dirs = (await readIndexFile({ root: copy } as ResolvedConfig)).map((e) => e.dir);
    expect(dirs).toEqual([join(copy, 'projects', ...(await projectAndName(original, 'generic-demo')))]);
  });

  it('finds its sessions where the store went when the old folder is gone', async () => {
    const base = tempDir('handoff-move-');
    const from = join(base, 'from');
    const to = join(base, 'to');
    const env = testEnv();
    const src = await copyFixture('generic.jsonl', tempDir('handoff-src-'), 'moved.jsonl');
    expect((await runCli(['build', '--root', from, src], { env })).code).toBe(0);
    const before = await timelineOf(from, 'generic-demo');
    renameSync(from, to);
    await appendFile(src, USER('after the move'));
    const built = await runCli(['build', '--root', to, src], { env });
    expect(built.code, built.err).toBe(0);
    expect(built.out).toMatch(/\+1 turns?/);
    expect(await timelineOf(to, 'generic-demo')).toHaveLength(before.length + 1);
    expect((await runCli(['verify', '--root', to, '--all'], { env })).code).toBe(0);
  });
});

async function projectAndName(root: string, id: string): Promise<[string, string]> {
  const entry = (await readJson<IndexEntry[]>(join(root, 'INDEX.json'))).find((e) => e.id === id);
  if (!entry) throw new Error(`${id} is not in ${root}/INDEX.json`);
  const parts = entry.dir.split('/');
  return [parts.at(-2)!, parts.at(-1)!];
}
