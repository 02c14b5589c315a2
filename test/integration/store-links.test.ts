import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { appendFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { copyFixture, readJson, runCli, tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * A file of the store replaced by a symbolic link (by a sync tool, a careless script, or someone
 * who wants a build to overwrite what the link points to) is never written through: the build
 * replaces the link or rebuilds the session, the file the link points to is left exactly as it
 * was, and the store verifies afterwards.
 */

const USER = (text: string): string => `${JSON.stringify({ type: 'user', uuid: `u-${text.length}`, sessionId: 'links', timestamp: '2026-03-01T10:00:00.000Z', cwd: '/nonexistent/w', message: { role: 'user', content: text } })}\n`;

const running: RunningDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) if (d.child.exitCode === null && d.child.signalCode === null) await d.kill('SIGKILL');
});

async function victim(): Promise<{ path: string; text: string; mode: number }> {
  const path = join(tempDir('handoff-victim-'), 'important.txt');
  const text = 'keep me exactly as I am\n'.repeat(1000);
  await writeFile(path, text, { mode: 0o644 });
  return { path, text, mode: statSync(path).mode };
}

function untouched(v: { path: string; text: string; mode: number }): void {
  expect(readFileSync(v.path, 'utf8')).toBe(v.text);
  expect(statSync(v.path).mode).toBe(v.mode);
}

async function sessionDir(root: string, id: string): Promise<string> {
  const e = (await readJson<{ id: string; dir: string }[]>(join(root, 'INDEX.json'))).find((x) => x.id === id);
  if (!e) throw new Error(`${id} not in the index`);
  return e.dir;
}

/** A daemon watching one session, `links`, built: its transcript and its folder. */
async function daemonSession(): Promise<{ env: NodeJS.ProcessEnv; src: string; d: RunningDaemon; dir: string }> {
  const root = tempDir('handoff-store-');
  const watch = tempDir('handoff-watch-');
  const env = testEnv({ HANDOFFS_ROOT: root });
  const src = await copyFixture('claude-session.jsonl', watch, 'links.jsonl');
  const d = await startDaemon(env, root, ['--watch', watch]);
  running.push(d);
  await builtTo(d, 15);
  const dir = ((await d.call('session.get', { id: 'links' })).session as { dir: string }).dir;
  return { env, src, d, dir };
}

/** Until the daemon has built `links` to `turns` turns, and not in error. */
async function builtTo(d: RunningDaemon, turns: number): Promise<void> {
  await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'links' && s.turns === turns && s.state !== 'error'), `links built to ${turns} turns`, 20_000);
}

describe('a file of the store that is a symbolic link', () => {
  it.each(['timeline.jsonl', 'TOOLS.md', 'HANDOFF.md', 'HANDOFF.summary.json', 'HANDOFF.llm.json'])('%s: a one-shot build never writes through it', async (file) => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = await copyFixture('claude-session.jsonl', tempDir('handoff-src-'), 'links.jsonl');
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const dir = await sessionDir(root, 'links');
    const v = await victim();
    await rm(join(dir, file));
    symlinkSync(v.path, join(dir, file));
    await appendFile(src, USER('one more request after the link was planted'));
    const built = await runCli(['build', src], { env });
    expect(built.code, built.err).toBe(0);
    untouched(v);
    expect(lstatSync(join(dir, file)).isFile()).toBe(true);
    const verified = await runCli(['verify', '--all'], { env });
    expect(verified.code, verified.out + verified.err).toBe(0);
    expect(readFileSync(join(dir, 'HANDOFF.md'), 'utf8')).toContain('one more request after the link was planted');
  });

  it.each(['INDEX.json', join('projects', 'uploader', 'PROJECT.md')])('%s: a one-shot build never writes through it', async (file) => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = await copyFixture('claude-session.jsonl', tempDir('handoff-src-'), 'links.jsonl');
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const v = await victim();
    await rm(join(root, file));
    symlinkSync(v.path, join(root, file));
    await appendFile(src, USER('one more request after the link was planted'));
    expect((await runCli(['build', src], { env })).code).toBe(0);
    untouched(v);
    expect(lstatSync(join(root, file)).isFile()).toBe(true);
  });

  it('timeline.jsonl: the daemon never appends through it, and rebuilds the session', async () => {
    const { env, src, d, dir } = await daemonSession();
    const v = await victim();
    await rm(join(dir, 'timeline.jsonl'));
    symlinkSync(v.path, join(dir, 'timeline.jsonl'));
    await appendFile(src, USER('one more request after the link was planted'));
    await builtTo(d, 16);
    untouched(v);
    expect(lstatSync(join(dir, 'timeline.jsonl')).isFile()).toBe(true);
    const verified = await runCli(['verify', '--all'], { env });
    expect(verified.code, verified.out + verified.err).toBe(0);
  });
});

