import { sha256Hex } from './canonical.js';
import { pushBounded, setBounded, trimRecord } from './bounded.js';
import { LEDGER_LIMITS, markChanged, markNotChanged, noteAgentText, noteCall, noteJobText, noteNode, noteRequest, noteResult, noteTurnEnd, tally } from './ledger.js';
import { LIMITS, objectiveCut, taskItems } from './state.js';
import { exitMeansNoMatch } from './shell.js';
import { filePath, heldKey } from './paths.js';
import type { CommandRecord, FailureRecord, PlanRecord, SessionState, TaskRecord, WindowTurn } from './state.js';
import type { Fact, Turn } from './types.js';
import { headEnd, textTail } from './cut.js';
import { compactionParts } from './compaction.js';
import { headingsFrom, planFiles } from './plan-files.js';

/**
 * The harness-neutral half of reading: facts and turns folded into bounded accumulators. Every
 * collection drops its oldest entries past its LIMITS bound, deterministically, so a session
 * read in one go and one read in many pieces end in the same state.
 */

const TITLE_RANK = { summary: 0.5, ai: 1, thread: 2, custom: 3 } as const;

const head = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
/** A redacted text's head, cut between words so a redaction's tag stays whole. */
const headEnded = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, headEnd(s, n - 1)).trimEnd()}…`);
/** What the state keeps of a recap's next step, and of an agent's name. */
const RECAP_CHARS = 400;
const NAME_CHARS = 80;


/** What tells two runs of one call apart. A long command (a heredoc with a whole file) is kept as its head and digest. */
function failureKey(name: string, command: string | undefined, files: readonly string[] | undefined): string {
  const what = command ?? files?.[0] ?? '';
  return `${name}\u0000${what.length <= KEY_CHARS ? what : `${what.slice(0, KEY_CHARS)}\u0000${sha256Hex(what).slice(0, 16)}`}`;
}
const KEY_CHARS = 300;

/** The folder a call ran in: its own (Codex `workdir`, joined to the session's), else the session's. */
function callFolder(st: SessionState, own: string | undefined): string | undefined {
  return own === undefined ? st.meta.cwd : filePath(own, st.meta.cwd);
}

function noteFiles(st: SessionState, files: readonly string[], tool: string, seq: number, cwd: string | undefined): void {
  for (const name of files) {
    // One file, one entry, in the form the ledger keys it by (src/core/paths.ts).
    const f = filePath(name, cwd);
    const key = heldKey(st.files, f);
    const rec = key === undefined ? undefined : st.files[key];
    if (rec && key !== undefined) {
      rec.lastSeq = seq;
      rec.count += 1;
      // Keep insertion order = order of last touch, so the bound drops the stalest file.
      delete st.files[key];
      st.files[f] = rec;
    } else {
      st.files[f] = { firstSeq: seq, lastSeq: seq, tool, count: 1 };
      st.filesTotal += 1;
    }
  }
  trimRecord(st.files, LIMITS.FILES);
}

function resolveFailures(st: SessionState, key: string, seq: number): void {
  for (const f of st.failures) {
    if (f.kind === 'tool_error' && f.key === key && f.resolvedSeq === undefined) f.resolvedSeq = seq;
  }
}

function findCommand(st: SessionState, id: string): CommandRecord | undefined {
  if (id === '') return undefined;
  for (let i = st.commands.length - 1; i >= 0; i -= 1) {
    const c = st.commands[i];
    if (c?.id === id) return c;
  }
  return undefined;
}

function applyToolCall(st: SessionState, f: Fact & { t: 'tool_call' }, seq: number): void {
  const existing = f.id === '' ? undefined : st.calls[f.id];
  if (existing) {
    // A second record of the same call (Codex exec_command_begin/end): fill in what was missing.
    if (f.command !== undefined && existing.command === undefined) {
      existing.command = head(f.command, LIMITS.COMMAND_CHARS);
      existing.key = failureKey(existing.name, f.command, f.files);
      addCommand(st, f.id, existing.name, f.command, existing.seq);
    }
    if (f.files) noteFiles(st, f.files, existing.name, seq, callFolder(st, f.cwd));
    return;
  }
  if (f.id !== '') {
    setBounded(st.toolNames, f.id, f.name, LIMITS.TOOL_IDS);
    const call: { name: string; seq: number; key: string; command?: string } = { name: f.name, seq, key: failureKey(f.name, f.command, f.files) };
    if (f.command !== undefined) call.command = head(f.command, LIMITS.COMMAND_CHARS);
    setBounded(st.calls, f.id, call, LIMITS.TOOL_IDS);
  }
  if (f.command !== undefined) addCommand(st, f.id, f.name, f.command, seq);
  if (f.files) noteFiles(st, f.files, f.name, seq, callFolder(st, f.cwd));
}

function addCommand(st: SessionState, id: string, tool: string, command: string, seq: number): void {
  st.commandsTotal += 1;
  pushBounded(st.commands, { id, tool, command: head(command, LIMITS.COMMAND_CHARS), seq, result: 'unknown' }, LIMITS.COMMANDS);
}

function applyToolResult(st: SessionState, f: Fact & { t: 'tool_result' }, seq: number): void {
  const call = st.calls[f.id];
  const cmd = findCommand(st, f.id);
  if (cmd) {
    // A call the agent made (its line before this one) whose end only the harness recorded so far.
    if (f.event !== true) delete cmd.unread;
    else if (cmd.resultSeq === undefined && cmd.seq < seq) cmd.unread = true;
    // Several records may report one command; a known exit code beats a guess.
    const stronger = cmd.result === 'unknown' || (f.exitCode !== undefined && cmd.exitCode === undefined);
    if (stronger && (f.ok !== undefined || f.interrupted === true)) {
      cmd.result = f.interrupted === true ? 'interrupted' : f.ok === true ? 'passed' : 'failed';
      cmd.resultSeq = seq;
      if (f.exitCode !== undefined) cmd.exitCode = f.exitCode;
    } else if (cmd.resultSeq === undefined) {
      // A result with no exit code or status (some Codex outputs): recorded, its outcome unknown.
      cmd.resultSeq = seq;
    }
  }
  if (f.ok === undefined) return;
  // A search that found nothing (grep's exit 1) is an answer, not a failure.
  if (f.ok === false && call?.command !== undefined && exitMeansNoMatch(call.command, f.exitCode, f.output)) return;
  const key = call?.key ?? failureKey(st.toolNames[f.id] ?? 'tool', undefined, undefined);
  if (f.ok) {
    resolveFailures(st, key, seq);
    return;
  }
  if (f.id !== '' && st.failures.some((x) => x.id === f.id)) return; // the same call reported twice
  const text = call?.command ?? head((f.output ?? '').trim().split('\n')[0] ?? '', LIMITS.FAILURE_TEXT_CHARS);
  const rec: FailureRecord = {
    kind: f.interrupted === true ? 'interrupted' : 'tool_error',
    seq,
    text: head(text, LIMITS.FAILURE_TEXT_CHARS),
    tool: call?.name ?? st.toolNames[f.id] ?? 'tool',
    key,
  };
  if (f.id !== '') rec.id = f.id;
  if (f.exitCode !== undefined) rec.exitCode = f.exitCode;
  if (f.output !== undefined && call?.command !== undefined) {
    const first = f.output.trim().split('\n').find((l) => l.trim().length > 0 && !/^(?:Error: )?Exit code \d+$/.test(l.trim()));
    if (first) rec.text = head(`${call.command} → ${first.trim()}`, LIMITS.FAILURE_TEXT_CHARS);
  }
  pushBounded(st.failures, rec, LIMITS.FAILURES);
}

/**
 * Applies one fact. `main` is false for a subagent's lines inside the parent's file; `line` is the
 * 1-based line of the transcript the fact came from.
 */
export function applyFact(st: SessionState, f: Fact, seq: number, main: boolean, line = seq + 1, ts?: string): void {
  applyToLedger(st, f, line, main, ts);
  switch (f.t) {
    case 'meta': {
      const m = st.meta;
      if (f.uuid !== undefined) m.uuid ??= f.uuid;
      if (f.cwd !== undefined && main) {
        if (m.cwd !== f.cwd) m.cwdSince = line;
        m.cwd = f.cwd;
        m.firstCwd ??= f.cwd;
      }
      if (f.branch !== undefined && main) {
        // A list begun with the first branch; a state that had one before it was kept starts none.
        if (m.branch === undefined) m.branches = [{ branch: head(f.branch, 200), line }];
        else if (m.branch !== f.branch && m.branches !== undefined) pushBounded(m.branches, { branch: head(f.branch, 200), line }, 20);
        m.branch = f.branch;
      }
      if (f.commit !== undefined && main) m.commit = f.commit;
      if (f.remote !== undefined && main) m.remote = head(f.remote, 1000);
      if (f.version !== undefined) m.version = f.version;
      if (f.forkedFrom !== undefined) m.forkedFrom ??= f.forkedFrom;
      if (f.parentUuid !== undefined) m.parentUuid ??= f.parentUuid;
      return;
    }
    case 'model':
      if (!main) return;
      if (st.meta.model !== f.model) pushBounded((st.meta.models ??= []), { model: head(f.model, 200), line }, 20);
      st.meta.model = f.model;
      return;
    case 'node': {
      if (main) noteNode(st.ledger, f.uuid, f.parent, line);
      const title = st.meta.summaries?.[f.uuid];
      if (title !== undefined && st.meta.summaries) {
        delete st.meta.summaries[f.uuid];
        applyFact(st, { t: 'title', title, source: 'summary' }, seq, main);
      }
      return;
    }
    case 'title': {
      if (f.leaf !== undefined) {
        // Claude writes the titles of earlier conversations at the top of a resumed one: a summary
        // names this session only once the message it names appears here.
        const pending = (st.meta.summaries ??= {});
        pending[f.leaf] = f.title;
        trimRecord(pending, 20);
        return;
      }
      const rank = TITLE_RANK[f.source];
      if (rank >= (st.meta.titleRank ?? 0)) {
        st.meta.title = head(f.title.trim(), 200);
        st.meta.titleRank = rank;
      }
      return;
    }
    case 'message_mirror': {
      if (!main) return;
      const said = f.text.trim();
      const m: NonNullable<SessionState['mirrorMessage']> = said.length <= LIMITS.STATE_NOW_CHARS ? { text: said, seq } : { text: textTail(said, LIMITS.STATE_NOW_CHARS), seq, chars: said.length };
      st.mirrorMessage = f.commentary === true ? { ...m, commentary: true } : m;
      return;
    }
    case 'reasoning_hidden':
      if (main) st.hiddenThought = seq;
      return;
    case 'reasoning_mirror':
      // The agent's latest reasoning until the item that carries it comes (a turn, which replaces it).
      if (main && (st.lastThought === undefined || st.lastThought.seq < seq)) st.lastThought = { text: head(f.text, LIMITS.THOUGHT_CHARS), seq };
      return;
    case 'usage':
      if (!main) return;
      if (f.key !== undefined && st.usage?.key === f.key) return; // same streamed response
      st.usage = { used: f.used, limit: f.limit ?? null, key: f.key ?? null, seq };
      st.compacted = false;
      return;
    case 'context_limit':
      st.contextLimit = f.limit;
      return;
    case 'closed':
      if (main) st.ledger.closed = { line, command: f.command };
      return;
    case 'commentary': {
      if (!main) return;
      st.commentaryLine = line;
      // Its text may have been noted as the latest request's reply before this note of its phase.
      const asked = st.ledger.requests[st.ledger.requests.length - 1];
      if (asked !== undefined && asked.replied === line) asked.repliedNote = true;
      return;
    }
    case 'permissions': {
      const p = st.permissions;
      if (!main || p?.text === f.text) return;
      st.permissions = p === undefined ? { text: f.text, since: line } : { text: f.text, since: line, was: { text: p.text, since: p.since } };
      return;
    }
    case 'compaction': {
      if (!st.compacted) st.compactions += 1;
      st.compacted = true;
      st.lastCompactionSeq = seq;
      st.lastCompactionLine = line;
      // Claude Code's boundary line comes first, its summary next: the summary's parts stand until
      // a compaction after them.
      if (!main) return;
      // The summary was redacted whole: its parts are read and cut only now.
      const parts = f.text === undefined ? null : compactionParts(f.text);
      if (parts !== null) st.compactionSummary = { line, ...parts };
      else delete st.compactionSummary;
      return;
    }
    case 'tool_call':
      applyToolCall(st, f, seq);
      return;
    case 'tool_result':
      applyToolResult(st, f, seq);
      if (main && st.subagents.length > 0) subagentReturned(st, f.id, seq, f.ok, f.output ?? '');
      if (main && st.agentMessages !== undefined && f.id !== '') messageAnswered(st.agentMessages, f.id, f.ok, f.output ?? '');
      if (main && st.plans !== undefined && st.plans.length > 0) planAnswered(st.plans, f, line);
      // A TaskCreate whose result is an error (failed, denied, interrupted) made no task.
      if (f.ok === false && main) dropRefusedTask(st, f.id);
      if (main && f.id !== '' && st.tasks.length > 0) settleTaskUpdate(st, f.id, f.ok === false);
      return;
    case 'files':
      noteFiles(st, f.files, f.tool, seq, st.meta.cwd);
      return;
    case 'todos': {
      if (!main) return;
      // A list is written whole each time: an item as it was before (same words, same status) keeps
      // the line that set its status, so a step begun for an earlier request is not taken for one
      // begun since (TodoItem.line).
      const before = new Map(st.todos?.source === 'todos' ? st.todos.items.map((i) => [`${i.status}\u0000${i.text}`, i.line]) : []);
      st.todos = { items: f.items.slice(0, 100).map((i) => ({ ...i, line: before.get(`${i.status}\u0000${i.text}`) ?? line })), seq, source: 'todos' };
      return;
    }
    case 'task_create': {
      if (!main) return;
      const task: TaskRecord = { id: nextTaskId(st), text: head(f.subject, 300), status: 'pending', line, created: line };
      if (f.call !== undefined) task.call = f.call;
      if (f.description !== undefined) task.description = head(f.description, 300);
      pushBounded(st.tasks, task, LIMITS.TASKS);
      st.todos = { items: taskItems(st.tasks), seq, source: 'tasks' };
      return;
    }
    case 'task_id':
      if (main) learnTaskId(st, f.call, f.id);
      return;
    case 'task_update': {
      if (!main) return;
      const task = st.tasks.find((t) => t.id === f.id);
      if (!task) return;
      if (f.status === 'deleted') {
        // Gone once its call succeeds: hidden until then, back if the result is an error.
        if (f.call === undefined) st.tasks = st.tasks.filter((t) => t !== task);
        else task.deleting = f.call;
      } else {
        if (f.call !== undefined) task.undo = task.line === undefined ? { call: f.call, status: task.status } : { call: f.call, status: task.status, line: task.line };
        task.status = f.status === 'completed' ? 'completed' : f.status === 'in_progress' ? 'in_progress' : 'pending';
        task.line = line;
      }
      st.todos = { items: taskItems(st.tasks), seq, source: 'tasks' };
      return;
    }
    case 'api_error':
      pushBounded(st.failures, { kind: 'api_error', seq, text: head(f.message.trim(), LIMITS.FAILURE_TEXT_CHARS) }, LIMITS.FAILURES);
      return;
    case 'interrupted':
      if (!main) return;
      pushBounded(st.failures, { kind: 'interrupted', seq, text: head(f.message, LIMITS.FAILURE_TEXT_CHARS) }, LIMITS.FAILURES);
      return;
    case 'plan': {
      // A state begun before plans were read has no list: it starts one here.
      if (!main) return;
      const text = f.text.trim();
      const plan: PlanRecord = text.length <= LIMITS.PLAN_CHARS ? { id: f.id, text, line, approved: null } : { id: f.id, text: head(text, LIMITS.PLAN_CHARS), chars: text.length, line, approved: null };
      // The head keeps its characters but the last, given to the ellipsis.
      const rest = plan.chars === undefined ? [] : headingsFrom(text, plan.text.length - 1);
      if (rest.length > 0) plan.restHeadings = rest;
      const { files, conditional } = planFiles(text);
      if (files.length > 0) plan.files = files;
      if (conditional.length > 0) plan.maybeFiles = conditional;
      pushBounded((st.plans ??= []), plan, LIMITS.PLANS);
      return;
    }
    case 'plan_approved': {
      if (!main) return;
      const plan = st.plans?.findLast((p) => p.approved === null && p.result_line === undefined);
      if (plan !== undefined) {
        plan.approved = true;
        plan.result_line = line;
      }
      return;
    }
    case 'subagent': {
      const s: SessionState['subagents'][number] = { id: f.id, description: head(f.description ?? '', 200), seq, ...(f.background ? { background: true as const } : {}), ...(f.readOnly ? { readOnly: true as const } : {}), ...(f.name === undefined ? {} : { name: headEnded(f.name, NAME_CHARS) }) };
      const prompt = f.prompt?.trim();
      if (main && prompt !== undefined && prompt.length > 0) {
        s.prompt = head(prompt, LIMITS.SUBAGENT_PROMPT_CHARS);
        if (prompt.length > LIMITS.SUBAGENT_PROMPT_CHARS) s.prompt_chars = prompt.length;
        s.line = line;
      }
      pushBounded(st.subagents, s, LIMITS.SUBAGENTS);
      return;
    }
    case 'agent_message':
      if (main) pushBounded((st.agentMessages ??= []), { call: f.call, to: headEnded(f.to, NAME_CHARS), line }, LIMITS.SUBAGENTS);
      return;
    case 'subagent_id':
      if (main) for (const s of st.subagents) if (s.id === f.call && s.id !== '') s.agent = f.agent;
      return;
    case 'request':
      if (main && f.kind === 'request' && st.objective === null) {
        const text = f.text.trim();
        st.objective = { ...objectiveCut(text), seq, line: seq + 1 };
      }
      return;
    case 'turn_complete':
    case 'turn_started':
    case 'wait':
    case 'web_search':
      return;
  }
}

/** The id of a task whose harness id is not known (yet): a number never given before in this session. */
function nextTaskId(st: SessionState): string {
  let id: string;
  do {
    st.taskSeq += 1;
    id = String(st.taskSeq);
  } while (st.tasks.some((t) => t.id === id));
  return id;
}

/**
 * The result of a create call gives its task the harness's own id. A task that held that id
 * before held a number of ours (or an id the harness has since given again): it keeps its place
 * and status under a fresh number, so an update names one task only.
 */
function learnTaskId(st: SessionState, call: string, id: string): void {
  const task = st.tasks.find((t) => t.call === call);
  if (!task) return;
  delete task.call;
  const n = /^\d+$/.test(id) ? Number(id) : 0;
  if (Number.isSafeInteger(n) && n > st.taskSeq) st.taskSeq = n;
  if (task.id === id) return;
  const holder = st.tasks.find((t) => t.id === id);
  if (holder) holder.id = nextTaskId(st);
  task.id = id;
}

/** The task still waiting for the result of create call `call`, when that result is an error. */
function dropRefusedTask(st: SessionState, call: string): void {
  const refused = call === '' ? undefined : st.tasks.find((t) => t.call === call);
  if (refused === undefined) return;
  st.tasks = st.tasks.filter((t) => t !== refused);
  if (st.todos?.source === 'tasks') st.todos = { ...st.todos, items: taskItems(st.tasks) };
}

/**
 * A TaskUpdate's result: an error (it failed, was denied or interrupted) means the status did not
 * change, so the task takes back the one it had, or is not deleted and shows again; either way the
 * call is settled (a deletion that succeeded removes the task).
 */
function settleTaskUpdate(st: SessionState, call: string, refused: boolean): void {
  const removed = st.tasks.find((t) => t.deleting === call);
  if (removed !== undefined) {
    if (refused) delete removed.deleting;
    else st.tasks = st.tasks.filter((t) => t !== removed);
    if (refused && st.todos?.source === 'tasks') st.todos = { ...st.todos, items: taskItems(st.tasks) };
    return;
  }
  const task = st.tasks.find((t) => t.undo?.call === call);
  if (task?.undo === undefined) return;
  if (refused) {
    task.status = task.undo.status;
    if (task.undo.line === undefined) delete task.line;
    else task.line = task.undo.line;
    if (st.todos?.source === 'tasks') st.todos = { ...st.todos, items: taskItems(st.tasks) };
  }
  delete task.undo;
}

/** The ledger's half of a fact: requests, writes, checks, commits and how the session stands. */
function applyToLedger(st: SessionState, f: Fact, line: number, main: boolean, ts?: string): void {
  const l = st.ledger;
  switch (f.t) {
    case 'request':
      if (main) noteRequest(l, f.text, line, f.kind, ts, f.ide);
      return;
    case 'job_text':
      if (main) noteJobText(l, f.text, line);
      return;
    case 'tool_call': {
      if (l.calls[f.id] !== undefined && f.id !== '') {
        // A second record of a known call (Codex exec_command_begin/end) adds nothing new.
        return;
      }
      const c: Parameters<typeof noteCall>[1] = { id: f.id, name: f.name, line };
      if (f.command !== undefined) c.command = f.command;
      if (f.writes) c.writes = f.writes;
      if (f.unreadable) c.unreadable = true;
      if (f.hidden) c.hidden = true;
      if (f.background) c.background = true;
      if (f.question !== undefined && main) c.question = f.question;
      if (f.plan && main) c.plan = true;
      if (f.planHidden && main) c.planHidden = true;
      if (f.read !== undefined) c.read = f.read;
      if (f.fetches !== undefined) c.fetches = f.fetches;
      if (f.job !== undefined) c.job = f.job;
      if (f.stops !== undefined) c.stops = f.stops;
      if (f.polls !== undefined) c.polls = f.polls;
      if (f.patchScript) c.patchScript = true;
      if (f.escalated === true) c.escalated = true;
      if (!main) c.subagent = true;
      const cwd = callFolder(st, f.cwd);
      if (cwd !== undefined) c.cwd = cwd;
      noteCall(l, c);
      return;
    }
    case 'tool_result': {
      const r: Parameters<typeof noteResult>[1] = { id: f.id, line };
      if (f.ok !== undefined) r.ok = f.ok;
      if (f.exitCode !== undefined) r.exitCode = f.exitCode;
      if (f.output !== undefined) r.output = f.output;
      if (f.denied !== undefined) r.denied = f.denied;
      if (f.interrupted) r.interrupted = true;
      if (f.patchFailed !== undefined) r.patchFailed = f.patchFailed;
      if (f.modeRefused === true) r.modeRefused = true;
      if (!main) r.subagent = true;
      if (ts !== undefined) r.ts = ts;
      if (st.meta.cwd !== undefined) r.cwd = st.meta.cwd;
      noteResult(l, r);
      return;
    }
    case 'files':
      for (const name of f.files) {
        const path = filePath(name, st.meta.cwd);
        if (f.ok === true) markChanged(l, path, f.how ?? 'patch', f.tool, line, !main, undefined, true, true);
        else if (f.ok === false) markNotChanged(l, path, line, 'the patch did not apply');
      }
      return;
    case 'wait': {
      const call = l.cells[f.cell];
      if (call !== undefined) {
        l.waits[f.id] = call;
        trimRecord(l.waits, LEDGER_LIMITS.CALLS);
      }
      return;
    }
    case 'web_search':
      if (main) l.webSearches = tally(l.webSearches, line);
      return;
    case 'turn_started':
      if (main) {
        if (l.turnFrom !== undefined && l.turnFrom < line) l.leftTurn = { from: l.turnFrom, at: line };
        l.turnFrom = line;
      }
      return;
    case 'turn_complete':
      if (main) noteTurnEnd(l, 'turn_complete', line);
      return;
    case 'interrupted':
      if (main) noteTurnEnd(l, /turn aborted/.test(f.message) ? 'turn_aborted' : 'interrupt', line);
      return;
    case 'api_error':
      if (main) noteTurnEnd(l, 'api_error', line);
      return;
    case 'recap':
      if (main) l.recap = { next: headEnded(f.next, RECAP_CHARS), line };
      return;
    case 'todos':
      if (main) l.lastPlanLine = line;
      return;
    default:
      return;
  }
}

/** A launched subagent's call has its result: the subagent's report came back (or its failure). */
/** What the harness answered a message to another agent: its first line, the JSON's `message` when it is JSON ("Message sent to alice's inbox"). */
function messageAnswered(ms: NonNullable<SessionState['agentMessages']>, id: string, ok: boolean | undefined, out: string): void {
  const m = ms.find((x) => x.call === id && x.result === undefined);
  if (m === undefined) return;
  const said = /"message"\s*:\s*"((?:[^"\\]|\\.){1,200})"/.exec(out)?.[1]?.replace(/\\(["\\])/g, '$1') ?? out.trim().split('\n')[0] ?? '';
  m.result = head(said, 160);
  if (ok !== undefined) m.ok = ok;
}

function subagentReturned(st: SessionState, id: string, seq: number, ok: boolean | undefined, report: string): void {
  if (id === '') return;
  for (let i = st.subagents.length - 1; i >= 0; i -= 1) {
    const s = st.subagents[i] as SessionState['subagents'][number];
    if (s.id !== id || s.result_seq !== undefined) continue;
    s.result_seq = seq;
    if (ok !== undefined) s.ok = ok;
    // A read-only agent's report names files it read and changes it proposes: it wrote none.
    const wrote = s.readOnly === true ? null : REPORTS_WRITES.exec(report);
    if (wrote !== null) {
      s.wrote = true;
      // The line that says so, for the successor to read (FundWise at 18: «Brief added to `…/ROADMAP.md` (new …»).
      const from = report.lastIndexOf('\n', wrote.index) + 1;
      const to = report.indexOf('\n', wrote.index);
      s.saidWrote = head(report.slice(from, to === -1 ? undefined : to).replace(/^[\s>*#-]+/, '').replace(/\s+/g, ' ').trim(), 200);
    }
    // How Claude Code says to reach it again: "use SendMessage with to: 'ab1e6e…' to continue this agent".
    const to = CONTINUE_TO.exec(report)?.[1];
    if (to !== undefined) s.continueTo = to;
    const commits = s.readOnly === true ? [] : reportedCommits(report);
    if (commits.length > 0) s.commits = commits;
    return;
  }
}

/**
 * A commit a report says its agent made: "Commit SHA: `5ea305f…`" (a label), "I committed it as
 * 1a2b3c4", "Committed 1a2b3c4" (7 to 40 hex digits, a digit and a letter among them, no more
 * after a `-`: a UUID's first part). Not a commit it names for another reason ("introduced in commit
 * 3f9e2a1", "HEAD is still at 9fceb02", "I did not commit").
 */
const REPORTED_COMMIT = /(?:\bcommit (?:sha|hash|id)\b\W{0,8}|(?:^|[-*•]\s+|\b(?:I|we|and|then|have|has|had)\s+)committed\b[^\n.;]{0,30}?|^\W{0,4}commit\W{1,8})`?(?<![0-9A-Za-z])([0-9a-f]{7,40})(?![0-9A-Za-z-])/gim;
const DENIES_COMMIT = /\b(?:did(?:n'?t| not)|have(?:n'?t| not)|no(?:thing)? (?:was )?)\s*(?:commit|committed)\b/i;

