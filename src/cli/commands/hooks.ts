import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { expandHome, homeDir, resolveConfig } from '../../config.js';
import type { HookFact } from '../../doctor/checks.js';
import { EXIT, UsageError } from '../../errors.js';
import { GitProbe } from '../../git/evidence.js';
import type { CodexSupport } from '../../hooks/codex.js';
import { codexFeatureFlag, codexSupport, codexVersion } from '../../hooks/codex.js';
import type { CommandParts, Harness, HookStatus, InstallReport, Scope, UninstallReport } from '../../hooks/install.js';
import { codexDir, eventLabel, hookStatus, install, planFor, shellWords, statusLineCommand, statusVerdict, targetFor, uninstall } from '../../hooks/install.js';
import { CLI_PATH, packageVersion, STATUSLINE_SCRIPT } from '../../paths.js';
import { Layout } from '../../store/layout.js';
import type { Parsed } from '../args.js';
import { bool, str } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { paint } from '../io.js';

const HARNESSES: readonly Harness[] = ['claude', 'codex'];
const SCOPES: readonly Scope[] = ['user', 'project'];
const NAME: Record<Harness, string> = { claude: 'Claude Code', codex: 'Codex' };

export const hooksCommand: Command = {
  name: 'hooks',
  maxArgs: 1,
  summary: 'install the hooks that give Claude Code or Codex its handoff back after a compaction',
  usage: 'handoff hooks install|uninstall|status [--harness claude|codex] [--scope user|project] [--dry-run] [--json]',
  example: 'handoff hooks install --dry-run',
  details: [
    'Merges handoff\'s entries into Claude Code\'s settings.json (user: $CLAUDE_CONFIG_DIR or ~/.claude; project:',
    '.claude/ at the repository\'s top) or Codex\'s hooks.json (~/.codex, or .codex/ in the project), keeping',
    'everything else in the file. A backup is written first and the file is replaced atomically; running it again',
    'changes nothing; an existing statusLine is never replaced. `uninstall` takes out exactly what `install` added',
    '(and restores the original bytes when nothing else changed). docs/HOOKS.md says what each hook does.',
  ].join('\n'),
  options: {
    harness: { type: 'string', arg: 'H', description: 'claude (default) or codex' },
    scope: { type: 'string', arg: 'S', description: 'user (default) or project' },
    'dry-run': { type: 'boolean', description: 'print what would change, change nothing' },
    'codex-version': { type: 'string', arg: 'V', description: 'the Codex version to install for (default: ask `codex --version`)' },
    statusline: { type: 'string', arg: 'KIND', description: 'shell (default: a POSIX sh script, no Node per refresh) or node (`handoff hook statusline`; the default on Windows)' },
  },
  async run(io, args) {
    const [sub] = args.positionals;
    if (sub !== 'install' && sub !== 'uninstall' && sub !== 'status') {
      throw new UsageError(`handoff hooks: expected install, uninstall or status, found ${sub === undefined ? 'nothing' : `"${sub}"`}`, { hint: `usage: ${hooksCommand.usage}` });
    }
    const harness = choice(args, 'harness', HARNESSES, 'claude');
    const scope = choice(args, 'scope', SCOPES, 'user');
    const parts = commandParts(io, args);
    const projectRoot = (await new GitProbe({ enabled: true, timeoutMs: 3000 }).topLevel(io.cwd)) ?? io.cwd;
    if (sub === 'status') return status(io, args, parts, projectRoot);
    const target = targetFor(harness, scope, io.env, homeDir(io.env), projectRoot);
    const codex = harness === 'codex' ? codexSupport(str(args, 'codex-version') ?? (await codexVersion(io.env))) : null;
    if (sub === 'uninstall') return printUninstall(io, args, await uninstall(target, bool(args, 'dry-run')));
    if (codex && !codex.hooks) {
      io.err(`handoff: ${codex.notes.join('; ')}`);
      return EXIT.FAILED;
    }
    const report = await install({ target, plan: planFor(harness, parts, codex), dryRun: bool(args, 'dry-run'), now: io.now(), version: packageVersion(), codex });
    return printInstall(io, args, report, codex, statusLineCommand(parts));
  },
};

