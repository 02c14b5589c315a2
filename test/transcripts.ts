import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers.js';

/** Small transcripts and repositories written by tests, in the real formats. */

const line = (o: unknown): string => `${JSON.stringify(o)}\n`;

export interface ClaudeOptions {
  sessionId: string;
  cwd: string;
  /** The user's request; a short one is not an objective. */
  request: string;
  /** Todo items; the in-progress one becomes the Next Action. */
  todos?: { content: string; status: 'completed' | 'in_progress' | 'pending' }[];
  reply?: string;
}

/** A Claude Code session: a request, a todo list, a passing `npm test`, and a reply. */
export function claudeTranscript(o: ClaudeOptions): string {
  const base = { isSidechain: false, userType: 'external', cwd: o.cwd, sessionId: o.sessionId, version: '2.0.55' };
  const msg = (id: string, content: unknown[]): Record<string, unknown> => ({
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content,
    stop_reason: null,
    usage: { input_tokens: 10, cache_creation_input_tokens: 1000, cache_read_input_tokens: 2000, output_tokens: 5 },
  });
  const todos = o.todos ?? [
    { content: 'Write the failing test', status: 'completed' },
    { content: 'Make the parser accept trailing commas', status: 'in_progress' },
    { content: 'Update the changelog', status: 'pending' },
  ];
  return [
    line({ ...base, type: 'user', uuid: 'u1', timestamp: '2026-03-01T09:00:00.000Z', message: { role: 'user', content: o.request } }),
    line({ ...base, type: 'assistant', uuid: 'a1', timestamp: '2026-03-01T09:00:01.000Z', message: msg('msg_1', [{ type: 'tool_use', id: 'toolu_todo', name: 'TodoWrite', input: { todos: todos.map((t) => ({ ...t, activeForm: t.content })) } }]) }),
    line({ ...base, type: 'user', uuid: 'u2', timestamp: '2026-03-01T09:00:02.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_todo', content: 'Todos have been modified successfully.' }] } }),
    line({ ...base, type: 'assistant', uuid: 'a2', timestamp: '2026-03-01T09:00:03.000Z', message: msg('msg_2', [{ type: 'tool_use', id: 'toolu_test', name: 'Bash', input: { command: 'npm test', description: 'run the tests' } }]) }),
    line({ ...base, type: 'user', uuid: 'u3', timestamp: '2026-03-01T09:00:04.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_test', content: 'Tests: 12 passed', is_error: false }] }, toolUseResult: { stdout: 'Tests: 12 passed', stderr: '', interrupted: false } }),
    line({ ...base, type: 'assistant', uuid: 'a3', timestamp: '2026-03-01T09:00:05.000Z', message: msg('msg_3', [{ type: 'text', text: o.reply ?? 'The test is in place; next I make the parser accept trailing commas.' }]) }),
  ].join('');
}

/** Writes a transcript into a fresh folder (never inside the repository it talks about). */
export function writeTranscript(name: string, text: string): string {
  const path = join(tempDir('handoff-work-'), name);
  writeFileSync(path, text);
  return path;
}

/** git with an identity and no signing, so commits work on any machine. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=handoff test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A repository on branch main with one commit and a clean tree (real path, as git reports it). */
export function gitRepo(name = 'parser'): string {
  const repo = join(realpathSync(tempDir('handoff-repo-')), name);
  mkdirSync(join(repo, 'src'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'src', 'parse.ts'), 'export const parse = (s: string) => JSON.parse(s);\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'initial');
  return repo;
}

/**
 * Claude Code's task tools, line by line, for a session with the fields `base` gives every line:
 * a TaskCreate, its result (the text, and unless `textOnly` the structured `toolUseResult.task`),
 * a failed result, a TaskUpdate, any other call. Each line is a second after the one before.
 */
export function claudeTaskLines(base: Record<string, unknown>) {
  let clock = 0;
  const ts = (): string => new Date(Date.UTC(2026, 0, 1, 10) + (clock += 1000)).toISOString();
  const call = (id: string, name: string, input: Record<string, unknown>): Record<string, unknown> => ({
    ...base,
    type: 'assistant',
    uuid: `a-${id}`,
    timestamp: ts(),
    message: { id: `m-${id}`, role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id, name, input }] },
  });
  const result = (id: string, content: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    ...base,
    type: 'user',
    uuid: `r-${id}`,
    timestamp: ts(),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, ...extra }] },
  });
  const create = (id: string, subject: string): Record<string, unknown> => call(id, 'TaskCreate', { subject, description: `why ${subject}` });
  const created = (id: string, taskId: string, subject: string, textOnly = false): Record<string, unknown> => {
    const line = result(id, `Task #${taskId} created successfully: ${subject}`);
    return textOnly ? line : { ...line, toolUseResult: { task: { id: taskId, subject } } };
  };
  return {
    ask: (text: string): Record<string, unknown> => ({ ...base, type: 'user', uuid: `u-${clock}`, timestamp: ts(), message: { role: 'user', content: text } }),
    call,
    result,
    create,
    created,
    failed: (id: string, text: string): Record<string, unknown> => result(id, text, { is_error: true }),
    update: (id: string, taskId: string, status: string): Record<string, unknown> => call(id, 'TaskUpdate', { taskId, status }),
    /** Tasks `from` to `from + n - 1`, each created with its result. */
    tasks: (n: number, from = 1): Record<string, unknown>[] => {
      const lines: Record<string, unknown>[] = [];
      for (let i = from; i < from + n; i += 1) lines.push(create(`c${i}`, `task ${i}`), created(`c${i}`, String(i), `task ${i}`));
      return lines;
    },
  };
}