/** The commits a subagent's report says it made (at most 5, shortened to 12 digits). */
function reportedCommits(report: string): string[] {
  const out: string[] = [];
  if (DENIES_COMMIT.test(report)) return out;
  for (const m of report.matchAll(REPORTED_COMMIT)) {
    const hash = (m[1] as string).toLowerCase().slice(0, 12);
    if (/[0-9]/.test(hash) && /[a-f]/.test(hash) && !out.some((h) => h.startsWith(hash.slice(0, 7)))) out.push(hash);
    if (out.length === 5) break;
  }
  return out;
}

/**
 * A subagent's report that says it changed files or made a commit ("Brief added to ROADMAP.md",
 * "created work/research-beads.md and committed 5ea305f"): its writes are in its own transcript.
 * A report of research or a review says none of this.
 */
const WRITE_VERB = String.raw`(?:add(?:ed)?|creat(?:ed|e)|wr(?:ote|itten)|edit(?:ed)?|updat(?:ed|e)|modif(?:ied|y)|chang(?:ed|e)|delet(?:ed|e)|remov(?:ed|e)|renam(?:ed|e)|implement(?:ed)?|fix(?:ed)?|patch(?:ed)?|refactor(?:ed)?)`;
/** A file's path or name with an extension a project keeps (`ROADMAP.md`, `src/a.ts`, `work/x`). */
const FILE_NAMED = String.raw`(?:[\w.-]+\/[\w./-]*[\w-]|[\w-]+\.(?:md|mdx|txt|py|ts|tsx|js|jsx|mjs|cjs|json|toml|ya?ml|rs|go|java|kt|rb|php|cs|swift|c|h|cpp|hpp|css|scss|html|sh|sql|lock|cfg|ini|env))\b`;
/** A verb of changing and a file's name within one sentence, either way round, or a commit with its hash. */
const REPORTS_WRITES = new RegExp(String.raw`\b${WRITE_VERB}\b[^.\n]{0,100}?${FILE_NAMED}|${FILE_NAMED}[^.\n]{0,60}?\b${WRITE_VERB}\b|\bcommit(?:ted)?\b[^.\n]{0,40}?\b[0-9a-f]{7,40}\b`, 'i');

