import { sha256Hex } from '../canonical.js';
import type { Fact, Observation, TodoItem } from '../types.js';
import { attachedImages, contentText, formatToolCall, genericText, isObj, num, shellJoin, str } from './extract.js';
import { parseExitCode } from './exit-code.js';
import { asksEscalation, codeModeCalls, stdinOf } from './code-mode.js';
import { patchSides, printedChange, whatChanged } from '../what-changed.js';
import { asksForSecret, codexAnswers, codexUserRequest, requestFact, TYPED_SECRET } from './requests.js';
import type { WriteHow } from '../ledger.js';
import { publisherRedacted } from '../ledger.js';

/**
 * Codex rollouts: `{timestamp, type, payload}` lines. The conversation is written twice: as
 * `response_item`s (what the model saw) and as `event_msg` mirrors for the UI (user_message,
 * agent_message, agent_reasoning; newer versions also `item_completed`). We take one copy,
 * never both: response items once the file has shown one, the mirror only before that (some
 * versions write the mirror first; its twin response item is then dropped by text).
 */

export interface CodexState {
  /** The file has shown a response_item message or reasoning. */
  ri: boolean;
  /**
   * Mirror texts taken before any response item, to drop their twins: `<length>:<sha256>` of
   * each text's head. Digests, not the text: this state is persisted, and raw text in it would
   * keep a credential the redactor removed from everything else.
   */
  mirrors: string[];
  /**
   * Recent `request_user_input` calls, whose outputs are the user's answers: digests of their call
   * ids (askKey), for the reason mirrors are digests. States written before held the ids.
   */
  asks?: string[];
  /**
   * The user messages of the session's opening context (before its first turn began) that its
   * publisher redacted (`[REDACTED_TEXT len=3021 sha=dc9e82a0]`: a length and a digest, no
   * words), and whether a turn began: the same placeholder later is that context loaded again
   * (a resume), not a message of the user's.
   */
  context?: string[];
  started?: boolean;
  /**
   * Command sessions (unified exec's ids) whose latest output ends on a password prompt (`psql -W`,
   * `sudo`, `ssh`): the next `write_stdin` to one types the answer, which no label beside it
   * names (the label is in the output before), so it is masked here. The latest 8.
   */
  prompted?: string[];
  /**
   * Questions of recent `request_user_input` calls that ask for a secret ("What is the staging DB
   * password?"): the call's askKey, the question's id, and digests of its options' labels. The
   * answer is the secret with nothing beside it that names it (`{"db":{"answers":["Qc9o…"]}}`),
   * so it is masked here unless it is one of the options. The latest SECRET_ASKS.
   */
  secretAsks?: SecretAsk[];
}

/** How many secret questions are kept until answered: a call may ask several, all of them kept. */
const SECRET_ASKS = 64;

interface SecretAsk {
  k: string;
  q: string;
  o: string[];
}

/** The end of an output that asks for a secret: `Password for user app:`, `[sudo] password for dev:`, `Enter passphrase for key '…':`, `PIN:`. */
const PASSWORD_PROMPT = /(?:pass(?:word|phrase|code)|\bPIN)\b[^\n]{0,80}:[ \t]*$/i;
/** The command session an output reports (unified exec, and code mode's `SESSION_ID=N`). */
const SESSION_OF_OUTPUT = /\bsession ID (\d{1,12})\b|\bSESSION_ID=(\d{1,12})\b/;
export const initialCodexState = (): CodexState => ({ ri: false, mirrors: [], asks: [] });

/** A publisher's placeholder where the arguments were (sanitized corpora): nothing to read. */
const REDACTED_ARGS = /^\[REDACTED_[A-Z_]+/;

const KNOWN_LINE_TYPES = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
  'world_state',
  'token_usage_record',
  'inter_agent_communication_metadata',
]);

const KNOWN_ITEMS = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'web_search_call',
  'tool_search_call',
  'tool_search_output',
  'local_shell_call',
  'agent_message',
  'image_generation_call',
  'ghost_snapshot',
  'compaction',
]);

const KNOWN_EVENTS = new Set([
  'user_message',
  'agent_message',
  'agent_reasoning',
  'agent_reasoning_raw_content',
  'agent_reasoning_section_break',
  'token_count',
  'task_started',
  'task_complete',
  'turn_aborted',
  'context_compacted',
  'exec_command_begin',
  'exec_command_end',
  'exec_command_output_delta',
  'patch_apply_begin',
  'patch_apply_end',
  'mcp_tool_call_begin',
  'mcp_tool_call_end',
  'web_search_begin',
  'web_search_end',
  'item_started',
  'item_completed',
  'error',
  'stream_error',
  'warning',
  'plan_update',
  'turn_diff',
  'thread_settings_applied',
  'thread_name_updated',
  'thread_goal_updated',
  'entered_review_mode',
  'exited_review_mode',
  'view_image_tool_call',
  'image_generation_end',
  'dynamic_tool_call_request',
  'dynamic_tool_call_response',
  'collab_agent_spawn_end',
  'collab_agent_interaction_end',
  'collab_waiting_end',
  'collab_close_end',
  'guardian_assessment',
  'sub_agent_activity',
  'undo_completed',
  'shutdown_complete',
]);

const SHELL_FUNCTIONS = new Set(['exec_command', 'shell', 'container.exec', 'shell_command', 'local_shell', 'unified_exec']);

