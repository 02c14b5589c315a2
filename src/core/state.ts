import type { CodexState } from './harness/codex.js';
import { initialCodexState } from './harness/codex.js';
import { tailFrom } from './cut.js';
import { initialLedger } from './ledger.js';
import type { Ledger } from './ledger.js';
import type { Harness, TodoItem, ToolRef, TurnClass } from './types.js';

/**
 * Everything a build needs to carry forward so that the next build reads only new bytes: the
 * reader's position and memory, and bounded accumulators for every section of the handoff. It is
 * plain JSON (persisted beside the manifest) and every collection in it has a fixed bound, so a
 * refresh costs the same on the ten-thousandth turn as on the tenth.
 */

/**
 * Bumped when the state's shape changes, or what a state file means: a state of another version
 * is rebuilt by a replay. Version 5 has the shape of 4; it marks a state that may be behind its
 * session's last commit (the manifest's `state_at`), so a version of handoffd that does not know
 * `state_at` replays the transcript rather than reading on from a state that is behind. Version 6
 * counts calls of MCP tools, redacted results and unnamed tools from the start, and keeps the
 * permissions: a state of 5 or before is read on, and its counts and permissions are said to start
 * where it was upgraded (`ledger.countsFrom`).
 */
export const STATE_VERSION = 6;

/** States of these versions are read and upgraded where they stand (upgradeState), not rebuilt. */
export const READABLE_STATE_VERSIONS: readonly number[] = [3, 4, 5, 6];

/**
 * The form written paths are kept in (src/core/paths.ts). A state without it was written before
 * they took one form, and is upgraded where it stands when loaded (src/core/upgrade-paths.ts).
 */
export const PATHS_FORM = 1;

export const LIMITS = {
  /** Turns kept for HANDOFF.llm.json (the HANDOFF.md table shows the last RECENT_TURNS). */
  WINDOW_TURNS: 200,
  RECENT_TURNS: 40,
  /** Of a USER, AGENT or OTHER turn in the window; of a TOOL or THOUGHT turn (tool output, reasoning), less. */
  WINDOW_TEXT_CHARS: 300,
  WINDOW_TOOL_TEXT_CHARS: 120,
  STATE_NOW_CHARS: 1200,
  /** Of the agent's latest reasoning (State right now quotes it when it came after the agent's last message). */
  THOUGHT_CHARS: 600,
  /**
   * A brief's constraints often come last ("Do not push."), and its tasks are numbered through it
   * (rave-era's 5,223 characters: a cut at 4,000 left out TASK 5 and most of TASK 6): briefs fit whole.
   */
  OBJECTIVE_CHARS: 8000,
  COMMANDS: 100,
  FAILURES: 50,
  FILES: 1000,
  TOOL_IDS: 128,
  SUBAGENTS: 100,
  /** The head of a subagent's task kept in its parent's state (100 of them at most). */
  SUBAGENT_PROMPT_CHARS: 2000,
  /** Tasks of a Claude Code task list: the last created are kept. */
  TASKS: 200,
  FAILURE_TEXT_CHARS: 300,
  COMMAND_CHARS: 400,
  /** Plans put to the user: the last few, each its head. */
  PLANS: 3,
  PLAN_CHARS: 4000,
} as const;

/** How much of a long request's end an objective keeps: a brief's constraints often come last. */
const OBJECTIVE_TAIL_CHARS = 1000;

/**
 * A request as the objective keeps it: whole up to OBJECTIVE_CHARS; a longer one as its head and
 * its last OBJECTIVE_TAIL_CHARS characters around a note of how many were left out ("Do NOT: start
 * dev server, expose secrets, …" ends many briefs). The text is redacted already.
 */
export function objectiveCut(text: string): { text: string; chars?: number; head?: number; tail?: number } {
  if (text.length <= LIMITS.OBJECTIVE_CHARS) return { text };
  // The tail begins where a paragraph or a line does, so that a list keeps the heading that says
  // what it is ("Do NOT:"); the head gives it the room. 40 for the note (a count of 7 digits).
  const tail = text.length - tailFrom(text, OBJECTIVE_TAIL_CHARS);
  const head = LIMITS.OBJECTIVE_CHARS - tail - 40;
  return { text: `${text.slice(0, head)}\n[… ${text.length - head - tail} characters left out …]\n${text.slice(-tail)}`, chars: text.length, head, tail };
}


/** An objective set with `--objective`, held to the length of one read from the transcript. */
export function objectiveSet(text: string): string {
  return text.length <= LIMITS.OBJECTIVE_CHARS ? text : `${text.slice(0, LIMITS.OBJECTIVE_CHARS - 1)}…`;
}