/** A store of two sessions, built: `links` (whose folder is `dir`) and `generic-demo`. */
async function twoSessions(): Promise<{ root: string; env: NodeJS.ProcessEnv; src: string; dir: string }> {
  const root = tempDir('handoff-store-');
  const env = testEnv({ HANDOFFS_ROOT: root });
  const src = await copyFixture('claude-session.jsonl', tempDir('handoff-src-'), 'links.jsonl');
  const other = await copyFixture('generic.jsonl', tempDir('handoff-src-'), 'other.jsonl');
  expect((await runCli(['build', src, other], { env })).code).toBe(0);
  return { root, env, src, dir: await sessionDir(root, 'links') };
}

describe('a file of the store that is a folder, or a session folder without its manifest', () => {
  it('timeline.jsonl a folder: verify fails it (not an internal error), a build moves the folder into history/ and rebuilds', async () => {
    const { env, src, dir } = await twoSessions();
    await rm(join(dir, 'timeline.jsonl'));
    mkdirSync(join(dir, 'timeline.jsonl'));
    writeFileSync(join(dir, 'timeline.jsonl', 'note.txt'), 'someone put this here');
    const v = await runCli(['verify', '--all'], { env });
    expect(v.code).toBe(1);
    expect(v.out).toContain('FAIL links: timeline.jsonl is a folder, not the file the manifest records');
    expect(v.out).toMatch(/PASS generic-demo/);
    expect(v.err).not.toMatch(/internal error/);
    const built = await runCli(['build', src], { env });
    expect(built.code, built.err).toBe(0);
    const kept = readdirSync(join(dir, 'history')).find((n) => n.endsWith('-a-folder.timeline.jsonl'));
    expect(kept).toBeDefined();
    expect(readFileSync(join(dir, 'history', kept as string, 'note.txt'), 'utf8')).toBe('someone put this here');
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('HANDOFF.md a folder: show says so and what to do, not an internal error', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = await copyFixture('claude-session.jsonl', tempDir('handoff-src-'), 'links.jsonl');
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const dir = await sessionDir(root, 'links');
    await rm(join(dir, 'HANDOFF.md'));
    mkdirSync(join(dir, 'HANDOFF.md'));
    const shown = await runCli(['show', 'links'], { env });
    expect(shown.code).toBe(4);
    expect(shown.err).toContain(`${join(dir, 'HANDOFF.md')} is a folder, not the session's file`);
    expect(shown.err).not.toMatch(/internal error/);
  });

  it('a folder whose manifest.json is gone: verify --all fails it even after INDEX.json is rebuilt from the manifests', async () => {
    const { root, env, dir } = await twoSessions();
    await rm(join(dir, 'manifest.json'));
    await rm(join(root, 'INDEX.json'));
    const v = await runCli(['verify', '--all'], { env });
    expect(v.code).toBe(1);
    expect(v.out).toMatch(/^FAIL links: manifest\.json is missing/m);
    expect(v.out).toMatch(/^PASS generic-demo/m);
  });
});

describe('a render that is a folder', () => {
  it('is moved into history/ by the next build, which writes the render: a one-shot build', async () => {
    const { env, src, dir } = await twoSessions();
    await rm(join(dir, 'HANDOFF.llm.json'));
    mkdirSync(join(dir, 'HANDOFF.llm.json'));
    await appendFile(src, USER('one more request after the folder was made'));
    const built = await runCli(['build', src], { env });
    expect(built.code, built.err).toBe(0);
    expect(lstatSync(join(dir, 'HANDOFF.llm.json')).isFile()).toBe(true);
    expect(readdirSync(join(dir, 'history')).some((n) => n.endsWith('-a-folder.HANDOFF.llm.json'))).toBe(true);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('the state file too: moved into history/, the session read again from its transcript', async () => {
    const { env, src, dir } = await twoSessions();
    const state = readdirSync(dir).find((n) => n.startsWith('.state-')) as string;
    await rm(join(dir, state));
    mkdirSync(join(dir, state));
    await appendFile(src, USER('one more request after the folder was made'));
    const built = await runCli(['build', src], { env });
    expect(built.code, built.err).toBe(0);
    expect(readdirSync(join(dir, 'history')).some((n) => n.endsWith(`-a-folder.${state}`))).toBe(true);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('and by the daemon, whose session carries on', async () => {
    const { env, src, d, dir } = await daemonSession();
    await rm(join(dir, 'HANDOFF.md'));
    mkdirSync(join(dir, 'HANDOFF.md'));
    await appendFile(src, USER('one more request after the folder was made'));
    await builtTo(d, 16);
    expect(lstatSync(join(dir, 'HANDOFF.md')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'HANDOFF.md'), 'utf8')).toContain('one more request after the folder was made');
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });
});