/** Context Codex injects as user or developer messages; never the user's objective. */
const NOTICE = /^\s*(<(environment_context|user_instructions|INSTRUCTIONS|permissions instructions|user_shell_command|turn_aborted|developer_instructions)>|# AGENTS\.md instructions)/;
/** Of those, the context Codex itself writes as a user message (a shell command the user ran, a turn aborted, are the user's acts). */
const CONTEXT = /^\s*(<(environment_context|user_instructions|INSTRUCTIONS|permissions instructions|developer_instructions)>|# AGENTS\.md instructions)/;

const PATCH_HEADER = /^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;

export function looksLikeCodex(obj: Record<string, unknown>): boolean {
  return typeof obj.type === 'string' && KNOWN_LINE_TYPES.has(obj.type) && 'payload' in obj;
}

/**
 * A call's arguments as the reader needs them. A custom tool's input is raw text (a patch, a
 * script), except a shell's, which newer versions send as the JSON a function call carries:
 * {"command":["ls"]}. A function call's arguments are parsed only where something is read out of
 * them; other calls (MCP tools, searches) keep their JSON text as it came (`raw`).
 */
function callArgs(type: string, name: string, p: Record<string, unknown>): { args: unknown; raw?: string } {
  if (type === 'custom_tool_call') return { args: SHELL_FUNCTIONS.has(name) ? parseArgs(p.input) : p.input };
  if (type === 'local_shell_call') return { args: isObj(p.action) ? p.action : {} };
  const readsArgs = SHELL_FUNCTIONS.has(name) || name === 'update_plan' || name === 'apply_patch' || name === 'wait' || name === 'request_user_input';
  if (!readsArgs && typeof p.arguments === 'string') return { args: undefined, raw: p.arguments };
  return { args: parseArgs(p.arguments) };
}

/** Files named by the headers of an apply_patch envelope. */
export function patchFiles(patch: string): string[] {
  const files: string[] = [];
  for (const m of patch.matchAll(PATCH_HEADER)) {
    const f = (m[1] ?? m[2] ?? '').trim();
    if (f.length > 0 && !files.includes(f)) files.push(f);
  }
  return files;
}

function parseArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function commandOf(name: string, args: unknown): string | undefined {
  if (!SHELL_FUNCTIONS.has(name) || !isObj(args)) return undefined;
  const c = args.cmd ?? args.command;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) return shellJoin(c as string[]);
  return undefined;
}

function planItems(plan: unknown): TodoItem[] | undefined {
  if (!Array.isArray(plan)) return undefined;
  const items: TodoItem[] = [];
  for (const p of plan) {
    if (!isObj(p)) continue;
    const text = str(p.step) ?? str(p.text);
    if (text === undefined) continue;
    const s = str(p.status);
    items.push({ text, status: s === 'completed' ? 'completed' : s === 'in_progress' ? 'in_progress' : 'pending' });
  }
  return items;
}

const mirrorKey = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 120);
/**
 * What a mirror's digest is of: its key with every word that mixes letters with digits or symbols
 * (a password's shape: `Summer2024!x`, a token) replaced by its length. Its twin is masked alike, so
 * the twin is still found; the digest, which the state keeps, no longer confirms a guessed password
 * (the twelfth red team tested one offline against it). A digest kept before is of the key as it
 * was, and is matched as such.
 */
const masked = (key: string): string => key.replace(/\S{8,}/g, (w) => (/[A-Za-z]/.test(w) && /[^A-Za-z]/.test(w) ? `\u0000${w.length}` : w));
const mirrorDigest = (key: string): string => `${key.length}:${sha256Hex(masked(key))}`;
/** What Codex answers a patch it could not apply with (it gives no exit code for a patch). */
const PATCH_FAILED = /^(?:apply_patch verification failed|Failed to apply patch)\b/;
/** Code mode's report of a script that threw on a patch: "Script failed", then "Script error:" and the patch's own error. */
const SCRIPT_PATCH_FAILED = new RegExp(`^Script failed\\b[^]{0,300}?^Script error:\\s*(${PATCH_FAILED.source.slice(1)}.*)$`, 'm');
const askKey = (id: string): string => `ask:${sha256Hex(id).slice(0, 32)}`;
const DIGEST = /^(\d+):[0-9a-f]{64}$/;

/** Whether a response text is the twin of a stored mirror (its head begins with the mirror's). */
function isTwin(stored: string, key: string): boolean {
  const m = DIGEST.exec(stored);
  // State written before mirrors were digested holds the head itself.
  if (!m) return stored.length > 0 && key.startsWith(stored);
  const len = Number(m[1]);
  if (len <= 0 || len > key.length) return false;
  const head = key.slice(0, len);
  return mirrorDigest(head) === stored || `${len}:${sha256Hex(head)}` === stored;
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  return contentText(output).text;
}

/**
 * Older Codex (0.40) wraps a shell's result as JSON text: {"output": "…", "metadata": {"exit_code": 0}}.
 * The output inside is what the command printed, and its lines are what a reader needs.
 */
function unwrapShellOutput(text: string): { text: string; exitCode?: number } {
  if (!text.startsWith('{"output"')) return { text };
  try {
    const o = JSON.parse(text) as unknown;
    if (!isObj(o) || typeof o.output !== 'string') return { text };
    const code = isObj(o.metadata) ? num(o.metadata.exit_code) : undefined;
    return code === undefined ? { text: o.output } : { text: o.output, exitCode: code };
  } catch {
    return { text };
  }
}

