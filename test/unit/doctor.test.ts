import { describe, expect, it } from 'vitest';
import type { Facts } from '../../src/doctor/checks.js';
import { diagnose, hooksChecks, inotifyChecks, watchChecks } from '../../src/doctor/checks.js';
import { render } from '../../src/cli/commands/doctor.js';

function facts(over: Partial<Facts> = {}): Facts {
  return {
    node: { version: '20.20.2', required: '20.19.0' },
    config: { file: null, error: null },
    store: { root: '/home/me/.handoffs', exists: true, writable: true, mode: 0o40700, parentWritable: true },
    socket: { path: '/home/me/.handoffs/.handoffd/handoffd.sock', bytes: 42, limit: 107 },
    watch: [{ path: '/home/me/.claude/projects', exists: true, transcripts: 120, folders: 14 }],
    inotify: { maxUserWatches: 65536, maxUserInstances: 128 },
    daemon: { running: true, pid: 42, version: '0.1.0', files: 120 },
    service: { supported: true, installed: true, enabled: 'yes', active: 'yes' },
    claude: [{ settings: '/home/me/.claude/settings.json', cleanupPeriodDays: 99999, exists: true }],
    hooks: [{ harness: 'claude', scope: 'user', settings: '/home/me/.claude/settings.json', verdict: 'installed', detail: 'SessionStart, PreCompact', probe: { ms: 120, ok: true, error: null } }],
    ...over,
  };
}

