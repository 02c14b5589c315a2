import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/paths.js';
import { ROOT, runCli, spawnCli, tempDir, testEnv } from '../helpers.js';
import { git, gitRepo } from '../transcripts.js';

/** `handoff hooks install | uninstall | status` over settings files shaped like real ones. */

/** A user's settings.json: four-space indent, other tools' hooks, a status line of their own. */
const REAL_SETTINGS = `{
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {
        "allow": ["Bash(npm test:*)", "Read(~/.zshrc)"],
        "deny": ["Read(./.env)"]
    },
    "env": { "DISABLE_TELEMETRY": "1" },
    "hooks": {
        "PostToolUse": [
            { "matcher": "Edit|MultiEdit|Write", "hooks": [{ "type": "command", "command": "npx prettier --write \\"$CLAUDE_FILE_PATHS\\"" }] }
        ],
        "SessionStart": [
            { "matcher": "startup", "hooks": [{ "type": "command", "command": "~/.claude/hooks/load-notes.sh", "timeout": 5 }] }
        ]
    },
    "statusLine": { "type": "command", "command": "~/.claude/statusline.sh", "padding": 0 },
    "model": "opus",
    "cleanupPeriodDays": 90
}
`;

interface Settings {
  hooks?: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout?: number }[] }[]>;
  statusLine?: { type: string; command: string; padding?: number };
  [key: string]: unknown;
}

function setup(): { env: NodeJS.ProcessEnv; dir: string; file: string } {
  const env = testEnv();
  const dir = join(env.HOME as string, '.claude');
  return { env, dir, file: join(dir, 'settings.json') };
}

const read = (file: string): Settings => JSON.parse(readFileSync(file, 'utf8')) as Settings;
const commands = (s: Settings, event: string): string[] => (s.hooks?.[event] ?? []).flatMap((g) => g.hooks.map((h) => h.command));