export function readCodex(obj: Record<string, unknown>, st: CodexState): Observation {
  const lineType = str(obj.type) ?? '';
  const payload = isObj(obj.payload) ? obj.payload : {};
  const ts = str(obj.timestamp) ?? null;
  const obs: Observation = { kind: lineType, blocks: [], text: '', ts, facts: [] };
  if (!KNOWN_LINE_TYPES.has(lineType)) {
    obs.unknown = lineType || '(none)';
    const ex = genericText(payload);
    obs.text = ex.text;
    obs.blocks = ex.blocks;
    obs.notice = true;
    return obs;
  }
  switch (lineType) {
    case 'session_meta':
      readSessionMeta(payload, obs);
      break;
    case 'turn_context': {
      const model = str(payload.model);
      if (model) obs.facts.push({ t: 'model', model });
      const cwd = str(payload.cwd);
      if (cwd) obs.facts.push({ t: 'meta', cwd });
      const permissions = codexPermissions(payload);
      if (permissions !== null) obs.facts.push({ t: 'permissions', text: permissions });
      break;
    }
    case 'response_item':
      readItem(payload, obs, st);
      break;
    case 'event_msg':
      readEvent(payload, obs, st);
      break;
    case 'compacted':
      obs.kind = 'compacted';
      obs.text = str(payload.message) ?? '';
      obs.notice = true;
      obs.facts.push({ t: 'compaction' });
      break;
    default:
      break;
  }
  return obs;
}

function readSessionMeta(p: Record<string, unknown>, obs: Observation): void {
  const fact: Fact & { t: 'meta' } = { t: 'meta' };
  const id = str(p.id) ?? str(p.session_id);
  if (id) fact.uuid = id;
  const cwd = str(p.cwd);
  if (cwd) fact.cwd = cwd;
  const git = isObj(p.git) ? p.git : undefined;
  const branch = str(git?.branch);
  if (branch) fact.branch = branch;
  const commit = str(git?.commit_hash);
  if (commit !== undefined && /^[0-9a-f]{7,64}$/.test(commit)) fact.commit = commit;
  const remote = str(git?.repository_url);
  if (remote) fact.remote = remote;
  const version = str(p.cli_version);
  if (version) fact.version = version;
  const forked = str(p.forked_from_id);
  if (forked) fact.forkedFrom = forked;
  const parent = str(p.parent_thread_id);
  if (parent) fact.parentUuid = parent;
  obs.facts.push(fact);
  const bi = isObj(p.base_instructions) ? p.base_instructions : undefined;
  const prov = isObj(bi?.provenance) ? bi.provenance : undefined;
  const model = str(prov?.model);
  if (model) obs.facts.push({ t: 'model', model });
}

/** Codex's answer to a call its current mode does not offer (edgerunner at 141, after plan mode ended). */
const UNAVAILABLE = /^\s*[\w.-]{1,80} is unavailable in [\w -]{1,40} mode\.?\s*$/;

/** Plan mode's plan, as the agent's message gives it: `<proposed_plan>…</proposed_plan>`, with words before or after it or not. */
const PROPOSED_PLAN = /<proposed_plan>\s*([\s\S]*?)\s*(?:<\/proposed_plan>|$)/;
/** What Codex sends for the user who chose to carry out the plan plan mode proposed. */
const IMPLEMENT_PLAN = /^\s*Implement the plan\.?\s*$/;

/**
 * Codex's plan mode: the agent's message that proposes a plan is a plan put to the user (as Claude
 * Code's ExitPlanMode), and the user's "Implement the plan." (a user_message, read with the
 * request it also is) approves it. Read from whichever of a message's two records holds its text
 * (the other is emptied as its twin).
 */
function notePlan(obs: Observation): void {
  const plan = obs.text.length === 0 ? undefined : PROPOSED_PLAN.exec(obs.text)?.[1];
  if (plan !== undefined && plan.length > 0) obs.facts.push({ t: 'plan', id: '', text: plan });
}

function takeResponseText(obs: Observation, st: CodexState): void {
  st.ri = true;
  if (st.mirrors.length === 0) return;
  const key = mirrorKey(obs.text);
  const i = st.mirrors.findIndex((m) => isTwin(m, key));
  if (i !== -1) {
    st.mirrors.splice(i, 1);
    obs.text = '';
  }
}

