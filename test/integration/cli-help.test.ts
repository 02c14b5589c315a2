import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/registry.js';
import { renderStatus } from '../../src/cli/status-view.js';
import type { StatusResult } from '../../src/control/protocol.js';
import { spawnSync } from 'node:child_process';
import { CLI, runCli, tempDir, testEnv } from '../helpers.js';

describe('help', () => {
  it('lists every command with one line each', async () => {
    const r = await runCli(['--help'], { env: testEnv() });
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.out).toMatch(new RegExp(`^  ${c.name} +\\S.*$`, 'm'));
    expect(COMMANDS.map((c) => c.name).sort()).toEqual(
      ['build', 'check', 'checkpoint', 'config', 'daemon', 'doctor', 'export', 'finalize', 'hook', 'hooks', 'list', 'rename', 'resume', 'retitle', 'service', 'show', 'skill', 'status', 'verify'].sort(),
    );
  });

  it.each(COMMANDS.map((c) => [c.name]))('`handoff %s --help` gives usage, options and an example', async (name) => {
    const r = await runCli([name, '--help'], { env: testEnv() });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^usage: handoff ${name}`, 'm'));
    expect(r.out).toMatch(/^options for every command:$/m);
    expect(r.out).toMatch(new RegExp(`^example:\\n  handoff ${name}`, 'm'));
  });

  it('suggests the closest command for a typo, with exit 2', async () => {
    const r = await runCli(['stauts'], { env: testEnv() });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown command "stauts"/);
    expect(r.err).toMatch(/did you mean `handoff status`\?/);
    const far = await runCli(['frobnicate'], { env: testEnv() });
    expect(far.code).toBe(2);
    expect(far.err).toMatch(/`handoff --help` lists every command/);
  });

  it('suggests the closest option for a typo, with exit 2', async () => {
    const r = await runCli(['build', 'x.jsonl', '--alow-bad-lines'], { env: testEnv() });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown option --alow-bad-lines/);
    expect(r.err).toMatch(/did you mean --allow-bad-lines\?/);
    const v = await runCli(['verify', '--sourec', 'abc'], { env: testEnv() });
    expect(v.code).toBe(2);
    expect(v.err).toMatch(/did you mean --source\?/);
  });

  it('prints the help on stderr and exits 2 when no command is given, and says options go after the command', async () => {
    const bare = await runCli([], { env: testEnv() });
    expect(bare.code).toBe(2);
    expect(bare.out).toBe('');
    expect(bare.err).toMatch(/^ {2}status +\S/m);
    const early = await runCli(['--root', '/x', 'config'], { env: testEnv() });
    expect(early.code).toBe(2);
    expect(early.err).toMatch(/expected a command first, found the option "--root"\n {2}fix: options go after the command/);
    const far = await runCli(['list', '--frobnicate'], { env: testEnv() });
    expect(far.code).toBe(2);
    expect(far.err).toMatch(/fix: its options are (--[a-z-]+, )+--[a-z-]+ \(see `handoff list --help`\)/);
    expect(far.err).toContain('--project');
  });

  it('refuses extra arguments instead of dropping them, and says to quote a title of several words', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const retitle = await runCli(['retitle', 'abc', 'fix', 'the', 'flaky', 'test'], { env });
    expect(retitle.code).toBe(2);
    expect(retitle.err).toMatch(/handoff retitle: expected at most 2 arguments, found 5 \(extra: "the" "flaky" "test"\)\n {2}fix: put a title of several words in quotes/);
    for (const args of [['list', 'x'], ['config', 'x'], ['status', 'x'], ['doctor', 'x'], ['daemon', 'x'], ['show', 'a', 'b'], ['verify', 'a', 'b'], ['resume', 'a', 'b'], ['check', 'a', 'b'], ['export', 'a', 'b'], ['rename', 'a', 'new', 'proj'], ['skill', 'install', 'x']]) {
      const r = await runCli(args, { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(/expected (no arguments|at most \d arguments?), found \d/);
    }
  });

  it('lists nothing with exit 4 (no handoffs, SPEC §11), saying how to get some', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const r = await runCli(['list'], { env });
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/no handoffs yet in .+\n {2}fix: run `npm start` \(the daemon\) or `handoff build <transcript>`/);
    const j = await runCli(['list', '--json'], { env });
    expect(j.code).toBe(4);
    expect(JSON.parse(j.out)).toEqual([]);
  });

  it('exits 2 with the usage when a command is missing its argument', async () => {
    for (const args of [['build'], ['show'], ['retitle', 'abc'], ['verify'], ['skill', 'uninstall']]) {
      const r = await runCli(args, { env: testEnv() });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(/expected .*\n {2}fix: /);
    }
  });
});

describe('colour', () => {
  const status: StatusResult = {
    name: 'handoffd',
    version: '0.1.0',
    pid: 1,
    root: '/h/.handoffs',
    socket: '/h/.handoffs/.handoffd/handoffd.sock',
    started_at: new Date().toISOString(),
    uptime_s: 5,
    watch: [{ path: '/h/.claude/projects', exists: true, resolved: '/h/.claude/projects', files: 1 }],
    files: 1,
    sessions: [
      {
        id: 's',
        title: null,
        project: 'p',
        harness: 'claude',
        dir: '/d',
        path: '/x',
        state: 'idle',
        turns: 3,
        revision: 1,
        lag_bytes: 0,
        last_build_at: new Date().toISOString(),
        build_ms: 3,
        pressure: { level: 'red', ratio: 0.8, used: 160000, limit: 200000 },
        updated: new Date().toISOString(),
      },
    ],
    queue: { waiting: 0, running: null, live_waiting: 0, in_workers: [] },
    backfill: { total: 0, done: 0, failed: 0, pending: 0, running: false, started_at: null, finished_at: null },
    errors: [],
    errors_dropped: 0,
    unknown_types: {},
    memory: { rss_mb: 90, heap_used_mb: 30 },
    event_loop: { delay_max_ms: 12, delay_p99_ms: 10 },
    connections: { open: 1, max: 128, subscribers: 0, paused: 0, pending_output_bytes: 0, closed_idle: 0, refused: 0 },
  };
  const io = { columns: 80, env: { HOME: '/h' }, now: () => new Date() };

  it('names the transcripts the build workers hold, and says nothing of workers when they hold none', () => {
    const busy = { ...status, queue: { waiting: 3, running: '/h/.claude/projects/p/a.jsonl', live_waiting: 0, in_workers: ['/h/.claude/projects/p/a.jsonl', '/h/.claude/projects/q/b.jsonl'] } };
    expect(renderStatus({ ...io, color: false }, busy)).toMatch(/^build workers: ~\/\.claude\/projects\/p\/a\.jsonl, ~\/\.claude\/projects\/q\/b\.jsonl$/m);
    expect(renderStatus({ ...io, color: false }, status)).not.toMatch(/build workers/);
  });

  it('shows the errors still open, counts those resolved and those given up, and reads an older daemon\'s entries as open', () => {
    const at = new Date().toISOString();
    const entry = (path: string, message: string, resolved_at: string | null) => ({ at, first_at: at, count: 1, path, code: 'HANDOFF_ERR_SOURCE', message, resolved_at });
    const s = { ...status, errors: [entry('/h/a', 'a cannot be listed', at), entry('/h/b', 'b cannot be listed', null), entry('/h/c', 'c cannot be listed', at)], errors_dropped: 4 };
    const text = renderStatus({ ...io, color: false }, s);
    expect(text).toMatch(/^ {2}error ~\/b: b cannot be listed$/m);
    expect(text).not.toMatch(/[ac] cannot be listed/);
    expect(text).toMatch(/^ {2}2 errors since start resolved \(the path builds again, or is gone\); 4 more still failing, not kept \(`handoff status` keeps 50\): the log has each$/m);
    expect(renderStatus({ ...io, color: false }, status)).not.toMatch(/resolved|not kept/);
    // A daemon from before resolved_at and errors_dropped: every entry is open, nothing is counted.
    const old = { ...status, errors: [{ at, first_at: at, count: 1, path: '/h/a', code: 'HANDOFF_ERR_SOURCE', message: 'a cannot be listed' }] } as unknown as StatusResult;
    delete (old as { errors_dropped?: number }).errors_dropped;
    const oldText = renderStatus({ ...io, color: false }, old);
    expect(oldText).toMatch(/^ {2}error ~\/a: a cannot be listed$/m);
    expect(oldText).not.toMatch(/resolved|not kept/);
  });

  it('colours pressure on a terminal, and never with colour off', () => {
    expect(renderStatus({ ...io, color: true }, status)).toContain('\u001b[31mred 80%\u001b[0m');
    expect(renderStatus({ ...io, color: false }, status)).not.toMatch(/\u001b\[/);
  });

  // A real terminal comes from script(1); without it the colour path cannot be reached at all.
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('colours a real terminal, and prints no escape codes there when NO_COLOR is set', () => {
    const run = (extra: NodeJS.ProcessEnv): string => {
      const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-'), TERM: 'xterm', ...extra });
      delete env.NO_COLOR;
      Object.assign(env, extra);
      return spawnSync('script', ['-qec', `${process.execPath} ${CLI} doctor`, '/dev/null'], { env, encoding: 'utf8' }).stdout;
    };
    expect(run({})).toMatch(/\u001b\[32mok/);
    expect(run({ NO_COLOR: '1' })).not.toMatch(/\u001b\[/);
  });
});

describe('error messages', () => {
  it('name what was expected, what was found, and the fix', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const missing = await runCli(['build', '/nowhere/at/all.jsonl'], { env });
    expect(missing.code).toBe(4);
    expect(missing.err).toMatch(/\/nowhere\/at\/all\.jsonl: cannot read transcript: no such file\n {2}fix: check the path/);
    const folder = await runCli(['build', tempDir('handoff-dir-')], { env });
    expect(folder.err).toMatch(/expected a transcript file, found a folder\n {2}fix: /);
    const harness = await runCli(['build', 'x.jsonl', '--harness', 'gemini'], { env });
    expect(harness.err).toMatch(/--harness must be one of claude, codex, generic, text, found "gemini"\n {2}fix: /);
    const none = await runCli(['show', 'abc'], { env });
    expect(none.err).toMatch(/no handoffs in .*\n {2}fix: build one with `handoff build <transcript>`/);
    const daemon = await runCli(['status'], { env });
    expect(daemon.err).toMatch(/no daemon is running \(nothing answers on .*handoffd\.sock\)\n {2}fix: start it with `handoff daemon`/);
  });
});
