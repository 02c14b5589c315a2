import { shellWord } from '../core/harness/extract.js';
import { createHash } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { access, mkdir, readFile, realpath, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { SettingsError } from '../errors.js';
import type { CodexSupport } from './codex.js';
import type { HookEntry, JsonObject, MergeResult, Plan, Present } from './settings.js';
import { hasAnyOurs, inspect, isOurCommand, mergeHooks, parseSettings, removeHooks, serialize, textStyle } from './settings.js';

/**
 * `handoff hooks install | uninstall | status`: handoff's hook entries merged into a harness's
 * settings file without disturbing anything else in it. Every change writes a backup first and
 * replaces the file atomically; the install record beside it says exactly what was added, so
 * `uninstall` takes out only that — and puts the original bytes back when nothing else changed.
 */

export type Harness = 'claude' | 'codex';
export type Scope = 'user' | 'project';
export const RECORD_NAME = '.handoff-hooks.json';
export const RECORD_SCHEMA = '1.0-hooks-install';
/** Seconds a harness lets one of our hooks run; the hooks keep to a far smaller budget themselves. */
export const HOOK_TIMEOUT_S = 10;

export interface Target {
  harness: Harness;
  scope: Scope;
  /** settings.json (Claude Code) or hooks.json (Codex). */
  settings: string;
  record: string;
}

export function claudeDir(env: NodeJS.ProcessEnv, home: string): string {
  const first = (env.CLAUDE_CONFIG_DIR ?? '').split(',').map((s) => s.trim()).find((s) => s.length > 0);
  return first ?? join(home, '.claude');
}

export function codexDir(env: NodeJS.ProcessEnv, home: string): string {
  return env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(home, '.codex');
}

export function targetFor(harness: Harness, scope: Scope, env: NodeJS.ProcessEnv, home: string, projectRoot: string): Target {
  const dir = scope === 'user' ? (harness === 'claude' ? claudeDir(env, home) : codexDir(env, home)) : join(projectRoot, harness === 'claude' ? '.claude' : '.codex');
  return { harness, scope, settings: join(dir, harness === 'claude' ? 'settings.json' : 'hooks.json'), record: join(dir, RECORD_NAME) };
}

/** A word for a POSIX shell (both harnesses run the command through one). */
export { shellWord };

export interface CommandParts {
  node: string;
  cli: string;
  /** `--root DIR` when the store was chosen on the command line. */
  root: string | null;
  /**
   * The status line in POSIX sh (hooks/handoff-statusline.sh) and the store's runtime folder it
   * reads; absent or null: the Node status line (`handoff hook statusline`), as on Windows.
   */
  shellStatusLine?: { script: string; runDir: string } | null;
}

/** The status line Claude Code runs: the shell script when there is one, else the Node hook. */
export function statusLineCommand(parts: CommandParts): string {
  const sh = parts.shellStatusLine;
  return sh ? ['sh', sh.script, sh.runDir].map(shellWord).join(' ') : hookCommand(parts, 'claude', 'statusline');
}

export function hookCommand(parts: CommandParts, harness: Harness, event: 'session-start' | 'pre-compact' | 'statusline'): string {
  const words = [parts.node, parts.cli, 'hook', event];
  if (harness === 'codex') words.push('--harness', 'codex');
  if (parts.root !== null) words.push('--root', parts.root);
  return words.map(shellWord).join(' ');
}

/** What goes into the file: the events this harness (and version) runs, and the status line. */
export function planFor(harness: Harness, parts: CommandParts, codex: CodexSupport | null): Plan {
  if (harness === 'claude') {
    return {
      entries: [
        { event: 'SessionStart', matcher: 'startup|resume|clear|compact', command: hookCommand(parts, 'claude', 'session-start'), timeout: HOOK_TIMEOUT_S },
        { event: 'PreCompact', matcher: null, command: hookCommand(parts, 'claude', 'pre-compact'), timeout: HOOK_TIMEOUT_S },
      ],
      statusLine: statusLineCommand(parts),
    };
  }
  if (!codex?.hooks) return { entries: [], statusLine: null };
  const entries: HookEntry[] = [{ event: 'SessionStart', matcher: codex.sources.join('|'), command: hookCommand(parts, 'codex', 'session-start'), timeout: HOOK_TIMEOUT_S }];
  if (codex.preCompact) entries.push({ event: 'PreCompact', matcher: null, command: hookCommand(parts, 'codex', 'pre-compact'), timeout: HOOK_TIMEOUT_S });
  return { entries, statusLine: null };
}

export interface InstallRecord {
  schema_version: typeof RECORD_SCHEMA;
  product: 'handoffd';
  version: string;
  installed_at: string;
  harness: Harness;
  scope: Scope;
  settings: string;
  /**
   * The file before handoff first changed it: whether it existed, its sha256, where its bytes were
   * kept, and whether putting them back removes handoff entirely (false when it already held
   * entries of an install that left no record).
   */
  before: { existed: boolean; sha256: string | null; backup: string | null; hooks_key: boolean; created_dir: boolean; restorable: boolean };
  /** sha256 of the file as the install left it: uninstall restores `before` byte for byte when it still matches. */
  after_sha256: string;
  entries: HookEntry[];
  status_line: string | null;
  codex: { version: string | null; feature_key: string; compact_source: boolean } | null;
}

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

async function readMaybe(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SettingsError(`cannot read ${path}: ${(e as Error).message}`, { hint: 'fix its permissions, or install into another file with --scope', cause: e });
  }
}

