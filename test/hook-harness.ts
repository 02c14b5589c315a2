import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from './helpers.js';

/**
 * Hooks run the way a harness runs them: a child process with the harness's JSON on stdin, and
 * Claude Code transcripts grown line by line in their real format, compaction included.
 */

export interface HookRun {
  code: number | null;
  out: string;
  err: string;
  ms: number;
}

export function runHook(event: string, input: unknown, opts: { env: NodeJS.ProcessEnv; cwd: string; args?: readonly string[]; rawStdin?: string }): Promise<HookRun> {
  return timedRun(process.execPath, [CLI, 'hook', event, ...(opts.args ?? [])], opts.rawStdin ?? JSON.stringify(input), opts);
}

/** Spawns a command with `stdin` written to it, timing it from spawn to exit. */
function timedRun(file: string, args: readonly string[], stdin: string, opts: { env: NodeJS.ProcessEnv; cwd: string }): Promise<HookRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: opts.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err, ms: performance.now() - started }));
    child.stdin.end(stdin);
  });
}

/** Where Claude Code keeps a session of a folder: `projects/<folder with / as ->/<session>.jsonl`. */
export function claudeTranscriptPath(claudeDir: string, cwd: string, sessionId: string): string {
  const dir = join(claudeDir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  return join(dir, `${sessionId}.jsonl`);
}

/** Appends Claude Code lines to a transcript, as Claude Code does while a session runs. */
export class ClaudeSession {
  private n = 0;
  private parent: string | null = null;
  private msg = 0;
  private used = 20_000;

  constructor(
    readonly path: string,
    readonly sessionId: string,
    readonly cwd: string,
  ) {}

  private base(): Record<string, unknown> {
    return { parentUuid: this.parent, isSidechain: false, userType: 'external', cwd: this.cwd, sessionId: this.sessionId, version: '2.0.55', gitBranch: 'main' };
  }

  private write(line: Record<string, unknown>): void {
    this.n += 1;
    const uuid = `${this.sessionId.slice(0, 8)}-${this.n}`;
    const full = { ...this.base(), ...line, uuid, timestamp: new Date(Date.UTC(2026, 2, 1, 9, 0, this.n)).toISOString() };
    appendFileSync(this.path, `${JSON.stringify(full)}\n`);
    this.parent = uuid;
  }

  private assistant(content: unknown[]): void {
    this.msg += 1;
    this.used += 3000;
    this.write({ type: 'assistant', message: { id: `msg_${this.sessionId.slice(0, 4)}_${this.msg}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, stop_reason: null, usage: { input_tokens: 10, cache_creation_input_tokens: 1000, cache_read_input_tokens: this.used, output_tokens: 20 } } });
  }

  user(text: string): this {
    this.write({ type: 'user', message: { role: 'user', content: text } });
    return this;
  }

  say(text: string): this {
    this.assistant([{ type: 'text', text }]);
    return this;
  }

  todos(items: { content: string; status: 'completed' | 'in_progress' | 'pending' }[]): this {
    const id = `toolu_todo_${this.n}`;
    this.assistant([{ type: 'tool_use', id, name: 'TodoWrite', input: { todos: items.map((t) => ({ ...t, activeForm: t.content })) } }]);
    this.write({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'Todos have been modified successfully.' }] } });
    return this;
  }

  bash(command: string, output: string, failed: boolean): this {
    const id = `toolu_bash_${this.n}`;
    this.assistant([{ type: 'tool_use', id, name: 'Bash', input: { command, description: 'run it' } }]);
    this.write({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: failed ? `Exit code 1\n${output}` : output, is_error: failed }] }, toolUseResult: failed ? `Error: Exit code 1\n${output}` : { stdout: output, stderr: '', interrupted: false } });
    return this;
  }

  /** What Claude Code writes when it compacts: the boundary, then the summary as a user line. */
  compact(trigger: 'auto' | 'manual', summary: string): this {
    this.write({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', compactMetadata: { trigger, preTokens: this.used }, logicalParentUuid: this.parent, level: 'info' });
    this.write({ type: 'user', isCompactSummary: true, isVisibleInTranscriptOnly: true, message: { role: 'user', content: summary } });
    return this;
  }
}

/** The JSON Claude Code sends a SessionStart hook. */
export function sessionStartInput(s: { sessionId: string; path: string; cwd: string }, source: 'startup' | 'resume' | 'clear' | 'compact'): Record<string, unknown> {
  return { session_id: s.sessionId, transcript_path: s.path, cwd: s.cwd, hook_event_name: 'SessionStart', source };
}

/** The JSON Claude Code sends a PreCompact hook. */
export function preCompactInput(s: { sessionId: string; path: string; cwd: string }, trigger: 'auto' | 'manual'): Record<string, unknown> {
  return { session_id: s.sessionId, transcript_path: s.path, cwd: s.cwd, hook_event_name: 'PreCompact', trigger, custom_instructions: '' };
}

/** The JSON Claude Code sends a status line command. */
export function statusLineInput(s: { sessionId: string; path: string; cwd: string }): Record<string, unknown> {
  return {
    hook_event_name: 'Status',
    session_id: s.sessionId,
    transcript_path: s.path,
    cwd: s.cwd,
    model: { id: 'claude-sonnet-4-5-20250929', display_name: 'Sonnet 4.5' },
    workspace: { current_dir: s.cwd, project_dir: s.cwd },
    version: '2.0.55',
    output_style: { name: 'default' },
    cost: { total_cost_usd: 0.12, total_duration_ms: 45_000, total_api_duration_ms: 2300, total_lines_added: 10, total_lines_removed: 2 },
    context_window: { total_input_tokens: 15_234, total_output_tokens: 4521, context_window_size: 200_000 },
  };
}

/** Runs a settings.json command as Claude Code does: through a shell, the harness's JSON on stdin. */
export function runShellCommand(command: string, input: unknown, opts: { env: NodeJS.ProcessEnv; cwd: string }): Promise<HookRun> {
  return timedRun('/bin/sh', ['-c', command], typeof input === 'string' ? input : JSON.stringify(input), opts);
}
