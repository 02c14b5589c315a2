import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { homeDir } from '../../config.js';
import { EXIT, UsageError } from '../../errors.js';
import { CLI_PATH } from '../../paths.js';
import type { Action, Plan, ServiceContext, ServiceStatus } from '../../service/manage.js';
import { ServiceError } from '../../errors.js';
import { applyPlan, choosePlatform, planInstall, planUninstall, serviceStatus } from '../../service/manage.js';
import type { Parsed } from '../args.js';
import { bool, str } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { loadConfig } from '../store.js';

const SUBCOMMANDS = ['install', 'uninstall', 'status'] as const;
/** launchd hands agents a bare PATH; this is what it would be without the user's. */
const FALLBACK_PATH = '/usr/local/bin:/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin';

/** The real dist/cli.js: a unit must survive the npm-link or symlink it was reached through. */
function realCli(): string {
  try {
    return realpathSync(CLI_PATH);
  } catch (e) {
    throw new ServiceError(`the built CLI is missing: expected ${CLI_PATH}`, { hint: 'run `npm run build` in the handoffd folder first', cause: e });
  }
}

/** The user's PATH without empty or repeated entries (shell profiles often add the same one twice). */
function searchPath(path: string | undefined): string {
  const dirs = [...new Set((path ?? '').split(':').filter((d) => d.length > 0))];
  return dirs.length > 0 ? dirs.join(':') : FALLBACK_PATH;
}

export function serviceContext(io: Io, args: Parsed): ServiceContext {
  const platform = choosePlatform(str(args, 'platform'), process.platform);
  const home = homeDir(io.env);
  const { root } = loadConfig(io, args);
  return {
    platform,
    env: io.env,
    uid: process.getuid?.() ?? 0,
    node: process.execPath,
    cli: realCli(),
    home,
    // Pinned only when it differs: the daemon finds the default store on its own.
    root: root === join(home, '.handoffs') ? null : root,
    path: searchPath(io.env.PATH),
  };
}

function actionLines(a: Action): string[] {
  if (a.action === 'mkdir') return [`mkdir -p ${a.path}`];
  if (a.action === 'remove') return [`rm ${a.path}`];
  if (a.action === 'write') return [`write ${a.path}:`, ...a.content.replace(/\n$/, '').split('\n').map((l) => `    ${l}`)];
  const tail = [a.optional ? 'failure ignored' : '', a.bestEffort ? 'a failure is reported, the rest goes on' : '', a.fallback ? `if it fails: ${a.fallback.join(' ')}` : ''].filter(Boolean).join('; ');
  return [`${a.argv.join(' ')}${tail ? `    (${tail})` : ''}`];
}

function printPlan(io: Io, plan: Plan, verb: string, dryRun: boolean, json: boolean, warnings: readonly { message: string; fix: string }[]): void {
  if (json) {
    io.out(JSON.stringify({ ...plan, dry_run: dryRun, done: !dryRun, warnings }, null, 2));
    return;
  }
  const head = `platform=${plan.platform} manager=${plan.manager} unit=${plan.unit}`;
  if (plan.actions.length === 0) {
    io.out(`${head}\nnot installed: nothing to ${verb}`);
    return;
  }
  const steps = plan.actions.flatMap((a, i) => actionLines(a).map((l, j) => (j === 0 ? `  ${i + 1}. ${l}` : `     ${l}`)));
  io.out([head, dryRun ? `--dry-run: would do, and nothing was changed:` : warnings.length > 0 ? `done, except what is said below:` : `done:`, ...steps].join('\n'));
}

function printStatus(io: Io, s: ServiceStatus, json: boolean): void {
  if (json) {
    io.out(JSON.stringify(s, null, 2));
    return;
  }
  const shown = (v: string, state: string | null): string => (state && state !== v ? `${v} (${state})` : v);
  io.out(
    [
      `platform=${s.platform}`,
      `manager=${s.manager}`,
      `unit=${s.unit}`,
      `installed=${s.installed ? 'yes' : 'no'}`,
      `enabled=${shown(s.enabled, s.enabled_state)}`,
      `active=${shown(s.active, s.active_state)}`,
      ...s.notes.map((n) => `note=${n}`),
    ].join('\n'),
  );
}

export const serviceCommand: Command = {
  name: 'service',
  summary: 'install, remove or inspect the daemon as a user service (systemd or launchd)',
  usage: 'handoff service install|uninstall|status [--dry-run] [--json]',
  example: 'handoff service install --dry-run',
  details:
    'install renders systemd/handoffd.service (Linux, user unit in ~/.config/systemd/user) or\n' +
    'launchd/dev.handoffd.daemon.plist (macOS, ~/Library/LaunchAgents) with this node and this CLI,\n' +
    'writes it and starts it; uninstall stops and removes it; status asks the service manager.\n' +
    'A store root other than ~/.handoffs (--root, HANDOFFS_ROOT, config) is pinned in the unit.',
  options: {
    'dry-run': { type: 'boolean', description: 'print the file it would write and the commands it would run; change nothing' },
    platform: { type: 'string', arg: 'P', description: 'linux or darwin instead of this machine\'s (for testing and packaging, with --dry-run)' },
  },
  async run(io, args) {
    const [sub, extra] = args.positionals;
    if (sub === undefined || !(SUBCOMMANDS as readonly string[]).includes(sub) || extra !== undefined) {
      const found = sub === undefined ? 'nothing' : `"${args.positionals.join(' ')}"`;
      throw new UsageError(`handoff service: expected one of ${SUBCOMMANDS.join(', ')}, found ${found}`, { hint: `usage: ${serviceCommand.usage}` });
    }
    const json = bool(args, 'json');
    const dryRun = bool(args, 'dry-run');
    const ctx = serviceContext(io, args);
    if (sub === 'status') {
      // status changes nothing, so --dry-run (which SPEC §11 allows on every subcommand) is the same call.
      printStatus(io, await serviceStatus(ctx), json);
      return EXIT.OK;
    }
    const plan = sub === 'install' ? planInstall(ctx) : planUninstall(ctx);
    const warnings = dryRun ? [] : await applyPlan(plan, io.env);
    printPlan(io, plan, sub, dryRun, json, warnings);
    for (const w of warnings) io.err(`handoff service ${sub}: ${w.message}${w.fix ? `\n  fix: ${w.fix}` : ''}`);
    return EXIT.OK;
  },
};
