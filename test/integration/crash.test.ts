import { existsSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { CRASH_POINTS } from '../../src/engine/faults.js';
import { openEngine } from '../../src/engine/index.js';
import { startDaemon } from '../daemon-harness.js';
import { fixture, readJson, readLines, runCli, spawnCli, tempDir, testEnv } from '../helpers.js';

/**
 * A build killed with a real SIGKILL at each step of the write order (SPEC §5) leaves a store
 * that the next build completes with no turn lost or duplicated.
 */

const lines = (await readFile(fixture('codex-rollout.jsonl'), 'utf8')).split('\n').filter((l) => l.length > 0);
const half = `${lines.slice(0, 10).join('\n')}\n`;
const rest = `${lines.slice(10).join('\n')}\n`;

async function timelineOf(dir: string): Promise<unknown[]> {
  return (await readLines(join(dir, 'timeline.jsonl'))).map((l) => {
    const { seq, class: c, text } = JSON.parse(l) as { seq: number; class: string; text: string };
    return [seq, c, text];
  });
}

async function reference(): Promise<unknown[]> {
  const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-ref-') });
  const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
  await writeFile(src, half + rest);
  const r = await runCli(['build', src, '--json'], { env });
  return timelineOf((JSON.parse(r.out) as { dir: string }).dir);
}

const expected = await reference();
// The points a build passes (a reset's copy and a retitle's move have tests of their own).
const points = CRASH_POINTS.filter((p) => !['after-reset-copy', 'after-change-marker', 'after-move'].includes(p));

describe('crash safety', () => {
  it.each(points)('a refresh killed %s is completed by the next build, exactly once', async (point) => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half);
    const first = await runCli(['build', src, '--json'], { env });
    expect(first.code).toBe(0);
    const dir = (JSON.parse(first.out) as { dir: string }).dir;
    await appendFile(src, rest);
    const killed = await spawnCli(['build', src], { env: { ...env, HANDOFF_CRASH_AT: point } });
    expect(killed.signal).toBe('SIGKILL');
    const next = await runCli(['build', src, '--json'], { env });
    expect(next.code, next.err).toBe(0);
    const r = JSON.parse(next.out) as { up_to_date: boolean; revision: number };
    // Killed after its commit point, the build stands; before it, the next one redoes it.
    expect(r.up_to_date).toBe(point === 'after-manifest');
    expect(await timelineOf(dir)).toEqual(expected);
    const v = await runCli(['verify', 'rollout'], { env });
    expect(v.code, v.out).toBe(0);
  });

  it.each(points)('a first build killed %s leaves nothing half-committed', async (point) => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half + rest);
    const killed = await spawnCli(['build', src], { env: { ...env, HANDOFF_CRASH_AT: point } });
    expect(killed.signal).toBe('SIGKILL');
    const next = await runCli(['build', src, '--json'], { env });
    expect(next.code, next.err).toBe(0);
    const dir = (JSON.parse(next.out) as { dir: string }).dir;
    expect(await timelineOf(dir)).toEqual(expected);
    expect((await runCli(['verify', 'rollout'], { env })).code).toBe(0);
  });

  it.each(points)('a first build killed %s after its project moved to the cwd\'s leaves nothing the next build appends to', async (point) => {
    // The cwd is past what the first look reads (a first line of 300 KiB, a pasted screenshot):
    // the project is a guess until the commit names it, and the session moves then.
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const cwd = join(tempDir('handoff-work-'), 'imgproj');
    const src = join(tempDir('handoff-work-'), 'img.jsonl');
    const base = { sessionId: 'img-1', parentUuid: null, timestamp: '2026-01-01T00:00:00Z' };
    const first = JSON.stringify({ ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: [{ type: 'text', text: 'look at this screenshot' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(300 << 10) } }] } });
    const second = JSON.stringify({ ...base, cwd, type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: [{ type: 'text', text: 'I see a chart.' }] } });
    await writeFile(src, `${first}\n${second}\n`);
    const killed = await spawnCli(['build', src], { env: { ...env, HANDOFF_CRASH_AT: point } });
    expect(killed.signal).toBe('SIGKILL');
    const next = await runCli(['build', src, '--json'], { env });
    expect(next.code, next.err).toBe(0);
    const out = JSON.parse(next.out) as { dir: string; project: string };
    expect(out.project).toBe('imgproj');
    expect(await timelineOf(out.dir)).toHaveLength(2);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it.each(['mid-append', 'after-append'])('a refresh killed %s leaves a store verify passes, noting the bytes past the commit', async (point) => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half);
    expect((await runCli(['build', src], { env })).code).toBe(0);
    await appendFile(src, rest);
    expect((await spawnCli(['build', src], { env: { ...env, HANDOFF_CRASH_AT: point } })).signal).toBe('SIGKILL');
    const v = await runCli(['verify', 'rollout'], { env });
    expect(v.code, v.out + v.err).toBe(0);
    expect(v.out + v.err).toMatch(/bytes past the commit: a build was interrupted before its manifest; the next build removes them/);
  });

  it('a first build killed after its manifest, before INDEX.json, is listed by the next build though nothing is new', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half + rest);
    const killed = await spawnCli(['build', src], { env: { ...env, HANDOFF_CRASH_AT: 'after-manifest' } });
    expect(killed.signal).toBe('SIGKILL');
    const next = await runCli(['build', src, '--json'], { env });
    expect(next.code, next.err).toBe(0);
    expect((JSON.parse(next.out) as { up_to_date: boolean }).up_to_date).toBe(true);
    const list = await runCli(['list', '--json'], { env });
    expect(list.code, list.err).toBe(0);
    expect(list.out).toContain('"rollout"');
  });

  it.each([
    ['retitle', 'after-change-marker', ['retitle', 'rollout', 'Ledger totals'], 'p', 'ledger-totals'],
    ['retitle', 'after-move', ['retitle', 'rollout', 'Ledger totals'], 'p', 'ledger-totals'],
    ['rename', 'after-change-marker', ['rename', 'rollout', 'books'], 'books', 'rollout'],
    ['rename', 'after-move', ['rename', 'rollout', 'books'], 'books', 'rollout'],
  ])('a %s killed %s is finished by the next build, its history kept', async (_what, point, args, project, dirName) => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half + rest);
    const first = JSON.parse((await runCli(['build', src, '--project', 'p', '--json'], { env })).out) as { dir: string; revision: number };
    const killed = await spawnCli(args as string[], { env: { ...env, HANDOFF_CRASH_AT: point } });
    expect(killed.signal).toBe('SIGKILL');
    // Nothing new in the transcript: the change alone makes the build.
    const next = await runCli(['build', src, '--json'], { env });
    expect(next.code, next.err).toBe(0);
    const r = JSON.parse(next.out) as { dir: string; revision: number; project: string; up_to_date: boolean };
    expect(r.up_to_date).toBe(false);
    expect(r.project).toBe(project);
    expect(r.dir).toBe(join(env.HANDOFFS_ROOT as string, 'projects', project, dirName));
    // The same session, one revision on: not a new one started at revision 1 beside an orphan.
    expect(r.revision).toBe(first.revision + 1);
    expect(await timelineOf(r.dir)).toEqual(expected);
    const m = await readJson<{ dir_name: string; project: string; titled_from: string[]; prev_project: string | null }>(join(r.dir, 'manifest.json'));
    expect(m).toMatchObject({ dir_name: dirName, project });
    if (args[0] === 'retitle') expect(m.titled_from).toEqual(['rollout']);
    else expect(m.prev_project).toBe('p');
    const { readdirSync, existsSync } = await import('node:fs');
    expect(existsSync(first.dir)).toBe(false);
    expect(readdirSync(r.dir)).not.toContain('.change-pending');
    const list = JSON.parse((await runCli(['list', '--json'], { env })).out) as { id: string }[];
    expect(list.map((e) => e.id)).toEqual(['rollout']);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
    expect((await runCli(['build', src], { env })).out).toMatch(/up-to-date/);
  });

  // A manifest whose fields no longer match its seal (edited by hand, damaged on disk) commits
  // nothing either: carried on, the next commit would seal the damage and `verify` pass it.
  it.each([
    ['not JSON', () => '{garbage'],
    ['not a manifest', () => '[]'],
    ['edited (its seal no longer matches)', (m: string) => m.replace(/"watermark": \d+/, '"watermark": 1')],
    ['edited to nonsense (its seal no longer matches)', (m: string) => m.replace(/"sources": \[/, '"sources": 5, "was": [')],
  ])('a session folder whose manifest.json is %s is set aside into history/ and rebuilt, no turn twice', async (_what, edit) => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half + rest);
    const dir = (JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { dir: string }).dir;
    const original = await readFile(join(dir, 'manifest.json'), 'utf8');
    const text = edit(original);
    expect(text).not.toBe(original);
    await writeFile(join(dir, 'manifest.json'), text);
    // Commands that read it say what is damaged and the fix, not "internal error".
    for (const cmd of [['resume', 'rollout'], ['export', 'rollout'], ['checkpoint', 'rollout']]) {
      const r = await runCli(cmd, { env });
      expect(r.code, cmd[0]).toBe(1);
      expect(r.err, cmd[0]).toContain(`${join(dir, 'manifest.json')} is damaged`);
      expect(r.err, cmd[0]).not.toMatch(/internal error/);
    }
    const next = await runCli(['build', src, '--json'], { env });
    expect(next.code, next.err).toBe(0);
    expect(next.err).toMatch(/its manifest\.json could not be read/);
    expect((JSON.parse(next.out) as { dir: string }).dir).toBe(dir);
    expect(await timelineOf(dir)).toEqual(expected);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(join(dir, 'history')).filter((n) => /-damaged\.(manifest\.json|timeline\.jsonl|TOOLS\.md)$/.test(n))).toHaveLength(3);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  // What is not a regular file where the store keeps one (a folder, a FIFO) is never read: a FIFO
  // would block the build, and every build queued behind it, for good.
  it.each([
    ['manifest.json', 'a folder'],
    ['manifest.json', 'a FIFO'],
    ['timeline.jsonl', 'a FIFO'],
    ['HANDOFF.md', 'a FIFO'],
  ])('a session folder whose %s is %s is built again, never waiting on it, and verifies', async (file, what) => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half);
    const dir = (JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { dir: string }).dir;
    await rm(join(dir, file));
    const { execFileSync } = await import('node:child_process');
    if (what === 'a folder') await mkdir(join(dir, file));
    else execFileSync('mkfifo', [join(dir, file)]);
    await appendFile(src, rest);
    const next = await runCli(['build', src, '--json'], { env });
    expect(next.code, next.err).toBe(0);
    expect(await timelineOf(dir)).toEqual(expected);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('a timeline cut short while its session is hot is not appended to: the session is opened again, rebuilt, and verifies', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half);
    const engine = await openEngine(resolveConfig({ cwd: tempDir('handoff-cwd-'), env }), { cacheSessions: 8 });
    const dir = (await engine.build({ source: src })).dir;
    const timeline = await readFile(join(dir, 'timeline.jsonl'), 'utf8');
    await writeFile(join(dir, 'timeline.jsonl'), `${timeline.split('\n').slice(0, -3).join('\n')}\n`);
    await appendFile(src, rest);
    await engine.build({ source: src });
    expect(await timelineOf(dir)).toEqual(expected);
    const v = await runCli(['verify', '--all'], { env });
    expect(v.code, v.out + v.err).toBe(0);
  });

  it('a source reset whose new first line is corrupt commits an empty, verifiable revision, the old timeline kept', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half + rest);
    const dir = (JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { dir: string }).dir;
    // The same size, four bytes of the first line overwritten: a rewritten transcript.
    const text = half + rest;
    await writeFile(src, `${text.slice(0, 1)}XXXX${text.slice(5)}`);
    const r = await runCli(['build', src], { env });
    expect(r.code).toBe(5);
    expect(r.err).toMatch(/source reset/);
    expect(r.err).toMatch(/rollout\.jsonl:1: line 1 \(byte offset 0\) is not valid JSON/);
    expect(await readFile(join(dir, 'timeline.jsonl'), 'utf8')).toBe('');
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(join(dir, 'history')).some((n) => n.endsWith('.timeline.jsonl'))).toBe(true);
    const v = await runCli(['verify', '--all'], { env });
    expect(v.code, v.out).toBe(0);
  });

  it('a source reset killed after copying the old timeline finishes the reset without copying twice', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half + rest);
    const first = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { dir: string };
    // The transcript is rewritten: shorter, different content.
    await writeFile(src, `${lines[0]}\n${JSON.stringify({ timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'A different conversation starts here.' }] } })}\n`);
    const killed = await spawnCli(['build', src], { env: { ...env, HANDOFF_CRASH_AT: 'after-reset-copy' } });
    expect(killed.signal).toBe('SIGKILL');
    const killed2 = await spawnCli(['build', src], { env: { ...env, HANDOFF_CRASH_AT: 'after-append' } });
    expect(killed2.signal).toBe('SIGKILL');
    const next = await runCli(['build', src, '--json'], { env });
    expect(next.code, next.err).toBe(0);
    expect(next.err).toMatch(/source reset/);
    const m = await readJson<{ sources: { resets: number }[]; turn_count: number; watermark: number }>(join(first.dir, 'manifest.json'));
    expect(m.sources[0]?.resets).toBe(1);
    expect(m.turn_count).toBe(1);
    const history = (await import('node:fs')).readdirSync(join(first.dir, 'history'));
    expect(history.filter((h) => h.endsWith('.timeline.jsonl'))).toHaveLength(1);
    const old = await readLines(join(first.dir, 'history', history.find((h) => h.endsWith('.timeline.jsonl')) as string));
    expect(old).toHaveLength(expected.length);
    expect((await runCli(['verify', 'rollout'], { env })).code).toBe(0);
  });
});

