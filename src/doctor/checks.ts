/**
 * `handoff doctor`: each check a pure function of facts gathered elsewhere (gather.ts), so every
 * verdict and its fix can be tested by handing it the facts — a missing folder, a low inotify
 * limit — without arranging the machine.
 */

export type Verdict = 'ok' | 'warn' | 'fail';

export interface CheckLine {
  name: string;
  verdict: Verdict;
  message: string;
  fix?: string;
}

export interface Facts {
  node: { version: string; required: string };
  config: { file: string | null; error: string | null; hint?: string | null };
  store: { root: string; exists: boolean; writable: boolean; mode: number | null; parentWritable: boolean };
  socket: { path: string; bytes: number; limit: number };
  watch: { path: string; exists: boolean; transcripts: number; folders: number }[];
  /** Linux only; null elsewhere. */
  inotify: { maxUserWatches: number; maxUserInstances: number } | null;
  daemon: { running: boolean; pid?: number; version?: string; files?: number; error?: string };
  service: { supported: boolean; installed: boolean; enabled: string; active: string; note?: string };
  claude: { settings: string; cleanupPeriodDays: number | null; exists: boolean }[];
  /** Each harness settings file handoff's hooks could be in (docs/HOOKS.md). */
  hooks: HookFact[];
}

export interface HookFact {
  harness: 'claude' | 'codex';
  scope: 'user' | 'project';
  settings: string;
  verdict: 'installed' | 'partial' | 'absent' | 'broken';
  detail: string;
  /** A read-only run of the installed command (`hook statusline`): how long it took, or why it failed. */
  probe: { ms: number; ok: boolean; error: string | null } | null;
}

const CLAUDE_DEFAULT_CLEANUP_DAYS = 30;
/** chokidar holds one inotify watch per folder; a transcript is seen through its folder's watch. */
const WATCH_HEADROOM = 0.8;
const SYSCTL_FILE = '/etc/sysctl.d/60-handoffd.conf';

