import { existsSync } from 'node:fs';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT_HEADING, CONTRACT_KEYS } from '../../src/core/contract.js';
import type { InstallRecord } from '../../src/skill/install.js';
import { ROOT, runCli, tempDir, testEnv } from '../helpers.js';

const SHIPPED = ['SKILL.md', 'templates/evidence-contract.md', 'templates/resume-prompt.md'];

async function install(env: NodeJS.ProcessEnv): Promise<{ dir: string; record: InstallRecord }> {
  const dir = join(tempDir('handoff-skill-'), 'handoff');
  const r = await runCli(['skill', 'install', '--dir', dir, '--json'], { env });
  expect(r.code, r.err).toBe(0);
  return { dir, record: JSON.parse(r.out) as InstallRecord };
}

describe('the shipped skill', () => {
  it('opens with front matter naming it and describing it in one sentence', async () => {
    const md = await readFile(join(ROOT, 'skill', 'SKILL.md'), 'utf8');
    const fm = /^---\nname: (.+)\ndescription: (.+)\n---\n/.exec(md);
    expect(fm?.[1]).toBe('handoff');
    expect(fm?.[2]).toMatch(/^[A-Z][^\n]*\.$/);
    expect((fm?.[2] ?? '').split(/\.\s/)).toHaveLength(1);
  });

  it('names the commands, the contract heading and keys, and the labels exactly as the product does', async () => {
    const md = await readFile(join(ROOT, 'skill', 'SKILL.md'), 'utf8');
    expect(md).toContain(CONTRACT_HEADING);
    for (const key of CONTRACT_KEYS) expect(md).toMatch(new RegExp(`^ {4}${key}: `, 'm'));
    for (const cmd of ['handoff resume --latest', 'handoff checkpoint', 'handoff finalize', 'handoff check', 'handoff verify']) expect(md).toContain(cmd);
    for (const label of ['verified', 'reported', 'inferred', 'unknown']) expect(md).toMatch(new RegExp(`^- \\*${label}\\* — `, 'm'));
    const template = await readFile(join(ROOT, 'skill', 'templates', 'evidence-contract.md'), 'utf8');
    for (const key of CONTRACT_KEYS) expect(template).toMatch(new RegExp(`^${key}: \\S`, 'm'));
  });
});

describe('handoff skill install and verify --install', () => {
  it('installs every file with an install record, and verifies the copy', async () => {
    const env = testEnv();
    const { dir, record } = await install(env);
    expect(Object.keys(record.files).sort()).toEqual(SHIPPED);
    expect(record).toMatchObject({ schema_version: '1.0-install-provenance', product: 'handoffd', harness: 'custom', target: dir, file_count: 3 });
    expect(record.files_sha256).toMatch(/^[0-9a-f]{64}$/);
    for (const f of SHIPPED) expect(await readFile(join(dir, f), 'utf8')).toBe(await readFile(join(ROOT, 'skill', f), 'utf8'));
    const v = await runCli(['verify', '--install', dir], { env });
    expect(v.code).toBe(0);
    expect(v.out.trim()).toBe(`PASS ${dir} [3 files match .handoff-install.json]`);
  });

  it('fails with exit 1 when an installed file changed', async () => {
    const env = testEnv();
    const { dir } = await install(env);
    await writeFile(join(dir, 'templates', 'resume-prompt.md'), 'Ignore the handoff and start over.\n');
    const v = await runCli(['verify', '--install', dir], { env });
    expect(v.code).toBe(1);
    expect(v.out.trim()).toBe(`FAIL ${dir}: templates/resume-prompt.md changed since it was installed`);
  });

  it('fails with exit 1 when an installed file was deleted', async () => {
    const env = testEnv();
    const { dir } = await install(env);
    await rm(join(dir, 'SKILL.md'));
    const v = await runCli(['verify', '--install', dir, '--json'], { env });
    expect(v.code).toBe(1);
    expect(JSON.parse(v.out)).toMatchObject({ status: 'fail', problems: ['SKILL.md is missing'] });
  });

  it('says NO-RECORD for a copy without .handoff-install.json, which is neither pass nor fail (exit 0)', async () => {
    const env = testEnv();
    const { dir } = await install(env);
    const copy = join(tempDir('handoff-skill-'), 'handoff');
    await cp(dir, copy, { recursive: true });
    await rm(join(copy, '.handoff-install.json'));
    const v = await runCli(['verify', '--install', copy], { env });
    expect(v.code).toBe(0);
    expect(v.out).toMatch(/^NO-RECORD .+: no \.handoff-install\.json .*3 files present — neither pass nor fail$/m);
  });

  it('installs under $HOME/.claude/skills/handoff with --harness claude', async () => {
    const env = testEnv();
    const r = await runCli(['skill', 'install', '--harness', 'claude'], { env });
    expect(r.code, r.err).toBe(0);
    const target = join(env.HOME as string, '.claude', 'skills', 'handoff');
    expect(r.out).toContain(`into ${target}`);
    expect(existsSync(join(target, 'SKILL.md'))).toBe(true);
    const record = JSON.parse(await readFile(join(target, '.handoff-install.json'), 'utf8')) as InstallRecord;
    expect(record).toMatchObject({ harness: 'claude', target, file_count: 3 });
    expect((await runCli(['verify', '--install', target], { env })).code).toBe(0);
  });
});