/** The address Claude Code's result of a subagent gives for continuing it. */
const CONTINUE_TO = /use SendMessage with to: '([\w.-]{1,80})' to continue this agent/;

/** Claude Code's answer to ExitPlanMode when the user approves: "User has approved your plan. …". */
const PLAN_APPROVED = /^\s*User has approved your plan\b/;
const PLAN_SAVED = /^Your plan has been saved to: (\S[^\n]*?)\s*$/m;

/**
 * The result of a plan's call: approved only when the result says so; refused when the call did
 * not run (the user said no, or interrupted); otherwise its first line is kept and the outcome
 * stays unknown.
 */
function planAnswered(plans: PlanRecord[], f: Extract<Fact, { t: 'tool_result' }>, line: number): void {
  const plan = plans.find((p) => p.id === f.id && p.id !== '' && p.result_line === undefined);
  if (plan === undefined) return;
  plan.result_line = line;
  const out = f.output ?? '';
  if (f.ok !== false && f.denied === undefined && PLAN_APPROVED.test(out)) {
    plan.approved = true;
    const saved = PLAN_SAVED.exec(out)?.[1];
    if (saved !== undefined) plan.saved_to = head(saved, 1000);
    return;
  }
  if (f.ok === false || f.denied !== undefined) plan.approved = false;
  const first = (f.denied ?? out).trim().split('\n', 1)[0] ?? '';
  if (first !== '') plan.answer = head(first, 200);
}