describe('handoff doctor', () => {
  it('passes a healthy machine, each line ok or an informational warning', () => {
    const lines = diagnose(facts());
    expect(lines.filter((l) => l.verdict === 'fail')).toEqual([]);
    expect(lines.map((l) => l.name)).toEqual(['node', 'config', 'store', 'socket', 'watch', 'inotify', 'inotify', 'daemon', 'service', 'hooks', 'claude retention']);
  });

  it('warns about a watch folder that does not exist yet, and says it will be picked up', () => {
    const [line] = watchChecks(facts({ watch: [{ path: '/home/me/.codex/sessions', exists: false, transcripts: 0, folders: 0 }] }));
    expect(line).toMatchObject({ verdict: 'warn' });
    expect(line?.message).toMatch(/does not exist yet .* picks it up when it appears/);
    expect(line?.fix).toMatch(/CODEX_HOME/);
  });

  it('fails when the inotify watch limit is below what the folders need, naming the sysctl', () => {
    const f = facts({ watch: [{ path: '/p', exists: true, transcripts: 20000, folders: 9300 }], inotify: { maxUserWatches: 8192, maxUserInstances: 128 } });
    const [watches] = inotifyChecks(f);
    expect(watches).toMatchObject({ verdict: 'fail' });
    expect(watches?.message).toMatch(/needs about 9300 inotify watches but fs.inotify.max_user_watches is 8192/);
    expect(watches?.fix).toMatch(/sudo sysctl fs\.inotify\.max_user_watches=524288/);
    const near = inotifyChecks(facts({ watch: [{ path: '/p', exists: true, transcripts: 7000, folders: 7000 }], inotify: { maxUserWatches: 8192, maxUserInstances: 64 } }));
    expect(near.map((l) => l.verdict)).toEqual(['warn', 'warn']);
    expect(near[1]?.fix).toMatch(/max_user_instances=512/);
    expect(inotifyChecks(facts({ inotify: null }))).toEqual([]);
  });

  it('counts one watch per folder, however many transcripts it holds (a transcript is seen through its folder)', () => {
    const [watches] = inotifyChecks(facts({ watch: [{ path: '/p', exists: true, transcripts: 9000, folders: 300 }], inotify: { maxUserWatches: 8192, maxUserInstances: 128 } }));
    expect(watches).toMatchObject({ verdict: 'ok', message: 'about 300 of 8192 inotify watches needed' });
  });

  it('fails on an old Node, an invalid config, an unwritable store and a socket path too long', () => {
    const lines = diagnose(
      facts({
        node: { version: '18.19.0', required: '20.19.0' },
        config: { file: '/x/handoff.config.json', error: '/x/handoff.config.json: invalid config at /watch: expected object' },
        store: { root: '/srv/h', exists: true, writable: false, mode: 0o40755, parentWritable: false },
        socket: { path: `/${'x'.repeat(120)}`, bytes: 121, limit: 107 },
      }),
    );
    expect(lines.filter((l) => l.verdict === 'fail').map((l) => l.name)).toEqual(['node', 'config', 'store', 'socket']);
  });

  it('warns when the daemon is not running or the service is not installed, with the command that fixes it', () => {
    const lines = diagnose(facts({ daemon: { running: false }, service: { supported: true, installed: false, enabled: 'no', active: 'no' } }));
    expect(lines.find((l) => l.name === 'daemon')?.fix).toMatch(/handoff daemon/);
    expect(lines.find((l) => l.name === 'service')?.fix).toBe('handoff service install');
  });

  it('states Claude Code retention, using its default of 30 days when the setting is absent', () => {
    const [c] = diagnose(facts({ claude: [{ settings: '/h/.claude/settings.json', cleanupPeriodDays: null, exists: false }] })).filter((l) => l.name === 'claude retention');
    expect(c?.message).toMatch(/^Claude Code deletes transcripts after 30 days \(its default: there is no \/h\/\.claude\/settings\.json\);/);
    const [unset] = diagnose(facts({ claude: [{ settings: '/h/.claude/settings.json', cleanupPeriodDays: null, exists: true }] })).filter((l) => l.name === 'claude retention');
    expect(unset?.message).toMatch(/after 30 days \(its default: \/h\/\.claude\/settings\.json sets no cleanupPeriodDays\);/);
    const [set] = diagnose(facts({ claude: [{ settings: '/h/.claude/settings.json', cleanupPeriodDays: 365, exists: true }] })).filter((l) => l.name === 'claude retention');
    expect(set?.message).toMatch(/after 365 days \(cleanupPeriodDays in \/h\/\.claude\/settings\.json\);/);
    expect(set?.fix).toBe('raise "cleanupPeriodDays" in /h/.claude/settings.json to keep transcripts longer');
  });

  it('prints one line per check with its fix, and counts failures', () => {
    const text = render({ color: false }, diagnose(facts({ daemon: { running: false } })));
    expect(text).toMatch(/^warn {2}daemon +not running/m);
    expect(text).toMatch(/^\s+fix: start it with `handoff daemon`/m);
    expect(text.trim().split('\n').at(-1)).toMatch(/all checks passed \(\d warnings?\)/);
  });

  it('warns when no harness has the hooks, naming the install command', () => {
    const [line, more] = hooksChecks(facts({ hooks: [{ harness: 'claude', scope: 'user', settings: '/h/.claude/settings.json', verdict: 'absent', detail: 'no such file', probe: null }] }));
    expect(more).toBeUndefined();
    expect(line).toMatchObject({ name: 'hooks', verdict: 'warn' });
    expect(line?.fix).toContain('handoff hooks install');
  });

  it('reports each installed file, with how fast the hook answered', () => {
    const [line] = hooksChecks(facts());
    expect(line).toMatchObject({ verdict: 'ok' });
    expect(line?.message).toContain('answered in 120 ms');
  });

  it('fails installed hooks whose command no longer runs, and a file the hooks cannot be read from', () => {
    const dead = hooksChecks(facts({ hooks: [{ harness: 'claude', scope: 'user', settings: '/s.json', verdict: 'installed', detail: 'x', probe: { ms: 30, ok: false, error: 'spawn /old/node ENOENT' } }] }));
    expect(dead[0]).toMatchObject({ verdict: 'fail' });
    expect(dead[0]?.message).toContain('spawn /old/node ENOENT');
    const broken = hooksChecks(facts({ hooks: [{ harness: 'codex', scope: 'project', settings: '/p/.codex/hooks.json', verdict: 'broken', detail: 'hooks.json: it is not strict JSON', probe: null }] }));
    expect(broken[0]).toMatchObject({ verdict: 'fail' });
    expect(broken[0]?.message).toContain('Codex (project)');
  });
});
