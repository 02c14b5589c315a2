import { TIMELINE_TEXT, excerpt } from '../../src/core/excerpt.js';
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, readLines, runCli, spawnCli, tempDir, testEnv } from '../helpers.js';

const line = (o: unknown): string => `${JSON.stringify(o)}\n`;
const claudeUser = (cwd: string, text: string): string => line({ type: 'user', sessionId: 'abc', cwd, message: { role: 'user', content: text } });

describe('project inference (SPEC §3)', () => {
  it('uses the git top-level of the recorded cwd, then project_name of a config above it', async () => {
    const repo = join(tempDir('handoff-repo-'), 'Shop Front');
    await mkdir(join(repo, 'src'), { recursive: true });
    execFileSync('git', ['init', '-q', repo]);
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const work = tempDir('handoff-work-');
    const a = join(work, 'a.jsonl');
    await writeFile(a, claudeUser(join(repo, 'src'), 'Fix the checkout button alignment on mobile'));
    expect(JSON.parse((await runCli(['build', a, '--json'], { env })).out)).toMatchObject({ project: 'shop-front' });
    await writeFile(join(repo, 'handoff.config.json'), JSON.stringify({ project_name: 'Storefront' }));
    const b = join(work, 'b.jsonl');
    await writeFile(b, claudeUser(join(repo, 'src'), 'Fix the cart badge count after refresh'));
    expect(JSON.parse((await runCli(['build', b, '--json'], { env })).out)).toMatchObject({ project: 'storefront' });
    const c = join(work, 'c.jsonl');
    await writeFile(c, claudeUser('/nowhere/at/all/billing-api', 'Investigate the failing invoice export job'));
    expect(JSON.parse((await runCli(['build', c, '--json'], { env })).out)).toMatchObject({ project: 'billing-api' });
    expect(JSON.parse((await runCli(['build', c, '--project', 'Ops', '--json'], { env })).out)).toMatchObject({ project: 'billing-api', up_to_date: true });
  });

  it('refines a project guessed from the folder once the transcript names its cwd', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const folder = join(tempDir('handoff-work-'), 'some-folder');
    await mkdir(folder);
    const src = join(folder, 's.jsonl');
    await writeFile(src, line({ type: 'summary', summary: 'Earlier: a long and winding conversation', leafUuid: 'x' }));
    const a = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { project: string };
    expect(a.project).toBe('some-folder');
    await writeFile(src, `${await readFile(src, 'utf8')}${claudeUser('/srv/apps/ledger', 'Reconcile the ledger totals with the bank feed')}`);
    const b = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { project: string; dir: string };
    expect(b.project).toBe('ledger');
    expect(b.dir).toMatch(/projects\/ledger\/s$/);
    expect((await runCli(['verify', 's'], { env })).code).toBe(0);
  });
});

describe('what a build records', () => {
  it('counts unknown record types and skips oversized lines without loading them', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const work = tempDir('handoff-work-');
    await writeFile(join(work, 'handoff.config.json'), JSON.stringify({ capture: { max_line_bytes: 2048 } }));
    const src = join(work, 's.jsonl');
    await writeFile(
      src,
      claudeUser('/x/y', 'Please review the migration plan before Friday') +
        line({ type: 'user', sessionId: 'abc', message: { role: 'user', content: 'z'.repeat(5000) } }) +
        line({ type: 'telemetry-v9', sessionId: 'abc', content: 'new stuff' }),
    );
    const r = JSON.parse((await runCli(['build', src, '--json'], { env, cwd: work })).out) as { dir: string };
    const m = await readJson<{ unknown_types: Record<string, number>; oversized_lines: number; skipped_lines: number; turn_count: number }>(join(r.dir, 'manifest.json'));
    expect(m.unknown_types).toEqual({ 'telemetry-v9': 1 });
    expect(m.oversized_lines).toBe(1);
    expect(m.turn_count).toBe(2);
  });

  it('resets a session whose transcript shrank, keeping the old timeline in history/', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 's.jsonl');
    await writeFile(src, claudeUser('/x/y', 'First conversation about the importer') + claudeUser('/x/y', 'and a second message'));
    const a = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { dir: string };
    await writeFile(src, claudeUser('/x/y', 'A new start'));
    const b = await runCli(['build', src, '--json'], { env });
    expect(b.err).toMatch(/source reset \(the transcript shrank from \d+ to \d+ bytes\)/);
    expect(JSON.parse(b.out)).toMatchObject({ turns: 1, watermark: 0, revision: 2 });
    const hist = (await import('node:fs')).readdirSync(join(a.dir, 'history'));
    expect(hist.some((h) => /-reset-r1\.timeline\.jsonl$/.test(h))).toBe(true);
    expect((await runCli(['verify', 's', '--source'], { env })).code).toBe(0);
  });
});

