import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isHandoffError } from '../../src/errors.js';
import { choosePlatform } from '../../src/service/manage.js';
import { fillTemplate, systemdEnvValue, systemdExecWord, xmlEscape } from '../../src/service/units.js';
import { CLI, runCli, tempDir, testEnv } from '../helpers.js';

/** Which of the service managers' tools this machine has; tests say plainly what they skip. */
function onPath(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).status === 0;
}
const HAVE_SYSTEMD_ANALYZE = onPath('systemd-analyze');
const HAVE_SYSTEMCTL = onPath('systemctl');
const HAVE_LAUNCHCTL = onPath('launchctl');
const HAVE_PLUTIL = onPath('plutil');

interface PlanJson {
  platform: string;
  manager: string;
  unit: string;
  dry_run: boolean;
  actions: Array<{ action: string; path?: string; content?: string; argv?: string[]; optional?: boolean; fallback?: string[] }>;
}

async function dryRun(env: NodeJS.ProcessEnv, ...extra: string[]): Promise<PlanJson> {
  const r = await runCli(['service', 'install', '--dry-run', '--json', ...extra], { env });
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as PlanJson;
}

function written(plan: PlanJson): string {
  const w = plan.actions.find((a) => a.action === 'write');
  if (!w?.content) throw new Error('the plan writes no file');
  return w.content;
}

// ---- a strict reader for systemd unit files: sections, keys, and nothing it does not understand
type Unit = Map<string, Array<[string, string]>>;
function parseUnit(text: string): Unit {
  const unit: Unit = new Map();
  let section: Array<[string, string]> | null = null;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const head = /^\[([A-Za-z]+)\]$/.exec(line);
    if (head?.[1]) {
      if (unit.has(head[1])) throw new Error(`line ${i + 1}: section [${head[1]}] twice`);
      section = [];
      unit.set(head[1], section);
      return;
    }
    const kv = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(line);
    if (!kv?.[1] || kv[2] === undefined) throw new Error(`line ${i + 1}: not "Key=value": ${raw}`);
    if (!section) throw new Error(`line ${i + 1}: ${kv[1]}= before any [Section]`);
    section.push([kv[1], kv[2]]);
  });
  return unit;
}
function values(unit: Unit, section: string, key: string): string[] {
  return (unit.get(section) ?? []).filter(([k]) => k === key).map(([, v]) => v);
}