function choice<T extends string>(args: Parsed, name: string, allowed: readonly T[], fallback: T): T {
  const v = str(args, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new UsageError(`handoff hooks: --${name} must be one of ${allowed.join(', ')}, found "${v}"`, { hint: `usage: ${hooksCommand.usage}` });
  return v as T;
}

const STATUS_LINE_KINDS = ['shell', 'node'] as const;

/** The hooks run this very node and CLI by absolute path: harnesses start them without your shell's PATH. */
function commandParts(io: Io, args: Parsed): CommandParts {
  const flag = str(args, 'root');
  const root = flag === undefined ? null : resolve(io.cwd, expandHome(flag, io.env));
  const kind = choice(args, 'statusline', STATUS_LINE_KINDS, process.platform === 'win32' ? 'node' : 'shell');
  return { node: process.execPath, cli: CLI_PATH, root, shellStatusLine: kind === 'shell' ? shellParts(io, flag) : null };
}

/**
 * The shell status line cannot read the configuration: the store it reads is fixed now, at
 * install (a store moved later needs `handoff hooks install` again; `doctor` says so). A config
 * that does not resolve leaves the Node status line, which resolves it on every run.
 */
function shellParts(io: Io, rootFlag: string | undefined): CommandParts['shellStatusLine'] {
  try {
    const config = resolveConfig({ cwd: io.cwd, env: io.env, rootFlag });
    return { script: STATUSLINE_SCRIPT, runDir: new Layout(config.root).runtimeDir };
  } catch {
    return null;
  }
}


function chainHint(existing: string, ours: string): string {
  return `kept your statusLine (${existing}); to show handoff's line too, make it run both, e.g. a script: input=$(cat); printf '%s | %s\\n' "$(printf '%s' "$input" | ${existing})" "$(printf '%s' "$input" | ${ours})"`;
}

function printInstall(io: Io, args: Parsed, r: InstallReport, codex: CodexSupport | null, ours: string): number {
  const { target, merge } = r;
  if (bool(args, 'json')) {
    io.out(JSON.stringify({ target, dry_run: r.dryRun, changed: merge.changed, added: merge.added, updated: merge.updated, present: merge.present, status_line: merge.statusLine, existing_status_line: merge.existingStatusLine, backup: r.backup, record: r.record, codex, ...(r.dryRun ? { text: r.text } : {}) }, null, 2));
    return EXIT.OK;
  }
  const verb = r.dryRun ? 'would install' : merge.changed ? 'installed' : 'already installed';
  const out = [`${verb} handoff's hooks for ${NAME[target.harness]} (${target.scope}) in ${target.settings}${!r.dryRun && !merge.changed ? ': nothing changed' : ''}`];
  for (const e of merge.added) out.push(`  ${eventLabel(e)}: ${r.dryRun ? 'to add' : 'added'}`);
  for (const e of merge.updated) out.push(`  ${eventLabel(e)}: ${r.dryRun ? 'to update' : 'updated'} (an earlier install ran another command)`);
  for (const e of merge.present) out.push(`  ${eventLabel(e)}: present`);
  if (target.harness === 'claude') {
    if (merge.statusLine === 'kept-existing') out.push(`  statusLine: ${chainHint(merge.existingStatusLine ?? '?', ours)}`);
    else out.push(`  statusLine: ${merge.statusLine === 'added' ? (r.dryRun ? 'to add' : 'added') : merge.statusLine === 'updated' ? 'updated' : 'present'}`);
  }
  if (r.backup) out.push(`backup of the previous file: ${r.backup}`);
  if (r.record && !r.dryRun && merge.changed) out.push(`install record: ${target.record} (\`handoff hooks status\` and \`handoff doctor\` check it)`);
  if (codex) out.push(...codexNotes(codex));
  else if (!r.dryRun && merge.changed) out.push('Claude Code reads its settings when a session starts: sessions already running pick the hooks up after a restart.');
  if (r.dryRun) out.push('', `${target.settings} would become:`, r.text.trimEnd());
  io.out(out.join('\n'));
  return EXIT.OK;
}

function codexNotes(c: CodexSupport): string[] {
  return [
    ...c.notes.map((n) => `note: ${n}`),
    `Codex ${c.version ?? '(version unknown)'}: hooks must be on — \`[features] ${c.featureKey} = true\` in config.toml (recent versions have them on by default).`,
    'Codex runs a new hook only once you have reviewed and trusted it: accept handoff\'s hooks when Codex lists them.',
    c.compactSource ? 'After a compaction Codex runs SessionStart with source "compact": the handoff comes back then.' : 'This Codex version cannot give the handoff back after a compaction by itself.',
  ];
}

function printUninstall(io: Io, args: Parsed, r: UninstallReport): number {
  if (bool(args, 'json')) {
    io.out(JSON.stringify(r, null, 2));
    return EXIT.OK;
  }
  const where = `${NAME[r.target.harness]} (${r.target.scope}), ${r.target.settings}`;
  const pre = r.dryRun ? 'would ' : '';
  const lines: Record<UninstallReport['how'], string> = {
    restored: `${pre}${r.dryRun ? 'restore' : 'restored'} the file as it was before \`handoff hooks install\`, byte for byte: ${where}`,
    deleted: `${pre}${r.dryRun ? 'remove' : 'removed'} ${r.target.settings}: \`handoff hooks install\` had created it`,
    edited: `${pre}${r.dryRun ? 'take' : 'took'} out handoff's ${r.removed} hook entr${r.removed === 1 ? 'y' : 'ies'}${r.statusLineRemoved ? ' and its statusLine' : ''}: ${where} (the rest of the file changed since the install and is kept)`,
    nothing: `no hooks of handoff in ${where}: nothing to do`,
  };
  const out = [lines[r.how]];
  if (r.keptBackup) out.push(`the backup written at install is still there: ${r.keptBackup}`);
  if (r.dryRun && r.text !== null && r.how !== 'nothing') out.push('', `${r.target.settings} would become:`, r.text.trimEnd());
  io.out(out.join('\n'));
  return EXIT.OK;
}

async function status(io: Io, args: Parsed, parts: CommandParts, projectRoot: string): Promise<number> {
  const harnesses = str(args, 'harness') ? [choice(args, 'harness', HARNESSES, 'claude')] : HARNESSES;
  const scopes = str(args, 'scope') ? [choice(args, 'scope', SCOPES, 'user')] : SCOPES;
  const rows: HookStatus[] = [];
  for (const h of harnesses) {
    const codex = h === 'codex' ? codexSupport(str(args, 'codex-version') ?? (await codexVersion(io.env))) : null;
    for (const s of scopes) {
      const target = targetFor(h, s, io.env, homeDir(io.env), projectRoot);
      // In the home folder the project's file is the user's file.
      if (!rows.some((r) => r.target.settings === target.settings)) rows.push(await hookStatus(target, planFor(h, parts, codex), parts));
    }
  }
  const flag = harnesses.includes('codex') ? await codexFeatureFlag(join(codexDir(io.env, homeDir(io.env)), 'config.toml')) : null;
  if (bool(args, 'json')) {
    io.out(JSON.stringify({ targets: rows, codex_feature_flag: flag }, null, 2));
    return EXIT.OK;
  }
  io.out(rows.map((r) => describeStatus(io, r)).join('\n'));
  if (flag && !flag.value) io.out(paint(io, 'yellow', `Codex hooks are turned off in config.toml ([features] ${flag.key} = false): set it to true`));
  return EXIT.OK;
}

function describeStatus(io: Io, r: HookStatus): string {
  const v = statusVerdict(r);
  const colour = v.verdict === 'installed' ? 'green' : v.verdict === 'absent' ? 'gray' : 'yellow';
  return `${paint(io, colour, v.verdict.padEnd(9))} ${NAME[r.target.harness]} (${r.target.scope}) ${r.target.settings}: ${v.detail}`;
}


/** For `handoff doctor`: every settings file the hooks could be in, and a read-only run of the hook. */
export async function hookFacts(io: Io, args: Parsed): Promise<HookFact[]> {
  const parts = commandParts(io, args);
  const projectRoot = (await new GitProbe({ enabled: true, timeoutMs: 3000 }).topLevel(io.cwd)) ?? io.cwd;
  const out: HookFact[] = [];
  let probe: HookFact['probe'] | undefined;
  for (const harness of HARNESSES) {
    // Codex is not asked for its version here: a doctor run must not depend on it.
    const codex = harness === 'codex' ? codexSupport(null) : null;
    for (const scope of SCOPES) {
      const target = targetFor(harness, scope, io.env, homeDir(io.env), projectRoot);
      if (out.some((f) => f.settings === target.settings)) continue;
      const st = await hookStatus(target, planFor(harness, parts, codex), parts);
      const v = statusVerdict(st);
      if (v.verdict === 'installed') probe ??= await probeHook(io, parts);
      out.push({ harness, scope, settings: target.settings, verdict: v.verdict, detail: v.detail, probe: v.verdict === 'installed' ? (probe ?? null) : null });
    }
  }
  return out;
}

const PROBE_TIMEOUT_MS = 5000;

/** Runs the status line as a harness would (it only reads), with a session no store holds. */
function probeHook(io: Io, parts: CommandParts): Promise<NonNullable<HookFact['probe']>> {
  const started = performance.now();
  const [program, ...args] = shellWords(statusLineCommand(parts)) as [string, ...string[]];
  return new Promise((resolveProbe) => {
    const child = execFile(program, args, { env: { ...io.env, NO_COLOR: '1' }, cwd: io.cwd, timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (err, stdout) => {
      const ms = Math.round(performance.now() - started);
      if (err) resolveProbe({ ms, ok: false, error: err.message.split('\n')[0] ?? String(err) });
      else resolveProbe({ ms, ok: stdout.startsWith('handoff'), error: stdout.startsWith('handoff') ? null : `unexpected output ${JSON.stringify(stdout.slice(0, 80))}` });
    });
    child.stdin?.end(JSON.stringify({ session_id: 'handoff-doctor-probe', hook_event_name: 'Status' }));
  });
}