function readItem(p: Record<string, unknown>, obs: Observation, st: CodexState): void {
  const type = str(p.type) ?? '';
  obs.kind = type;
  if (!KNOWN_ITEMS.has(type)) obs.unknown = `response_item.${type || '(none)'}`;
  switch (type) {
    case 'message': {
      const role = str(p.role) ?? '';
      obs.role = role;
      const ex = contentText(p.content);
      obs.text = ex.text;
      obs.blocks = ex.blocks;
      if (role !== 'user' && role !== 'assistant') obs.notice = true;
      if (NOTICE.test(obs.text)) obs.notice = true;
      if (role === 'user' && CONTEXT.test(obs.text)) obs.context = true;
      if (role === 'user' && publisherRedacted(obs.text)) {
        if (st.started !== true) st.context = [...(st.context ?? []).filter((x) => x !== obs.text), obs.text].slice(-8);
        else if (st.context?.includes(obs.text) === true) {
          obs.notice = true;
          obs.context = true;
        }
      }
      takeResponseText(obs, st);
      if (role === 'assistant' && p.phase === 'commentary' && obs.text.length > 0) obs.facts.push({ t: 'commentary' });
      if (role === 'assistant') notePlan(obs);
      return;
    }
    case 'reasoning': {
      const parts: string[] = [];
      for (const src of [p.summary, p.content]) {
        const ex = contentText(src);
        if (ex.text.length > 0) parts.push(ex.text);
      }
      obs.text = parts.join('\n\n');
      obs.blocks = ['thinking'];
      if (obs.text.length === 0) obs.facts.push({ t: 'reasoning_hidden' });
      takeResponseText(obs, st);
      return;
    }
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      const name = str(p.name) ?? (type === 'local_shell_call' ? 'local_shell' : 'tool');
      const id = str(p.call_id) ?? str(p.id) ?? '';
      const { args, raw } = callArgs(type, name, p);
      obs.blocks = ['tool_call'];
      obs.text = raw === undefined ? formatToolCall(name, args) : raw.length > 0 ? `${name} ${raw}` : name;
      obs.tool = { name, id };
      const call: Fact & { t: 'tool_call' } = { t: 'tool_call', id, name };
      const command = name === 'exec' && typeof args === 'string' ? args : commandOf(name, args);
      if (command !== undefined) call.command = command;
      if (command !== undefined && asksEscalation(args)) call.escalated = true;
      // A shell call may run elsewhere than the turn's folder: its relative paths are relative to that.
      const workdir = isObj(args) ? (str(args.workdir) ?? str(args.working_directory)) : undefined;
      if (workdir !== undefined && workdir.length > 0) call.cwd = workdir;
      const patch = name === 'apply_patch' ? (typeof args === 'string' ? args : isObj(args) ? (str(args.input) ?? str(args.patch)) : undefined) : undefined;
      if (patch !== undefined) {
        const files = patchFiles(patch);
        if (files.length > 0) call.files = files;
      }
      if (patch !== undefined && call.files !== undefined) call.writes = patchWrites(patch, call.files);
      const redacted = REDACTED_ARGS.test(typeof p.input === 'string' ? p.input : typeof p.arguments === 'string' ? p.arguments : '');
      if (name === 'apply_patch' && call.files === undefined && redacted) call.unreadable = true;
      if (command === undefined && redacted && (SHELL_FUNCTIONS.has(name) || name === 'exec')) call.hidden = true;
      if (command !== undefined && name !== 'exec' && /\bapply_patch\b/.test(command)) {
        const files = patchFiles(command);
        if (files.length > 0) {
          call.files = files;
          call.writes = patchWrites(command, files);
        }
      }
      if (name === 'exec' && typeof args === 'string') readCodeMode(args, call, obs.facts);
      // A command that outlives its call (a server) answers with its session's id, and is followed as a job.
      else if (name === 'exec_command' && command !== undefined) call.job = { command };
      if (name === 'write_stdin') {
        const stdin = parseArgs(p.arguments);
        const poll = stdinOf(stdin);
        pollOf(call, poll);
        // An answer typed to a password prompt: masked wherever the call is shown.
        if (poll !== null && st.prompted?.includes(poll.session) === true && isObj(stdin) && poll.chars.trim().length > 0 && !poll.chars.includes('\u0003')) {
          obs.text = formatToolCall(name, { ...stdin, chars: TYPED_SECRET });
          // Remembered as every typed secret is: a later line that repeats it has it masked too.
          (obs.typed ??= []).push(poll.chars.trim());
          st.prompted = st.prompted.filter((x) => x !== poll.session);
        }
      }
      if (name === 'request_user_input') {
        call.question = questionsOf(args);
        st.asks = [...(st.asks ?? []), askKey(id)].slice(-8);
        const secret = secretQuestions(askKey(id), args);
        if (secret.length > 0) st.secretAsks = [...(st.secretAsks ?? []), ...secret].slice(-SECRET_ASKS);
      }
      if (name === 'update_plan') {
        call.plan = true;
        if (redacted) call.planHidden = true;
      }
      if (name === 'wait' && isObj(args) && (typeof args.cell_id === 'string' || typeof args.cell_id === 'number')) {
        obs.facts.push({ t: 'wait', id, cell: String(args.cell_id) });
      }
      obs.facts.push(call);
      if (name === 'update_plan' && isObj(args)) {
        const items = planItems(args.plan);
        if (items) obs.facts.push({ t: 'todos', items });
      }
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const id = str(p.call_id) ?? '';
      const rawOutput = outputText(p.output);
      const unwrapped = unwrapShellOutput(rawOutput);
      obs.text = maskSecretAnswers(st, id, unwrapped.text, obs);
      obs.blocks = ['tool_result'];
      const exitCode = unwrapped.exitCode ?? parseExitCode(obs.text);
      const fact: Fact & { t: 'tool_result' } = { t: 'tool_result', id, output: obs.text };
      notePrompt(st, rawOutput);
      if (st.asks?.includes(askKey(id)) === true || st.asks?.includes(id) === true) {
        const answers = codexAnswers(obs.text);
        if (answers !== null) obs.facts.push({ t: 'request', text: answers, kind: 'answer' });
      }
      obs.tool = { name: '', id };
      if (exitCode !== undefined) {
        fact.exitCode = exitCode;
        fact.ok = exitCode === 0;
        obs.tool.ok = fact.ok;
      } else if (REJECTED.test(obs.text)) {
        // The user declined the call when Codex asked: it did not run, and nothing it would write was written.
        fact.ok = false;
        fact.denied = 'rejected by the user';
        obs.tool.ok = false;
      } else if (UNAVAILABLE.test(obs.text)) {
        // Codex refused the call in this mode (`request_user_input is unavailable in Default mode`): it did not run.
        fact.ok = false;
        fact.denied = obs.text.trim();
        fact.modeRefused = true;
        obs.tool.ok = false;
      } else if (PATCH_FAILED.test(obs.text)) {
        // A patch Codex could not apply (its lines were not found): none of its files changed.
        fact.ok = false;
        obs.tool.ok = false;
      } else {
        // Code mode's script that threw on a patch: whether the script did nothing else is the
        // call's to say (ledger.ts: a script whose one call is that patch).
        const patchError = SCRIPT_PATCH_FAILED.exec(obs.text)?.[1];
        if (patchError !== undefined) fact.patchFailed = patchError;
      }
      obs.facts.push(fact);
      return;
    }
    case 'web_search_call': {
      const action = isObj(p.action) ? p.action : {};
      const query = str(action.query) ?? (Array.isArray(action.queries) ? action.queries.filter((q) => typeof q === 'string').join(' | ') : '');
      obs.blocks = ['tool_call'];
      obs.text = query ? `web_search: ${query}` : 'web_search';
      obs.tool = { name: 'web_search', id: str(p.id) ?? '' };
      obs.facts.push({ t: 'web_search' });
      return;
    }
    case 'tool_search_call':
    case 'tool_search_output':
      obs.blocks = [type === 'tool_search_call' ? 'tool_call' : 'tool_result'];
      obs.text = type === 'tool_search_call' ? formatToolCall('tool_search', p.arguments) : 'tool_search results';
      obs.tool = { name: 'tool_search', id: str(p.call_id) ?? '' };
      return;
    case 'image_generation_call':
      obs.blocks = ['image'];
      obs.text = '[image generation: result omitted]';
      return;
    default: {
      const ex = contentText(p.content);
      obs.text = ex.text;
      obs.blocks = ex.blocks;
      obs.notice = true;
    }
  }
}