// ---- a strict plist reader: the XML subset property lists use, into plain JS values
type PlistValue = string | number | boolean | PlistValue[] | { [key: string]: PlistValue };
function parsePlist(xml: string): PlistValue {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`plist: expected ${what} at offset ${at}, found ${JSON.stringify(xml.slice(at, at + 30))}`);
  };
  const skip = (): void => {
    for (;;) {
      const ws = /^\s+/.exec(xml.slice(at));
      if (ws) at += ws[0].length;
      const rest = xml.slice(at);
      const end = rest.startsWith('<?') ? rest.indexOf('?>') + 2 : rest.startsWith('<!--') ? rest.indexOf('-->') + 3 : rest.startsWith('<!DOCTYPE') ? rest.indexOf('>') + 1 : 0;
      if (end <= 0) return;
      if (rest.startsWith('<!--') && rest.slice(4, end - 3).includes('--')) fail('a comment without "--" inside');
      at += end;
    }
  };
  const tag = (): { name: string; close: boolean; empty: boolean; attrs: string } => {
    skip();
    const m = /^<(\/?)([a-z]+)((?:\s+[a-z]+="[^"<>&]*")*)\s*(\/?)>/.exec(xml.slice(at));
    if (!m) return fail('a tag');
    at += m[0].length;
    return { name: m[2] as string, close: m[1] === '/', empty: m[4] === '/', attrs: m[3] ?? '' };
  };
  const text = (name: string): string => {
    const end = xml.indexOf(`</${name}>`, at);
    if (end < 0) fail(`</${name}>`);
    const raw = xml.slice(at, end);
    if (raw.includes('<')) fail(`plain text in <${name}>`);
    at = end + name.length + 3;
    return raw.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);|&/gi, (all, ent?: string) => {
      if (ent === undefined) return fail('an entity after &');
      const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
      if (named[ent] !== undefined) return named[ent];
      return String.fromCodePoint(ent[1] === 'x' || ent[1] === 'X' ? parseInt(ent.slice(2), 16) : parseInt(ent.slice(1), 10));
    });
  };
  const value = (t = tag()): PlistValue => {
    if (t.close) return fail(`a value, not </${t.name}>`);
    if (t.name === 'true' || t.name === 'false') return t.empty ? t.name === 'true' : fail(`<${t.name}/>`);
    if (t.empty) return t.name === 'dict' ? {} : t.name === 'array' ? [] : t.name === 'string' ? '' : fail('a non-empty value');
    if (t.name === 'string') return text('string');
    if (t.name === 'integer') {
      const s = text('integer').trim();
      return /^-?\d+$/.test(s) ? Number(s) : fail('an integer');
    }
    if (t.name === 'array') {
      const out: PlistValue[] = [];
      for (let n = tag(); !(n.close && n.name === 'array'); n = tag()) out.push(value(n));
      return out;
    }
    if (t.name === 'dict') {
      const out: { [key: string]: PlistValue } = {};
      for (let n = tag(); !(n.close && n.name === 'dict'); n = tag()) {
        if (n.name !== 'key' || n.close || n.empty) fail('<key>');
        const k = text('key');
        if (k in out) fail(`key "${k}" only once`);
        out[k] = value();
      }
      return out;
    }
    return fail(`a plist value, not <${t.name}>`);
  };
  const root = tag();
  if (root.name !== 'plist' || root.close || !/version="1\.0"/.test(root.attrs)) fail('<plist version="1.0">');
  const v = value();
  const end = tag();
  if (!(end.close && end.name === 'plist')) fail('</plist>');
  skip();
  if (at !== xml.length) fail('the end of the document');
  return v;
}

describe('the service templates render per context', () => {
  it('escapes systemd words, environment values and XML for where they land', () => {
    expect(systemdExecWord('/usr/bin/node')).toBe('/usr/bin/node');
    expect(systemdExecWord('/opt/my apps/100%/$HOME/cli.js')).toBe('"/opt/my apps/100%%/$$HOME/cli.js"');
    expect(systemdExecWord('/a/"q"\\b')).toBe('"/a/\\"q\\"\\\\b"');
    expect(systemdEnvValue('/srv/h $X 50%"')).toBe('/srv/h $X 50%%\\"');
    expect(xmlEscape(`a&b<c>"d'`)).toBe('a&amp;b&lt;c&gt;&quot;d&apos;');
  });

  it('drops a line whose placeholder has no value and refuses a placeholder it does not know', () => {
    expect(fillTemplate('a=@A@\nb=@B@\nc', { A: '1', B: null })).toBe('a=1\nc');
    expect(() => fillTemplate('x=@NOPE@', { A: '1' })).toThrow(/@NOPE@/);
  });

  it('refuses platforms without a supported service manager, naming `handoff daemon` as the way', () => {
    expect(choosePlatform(undefined, 'linux')).toBe('linux');
    expect(choosePlatform('darwin', 'linux')).toBe('darwin');
    let caught: unknown;
    try {
      choosePlatform(undefined, 'win32');
    } catch (e) {
      caught = e;
    }
    expect(isHandoffError(caught) && caught.exitCode).toBe(2);
    expect(isHandoffError(caught) && `${caught.message} ${caught.hint}`).toMatch(/not on win32.*handoff daemon/);
  });
});