const generic = (session: string, n: number): string =>
  Array.from({ length: n }, (_, i) => line(i === 0 ? { session, role: 'user', content: `Request number one for ${session}` } : { role: 'assistant', content: `reply ${i} for ${session}` })).join('');

async function turnsOf(dir: string): Promise<string[]> {
  return (await readLines(join(dir, 'timeline.jsonl'))).map((l) => (JSON.parse(l) as { text: string }).text);
}

describe('session folders (SPEC §3 directory names)', () => {
  it('gives two ids that map to one name their own folders, and never empties another session', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const work = tempDir('handoff-work-');
    const long = 'x'.repeat(250);
    const cases: [string, string, string][] = [
      ['a/b', 'a_b', 'a_b'],
      [`${long}A`, `${long}B`, 'x'.repeat(200)],
    ];
    for (const [i, [one, two, name]] of cases.entries()) {
      const a = join(work, `one-${i}.jsonl`);
      const b = join(work, `two-${i}.jsonl`);
      await writeFile(a, generic(one, 2));
      await writeFile(b, generic(two, 3));
      const ra = JSON.parse((await runCli(['build', a, '--project', 'p', '--json'], { env })).out) as { dir: string };
      const rb = JSON.parse((await runCli(['build', b, '--project', 'p', '--json'], { env })).out) as { dir: string };
      expect(ra.dir.endsWith(`/p/${name}`)).toBe(true);
      expect(rb.dir).not.toBe(ra.dir);
      expect(rb.dir).toMatch(/-[0-9a-f]{8}$/);
      // Rebuilding either (as after a lost INDEX.json) finds its own folder and leaves the other alone.
      await appendFile(a, line({ role: 'assistant', content: `one more for ${one}` }));
      const again = JSON.parse((await runCli(['build', a, '--json'], { env })).out) as { dir: string; new_turns: number };
      expect(again).toMatchObject({ dir: ra.dir, new_turns: 1 });
      expect(await turnsOf(ra.dir)).toHaveLength(3);
      expect(await turnsOf(rb.dir)).toHaveLength(3);
      expect((await turnsOf(rb.dir))[0]).toContain(two);
    }
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('never names a session folder after the project file PROJECT.md', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const work = tempDir('handoff-work-');
    await writeFile(join(work, 'first.jsonl'), generic('first', 2));
    await writeFile(join(work, 'pm.jsonl'), generic('PROJECT.md', 2));
    await writeFile(join(work, 'later.jsonl'), generic('later', 2));
    for (const f of ['first', 'pm', 'later']) {
      const r = await runCli(['build', join(work, `${f}.jsonl`), '--project', 'p'], { env });
      expect(r.code, r.err).toBe(0);
    }
    expect((await stat(join(root, 'projects', 'p', 'PROJECT.md'))).isFile()).toBe(true);
    expect((await readdir(join(root, 'projects', 'p'))).filter((n) => n.startsWith('PROJECT.md-'))).toHaveLength(1);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('names a transcript called `.jsonl` by its file name, never an empty id (its handoff failed its schema)', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const work = tempDir('handoff-work-');
    await writeFile(join(work, '.jsonl'), `${JSON.stringify({ role: 'user', content: 'a request in a file with no name' })}\n${JSON.stringify({ role: 'assistant', content: 'ok' })}\n`);
    const r = await runCli(['build', join(work, '.jsonl'), '--project', 'p', '--json'], { env });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ session: '.jsonl' });
    const v = await runCli(['verify', '--all'], { env });
    expect(v.code, v.out).toBe(0);
  });

  it.each(['after-renders', 'after-manifest'])('finds a session moved to its real project by a build killed %s', async (point) => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const folder = join(tempDir('handoff-work-'), 'guessed');
    await mkdir(folder);
    const src = join(folder, 'mv.jsonl');
    // The cwd comes later than the first lines a build reads to decide who a transcript is.
    const noCwd = (i: number): string => line({ type: 'user', sessionId: 'mv', message: { role: 'user', content: `message ${i} without a working folder` } });
    await writeFile(src, Array.from({ length: 210 }, (_, i) => noCwd(i)).join(''));
    expect(JSON.parse((await runCli(['build', src, '--json'], { env })).out)).toMatchObject({ project: 'guessed' });
    await appendFile(src, claudeUser('/srv/apps/ledger', 'Reconcile the ledger totals with the bank feed'));
    const killed = await spawnCli(['build', src], { env: { ...env, HANDOFF_CRASH_AT: point } });
    expect(killed.signal).toBe('SIGKILL');
    const next = await runCli(['build', src, '--json'], { env });
    expect(next.code, next.err).toBe(0);
    const r = JSON.parse(next.out) as { project: string; dir: string; turns: number };
    expect(r).toMatchObject({ project: 'ledger', turns: 211 });
    expect(r.dir).toMatch(/projects\/ledger\/mv$/);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
    expect((await runCli(['build', src], { env })).out).toMatch(/up-to-date/);
  });
});