export async function readRecord(target: Target): Promise<InstallRecord | null> {
  const raw = await readMaybe(target.record);
  if (raw === null) return null;
  try {
    const r = JSON.parse(raw.toString('utf8')) as InstallRecord;
    return r.schema_version === RECORD_SCHEMA ? r : null;
  } catch {
    return null;
  }
}

function parseOrThrow(path: string, bytes: Buffer | null): { doc: JsonObject; text: string } {
  const text = bytes === null ? '' : bytes.toString('utf8');
  const p = parseSettings(text);
  if (!p.ok) {
    throw new SettingsError(`${path}: cannot add hooks: ${p.why}`, {
      hint: `fix the file so it parses (e.g. \`node -e "JSON.parse(require('fs').readFileSync('${path}','utf8'))"\`), or run with --dry-run and add the printed entries by hand`,
      details: { file: path },
    });
  }
  return { doc: p.doc, text };
}

/** Refuses a file the user made read-only (by its mode, so it holds for root too). */
async function assertWritable(path: string): Promise<void> {
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch {
    return;
  }
  const writable = (mode & 0o200) !== 0 && (await access(path, constants.W_OK).then(() => true, () => false));
  if (!writable) {
    throw new SettingsError(`${path} is read-only (mode ${(mode & 0o777).toString(8)}): nothing was changed`, {
      hint: `make it writable (chmod u+w ${shellWord(path)}) and run the command again, or run with --dry-run and add the printed entries by hand`,
      details: { file: path },
    });
  }
}

/**
 * Replaces the file atomically, through a symlink to its real place (dotfile managers link
 * settings files), keeping its mode. The file is read again first: if the harness (or the user)
 * wrote it meanwhile, nothing is written.
 */
async function replace(path: string, expected: Buffer | null, next: string, newMode: number): Promise<void> {
  const now = await readMaybe(path);
  if ((now === null) !== (expected === null) || (now !== null && expected !== null && !now.equals(expected))) {
    throw new SettingsError(`${path} changed while handoff was editing it: nothing was written`, { hint: 'run the command again', details: { file: path } });
  }
  const real = now === null ? path : await realpath(path);
  const mode = now === null ? newMode : (await stat(real)).mode & 0o7777;
  try {
    writeFileAtomic.sync(real, next, { mode, fsync: true });
  } catch (e) {
    throw new SettingsError(`cannot write ${real}: ${(e as Error).message}`, { hint: 'check the permissions of its folder; the file was not changed', cause: e, details: { file: real } });
  }
}

function stamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

export interface InstallReport {
  target: Target;
  dryRun: boolean;
  merge: MergeResult;
  /** The file's new text (what --dry-run prints). */
  text: string;
  backup: string | null;
  record: InstallRecord | null;
}

export interface InstallOptions {
  target: Target;
  plan: Plan;
  dryRun: boolean;
  now: Date;
  version: string;
  codex: CodexSupport | null;
}