describe('handoff service install --dry-run (SPEC §10 service units)', () => {
  it('renders a systemd user unit that systemd-analyze verify accepts, with absolute paths that exist', async () => {
    const env = testEnv();
    const plan = await dryRun(env, '--platform', 'linux');
    expect(plan).toMatchObject({ platform: 'linux', manager: 'systemd', dry_run: true, unit: join(env.HOME as string, '.config', 'systemd', 'user', 'handoffd.service') });
    const text = written(plan);
    const unit = parseUnit(text);
    expect([...unit.keys()]).toEqual(['Unit', 'Service', 'Install']);
    expect(values(unit, 'Service', 'Type')).toEqual(['exec']);
    expect(values(unit, 'Service', 'Restart')).toEqual(['on-failure']);
    expect(values(unit, 'Service', 'RestartSec')).toEqual(['2']);
    expect(values(unit, 'Service', 'WorkingDirectory')).toEqual(['%h']);
    expect(values(unit, 'Service', 'Environment')).toEqual(['NODE_ENV=production']);
    expect(values(unit, 'Service', 'NoNewPrivileges')).toEqual(['yes']);
    expect(values(unit, 'Service', 'User')).toEqual([]);
    expect(values(unit, 'Service', 'ProtectHome')).toEqual([]);
    expect(values(unit, 'Unit', 'StartLimitBurst')).toHaveLength(1);
    expect(values(unit, 'Unit', 'StartLimitIntervalSec')).toHaveLength(1);
    expect(values(unit, 'Install', 'WantedBy')).toEqual(['default.target']);
    const exec = values(unit, 'Service', 'ExecStart');
    expect(exec).toEqual([`${process.execPath} ${realpathSync(CLI)} daemon`]);
    for (const p of (exec[0] as string).split(' ').slice(0, 2)) {
      expect(isAbsolute(p)).toBe(true);
      accessSync(p, constants.R_OK);
    }
    expect(text).not.toMatch(/@[A-Z_]+@/);

    if (!HAVE_SYSTEMD_ANALYZE) {
      console.warn('service.test: systemd-analyze is not on PATH; the systemd unit was checked by the structural parser only (apt-get install -y systemd provides it)');
      return;
    }
    const r = analyzeVerify(text);
    expect(r.problems, r.output).toEqual([]);
    expect(r.status, r.output).toBe(0);
  });

  it.skipIf(!HAVE_SYSTEMD_ANALYZE)('has a systemd-analyze check that does fail on a broken unit', () => {
    const broken = analyzeVerify('[Service]\nType=exec\nExecStart=/usr/bin/env true\nRestart=sometimes\nBogusKey=1\n');
    expect(broken.problems.join('\n')).toMatch(/Restart|BogusKey/);
  });

  it('pins HANDOFFS_ROOT in both units only when the store is not the default, escaped for each', async () => {
    const env = testEnv();
    const envOf = (plan: PlanJson): string[] => values(parseUnit(written(plan)), 'Service', 'Environment');
    expect(envOf(await dryRun(env, '--platform', 'linux'))).toEqual(['NODE_ENV=production']);
    expect(envOf(await dryRun(env, '--platform', 'linux', '--root', join(env.HOME as string, '.handoffs')))).toEqual(['NODE_ENV=production']);
    const defaultPlist = parsePlist(written(await dryRun(env, '--platform', 'darwin'))) as Record<string, Record<string, string>>;
    expect(Object.keys(defaultPlist.EnvironmentVariables ?? {})).toEqual(['PATH', 'NODE_ENV']);
    const odd = '/srv/team handoffs/100% & <done>';
    const unit = parseUnit(written(await dryRun({ ...env, HANDOFFS_ROOT: odd }, '--platform', 'linux')));
    expect(values(unit, 'Service', 'Environment')).toEqual(['NODE_ENV=production', '"HANDOFFS_ROOT=/srv/team handoffs/100%% & <done>"']);
    const plist = parsePlist(written(await dryRun({ ...env, HANDOFFS_ROOT: odd }, '--platform', 'darwin'))) as Record<string, Record<string, string>>;
    expect(plist.EnvironmentVariables?.HANDOFFS_ROOT).toBe(odd);
  });

  it('renders a launchd agent plist that parses strictly, with every key the spec names', async () => {
    const env = testEnv({ PATH: `${process.env.PATH}:${process.env.PATH}` });
    const home = env.HOME as string;
    const plan = await dryRun(env, '--platform', 'darwin');
    expect(plan).toMatchObject({ platform: 'darwin', manager: 'launchd', unit: join(home, 'Library', 'LaunchAgents', 'dev.handoffd.daemon.plist') });
    const xml = written(plan);
    const logs = join(home, 'Library', 'Logs', 'handoffd');
    expect(parsePlist(xml)).toEqual({
      Label: 'dev.handoffd.daemon',
      ProgramArguments: [process.execPath, realpathSync(CLI), 'daemon'],
      WorkingDirectory: home,
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      ThrottleInterval: 10,
      ProcessType: 'Background',
      StandardOutPath: join(logs, 'handoffd.log'),
      StandardErrorPath: join(logs, 'handoffd.err.log'),
      EnvironmentVariables: { PATH: [...new Set((process.env.PATH ?? '').split(':').filter(Boolean))].join(':'), NODE_ENV: 'production' },
    });
    expect(plan.actions.map((a) => a.action)).toEqual(['mkdir', 'mkdir', 'write', 'run', 'run', 'run']);
    expect(plan.actions.at(-1)).toMatchObject({ argv: ['launchctl', 'bootstrap', `gui/${process.getuid?.() ?? 0}`, plan.unit], fallback: ['launchctl', 'load', '-w', plan.unit] });
    expect(() => parsePlist(xml.replace('<true/>', '<true>'))).toThrow(/plist/);
    expect(() => parsePlist(xml.replace('</dict>\n</plist>', '</plist>'))).toThrow(/plist/);
    if (HAVE_PLUTIL) {
      const f = join(tempDir(), 'dev.handoffd.daemon.plist');
      writeFileSync(f, xml);
      execFileSync('plutil', ['-lint', f]);
    } else console.warn('service.test: plutil is not on PATH (macOS only); the plist was checked by the strict parser in this test');
  });

  it('prints the path, the full content and the commands, and changes nothing', async () => {
    const env = testEnv();
    const r = await runCli(['service', 'install', '--dry-run', '--platform', 'linux'], { env });
    expect(r.code).toBe(0);
    const unit = join(env.HOME as string, '.config', 'systemd', 'user', 'handoffd.service');
    expect(r.out).toContain(`write ${unit}:`);
    expect(r.out).toContain(`    ExecStart=${process.execPath} ${realpathSync(CLI)} daemon`);
    expect(r.out).toContain('    WantedBy=default.target');
    expect(r.out).toMatch(/3\. systemctl --user daemon-reload\n\s+4\. systemctl --user enable --now handoffd\.service/);
    expect(r.out).toContain('nothing was changed');
    expect(existsSync(join(env.HOME as string, '.config', 'systemd'))).toBe(false);
    const u = await runCli(['service', 'uninstall', '--dry-run'], { env });
    expect(u.out).toContain('not installed: nothing to uninstall');
  });

  it('plans to stop, disable and remove an installed unit, and restarts one whose content changed', async () => {
    const env = testEnv();
    const unit = join(env.HOME as string, '.config', 'systemd', 'user', 'handoffd.service');
    await mkdir(join(unit, '..'), { recursive: true });
    await writeFile(unit, '[Service]\nExecStart=/old/node /old/cli.js daemon\n');
    const install = await dryRun(env, '--platform', 'linux');
    expect(install.actions.filter((a) => a.action === 'run').map((a) => a.argv?.join(' '))).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable --now handoffd.service',
      'systemctl --user try-restart handoffd.service',
    ]);
    const r = await runCli(['service', 'uninstall', '--dry-run', '--json', '--platform', 'linux'], { env });
    const plan = JSON.parse(r.out) as PlanJson;
    expect(plan.actions).toEqual([
      { action: 'run', argv: ['systemctl', '--user', 'disable', '--now', 'handoffd.service'], bestEffort: true },
      { action: 'remove', path: unit },
      { action: 'run', argv: ['systemctl', '--user', 'daemon-reload'], bestEffort: true },
    ]);
    expect(existsSync(unit)).toBe(true);
  });

  it('refuses a missing or unknown subcommand and an unknown platform; --dry-run on status changes nothing either way', async () => {
    const env = testEnv();
    for (const args of [['service'], ['service', 'start'], ['service', 'install', 'now'], ['service', 'install', '--platform', 'win32']]) {
      const r = await runCli(args, { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(/fix: /);
    }
    const dry = await runCli(['service', 'status', '--dry-run', '--platform', 'linux'], { env });
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toMatch(/^installed=no$/m);
    const help = await runCli(['service', '--help'], { env });
    expect(help.out).toMatch(/--platform P\s+linux or darwin .*testing and packaging/);
  });
});