export interface PlanRecord {
  id: string;
  /** The plan's head (LIMITS.PLAN_CHARS); `chars`: its length when it was cut. */
  text: string;
  chars?: number;
  line: number;
  approved: boolean | null;
  result_line?: number;
  /** The first line of a result that did not approve it. */
  answer?: string;
  saved_to?: string;
  /** The files its "Files to Modify" section names (src/core/plan-files.ts), read from the whole plan. */
  files?: string[];
  /** Those it names only if they exist, or as optional (`… (if exists)`): counted apart, never work left. */
  maybeFiles?: string[];
  /** Of a plan cut to its head: the Markdown headings of the part left out (the first 20), whose steps are only in the transcript. */
  restHeadings?: string[];
}

export type CommandResult = 'passed' | 'failed' | 'interrupted' | 'unknown';

export interface CommandRecord {
  id: string;
  tool: string;
  command: string;
  seq: number;
  result: CommandResult;
  exitCode?: number;
  resultSeq?: number;
  /**
   * Its only result is the harness's record of its end (Codex's `exec_command_end`): the output
   * was never handed to the agent, which stopped before reading it (a session closed mid-batch).
   */
  unread?: true;
}

export interface FailureRecord {
  kind: 'tool_error' | 'interrupted' | 'api_error';
  seq: number;
  /** The tool call id, when the failure is a tool result. */
  id?: string;
  text: string;
  tool?: string;
  key?: string;
  exitCode?: number;
  resolvedSeq?: number;
}

export interface FileRecord {
  firstSeq: number;
  lastSeq: number;
  tool: string;
  count: number;
}

export interface CallRecord {
  name: string;
  seq: number;
  key: string;
  command?: string;
}

export interface WindowTurn {
  seq: number;
  ts: string | null;
  class: TurnClass;
  text: string;
  tool?: ToolRef;
  /**
   * `subagent`: a subagent's turn inside the session's own transcript (a side-chain line).
   * `harness`: a USER turn the harness added (its context, a command's wrapper), not the user's words.
   */
  by?: 'subagent' | 'harness';
}

export interface TaskRecord {
  /** Claude Code's id for it, from the create call's result; until that is read, the next of `taskSeq`. */
  id: string;
  /** The create call whose result has not given the id yet (kept if it never does). */
  call?: string;
  text: string;
  status: TodoItem['status'];
  description?: string;
  /** The line that created the task or last set its status. */
  line?: number;
  /** The line that created it. */
  created?: number;
  /** The update call that last set its status, and what it was before: undone when that call's result is an error. */
  undo?: { call: string; status: TodoItem['status']; line?: number };
  /** The delete call whose result has not come back: the task is not shown, and returns if that result is an error. */
  deleting?: string;
}