/** Codex's whole answer to a call the user declined at its approval prompt. */
const REJECTED = /^\s*(?:patch|exec command|command) rejected by (?:the )?user\.?\s*$/;

function takeMirror(obs: Observation, st: CodexState, text: string, role: string | undefined, kind: string): void {
  obs.kind = kind;
  if (role) obs.role = role;
  if (st.ri) {
    // The response item carries this text; reasoning's comes after it, so until it does the event is
    // the agent's latest reasoning (a fact, not a turn: the item is the turn).
    if (kind === 'agent_reasoning' && text.trim().length > 0) obs.facts.push({ t: 'reasoning_mirror', text });
    return;
  }
  obs.text = text;
  obs.blocks = kind === 'agent_reasoning' ? ['thinking'] : ['text'];
  if (role === 'user' && NOTICE.test(text)) obs.notice = true;
  st.mirrors.push(mirrorDigest(mirrorKey(text)));
  if (st.mirrors.length > 8) st.mirrors.shift();
}

function readEvent(p: Record<string, unknown>, obs: Observation, st: CodexState): void {
  const type = str(p.type) ?? '';
  obs.kind = type;
  if (!KNOWN_EVENTS.has(type)) {
    obs.unknown = `event_msg.${type || '(none)'}`;
    const ex = genericText(p);
    obs.text = ex.text;
    obs.blocks = ex.blocks;
    obs.notice = true;
    return;
  }
  switch (type) {
    case 'user_message': {
      const message = str(p.message) ?? '';
      takeMirror(obs, st, message, 'user', 'user_message');
      // A screenshot is part of what the user said: without it, two messages of the same words
      // read as one sent twice (localpush 12-54 at 1894 and 1929, each with its own image).
      const pics = attachedImages(p.images, p.local_images);
      const req = message.trim().length === 0 && pics.length > 0 ? '' : codexUserRequest(message);
      if (req !== null) obs.facts.push(requestFact(pics.length === 0 ? req : req.length === 0 ? pics : `${req}\n\n${pics}`, message));
      // With the request, so that the plan is approved at the line the request is cited at.
      if (IMPLEMENT_PLAN.test(message)) obs.facts.push({ t: 'plan_approved' });
      return;
    }
    case 'agent_message': {
      const said = str(p.message) ?? '';
      // Its item comes after it (or never, when the transcript ends first): the agent's latest message until then.
      if (st.ri && said.trim().length > 0) obs.facts.push(p.phase === 'commentary' ? { t: 'message_mirror', text: said, commentary: true } : { t: 'message_mirror', text: said });
      takeMirror(obs, st, said, 'assistant', 'agent_message');
      notePlan(obs);
      // Whichever of the message's two records holds its text, the note of its phase goes with it.
      if (p.phase === 'commentary' && obs.text.length > 0) obs.facts.push({ t: 'commentary' });
      return;
    }
    case 'agent_reasoning':
      takeMirror(obs, st, str(p.text) ?? '', undefined, 'agent_reasoning');
      return;
    case 'token_count': {
      const info = isObj(p.info) ? p.info : undefined;
      const last = isObj(info?.last_token_usage) ? info.last_token_usage : undefined;
      // Before `last_token_usage` (0.50 and earlier, FORMATS.md): `info{prompt, completion}`, the
      // last request's tokens in and out, whose sum is what `total_tokens` says now.
      const prompt = last === undefined ? num(info?.prompt) : undefined;
      const used = prompt !== undefined ? prompt + (num(info?.completion) ?? 0) : num(last?.total_tokens);
      const limit = num(info?.model_context_window);
      // A count of nothing (every field 0, the window too) is no reading: a request always costs
      // tokens. Taken as one, it said "0 tokens used" after a real 16,341.
      if (used !== undefined && used > 0) obs.facts.push(limit === undefined || limit <= 0 ? { t: 'usage', used } : { t: 'usage', used, limit });
      return;
    }
    case 'task_started': {
      st.started = true;
      const limit = num(p.model_context_window);
      if (limit !== undefined && limit > 0) obs.facts.push({ t: 'context_limit', limit });
      obs.facts.push({ t: 'turn_started' });
      return;
    }
    case 'task_complete': {
      const err = isObj(p.error) ? p.error : undefined;
      if (err) obs.facts.push({ t: 'api_error', message: str(err.message) ?? 'task failed' });
      else obs.facts.push({ t: 'turn_complete' });
      return;
    }
    case 'turn_aborted':
      obs.facts.push({ t: 'interrupted', message: `turn aborted: ${str(p.reason) ?? 'unknown reason'}` });
      return;
    case 'context_compacted':
      obs.facts.push({ t: 'compaction' });
      return;
    case 'error':
    case 'stream_error': {
      const err = isObj(p.error) ? p.error : undefined;
      const message = str(p.message) ?? str(err?.message) ?? type;
      obs.text = message;
      obs.notice = true;
      obs.facts.push({ t: 'api_error', message });
      return;
    }
    case 'exec_command_begin':
    case 'exec_command_end':
      readExecEvent(p, obs, type === 'exec_command_end');
      return;
    case 'patch_apply_end': {
      // Each file by what the patch did to it: `{"type": "add" | "delete" | "update"}`, or an object
      // keyed by that word in older versions.
      const byHow = new Map<WriteHow, string[]>();
      // A file the patch deleted, then added: one entry of `changes` (an `add`), while its summary
      // lists both (`A README.md`, `D README.md`): it was there, and is written over, not created
      // (rave-era at 272).
      const deleted = [...(str(p.stdout) ?? '').matchAll(/^D (.+)$/gm)].map((m) => (m[1] as string).trim().replace(/\\/g, '/'));
      const deletedToo = (path: string): boolean => {
        const slashed = path.replace(/\\/g, '/');
        return deleted.some((d) => slashed === d || slashed.endsWith(`/${d}`));
      };
      if (isObj(p.changes)) {
        for (const [path, change] of Object.entries(p.changes)) {
          const kind = isObj(change) ? (str(change.type) ?? (change.add !== undefined ? 'add' : change.delete !== undefined ? 'delete' : 'update')) : 'update';
          const how: WriteHow = kind === 'add' ? (deletedToo(path) ? 'write' : 'create') : kind === 'delete' ? 'delete' : 'patch';
          byHow.set(how, [...(byHow.get(how) ?? []), path]);
        }
      }
      for (const [how, files] of byHow) {
        const fact: Fact & { t: 'files' } = { t: 'files', files, tool: 'apply_patch' };
        if (typeof p.success === 'boolean') fact.ok = p.success;
        if (how !== 'patch') fact.how = how;
        obs.facts.push(fact);
      }
      const id = str(p.call_id);
      if (id !== undefined && typeof p.success === 'boolean') obs.facts.push({ t: 'tool_result', id, ok: p.success });
      return;
    }
    case 'mcp_tool_call_end': {
      const id = str(p.call_id);
      const result = isObj(p.result) ? p.result : undefined;
      if (id !== undefined && result) {
        const ok = isObj(result.Ok) ? result.Ok.isError !== true : false;
        obs.facts.push({ t: 'tool_result', id, ok });
      }
      return;
    }
    case 'plan_update': {
      const items = planItems(p.plan);
      if (items) obs.facts.push({ t: 'todos', items });
      return;
    }
    case 'thread_name_updated': {
      const name = str(p.thread_name) ?? str(p.name);
      if (name) obs.facts.push({ t: 'title', title: name, source: 'thread' });
      return;
    }
    case 'item_completed':
      readItemCompleted(p, obs, st);
      return;
    default:
      return;
  }
}