describe('handoff service status', () => {
  it('reports platform, unit path, installed, enabled and active, in text and JSON', async () => {
    const env = testEnv();
    const unit = join(env.HOME as string, '.config', 'systemd', 'user', 'handoffd.service');
    const r = await runCli(['service', 'status', '--platform', 'linux'], { env });
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines.slice(0, 4)).toEqual(['platform=linux', 'manager=systemd', `unit=${unit}`, 'installed=no']);
    expect(lines[4]).toMatch(/^enabled=(yes|no|unknown)( \([a-z-]+\))?$/);
    expect(lines[5]).toMatch(/^active=(yes|no|unknown)( \([a-z-]+\))?$/);
    const j = JSON.parse((await runCli(['service', 'status', '--json', '--platform', 'linux'], { env })).out) as Record<string, unknown>;
    expect(Object.keys(j)).toEqual(['platform', 'manager', 'unit', 'installed', 'enabled', 'active', 'enabled_state', 'active_state', 'notes']);
    expect(j).toMatchObject({ platform: 'linux', unit, installed: false });
    // An answer the manager could not give is "unknown" with the reason, never a guess.
    if (j.active === 'unknown') expect((j.notes as string[]).join('\n')).toMatch(/is-active/);
    await mkdir(join(unit, '..'), { recursive: true });
    await writeFile(unit, written(await dryRun(env, '--platform', 'linux')));
    expect((await runCli(['service', 'status', '--platform', 'linux'], { env })).out).toContain('installed=yes');
  });

  it('says "unknown", with the reason, when the service manager is not installed', async () => {
    const env = testEnv({ PATH: tempDir('handoff-nopath-') });
    const linux = JSON.parse((await runCli(['service', 'status', '--json', '--platform', 'linux'], { env })).out) as Record<string, unknown>;
    expect(linux).toMatchObject({ enabled: 'unknown', active: 'unknown', notes: ['systemctl not found on PATH', 'systemctl not found on PATH'] });
    const mac = JSON.parse((await runCli(['service', 'status', '--json', '--platform', 'darwin'], { env })).out) as Record<string, unknown>;
    expect(mac).toMatchObject({ manager: 'launchd', enabled: 'unknown', active: 'unknown', notes: ['launchctl not found on PATH'] });
  });
});