export interface SessionState {
  v: number;
  /** PATHS_FORM when the ledger's and the touched files' paths are in filePath's form. */
  paths?: number;
  harness: Harness | null;
  codex: CodexState;
  /** Index of the next line to read. */
  lines: number;
  watermark: number;
  turns: number;
  counts: Record<TurnClass, number>;
  skipped: number;
  bad: number;
  oversized: number;
  /** The latest line skipped as longer than capture.max_line_bytes: its 1-based line and byte offset. */
  oversizedAt?: { line: number; offset: number; bytes: number };
  unknownTypes: Record<string, number>;
  redactions: number;
  /**
   * Secrets the user typed that a reader masked (Observation.typed), as `<length>:<5 hex digits of
   * a sha256>`: a later text that repeats one (`psql … <<< <the password>`) has it masked. Five
   * digits, not a digest that names it: one in a million words of its length shares it, so the
   * state tells an attacker with a dictionary nothing, and a word masked by chance is that rare.
   * The latest TYPED_SECRETS; absent until one is typed.
   */
  typed?: string[];
  /**
   * Secrets a command printed alone (`printenv DB_PASSWORD`, src/core/redaction/printed.ts), kept as
   * `typed` is; and the latest calls of such commands (a digest of each id), whose results are read so.
   */
  printed?: string[];
  /**
   * Secrets such a command printed that are plain words (`correct-horse-battery-staple`, a
   * passphrase): kept as `printed` is, and looked for in every word of their length, not only in
   * those that look like secrets.
   */
  plain?: string[];
  secretCalls?: string[];
  /** Secret words only a label gave away (RedactResult.bare), kept as `typed` is: masked where they come again bare. */
  labelled?: string[];
  meta: {
    uuid?: string;
    cwd?: string;
    firstCwd?: string;
    /** The line from which the transcript records `cwd` (absent in states begun before it was kept). */
    cwdSince?: number;
    branch?: string;
    /** The commit the harness recorded with the branch (Codex `session_meta.git.commit_hash`). */
    commit?: string;
    /** The repository's URL the harness recorded (Codex `session_meta.git.repository_url`). */
    remote?: string;
    version?: string;
    forkedFrom?: string;
    parentUuid?: string;
    model?: string;
    /** Each model the session switched to, and the line it first answered from (the last 20; absent in states begun before). */
    models?: { model: string; line: number }[];
    /**
     * Each branch the transcript recorded, and the line it was first recorded from (the last 20;
     * absent in states begun before, which never start one: their first branch's line is not known).
     */
    branches?: { branch: string; line: number }[];
    title?: string;
    titleRank?: number;
    /** Summary titles waiting for the message they name to appear in this file (bounded). */
    summaries?: Record<string, string>;
    firstTs?: string;
    lastTs?: string;
  };
  /** `line` is the 1-based transcript line of the request. */
  /**
   * `chars`: the request's length when `text` is only part of it (OBJECTIVE_CHARS): its first
   * `head` and last `tail` characters around a note (objectiveCut), or, in a state written before
   * `head` and `tail` were kept, its head alone.
   */
  objective: { text: string; seq: number; line?: number; chars?: number; head?: number; tail?: number } | null;
  objectiveOverride: string | null;
  lastUser: { text: string; seq: number } | null;
  /** `chars`: the message's length when `text` is only its tail (STATE_NOW_CHARS). */
  lastAgent: { text: string; seq: number; chars?: number } | null;
  /** The agent's latest reasoning it wrote as words (Codex's summaries, Claude Code's thinking), its head (states written before it was kept hold none). */
  lastThought?: { text: string; seq: number };
  /** The seq of the latest reasoning record whose words the transcript does not hold (Codex's encrypted reasoning). */
  hiddenThought?: number;
  /** Codex's latest agent message as its event (a fact, no turn): the agent's latest message while no turn comes after it. */
  mirrorMessage?: { text: string; seq: number; chars?: number; commentary?: true };
  usage: { used: number; limit: number | null; key: string | null; seq: number } | null;
  contextLimit: number | null;
  /** A compaction happened and no usage record came after it. */
  compacted: boolean;
  compactions: number;
  lastCompactionSeq: number | null;
  /** The transcript line of the last compaction (states written before hold none). */
  lastCompactionLine?: number;
  /**
   * What the summary of the last compaction said is left to do (pending tasks, current work, next
   * step; each its head), and its line. Dropped by a later compaction that wrote none.
   */
  compactionSummary?: { line: number; pending?: string; current?: string; next?: string };
  /** The line of the latest agent message the harness marked a progress note (Codex `phase: "commentary"`). */
  commentaryLine?: number;
  /** What the harness let the agent do without asking, from `since`; `was`: what it was before, when it changed. */
  permissions?: { text: string; since: number; was?: { text: string; since: number } };
  /** Written only through setBounded (bounded.ts), as are `calls` and the ledger's `calls`. */
  toolNames: Record<string, string>;
  calls: Record<string, CallRecord>;
  commands: CommandRecord[];
  commandsTotal: number;
  failures: FailureRecord[];
  files: Record<string, FileRecord>;
  filesTotal: number;
  todos: { items: TodoItem[]; seq: number; source: 'todos' | 'tasks' } | null;
  tasks: TaskRecord[];
  /**
   * The highest numeric task id given or learned in this session. A task whose id is not known
   * yet gets the next number, so no number is given twice, whatever was deleted or cut.
   */
  taskSeq: number;
  /**
   * Subagents the session launched; `result_seq` and `ok`: their call's result, once it came back.
   * `prompt` (its head, SUBAGENT_PROMPT_CHARS; `prompt_chars` its length when cut) and `line`: the
   * task the call gave, at that line; `agent`: the agent id its result named, whose transcript
   * holds the subagent's own turns (its handoff takes this task as its objective when it holds none).
   */
  /** `wrote`: its report says it changed files or committed (reduce.ts REPORTS_WRITES); `saidWrote`: the line of the report that says so, at most 200 characters (quoted by the handoff, kept out of the payloads). */
  /** `readOnly`: of a kind given no tool that writes (Claude Code's Explore and Plan agents): never an unseen writer. */
  subagents: { id: string; description: string; seq: number; background?: true; result_seq?: number; ok?: boolean; prompt?: string; prompt_chars?: number; line?: number; agent?: string; wrote?: true; saidWrote?: string; readOnly?: true; name?: string; continueTo?: string; commits?: string[] }[];
  /**
   * Messages the agent sent to other agents by name (SendMessage), the last LIMITS.SUBAGENTS:
   * where, to whom, and the first line of what the call answered (`result`, once it did).
   */
  agentMessages?: { call: string; to: string; line: number; result?: string; ok?: boolean }[];
  /**
   * Set in states begun since subagent results are read: in an older state, a subagent without
   * `result_seq` may have returned before it was loaded, and is not said to be still running.
   */
  subagentResults?: true;
  /**
   * Plans the agent put to the user (Claude Code's ExitPlanMode), latest last, at most
   * LIMITS.PLANS; absent in states begun before plans were read. `approved`: what the call's
   * result said (null until it came back); `saved_to`: where Claude Code says it saved the plan.
   */
  plans?: PlanRecord[];
  window: WindowTurn[];
  ledger: Ledger;
}