/** A command session whose output now ends on a password prompt is remembered (see CodexState.prompted). */
function notePrompt(st: CodexState, output: string): void {
  const m = SESSION_OF_OUTPUT.exec(output);
  const session = m?.[1] ?? m?.[2];
  if (session === undefined) return;
  const asks = PASSWORD_PROMPT.test(output.trimEnd().split('\n').at(-1) ?? '');
  const rest = (st.prompted ?? []).filter((x) => x !== session);
  st.prompted = asks ? [...rest, session].slice(-8) : rest;
}

function readExecEvent(p: Record<string, unknown>, obs: Observation, end: boolean): void {
  const id = str(p.call_id);
  if (id === undefined) return;
  const cmd = p.command;
  const command = typeof cmd === 'string' ? cmd : Array.isArray(cmd) && cmd.every((c) => typeof c === 'string') ? shellJoin(cmd as string[]) : undefined;
  if (command !== undefined) obs.facts.push({ t: 'tool_call', id, name: 'exec_command', command });
  if (!end) return;
  const exitCode = num(p.exit_code);
  const fact: Fact & { t: 'tool_result' } = { t: 'tool_result', id, event: true };
  if (exitCode !== undefined) {
    fact.exitCode = exitCode;
    fact.ok = exitCode === 0;
  }
  const out = str(p.aggregated_output) ?? str(p.stdout);
  if (out !== undefined) fact.output = out;
  obs.facts.push(fact);
}