function versionAtLeast(v: string, min: string): boolean {
  const a = v.replace(/^v/, '').split('.').map(Number);
  const b = min.split('.').map(Number);
  for (let i = 0; i < 3; i += 1) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

export function nodeCheck(f: Facts): CheckLine {
  return versionAtLeast(f.node.version, f.node.required)
    ? { name: 'node', verdict: 'ok', message: `Node ${f.node.version} (needs ${f.node.required} or newer)` }
    : { name: 'node', verdict: 'fail', message: `Node ${f.node.version} is older than ${f.node.required}`, fix: `install Node ${f.node.required} or newer (https://nodejs.org, or \`nvm install 20\`)` };
}

export function configCheck(f: Facts): CheckLine {
  if (f.config.error) return { name: 'config', verdict: 'fail', message: f.config.error, fix: f.config.hint ?? 'fix the file as the message says; `handoff config` shows what is read' };
  return { name: 'config', verdict: 'ok', message: f.config.file ? `using ${f.config.file}` : 'no config file (defaults; see docs/CONFIG.md)' };
}

export function storeCheck(f: Facts): CheckLine {
  const s = f.store;
  if (!s.exists) {
    return s.parentWritable
      ? { name: 'store', verdict: 'ok', message: `${s.root} does not exist yet; the first build or the daemon creates it` }
      : { name: 'store', verdict: 'fail', message: `${s.root} does not exist and its parent folder is not writable`, fix: `create it (mkdir -p ${s.root}) or point HANDOFFS_ROOT at a writable folder` };
  }
  if (!s.writable) return { name: 'store', verdict: 'fail', message: `${s.root} is not writable by this user`, fix: `chown -R $USER ${s.root}` };
  if (s.mode !== null && (s.mode & 0o077) !== 0) {
    return {
      name: 'store',
      verdict: 'warn',
      message: `${s.root} is readable by other users (mode ${(s.mode & 0o777).toString(8)}); handoffs quote your sessions (secrets are redacted, the rest is not)`,
      fix: `chmod 700 ${s.root}`,
    };
  }
  return { name: 'store', verdict: 'ok', message: `${s.root} is writable and private` };
}

export function socketCheck(f: Facts): CheckLine {
  const s = f.socket;
  return s.bytes > s.limit
    ? { name: 'socket', verdict: 'fail', message: `the socket path is ${s.bytes} bytes, the limit is ${s.limit}: ${s.path}`, fix: 'set XDG_RUNTIME_DIR to a shorter folder, or use a store root with a shorter path' }
    : { name: 'socket', verdict: 'ok', message: `socket path ${s.path}` };
}

export function watchChecks(f: Facts): CheckLine[] {
  if (f.watch.length === 0) return [{ name: 'watch', verdict: 'fail', message: 'no folders to watch', fix: 'set watch.paths in the config, or pass --watch to `handoff daemon`' }];
  return f.watch.map((w) =>
    w.exists
      ? { name: 'watch', verdict: 'ok', message: `${w.path}: ${w.transcripts} transcript${w.transcripts === 1 ? '' : 's'} in ${w.folders} folder${w.folders === 1 ? '' : 's'}` }
      : {
          name: 'watch',
          verdict: 'warn',
          message: `${w.path} does not exist yet (the daemon watches for it and picks it up when it appears)`,
          fix: 'nothing to do if that agent is not installed; otherwise check CLAUDE_CONFIG_DIR / CODEX_HOME or watch.paths',
        },
  );
}

export function inotifyChecks(f: Facts): CheckLine[] {
  if (f.inotify === null) return [];
  const need = f.watch.reduce((n, w) => n + w.folders, 0);
  const { maxUserWatches, maxUserInstances } = f.inotify;
  const out: CheckLine[] = [];
  if (need > maxUserWatches) {
    out.push({
      name: 'inotify',
      verdict: 'fail',
      message: `watching needs about ${need} inotify watches but fs.inotify.max_user_watches is ${maxUserWatches}: changes would go unseen until the periodic rescan`,
      fix: `sudo sysctl fs.inotify.max_user_watches=524288 && echo fs.inotify.max_user_watches=524288 | sudo tee ${SYSCTL_FILE}`,
    });
  } else if (need > maxUserWatches * WATCH_HEADROOM) {
    out.push({
      name: 'inotify',
      verdict: 'warn',
      message: `watching needs about ${need} of ${maxUserWatches} inotify watches (fs.inotify.max_user_watches); other programs share that limit`,
      fix: `sudo sysctl fs.inotify.max_user_watches=524288 && echo fs.inotify.max_user_watches=524288 | sudo tee ${SYSCTL_FILE}`,
    });
  } else {
    out.push({ name: 'inotify', verdict: 'ok', message: `about ${need} of ${maxUserWatches} inotify watches needed` });
  }
  // The daemon uses one inotify instance; editors and other watchers use the rest.
  if (maxUserInstances < 128) {
    out.push({
      name: 'inotify',
      verdict: 'warn',
      message: `fs.inotify.max_user_instances is ${maxUserInstances}; editors and other watchers share it and starting the daemon may fail with EMFILE`,
      fix: `sudo sysctl fs.inotify.max_user_instances=512 && echo fs.inotify.max_user_instances=512 | sudo tee -a ${SYSCTL_FILE}`,
    });
  } else {
    out.push({ name: 'inotify', verdict: 'ok', message: `fs.inotify.max_user_instances is ${maxUserInstances}` });
  }
  return out;
}

export function daemonCheck(f: Facts): CheckLine {
  const d = f.daemon;
  if (d.running) return { name: 'daemon', verdict: 'ok', message: `running (pid ${d.pid ?? '?'}, version ${d.version ?? '?'}, ${d.files ?? 0} transcript${d.files === 1 ? '' : 's'} watched)` };
  return { name: 'daemon', verdict: 'warn', message: `not running${d.error ? ` (${d.error})` : ''}: handoffs are not refreshed`, fix: 'start it with `handoff daemon` (or `npm start`), or keep it running with `handoff service install`' };
}

export function serviceCheck(f: Facts): CheckLine {
  const s = f.service;
  if (!s.supported) return { name: 'service', verdict: 'ok', message: `no user service manager on this platform${s.note ? ` (${s.note})` : ''}; run \`handoff daemon\` under your own supervisor` };
  if (!s.installed) return { name: 'service', verdict: 'warn', message: 'not installed: the daemon does not start with your session', fix: 'handoff service install' };
  if (s.active === 'yes') return { name: 'service', verdict: 'ok', message: `installed, enabled ${s.enabled}, running` };
  return { name: 'service', verdict: 'warn', message: `installed but not running (enabled ${s.enabled}, active ${s.active})${s.note ? `: ${s.note}` : ''}`, fix: '`handoff service status` shows why; `handoff service install` restarts it' };
}

export function claudeChecks(f: Facts): CheckLine[] {
  return f.claude.map((c) => {
    const days = c.cleanupPeriodDays ?? CLAUDE_DEFAULT_CLEANUP_DAYS;
    const where =
      c.cleanupPeriodDays !== null ? `cleanupPeriodDays in ${c.settings}` : `its default: ${c.exists ? `${c.settings} sets no cleanupPeriodDays` : `there is no ${c.settings}`}`;
    return {
      name: 'claude retention',
      verdict: 'warn' as const,
      message: `Claude Code deletes transcripts after ${days} days (${where}); their handoffs stay, but \`verify --source\` then reports SOURCE-GONE`,
      fix: `raise "cleanupPeriodDays" in ${c.settings} to keep transcripts longer`,
    };
  });
}

const HARNESS_NAME = { claude: 'Claude Code', codex: 'Codex' } as const;

export function hooksChecks(f: Facts): CheckLine[] {
  const found = f.hooks.filter((h) => h.verdict !== 'absent');
  if (found.length === 0) {
    return [{ name: 'hooks', verdict: 'warn', message: 'not installed: after a compaction the agent does not get its handoff back by itself', fix: '`handoff hooks install` (Claude Code), `handoff hooks install --harness codex` (Codex)' }];
  }
  return found.map((h): CheckLine => {
    const where = `${HARNESS_NAME[h.harness]} (${h.scope}) ${h.settings}`;
    if (h.verdict === 'broken') return { name: 'hooks', verdict: 'fail', message: `${where}: ${h.detail}`, fix: '`handoff hooks install` writes them again; `handoff hooks uninstall` takes them out' };
    if (h.verdict === 'partial') return { name: 'hooks', verdict: 'warn', message: `${where}: ${h.detail}`, fix: '`handoff hooks install`' };
    if (h.probe && !h.probe.ok) return { name: 'hooks', verdict: 'fail', message: `${where}: installed, but the hook command failed when run: ${h.probe.error ?? 'no answer'}`, fix: 'run `handoff hook statusline < /dev/null` to see why; `handoff hooks install` rewrites the commands' };
    return { name: 'hooks', verdict: 'ok', message: `${where}: ${h.detail}${h.probe ? `; the hook answered in ${h.probe.ms} ms` : ''}` };
  });
}

export function diagnose(f: Facts): CheckLine[] {
  return [nodeCheck(f), configCheck(f), storeCheck(f), socketCheck(f), ...watchChecks(f), ...inotifyChecks(f), daemonCheck(f), serviceCheck(f), ...hooksChecks(f), ...claudeChecks(f)];
}
