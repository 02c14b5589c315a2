import { statSync } from 'node:fs';
import { appendFile, readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/index.js';
import { resolveConfig } from '../../src/config.js';
import type { IndexEntry } from '../../src/store/index-file.js';
import type { Manifest } from '../../src/store/manifest.js';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { fakeSecrets, slice12 } from '../fake-secrets.js';
import { copyFixture, readJson, runCli, tempDir, testEnv } from '../helpers.js';

async function built(): Promise<{ env: NodeJS.ProcessEnv; root: string; dir: string; src: string }> {
  const root = tempDir('handoff-store-');
  const env = testEnv({ HANDOFFS_ROOT: root });
  const src = await copyFixture('claude-session.jsonl', tempDir('handoff-work-'));
  const r = await runCli(['build', src, '--json'], { env });
  expect(r.code, r.err).toBe(0);
  return { env, root, src, dir: (JSON.parse(r.out) as { dir: string }).dir };
}

interface HistoryJson {
  session: string;
  revision: number;
  kind: string;
  history_file: string;
}

async function finalize(env: NodeJS.ProcessEnv, ...more: string[]): Promise<HistoryJson> {
  const r = await runCli(['finalize', 'claude-sess', '--json', ...more], { env });
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as HistoryJson;
}

describe('handoff finalize', () => {
  it('writes a read-only copy of the refreshed HANDOFF.md into history/, lists it in the manifest, and still verifies', async () => {
    const { env, dir } = await built();
    const text = await runCli(['finalize', 'claude-sess'], { env });
    expect(text.code).toBe(0);
    const file = /→ (\S+)$/.exec(text.out.trim())?.[1] ?? '';
    expect(dirname(file)).toBe(join(dir, 'history'));
    expect(basename(file)).toMatch(/^\d{8}T\d{6}Z-claude-session\.md$/);
    expect(await readFile(file, 'utf8')).toBe(await readFile(join(dir, 'HANDOFF.md'), 'utf8'));
    expect(statSync(file).mode & 0o222).toBe(0);
    const m = await readJson<Manifest>(join(dir, 'manifest.json'));
    expect(m.revisions).toBe(2);
    expect(m.finalized).toEqual([expect.objectContaining({ file: basename(file), kind: 'finalize', revision: 2 })]);
    const v = await runCli(['verify', 'claude-session'], { env });
    expect(v.code, v.out).toBe(0);
  });

  it('never overwrites a history file: a second finalize gets its own name and the first stays as it was', async () => {
    const { env, dir, src } = await built();
    const a = await finalize(env);
    const before = await readFile(a.history_file, 'utf8');
    await appendFile(src, `${JSON.stringify({ type: 'user', sessionId: 's', message: { role: 'user', content: 'also retry on HTTP 503' } })}\n`);
    const b = await finalize(env);
    expect(b.history_file).not.toBe(a.history_file);
    expect(b.revision).toBe(a.revision + 1);
    expect(await readFile(a.history_file, 'utf8')).toBe(before);
    expect(await readFile(b.history_file, 'utf8')).toContain('also retry on HTTP 503');
    expect((await readdir(join(dir, 'history'))).sort()).toEqual([basename(a.history_file), basename(b.history_file)].sort());
    const m = await readJson<Manifest>(join(dir, 'manifest.json'));
    expect(m.finalized.map((h) => h.file)).toEqual([basename(a.history_file), basename(b.history_file)]);
    expect((await runCli(['verify', 'claude-session'], { env })).code).toBe(0);
  });

  it('gives two finalizes in the same second distinct names', async () => {
    const { env, root, dir } = await built();
    const frozen = new Date('2026-03-01T12:00:00.250Z');
    const engine = await openEngine(resolveConfig({ cwd: root, env }), { now: () => frozen });
    const first = await engine.update(dir, { history: { kind: 'finalize', reason: 'test' } });
    const second = await engine.update(dir, { history: { kind: 'finalize', reason: 'test' } });
    expect(first.history?.file).toBe('20260301T120000Z-claude-session.md');
    expect(second.history?.file).toBe('20260301T120000Z-claude-session-2.md');
    expect((await readdir(join(dir, 'history'))).sort()).toEqual(['20260301T120000Z-claude-session-2.md', '20260301T120000Z-claude-session.md']);
  });

  it('exits 4 naming the prefix when no session matches', async () => {
    const { env } = await built();
    const r = await runCli(['finalize', 'nope'], { env });
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/no session matches "nope"/);
  });
});

describe('handoff checkpoint', () => {
  it('writes a -checkpoint copy that opens with its note, redacting a credential in the note', async () => {
    const { env, dir } = await built();
    const secret = fakeSecrets().find((s) => s.kind === 'github_token');
    const r = await runCli(['checkpoint', 'claude', '--note', `before the retry rewrite (token ${secret?.value ?? ''})`, '--json'], { env });
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/1 credential\(s\) in --note were redacted/);
    const j = JSON.parse(r.out) as HistoryJson;
    expect(j.kind).toBe('checkpoint');
    expect(basename(j.history_file)).toMatch(/^\d{8}T\d{6}Z-claude-session-checkpoint\.md$/);
    const text = await readFile(j.history_file, 'utf8');
    expect(text).toMatch(/^<!-- checkpoint \S+ revision 2: before the retry rewrite \(token \[REDACTED:github_token\]\) -->/);
    expect(text).not.toContain(slice12(secret?.value ?? 'x'));
    const m = await readJson<Manifest>(join(dir, 'manifest.json'));
    expect(m.finalized).toEqual([expect.objectContaining({ kind: 'checkpoint', file: basename(j.history_file) })]);
    expect((await runCli(['verify', 'claude-session'], { env })).code).toBe(0);
  });
});

describe('finalize while the daemon runs', () => {
  const running: RunningDaemon[] = [];
  afterEach(async () => {
    for (const d of running.splice(0)) if (d.child.exitCode === null) await d.kill('SIGTERM');
  });

  it("goes through the daemon's queue, so the daemon's own index knows the new revision", async () => {
    const { env, root, dir } = await built();
    const d = await startDaemon(env, root, ['--watch', tempDir('handoff-watch-')]);
    running.push(d);
    const j = await finalize(env);
    expect(dirname(j.history_file)).toBe(join(dir, 'history'));
    expect(statSync(j.history_file).isFile()).toBe(true);
    const listed = ((await d.call('sessions.list')) as IndexEntry[]).find((s) => s.id === 'claude-session');
    expect(listed?.revisions).toBe(j.revision);
    expect((await runCli(['verify', 'claude-session'], { env })).code).toBe(0);
  });
});