function readItemCompleted(p: Record<string, unknown>, obs: Observation, st: CodexState): void {
  const item = isObj(p.item) ? p.item : {};
  const type = str(item.type) ?? '';
  switch (type) {
    case 'UserMessage': {
      const message = contentText(item.content).text;
      takeMirror(obs, st, message, 'user', 'user_message');
      const req = codexUserRequest(message);
      if (req !== null) obs.facts.push(requestFact(req, message));
      return;
    }
    case 'AgentMessage':
      takeMirror(obs, st, contentText(item.content).text, 'assistant', 'agent_message');
      return;
    case 'Reasoning': {
      const text = [contentText(item.summary_text).text, contentText(item.raw_content).text].filter((t) => t.length > 0).join('\n\n');
      takeMirror(obs, st, text, undefined, 'agent_reasoning');
      return;
    }
    case 'CommandExecution': {
      const id = str(item.id) ?? '';
      readExecEvent({ call_id: id, command: item.command, exit_code: item.exit_code, aggregated_output: item.aggregated_output, stdout: item.stdout }, obs, true);
      return;
    }
    case 'FileChange': {
      const changes = isObj(item.changes) ? Object.keys(item.changes) : Array.isArray(item.changes) ? item.changes.map((c) => (isObj(c) ? str(c.path) : undefined)).filter((f): f is string => f !== undefined) : [];
      if (changes.length > 0) obs.facts.push({ t: 'files', files: changes, tool: 'apply_patch' });
      return;
    }
    case 'Plan': {
      const items = planItems(item.plan ?? item.steps);
      if (items) obs.facts.push({ t: 'todos', items });
      return;
    }
    default:
      return;
  }
}

/** A label as a person types it again: case, spacing and a closing stop aside. */
const labelKey = (label: string): string => label.trim().replace(/\s+/g, ' ').replace(/[.!]+$/, '').toLowerCase();
const labelDigest = (label: string): string => sha256Hex(labelKey(label)).slice(0, 16);

/** The questions of a `request_user_input` call that ask for a secret, with their options' labels. */
function secretQuestions(key: string, args: unknown): SecretAsk[] {
  const qs = isObj(args) && Array.isArray(args.questions) ? args.questions : [];
  const out: SecretAsk[] = [];
  for (const q of qs) {
    if (!isObj(q)) continue;
    const qid = str(q.id);
    const words = `${str(q.question) ?? ''}\n${str(q.header) ?? ''}`;
    // Codex's own flag for an answer its TUI masks as it is typed.
    const secret = q.isSecret === true || q.is_secret === true || asksForSecret(words);
    if (qid === undefined || !secret) continue;
    const options = Array.isArray(q.options) ? q.options : [];
    const labels = options.map((o) => (isObj(o) ? str(o.label) : undefined)).filter((l): l is string => l !== undefined);
    out.push({ k: key, q: qid, o: labels.map(labelDigest) });
  }
  return out;
}

/**
 * The output of a `request_user_input` call whose questions ask for a secret, with each answer to
 * such a question masked (a note too: `user_note: <the password>`), unless it is one of the
 * question's options; each masked answer also goes to `obs.typed`, so that later lines that repeat
 * it are masked too. Any other output as it is.
 */
function maskSecretAnswers(st: CodexState, id: string, output: string, obs: Observation): string {
  const key = askKey(id);
  const asks = st.secretAsks?.filter((a) => a.k === key) ?? [];
  if (asks.length === 0) return output;
  st.secretAsks = st.secretAsks?.filter((a) => a.k !== key);
  // No answer at all: the question was never put.
  if (UNAVAILABLE.test(output)) return output;
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    // Not the answers' JSON (an error): any text could hold the answer.
    return TYPED_SECRET;
  }
  const answers = isObj(parsed) && isObj(parsed.answers) ? parsed.answers : null;
  if (answers === null) return output;
  for (const ask of asks) {
    const entry = answers[ask.q];
    if (!isObj(entry) || !Array.isArray(entry.answers)) continue;
    entry.answers = entry.answers.map((a: unknown) => {
      if (typeof a !== 'string' || ask.o.includes(labelDigest(a))) return a;
      if (/^user_note:/.test(a)) return `user_note: ${TYPED_SECRET}`;
      // Remembered (as a digest, by the ingest): a later command that repeats it has it masked.
      (obs.typed ??= []).push(a);
      return TYPED_SECRET;
    });
  }
  return JSON.stringify(parsed);
}

