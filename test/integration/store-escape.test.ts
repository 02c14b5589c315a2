import { existsSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/store/manifest.js';
import { seal, serializeManifest } from '../../src/store/manifest.js';
import { copyFixture, runCli, tempDir, testEnv } from '../helpers.js';

/**
 * A manifest's seal is a plain sha256 anyone can make again: a store edited by a hostile tool (or
 * by hand) must still not lead a build to write outside it through a project that is a path.
 */
describe('a project that is a path out of the store', () => {
  async function built(): Promise<{ env: NodeJS.ProcessEnv; root: string; file: string; dir: string }> {
    const work = tempDir('handoff-escape-');
    const root = join(work, 'store');
    const env = testEnv({ HANDOFFS_ROOT: root });
    await mkdir(join(work, 'watch'));
    const file = await copyFixture('claude-session.jsonl', join(work, 'watch'), 'a.jsonl');
    const r = await runCli(['build', file], { env });
    expect(r.code, r.err).toBe(0);
    const project = (await readdir(join(root, 'projects')))[0] as string;
    return { env, root, file, dir: join(root, 'projects', project, 'a') };
  }

  it('in a manifest sealed again: the manifest is damaged, set aside, and the session rebuilt inside the store', async () => {
    const { env, root, file, dir } = await built();
    const path = join(dir, 'manifest.json');
    const { manifest_sha256: _old, ...rest } = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
    await writeFile(path, serializeManifest(seal({ ...rest, project: '../../outside' })));
    const outside = join(dirname(root), 'outside');
    await appendFile(file, `${readFileSync(file, 'utf8').trim().split('\n').at(-1)}\n`);
    const r = await runCli(['build', file], { env });
    expect(r.code, r.err).toBe(0);
    expect(existsSync(join(outside, 'PROJECT.md'))).toBe(false);
    expect(existsSync(`${outside}.md`)).toBe(false);
    expect((await readdir(join(dir, 'history'))).some((f) => f.endsWith('-damaged.manifest.json'))).toBe(true);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('in INDEX.json: the index is rebuilt from the manifests before anything is read or written by it', async () => {
    const { env, root, dir } = await built();
    const index = join(root, 'INDEX.json');
    const entries = JSON.parse(readFileSync(index, 'utf8')) as { project: string }[];
    await writeFile(index, JSON.stringify(entries.map((e) => ({ ...e, project: '../../outside' }))));
    const r = await runCli(['list', '--json'], { env });
    expect(r.code, r.err).toBe(0);
    expect((JSON.parse(r.out) as { project: string }[]).map((e) => e.project)).toEqual([dirname(dir).split('/').at(-1)]);
  });
});
