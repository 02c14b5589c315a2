import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, runCli, tempDir, testEnv } from '../helpers.js';

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
