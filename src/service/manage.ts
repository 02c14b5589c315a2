import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { ServiceError, UsageError } from '../errors.js';
import { PACKAGE_ROOT } from '../paths.js';
import type { UnitInputs } from './units.js';
import { SERVICE_LABEL, SYSTEMD_UNIT_NAME, launchdLogDir, renderLaunchdPlist, renderSystemdUnit } from './units.js';

/**
 * Installing, removing and asking about the user service (SPEC §10 "Service units"). Every
 * change is first laid out as a plan of actions, so `--dry-run` prints exactly what a real run
 * does; the service managers run through execFile with a timeout and never a shell.
 */

/** A service manager command that has not answered by then is stuck on a bus, not working. */
const COMMAND_TIMEOUT_MS = 20_000;

export type ServicePlatform = 'linux' | 'darwin';
export const SERVICE_PLATFORMS: readonly ServicePlatform[] = ['linux', 'darwin'];

/** The service manager could not be used: missing, no user session, or a command failed. */
export interface ServiceContext extends UnitInputs {
  platform: ServicePlatform;
  env: NodeJS.ProcessEnv;
  uid: number;
}

export type Action =
  | { action: 'mkdir'; path: string }
  | { action: 'write'; path: string; content: string }
  | { action: 'remove'; path: string }
  /**
   * optional: a non-zero exit is expected and ignored; fallback: tried when argv fails;
   * bestEffort: any failure (no manager, no bus, a timeout) is reported and the plan goes on.
   */
  | { action: 'run'; argv: string[]; optional?: boolean; fallback?: string[]; bestEffort?: boolean };

export interface Plan {
  platform: ServicePlatform;
  manager: 'systemd' | 'launchd';
  unit: string;
  actions: Action[];
}

export function choosePlatform(flag: string | undefined, actual: NodeJS.Platform): ServicePlatform {
  const p = flag ?? actual;
  if ((SERVICE_PLATFORMS as readonly string[]).includes(p)) return p as ServicePlatform;
  if (flag !== undefined) throw new UsageError(`handoff service: --platform must be one of ${SERVICE_PLATFORMS.join(', ')}, found "${flag}"`, { hint: 'leave it out to use this machine\'s platform' });
  throw new UsageError(`handoff service: running as a service is supported on linux (systemd) and darwin (launchd), not on ${p}`, {
    hint: "run `handoff daemon` under this OS's own supervisor (it stays in the foreground and stops cleanly on SIGTERM)",
  });
}

/** Where the unit goes. systemd reads user units from $XDG_CONFIG_HOME/systemd/user. */
export function unitPath(ctx: Pick<ServiceContext, 'platform' | 'env' | 'home'>): string {
  if (ctx.platform === 'darwin') return join(ctx.home, 'Library', 'LaunchAgents', `${SERVICE_LABEL}.plist`);
  const xdg = ctx.env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(ctx.home, '.config'), 'systemd', 'user', SYSTEMD_UNIT_NAME);
}

export function renderUnit(ctx: ServiceContext): string {
  if (ctx.platform === 'darwin') return renderLaunchdPlist(readFileSync(join(PACKAGE_ROOT, 'launchd', `${SERVICE_LABEL}.plist`), 'utf8'), ctx);
  return renderSystemdUnit(readFileSync(join(PACKAGE_ROOT, 'systemd', SYSTEMD_UNIT_NAME), 'utf8'), ctx);
}

const systemctl = (...args: string[]): string[] => ['systemctl', '--user', ...args];
const launchTarget = (ctx: ServiceContext): string => `gui/${ctx.uid}/${SERVICE_LABEL}`;

export function planInstall(ctx: ServiceContext): Plan {
  const unit = unitPath(ctx);
  const content = renderUnit(ctx);
  const previous = existsSync(unit) ? readFileSync(unit, 'utf8') : null;
  const write: Action[] = [
    { action: 'mkdir', path: dirname(unit) },
    { action: 'write', path: unit, content },
  ];
  if (ctx.platform === 'linux') {
    const actions: Action[] = [...write, { action: 'run', argv: systemctl('daemon-reload') }, { action: 'run', argv: systemctl('enable', '--now', SYSTEMD_UNIT_NAME) }];
    // enable --now leaves a running daemon on its old command line; a changed unit needs a restart.
    if (previous !== null && previous !== content) actions.push({ action: 'run', argv: systemctl('try-restart', SYSTEMD_UNIT_NAME) });
    return { platform: ctx.platform, manager: 'systemd', unit, actions };
  }
  return {
    platform: ctx.platform,
    manager: 'launchd',
    unit,
    actions: [
      // launchd opens the log files but does not create their folder.
      { action: 'mkdir', path: launchdLogDir(ctx.home) },
      ...write,
      // bootstrap refuses a label that is already loaded, so a reinstall unloads first.
      { action: 'run', argv: ['launchctl', 'bootout', launchTarget(ctx)], optional: true },
      { action: 'run', argv: ['launchctl', 'enable', launchTarget(ctx)], optional: true },
      { action: 'run', argv: ['launchctl', 'bootstrap', `gui/${ctx.uid}`, unit], fallback: ['launchctl', 'load', '-w', unit] },
    ],
  };
}