export async function install(o: InstallOptions): Promise<InstallReport> {
  const { target, plan } = o;
  const before = await readMaybe(target.settings);
  const { doc, text } = parseOrThrow(target.settings, before);
  const merge = mergeHooks(doc, plan);
  const next = merge.changed ? serialize(merge.doc, textStyle(text)) : text;
  const prev = await readRecord(target);
  const report: InstallReport = { target, dryRun: o.dryRun, merge, text: next, backup: null, record: prev };
  if (o.dryRun || !merge.changed) return report;
  await assertWritable(target.settings);
  const dir = dirname(target.settings);
  const createdDir = !existsSync(dir);
  if (createdDir) await mkdir(dir, { recursive: true });
  if (before !== null) {
    report.backup = `${target.settings}.handoff-backup-${stamp(o.now)}`;
    writeFileAtomic.sync(report.backup, before, { mode: 0o600 });
  }
  await replace(target.settings, before, next, 0o600);
  // An install over an earlier one, with nothing else changed since, keeps the first one's
  // `before`: that is still the file to restore.
  const untouched = prev !== null && before !== null && sha256(before) === prev.after_sha256;
  const record: InstallRecord = {
    schema_version: RECORD_SCHEMA,
    product: 'handoffd',
    version: o.version,
    installed_at: o.now.toISOString(),
    harness: target.harness,
    scope: target.scope,
    settings: target.settings,
    before: untouched && prev
      ? prev.before
      : { existed: before !== null, sha256: before === null ? null : sha256(before), backup: report.backup, hooks_key: 'hooks' in doc, created_dir: createdDir, restorable: !hasAnyOurs(doc) },
    after_sha256: sha256(next),
    entries: plan.entries,
    status_line: merge.statusLine === 'added' || merge.statusLine === 'updated' || merge.statusLine === 'present' ? plan.statusLine : null,
    codex: o.codex ? { version: o.codex.version, feature_key: o.codex.featureKey, compact_source: o.codex.compactSource } : null,
  };
  writeFileAtomic.sync(target.record, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o644 });
  report.record = record;
  return report;
}

export interface UninstallReport {
  target: Target;
  dryRun: boolean;
  /** restored: the original bytes are back; edited: our entries were taken out of a file changed since; nothing: none were there. */
  how: 'restored' | 'deleted' | 'edited' | 'nothing';
  removed: number;
  statusLineRemoved: boolean;
  text: string | null;
  /** A backup left in place (after an edit, the user may want it). */
  keptBackup: string | null;
}

export async function uninstall(target: Target, dryRun: boolean): Promise<UninstallReport> {
  const record = await readRecord(target);
  const current = await readMaybe(target.settings);
  const out: UninstallReport = { target, dryRun, how: 'nothing', removed: 0, statusLineRemoved: false, text: current?.toString('utf8') ?? null, keptBackup: null };
  const backup = record?.before.backup ?? null;
  const original = backup ? await readMaybe(backup) : null;
  const untouched = record !== null && current !== null && sha256(current) === record.after_sha256;
  if (untouched && record.before.restorable && (!record.before.existed || (original !== null && sha256(original) === record.before.sha256))) {
    out.how = record.before.existed ? 'restored' : 'deleted';
    out.removed = record.entries.length;
    out.statusLineRemoved = record.status_line !== null;
    out.text = original?.toString('utf8') ?? null;
    if (dryRun) return out;
    await assertWritable(target.settings);
    if (original !== null) await replace(target.settings, current, original.toString('utf8'), 0o600);
    else await unlink(target.settings);
    if (backup) await unlink(backup).catch(() => undefined);
    await unlink(target.record).catch(() => undefined);
    // A folder the install created goes too, when nothing else has been put in it since.
    if (!record.before.existed && record.before.created_dir) await rmdir(dirname(target.settings)).catch(() => undefined);
    return out;
  }
  if (current === null) {
    if (!dryRun && record) await unlink(target.record).catch(() => undefined);
    return out;
  }
  // The file changed since the install (or there is no record): take out our entries only.
  const { doc, text } = parseOrThrow(target.settings, current);
  // With a record, exactly what it lists; without one, any command of handoff's.
  const listed = new Set(record ? [...record.entries.map((e) => e.command), ...(record.status_line ? [record.status_line] : [])] : []);
  const r = removeHooks(doc, record ? (c) => listed.has(c) : isOurCommand, record ? record.before.hooks_key : true);
  out.removed = r.removed;
  out.statusLineRemoved = r.statusLineRemoved;
  if (r.removed === 0 && !r.statusLineRemoved) {
    if (!dryRun && record) await unlink(target.record).catch(() => undefined);
    return out;
  }
  out.how = 'edited';
  out.text = serialize(r.doc, textStyle(text));
  out.keptBackup = backup !== null && existsSync(backup) ? backup : null;
  if (dryRun) return out;
  await assertWritable(target.settings);
  await replace(target.settings, current, out.text, 0o600);
  if (record) await unlink(target.record).catch(() => undefined);
  return out;
}

