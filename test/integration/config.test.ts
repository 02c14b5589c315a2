import { symlinkSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyFixture, readJson, runCli, spawnCli, tempDir, testEnv } from '../helpers.js';

function parseConfigOut(out: string): Record<string, string> {
  return Object.fromEntries(out.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

describe('where the store lives (SPEC §2)', () => {
  it('defaults to ~/.handoffs and prints every key of `handoff config`', async () => {
    const env = testEnv();
    const r = await runCli(['config'], { env });
    expect(r.code).toBe(0);
    const c = parseConfigOut(r.out);
    expect(Object.keys(c)).toEqual(['root', 'source', 'file', 'schema', 'project', 'linking', 'socket', 'watch']);
    expect(c).toMatchObject({ root: join(env.HOME as string, '.handoffs'), source: 'default', file: 'none', project: 'auto-detected', linking: 'enabled' });
    expect(c.socket).toBe(join(env.HOME as string, '.handoffs', '.handoffd', 'handoffd.sock'));
    expect(c.watch).toBe([join(env.HOME as string, '.claude', 'projects'), join(env.HOME as string, '.codex', 'sessions'), join(env.HOME as string, '.codex', 'archived_sessions')].join(','));
    expect(c.schema).toMatch(/schemas\/handoff\.config\.schema\.json$/);
  });

  // A process of its own: Node's homedir() reads the process's own HOME, which is what goes wrong.
  it.each(['', 'relative/home'])('takes an empty or relative HOME (%j) for no home: the store is never relative to the folder the command runs in', async (home) => {
    const env = { ...testEnv(), HOME: home };
    const cwd = tempDir('handoff-cwd-');
    const r = await spawnCli(['config', '--json'], { env, cwd });
    expect(r.code, r.err).toBe(0);
    const root = (JSON.parse(r.out) as { root: string }).root;
    expect(isAbsolute(root)).toBe(true);
    expect(root.startsWith(cwd)).toBe(false);
    expect(root).toBe(join(userInfo().homedir, '.handoffs'));
  });

  it.each([
    ['a file', (d: string) => (writeFileSync(join(d, 'afile'), ''), join(d, 'afile')), 'is not a folder'],
    ['under a file', (d: string) => (writeFileSync(join(d, 'afile'), ''), join(d, 'afile', 'store')), 'lies under a file, not a folder'],
    ['a link to nothing', (d: string) => (symlinkSync(join(d, 'gone'), join(d, 'link')), join(d, 'link')), 'is a symbolic link to nothing'],
  ])('refuses a store root that is %s, saying where it came from, for every command (doctor reports it)', async (_what, make, why) => {
    const root = make(tempDir('handoff-root-'));
    const env = testEnv({ HANDOFFS_ROOT: root });
    for (const cmd of [['list'], ['status'], ['config']]) {
      const r = await runCli(cmd, { env });
      expect(r.code, cmd[0]).toBe(2);
      expect(r.err, cmd[0]).toContain(`the store root ${root} (from HANDOFFS_ROOT) ${why}`);
      expect(r.err, cmd[0]).toContain('fix: give the store a folder');
    }
    const doctor = await runCli(['doctor'], { env });
    expect(doctor.out).toMatch(new RegExp(`FAIL +config +the store root .* ${why}`));
    expect(doctor.out).toContain('fix: give the store a folder');
  });

  it('takes HANDOFFS_ROOT first, then a config found walking up, then a discovered handoffs/ folder', async () => {
    const top = tempDir('handoff-tree-');
    const deep = join(top, 'a', 'b', 'c');
    await mkdir(deep, { recursive: true });
    const env = testEnv();
    // discover: a handoffs/ folder two levels up
    await mkdir(join(top, 'a', 'handoffs'));
    expect(parseConfigOut((await runCli(['config'], { env, cwd: deep })).out)).toMatchObject({ root: join(top, 'a', 'handoffs'), source: 'discover' });
    // a config that declares no directory still supplies options; the walk goes on to discover
    await writeFile(join(top, 'a', 'b', 'handoff.config.json'), JSON.stringify({ project_name: 'Acme Web', linking: { enabled: false } }));
    const c1 = parseConfigOut((await runCli(['config'], { env, cwd: deep })).out);
    expect(c1).toMatchObject({ root: join(top, 'a', 'handoffs'), source: 'discover', file: join(top, 'a', 'b', 'handoff.config.json'), project: 'Acme Web', linking: 'disabled' });
    // storage.path beats handoff_dir, relative to the config's folder
    await writeFile(join(top, 'a', 'b', 'handoff.config.json'), JSON.stringify({ handoff_dir: 'old', storage: { path: '../store' } }));
    expect(parseConfigOut((await runCli(['config'], { env, cwd: deep })).out)).toMatchObject({ root: join(top, 'a', 'store'), source: 'config' });
    // the environment beats them all; --root beats the environment
    expect(parseConfigOut((await runCli(['config'], { env: { ...env, HANDOFFS_ROOT: '/srv/h' }, cwd: deep })).out)).toMatchObject({ root: '/srv/h', source: 'env' });
    expect(parseConfigOut((await runCli(['config', '--root', '/opt/h'], { env: { ...env, HANDOFFS_ROOT: '/srv/h' }, cwd: deep })).out)).toMatchObject({ root: '/opt/h', source: 'flag' });
  });

  it('falls back to $XDG_CONFIG_HOME/handoff/handoff.config.json and puts the socket under XDG_RUNTIME_DIR', async () => {
    const env = testEnv();
    const xdg = join(env.HOME as string, '.config', 'handoff');
    await mkdir(xdg, { recursive: true });
    await writeFile(join(xdg, 'handoff.config.json'), JSON.stringify({ storage: { path: 'store' }, watch: { paths: ['~/transcripts'] } }));
    const run = tempDir('handoff-run-');
    const r = await runCli(['config', '--json'], { env: { ...env, XDG_RUNTIME_DIR: run } });
    const c = JSON.parse(r.out) as Record<string, unknown>;
    // A store other than the default gets a socket of its own in the shared runtime folder.
    expect(c).toMatchObject({ root: join(xdg, 'store'), source: 'config', file: join(xdg, 'handoff.config.json'), watch: [join(env.HOME as string, 'transcripts')] });
    expect(c.socket).toMatch(new RegExp(`^${join(run, 'handoffd')}/handoffd-[0-9a-f]{12}\\.sock$`));
    expect((c.options as { watch: { debounce_ms: number } }).watch.debounce_ms).toBe(200);
    const dflt = JSON.parse((await runCli(['config', '--json', '--root', join(env.HOME as string, '.handoffs')], { env: { ...env, XDG_RUNTIME_DIR: run } })).out) as { socket: string };
    expect(dflt.socket).toBe(join(run, 'handoffd', 'handoffd.sock'));
  });

  it('refuses a config that is a link in a loop, or to nothing, instead of running on the defaults without a word', async () => {
    const work = tempDir('handoff-work-');
    symlinkSync('other.json', join(work, 'handoff.config.json'));
    symlinkSync('handoff.config.json', join(work, 'other.json'));
    const r = await runCli(['list'], { env: testEnv(), cwd: work });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/handoff\.config\.json: cannot read config: ELOOP/);
    const dangling = tempDir('handoff-work-');
    symlinkSync(join(dangling, 'moved-away.json'), join(dangling, 'handoff.config.json'));
    const d = await runCli(['list'], { env: testEnv(), cwd: dangling });
    expect(d.code).toBe(2);
    expect(d.err).toMatch(/handoff\.config\.json: cannot read config: ENOENT/);
  });

  it('refuses a config nested thousands of levels deep as invalid (exit 2), not with a stack overflow', async () => {
    const work = tempDir('handoff-work-');
    await writeFile(join(work, 'handoff.config.json'), `{"watch":{"paths":${'['.repeat(5000)}${']'.repeat(5000)}}}`);
    const r = await runCli(['list'], { env: testEnv(), cwd: work });
    expect(r.code).toBe(2);
    expect(r.err).toContain('invalid config: nested too deep to be read');
    expect(r.err).not.toMatch(/internal error|Maximum call stack/);
  });

  it('never falls back to another store when a config is invalid', async () => {
    const work = tempDir('handoff-work-');
    await writeFile(join(work, 'handoff.config.json'), JSON.stringify({ storage: { path: 'x' }, redaction: { patterns: ['(a+)+b'] } }));
    const env = testEnv();
    const src = await copyFixture('generic.jsonl', work);
    const r = await runCli(['build', src], { env, cwd: work });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/invalid config at \/redaction\/patterns\/0: expected a linear-time pattern/);
  });

  it('moves a legacy session folder from the root into projects/<project>/ on the next build', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = await copyFixture('generic.jsonl', tempDir('handoff-work-'));
    const built = JSON.parse((await runCli(['build', src, '--project', 'docs', '--json'], { env })).out) as { dir: string };
    // Put it back where the old engine kept sessions: directly under the root.
    const legacy = join(root, 'generic-demo');
    await (await import('node:fs/promises')).rename(built.dir, legacy);
    await (await import('node:fs/promises')).rm(join(root, 'INDEX.json'));
    const other = await copyFixture('text-session.txt', tempDir('handoff-work-'));
    expect((await runCli(['build', other], { env })).code).toBe(0);
    const index = await readJson<{ id: string; dir: string }[]>(join(root, 'INDEX.json'));
    expect(index.find((e) => e.id === 'generic-demo')?.dir).toBe(join(root, 'projects', 'docs', 'generic-demo'));
    expect(await readFile(join(root, 'projects', 'docs', 'generic-demo', 'manifest.json'), 'utf8')).toContain('"session": "generic-demo"');
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });
});
