import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { writeAtomic } from '../store/files.js';

/**
 * The agent skill and its install record (SPEC §12). `install` copies the package's skill/
 * folder into a harness's skills folder and writes `.handoff-install.json` beside SKILL.md;
 * `verifyInstall` re-hashes the copy against that record.
 */

export const RECORD_FILE = '.handoff-install.json';
export const RECORD_SCHEMA = '1.0-install-provenance';
export type SkillHarness = 'claude' | 'codex' | 'agents';
export const SKILL_HARNESSES: readonly SkillHarness[] = ['claude', 'codex', 'agents'];

export interface InstallRecord {
  schema_version: typeof RECORD_SCHEMA;
  product: string;
  version: string;
  installed_at: string;
  harness: SkillHarness | 'custom';
  target: string;
  source: string;
  file_count: number;
  files_sha256: string;
  files: Record<string, string>;
}

export function defaultSkillDir(harness: SkillHarness, env: NodeJS.ProcessEnv, home: string): string {
  switch (harness) {
    case 'claude': {
      const first = (env.CLAUDE_CONFIG_DIR ?? '').split(',').map((s) => s.trim()).find((s) => s.length > 0);
      return join(first ?? join(home, '.claude'), 'skills', 'handoff');
    }
    case 'codex':
      return join(env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(home, '.codex'), 'skills', 'handoff');
    default:
      return join(home, '.agents', 'skills', 'handoff');
  }
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else if (e.isFile() && e.name !== RECORD_FILE) out.push(p);
  }
  return out.sort();
}

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** sha256 over the sorted `path\0sha256\n` lines. */
export function filesDigest(files: Record<string, string>): string {
  return sha(
    Object.keys(files)
      .sort()
      .map((p) => `${p}\0${files[p]}\n`)
      .join(''),
  );
}

export async function hashTree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const f of await walk(dir)) files[relative(dir, f).split(sep).join('/')] = sha(await readFile(f));
  return files;
}

export async function installSkill(opts: { source: string; target: string; harness: SkillHarness | 'custom'; version: string; now: Date }): Promise<InstallRecord> {
  const files = await hashTree(opts.source);
  for (const rel of Object.keys(files)) {
    const to = join(opts.target, ...rel.split('/'));
    await mkdir(join(to, '..'), { recursive: true });
    await copyFile(join(opts.source, ...rel.split('/')), to);
  }
  const record: InstallRecord = {
    schema_version: RECORD_SCHEMA,
    product: 'handoffd',
    version: opts.version,
    installed_at: opts.now.toISOString(),
    harness: opts.harness,
    target: opts.target,
    source: opts.source,
    file_count: Object.keys(files).length,
    files_sha256: filesDigest(files),
    files,
  };
  await writeAtomic(join(opts.target, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`, undefined, true, true);
  return record;
}

export interface InstallCheck {
  status: 'pass' | 'fail' | 'no-record';
  dir: string;
  problems: string[];
  checked: number;
  record: InstallRecord | null;
}

export async function checkInstall(dir: string): Promise<InstallCheck> {
  const out: InstallCheck = { status: 'fail', dir, problems: [], checked: 0, record: null };
  try {
    if (!(await stat(dir)).isDirectory()) throw new Error('not a folder');
  } catch {
    out.problems.push(`${dir} is not a folder`);
    return out;
  }
  const recordPath = join(dir, RECORD_FILE);
  const present = await hashTree(dir);
  if (!existsSync(recordPath)) {
    out.status = 'no-record';
    out.checked = Object.keys(present).length;
    if (!present['SKILL.md']) out.problems.push('SKILL.md is missing');
    return out;
  }
  let record: InstallRecord;
  try {
    record = JSON.parse(await readFile(recordPath, 'utf8')) as InstallRecord;
  } catch (e) {
    out.problems.push(`${RECORD_FILE} is not JSON (${(e as Error).message})`);
    return out;
  }
  out.record = record;
  if (record.schema_version !== RECORD_SCHEMA) out.problems.push(`${RECORD_FILE} has schema_version ${String(record.schema_version)}, expected ${RECORD_SCHEMA}`);
  if (filesDigest(record.files ?? {}) !== record.files_sha256) out.problems.push('files_sha256 does not match the recorded file list (the record was edited)');
  for (const [path, digest] of Object.entries(record.files ?? {})) {
    out.checked += 1;
    if (!(path in present)) out.problems.push(`${path} is missing`);
    else if (present[path] !== digest) out.problems.push(`${path} changed since it was installed`);
  }
  if (record.file_count !== Object.keys(record.files ?? {}).length) out.problems.push('file_count does not match the recorded files');
  out.status = out.problems.length === 0 ? 'pass' : 'fail';
  return out;
}

