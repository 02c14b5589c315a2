import { existsSync } from 'node:fs';
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { inodeKey, openEngine, SessionClaims, sessionKey } from '../../src/engine/index.js';
import { DependentSession } from '../../src/engine/types.js';
import { readLines, runCli, settled, tempDir, testEnv } from '../helpers.js';

/**
 * Two builds of one session at once, by two engines of one process that share a claims table
 * (the daemon's main lane and its build worker): two paths lead to one session — the same file
 * under two names (a hard link, a symbolic link), or two files that carry one session id. Each
 * must wait for the other (or, in a worker, be handed back), never append beside it.
 */

const SID = 'cccc1111-0000-4000-8000-000000000001';

/** A Claude transcript of `n` turns whose texts carry `tag`, long enough that a build takes a while. */
function transcript(n: number, tag: string): string {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const user = i % 2 === 0;
    const message = user ? { role: 'user', content: `${tag} step ${i} ${'x'.repeat(400)}` } : { role: 'assistant', model: 'claude-sonnet-4-5', id: `m${i}`, type: 'message', content: [{ type: 'text', text: `${tag} done ${i}` }] };
    out.push(JSON.stringify({ parentUuid: null, isSidechain: false, cwd: '/nonexistent/claims', sessionId: SID, type: user ? 'user' : 'assistant', message, uuid: `${tag}-u${i}`, timestamp: '2026-03-01T09:00:00.000Z' }));
  }
  return `${out.join('\n')}\n`;
}

async function twoEngines(): Promise<{ env: NodeJS.ProcessEnv; a: Awaited<ReturnType<typeof openEngine>>; b: Awaited<ReturnType<typeof openEngine>> }> {
  const root = tempDir('handoff-store-');
  const env = testEnv({ HANDOFFS_ROOT: root });
  const config = resolveConfig({ cwd: root, env });
  const claims = new SessionClaims();
  return { env, a: await openEngine(config, { claims }), b: await openEngine(config, { claims }) };
}

async function timeline(dir: string): Promise<{ seq: number; text: string }[]> {
  return (await readLines(join(dir, 'timeline.jsonl'))).map((l) => JSON.parse(l) as { seq: number; text: string });
}

describe('two builds of one session at once', () => {
  it('of one file under two names: the second waits, and the session holds every turn once', async () => {
    const { env, a, b } = await twoEngines();
    const work = tempDir('handoff-work-');
    await mkdir(join(work, 'a'));
    await mkdir(join(work, 'b'));
    const one = join(work, 'a', `${SID}.jsonl`);
    const two = join(work, 'b', `${SID}.jsonl`);
    await writeFile(one, transcript(4000, 'same'));
    await link(one, two);
    const [x, y] = await Promise.all([a.build({ source: one }), b.build({ source: two })]);
    expect(y.dir).toBe(x.dir);
    const t = await timeline(x.dir);
    expect(t).toHaveLength(4000);
    expect(new Set(t.map((r) => r.seq)).size).toBe(4000);
    expect((await runCli(['verify', '--all', '--source'], { env })).code).toBe(0);
  });

  it('of two files with one session id: two sessions, each with its own turns', async () => {
    const { env, a, b } = await twoEngines();
    const work = tempDir('handoff-work-');
    await mkdir(join(work, 'old'));
    await mkdir(join(work, 'new'));
    const one = join(work, 'old', `${SID}.jsonl`);
    const two = join(work, 'new', `${SID}.jsonl`);
    await writeFile(one, transcript(3000, 'OLDFILE'));
    await writeFile(two, transcript(3000, 'NEWFILE'));
    const [x, y] = await Promise.all([a.build({ source: one }), b.build({ source: two })]);
    expect(y.dir).not.toBe(x.dir);
    expect(new Set([x.session, y.session]).size).toBe(2);
    for (const [r, mine, theirs] of [[x, 'OLDFILE', 'NEWFILE'], [y, 'NEWFILE', 'OLDFILE']] as const) {
      const t = await timeline(r.dir);
      expect(t).toHaveLength(3000);
      expect(t.filter((e) => e.text.includes(theirs))).toEqual([]);
      expect(t.filter((e) => e.text.includes(mine))).toHaveLength(3000);
      expect(JSON.parse(await readFile(join(r.dir, 'manifest.json'), 'utf8')).sources[0].path).toBe(r === x ? one : two);
    }
    expect((await runCli(['verify', '--all', '--source'], { env })).code).toBe(0);
  });

  it('in a worker: handed back before anything is written while another thread holds it, then built', async () => {
    const root = tempDir('handoff-store-');
    const config = resolveConfig({ cwd: root, env: testEnv({ HANDOFFS_ROOT: root }) });
    const claims = new SessionClaims();
    const engine = await openEngine(config, { claims });
    const src = join(tempDir('handoff-work-'), `${SID}.jsonl`);
    await writeFile(src, transcript(20, 'held'));
    for (const key of [sessionKey(SID), inodeKey((await stat(src)).dev, (await stat(src)).ino)]) {
      // Another thread's build holds it.
      expect(claims.tryClaim([key])).toBe(true);
      await expect(engine.build({ source: src, independentOnly: true })).rejects.toBeInstanceOf(DependentSession);
      expect(existsSync(join(root, 'projects'))).toBe(false);
      // The main lane waits for it, and builds once it is released.
      let done = false;
      const waiting = engine.build({ source: src }).finally(() => (done = true));
      await settled();
      expect(done).toBe(false);
      claims.release([key]);
      expect((await waiting).turns).toBe(20);
      await rm(join(root, 'projects'), { recursive: true, force: true });
      await rm(join(root, 'INDEX.json'), { force: true });
      engine.forget(src);
    }
  });
});
