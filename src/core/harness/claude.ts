import type { Fact, Observation, TodoItem } from '../types.js';
import { cutBeforeRedaction } from '../cut.js';
import { compactionParts } from '../compaction.js';
import { blockText, contentText, genericText, isObj, num, str } from './extract.js';
import { parseExitCode } from './exit-code.js';
import { maskQuestionAnswers, questionAnswers, rejectionFeedback, requestFact, userRequest } from './requests.js';
import { definitionName, printedChange, whatChanged } from '../what-changed.js';
import { shellCell } from '../jobs.js';
import type { WriteHow } from '../ledger.js';

/**
 * Claude Code transcripts: `~/.claude/projects/<encoded cwd>/<uuid>.jsonl`, versions 1.0.x to
 * 2.1.x (see corpus FORMATS.md). One API response is streamed as several `assistant` lines
 * sharing `message.id`; each line becomes its own turn, and its usage is counted once.
 */

/** Every record type seen in the corpus or documented as accepted. Others count as unknown. */
const KNOWN_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'attachment',
  'file-history-snapshot',
  'progress',
  'queue-operation',
  'permission-mode',
  'last-prompt',
  'mode',
  'agent-name',
  'custom-title',
  'ai-title',
  'pr-link',
  'frame-link',
  'worktree-state',
  'atis-latch',
  'bridge-session',
]);

const SHELL_TOOLS = new Set(['bash', 'shell']);
const EDIT_TOOLS: Record<string, [string, WriteHow]> = {
  Edit: ['file_path', 'edit'],
  MultiEdit: ['file_path', 'edit'],
  Write: ['file_path', 'write'],
  NotebookEdit: ['notebook_path', 'edit'],
};
/** Tools that stop and wait for the user's answer. */
const QUESTION_TOOLS = new Set(['AskUserQuestion', 'ExitPlanMode']);
/** A result that says the call never ran because the user or a permission rule said no. */
const DENIED = /^(?:The user doesn't want to proceed with this tool use|Permission to use \S+ has been denied|.*\b(?:requires approval|was blocked|has not been granted|haven't granted|permission denied by|is not allowed)\b)/i;
const SUBAGENT_TOOLS = new Set(['Task', 'Agent']);

