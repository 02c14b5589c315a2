import { open, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { openEngine } from '../../src/engine/index.js';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { readJson, readLines, runCli, tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * A transcript written to without growing: the same inode and size, other bytes somewhere in the
 * middle (a line corrected by hand, a secret overwritten at its length). Its size says nothing and
 * the running digest checks only the last bytes before the offset, so a process that read the
 * file before must hash its whole prefix again (the engine's `recheck`), and the daemon must ask
 * for that when a file's modification time moves while its size does not.
 */

const running: RunningDaemon[] = [];
afterEach(async (ctx) => {
  for (const d of running.splice(0)) {
    if (ctx.task.result?.state === 'fail') console.log(`daemon log (pid ${d.child.pid}):\n${d.log()}`);
    if (d.child.exitCode === null && d.child.signalCode === null) await d.kill('SIGKILL');
  }
});

/** A user line of a fixed length: `words` must keep the same number of characters between versions. */
const line = (n: number, words: string): string =>
  `${JSON.stringify({ type: 'user', uuid: `u${String(n).padStart(3, '0')}`, sessionId: 's', cwd: '/home/dev/uploader', message: { role: 'user', content: `step ${n}: ${words}` } })}\n`;

/** 80 lines of about 130 bytes: line 30 lies well past the first kibibyte and well before the last 4 KiB. */
const transcript = (middle: string): string => Array.from({ length: 80 }, (_, i) => line(i, i === 30 ? middle : 'keep going please')).join('');

/** Overwrites bytes in place: the same inode, the same size. */
async function overwrite(path: string, from: string, to: string): Promise<void> {
  expect(Buffer.byteLength(to)).toBe(Buffer.byteLength(from));
  const at = (await readFile(path)).indexOf(from);
  expect(at).toBeGreaterThan(1024);
  const before = await stat(path);
  const fh = await open(path, 'r+');
  try {
    await fh.write(Buffer.from(to), 0, Buffer.byteLength(to), at);
  } finally {
    await fh.close();
  }
  const after = await stat(path);
  expect([after.ino, after.size]).toEqual([before.ino, before.size]);
  expect(before.size - at).toBeGreaterThan(4096);
}

const texts = async (dir: string): Promise<string[]> => (await readLines(join(dir, 'timeline.jsonl'))).map((l) => (JSON.parse(l) as { text: string }).text);

describe('a transcript edited in place at the same size', () => {
  it('is read again from its start by a build asked to recheck it, in a process that remembers its digest', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = join(tempDir('handoff-work-'), 'edited.jsonl');
    await writeFile(src, transcript('deploy to staging'));
    const engine = await openEngine(resolveConfig({ cwd: root, env }), { cacheSessions: 8 });
    const first = await engine.build({ source: src });
    expect(first.turns).toBe(80);
    await overwrite(src, 'deploy to staging', 'deploy to prodxyz');
    const again = await engine.build({ source: src, recheck: true });
    expect(again.reset).toMatch(/the bytes already read changed/);
    expect(again.revision).toBeGreaterThan(first.revision);
    const t = await texts(again.dir);
    expect(t.filter((x) => x.includes('deploy to staging'))).toEqual([]);
    expect(t.filter((x) => x.includes('deploy to prodxyz'))).toHaveLength(1);
    expect((await runCli(['verify', '--all', '--source'], { env })).code).toBe(0);
  });

  it('records in the manifest the modification time of the stat its size came from, so an untouched file is not read again', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = join(tempDir('handoff-work-'), 'steady.jsonl');
    await writeFile(src, transcript('deploy to staging'));
    const engine = await openEngine(resolveConfig({ cwd: root, env }), { cacheSessions: 8 });
    const res = await engine.build({ source: src });
    const st = await stat(src);
    expect(res.mtime_ms).toBe(st.mtimeMs);
    const m = await readJson<{ sources: { mtime_ms: number; size: number }[] }>(join(res.dir, 'manifest.json'));
    expect(m.sources[0]).toMatchObject({ mtime_ms: st.mtimeMs, size: st.size });
  });

  it('is rebuilt by the daemon, which saw no growth, and the store verifies against the edited bytes', async () => {
    const root = tempDir('handoff-store-');
    const watch = tempDir('handoff-watch-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = join(watch, 'edited.jsonl');
    await writeFile(src, transcript('deploy to staging'));
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    const built = await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'edited' && s.turns === 80 && s.state !== 'pending'), 'the session to be built');
    await overwrite(src, 'deploy to staging', 'deploy to prodxyz');
    await waitFor(async () => (await texts(built.dir)).some((x) => x.includes('deploy to prodxyz')), 'the edited line to reach the timeline');
    const t = await texts(built.dir);
    expect(t).toHaveLength(80);
    expect(t.filter((x) => x.includes('deploy to staging'))).toEqual([]);
    await waitFor(async () => (await runCli(['verify', 'edited', '--source'], { env })).code === 0, 'the store to verify against the edited transcript');
  });

  it('is read on by the daemon when a corrupt line is repaired in place', async () => {
    const root = tempDir('handoff-store-');
    const watch = tempDir('handoff-watch-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = join(watch, 'repaired.jsonl');
    const good = line(30, 'deploy to staging');
    const broken = `#${good.slice(1)}`;
    await writeFile(src, transcript('keep going please').replace(line(30, 'keep going please'), broken + line(30, 'keep going please')));
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'repaired' && s.state === 'halted'), 'the session to halt at its corrupt line');
    await overwrite(src, broken, good);
    const after = await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'repaired' && s.turns === 81 && s.state !== 'halted'), 'the repaired session to be read to its end');
    expect(after.halted).toBeUndefined();
    expect((await texts(after.dir)).filter((x) => x.includes('deploy to staging'))).toHaveLength(1);
  });
});