describe('text transcripts', () => {
  const turns = (...texts: string[]): string => texts.map((t, i) => `${i % 2 === 0 ? 'User' : 'Assistant'}: ${t}\n`).join('');
  // Longer than the 1 KiB fingerprint, so a change after it is found by the hash of what was read.
  const original = turns(`Rename the --fast flag to --quick everywhere. ${'Context for the change. '.repeat(50)}`, 'I will update cli.ts and the docs', 'Also the tests please', 'Done: three files changed');

  it.each([
    ['rewritten shorter', turns('A different start entirely', 'and its reply'), /shrank/],
    ['rewritten from its first bytes', `User: Another request.\n${original}`, /first bytes of the transcript changed/],
    ['rewritten after its first kilobyte', original.replace('three files', 'seven files') + turns('One more request at the end'), /bytes already read changed/],
  ])('resets a session whose text transcript was %s, keeping the old timeline', async (_what, replacement, reason) => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = join(tempDir('handoff-work-'), 't.txt');
    await writeFile(src, original);
    const a = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { dir: string; turns: number };
    expect(a.turns).toBe(4);
    expect(original.indexOf('three files')).toBeGreaterThan(1024);
    await writeFile(src, replacement);
    const b = await runCli(['build', src, '--json'], { env });
    expect(b.code, b.err).toBe(0);
    expect(b.err).toMatch(reason);
    const texts = await turnsOf(a.dir);
    const now = replacement.split('\n').filter((l) => l.length > 0).map((l) => l.replace(/^(User|Assistant): /, '').trim());
    // A long text is kept as its head and tail (docs/FORMAT.md).
    expect(texts).toEqual(now.map((t) => excerpt(t, TIMELINE_TEXT).text));
    expect((await readdir(join(a.dir, 'history'))).some((h) => /-reset-r1\.timeline\.jsonl$/.test(h))).toBe(true);
    expect((await runCli(['verify', 't', '--source'], { env })).code).toBe(0);
  });
});