describe('handoff service install without a usable service manager', () => {
  it('fails naming the fix when systemctl is not installed', async () => {
    const env = testEnv({ PATH: tempDir('handoff-nopath-') });
    const r = await runCli(['service', 'install', '--platform', 'linux'], { env });
    expect(r.code).toBe(1);
    expect(r.err).toContain('`systemctl` was not found on PATH');
    expect(r.err).toMatch(/already done: wrote .*handoffd\.service/);
    expect(r.err).toMatch(/fix: .*handoff daemon/);
  });

  it('fails naming the fix when launchctl is not installed', async () => {
    if (HAVE_LAUNCHCTL) {
      console.warn('service.test: launchctl exists here (macOS); not testing its absence, and never loading a real agent from a test');
      return;
    }
    const env = testEnv();
    const r = await runCli(['service', 'install', '--platform', 'darwin'], { env });
    expect(r.code).toBe(1);
    expect(r.err).toContain('`launchctl` was not found on PATH');
    expect(r.err).toMatch(/fix: .*handoff daemon/);
  });

  it('fails naming loginctl enable-linger or `handoff daemon` when there is no user session bus', async () => {
    const env = testEnv();
    // testEnv passes no XDG_RUNTIME_DIR or DBUS_SESSION_BUS_ADDRESS, so no test reaches a real
    // user manager; the probe tells whether this machine's systemctl says so the way we expect.
    const probe = HAVE_SYSTEMCTL ? spawnSync('systemctl', ['--user', 'show-environment'], { env, encoding: 'utf8', timeout: 20_000 }) : null;
    if (!probe || probe.status === 0 || !/Failed to connect to (the )?bus|XDG_RUNTIME_DIR/i.test(probe.stderr)) {
      console.warn(`service.test: skipped the no-bus install check (systemctl ${probe ? `said: ${probe.stderr.trim() || `exit ${probe.status}`}` : 'is not on PATH'})`);
      return;
    }
    const r = await runCli(['service', 'install', '--platform', 'linux'], { env });
    expect(r.code).toBe(1);
    expect(r.err).toContain('`systemctl --user daemon-reload` could not reach your user service manager');
    expect(r.err).toMatch(/fix: .*(loginctl enable-linger|handoff daemon)/);
    expect(existsSync(join(env.HOME as string, '.config', 'systemd', 'user', 'handoffd.service'))).toBe(true);
  });
});