export function planUninstall(ctx: ServiceContext): Plan {
  const unit = unitPath(ctx);
  const base = { platform: ctx.platform, unit };
  if (!existsSync(unit)) return { ...base, manager: ctx.platform === 'linux' ? 'systemd' : 'launchd', actions: [] };
  if (ctx.platform === 'linux') {
    // The unit file goes even when systemd cannot be reached (no user bus, no systemd at all):
    // what could not be stopped is said, with the fix, instead of leaving the file behind.
    return {
      ...base,
      manager: 'systemd',
      actions: [
        { action: 'run', argv: systemctl('disable', '--now', SYSTEMD_UNIT_NAME), bestEffort: true },
        { action: 'remove', path: unit },
        { action: 'run', argv: systemctl('daemon-reload'), bestEffort: true },
      ],
    };
  }
  return {
    ...base,
    manager: 'launchd',
    // Not loaded is fine when removing, so both ways of unloading may fail.
    actions: [{ action: 'run', argv: ['launchctl', 'bootout', launchTarget(ctx)], optional: true, fallback: ['launchctl', 'unload', '-w', unit] }, { action: 'remove', path: unit }],
  };
}

interface RunResult {
  ok: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
  missing: boolean;
  timedOut: boolean;
}

function run(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  const [cmd, ...args] = argv as [string, ...string[]];
  return new Promise((resolve) => {
    // env is the caller's: it decides which PATH finds systemctl and which session bus is used.
    execFile(cmd, args, { env, timeout: COMMAND_TIMEOUT_MS, windowsHide: true, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (!err) return resolve({ ok: true, code: 0, stdout, stderr, missing: false, timedOut: false });
      const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
      resolve({ ok: false, code: typeof e.code === 'number' ? e.code : null, stdout: String(stdout ?? ''), stderr: String(stderr ?? ''), missing: e.code === 'ENOENT', timedOut: e.killed === true });
    });
  });
}

const NO_BUS = /Failed to connect to (the )?bus|DBUS_SESSION_BUS_ADDRESS|XDG_RUNTIME_DIR|not been booted with systemd/i;

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}

/** Turns a failed manager command into what happened and the fix. */
function failure(argv: readonly string[], r: RunResult, done: string): ServiceError {
  const shown = argv.join(' ');
  const tool = argv[0] ?? '';
  // A half-done install must say what it left behind, so the user knows what to undo or finish.
  const after = done ? ` (already done: ${done})` : '';
  if (r.missing) {
    return new ServiceError(`\`${tool}\` was not found on PATH, so the service cannot be ${tool === 'launchctl' ? 'loaded' : 'started'}${after}`, {
      hint: tool === 'systemctl' ? 'this machine has no systemd: run `handoff daemon` in a terminal or under the supervisor you use' : 'launchd exists only on macOS: use --platform linux, or run `handoff daemon` in a terminal',
    });
  }
  if (r.timedOut) return new ServiceError(`\`${shown}\` did not answer within ${COMMAND_TIMEOUT_MS / 1000} s${after}`, { hint: `run \`${shown}\` yourself to see where it hangs` });
  const said = firstLine(r.stderr) || firstLine(r.stdout) || `exit ${r.code ?? '?'}`;
  if (tool === 'systemctl' && NO_BUS.test(r.stderr)) {
    const booted = existsSync('/run/systemd/system');
    return new ServiceError(`\`${shown}\` could not reach your user service manager: ${said}${after}`, {
      hint: booted
        ? 'run it from a real login session (ssh or desktop, not `su`/`sudo`, so XDG_RUNTIME_DIR is set), or `loginctl enable-linger $USER` so your user manager runs without one; then `handoff service install` again — or run `handoff daemon` in a terminal'
        : 'this machine was not booted with systemd (a container?), so there is no user manager: run `handoff daemon` in a terminal or under the container\'s supervisor',
      details: { command: argv, stderr: r.stderr.trim() },
    });
  }
  const why = tool === 'systemctl' ? '`systemctl --user status handoffd` and `journalctl --user -u handoffd` show why' : `\`launchctl print gui/<uid>/${SERVICE_LABEL}\` and ~/Library/Logs/handoffd/ show why`;
  return new ServiceError(`\`${shown}\` failed: ${said}${after}`, { hint: why, details: { command: argv, exit: r.code, stderr: r.stderr.trim() } });
}