export interface HookStatus {
  target: Target;
  exists: boolean;
  /** Why the file could not be read as settings, if it could not. */
  error: string | null;
  present: Present | null;
  record: InstallRecord | null;
  /** The programs the installed commands start, and whether they are still there. */
  programs: { path: string; exists: boolean }[];
  /** The store folder the installed shell status line reads, when it is not the configured one's. */
  otherStore: string | null;
}

/** The words of a command as a POSIX shell splits them (plain words and '…' quoting, as shellWord writes). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const m of command.matchAll(/(?:'[^']*'|\\'|[^\s'])+/g)) words.push(m[0].replace(/'([^']*)'|\\'/g, (_s, q: string | undefined) => q ?? "'"));
  return words;
}

/**
 * Judged against what the install record says was installed (the Codex entries depend on the
 * version installed for), else against what an install would write now.
 */
export async function hookStatus(target: Target, current: Plan, parts: CommandParts): Promise<HookStatus> {
  const record = await readRecord(target).catch(() => null);
  const plan: Plan = record ? { entries: record.entries, statusLine: record.status_line } : current;
  const out: HookStatus = { target, exists: false, error: null, present: null, record, programs: [], otherStore: null };
  let bytes: Buffer | null;
  try {
    bytes = await readMaybe(target.settings);
  } catch (e) {
    out.error = (e as Error).message;
    return out;
  }
  out.exists = bytes !== null;
  const p = parseSettings(bytes?.toString('utf8') ?? '');
  if (!p.ok) out.error = `${basename(target.settings)}: ${p.why}`;
  else out.present = inspect(p.doc, plan);
  // The programs the installed commands start: node and the CLI, by absolute path.
  const installed = plan.entries[0]?.command;
  const programs = installed ? shellWords(installed).slice(0, 2) : [parts.node, parts.cli];
  // The shell status line's script (`sh <script> <run dir>`).
  const line = plan.statusLine === null ? [] : shellWords(plan.statusLine);
  if (line[0] === 'sh' && line[1] !== undefined) programs.push(line[1]);
  const want = parts.shellStatusLine?.runDir;
  if (line[0] === 'sh' && line[2] !== undefined && want !== undefined && line[2] !== want) out.otherStore = line[2];
  out.programs = programs.map((path) => ({ path, exists: existsSync(path) }));
  return out;
}

export const eventLabel = (e: { event: string; matcher: string | null }): string => `${e.event}${e.matcher ? ` (${e.matcher})` : ''}`;

export type Verdict = 'installed' | 'partial' | 'absent' | 'broken';

/** What `hooks status` and `doctor` say of one settings file. */
export function statusVerdict(r: HookStatus): { verdict: Verdict; detail: string } {
  if (r.error) return { verdict: 'broken', detail: r.error };
  const p = r.present;
  const have = p?.entries.filter((e) => e.present).length ?? 0;
  const want = p?.entries.length ?? 0;
  const missingProgram = r.programs.find((x) => !x.exists);
  if (have === 0 && p?.statusLine !== 'ours' && (p?.strays.length ?? 0) === 0) return { verdict: 'absent', detail: r.exists ? 'no entries of handoff' : 'no such file' };
  if (missingProgram) return { verdict: 'broken', detail: `${missingProgram.path} does not exist any more: run \`handoff hooks install\` again` };
  if (r.otherStore !== null && p?.statusLine === 'ours') return { verdict: 'partial', detail: `the status line reads ${r.otherStore}, not the configured store's folder: run \`handoff hooks install\` again` };
  if ((p?.strays.length ?? 0) > 0) return { verdict: 'partial', detail: `an older install's command is there (${p?.strays[0] ?? ''}): run \`handoff hooks install\` again` };
  if (have < want) return { verdict: 'partial', detail: `${have} of ${want} entries present: run \`handoff hooks install\` again` };
  const line = r.target.harness === 'claude' ? `; status line ${p?.statusLine === 'ours' ? 'handoff\'s' : p?.statusLine === 'other' ? 'yours (kept)' : 'none'}` : '';
  return { verdict: 'installed', detail: `${p?.entries.map((e) => eventLabel(e.entry)).join(', ')}${line}${r.record ? '' : '; no install record'}` };
}