/** `systemd-analyze verify --user` on a unit named handoffd.service; any line about it is a problem. */
function analyzeVerify(text: string): { status: number | null; problems: string[]; output: string } {
  const dir = tempDir('handoff-unit-');
  // verify starts a user manager in test mode, which needs a runtime dir even as root in CI.
  const runtime = join(dir, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const file = join(dir, 'handoffd.service');
  writeFileSync(file, text);
  const r = spawnSync('systemd-analyze', ['verify', '--user', file], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH, HOME: dir, XDG_RUNTIME_DIR: runtime, SYSTEMD_LOG_COLOR: '0' },
  });
  const output = `${r.stdout}${r.stderr}`;
  const problems = output.split('\n').filter((l) => /handoffd\.service/.test(l) && /unknown|failed|ignoring|not executable|invalid|bad/i.test(l));
  return { status: r.status, problems, output };
}

describe('handoff service uninstall without a usable service manager', () => {
  const unitFile = (env: NodeJS.ProcessEnv): string => join(env.XDG_CONFIG_HOME as string, 'systemd', 'user', 'handoffd.service');

  it('removes the unit file even when systemctl is not installed, and says what it could not do', async () => {
    const env = testEnv({ PATH: tempDir('handoff-nopath-') });
    await mkdir(join(unitFile(env), '..'), { recursive: true });
    await writeFile(unitFile(env), '[Unit]\nDescription=handoffd\n');
    const r = await runCli(['service', 'uninstall', '--platform', 'linux'], { env });
    expect(r.code, r.err).toBe(0);
    expect(existsSync(unitFile(env))).toBe(false);
    expect(r.out).toMatch(/done, except what is said below/);
    expect(r.err).toMatch(/^handoff service uninstall: `systemctl` was not found on PATH/m);
    expect(r.err).toMatch(/fix: /);
  });

  it('removes the unit file when there is no user session bus', async () => {
    const env = testEnv();
    const probe = HAVE_SYSTEMCTL ? spawnSync('systemctl', ['--user', 'show-environment'], { env, encoding: 'utf8', timeout: 20_000 }) : null;
    if (!probe || probe.status === 0 || !/Failed to connect to (the )?bus|XDG_RUNTIME_DIR/i.test(probe.stderr)) {
      console.warn(`service.test: skipped the no-bus uninstall check (systemctl ${probe ? `said: ${probe.stderr.trim() || `exit ${probe.status}`}` : 'is not on PATH'})`);
      return;
    }
    await mkdir(join(unitFile(env), '..'), { recursive: true });
    await writeFile(unitFile(env), '[Unit]\nDescription=handoffd\n');
    const r = await runCli(['service', 'uninstall', '--platform', 'linux'], { env });
    expect(r.code, r.err).toBe(0);
    expect(existsSync(unitFile(env))).toBe(false);
    expect(r.err).toMatch(/could not reach your user service manager/);
    expect(r.err).toMatch(/fix: .*(loginctl enable-linger|handoff daemon)/);
  });
});