/**
 * Carries out a plan in order; stops at the first failure with what was already done. Returns
 * the failures of best-effort steps, each with its fix.
 */
export async function applyPlan(plan: Plan, env: NodeJS.ProcessEnv): Promise<{ message: string; fix: string }[]> {
  const done: string[] = [];
  const warnings: { message: string; fix: string }[] = [];
  for (const a of plan.actions) {
    if (a.action === 'mkdir') await mkdir(a.path, { recursive: true });
    else if (a.action === 'write') {
      await writeFile(a.path, a.content, { mode: 0o644 });
      done.push(`wrote ${a.path}`);
    } else if (a.action === 'remove') {
      await rm(a.path, { force: true });
      done.push(`removed ${a.path}`);
    } else {
      let r = await run(a.argv, env);
      if (!r.ok && !r.missing && a.fallback) r = await run(a.fallback, env);
      if (!r.ok && (r.missing || r.timedOut || !a.optional)) {
        const f = failure(r.missing || !a.fallback ? a.argv : a.fallback, r, '');
        if (!a.bestEffort) throw failure(r.missing || !a.fallback ? a.argv : a.fallback, r, done.join('; '));
        warnings.push({ message: f.message, fix: f.hint ?? '' });
        continue;
      }
      done.push(`ran ${a.argv.join(' ')}`);
    }
  }
  return warnings;
}

export type YesNo = 'yes' | 'no' | 'unknown';

export interface ServiceStatus {
  platform: ServicePlatform;
  manager: 'systemd' | 'launchd';
  unit: string;
  installed: boolean;
  enabled: YesNo;
  active: YesNo;
  /** The manager's own words (enabled, static, failed, running, ...), when it answered. */
  enabled_state: string | null;
  active_state: string | null;
  /** Why a value is "unknown". */
  notes: string[];
}

/** The manager's one-word answer, if it gave one. */
function word(r: RunResult): string | null {
  const w = firstLine(r.stdout);
  return /^[a-z][a-z-]*$/.test(w) ? w : null;
}

function note(argv: readonly string[], r: RunResult): string {
  if (r.missing) return `${argv[0]} not found on PATH`;
  if (r.timedOut) return `${argv.join(' ')} timed out`;
  return `${argv.join(' ')}: ${firstLine(r.stderr) || `exit ${r.code ?? '?'}`}`;
}

export async function serviceStatus(ctx: ServiceContext): Promise<ServiceStatus> {
  const unit = unitPath(ctx);
  const installed = existsSync(unit);
  const notes: string[] = [];
  if (ctx.platform === 'linux') {
    const enabledArgv = systemctl('is-enabled', SYSTEMD_UNIT_NAME);
    const activeArgv = systemctl('is-active', SYSTEMD_UNIT_NAME);
    const [en, ac] = await Promise.all([run(enabledArgv, ctx.env), run(activeArgv, ctx.env)]);
    // is-enabled exits non-zero for "disabled" too, so the answer is the word, not the exit code.
    let enabledState = word(en);
    if (enabledState === null && !en.missing && /No such file/i.test(en.stderr)) enabledState = 'not-found';
    const activeState = word(ac);
    if (enabledState === null) notes.push(note(enabledArgv, en));
    if (activeState === null) notes.push(note(activeArgv, ac));
    const enabled: YesNo = enabledState === null ? 'unknown' : ['enabled', 'enabled-runtime', 'linked', 'linked-runtime'].includes(enabledState) ? 'yes' : 'no';
    const active: YesNo = activeState === null ? 'unknown' : ['active', 'reloading'].includes(activeState) ? 'yes' : 'no';
    return { platform: ctx.platform, manager: 'systemd', unit, installed, enabled, active, enabled_state: enabledState, active_state: activeState, notes };
  }
  const argv = ['launchctl', 'print', launchTarget(ctx)];
  const r = await run(argv, ctx.env);
  // A loaded agent is what "enabled" means to launchd; "state = running" is the live process.
  const state = r.ok ? (/^\s*state = (\S+)/m.exec(r.stdout)?.[1] ?? 'loaded') : null;
  const notFound = !r.ok && !r.missing && !r.timedOut && /could not find|not found/i.test(r.stderr + r.stdout);
  if (!r.ok && !notFound) notes.push(note(argv, r));
  const enabled: YesNo = r.ok ? 'yes' : notFound ? 'no' : 'unknown';
  const active: YesNo = state === 'running' ? 'yes' : r.ok || notFound ? 'no' : 'unknown';
  return { platform: ctx.platform, manager: 'launchd', unit, installed, enabled, active, enabled_state: r.ok ? 'loaded' : notFound ? 'not-loaded' : null, active_state: state ?? (notFound ? 'not-loaded' : null), notes };
}
