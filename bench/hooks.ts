import { spawn } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { shellWord } from '../src/hooks/install.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBenchDaemon } from './daemon-proc.js';
import type { Source } from './generate.js';
import { loadSources, rewrite, transcriptText } from './generate.js';
import { median, percentile, round } from './metrics.js';
import { rng } from './soak-core.js';

/**
 * The hooks as a harness runs them: a fresh `node dist/cli.js hook <event>` process with the
 * harness's JSON on stdin, timed from spawn to exit, with a daemon running. Before each
 * `session-start` a new turn is appended, so every run makes the daemon catch up on new bytes
 * of a large transcript. A bare `node -e 0` is timed in the same loop: what a hook costs beyond
 * starting Node is the difference.
 */

export interface HookFigures {
  runs: number;
  transcript_bytes: number;
  node_p50_ms: number;
  session_start_p50_ms: number;
  session_start_p99_ms: number;
  statusline_p50_ms: number;
  statusline_p99_ms: number;
  /** The status line `handoff hooks install` writes: `sh hooks/handoff-statusline.sh <run dir>`, through `sh -c` as Claude Code runs it. */
  statusline_shell_p50_ms: number;
  statusline_shell_p99_ms: number;
  /** Shell status-line runs that printed the session's line (not "not built yet"). */
  statusline_shell_answered: number;
  /** With a handoff.config.json to validate (ajv is loaded only then). */
  session_start_config_p50_ms: number;
  statusline_config_p50_ms: number;
  /** Runs whose answer was complete: session-start printed a digest that was not marked stale. */
  session_start_answered: number;
  digest_tokens_p50: number;
  /** The host's 1-minute load average before and after the runs: the hooks share the CPU with it. */
  load_avg: [number, number];
}

interface Timed {
  ms: number;
  out: string;
  code: number | null;
}

function timed(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, stdin: string, program = process.execPath): Promise<Timed> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - start, out, code }));
    child.stdin.end(stdin);
  });
}

export async function hooksBench(cli: string, o: { transcriptBytes: number; runs: number; seed: number }): Promise<HookFigures> {
  const base = await mkdtemp(join(tmpdir(), 'handoff-bench-hooks-'));
  try {
    const rand = rng(o.seed);
    const { sources } = loadSources();
    const claude = sources.filter((s) => s.harness === 'claude' && s.lines.length > 100).sort((a, b) => b.lines.length - a.lines.length)[0] ?? (sources[0] as Source);
    const project = join(base, 'work', 'bench-project');
    await mkdir(project, { recursive: true });
    const watch = join(base, 'watch', '-home-dev-bench-project');
    await mkdir(watch, { recursive: true });
    const path = join(watch, '33333333-3333-4333-8333-333333333333.jsonl');
    const id = basename(path, '.jsonl');
    await writeFile(path, transcriptText(claude, o.transcriptBytes, rand, id));
    const turns = claude.lines.filter((l) => l.includes('"type":"assistant"') && l.includes('"type":"text"') && l.length < 8000);
    const root = join(base, 'store');
    const d = await startBenchDaemon(cli, join(base, 'home'), root, [join(base, 'watch')]);
    try {
      await d.client.call('flush', { timeout_ms: 600_000 }, 610_000);
      // The hooks run in a home of their own: without a config file unless one is asked for.
      const hookHome = join(base, 'hook-home');
      const configHome = join(base, 'hook-home-config');
      await mkdir(join(configHome, '.config', 'handoff'), { recursive: true });
      await writeFile(join(configHome, '.config', 'handoff', 'handoff.config.json'), JSON.stringify({ hooks: { token_budget: 2000 } }));
      const envFor = (home: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), HANDOFFS_ROOT: root, NO_COLOR: '1' });
      const start = JSON.stringify({ session_id: id, transcript_path: path, cwd: project, hook_event_name: 'SessionStart', source: 'compact' });
      const status = JSON.stringify({ hook_event_name: 'Status', session_id: id, transcript_path: path, cwd: project, workspace: { current_dir: project, project_dir: project }, model: { id: 'claude-sonnet-4-5' } });
      const t: Record<'node' | 'start' | 'line' | 'shell' | 'startCfg' | 'lineCfg', number[]> = { node: [], start: [], line: [], shell: [], startCfg: [], lineCfg: [] };
      const tokens: number[] = [];
      const loadBefore = round(loadavg()[0] ?? 0);
      let answered = 0;
      let shellAnswered = 0;
      // The command exactly as `handoff hooks install` writes it (src/cli/commands/hooks.ts).
      const shellLine = ['sh', join(dirname(cli), '..', 'hooks', 'handoff-statusline.sh'), join(root, '.handoffd')].map(shellWord).join(' ');
      for (let i = 0; i < o.runs; i += 1) {
        t.node.push((await timed(['-e', '0'], envFor(hookHome), project, '')).ms);
        await appendFile(path, `${rewrite(turns[i % turns.length] as string, 'claude', id, rand)}\n`);
        const s = await timed([cli, 'hook', 'session-start'], envFor(hookHome), project, start);
        t.start.push(s.ms);
        try {
          const ctx = (JSON.parse(s.out) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
          if (!ctx.includes('\nNote: ')) answered += 1;
          tokens.push(Math.ceil(ctx.length / 3));
        } catch {
          // no answer in time: counted by `answered`
        }
        t.line.push((await timed([cli, 'hook', 'statusline'], envFor(hookHome), project, status)).ms);
        const sh = await timed(['-c', shellLine], envFor(hookHome), project, status, '/bin/sh');
        t.shell.push(sh.ms);
        if (sh.out.startsWith('handoff · ctx')) shellAnswered += 1;
        t.startCfg.push((await timed([cli, 'hook', 'session-start'], envFor(configHome), project, start)).ms);
        t.lineCfg.push((await timed([cli, 'hook', 'statusline'], envFor(configHome), project, status)).ms);
        await sleep(20);
      }
      return {
        runs: o.runs,
        transcript_bytes: o.transcriptBytes,
        node_p50_ms: round(median(t.node)),
        session_start_p50_ms: round(median(t.start)),
        session_start_p99_ms: round(percentile(t.start, 99)),
        statusline_p50_ms: round(median(t.line)),
        statusline_p99_ms: round(percentile(t.line, 99)),
        statusline_shell_p50_ms: round(median(t.shell)),
        statusline_shell_p99_ms: round(percentile(t.shell, 99)),
        statusline_shell_answered: shellAnswered,
        session_start_config_p50_ms: round(median(t.startCfg)),
        statusline_config_p50_ms: round(median(t.lineCfg)),
        session_start_answered: answered,
        digest_tokens_p50: tokens.length > 0 ? median(tokens) : 0,
        load_avg: [loadBefore, round(loadavg()[0] ?? 0)],
      };
    } finally {
      await d.stop();
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
