import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { openEngine } from '../../src/engine/index.js';
import { fixture, readLines, runCli, tempDir, testEnv } from '../helpers.js';

/**
 * What changes under a live session the engine holds in memory: its store folder deleted (by
 * hand, by a cleanup tool), or its transcript rewritten in place with the same first bytes and a
 * larger size. Neither may be read as a transcript that grew.
 */

describe('a session folder deleted under a live session', () => {
  it('is built again from the start, every turn in its timeline, and verifies', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = join(tempDir('handoff-work-'), 'live.jsonl');
    await writeFile(src, await readFile(fixture('claude-session.jsonl'), 'utf8'));
    const engine = await openEngine(resolveConfig({ cwd: root, env }), { cacheSessions: 8 });
    const turn = (n: number): string => `${JSON.stringify({ type: 'user', sessionId: 's', cwd: '/home/dev/uploader', message: { role: 'user', content: `step ${n}: keep going` } })}\n`;
    const first = await engine.build({ source: src });
    await appendFile(src, turn(1));
    const hot = await engine.build({ source: src, lazyState: true });
    expect(hot.turns).toBe(first.turns + 1);
    await rm(hot.dir, { recursive: true, force: true });
    await appendFile(src, turn(2));
    const after = await engine.build({ source: src, lazyState: true });
    expect(after.turns).toBe(first.turns + 2);
    const lines = await readLines(join(after.dir, 'timeline.jsonl'));
    expect(lines).toHaveLength(first.turns + 2);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });
});

describe('a transcript rewritten in place under a live session', () => {
  it('is read again from its start when the bytes before the offset changed, though its first kibibyte and its growth say nothing', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = join(tempDir('handoff-work-'), 'rewritten.jsonl');
    const line = (n: number, words: string): string => `${JSON.stringify({ type: 'user', uuid: `u${n}`, sessionId: 's', cwd: '/home/dev/uploader', message: { role: 'user', content: `step ${n}: ${words}` } })}\n`;
    // Lines of the same length, so the rewritten file's offsets fall on line ends as before.
    const head = Array.from({ length: 20 }, (_, i) => line(i, 'keep going please')).join('');
    await writeFile(src, head + Array.from({ length: 10 }, (_, i) => line(100 + i, 'the first version')).join(''));
    const engine = await openEngine(resolveConfig({ cwd: root, env }), { cacheSessions: 8 });
    await engine.build({ source: src });
    await appendFile(src, line(200, 'one more of those'));
    const hot = await engine.build({ source: src, lazyState: true });
    // The same first 1,300 bytes, then other turns, and more of them: `cat new > file`.
    const rewritten = head + Array.from({ length: 14 }, (_, i) => line(300 + i, 'the other version')).join('');
    expect(Buffer.byteLength(rewritten)).toBeGreaterThan((await readFile(src)).length);
    await writeFile(src, rewritten);
    const after = await engine.build({ source: src, lazyState: true });
    expect(after.turns).toBe(34);
    const texts = (await readLines(join(after.dir, 'timeline.jsonl'))).map((l) => (JSON.parse(l) as { text: string }).text);
    expect(texts.filter((t) => t.includes('the first version'))).toEqual([]);
    expect(texts.filter((t) => t.includes('the other version'))).toHaveLength(14);
    expect(after.revision).toBeGreaterThan(hot.revision);
    expect((await runCli(['verify', '--all', '--source'], { env })).code).toBe(0);
  });
});