/** `context`: a user message the harness wrote (Observation.context), marked as such in the window. */
export function noteTurn(st: SessionState, turn: Turn, main: boolean, notice: boolean, line = turn.seq + 1, context = false): void {
  st.turns += 1;
  st.counts[turn.class] += 1;
  if (turn.seq > st.watermark) st.watermark = turn.seq;
  const w: WindowTurn = {
    seq: turn.seq,
    ts: turn.ts,
    class: turn.class,
    // A background job's notices (OTHER) are read again from the window by HANDOFF.md's recent timeline.
    text: head(turn.text, turn.class === 'TOOL' || turn.class === 'THOUGHT' ? LIMITS.WINDOW_TOOL_TEXT_CHARS : LIMITS.WINDOW_TEXT_CHARS),
  };
  if (turn.tool) w.tool = turn.tool;
  if (!main) w.by = 'subagent';
  else if (context && turn.class === 'USER') w.by = 'harness';
  pushBounded(st.window, w, LIMITS.WINDOW_TURNS);
  if (!main) return;
  if (turn.class === 'USER' && !notice) {
    st.lastUser = { text: textTail(turn.text.trim(), LIMITS.STATE_NOW_CHARS), seq: turn.seq };
  } else if (turn.class === 'AGENT' && !notice) {
    const said = turn.text.trim();
    st.lastAgent = said.length <= LIMITS.STATE_NOW_CHARS ? { text: said, seq: turn.seq } : { text: textTail(said, LIMITS.STATE_NOW_CHARS), seq: turn.seq, chars: said.length };
    noteAgentText(st.ledger, turn.text, line, st.commentaryLine === line);
  } else if (turn.class === 'THOUGHT') {
    const thought = turn.text.trim();
    if (thought !== '') st.lastThought = { text: head(thought, LIMITS.THOUGHT_CHARS), seq: turn.seq };
  }
}
