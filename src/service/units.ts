import { UsageError } from '../errors.js';

/**
 * Pure rendering of the service templates (systemd/handoffd.service, launchd/*.plist): no files,
 * no processes. A template names its values as @NAME@; every value is escaped for the place it
 * lands in before substitution, and a line whose value is null is left out, which is how a
 * template says "only when needed" without a template language.
 */

export const SERVICE_LABEL = 'dev.handoffd.daemon';
export const SYSTEMD_UNIT_NAME = 'handoffd.service';

export interface UnitInputs {
  /** Absolute path of the node binary (process.execPath). */
  node: string;
  /** Absolute, real path of dist/cli.js. */
  cli: string;
  home: string;
  /** The store root to pin with HANDOFFS_ROOT, or null when it is the default ~/.handoffs. */
  root: string | null;
  /** PATH for the daemon (launchd starts agents with a bare one; git must be found). */
  path: string;
}

const PLACEHOLDER = /@([A-Z][A-Z_]*)@/g;

/** Substitutes @NAME@ placeholders; drops lines whose value is null; refuses unknown names. */
export function fillTemplate(template: string, values: Readonly<Record<string, string | null>>): string {
  const out: string[] = [];
  for (const line of template.split('\n')) {
    let drop = false;
    const filled = line.replace(PLACEHOLDER, (_, name: string) => {
      if (!(name in values)) throw new Error(`service template names @${name}@, which the renderer does not know`);
      const v = values[name];
      if (v === null || v === undefined) {
        drop = true;
        return '';
      }
      return v;
    });
    if (!drop) out.push(filled);
  }
  return out.join('\n');
}

function refuseNewlines(what: string, value: string): void {
  // Neither a unit file line nor a launchd string can carry one in a way every reader agrees on.
  if (/[\n\r\0]/.test(value)) {
    throw new UsageError(`${what} contains a line break or NUL, which a service file cannot hold: ${JSON.stringify(value)}`, {
      hint: 'install handoffd (and node) under a path without control characters',
    });
  }
}

/**
 * One word of a systemd command line. `%` starts a specifier and `$` a variable in ExecStart=,
 * so both are doubled; whitespace, quotes or backslashes need the word quoted.
 */
export function systemdExecWord(value: string): string {
  const escaped = value.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  if (!/[\s"'\\;]/.test(escaped)) return escaped;
  return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The inside of a quoted Environment="K=V" assignment: no variable expansion there, only specifiers. */
export function systemdEnvValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
}

export function xmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function checkInputs(i: UnitInputs): void {
  refuseNewlines('the node path', i.node);
  refuseNewlines('the CLI path', i.cli);
  refuseNewlines('the home folder', i.home);
  refuseNewlines('PATH', i.path);
  if (i.root !== null) refuseNewlines('the store root', i.root);
}

export function renderSystemdUnit(template: string, i: UnitInputs): string {
  checkInputs(i);
  return fillTemplate(template, {
    NODE: systemdExecWord(i.node),
    CLI: systemdExecWord(i.cli),
    ROOT: i.root === null ? null : systemdEnvValue(i.root),
  });
}

export function launchdLogDir(home: string): string {
  return `${home.replace(/\/+$/, '')}/Library/Logs/handoffd`;
}

export function renderLaunchdPlist(template: string, i: UnitInputs): string {
  checkInputs(i);
  return fillTemplate(template, {
    NODE: xmlEscape(i.node),
    CLI: xmlEscape(i.cli),
    HOME: xmlEscape(i.home),
    LOG_DIR: xmlEscape(launchdLogDir(i.home)),
    PATH: xmlEscape(i.path),
    ROOT: i.root === null ? null : xmlEscape(i.root),
  });
}