function questionsOf(args: unknown): string {
  const qs = isObj(args) && Array.isArray(args.questions) ? args.questions : [];
  const texts = qs.map((q) => (isObj(q) ? str(q.question) : undefined)).filter((q): q is string => q !== undefined);
  return texts.length > 0 ? texts.join(' / ') : 'a question';
}

/** A write to a running command's session: a poll (nothing sent), input, or Ctrl-C. */
function pollOf(call: Fact & { t: 'tool_call' }, poll: { session: string; chars: string } | null): void {
  if (poll === null) return;
  call.polls = poll.chars.includes('\u0003') ? { session: poll.session, interrupt: true } : { session: poll.session };
}

/** Codex code mode: one `exec` script calls tools; each inner command or patch is read as its own. */
function readCodeMode(script: string, call: Fact & { t: 'tool_call' }, facts: Fact[]): void {
  const inner = codeModeCalls(script);
  if (inner.commands.length > 0) call.command = inner.commands.join('\n');
  else delete call.command;
  if (inner.escalated) call.escalated = true;
  // The folder the commands run in, when they all name the same one and no patch shares the call
  // (a patch's relative paths are the turn's): `npm install --save-dev playwright-core` with
  // `workdir` …/web rewrote web/package.json (edgerunner at 486), not the session folder's.
  const dir = inner.workdirs[0];
  if (dir !== undefined && inner.patches.length === 0 && inner.workdirs.every((d) => d === dir)) call.cwd = dir;
  const files: string[] = [];
  for (const patch of inner.patches) for (const f of patchFiles(patch)) if (!files.includes(f)) files.push(f);
  if (files.length > 0) {
    call.files = files;
    call.writes = patchWrites(inner.patches.join('\n'), files);
    if (inner.patches.length === 1 && inner.commands.length === 0 && inner.stdin.length === 0) call.patchScript = true;
  }
  if (inner.commands.length === 1 && inner.stdin.length === 0) call.job = { command: inner.commands[0] as string };
  if (inner.stdin.length === 1 && inner.commands.length === 0) pollOf(call, inner.stdin[0] as { session: string; chars: string });
  if (inner.plan !== null) {
    call.plan = true;
    const items = planItems(inner.plan);
    if (items) facts.push({ t: 'todos', items });
  }
}

/** A patch's writes, each with what its added lines define. */
function patchWrites(patch: string, files: readonly string[]): { path: string; how: 'create' | 'delete' | 'patch' | 'write'; what: string[]; removed?: string[]; added?: string[] }[] {
  const sides = patchSides(patch);
  // `*** Add File:` creates a file and `*** Delete File:` deletes one; an update (or a move) patches
  // it. A file deleted, then added in the same patch was there: it is written over, not created
  // (rave-era's README at 271, a tracked file, read as new).
  const how = new Map<string, 'create' | 'delete' | 'write'>();
  for (const m of patch.matchAll(/^\*\*\* (Add|Delete) File: (.+)$/gm)) {
    const path = (m[2] as string).trim();
    how.set(path, m[1] === 'Add' ? (how.get(path) === 'delete' ? 'write' : 'create') : 'delete');
  }
  return files.map((path) => {
    const s = sides.get(path);
    const added = s === undefined || s.added.length === 0 ? '' : `${s.added.join('\n')}\n`;
    const p = printedChange(s?.removed.join('\n') ?? '', added);
    return { path, how: how.get(path) ?? 'patch', what: whatChanged(path, added), ...(p.removed.length > 0 ? { removed: p.removed } : {}), ...(p.added.length > 0 ? { added: p.added } : {}) };
  });
}

/**
 * A policy's name as Codex writes it (`on-request`, `workspace-write`): lower-case words joined by
 * `-`. Anything else is said as such, not quoted: cut to a length, a value was cut before the
 * redactor saw it whole, and the part kept no longer read as the credential it was part of.
 */
function policyName(value: string): string {
  // A publisher's placeholder (`[trimmed for fixture]`) is words too.
  const named = (/^[a-z]+(?:[-_][a-z]+){0,7}$/.test(value) || /^[a-z]+(?:[A-Z][a-z]+){1,6}$/.test(value) || /^\[[a-z]+(?: [a-z]+){0,5}\]$/.test(value)) && value.length <= 60;
  return named ? `\`${value}\`` : `(a value Codex does not write, ${value.length} characters, not shown)`;
}

/** A turn's approval and sandbox policy, as Codex records them (`sandbox_policy.type`, 0.40's `.mode`). */
function codexPermissions(p: Record<string, unknown>): string | null {
  const approval = str(p.approval_policy);
  const box = isObj(p.sandbox_policy) ? p.sandbox_policy : undefined;
  const sandbox = box === undefined ? undefined : (str(box.type) ?? str(box.mode));
  if (approval === undefined && sandbox === undefined) return null;
  const parts: string[] = [];
  if (approval !== undefined) parts.push(`approval ${policyName(approval)}`);
  if (sandbox !== undefined) parts.push(`sandbox ${policyName(sandbox)}`);
  // The sandbox's network: a command the user approves to run outside the sandbox, and the
  // harness's own web tools, are not bound by it ("network off" read as no network at all).
  if (box !== undefined && typeof box.network_access === 'boolean') parts.push(`network ${box.network_access ? 'on' : 'off'} inside the sandbox`);
  return parts.join(', ');
}
