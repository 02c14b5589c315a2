import type { ResolvedConfig } from '../config.js';
import { resolveConfig } from '../config.js';
import type { ControlClient } from '../control/client.js';
import { statusLine } from '../core/statusline.js';
import { describeError } from '../errors.js';
import { parse, str } from '../cli/args.js';
import type { OptionSpec } from '../cli/args.js';
import type { Io } from '../cli/io.js';
import type { HookContext, HookHarness } from './context.js';
import { budgetClock, connectDaemon } from './context.js';
import { parseHookInput } from './input.js';

/**
 * `handoff hook <event>`, as a harness runs it: JSON on stdin, exactly the JSON (or line) the
 * harness expects on stdout, problems on stderr, and exit 0 whatever happens — a hook must never
 * fail or block the agent's own command. Kept apart from the other commands so that running it
 * loads only what it needs (the CLI loads this module before anything else for `hook`).
 */

export const HOOK_EVENTS = ['session-start', 'pre-compact', 'statusline'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
export const HOOK_HARNESSES: readonly HookHarness[] = ['claude', 'codex'];

export const HOOK_OPTIONS: Record<string, OptionSpec> = {
  harness: { type: 'string', arg: 'H', description: 'who runs it: claude (default) or codex' },
};

/** The longest a hook waits for its stdin to end; harnesses write it at once and close it. */
const STDIN_MS = 100;

/** What the harness reads on stdout for each event. */
export function hookOutput(event: HookEvent, harness: HookHarness, payload: string | null): string {
  if (payload === null || payload.length === 0) return '';
  if (event === 'session-start') return JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: payload } });
  if (event === 'statusline') return harness === 'claude' ? payload : '';
  // PreCompact cannot add to the conversation; what it did goes to stderr.
  return '';
}

function isEvent(s: string | undefined): s is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(s ?? '');
}

/** Each event loads only its own modules: the status line runs after every message. */
async function dispatch(event: HookEvent, ctx: HookContext, daemon: ControlClient | null, colour: boolean): Promise<string | null> {
  if (event === 'session-start') return (await import('./session-start.js')).sessionStart(ctx, daemon);
  if (event === 'pre-compact') {
    const file = await (await import('./pre-compact.js')).preCompact(ctx, daemon);
    if (file) ctx.warn(`pre-compact: checkpoint written to history/${file}`);
    return null;
  }
  return statusLine(await (await import('./statusline.js')).statusLineState(ctx, daemon), colour);
}

/**
 * With a daemon the time budget is hard: the daemon does the work and an answer not ready in time
 * is given up. Without one, only small work is started (see DIRECT_BUILD_MAX_BYTES) and it is
 * let finish: a build stopped half-way would only have to be redone.
 */
async function run(event: HookEvent, base: Omit<HookContext, 'direct'>, colour: boolean): Promise<string | null> {
  const link = await connectDaemon(base);
  const daemon = link.client;
  const ctx: HookContext = { ...base, direct: link.absent };
  try {
    const work = dispatch(event, ctx, daemon, colour);
    return daemon ? await withDeadline(work, ctx.remaining, ctx.warn, event) : await work;
  } finally {
    daemon?.close();
  }
}

export async function runHook(argv: readonly string[], io: Io): Promise<number> {
  const origin = io.startedAtMs ?? performance.now();
  const warn = (m: string): void => io.err(`handoff hook: ${m}`);
  let event: HookEvent = 'session-start';
  let harness: HookHarness = 'claude';
  let out = '';
  try {
    const args = parse('hook', argv, HOOK_OPTIONS);
    const given = args.positionals[0];
    harness = (str(args, 'harness') ?? 'claude') as HookHarness;
    if (!isEvent(given)) {
      warn(`unknown event ${given === undefined ? '(none given)' : `"${given}"`}: expected one of ${HOOK_EVENTS.join(', ')}; doing nothing (a hook never fails its harness)`);
      return 0;
    }
    event = given;
    if (!HOOK_HARNESSES.includes(harness)) {
      warn(`--harness must be claude or codex, found "${harness}"; answering as for claude`);
      harness = 'claude';
    }
    let config: ResolvedConfig;
    try {
      config = resolveConfig({ cwd: io.cwd, env: io.env, rootFlag: str(args, 'root') });
    } catch (e) {
      warn(`${describeError(e)}; doing nothing`);
      if (event === 'statusline' && harness === 'claude') out = 'handoff · config error (run `handoff config`)';
      return 0;
    }
    const remaining = budgetClock(config.options.hooks.time_budget_ms, origin);
    // Read whatever the budget says: a hook that cannot see its input cannot answer at all.
    const raw = io.readStdin ? await io.readStdin(STDIN_MS) : '';
    const input = parseHookInput(raw, io.cwd);
    if (!input.parsed && raw.trim().length > 0) warn('stdin is not a JSON object; answering with what is known');
    const ctx: Omit<HookContext, 'direct'> = { config, input, harness, now: io.now(), remaining, warn };
    const colour = io.env.NO_COLOR === undefined || io.env.NO_COLOR === '';
    const answer = await run(event, ctx, colour);
    out = hookOutput(event, harness, answer);
  } catch (e) {
    warn(`${event}: ${describeError(e)}; answering with nothing`);
    if (event === 'statusline' && harness === 'claude') out = 'handoff · error (see `handoff doctor`)';
  } finally {
    if (out.length > 0) io.out(out);
  }
  return 0;
}

/**
 * The hard time budget: an answer not ready in time is given up (null), whatever is still running.
 * A daemon call left behind finishes in the daemon; the process exits once its socket is closed.
 */
async function withDeadline<T>(work: Promise<T>, remaining: () => number, warn: (m: string) => void, event: string): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      warn(`${event}: out of time (the time budget is hooks.time_budget_ms); answering with nothing`);
      resolve(null);
    }, Math.max(0, remaining()));
    timer.unref();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