export function initialState(): SessionState {
  return {
    v: STATE_VERSION,
    paths: PATHS_FORM,
    harness: null,
    codex: initialCodexState(),
    lines: 0,
    watermark: -1,
    turns: 0,
    counts: { USER: 0, AGENT: 0, THOUGHT: 0, TOOL: 0, OTHER: 0 },
    skipped: 0,
    bad: 0,
    oversized: 0,
    unknownTypes: {},
    redactions: 0,
    meta: {},
    objective: null,
    objectiveOverride: null,
    lastUser: null,
    lastAgent: null,
    usage: null,
    contextLimit: null,
    compacted: false,
    compactions: 0,
    lastCompactionSeq: null,
    toolNames: {},
    calls: {},
    commands: [],
    commandsTotal: 0,
    failures: [],
    files: {},
    filesTotal: 0,
    todos: null,
    tasks: [],
    taskSeq: 0,
    subagents: [],
    subagentResults: true,
    plans: [],
    window: [],
    ledger: initialLedger(),
  };
}

/**
 * A state as a build wrote it: one written before a field existed lacks it; from version 4, a
 * plan read from the task tools is written as TASKS_PLAN (the items are the tasks, see stateJson).
 */
export type StoredState = Omit<SessionState, 'taskSeq' | 'todos'> & { taskSeq?: number; todos: { items: TodoItem[] | typeof TASKS_PLAN; seq: number; source: 'todos' | 'tasks' } | null };

/** Stands in a stored state for a plan that is the task list, item for item (stateJson). */
export const TASKS_PLAN = 'tasks';

/** The plan the task list is: every task but those a delete call is taking away. */
export function taskItems(tasks: readonly TaskRecord[]): TodoItem[] {
  const items: TodoItem[] = [];
  for (const t of tasks) if (t.deleting === undefined) items.push(taskItem(t));
  return items;
}

/** A task as an item of the plan HANDOFF.md and the payloads show. */
export function taskItem(t: TaskRecord): TodoItem {
  const item: TodoItem = { text: t.text, status: t.status };
  if (t.description !== undefined) item.detail = t.description;
  if (t.line !== undefined) item.line = t.line;
  if (t.created !== undefined && t.description !== undefined) item.created = t.created;
  return item;
}

function sameItem(a: TodoItem, b: TodoItem): boolean {
  return a.text === b.text && a.status === b.status && a.detail === b.detail && a.line === b.line && a.created === b.created && Object.keys(a).length === Object.keys(b).length;
}

/**
 * The state as it is written (JSON). A plan read from the task tools holds each task again, as
 * an item (the fold keeps them in step): it is written as TASKS_PLAN and made again from the tasks
 * when read, which is a tenth of a long session's state that every refresh need not encode.
 */
export function stateJson(st: SessionState): string {
  const t = st.todos;
  if (t === null || t.source !== 'tasks') return JSON.stringify(st);
  const shown = taskItems(st.tasks);
  if (t.items.length !== shown.length || !t.items.every((item, i) => sameItem(item, shown[i] as TodoItem))) return JSON.stringify(st);
  return JSON.stringify({ ...st, todos: { ...t, items: TASKS_PLAN } });
}

/**
 * Gives a stored state of a readable version (READABLE_STATE_VERSIONS) what this version holds:
 * the fields added since it was written, each from what the state already holds, and a plan
 * written as TASKS_PLAN made again from the tasks. It is read on rather than rebuilt
 * (docs/FORMAT.md, the carried state).
 */
export function upgradeState(st: StoredState): SessionState {
  if (st.taskSeq === undefined) st.taskSeq = highestTaskNumber(st.tasks);
  // What version 6 began to count (MCP tools, redacted results, unnamed tools) starts here for an older state.
  if (st.v < 6) st.ledger.countsFrom ??= st.lines + 1;
  if (st.todos !== null && st.todos.items === TASKS_PLAN) st.todos.items = taskItems(st.tasks);
  st.v = STATE_VERSION;
  return st as SessionState;
}

/** The highest id of the tasks that is a number, 0 when none is. */
export function highestTaskNumber(tasks: readonly TaskRecord[]): number {
  let n = 0;
  for (const t of tasks) {
    const v = /^\d+$/.test(t.id) ? Number(t.id) : 0;
    if (Number.isSafeInteger(v) && v > n) n = v;
  }
  return n;
}