describe('handoff hooks install (Claude Code)', () => {
  it('merges its hooks into a real-shaped settings.json, keeping every other setting, and never replaces the status line', async () => {
    const { env, dir, file } = setup();
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, REAL_SETTINGS);
    const r = await runCli(['hooks', 'install'], { env });
    expect(r.code, r.err).toBe(0);
    const after = read(file);
    const before = JSON.parse(REAL_SETTINGS) as Settings;
    expect(Object.keys(after)).toEqual(Object.keys(before));
    for (const key of ['$schema', 'permissions', 'env', 'statusLine', 'model', 'cleanupPeriodDays']) expect(after[key]).toEqual(before[key]);
    expect(after.hooks?.PostToolUse).toEqual(before.hooks?.PostToolUse);
    expect(after.hooks?.SessionStart?.[0]).toEqual(before.hooks?.SessionStart?.[0]);
    expect(after.hooks?.SessionStart?.[1]?.matcher).toBe('startup|resume|clear|compact');
    expect(commands(after, 'SessionStart')[1]).toMatch(/ hook session-start$/);
    expect(commands(after, 'SessionStart')[1]).toContain(CLI_PATH);
    expect(commands(after, 'PreCompact')).toEqual([expect.stringMatching(/ hook pre-compact$/)]);
    expect(readFileSync(file, 'utf8')).toContain('\n    "permissions": {');
    expect(r.out).toMatch(/kept your statusLine \(~\/\.claude\/statusline\.sh\); to show handoff's line too/);
    expect(r.out).toMatch(/backup of the previous file: .*settings\.json\.handoff-backup-\d{8}T\d{6}Z/);
    const backups = readdirSync(dir).filter((f) => f.startsWith('settings.json.handoff-backup-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, backups[0] as string), 'utf8')).toBe(REAL_SETTINGS);
    const record = JSON.parse(readFileSync(join(dir, '.handoff-hooks.json'), 'utf8')) as { entries: unknown[]; status_line: string | null; before: { existed: boolean } };
    expect(record.entries).toHaveLength(2);
    expect(record.status_line).toBeNull();
    expect(record.before.existed).toBe(true);
  });

  it('changes nothing when run twice', async () => {
    const { env, dir, file } = setup();
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, REAL_SETTINGS);
    await runCli(['hooks', 'install'], { env });
    const once = readFileSync(file);
    const files = readdirSync(dir).sort();
    const again = await runCli(['hooks', 'install'], { env });
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/already installed .*: nothing changed/);
    expect(readFileSync(file).equals(once)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(files);
  });

  it('uninstall restores the original file byte for byte and leaves no backup or record behind', async () => {
    const { env, dir, file } = setup();
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, REAL_SETTINGS);
    await runCli(['hooks', 'install'], { env });
    const r = await runCli(['hooks', 'uninstall'], { env });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/restored the file as it was before `handoff hooks install`, byte for byte/);
    expect(readFileSync(file, 'utf8')).toBe(REAL_SETTINGS);
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('creates a missing settings.json with the status line, and uninstall removes what it created', async () => {
    const { env, dir, file } = setup();
    const r = await runCli(['hooks', 'install'], { env });
    expect(r.code, r.err).toBe(0);
    const s = read(file);
    expect(s.statusLine).toEqual({ type: 'command', command: `sh ${join(ROOT, 'hooks', 'handoff-statusline.sh')} ${join(env.HOME as string, '.handoffs', '.handoffd')}`, padding: 0 });
    expect(Object.keys(s.hooks ?? {})).toEqual(['SessionStart', 'PreCompact']);
    expect(r.out).not.toContain('backup');
    const u = await runCli(['hooks', 'uninstall'], { env });
    expect(u.code).toBe(0);
    expect(u.out).toMatch(/removed .*settings\.json: `handoff hooks install` had created it/);
    expect(existsSync(dir)).toBe(false);
  });

  it('installs the Node status line with --statusline node, and a later install moves it to the shell one', async () => {
    const { env, file } = setup();
    expect((await runCli(['hooks', 'install', '--statusline', 'node'], { env })).code).toBe(0);
    expect(read(file).statusLine?.command).toMatch(/ hook statusline$/);
    const r = await runCli(['hooks', 'install'], { env });
    expect(r.out).toContain('statusLine: updated');
    expect(read(file).statusLine?.command).toMatch(/^sh \S+\/hooks\/handoff-statusline\.sh /);
    const bad = await runCli(['hooks', 'install', '--statusline', 'bash'], { env });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--statusline must be one of shell, node');
  });

  it('status says when the shell status line reads another store than the configured one', async () => {
    const { env } = setup();
    await runCli(['hooks', 'install'], { env });
    const r = await runCli(['hooks', 'status', '--harness', 'claude', '--scope', 'user'], { env: { ...env, HANDOFFS_ROOT: join(env.HOME as string, 'elsewhere') } });
    expect(r.out).toMatch(/^partial +Claude Code \(user\) .*: the status line reads .*\.handoffs\/\.handoffd, not the configured store's folder: run `handoff hooks install` again$/m);
  });

  it('refuses a read-only settings.json with a clear error and changes nothing', async () => {
    const { env, dir, file } = setup();
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, REAL_SETTINGS);
    chmodSync(file, 0o444);
    const r = await runCli(['hooks', 'install'], { env });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`handoff: ${file} is read-only (mode 444): nothing was changed`);
    expect(r.err).toMatch(/fix: make it writable \(chmod u\+w .*settings\.json\)/);
    expect(readFileSync(file, 'utf8')).toBe(REAL_SETTINGS);
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('refuses a settings.json that is not strict JSON, naming the file', async () => {
    const { env, dir, file } = setup();
    mkdirSync(dir, { recursive: true });
    const withComment = '{\n  // my settings\n  "model": "opus"\n}\n';
    writeFileSync(file, withComment);
    const r = await runCli(['hooks', 'install'], { env });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${file}: cannot add hooks: it is not strict JSON`);
    expect(readFileSync(file, 'utf8')).toBe(withComment);
  });

  it('takes out only its own entries when the file changed after the install, and keeps the backup', async () => {
    const { env, dir, file } = setup();
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, REAL_SETTINGS);
    await runCli(['hooks', 'install'], { env });
    const edited = read(file);
    edited.alwaysThinkingEnabled = true;
    writeFileSync(file, `${JSON.stringify(edited, null, 4)}\n`);
    const r = await runCli(['hooks', 'uninstall'], { env });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/took out handoff's 2 hook entries/);
    expect(r.out).toMatch(/the backup written at install is still there/);
    const after = read(file);
    expect(after.alwaysThinkingEnabled).toBe(true);
    expect(after.hooks).toEqual((JSON.parse(REAL_SETTINGS) as Settings).hooks);
    expect(after.statusLine).toEqual((JSON.parse(REAL_SETTINGS) as Settings).statusLine);
  });

  it('writes through a symlinked settings.json (dotfile managers link it)', async () => {
    const { env, dir, file } = setup();
    const dotfiles = tempDir('handoff-dotfiles-');
    writeFileSync(join(dotfiles, 'claude-settings.json'), '{\n  "model": "opus"\n}\n');
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(dotfiles, 'claude-settings.json'), file);
    const r = await runCli(['hooks', 'install'], { env });
    expect(r.code, r.err).toBe(0);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(commands(read(join(dotfiles, 'claude-settings.json')), 'SessionStart')).toHaveLength(1);
  });

  it('--dry-run prints the file it would write and writes nothing', async () => {
    const { env, dir } = setup();
    const r = await runCli(['hooks', 'install', '--dry-run'], { env });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/would install handoff's hooks/);
    expect(r.out).toMatch(/"SessionStart": \[/);
    expect(existsSync(dir)).toBe(false);
  });

  it('installs at the top of the repository with --scope project, and honours CLAUDE_CONFIG_DIR for the user', async () => {
    const repo = gitRepo('project');
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
    git(repo, 'status');
    const { env } = setup();
    const r = await runCli(['hooks', 'install', '--scope', 'project'], { env, cwd: join(repo, 'src', 'deep') });
    expect(r.code, r.err).toBe(0);
    expect(commands(read(join(repo, '.claude', 'settings.json')), 'PreCompact')).toHaveLength(1);
    const custom = join(tempDir(), 'claude-config');
    const u = await runCli(['hooks', 'install'], { env: { ...env, CLAUDE_CONFIG_DIR: custom } });
    expect(u.code).toBe(0);
    expect(existsSync(join(custom, 'settings.json'))).toBe(true);
  });

  it('status says what is installed where', async () => {
    const { env } = setup();
    await runCli(['hooks', 'install'], { env });
    const r = await runCli(['hooks', 'status', '--harness', 'claude', '--scope', 'user'], { env });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^installed +Claude Code \(user\) .*settings\.json: SessionStart \(startup\|resume\|clear\|compact\), PreCompact; status line handoff's$/m);
    const j = JSON.parse((await runCli(['hooks', 'status', '--json'], { env })).out) as { targets: { target: { harness: string }; present: unknown }[] };
    expect(j.targets.map((t) => t.target.harness)).toEqual(['claude', 'codex']);
  });
});

describe('handoff hooks install --harness codex', () => {
  /** A `codex` on PATH that answers --version like the real one. */
  function fakeCodex(version: string): NodeJS.ProcessEnv {
    const bin = tempDir('handoff-bin-');
    writeFileSync(join(bin, 'codex'), `#!/bin/sh\necho "codex-cli ${version}"\n`, { mode: 0o755 });
    const env = testEnv();
    return { ...env, PATH: `${bin}:${env.PATH ?? ''}` };
  }

  it('asks the installed codex for its version and installs what that version runs', async () => {
    const env = fakeCodex('0.153.3');
    const r = await spawnCli(['hooks', 'install', '--harness', 'codex'], { env });
    expect(r.code, r.err).toBe(0);
    const s = read(join(env.HOME as string, '.codex', 'hooks.json'));
    expect(s.hooks?.SessionStart?.[0]?.matcher).toBe('startup|resume|clear|compact');
    expect(commands(s, 'SessionStart')[0]).toMatch(/ hook session-start --harness codex$/);
    expect(commands(s, 'PreCompact')[0]).toMatch(/ hook pre-compact --harness codex$/);
    expect(s.statusLine).toBeUndefined();
    expect(r.out).toMatch(/\[features\] hooks = true/);
    expect(r.out).toMatch(/trusted/);
    expect(r.out).toMatch(/source "compact": the handoff comes back then/);
  });

  it('says plainly when the version cannot give the handoff back after a compaction', async () => {
    const env = fakeCodex('0.120.0');
    const r = await spawnCli(['hooks', 'install', '--harness', 'codex'], { env });
    expect(r.code, r.err).toBe(0);
    const s = read(join(env.HOME as string, '.codex', 'hooks.json'));
    expect(Object.keys(s.hooks ?? {})).toEqual(['SessionStart']);
    expect(s.hooks?.SessionStart?.[0]?.matcher).toBe('startup|resume|clear');
    expect(r.out).toMatch(/cannot come back by itself/);
    expect(r.out).toMatch(/\[features\] codex_hooks = true/);
  });

  it('installs nothing for a Codex without hooks', async () => {
    const env = fakeCodex('0.98.0');
    const r = await spawnCli(['hooks', 'install', '--harness', 'codex'], { env });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Codex 0\.98\.0 has no hooks \(they arrived in 0\.114\.0\)/);
    expect(existsSync(join(env.HOME as string, '.codex', 'hooks.json'))).toBe(false);
  });

  it('keeps other tools\' Codex hooks and takes out only its own', async () => {
    const env = testEnv();
    const file = join(env.HOME as string, '.codex', 'hooks.json');
    mkdirSync(join(env.HOME as string, '.codex'), { recursive: true });
    const theirs = '{\n  "hooks": {\n    "SessionStart": [\n      {\n        "matcher": "startup|resume",\n        "hooks": [\n          {\n            "type": "command",\n            "command": "python3 ~/.codex/memory.py",\n            "timeout": 10\n          }\n        ]\n      }\n    ]\n  }\n}\n';
    writeFileSync(file, theirs);
    const r = await runCli(['hooks', 'install', '--harness', 'codex', '--codex-version', '0.150.0'], { env });
    expect(r.code, r.err).toBe(0);
    expect(commands(read(file), 'SessionStart')).toEqual(['python3 ~/.codex/memory.py', expect.stringMatching(/hook session-start --harness codex$/)]);
    const u = await runCli(['hooks', 'uninstall', '--harness', 'codex'], { env });
    expect(u.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(theirs);
  });

  it('status and doctor judge an install by its record, and notice a program that is gone', async () => {
    const env = testEnv();
    await runCli(['hooks', 'install', '--harness', 'codex', '--codex-version', '0.120.0'], { env });
    const st = await runCli(['hooks', 'status', '--harness', 'codex', '--scope', 'user', '--codex-version', '0.150.0'], { env });
    expect(st.out).toMatch(/^installed +Codex \(user\) .*hooks\.json: SessionStart \(startup\|resume\|clear\)$/m);
    const doctor = await runCli(['doctor'], { env });
    expect(doctor.out).toMatch(/ok +hooks +Codex \(user\) .*the hook answered in \d+ ms/);
    // node moved away since the install: the commands cannot start.
    const file = join(env.HOME as string, '.codex', 'hooks.json');
    const record = join(env.HOME as string, '.codex', '.handoff-hooks.json');
    for (const f of [file, record]) writeFileSync(f, readFileSync(f, 'utf8').split(process.execPath).join('/gone/bin/node'));
    const broken = await runCli(['hooks', 'status', '--harness', 'codex', '--scope', 'user'], { env });
    expect(broken.out).toMatch(/^broken +Codex \(user\) .*: \/gone\/bin\/node does not exist any more: run `handoff hooks install` again$/m);
    const doctorAfter = await runCli(['doctor'], { env });
    expect(doctorAfter.code).toBe(1);
    expect(doctorAfter.out).toMatch(/FAIL +hooks +Codex \(user\)/);
  });
});