/** An agent id as Claude Code names a subagent's transcript with it (identity.ts reads the same). */
const AGENT_ID = /^[\w-]{1,64}$/;
/** The user's `/exit`, `/quit` or `/clear`: Claude Code writes the command as a user line of its own (before 1.0.30 or so, without the slash). */
const CLOSED = /^\s*<command-name>\/?(exit|quit|clear)<\/command-name>/;
/** Text that Claude Code injects into the user stream; never the user's objective. */
/** The context Claude Code itself writes as a user message: a reminder, a hook's addition, the caveat before a local command's output and that output (a slash command's reply); a line it marks `isMeta` is its own too. */
const CONTEXT = /^\s*(?:<(?:system-reminder|user-prompt-submit-hook|local-command-caveat|local-command-stdout|local-command-stderr)>|Caveat: )/;
const NOTICE = /^\s*(<(command-name|command-message|command-args|local-command-caveat|local-command-stdout|local-command-stderr|system-reminder|user-prompt-submit-hook|bash-input|bash-stdout|bash-stderr|ide_selection|ide_opened_file)>|Caveat: |\[Request interrupted)/;
const INTERRUPTED = /^\s*\[Request interrupted by user/;
/** How much of an interrupted line's text its fact carries to the redactor (reduce.ts keeps 300 characters of it). */
const INTERRUPTED_MESSAGE_CHARS = 64 * 1024;
const TOOL_INTERRUPTED = /^(The user doesn't want to proceed with this tool use|Permission prompt was aborted|\[Request interrupted)/;

/** A line is a Claude Code record when it carries Claude's own bookkeeping fields or types. */
export function looksLikeClaude(obj: Record<string, unknown>): boolean {
  if (typeof obj.sessionId === 'string' || typeof obj.leafUuid === 'string') return true;
  if ('isSidechain' in obj || 'parentUuid' in obj) return true;
  const type = str(obj.type);
  return type !== undefined && KNOWN_TYPES.has(type) && type !== 'user' && type !== 'assistant' && type !== 'system';
}

function todoStatus(s: unknown): TodoItem['status'] {
  return s === 'completed' ? 'completed' : s === 'in_progress' ? 'in_progress' : 'pending';
}

/**
 * What an edit defines: when it adds definitions, those alone, not the ones its old text held too
 * that it kept as an anchor (coderabbit at 110: `parse_pr_input` was the context the new
 * `get_current_branch_pr` went after, listed as if written); when it only changes inside ones it
 * kept, those (they say where the change is).
 */
function newlyDefined(path: string, before: string, after: string): { what: string[]; gone: string[] } {
  const what = whatChanged(path, after);
  if (before === '') return { what, gone: [] };
  // By name: the old text may cut a definition before its docstring, which the item quotes.
  const had = whatChanged(path, before).map(definitionName);
  const now = new Set(what.map(definitionName));
  const gone = had.filter((n) => !now.has(n));
  const kept = new Set(had);
  const added = what.filter((x) => !kept.has(definitionName(x)));
  // An edit that only took definitions out defines none of those it kept (the skeptic's c27).
  return { what: added.length > 0 || gone.length > 0 ? added : what, gone };
}

function toolCallFacts(block: Record<string, unknown>, facts: Fact[]): void {
  const name = str(block.name) ?? 'tool';
  const id = str(block.id) ?? '';
  const input = isObj(block.input) ? block.input : {};
  const call: Fact & { t: 'tool_call' } = { t: 'tool_call', id, name };
  if (SHELL_TOOLS.has(name.toLowerCase()) && typeof input.command === 'string') call.command = input.command;
  const edit = EDIT_TOOLS[name];
  if (edit !== undefined && typeof input[edit[0]] === 'string') {
    const path = input[edit[0]] as string;
    call.files = [path];
    const written = writtenText(name, input);
    const printed = printedChange(replacedText(name, input), written);
    const defined = newlyDefined(path, replacedText(name, input), written);
    call.writes = [{ path, how: edit[1], what: defined.what, ...(defined.gone.length > 0 ? { gone: defined.gone } : {}), ...(printed.removed.length > 0 ? { removed: printed.removed } : {}), ...(printed.added.length > 0 ? { added: printed.added } : {}) }];
  }
  if (input.run_in_background === true) call.background = true;
  if (name === 'Read' && typeof input.file_path === 'string') call.read = input.file_path;
  if (name === 'WebFetch' && typeof input.url === 'string') call.fetches = input.url;
  // A monitor or a background shell keeps running: followed through its notifications.
  if ((name === 'Monitor' || call.background === true) && typeof input.command === 'string') {
    const description = str(input.description);
    call.job = description === undefined ? { command: input.command } : { command: input.command, description };
  }
  const stops = str(input.task_id) ?? str(input.shell_id);
  if ((name === 'TaskStop' || name === 'KillShell' || name === 'KillBash') && stops !== undefined) call.stops = stops;
  if (QUESTION_TOOLS.has(name)) call.question = questionText(name, input);
  if (name === 'ExitPlanMode' && typeof input.plan === 'string' && input.plan.trim() !== '') facts.push({ t: 'plan', id, text: input.plan });
  if (name === 'TodoWrite' || name === 'TaskCreate' || name === 'TaskUpdate') call.plan = true;
  facts.push(call);
  // Polling a shell Claude Code moved to the background: its result, once completed, is the shell's.
  const polled = str(input.bash_id) ?? str(input.shell_id);
  if ((name === 'BashOutput' || name === 'TaskOutput') && polled !== undefined && id !== '') facts.push({ t: 'wait', id, cell: shellCell(polled) });
  if (name === 'TodoWrite' && Array.isArray(input.todos)) {
    const items: TodoItem[] = [];
    for (const t of input.todos) {
      if (!isObj(t)) continue;
      const text = str(t.content) ?? str(t.subject) ?? str(t.activeForm);
      if (text !== undefined) items.push({ text, status: todoStatus(t.status) });
    }
    facts.push({ t: 'todos', items });
  } else if (name === 'TaskCreate') {
    const subject = str(input.subject) ?? str(input.description);
    const description = str(input.subject) === undefined ? undefined : str(input.description);
    if (subject !== undefined) {
      const create: Fact & { t: 'task_create' } = { t: 'task_create', subject };
      if (description !== undefined) create.description = description;
      if (id !== '') create.call = id;
      facts.push(create);
    }
  } else if (name === 'TaskUpdate') {
    const taskId = str(input.taskId) ?? (num(input.taskId)?.toString());
    const status = str(input.status);
    if (taskId !== undefined && status !== undefined) facts.push(id === '' ? { t: 'task_update', id: taskId, status } : { t: 'task_update', id: taskId, status, call: id });
  } else if (SUBAGENT_TOOLS.has(name)) {
    const description = str(input.description) ?? str(input.subagent_type);
    const prompt = str(input.prompt);
    const readOnly = READ_ONLY_AGENTS.has(str(input.subagent_type) ?? '');
    const agentName = str(input.name)?.trim();
    facts.push({ t: 'subagent', id, ...(description === undefined ? {} : { description }), ...(input.run_in_background === true ? { background: true as const } : {}), ...(prompt === undefined ? {} : { prompt }), ...(readOnly ? { readOnly: true as const } : {}), ...(agentName ? { name: cutBeforeRedaction(agentName, NAME_READ_CHARS) } : {}) });
  } else if (name === 'SendMessage' && id !== '') {
    const to = str(input.to) ?? str(input.recipient);
    if (to !== undefined && to.trim().length > 0) facts.push({ t: 'agent_message', call: id, to: cutBeforeRedaction(to.trim(), NAME_READ_CHARS) });
  }
}

/** How much of an agent's name reaches the redactor: the state keeps 80 characters, cut after it (reduce.ts). */
const NAME_READ_CHARS = 1000;

/** Claude Code's built-in agents that are given no tool that writes: they search and read, and report. */
const READ_ONLY_AGENTS = new Set(['Explore', 'Plan']);

/** The new text a write tool carries: Write's content, Edit's new string, MultiEdit's new strings. */
function writtenText(name: string, input: Record<string, unknown>): string {
  if (name === 'Write') return str(input.content) ?? '';
  if (name === 'NotebookEdit') return str(input.new_source) ?? '';
  if (name === 'MultiEdit' && Array.isArray(input.edits)) return input.edits.map((e) => (isObj(e) ? (str(e.new_string) ?? '') : '')).join('\n');
  return str(input.new_string) ?? '';
}

/** The old text a write tool replaces: Edit's old string, MultiEdit's old strings (a Write's old content is not in the transcript). */
function replacedText(name: string, input: Record<string, unknown>): string {
  if (name === 'MultiEdit' && Array.isArray(input.edits)) return input.edits.map((e) => (isObj(e) ? (str(e.old_string) ?? '') : '')).join('\n');
  return name === 'Edit' ? (str(input.old_string) ?? '') : '';
}

function questionText(name: string, input: Record<string, unknown>): string {
  if (name === 'ExitPlanMode') return 'approve the plan';
  const qs = Array.isArray(input.questions) ? input.questions : [];
  const texts = qs.map((q) => (isObj(q) ? str(q.question) : undefined)).filter((q): q is string => q !== undefined);
  return texts.length > 0 ? texts.join(' / ') : (str(input.question) ?? 'a question');
}

/** The text of TaskCreate's result: `Task #4 created successfully: <subject>`. */
const TASK_CREATED = /^\s*Task #([^\s:]+) created successfully\b/;

/**
 * The id Claude Code gave a task it created: the structured result (`toolUseResult.task.id`)
 * first, the result text as fallback. Other results may carry a `task` too (TaskGet): the fold
 * takes the id only for a create call that awaits it.
 */
function createdTaskId(tur: Record<string, unknown> | undefined, text: string): string | undefined {
  const task = isObj(tur?.task) ? tur.task : undefined;
  return str(task?.id) ?? num(task?.id)?.toString() ?? TASK_CREATED.exec(text)?.[1];
}

/** `single`: the line carries this one result, so its `toolUseResult` is surely this result's. */
function resultFacts(block: Record<string, unknown>, line: Record<string, unknown>, text: string, facts: Fact[], single: boolean): boolean {
  const id = str(block.tool_use_id) ?? '';
  const isError = block.is_error === true;
  const tur = isObj(line.toolUseResult) ? line.toolUseResult : undefined;
  const interrupted = tur?.interrupted === true || (isError && TOOL_INTERRUPTED.test(text));
  const exitCode = num(tur?.exitCode) ?? parseExitCode(text);
  const ok = interrupted ? false : exitCode !== undefined ? exitCode === 0 && !isError : !isError;
  const fact: Fact & { t: 'tool_result' } = { t: 'tool_result', id, ok, output: text };
  if (exitCode !== undefined) fact.exitCode = exitCode;
  if (interrupted) fact.interrupted = true;
  if (isError && DENIED.test(text.trim())) {
    const feedback = rejectionFeedback(text);
    fact.denied = /^The user doesn't want to proceed/.test(text.trim())
      ? `rejected by the user${feedback === null ? '' : `: ${feedback}`}`
      : (text.trim().split('\n')[0] ?? 'denied');
    if (feedback !== null) facts.push({ t: 'request', text: feedback, kind: 'rejection' });
  }
  facts.push(fact);
  if (!isError) {
    const answers = questionAnswers(text);
    if (answers !== null) facts.push({ t: 'request', text: answers, kind: 'answer' });
    const taskId = id === '' ? undefined : createdTaskId(single ? tur : undefined, text);
    if (taskId !== undefined) facts.push({ t: 'task_id', call: id, id: taskId });
    // The agent a subagent call ran: its transcript is agent-<id>.jsonl (identity.ts).
    const agent = single && id !== '' ? str(tur?.agentId) : undefined;
    if (agent !== undefined && AGENT_ID.test(agent)) facts.push({ t: 'subagent_id', call: id, agent });
  }
  return ok;
}

function usageFact(message: Record<string, unknown>): Fact | undefined {
  const u = isObj(message.usage) ? message.usage : undefined;
  if (!u) return undefined;
  const input = num(u.input_tokens);
  if (input === undefined) return undefined;
  const used = input + (num(u.cache_creation_input_tokens) ?? 0) + (num(u.cache_read_input_tokens) ?? 0);
  const key = str(message.id);
  return key === undefined ? { t: 'usage', used } : { t: 'usage', used, key };
}

/** Claude Code's permission mode on a line the user's side wrote (`default`, `acceptEdits`, `plan`, `bypassPermissions`). */
function permissionFact(obj: Record<string, unknown>): Fact | undefined {
  const mode = str(obj.permissionMode);
  return mode === undefined || mode.length === 0 || mode.length > 40 ? undefined : { t: 'permissions', text: `permission mode \`${mode}\`` };
}

function metaFact(obj: Record<string, unknown>): Fact | undefined {
  const fact: Fact & { t: 'meta' } = { t: 'meta' };
  const sid = str(obj.sessionId);
  if (sid !== undefined) fact.uuid = sid;
  const cwd = str(obj.cwd);
  if (cwd !== undefined && cwd.length > 0) fact.cwd = cwd;
  const branch = str(obj.gitBranch);
  if (branch !== undefined && branch.length > 0) fact.branch = branch;
  const version = str(obj.version);
  if (version !== undefined) fact.version = version;
  return Object.keys(fact).length > 1 ? fact : undefined;
}

export function readClaude(obj: Record<string, unknown>): Observation {
  const type = str(obj.type) ?? '';
  const ts = str(obj.timestamp) ?? null;
  const sidechain = obj.isSidechain === true;
  const facts: Fact[] = [];
  const meta = metaFact(obj);
  if (meta) facts.push(meta);
  const permissions = permissionFact(obj);
  if (permissions) facts.push(permissions);
  const uuid = str(obj.uuid);
  const parent = str(obj.parentUuid);
  if (uuid !== undefined) facts.push(parent === undefined ? { t: 'node', uuid } : { t: 'node', uuid, parent });
  const obs: Observation = { kind: type, blocks: [], text: '', ts, facts };
  if (sidechain) obs.sidechain = true;
  if (!KNOWN_TYPES.has(type)) obs.unknown = type || '(none)';

  const message = isObj(obj.message) ? obj.message : undefined;
  switch (type) {
    case 'assistant':
      readAssistant(obj, message, obs);
      break;
    case 'user':
      readUser(obj, message, obs);
      break;
    case 'summary': {
      // A title Claude Code wrote for a conversation, not a compaction (SPEC §8).
      obs.text = str(obj.summary) ?? '';
      obs.notice = true;
      const leaf = str(obj.leafUuid);
      if (obs.text.trim().length > 0) facts.push(leaf === undefined ? { t: 'title', title: obs.text, source: 'summary' } : { t: 'title', title: obs.text, source: 'summary', leaf });
      break;
    }
    case 'system':
      readSystem(obj, obs);
      break;
    case 'custom-title':
    case 'ai-title': {
      const title = str(obj.customTitle) ?? str(obj.aiTitle) ?? str(obj.title);
      if (title !== undefined) facts.push({ t: 'title', title, source: type === 'custom-title' ? 'custom' : 'ai' });
      break;
    }
    default: {
      const ex = genericText(obj);
      obs.text = ex.text;
      obs.blocks = ex.blocks;
      obs.notice = true;
    }
  }
  if (obs.text.includes('<task-notification>')) facts.push({ t: 'job_text', text: obs.text });
  return obs;
}

function readAssistant(obj: Record<string, unknown>, message: Record<string, unknown> | undefined, obs: Observation): void {
  obs.role = str(message?.role) ?? 'assistant';
  const model = str(message?.model);
  if (model !== undefined && model !== '<synthetic>') obs.facts.push({ t: 'model', model });
  // A side chain's usage is its subagent's context, not the session's: reduce.ts applies it only
  // on the main chain (a subagent's own transcript is all main).
  // A message Claude Code made itself (`<synthetic>`: an API error, an interruption) carries a usage
  // of zeros: it was sent to no model, and read as one it said "0 tokens used" of a full context.
  if (message && model !== '<synthetic>') {
    const usage = usageFact(message);
    if (usage) obs.facts.push(usage);
  }
  const content = message?.content;
  if (Array.isArray(content)) {
    const texts: string[] = [];
    for (const b of content) {
      const { kind, text } = blockText(b);
      obs.blocks.push(kind);
      if (text.length > 0) texts.push(text);
      if (kind === 'tool_call' && isObj(b)) {
        toolCallFacts(b, obs.facts);
        obs.tool ??= { name: str(b.name) ?? 'tool', id: str(b.id) ?? '' };
        const said = isObj(b.input) ? str(b.input.description) : undefined;
        if (said !== undefined && said.length > 0) obs.aside = obs.aside === undefined ? said : `${obs.aside}\n${said}`;
      }
    }
    obs.text = texts.join('\n\n');
  } else {
    const ex = contentText(content);
    obs.text = ex.text;
    obs.blocks = ex.blocks;
  }
  if (obj.isApiErrorMessage === true || (obj.error !== undefined && /^API Error/.test(obs.text))) {
    obs.facts.push({ t: 'api_error', message: obs.text });
    // Claude Code's own message in the agent's place: the agent has said nothing since the error.
    obs.notice = true;
  }
}

function readUser(obj: Record<string, unknown>, message: Record<string, unknown> | undefined, obs: Observation): void {
  obs.role = str(message?.role) ?? 'user';
  if (obj.isCompactSummary === true) {
    // The summary Claude Code writes after compacting: context, not a user request.
    obs.kind = 'summary';
    delete obs.role;
    obs.text = contentText(message?.content).text;
    obs.notice = true;
    // The parts are read from the text after the redactor read it whole (reduce.ts): a part cut
    // or split off first could hold a value without the label or the key id that marks it.
    obs.facts.push(compactionParts(obs.text) === null ? { t: 'compaction' } : { t: 'compaction', text: obs.text });
    return;
  }
  const content = message?.content;
  if (!Array.isArray(content)) {
    const ex = contentText(content);
    obs.text = ex.text;
    obs.blocks = ex.blocks;
  } else {
    const texts: string[] = [];
    const single = content.filter((b) => isObj(b) && b.type === 'tool_result').length === 1;
    for (const b of content) {
      const read = blockText(b);
      const { kind } = read;
      // A secret the user typed as the answer to the agent's question (AskUserQuestion).
      const masked = kind === 'tool_result' ? maskQuestionAnswers(read.text) : null;
      if (masked !== null) (obs.typed ??= []).push(...masked.typed);
      const text = masked === null ? read.text : masked.text;
      obs.blocks.push(kind);
      if (text.length > 0) texts.push(text);
      if (kind === 'tool_result' && isObj(b)) {
        const ok = resultFacts(b, obj, text, obs.facts, single);
        obs.tool ??= { name: '', id: str(b.tool_use_id) ?? '', ok };
      }
    }
    obs.text = texts.join('\n\n');
  }
  if (obj.isMeta === true || NOTICE.test(obs.text)) obs.notice = true;
  if (obj.isMeta === true || CONTEXT.test(obs.text)) obs.context = true;
  const closed = CLOSED.exec(obs.text);
  if (closed?.[1] !== undefined) obs.facts.push({ t: 'closed', command: `/${closed[1]}` });
  // Whole (to a bound no rule's context reaches past): it is cut to its first 300 characters only
  // after it is redacted (reduce.ts), since a rule may decide from what follows a value (a
  // Secret's `kind:` after its `data:`, a record's `"name"` after its `"value"`).
  if (INTERRUPTED.test(obs.text)) obs.facts.push({ t: 'interrupted', message: cutBeforeRedaction(obs.text.trim(), INTERRUPTED_MESSAGE_CHARS) });
  // A request is what the user typed: text blocks, never a tool result's content.
  if (obj.isMeta !== true) {
    const typed = Array.isArray(content) ? content.filter((b) => typeof b === 'string' || (isObj(b) && (b.type === 'text' || b.type === 'image'))).map((b) => blockText(b).text).join('\n\n') : obs.text;
    const req = typed.length > 0 ? userRequest(typed) : null;
    if (req !== null) obs.facts.push(requestFact(req, typed));
  }
}

/**
 * The next step a recap names: Claude Code 2.1 writes one when the user comes back ("Goal: …
 * Status: … Next action: submit the dashboard URL …", "… No next action unless you want to push.
 * (disable recaps in /config)"). The sentence that names it, as written.
 */
export function recapNext(text: string): string | null {
  const body = text.replace(/\s*\(disable recaps in \/config\)\s*$/, '').trim();
  const m = /(?:^|[.!?]\s+)((?:No next (?:action|step)\b|Next(?: action| step)?\s*:)[^\n]*)$/i.exec(body);
  const s = m?.[1]?.trim();
  // Cut after the redactor reads it (reduce.ts): the sentence is short, and a cut glued to a value ends the label's reach.
  return s === undefined || s.length === 0 ? null : cutBeforeRedaction(s, RECAP_READ_CHARS);
}

/** How much of a recap's sentence reaches the redactor (the state keeps 400 characters of it, cut after). */
const RECAP_READ_CHARS = 4000;

function readSystem(obj: Record<string, unknown>, obs: Observation): void {
  const subtype = str(obj.subtype);
  if (subtype) obs.kind = `system.${subtype}`;
  obs.notice = true;
  const ex = genericText(obj);
  obs.text = ex.text;
  obs.blocks = ex.blocks;
  if (subtype === 'compact_boundary') obs.facts.push({ t: 'compaction' });
  if (subtype === 'away_summary') {
    const next = recapNext(obs.text);
    if (next !== null) obs.facts.push({ t: 'recap', next });
  }
  hookRun(obj, obs.text, obs.facts);
  if (subtype === 'api_error' || subtype === 'error' || subtype === 'api_refusal') {
    const err = isObj(obj.error) ? obj.error : undefined;
    const message =
      str(err?.message) ?? str(err?.formatted) ?? str(err?.type) ?? str(obj.apiRefusalExplanation) ?? (obs.text || subtype);
    obs.facts.push({ t: 'api_error', message });
    if (obs.text.length === 0) obs.text = `${subtype}: ${message}`;
  }
}


/**
 * A hook that ran a command for the agent (Claude Code 1.0: a system line
 * "Stop [uv run pyright] completed successfully: …"; 2.x: an attachment with command and exitCode).
 * It is a run like any other: a check when its command is one.
 */
const HOOK_LINE = /^(?:\x1b\[1m)?[A-Za-z]+(?::[\w*|-]+)?(?:\x1b\[22m)? \[(.+?)\] (completed successfully|failed with (?:non-blocking )?status code (\d+))(?::\s*([\s\S]*))?$/;

function hookRun(obj: Record<string, unknown>, text: string, facts: Fact[]): void {
  const m = HOOK_LINE.exec(text);
  const id = `hook:${str(obj.uuid) ?? ''}`;
  if (m?.[1] !== undefined) {
    const ok = m[2] === 'completed successfully';
    facts.push({ t: 'tool_call', id, name: 'hook', command: m[1] });
    const exitCode = ok ? 0 : Number(m[3]);
    facts.push({ t: 'tool_result', id, ok, exitCode, output: m[4] ?? '' });
  }
}