describe('residue no later build would clear', () => {
  it('a first build killed before its manifest, of a transcript then renamed, is cleared when the daemon starts', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    const src = join(watch, 'first.jsonl');
    await writeFile(src, half + rest);
    expect((await spawnCli(['build', src], { env: { ...env, HANDOFF_CRASH_AT: 'after-append' } })).signal).toBe('SIGKILL');
    const residue = join(root, 'projects');
    const before = await listedSessions(residue);
    expect(before.some((s) => s.endsWith('/first'))).toBe(true);
    await rename(src, join(watch, 'second.jsonl'));
    const d = await startDaemon(env, root, ['--watch', watch]);
    try {
      await d.call('flush', { timeout_ms: 20_000 }, 25_000);
      const after = await listedSessions(residue);
      expect(after.some((s) => s.endsWith('/first'))).toBe(false);
      expect(after.some((s) => s.endsWith('/second'))).toBe(true);
    } finally {
      await d.kill('SIGTERM');
    }
    const v = await runCli(['verify', '--all'], { env });
    expect(v.code, v.out + v.err).toBe(0);
  });

  it('a reset killed in its rebuild, whose transcript is then gone, leaves the session as last committed', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 'rollout.jsonl');
    await writeFile(src, half + rest);
    const first = await runCli(['build', src, '--json'], { env });
    expect(first.code).toBe(0);
    const dir = (JSON.parse(first.out) as { dir: string }).dir;
    // An editor's save: another file in its place, so the session is rebuilt from byte 0.
    const tmp = `${src}.tmp`;
    await writeFile(tmp, `${lines.slice(0, 12).join('\n')}\n`);
    await rename(tmp, src);
    expect((await spawnCli(['build', src], { env: { ...env, HANDOFF_CRASH_AT: 'after-append' } })).signal).toBe('SIGKILL');
    expect(existsSync(join(dir, '.reset-pending'))).toBe(true);
    await rm(src);
    // The daemon's commit of a transcript it saw go.
    const engine = await openEngine(resolveConfig({ cwd: dir, env }), { cacheSessions: 8 });
    expect(await engine.markGone(dir, src)).not.toBeNull();
    expect(existsSync(join(dir, '.reset-pending'))).toBe(false);
    expect(await timelineOf(dir)).toEqual(expected);
    const v = await runCli(['verify', '--all'], { env });
    expect(v.code, v.out + v.err).toBe(0);
    expect(v.out + v.err).not.toMatch(/past the commit/);
  });
});

async function listedSessions(projects: string): Promise<string[]> {
  const out: string[] = [];
  for (const p of await readdir(projects).catch(() => [])) for (const s of await readdir(join(projects, p)).catch(() => [])) out.push(`${p}/${s}`);
  return out;
}
