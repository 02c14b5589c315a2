import type { GitEvidence } from './evidence.js';
import type { Pressure } from './pressure.js';
import { changesBetween, formatterAnswers, IMAGE_PLACEHOLDERS, IMPLIES, isDocumentation, isScratch, listingAfterLastCommit, NOTHING_RAN, openFailures, publisherRedacted } from './ledger.js';
import { notWritten } from './plan-files.js';
import { unmark } from './what-changed.js';
import { splitName } from './redaction/names.js';
import { fileKey, fileName, heldKey, relativeTo } from './paths.js';
import { checkTargets, checksNamedIn, commandKey } from './shell.js';
import type { CheckKind, CheckTarget } from './shell.js';
import type { CheckRun, Contradiction, FailureEntry, Ledger, RequestRecord } from './ledger.js';
import type { DocRead } from './documents.js';
import { endedOnError, sameProgram, type Job } from './jobs.js';
import { outcomeWord, type Outcome } from './outcome.js';
import type { CommandRecord, FailureRecord, PlanRecord, SessionState } from './state.js';
import type { TodoItem } from './types.js';

/**
 * What a handoff says, derived from the session state: shared by HANDOFF.md and the JSON
 * payloads so the two can never disagree. Every statement carries its label (SPEC §6):
 * verified (a recorded result or a check at build time), reported (the agent said so),
 * inferred, or unknown.
 */

export type Label = 'verified' | 'reported' | 'inferred' | 'unknown';

export type NextRule =
  | 'pending_question'
  | 'unfinished_request'
  | 'open_failure'
  | 'plan_step'
  | 'unpushed_commits'
  | 'stated_next_step'
  | 'open_pull_request'
  | 'uncommitted_changes'
  | 'nothing_pending'
  | 'subagent_report'
  | 'unknown';

export interface NextAction {
  text: string;
  rule: NextRule;
  label: Label;
  /** The 1-based transcript line that proves it. */
  line: number | null;
  /** It quotes the last compaction summary's next step (HANDOFF.md does not write that step twice). */
  quotesCompaction?: true;
}

export type EndKind = 'done' | 'mid-work' | 'waiting-on-user' | 'interrupted' | 'failed' | 'unknown';

export interface End {
  kind: EndKind;
  line: number | null;
  why: string;
  /** The step the agent's last message announced ("Let me also run ruff…:"), when the transcript ends on it. */
  announced?: string;
}

export interface CurrentState {
  completed: string[];
  in_progress: string[];
  not_started: string[];
  source: 'todos' | 'tasks' | null;
  seq: number | null;
  /** Every item with its status, what it is for and the line that set its status. */
  items: TodoItem[];
}

export interface Finding {
  text: string;
  label: Label;
  seq: number | null;
}

export interface FileChange {
  path: string;
  line: number;
  how: string;
  subagent?: boolean;
  /** What the writes define (functions, classes, constants, headings), newest first. */
  what?: string[];
  /** A file written more than once: the line of its first write, and how many writes. */
  first?: number;
  writes?: number;
  /** The line of the session's git listing or diff, before its first write, that showed this file already changed. */
  dirtyBefore?: number;
  /** Deleted, and created by the session before: the file is as before the session (there was none). */
  made?: true;
  /** "Created" over a file that was there: the line of the session's `git status` that shows it modified. */
  existed?: number;
  /** Deleted, then shown there again by a later call (a read, an `ls`): that call's line. */
  again?: number;
  /** Deleted, and a later command that succeeded names its path (it may be there again): that command's line. */
  named?: number;
  /** Its latest write was the session's `git merge` or `git pull`, which brought it in (work made elsewhere: a branch, a teammate's worktree, upstream). */
  merged?: true;
  /** Its latest write is one a command's output says it made (`Saved … -> data/scores.json`), not one its words show. */
  said?: true;
}

export interface CheckRow {
  line: number;
  command: string;
  outcome: Outcome;
  summary: string | null;
  exit_code: number | null;
  /** Run by a hook, not by the agent. */
  by?: 'hook';
}

/** The latest run of one check target, with how often it ran and failed. */
export interface CheckTargetRow extends CheckRow {
  target: string;
  runs: number;
  failed: number;
  /** Runs with no verdict (outcome unknown), when there were some: not passes, not failures. */
  undecided?: number;
  /** The latest run failed, and a later run that covers it passed (`cargo test` after `cargo check`). */
  fixed_line: number | null;
}

export interface Analysis {
  /** `chars`: the request's length when `text` is its head only. */
  /** `chars`, `head`, `tail`: as the state's objective (SessionState.objective). */
  objective: { text: string; seq: number | null; line: number | null; override: boolean; chars?: number; head?: number; tail?: number } | null;
  requests: RequestRecord[];
  /** Requests typed after the user went back to an earlier message (`to`): the lines between are a branch left. */
  rewinds: { line: number; to: number }[];
  /** The line of the transcript's first message when it answers one the transcript does not hold. */
  startsAfter?: number;
  requestsTotal: number;
  /** `chars`: the message's length when `text` is only its tail; `commentary`: the harness marked the message a progress note (Codex's phase), not a final answer. */
  stateNow: { text: string; seq: number; who: 'agent' | 'user'; chars?: number; commentary?: true } | null;
  /**
   * Tool calls the session made after the agent's last message (the message is then not the whole
   * story), and the files they changed (the latest, and its line): what it says it will do may be done since.
   */
  afterStateNow: { calls: number; line: number; changed?: { files: number; path: string; line: number } } | null;
  /** The agent's latest reasoning in words, when it came after its last message: what it was working out when the transcript ends. */
  thoughtSince: { line: number; text: string } | null;
  /**
   * What the summary written at the last compaction said was left (its pending tasks, current work,
   * next step: heads, as written), its line, and the first user request typed after it, if any.
   */
  compaction: { line: number; pending?: string; current?: string; next?: string; requestAfter: number | null; nextQuoted: boolean } | null;
  /**
   * The shell calls the transcript records no result for (of those the state keeps), in line order:
   * whether they ran, and what they did, is not known. `unreadable`: its command is redacted (command '').
   */
  /** `tool`: a call of a tool other than a shell (a Glob, a Read), named by the tool (and the file it reads). */
  withoutResult: { line: number; command: string; unreadable?: true; tool?: true }[];
  /**
   * The output of the shell command the transcript ends on (its result is the last thing, or only
   * the agent's reasoning came after), head and tail: what the agent last saw, before it replied.
   */
  lastOutput: { line: number; callLine: number; command: string; text: string; chars: number; key?: string[] } | null;
  /** The files the call the transcript ends on would write (a Write, an Edit, a patch with no result): made or not, unknown. */
  pendingWrites: { path: string; line: number }[];
  /** Shell calls whose result only the harness recorded (`exec_command_end`), never handed to the agent: the lines of call and record. */
  unreadResults: { line: number; resultLine: number }[];
  /** The latest turn left without an end, another begun after it (Ledger.leftTurn), or null. */
  leftTurn: { from: number; at: number } | null;
  end: End;
  current: CurrentState;
  nextAction: NextAction;
  contradictions: Contradiction[];
  openLoops: Finding[];
  filesChanged: FileChange[];
  filesChangedTotal: number;
  /** `earlier`: the line of an earlier write of the file that succeeded (the failed one came after it, and was not made again). */
  /** `maybe`: the failed command, a shell command of several files, may have written this one (said apart, not verified). */
  filesNotChanged: { path: string; line: number; reason: string; earlier?: number; maybe?: true }[];
  /** Writes that failed and whose file was written after them (a patch that failed, then applied): each with its later write's line. */
  filesRedone: { path: string; line: number; at: number }[];
  /** Files whose failed write the ledger's bound let go: counts of failed writes are then a floor. */
  writeFailuresDropped: number;
  unreadableWrites: number;
  unreadableWritesAt: { first: number; last: number } | null;
  /** Tool results the transcript's publisher redacted whole, when any: "N tool result(s), the first at line X". A failure among them does not show. */
  hiddenResults: string;
  /** The sentence on shell calls whose commands are unreadable ('' when none). */
  hiddenCommands: string;
  /** The sentence on plan updates whose steps are unreadable ('' when none): the session kept a plan no one can read. */
  hiddenPlans: string;
  /** Calls of MCP servers' tools, by tool, the latest first: what they did outside the repository is in their results only. */
  outsideCalls: { server: string; tool: string; count: number; line: number; failed: number }[];
  /** The files the session read, each at its latest read, oldest first (the latest 8). */
  filesRead: { path: string; line: number }[];
  /** Calls that may have written files no one can name: shell calls whose command, and calls of a tool whose very name, the transcript's publisher redacted (how many, and the first's line). */
  /**
   * Calls that may have written files the transcript does not show: shell calls whose commands
   * are unreadable, calls of tools whose names are, and subagents whose own calls are in their
   * own transcripts (Claude Code 2's `Agent`/`Task`: the parent holds the call and the report;
   * `reports`: the lines of the reports that came back).
   */
  /** `subagents.commits`: the commits their reports say they made, with each report's line. */
  unseenWriters: { shell?: { count: number; first: number }; unnamed?: { count: number; first: number }; subagents?: SubagentsApart };
  /** The first line those three counts cover, when the state was begun by a version that did not keep them (ledger.countsFrom). */
  countsFrom: number | null;
  checks: CheckRow[];
  checksTotal: number;
  checkTargets: CheckTargetRow[];
  otherCommands: number;
  /** Of the other commands, those a hook ran. */
  hookCommands: number;
  /** Of the other commands, the file edits run as shell commands (Codex's `apply_patch`). */
  patchCommands: number;
  /** Of those, the edits that did not apply. */
  patchCommandsFailed: number;
  /** Whether the session ran a command that names git (its repository was looked at, or changed). */
  gitRan: boolean;
  backgroundStarts: number;
  /**
   * `changedSince`: of a failed check, the files (not documents) written after it, the latest
   * with its line, when the same command did not run again after it (edgerunner at 248: `npm run
   * build` failed, then 251–252 wrote the fix, not run yet).
   */
  openFailures: { line: number; text: string; changedSince?: { files: number; path: string; line: number; command: string; deleted?: number; later?: { command: string; line: number; outcome: string }; untouched?: string[] } }[];
  /** Failures a later run fixed: what broke, where it was fixed, and what was done in between (the last 10). */
  /** `rerun`: how the failure was got past: a later run of the same check passed, or the same command (a script, not a check) ran again without an error, which says it ran, not that it found what it looked for, or (a format check) the formatter rewrote the files, the check not run again, or (a command that could not find a file it showed) a later call read that file. */
  fixedFailures: { line: number; text: string; fixed_line: number; rerun: 'passed' | 'ran_clean' | 'formatted' | 'read'; how: string[]; fixed_by?: string }[];
  /** Failed commands the agent went on from without a passing re-run: dealt with or not, the transcript does not say. */
  passedOver: { line: number; text: string }[];
  /** The latest run that still printed texts an edit had taken out: what ran is older than the edit (ledger.ts noteStaleOutput). */
  staleOutput: { line: number; command: string; path: string; edit_line: number; count: number; first: string } | null;
  /** The line of an install of the project as a copy that files written since make stale (installedBefore: under Checks Not Run): what the installed command runs is older than those writes. */
  installedStale: number | null;
  /**
   * The user's latest message, when it says something the session made does not work ("it is still
   * not working either way. No data is showing up": agentcmd at 625, beside "No open failure"):
   * the earlier messages that said so too, and the writes since it (none when it is the last word).
   */
  userProblem: { line: number; text: string; earlier: number[] } | null;
  /** Files a user request names, as the agent read them. */
  documents: DocRead[];
  /** Background jobs, running ones first. */
  /** `writtenSince`: of a running job, the files the session wrote after it started (writtenSinceStart). */
  jobs: (Job & { writtenSince?: { files: number; path: string; line: number } })[];
  /** The agent's own messages along the way (the last 20, shortened). */
  agentMessages: { line: number; text: string }[];
  incidents: (FailureRecord & { label: Label })[];
  /**
   * The latest plan the agent put to the user (ExitPlanMode), and the one approved before it when
   * the latest was not approved: *reported*, as the agent wrote it and as the call's result answered.
   */
  /**
   * `unwritten`: of the files the latest approved plan names (its "Files to Modify"), those the
   * session did not write after it, with that plan's line and how many it named. `earlierUnwritten`:
   * the same of each plan approved before that one (latest last; a plan put again word for word
   * later is that later plan's), with its title: a second task's plan does not make the first's
   * files done (deep-manifest's tar plan named README.md and three more, none written).
   */
  plan: { latest: PlanRecord; approvedBefore: PlanRecord | null; notApproved: PlanRecord[]; unwritten: PlanUnwritten | null; earlierUnwritten: PlanUnwritten[] } | null;
  /** `branch`: as `git commit` printed it; '' for a commit learned from a push or a log. */
  /** `rebased_from`: the hash `git commit` printed, when a rebase gave the commit the hash it was pushed with (at `push_line`). */
  /** `hash_line`: the `git log` that named a commit whose own output did not (a merge's). */
  /** `took`: the files the commit took, when its own command staged them by name (not in the payloads). */
  commits: { hash: string; subject: string; pushed: boolean | null; line: number; branch: string; rebased_from?: string; push_line?: number; files?: number; hash_line?: number; hash_by_push?: true; took?: string[] }[];
  failedCommit: { line: number; text: string } | null;
  /** `git commit`s whose output showed no hash and no later log named (Ledger.unnamedCommits). */
  unnamedCommits: { subject: string; line: number; made?: true; merge?: true; push_line?: number; pushed_head?: true }[];
  /** HEAD in the session's latest `git log` is a commit its own commands did not make (foreignHead). */
  foreignHead: ForeignHead | null;
  verification: CommandRecord[];
  checksNotRun: Finding[];
  unknowns: Finding[];
}

const clip = (s: string, n: number): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
};
const quote = (s: string, n = 200): string => `«${clip(s, n)}»`;
/**
 * A long request's head and tail: what it asks for often comes last ("… I'd say it's called too
 * early"), and often first, before what it pastes (coderabbit at 91: the ask and "If there isn't a
 * PR found we should say so" in its first 330 characters, then `gh`'s man page). `head` gives the
 * head that many characters, the tail the rest of `n`.
 */
const quoteEnds = (s: string, n: number, head = Math.floor((n - 3) / 2)): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= n) return `«${t}»`;
  return `«${t.slice(0, head).trimEnd()} … ${t.slice(-(n - 3 - head)).trimStart()}»`;
};
/** The Next Action's quote of the request it continues: most of it the head. */
const REQUEST_QUOTE = { chars: 560, head: 420 } as const;

function currentState(st: SessionState): CurrentState {
  const items: TodoItem[] = st.todos?.items ?? [];
  return {
    completed: items.filter((i) => i.status === 'completed').map((i) => i.text),
    in_progress: items.filter((i) => i.status === 'in_progress').map((i) => i.text),
    not_started: items.filter((i) => i.status === 'pending').map((i) => i.text),
    source: st.todos?.source ?? null,
    seq: st.todos?.seq ?? null,
    items,
  };
}

const normPath = (p: string): string => p.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');

/**
 * The files the session changed that its git listing or diff before its first write already
 * showed changed: a commit of them takes work that was not the session's. A listed path
 * (relative to the cwd or the repository) names a changed file when the file's path ends with it.
 */
function markDirtyBefore(l: Ledger, changed: FileChange[]): void {
  const d = l.dirtyBefore;
  if (d === undefined || d.paths.length === 0) return;
  const listed = new Set(d.paths.map(normPath));
  for (const f of changed) if (pathEndings(normPath(f.path)).some((e) => listed.has(e))) f.dirtyBefore = d.line;
}

/** A path and each of its endings at a separator (`a/b/c`, `b/c`, `c`): what a relative listing may name it by. */
function pathEndings(p: string): string[] {
  const out = [p];
  for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) out.push(p.slice(i + 1));
  return out;
}

/** The advice's word on files the session changed that held changes before it. */
/**
 * Beside a push: files an approved plan named and the session never wrote after it (the Plan
 * section lists them), so that the push is not taken for the end of the work (deep-manifest pushed
 * nothing yet, and its plans' README and tests were never written).
 */
function planFilesLeft(p: Analysis['plan']): string {
  const files = [...new Set([...(p?.earlierUnwritten ?? []).flatMap((u) => u.files), ...(p?.unwritten?.files ?? [])])];
  if (files.length === 0) return '';
  const shown = files.slice(0, 5).map((f) => `\`${f}\``).join(', ');
  return `; before that, ask whether the ${files.length} file(s) an approved plan named and the session never wrote after it are still wanted: ${shown}${files.length > 5 ? ', …' : ''} (see Plan)`;
}

/** A check run as the handoff names it: its command, line, verdict, and what ran it. */
function saidRun(c: CheckRun): string {
  // As written: a target's key (`pnpm lint @repo/spectora-labs`) reads as a command no one ran.
  return `\`${clip(c.command.replace(/\s+/g, ' ').trim(), 120)}\` (line ${c.line}, ${outcomeWord(c.outcome, 'no verdict')}${c.command.includes('::') ? ', one test of it' : ''}${c.by === 'hook' ? ', run by a hook' : ''})`;
}

/** The latest run of each check among `runs`, and the last `n` of them named (saidRun), with how many more ran. */
function latestRuns(runs: readonly CheckRun[], n: number): { runs: CheckRun[]; said: string } {
  const latest = new Map<string, CheckRun>();
  for (const c of runs) latest.set(c.keys.join(' && '), c);
  const all = [...latest.values()];
  return { runs: all, said: `${all.slice(-n).map(saidRun).join(', ')}${all.length > n ? `, and ${all.length - n} more` : ''}` };
}

/** A key that names a file (`pytest test_link.py`) ran that file alone; one that names none may be the whole suite. */
const ofOneFile = (k: string): boolean => k.split(' ').slice(1).some((w) => /\.[A-Za-z0-9]{1,8}$/.test(w) && !w.startsWith('-'));
/** A test run that selects some tests by name, marker or tag (`pytest -m unit`, `-k`, `jest -t`, `--grep`, `--lf`): not the whole suite. */
const SELECTED_TESTS = /\s(?:-[kmt]|--grep|--testNamePattern|--lf|--last-failed|--only-failures|--filter)(?:[\s=]|$)/;
/** A run of checks that each named files or tests: none of them ran a whole suite. */
const ofFilesOnly = (c: CheckRun): boolean => c.keys.length > 0 && c.keys.every(ofOneFile);

/**
 * After the last change only single test files ran (claude-code-log 37f83ec9, agentcmd's
 * full-session-four: `pnpm test NavUser.test.tsx`): "Checks Not Run — None" read as the suite
 * having run. Said when a test was among them, with whether the whole suite ran at all.
 */
function suiteNotRun(l: Ledger, changed: number): Finding | null {
  const after = l.checks.filter((c) => c.line > changed);
  const isTest = (c: CheckRun): boolean => checkTargets(c.command, l.installed ?? []).some((t) => t.kind === 'test');
  if (after.length === 0 || !after.every(ofFilesOnly) || !after.some(isTest)) return null;
  const { said } = latestRuns(after, 3);
  const wholeAt = l.checks.filter((c) => !ofFilesOnly(c) && !SELECTED_TESTS.test(c.command) && isTest(c)).at(-1);
  const before = wholeAt === undefined ? 'no run of the whole test suite is recorded in this session' : `the whole suite last ran at line ${wholeAt.line}`;
  return { text: `The whole test suite: after the last file change (line ${changed}${docsAfter(l, changed)}) only tests of single files ran (${said}); ${before}`, label: 'verified', seq: (after[after.length - 1] as CheckRun).line - 1 };
}

/**
 * The calls after the agent's last message, with the files they changed (rave-era at 208: "I'm
 * going to patch … remove fake client-side card polling, …", then seven patches that did most of
 * it; readers took the note for the state).
 */
function afterTheState(l: Ledger, since: { calls: number; line: number }, at: number): NonNullable<Analysis['afterStateNow']> {
  // A file a command's output says it wrote counts too (posthog at 687: `analyze.py` saved
  // data/scores.json), or "changed 2 files" would leave out one Files changed shows.
  const changed = changesBetween(l, at, Number.POSITIVE_INFINITY, () => false, true);
  return changed === null ? { ...since } : { ...since, changed: { files: changed.files, path: changed.path, line: changed.line } };
}

/** A request that asks for checks to be run, tests or a build among them (`run lint, test and check-types`): a kind of ASKED_KINDS but lint. */
const asksTests = (text: string): boolean => ASKED_KINDS.some(([kind, words]) => kind !== 'lint' && words.test(text));
const ASKS_RUN = /\b(?:run|lint|check|verify)\b/i;

/**
 * After the last file change only linters, type checks or formatters ran (agentcmd: `pnpm lint`
 * twice, while the user had asked for "lint, test and check-types"): no test or build proves the
 * change. Said when the session ran a test or a build before, or the user asked for one with no
 * test or build run since; a session that never tests is not told it did not.
 */
function onlyStaticAfter(l: Ledger, changed: number, requests: readonly RequestRecord[]): Finding | null {
  const after = l.checks.filter((c) => c.line > changed);
  const testOrBuild = (c: CheckRun): boolean => checkTargets(c.command, l.installed ?? []).some((t) => t.kind === 'test' || t.kind === 'build');
  if (after.length === 0 || after.some(testOrBuild)) return null;
  const req = [...requests].reverse().find((q) => q.kind === 'request' && asksTests(q.text) && ASKS_RUN.test(q.text));
  const asked = req !== undefined && !l.checks.some((c) => c.line > req.line && testOrBuild(c)) ? req : undefined;
  if (asked === undefined && !l.checks.some(testOrBuild)) return null;
  const { said } = latestRuns(after, 3);
  let why = '';
  if (asked !== undefined) {
    // Of the kinds asked for, those no run after the change was (agentcmd at 507: "lint, test and
    // check-types", and only lint ran: a reader took "static checks" for the type check too).
    const ran = new Set(after.flatMap((c) => checkTargets(c.command, l.installed ?? []).map((t) => t.kind)));
    const missing = ASKED_KINDS.filter(([kind, words]) => words.test(asked.text) && !ran.has(kind)).map(([, , name]) => name);
    why = `; the user asked for them at line ${asked.line}: ${quote(asked.text, 120)}${missing.length > 0 ? ` — of those, no ${missing.join(', no ')} ran` : ''}`;
  }
  return { text: `No test or build ran after the last file change (line ${changed}${docsAfter(l, changed)}): only static checks did (${said})${why}`, label: 'verified', seq: (after[after.length - 1] as CheckRun).line - 1 };
}

/** The kinds of check a request may name, by its words, and what each is called. */
const ASKED_KINDS: readonly [CheckKind, RegExp, string][] = [
  ['test', /\b(?:tests?|testing)\b/i, 'test'],
  ['build', /\bbuild\b/i, 'build'],
  ['typecheck', /\b(?:check-?types|type-?check(?:s|ing)?|tsc|mypy|pyright)\b/i, 'type check'],
  ['lint', /\b(?:lint|linter|linting|eslint|ruff|clippy)\b/i, 'lint'],
];

/**
 * What checked the latest write, so that "verify the change" says what is left to verify: none ran
 * after it, or only checks of single files did (claude-code-log 37f83ec9 ran one test file and one
 * test after its last template edit, never the suite, and "Verify the change" read as done).
 */
function checksAfterWrite(l: Ledger, lastWrite: number, docsLater = false): { note: string; passed: string | null } {
  if (lastWrite <= 0 || l.checks.length === 0) return { note: '', passed: null };
  // A hook's run (Claude Code's Stop hook running the suite) checks the tree as the agent's would.
  const after = l.checks.filter((c) => c.line > lastWrite);
  const which = docsLater ? `the last change to code, line ${lastWrite}; later writes only to docs or ignore lists` : `the last write, line ${lastWrite}`;
  if (after.length === 0) return { note: ` (no test, build, type check or lint ran after ${which})`, passed: null };
  const { runs, said } = latestRuns(after, 4);
  if (after.every(ofFilesOnly)) return { note: ` (after ${which}, only checks of single files ran: ${said})`, passed: null };
  // Only linters, type checks and formatters after it: what the change does was not run.
  if (!runs.some((c) => checkTargets(c.command, l.installed ?? []).some((t) => t.kind === 'test' || t.kind === 'build'))) return { note: ` (after ${which}, only static checks ran — no test or build: ${said})`, passed: null };
  // Every check after the last write passed, a test or build of the whole among them: "verify" would send a successor to run them again.
  if (runs.every((c) => c.outcome === 'pass')) return { note: '', passed: `the checks run after its last ${docsLater ? `change to code (line ${lastWrite}; later writes only to docs or ignore lists)` : `write (line ${lastWrite})`} passed: ${said}` };
  return { note: '', passed: null };
}

function dirtyBeforeSaid(changed: readonly FileChange[]): string {
  const held = changed.filter((f) => f.dirtyBefore !== undefined);
  if (held.length === 0) return '';
  const names = held.slice(0, 4).map((f) => f.path.split('/').pop() ?? f.path).join(', ');
  return `; ${held.length === 1 ? `${names} already held` : `${held.length} of them (${names}${held.length > 4 ? ', …' : ''}) already held`} uncommitted changes before the session's first write (git's output at line ${held[0]?.dirtyBefore}): a commit of ${held.length === 1 ? 'it' : 'them'} takes that work too, so ask the user`;
}

/**
 * Files the session's own latest `git status` / `git diff --name-only` (after its last commit)
 * listed that it did not change, as a warning beside the advice to commit: the tree holds work
 * that may not be this session's. A listed path (relative to the cwd or the repository) is the
 * session's when a changed path ends with it.
 */
function othersInTree(l: Ledger, changed: readonly FileChange[]): string {
  const t = listingAfterLastCommit(l);
  if (t === null) return '';
  // Every ending of every changed path, looked up once per listed path (up to 1,000 × 200 otherwise).
  const mine = new Set(changed.flatMap((f) => pathEndings(normPath(f.path))));
  const others = t.paths.filter((p) => !mine.has(normPath(p)));
  if (others.length === 0) return '';
  const shown = others.slice(0, 4).join(', ');
  return `; the session's \`git\` listing at line ${t.line} also named ${others.length} file(s) this handoff does not list as changed by it (${shown}${others.length > 4 ? ', …' : ''}): ask before committing those`;
}

export interface ForeignHead {
  line: number;
  hash: string;
  subject: string;
  /** The commit HEAD was at before: the transcript's record of the session's start, or its first `git log`; null when git said then that the folder was no repository. */
  was: string | null;
  wasLine: number | null;
  /** The line of a push after that log with HEAD unmoved in between, which sent the commit if it sent HEAD's branch. */
  pushed?: number;
  /** HEAD's branch, when that push named it (the session's latest branch listing before the push said HEAD was on it). */
  pushedBranch?: string;
  /** The line of the session's latest `git add` before that log, which the commit may hold. */
  staged: number | null;
}

const samePrefix = (a: string, b: string): boolean => a.startsWith(b) || b.startsWith(a);

/**
 * HEAD moved under the session: its latest `git log` of HEAD begins with a commit it did not make,
 * other than the one HEAD was at before (the commit the transcript recorded at the start, or the
 * session's first log), and no git command of the session's that can move HEAD (a commit, merge,
 * pull, rebase, reset, checkout, …) ran in between. Someone or something else committed meanwhile.
 */
function foreignHead(st: SessionState): ForeignHead | null {
  const l = st.ledger;
  const top = l.logTop;
  if (top === undefined) return null;
  const first = l.logFirst !== undefined && l.logFirst.line < top.line ? l.logFirst : undefined;
  // Before any commit: the recorded start, the session's first log, else git saying there was no repository.
  // Only where the log ran: git outside the repository (another folder, `git -C`) says nothing of it.
  const n = l.notRepo;
  const noRepo = n !== undefined && n.line < top.line && n.cwd !== undefined && n.cwd === top.cwd ? { hash: null, line: n.line, from: n.line } : undefined;
  const was = st.meta.commit !== undefined ? { hash: st.meta.commit, line: null, from: 0 } : first === undefined ? noRepo : { hash: first.hash, line: first.line, from: first.line };
  if (was === undefined || (was.hash !== null && samePrefix(was.hash, top.hash))) return null;
  if (l.commits.some((c) => samePrefix(c.hash, top.hash) || (c.rebasedFrom !== undefined && samePrefix(c.rebasedFrom, top.hash)))) return null;
  if ((l.headMoves ?? []).some((m) => m > was.from && m < top.line)) return null;
  let staged: number | null = null;
  for (const c of Object.values(l.calls)) if (c.command !== undefined && c.line < top.line && c.line > was.from && /\bgit\s+add\b/.test(c.command) && (staged === null || c.line > staged)) staged = c.line;
  const out: ForeignHead = { line: top.line, hash: top.hash, subject: top.subject, was: was.hash === null ? null : was.hash.slice(0, 12), wasLine: was.line, staged };
  const push = l.lastPushLine;
  if (push !== undefined && push > top.line && !(l.headMoves ?? []).some((m) => m > top.line && m < push)) {
    out.pushed = push;
    if (l.pushedHeadBranch?.line === push) out.pushedBranch = l.pushedHeadBranch.branch;
  }
  return out;
}

/** The files a static check's tool reads, by language: a change to another file is not its. */
const TOOL_FILES: [RegExp, RegExp][] = [
  [/^(?:ruff|pyright|basedpyright|mypy|flake8|pylint|black|isort)\b/, /\.pyi?$/i],
  [/^(?:eslint|tsc|vue-tsc|svelte-check|biome)\b/, /\.(?:[cm]?[jt]sx?|vue|svelte)$/i],
];

/** Whether a static check's run reads a file: one its arguments name (a file, or a folder above it), else one of its tool's language. */
function reads(t: CheckTarget, path: string): boolean {
  const named = t.paths.filter((p) => p !== '.' && p !== '..' && p !== '');
  if (named.length > 0) return named.some((n) => path === n || path.endsWith(`/${n}`) || path.includes(`/${n}/`));
  const files = TOOL_FILES.find(([tool]) => tool.test(t.tool))?.[1];
  return files === undefined || files.test(path);
}

/**
 * The latest change a check's run would see (checkTargets classifies the run): a linter, type
 * checker or formatter sees the files it reads (`ruff check renderer.py`: renderer.py; eslint: the
 * JavaScript); a run with a test or a build among its checks sees every change. Null when no change
 * it sees was made.
 */
/** Tools that read documentation: a change to a README makes their last run stale. */
const DOC_TOOLS = /markdownlint|\bmdl\b|\bremark\b|prettier|\bvale\b|cspell|textlint|mkdocs|sphinx|docusaurus/i;

/**
 * Files a check of one language's tools never reads: a Rust change leaves `npm run build` as it
 * was, a web change leaves `cargo test` (edgerunner's npm checks were said stale from a
 * `Cargo.toml`, its cargo checks from a `tsconfig.app.json`). Only when every check of the command
 * is of that one kind.
 */
const FOREIGN: readonly { tools: RegExp; files: RegExp }[] = [
  { tools: /^(?:npm|pnpm|yarn|npx|bun|tsc|eslint|vite|next|jest|vitest|prettier|biome)\b/, files: /\.(?:rs|py|go|rb|java|kt|swift)$|(?:^|[\\/])(?:Cargo\.(?:toml|lock)|pyproject\.toml|go\.(?:mod|sum)|Gemfile(?:\.lock)?)$|(?:^|[\\/])(?!(?:wrangler|netlify)\.toml$)[^\\/]+\.toml$/ },
  { tools: /^cargo\b/, files: /\.(?:ts|tsx|js|jsx|mjs|cjs|css|scss|vue|svelte|html|py|go|rb)$|(?:^|[\\/])(?:package(?:-lock)?\.json|tsconfig[\w.-]*\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?)$/ },
  { tools: /^(?:pytest|ruff|mypy|pyright|tox|python import)\b/, files: /\.(?:rs|ts|tsx|js|jsx|go|rb|css|scss)$|(?:^|[\\/])(?:Cargo\.toml|package(?:-lock)?\.json|tsconfig[\w.-]*\.json|pnpm-lock\.yaml|yarn\.lock)$/ },
  { tools: /^go\b/, files: /\.(?:rs|ts|tsx|js|jsx|py|rb|css)$|(?:^|[\\/])(?:Cargo\.toml|package(?:-lock)?\.json|tsconfig[\w.-]*\.json|pnpm-lock\.yaml|yarn\.lock)$/ },
];

/**
 * Whether every check of a target ran again after a line, alone or with others: a run covers what
 * it implies as well (`cargo clippy` and `cargo test` build what `cargo check` does).
 */
function ranAgain(l: Ledger, from: number): (target: string) => boolean {
  const ran = new Set(l.checks.filter((c) => c.line > from).flatMap((c) => c.keys.flatMap((k) => [k, ...(IMPLIES[k] ?? [])])));
  // A formatter that ran clean since answers a format check of it (the files are as it wants them).
  const formatted = (l.formatRuns ?? []).filter((f) => f.line > from);
  return (target) => {
    const keys = l.checks.find((c) => (c.keys.join(' + ') || c.command) === target)?.keys ?? [];
    return keys.length > 0 && keys.every((k) => ran.has(k) || formatterAnswers(formatted, k));
  };
}

/** A run that selected no test checked nothing: running it again would not either. */
const checkedNothing = (t: CheckRow): boolean => t.summary?.startsWith(NOTHING_RAN) === true;

/** "`<command>` last ran at line N", the command cut at 100 characters. */
const lastRan = (t: CheckTargetRow): string => `\`${t.command.length > 100 ? `${t.command.slice(0, 99)}…` : t.command}\` last ran at line ${t.line}`;

function changeFor(l: Ledger, command: string, ranAt: number): { path: string; line: number } | null {
  return changesFor(l, command, ranAt)?.latest ?? null;
}

/**
 * The latest change of a file a check's command reads, and how many such files changed after it
 * ran at `ranAt` (which change came first after the run is not known: a file keeps its first and
 * its latest write only). Null when no file it reads changed.
 */
function changesFor(l: Ledger, command: string, ranAt: number): { files: number; latest: { path: string; line: number } } | null {
  const targets = checkTargets(command, l.installed ?? []);
  const staticOnly = targets.length > 0 && targets.every((t) => t.kind === 'lint' || t.kind === 'typecheck' || t.kind === 'format');
  const foreign = targets.length === 0 ? undefined : FOREIGN.find((f) => targets.every((t) => f.tools.test(t.tool)))?.files;
  let latest: { path: string; line: number } | null = null;
  let files = 0;
  const readsDocs = DOC_TOOLS.test(command);
  for (const [path, c] of Object.entries(l.changed)) {
    // A README or an ignore list is read by no test, build or code linter (by a prose linter, yes).
    if (!readsDocs && isDocumentation(path)) continue;
    if (foreign?.test(path) === true) continue;
    if (staticOnly && !targets.some((t) => reads(t, path))) continue;
    // A file the session made after the run and deleted since was never there for it to see (edgerunner's throwaway script).
    if (madeAfter(c, ranAt)) continue;
    if (latest === null || c.line > latest.line) latest = { path, line: c.line };
    if (c.line > ranAt) files += 1;
  }
  return latest === null ? null : { files, latest };
}

/** A file the session made after a check ran and deleted since: it was never there for that run to see. */
function madeAfter(c: Ledger['changed'][string], ranAt: number): boolean {
  return c.how === 'delete' && c.made === true && (c.first ?? c.line) > ranAt;
}

/**
 * The session's last file change a check run at `ranAt` could have missed: its last change,
 * unless that was the deletion of a file made after the run (a throwaway script), then the latest
 * change of another file.
 */
function lastSeenChange(l: Ledger, ranAt: number): number | null {
  const last = l.lastChangeLine;
  if (last === null) return null;
  const entries = Object.values(l.changed);
  if (!entries.some((c) => c.line === last && madeAfter(c, ranAt))) return last;
  let latest: number | null = null;
  for (const c of entries) if (!madeAfter(c, ranAt) && (latest === null || c.line > latest)) latest = c.line;
  return latest;
}

/** Shell calls whose command the transcript does not hold (its publisher redacted their arguments): what ran, and whether a check passed, is not known. */
function hiddenCommands(l: Ledger): string {
  const h = l.hiddenCommands;
  return h === undefined ? '' : `${h.count} shell call(s), the first at line ${h.first}, whose commands are unreadable (the transcript's publisher redacted their arguments): what ran, whether any was a test, build or lint and how it ended, and any commit or write they made, are not known`;
}

/**
 * Whether the session saw no remote to push to: its `git remote -v` printed none, or (none run)
 * its `git branch -a` listed no remote branch, and no push of its own succeeded. A remote never
 * fetched has no branch listed, so the second says "may".
 */
function noRemoteSeen(l: Ledger): string | null {
  if (l.lastPushLine !== undefined) return null;
  if (l.remotes !== undefined) return l.remotes.list.length === 0 ? `the session's \`git remote -v\` (line ${l.remotes.line}) printed no remote, so there is none to push them to` : null;
  const b = l.remoteBranches;
  return b !== undefined && b.count === 0 ? `the session's \`git branch -a\` (line ${b.line}) listed no remote branch, so there may be no remote to push them to` : null;
}

/**
 * The branch's pull request, when the session saw one: a push to the branch updates it while it
 * is open, which `gh pr view --json url` does not say; a merged or closed one a push leaves as it is.
 */
function prOfBranch(l: Ledger): string {
  const pr = l.branchPr;
  if (pr === undefined) return '';
  const state = pr.state?.toLowerCase();
  const push = state === undefined ? 'a push to the branch updates it if it is still open' : state === 'open' ? 'a push to the branch updates it' : 'a push to the branch does not change it';
  return `; the branch has a pull request${state === undefined ? '' : ` (${state})`}, ${pr.url} (line ${pr.line}): ${push}`;
}

/**
 * A message of thanks or praise alone ("Excellent work, thank you!", "perfect, thanks"): it asks
 * for nothing, so a plan or a task list written before it is not out of date for it. A message
 * with anything more ("great, now deploy it") is a request.
 */
const THANKS = /^(?:(?:(?:great|excellent|perfect|awesome|amazing|nice|good|fantastic|wonderful|brilliant|cool|lgtm|well done)(?: (?:work|job|stuff|one))?|thanks?(?: you)?(?: (?:so|very) much)?|thx|ty|cheers)[\s,.!]*)+$/i;

export function saysOnlyThanks(text: string): boolean {
  return text.length <= 80 && THANKS.test(text.trim());
}

/** A plan step whose words say it tested or verified the work. */
/** …or that ends on a test joined to other work: "Deploy to Streamlit Cloud + smoke test", "Fix the parser and verify", "…, then validate." */
const TEST_STEP = /^\s*(?:test|verify|validate|re-?run (?:the )?tests?|run (?:the )?(?:unit |integration |e2e )?tests?|check that)\b|\bsmoke[- ]test(?:ed|s|ing)?\b|(?:\+|&|\band(?: then)?|,?\s*then)\s+(?:re-?)?(?:test|verify|validate)(?: (?:it|them|the (?:change|fix|result)s?))?\s*[.!]?\s*$/i;

/** Plan updates whose steps the transcript does not hold: the agent kept a plan, which steps it had and which it marked done are not known. */
function hiddenPlans(l: Ledger): string {
  const h = l.hiddenPlans;
  if (h === undefined) return '';
  const latest = l.lastPlanLine !== null && l.lastPlanLine !== h.first ? `, the latest at line ${l.lastPlanLine}` : '';
  return `${h.count} plan update(s), the first at line ${h.first}${latest}, whose steps are unreadable (the transcript's publisher redacted their arguments): the agent kept a plan; its steps, and which it marked done, are not known`;
}

/**
 * A plan step that says it tested or verified the work, marked done although no test, build,
 * type check or lint ran after the last file change before the plan, then or later (or, when the
 * session changed files only after it, before the plan at all): the agent's claim, unproven. A
 * run after the plan covers the work the step names (Verification gives its outcome).
 */
function untestedPlanSteps(l: Ledger, c: CurrentState): Contradiction[] {
  const at = l.lastPlanLine;
  if (at === null) return [];
  const steps = c.completed.filter((t) => TEST_STEP.test(t));
  if (steps.length === 0) return [];
  const change = l.lastChangeLine !== null && l.lastChangeLine < at ? l.lastChangeLine : null;
  if (l.checks.some((x) => (change === null ? x.line < at : x.line > change))) return [];
  // A check run in the background that ended after the change ran too (its poll or notice said so).
  if (change !== null && Object.values(l.jobs ?? {}).some((j) => j.status !== 'running' && (j.endLine ?? 0) > change && checkTargets(j.command, l.installed ?? []).length > 0)) return [];
  const since = change === null ? 'before it' : `after the last file change (line ${change}${docsAfter(l, change)})`;
  // Checks that ran before that change tested the code as it was then: said, for the step may be
  // about them (coderabbit at 190: «Test the new default behavior», run at 173 to 181, then the
  // help text edited at 184 and 188), and what changed after them is what no run has seen.
  // Only runs after the session's first change: one before any edit tested none of the work.
  let first = Number.POSITIVE_INFINITY;
  for (const path in l.changed) {
    const c = l.changed[path] as Ledger['changed'][string];
    if (!isDocumentation(path) && !isScratch(path)) first = Math.min(first, c.first ?? c.line);
  }
  const before = change === null ? [] : l.checks.filter((x) => x.line < change && x.line > first);
  const last = before.at(-1);
  const ran = last === undefined ? '' : `; ${before.length === 1 ? 'a run' : `${before.length} runs`} before it, the latest \`${clip(last.command, 80)}\` (line ${last.line}, ${outcomeWord(last.outcome, 'no verdict')}): the step may have been done then`;
  return steps.slice(0, 3).map((t) => ({ claim_line: at, evidence_line: change ?? at, text: `the plan marks ${quote(t, 160)} done, but no test, build, type check or lint ran ${since}${ran}`, unproven: true as const }));
}

/** A task list's item that says something is kept running: a server, a backend, a watcher. */
const KEEP_RUNNING = /\b(?:keep|kept|leave|left|stays?|remains?)\b[^.\n]{0,60}\brunning\b/i;

/**
 * A task list's item marked done that says something is kept running, while the session stopped the
 * job that ran it after the list was written and started none of it again (edgerunner at 800:
 * «Keep the local backend running» done at 723, the server's session sent Ctrl-C at 789).
 */
function stoppedSinceMarked(l: Ledger, c: CurrentState): Contradiction[] {
  const at = l.lastPlanLine;
  if (at === null) return [];
  const step = c.completed.find((t) => KEEP_RUNNING.test(t));
  if (step === undefined) return [];
  const jobs = Object.values(l.jobs ?? {});
  // Running when the list was written, stopped by the session after it, and not started again.
  const stopped = jobs
    .filter((j) => j.status === 'stopped' && j.line < at && (j.endLine ?? 0) > at && !jobs.some((k) => k.status === 'running' && k.line > j.line && sameProgram(k.command, j.command)))
    .sort((x, y) => (y.endLine ?? 0) - (x.endLine ?? 0))[0];
  if (stopped === undefined) return [];
  const end = stopped.endLine as number;
  return [{ claim_line: at, evidence_line: end, text: `the task list marks ${quote(step, 160)} done, but the session stopped \`${clip(stopped.command, 100)}\` (started line ${stopped.line}) at line ${end}, and did not start it again` }];
}

/** The agent saying it cannot let calls run without asking ("I can't turn on automatic acceptance"). */
const CANNOT_AUTO = /\b(?:can(?:'|’)?t|cannot|can not|(?:am|'m|’m) (?:not )?(?:un)?able to|don(?:'|’)?t have (?:a way|the ability) to)\s+(?:turn on|enable|switch (?:on|to)|set|change|grant)\b[^.\n]{0,40}\b(?:auto(?:matic(?:ally)?)?[- ]?(?:accept|approv)\w*|approvals?|permissions?)\b/i;
/** A harness's record that calls run without asking: Codex's approval `never`, Claude Code's `bypassPermissions` or `acceptEdits`. */
const RUNS_UNASKED = /approval `never`|`bypassPermissions`|`acceptEdits`|`dontAsk`/;

/**
 * The agent's last message says it cannot let calls run without asking, while the harness had
 * recorded, before it, that they did (agentcmd at 275: "I can't turn on automatic acceptance" five
 * lines after the user's switch to approval `never`, which every reader of that session since the
 * twenty-eighth reading found said nowhere but in a permissions line).
 */
function permissionDenied(st: SessionState): Contradiction[] {
  const said = st.ledger.lastAgentText;
  const p = st.permissions;
  if (said === null || p === undefined || p.since >= said.line || !RUNS_UNASKED.test(p.text)) return [];
  const m = CANNOT_AUTO.exec(said.text);
  if (m === null) return [];
  const lets = /`acceptEdits`/.test(p.text) && !/approval `never`|`bypassPermissions`|`dontAsk`/.test(p.text) ? 'edits' : 'calls';
  return [{ claim_line: said.line, evidence_line: p.since, text: `the agent said it could not let calls run without asking (${quote(m[0], 120)}), but from line ${p.since} the harness recorded ${p.text}, under which ${lets} run without asking`, ability: true }];
}

/**
 * What changed after `line` that no check reads: docs or ignore lists, files a program's run wrote
 * (its output, which the check before it is not older than), scratch files; empty when nothing did
 * (posthog at 1200: «later changes only to docs or ignore lists» of `scores.json`, written by the
 * analysis run at 1219).
 */
function docsAfter(l: Ledger, line: number): string {
  const later = Object.entries(l.changed).filter(([, f]) => f.line > line);
  if (later.length === 0) return '';
  const kinds: string[] = [];
  if (later.some(([p]) => isDocumentation(p))) kinds.push('docs or ignore lists');
  if (later.some(([p, f]) => f.said !== undefined && !isDocumentation(p))) kinds.push("files a program's run wrote");
  if (later.some(([p, f]) => f.said === undefined && !isDocumentation(p) && isScratch(p))) kinds.push('scratch files');
  return kinds.length === 0 ? '' : `; later changes only to ${kinds.join(', ')}`;
}

/** The agent's last words hand the turn to the user: a question, or an explicit "let me know". */
const ASKS_USER = /\?\s*$|\b(?:would you like|do you want|want me to|should I|shall I|which (?:one|option) (?:do|would|should)|please (?:confirm|choose|pick)|call it\.?$)|^(?:then|once (?:that's |it's |this is )?(?:done|saved|set)|when (?:that's |it's )?(?:done|saved|set))\b(?:(?!\bI\b|\bI'|\bI’|\bwe\b)[^\n]){0,40}?\b(?:re-?)?(?:paste|send|share|post|tell me|let me know|ping me|reply)\b[^\n]{0,160}?\b(?:and|so) I(?:'ll|’ll| will| can)\b/im;

/*
 * ASKS_USER's last form: a step handed to the user, after which the agent goes on ("Then re-paste the
 * URL and I'll smoke-test it again", posthog at 1250: the app private, the user to make it public):
 * the session waits on the user, though no question mark says so.
 */

/** The sentences of a message's closing part (its last three paragraphs, code blocks left out), latest first. */
function closingSentences(text: string): string[] {
  const paras = text.trim().split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p.length > 0);
  // The question is in the closing part of the message, not in a quoted example earlier on.
  return paras
    .slice(-3)
    .reverse()
    .filter((p) => !/^```/.test(p))
    .flatMap((p) => p.split(/(?<=[.!?])\s+/).reverse().map((x) => x.trim()));
}

function asksUser(text: string): string | null {
  const sentences = closingSentences(text);
  // A real question (a question mark) beats a closing phrase.
  return sentences.find((s) => /\?\s*$/.test(s)) ?? sentences.find((s) => ASKS_USER.test(s)) ?? null;
}

/**
 * Besides the question `asked`, another ask in the closing part of the same message, after it or
 * before it ("Let me know when you want a separate docs commit for those."): a successor that
 * answers only the first leaves the second hanging. The latest other one, or null.
 */
const ALSO_ASKS = /\b(?:let me know|tell me) (?:when|if|whether|which|what)\b|\b(?:would you like|do you want|want me to|should I|shall I)\b/i;

function alsoAsks(text: string, asked: string): string | null {
  return closingSentences(text).find((s) => s.length >= 12 && !asked.includes(s) && !s.includes(asked) && (/\?\s*$/.test(s) || ALSO_ASKS.test(s))) ?? null;
}

/** "items 1+2", "step 3", "options 1 and 2", "points 2-4": the numbered items of a list a question names. */
const NAMED_ITEMS = /\b(?:items?|steps?|options?|points?)\s+(\d{1,2}(?:\s*(?:\+|,|&|and|or|-|–|to)\s*\d{1,2})*)/i;

/**
 * The items of a numbered list above a question that the question names by number ("pull the
 * trigger on items 1+2"): quoted, since the question alone, or the message's tail, leaves out what
 * they are (FundWise's tail began at item 2, and item 1 was the file to change).
 */
function itemsNamed(text: string, question: string): string | null {
  const m = NAMED_ITEMS.exec(question);
  if (m === null) return null;
  const wanted = new Set<number>();
  const spec = m[1] as string;
  for (const r of spec.matchAll(/(\d{1,2})\s*(?:(?:-|–|to)\s*(\d{1,2}))?/g)) {
    const a = Number(r[1]);
    const b = r[2] === undefined ? a : Number(r[2]);
    for (let i = a; i <= Math.min(b, a + 9); i += 1) wanted.add(i);
  }
  const at = text.lastIndexOf(question.slice(0, 40));
  const before = at === -1 ? text : text.slice(0, at);
  const items = new Map<number, string>();
  for (const x of before.matchAll(/^[ \t]{0,3}(\d{1,2})[.)][ \t]+(.+)$/gm)) if (wanted.has(Number(x[1]))) items.set(Number(x[1]), x[2] as string);
  if (items.size === 0) return null;
  return [...items].sort((x, y) => x[0] - y[0]).map(([n, t]) => `${n}. ${quote(unmark(t), 200)}`).join(' ');
}

/** The markdown heading a question sits under, for context ("## FW-007 — recommendation"). */
function headingBefore(text: string, sentence: string): string | null {
  const at = text.lastIndexOf(sentence.slice(0, 40));
  const before = at === -1 ? text : text.slice(0, at);
  const hs = [...before.matchAll(/^#{1,4}\s+(.+)$/gm)];
  const h = hs[hs.length - 1]?.[1];
  // Markdown's marks out, an underscore inside a word kept (`AKIA_Q3EG…` would become a key the redactor never saw whole).
  return h === undefined ? null : clip(unmark(h), 100);
}

export function endOf(st: SessionState, parent: string | null = null): End {
  const e = endKind(st, parent);
  const c = st.ledger.closed;
  // Closed after its last event: the user ended it there, it did not just stop.
  if (c === undefined || e.line === null || c.line <= (st.ledger.last?.line ?? 0)) return e;
  // `/clear` ends the conversation too: Claude Code goes on in a new session, with a new transcript.
  const how = c.command === '/clear' ? 'cleared the conversation' : 'closed the session';
  return { ...e, why: `${e.why}; then the user ${how} with \`${c.command}\` (line ${c.line})` };
}

/** Codex's agent message as its event, when no turn came after it (the transcript ends before its item); else null. */
function trailingMirror(st: SessionState): NonNullable<SessionState['mirrorMessage']> | null {
  const m = st.mirrorMessage;
  if (m === undefined) return null;
  const lastTurn = st.window.at(-1)?.seq ?? -1;
  // Some versions write the event after its item (agent-sessions' stage0 fixture): then it repeats
  // the agent's last message, which is in the transcript.
  if (st.lastAgent !== null && st.lastAgent.text.trim() === m.text.trim()) return null;
  return m.seq > lastTurn && m.seq > (st.lastAgent?.seq ?? -1) ? m : null;
}

/** The line of the agent's reasoning the transcript ends on, when it comes after line `line`; else null. */
function reasoningAfter(st: SessionState, line: number): number | null {
  const t = st.window.at(-1);
  if (t !== undefined && t.class === 'THOUGHT' && t.seq + 1 > line) return t.seq + 1;
  // Codex's reasoning event past the last turn, before the item that carries it (agentcmd at 200).
  const m = st.lastThought;
  return m !== undefined && m.seq + 1 > line && (t === undefined || m.seq > t.seq) ? m.seq + 1 : null;
}

/** The latest word of a background job after `line`: its end or its progress, with the job's id. */
function jobHeardAfter(l: SessionState['ledger'], line: number): { id: string; line: number; ended: boolean } | null {
  let best: { id: string; line: number; ended: boolean } | null = null;
  for (const j of Object.values(l.jobs ?? {})) {
    const at = Math.max(j.endLine ?? 0, j.lastEvent?.line ?? 0);
    if (at > line && (best === null || at > best.line)) best = { id: j.id, line: at, ended: j.endLine === at };
  }
  return best;
}

function endKind(st: SessionState, parent: string | null): End {
  const l = st.ledger;
  const last = l.last;
  if (last === null) return { kind: 'unknown', line: null, why: 'the transcript records no request, reply or tool call' };
  if (last.event === 'api_error') return { kind: 'failed', line: last.line, why: 'an API error is the last thing recorded' };
  if (last.event === 'interrupt' || last.event === 'turn_aborted') {
    // Codex may write the reasoning it had under way after the abort: no work, but a line after it.
    const thought = reasoningAfter(st, last.line);
    return { kind: 'interrupted', line: last.line, why: thought === null ? 'the user interrupted the agent and nothing came after' : `the user interrupted the agent, and only its reasoning came after (line ${thought})` };
  }
  if (l.pendingQuestion) return { kind: 'waiting-on-user', line: l.pendingQuestion.line, why: `the agent asked the user through a tool and no answer is recorded: ${quote(l.pendingQuestion.text)}` };
  // The agent's message as Codex's event, with no turn after it: the message item that carries it
  // is not in the transcript (edgerunner at 150: a progress note 1 ms before its item).
  const mirror = trailingMirror(st);
  if (mirror !== null) {
    const at = mirror.seq + 1;
    const how = "which Codex wrote as its event; the message item that carries it is not in the transcript";
    if (mirror.commentary === true) return { kind: 'mid-work', line: at, why: `the transcript ends on the agent's progress note (line ${at}, ${how}; the harness marked it commentary, not a final answer), and its turn recorded no end` };
    const q = asksUser(mirror.text);
    if (q !== null && parent === null) return { kind: 'waiting-on-user', line: at, why: `the agent's last message (line ${at}, ${how}) asks the user: ${quote(q)}` };
    return { kind: 'done', line: at, why: `the agent's last message (line ${at}, ${how}) closes its turn` };
  }
  if (last.event === 'tool_call') {
    // Claude Code may write a call's result before the call itself (FundWise at 229: the Edit's
    // result at 227, 13 ms after it, and the call at 229): the call has its result then.
    const answered = Object.values(l.calls).find((c) => c.line === last.line)?.resulted;
    if (answered !== undefined && answered < last.line) return { kind: 'mid-work', line: last.line, why: `the transcript ends on a tool call whose result the harness wrote before it (line ${answered}), before the agent replied` };
    return { kind: 'mid-work', line: last.line, why: 'the transcript ends on a tool call with no result' };
  }
  if (last.event === 'tool_result') {
    // The agent's reasoning about the result may follow it (Codex's reasoning items): the
    // transcript then ends there, not on the result.
    const thought = reasoningAfter(st, last.line);
    if (thought !== null) return { kind: 'mid-work', line: thought, why: `the transcript ends on the agent's reasoning (line ${thought}) after a tool result (line ${last.line}), before the agent replied` };
    // A reasoning record with no words (Codex's encrypted reasoning) after the result, and no turn
    // after it (raze at 140, edgerunner at 250: "ends on a tool result", and a reasoning record after it).
    const hidden = st.hiddenThought;
    const lastTurn = st.window.at(-1)?.seq ?? -1;
    if (hidden !== undefined && hidden + 1 > last.line && hidden > lastTurn) return { kind: 'mid-work', line: hidden + 1, why: `the transcript ends on a record of the agent's reasoning whose words it does not hold (line ${hidden + 1}), after a tool result (line ${last.line}), before the agent replied` };
    // A refusal the harness answered with "STOP … and wait for the user" is the user's turn, not work under way (37f83ec9 at 192).
    const stop = stoppedAtPrompt(st, last.line);
    if (stop !== null && stop.line === last.line) {
      const how = stop.waits ? 'the harness told the agent to stop and wait for the user' : stop.why === 'the user said no to it' ? 'with the reason the user gave, under User requests' : stop.why;
      return { kind: 'mid-work', line: last.line, why: `the transcript ends on the user's refusal of the agent's ${stop.what} (${how}), before the agent replied` };
    }
    return { kind: 'mid-work', line: last.line, why: 'the transcript ends on a tool result, before the agent replied' };
  }
  if (last.event === 'user') return { kind: 'mid-work', line: last.line, why: 'the transcript ends on a user request the agent has not answered' };
  const said = l.lastAgentText;
  if (said !== null) {
    const q = asksUser(said.text);
    // A subagent's last message is its report: the session that started it took it back (its
    // question is for that session to answer, or not); no one waits on this transcript.
    if (q !== null && parent !== null) return { kind: 'done', line: last.line, why: `the subagent's last message is its report to the session that started it, ending with a question for that session: ${quote(q)}` };
    if (q !== null) return { kind: 'waiting-on-user', line: said.line, why: `the agent's last message asks the user: ${quote(q)}` };
  }
  // Codex marks a progress note `commentary`: a last message so marked, with no turn_complete
  // after it, is the agent still at work (localpush 12-54 cut after its compaction), not an answer.
  const note = st.lastAgent !== null && st.commentaryLine === st.lastAgent.seq + 1 && st.commentaryLine === last.line;
  if (note && last.event !== 'turn_complete') return { kind: 'mid-work', line: last.line, why: "the transcript ends on the agent's progress note (the harness marked it commentary, not a final answer), and its turn recorded no end" };
  // A last message that announces what the agent does next ("Let me fix this:"), with nothing after
  // it: the call it announced is not in the transcript (Claude Code writes it on the next line).
  const tail = st.lastAgent !== null && st.lastAgent.seq + 1 === last.line ? st.lastAgent.text.trimEnd() : '';
  if (last.event !== 'turn_complete' && tail.endsWith(':') && !tail.endsWith('::')) return { kind: 'mid-work', line: last.line, why: `the agent's last message announces a next step and nothing came after it: ${quote(tail.slice(-120))}`, announced: tail.slice(-240) };
  // A background job that reported (or ended) after the agent's last message: the agent had not
  // taken it in (posthog cut at 1216: the fetch's "ALL DONE" at 1213 after "Now fetching CODEOWNERS").
  const heard = jobHeardAfter(l, last.line);
  if (heard !== null) {
    const thought = reasoningAfter(st, heard.line);
    return { kind: 'mid-work', line: thought ?? heard.line, why: `a background job (${heard.id}) ${heard.ended ? 'ended' : 'reported'} after the agent's last message (line ${heard.line}), and the agent had not answered it${thought === null ? '' : `; only its reasoning came after (line ${thought})`}` };
  }
  // A Monitor still running: the agent closed its turn to wait for what it reports (posthog cut at
  // 1050: «Waiting.» with the fetch at chunk 11 of 13), and the work goes on when it does.
  const lastTs = st.window[st.window.length - 1]?.ts ?? null;
  const watched = Object.values(l.jobs ?? {}).filter((j) => j.status === 'running' && j.tool === 'Monitor' && !(j.timeoutAt !== undefined && lastTs !== null && lastTs > j.timeoutAt)).sort((a, b) => (b.lastEvent?.line ?? b.line) - (a.lastEvent?.line ?? a.line))[0];
  if (watched !== undefined) {
    const progress = watched.lastEvent === undefined ? 'no progress reported yet' : `last progress at line ${watched.lastEvent.line}: ${quote(watched.lastEvent.text, 120)}`;
    // Its own timeout stops it whether its work is done or not (posthog: 15 minutes, while the fetch needed more).
    const stops = watched.timeoutAt === undefined ? '' : `; it stops by itself at ${watched.timeoutAt.replace(/\.\d{3}Z$/, 'Z')} (the timeout its start gave), done or not`;
    return { kind: 'mid-work', line: last.line, why: `the agent's last message closes its turn while the Monitor job ${watched.id} it waits on has no end recorded (${progress}${stops}): its notifications would have resumed the work` };
  }
  return { kind: 'done', line: last.line, why: last.event === 'turn_complete' ? 'the agent finished its turn (task complete)' : "the agent's last message closes its turn" };
}

/**
 * Where the answer is: the agent's last message, and the line that closed the turn when another
 * (Codex's `task_complete` comes after the message it completes).
 */
function answeredAt(l: Ledger, end: End, requestLine: number): string {
  const said = l.lastAgentText;
  if (end.line === null) return 'line ?';
  if (said === null || said.line <= requestLine || said.line >= end.line) return `line ${end.line}`;
  return `line ${said.line}; the turn closed at line ${end.line}`;
}

/**
 * The answer is the session's deliverable (a review, a report), and HANDOFF.md shows only its
 * tail: say how long it is and where it is whole (raze's review kept its findings in the head).
 */
function longAnswer(st: SessionState, requestLine: number): string {
  const last = st.lastAgent;
  if (last === null || last.chars === undefined || last.seq + 1 <= requestLine) return '';
  return ` The answer is ${last.chars} characters, of which State right now shows the last ${last.text.length - 1}: read it whole at line ${last.seq + 1} before acting on it.`;
}

/** A next step the agent named itself: "Next steps: …", "Next, I'll …", "Remaining: …". */
function statedNextStep(text: string): string | null {
  const m = /^[ \t>*_-]*(?:#+\s*)?\**(?:next steps?|next up|remaining(?: work)?|still to do|to do next|todo)\**\s*[:—-]\s*(.*)$/im.exec(text) ?? /\b(?:next,? I(?:'ll| will)|I(?:'ll| will) next)\s+([^.\n]+)/i.exec(text);
  if (!m) return null;
  let step = (m[1] ?? '').trim();
  if (step.length === 0) {
    // The step is the first item of the list that follows the heading.
    const after = text.slice((m.index ?? 0) + m[0].length);
    step = /^\s*(?:[-*]|\d+\.)\s+(.+)$/m.exec(after)?.[1] ?? '';
  }
  return step.length === 0 ? null : clip(unmark(step), 240);
}

/**
 * The checks the latest request names (FundWise's «run pnpm build, commit the feature») that no
 * run has done since it: the user's own condition for the work, unmet so far. The reading of the
 * request's words is inferred; that no such run followed is the transcript's.
 */
function askedChecksNotRun(st: SessionState): Finding | null {
  const req = lastRequest(st);
  if (req === null) return null;
  const l = st.ledger;
  const ran = new Set(l.checks.filter((c) => c.line > req.line).flatMap((c) => c.keys.flatMap((k) => [k, ...(IMPLIES[k] ?? [])])));
  const missing = checksNamedIn(req.text).filter((n) => !n.targets.some((t) => ran.has(t.key)));
  if (missing.length === 0) return null;
  const names = missing.map((n) => `\`${clip(n.command, 80)}\``).join(', ');
  return { text: `${names}, which the latest request (line ${req.line}) asks for, ${missing.length === 1 ? 'has' : 'have'} not run since it`, label: 'inferred', seq: req.line - 1 };
}

/** The messages the session sent a subagent by its name after launching it (SendMessage), in order. */
export function subagentMessages(st: SessionState, s: SessionState['subagents'][number]): NonNullable<SessionState['agentMessages']> {
  if ((s.name === undefined && s.continueTo === undefined) || st.agentMessages === undefined) return [];
  const names = [s.name, s.continueTo, s.agent].filter((x): x is string => x !== undefined).map((x) => x.toLowerCase().replace(/^@/, ''));
  return st.agentMessages.filter((m) => names.includes(m.to.toLowerCase().replace(/^@/, '')) && m.line > (s.line ?? s.seq + 1));
}

function lastRequest(st: SessionState): RequestRecord | null {
  const rs = st.ledger.requests.filter((r) => r.kind !== 'answer');
  return rs[rs.length - 1] ?? null;
}

/**
 * The failed writes of files the session had written before, with no write of them since: the
 * file holds the earlier write, not this one (edgerunner at 552: the last patch of `risk.rs`,
 * `engine.rs` and `server.rs` failed on `server.rs`'s context, and the handoff said "None left undone").
 */
function failedAfterWrite(l: Ledger): Analysis['filesNotChanged'] {
  const latest = new Map<string, { path: string; line: number; reason?: string; redoneAt?: number }>();
  for (const f of l.writeFailures ?? []) {
    const key = heldKey(l.changed, f.path);
    if (key === undefined) continue;
    const was = latest.get(key);
    if (was === undefined || f.line > was.line) latest.set(key, f);
  }
  const out: Analysis['filesNotChanged'] = [];
  for (const [key, f] of latest) {
    const wrote = l.changed[key];
    if (wrote === undefined || wrote.line >= f.line || f.redoneAt !== undefined) continue;
    out.push({ path: key, line: f.line, reason: f.reason ?? 'the write failed', earlier: wrote.line });
  }
  return out;
}

/** The failed writes whose file was written after them, the latest failure of each file. */
function redone(l: Ledger): Analysis['filesRedone'] {
  const out = new Map<string, { path: string; line: number; at: number }>();
  for (const f of l.writeFailures ?? []) {
    const key = heldKey(l.changed, f.path);
    const later = key === undefined ? undefined : l.changed[key];
    if (later !== undefined && later.line > f.line) out.set(key as string, { path: key as string, line: f.line, at: f.redoneAt ?? later.line });
  }
  return [...out.values()];
}

/** A request's words for comparing: letter case, spacing and closing punctuation set aside. */
const requestWords = (t: string): string => t.toLowerCase().replace(/\s+/g, ' ').replace(/[\s.!?]+$/, '').trim();

/**
 * The last request asked again: an earlier request began with the same words (at least four of
 * them) and the agent replied to it before the next request came. A successor has that reply to
 * start from (the user may want it again, or changed): where it is, is said; what it lacked is not
 * guessed. Nothing is said when the reply is no longer among the agent's latest messages.
 */
function askedBefore(l: Ledger, req: RequestRecord): string {
  const words = requestWords(req.text);
  if (words.split(' ').length < 4) return '';
  const rs = l.requests.filter((r) => r.kind === 'request' && r.line < req.line);
  for (let i = rs.length - 1; i >= 0; i -= 1) {
    const earlier = rs[i] as RequestRecord;
    if (!requestWords(earlier.text).startsWith(words)) continue;
    const until = l.requests.find((r) => r.line > earlier.line)?.line ?? req.line;
    const reply = (l.said ?? []).filter((m) => m.line > earlier.line && m.line < until).pop();
    if (reply === undefined) return '';
    const same = requestWords(earlier.text) === words ? 'was the same request' : 'began with the same words';
    return `. The request at line ${earlier.line} ${same}, and the agent replied to it at line ${reply.line}, before this one was made: ${quote(reply.text, 160)}${(reply.chars ?? reply.text.length) > 160 ? ` (its head; the reply is ${reply.chars ?? reply.text.length} characters, whole at that line of the transcript: read it before doing the work again)` : ''}`;
  }
  return '';
}

/**
 * A go-ahead says nothing of the work: the agent's message it approves does ("ok 開始" after the
 * agent's final spec, posthog at 47).
 */
function goAhead(l: Ledger, req: RequestRecord): string {
  const c = req.continues;
  if (c !== undefined) {
    const whole = c.chars === undefined ? '' : ` (shortened; the message is ${c.chars} characters, whole at that line of the transcript)`;
    // Writes since the go-ahead may have done those steps (agentcmd at 350: the hook and the
    // TeamSheet's switch the message of 189 set out were written at 257 and 312).
    const since = changesBetween(l, req.line, Number.POSITIVE_INFINITY, () => false);
    const done = since === null ? '' : `. Since the go-ahead the session wrote ${since.files} file(s) (the latest \`${fileName(since.path)}\`, line ${since.line}): some of those steps may be done; see Files changed`;
    return `; a go-ahead after a message that asked nothing: what it goes on with is likely the next steps the agent set out at line ${c.line}: ${quote(c.text, 400)}${whole}${done}`;
  }
  const a = req.approves;
  if (a === undefined) return '';
  const whole = a.chars === undefined ? '' : ` (shortened; the message is ${a.chars} characters, whole at that line of the transcript: read it first)`;
  return `; it approves the agent's message just before it (line ${a.line}): ${quote(a.text, 400)}${whole}`;
}

/**
 * The files the session changed after the agent's last message, when that message answered the
 * request: what it said it would do may be done already (the `37f83ec9` sample at 300: «Let me fix
 * this:» at 298, the fix written at 299, and the handoff said only "continue"). Not after a go-ahead,
 * whose clause counts the writes since it, nor when the transcript ends on the message.
 */
function sinceLastMessage(l: Ledger, req: RequestRecord, end: End): string {
  const m = l.lastAgentText;
  if (m === null || m.line <= req.line || req.continues !== undefined || end.announced !== undefined) return '';
  const since = changesBetween(l, m.line, Number.POSITIVE_INFINITY, () => false, true);
  if (since === null) return '';
  const what = since.files === 1 ? `\`${fileName(since.path)}\` (line ${since.line})` : `${since.files} files (the latest \`${fileName(since.path)}\`, line ${since.line})`;
  return `. After its last message (line ${m.line}) the session changed ${what}: what the message says it will do may be done; read those changes before doing it again`;
}

/**
 * The user's answers to the agent's questions since the request: they bear on the work it asks for
 * (deep-manifest at 81: "Yes, both filesystem and embedded", "Also .tgz"), or call it off.
 */
function answeredSince(l: Ledger, req: RequestRecord): string {
  const answers = l.requests.filter((r) => r.kind === 'answer' && r.line > req.line);
  if (answers.length === 0) return '';
  const shown = answers.slice(-2).map((r) => `line ${r.line}: ${quote(r.text.replace(/\s+/g, ' '), 300)}`).join('; ');
  const more = answers.length > 2 ? ` (and ${answers.length - 2} earlier, under User requests)` : '';
  return `; the user answered the agent's question(s) since, and the answers bear on it (${shown})${more}`;
}

/**
 * What the harness's latest recap said comes next, when nothing is pending from the agent: a step
 * left to the user ("submit the dashboard URL …") outlives the questions answered after it.
 */
function recapSays(l: Ledger, req: RequestRecord): string {
  const r = l.recap;
  if (r === undefined) return '';
  // How many requests came after it: a recap four requests old may name a step done since.
  const after = r.line < req.line ? l.requests.filter((q) => q.line > r.line && (q.kind === 'request' || q.kind === 'rejection')).length : 0;
  const when = after === 0 ? '' : after === 1 ? ', before the last request' : `, before the last ${after} requests`;
  if (/^No next/i.test(r.next)) return ` Claude Code's own recap (line ${r.line}${when}) said: ${quote(r.next, 300)}`;
  // Three requests or more after it, the conversation has likely settled it (posthog: the recap at
  // 1232 asked for the deploy whose URL the user pasted twice since): said as such, not as a step to ask about.
  if (after >= 3) return ` Claude Code's own recap (line ${r.line}${when}) named a step: ${quote(r.next, 300)}; the ${after} requests since may have settled it (they are under User requests).`;
  return ` Claude Code's own recap (line ${r.line}${when}) named a step: ${quote(r.next, 300)} Ask the user whether it was done.`;
}

/**
 * A subagent's own transcript that ends on its reply: the reply is its report to the session that
 * started it, and that session, not this one, decides what is done with it (it may have already).
 */
function subagentReport(l: Ledger, end: End, parent: string): NextAction | null {
  const said = l.lastAgentText;
  if (said === null || (end.kind !== 'done' && end.kind !== 'waiting-on-user') || l.pendingQuestion) return null;
  const q = asksUser(said.text);
  const ask = q === null ? '' : `, ending with a question for it: ${quote(q, 300)}`;
  return { text: `This is a subagent's transcript, finished: its last message (line ${said.line}) is its report to the session that started it (\`${parent}\`)${ask}. Resume from that session's handoff, which shows what became of the report; act on the report here only if that session asks for it.`, rule: 'subagent_report', label: 'reported', line: said.line };
}

/** The notice Claude Code writes after the result of a call the user stopped. */
const TOOL_USE_INTERRUPT = /^\[Request interrupted by user for tool use\]/;

/** A call's result that says the user stopped it before it ran: aborted its permission prompt, or said no to it. */
const STOPPED_AT_PROMPT = /(?:^|→ )(?:Error: )?(Permission prompt was aborted|The user doesn't want to proceed)/;

/**
 * The call the user stopped at its permission prompt in the last request's turn, when nothing the
 * agent said came after: that is the user's decision about that call, not work to pick up again.
 */
function stoppedAtPrompt(st: SessionState, since: number): { line: number; what: string; why: string; waits: boolean } | null {
  const said = st.ledger.lastAgentText?.line ?? 0;
  for (let i = st.failures.length - 1; i >= 0; i -= 1) {
    const f = st.failures[i];
    if (f === undefined || f.seq + 1 < since) break;
    const m = f.kind === 'interrupted' ? STOPPED_AT_PROMPT.exec(f.text) : null;
    if (m === null || f.seq + 1 < said) continue;
    // A call after it: the agent went on (an Edit after a refused question), and "nothing came after" is false.
    const last = st.ledger.last;
    if (last !== null && last.line > f.seq + 1 && (last.event === 'tool_call' || last.event === 'tool_result')) return null;
    const call = f.id === undefined ? undefined : st.ledger.calls[f.id];
    const target = call?.command ?? call?.writes?.[0]?.path;
    const what = `${call?.name || f.tool || 'tool'} call${target === undefined ? '' : ` (\`${clip(target.replace(/\s+/g, ' '), 120)}\`)`}`;
    return { line: f.seq + 1, what, why: m[1] === 'Permission prompt was aborted' ? 'its permission prompt was aborted' : 'the user said no to it', waits: /STOP what you are doing/.test(f.text) };
  }
  return null;
}

/** Claude Code's refusal of a call outside the session's folders (`ls in '~/.claude' was blocked. … only … the allowed working directories`). */
const OUTSIDE_FOLDERS = /allowed working director(?:y|ies)|outside (?:of )?the (?:allowed|working) director/i;

/**
 * A session that ended on the agent's answer after its calls were denied: the answer stands
 * without what they would have shown (it may rest on the agent's own knowledge, which no call
 * tested). There is nothing to "go on" with: the step is to check the answer, or to wait.
 */
function answeredAfter(l: Ledger, end: End, deniedLine: number): number | null {
  const said = l.lastAgentText;
  return end.kind !== 'done' || said === null || said.line <= deniedLine ? null : said.line;
}

/** `calls`: "the call a permission rule denied", "the 6 calls the harness refused"; `what`: the calls, each with its line. */
function deniedAction(calls: string, what: string, answered: number | null, n: number): string {
  const them = n === 1 ? 'it' : 'them';
  if (answered === null) return `Ask the user to allow ${calls}, or go on without ${them} (${what})`;
  return `The agent answered (line ${answered}) without ${calls} (${what}): nothing ${n === 1 ? 'it' : 'they'} would have shown is in that answer. To check it, ask the user to allow ${them}; else wait for the user's next request`;
}

/** The last compaction's summary, as Analysis gives it (null when it said nothing of what was left). */
function compactionOf(st: SessionState, na: NextAction): Analysis['compaction'] {
  const c = st.compactionSummary;
  if (c === undefined) return null;
  const after = st.ledger.requests.find((q) => q.line > c.line);
  return { ...c, requestAfter: after?.line ?? null, nextQuoted: na.quotesCompaction === true };
}

/**
 * What the last compaction's summary named as the next step, when the summary came after the
 * request the session was still working on: written by the agent from the whole conversation it
 * was about to lose, it says more than the request's own words (posthog: «ok 開始»).
 */
function compactionStep(st: SessionState, reqLine: number, endLine: number | null): string {
  const c = st.compactionSummary;
  if (c === undefined || c.line < reqLine) return '';
  const step = c.next ?? c.pending;
  if (step === undefined) return '';
  const what = c.next !== undefined ? 'next step' : 'pending tasks';
  const later = endLine !== null && endLine > c.line + 1 ? `; the session went on to line ${endLine} after it, so part of it may be done` : '';
  return `. The summary the agent wrote when the conversation was compacted (line ${c.line}) named its ${what}: ${quote(step.replace(/\s+/g, ' '), 400)}${later}`;
}

/**
 * The step the agent's task list, written since the request, has in progress: a long brief's
 * request says all there was to do, the list what was left of it (rave-era at 351: every step done
 * but «Summarize audit findings and next steps»). Files written after the list may have moved it on.
 */
function listSince(current: CurrentState, reqLine: number, changed: readonly FileChange[]): string {
  if (current.seq === null || current.seq + 1 <= reqLine) return '';
  const line = current.seq + 1;
  // Only a step set in progress since the request: a task tool updates one item at a time, and a
  // step begun for an earlier request, which the latest may have set aside, is not its step.
  const since = current.items.filter((t) => t.status === 'in_progress' && (t.line ?? line) > reqLine).map((t) => t.text);
  // A list written since that marks every item done (agentcmd at 500: the plan of 408 closed, and
  // the Next Action said only that some of the steps "may be done").
  const all = current.completed.length;
  if (since.length === 0 && all > 0 && current.in_progress.length === 0 && current.not_started.length === 0) {
    const later = changed.filter((f) => f.line > line).length;
    return `; the agent's task list, written since (line ${line}), marks all ${all} of its item(s) done${later === 0 ? '' : `, and ${later} file(s) were written after it`} (under Current State)`;
  }
  if (since.length === 0) return '';
  const doing = since.slice(0, 2).map((t) => quote(t, 160)).join(' and ');
  const more = since.length > 2 ? ` (and ${since.length - 2} more)` : '';
  const total = current.completed.length + current.in_progress.length + current.not_started.length;
  const after = changed.filter((f) => f.line > line).length;
  const behind = after === 0 ? '' : `; ${after} file(s) were written after it, so it may be behind`;
  return `; the agent's task list (line ${line}) has ${doing}${more} set in progress since, and ${current.completed.length} of ${total} item(s) done (under Current State${behind})`;
}

function nextAction(st: SessionState, end: End, current: CurrentState, open: Analysis['openFailures'], commits: Analysis['commits'], changed: FileChange[], parent: string | null, repoRead: boolean, plan: Analysis['plan']): NextAction {
  const l = st.ledger;
  const req = lastRequest(st);
  // The quote is of the words: images the message carried are said in the request itself. A
  // publisher's placeholder is no words: it is said unreadable, not quoted as if it were the request.
  const hidden = req !== null && publisherRedacted(req.text);
  const reqWords = req === null || hidden ? '' : withoutImages(req.text);
  // A request cut here is kept whole nowhere in the store (timeline.jsonl keeps a long text's ends):
  // what it asks between them is on its line of the transcript (rave-era at 480: its phases 2 to 7).
  const whole = reqWords.length > REQUEST_QUOTE.chars ? `; its middle is cut here: the whole request is line ${req?.line} of the transcript` : '';
  const reqText = req === null ? '' : hidden ? ` (line ${req.line}, unreadable: the transcript's publisher redacted it)` : ` (line ${req.line}: ${quoteEnds(reqWords, REQUEST_QUOTE.chars, REQUEST_QUOTE.head)}${whole})`;
  const report = parent === null ? null : subagentReport(l, end, parent);
  if (report !== null) return report;
  if (end.kind === 'waiting-on-user') {
    // The agent's last words: Codex's message event when no turn came after it (trailingMirror).
    const said = trailingMirror(st)?.text ?? l.lastAgentText?.text;
    const q = l.pendingQuestion?.text ?? (said !== undefined ? asksUser(said) : null) ?? 'its question';
    const h = said !== undefined && !l.pendingQuestion ? headingBefore(said, q) : null;
    const also = said !== undefined && !l.pendingQuestion ? alsoAsks(said, q) : null;
    const items = said !== undefined ? itemsNamed(said, q) : null;
    return { text: `Get the user's answer first: the agent asked${h ? ` (under ${quote(h, 100)})` : ''} ${quote(q, 300)}${items === null ? '' : `; the items it names, from the list above it: ${items}`}${also === null ? '' : `; the same message also asked ${quote(also, 240)}`}`, rule: 'pending_question', label: 'reported', line: end.line };
  }
  if ((end.kind === 'mid-work' || end.kind === 'interrupted' || end.kind === 'failed') && req !== null) {
    const whose = parent === null ? "the user's last request" : `the task the session that started this subagent (\`${parent}\`) gave it`;
    // A transcript that ends on the request itself holds no reply: nothing of it was begun.
    // Its words redacted, no successor can answer it: the user is asked to say it again.
    const restate = hidden ? '; its words are not in the transcript, so ask the user to say it again' : '';
    if (end.kind === 'mid-work' && end.line === req.line) return { text: `Answer ${whose}: the transcript ends on it, before any reply of the agent${reqText}${goAhead(l, req)}${restate}${leftBefore(l, req, withoutResult(st))}`, rule: 'unfinished_request', label: 'inferred', line: req.line };
    const stop = end.kind === 'failed' ? null : stoppedAtPrompt(st, req.line);
    if (stop !== null) return { text: `Ask the user whether to go on with ${whose}${reqText} before making that call again: the user stopped the agent at its ${stop.what} (line ${stop.line}: ${stop.why}), and nothing came after`, rule: 'unfinished_request', label: 'verified', line: stop.line };
    const how = end.kind === 'mid-work' ? 'was still working on' : end.kind === 'interrupted' ? 'was interrupted while working on' : 'stopped on an error while working on';
    const ask = hidden ? ': its words are not in the transcript, so ask the user what it asked before going on' : '';
    // The step the last message announced is the one to take first (deep-manifest: «Let me also run ruff…:»).
    const announced = end.announced === undefined ? '' : `. Its last message (line ${end.line}) announced the step it was about to take, which the transcript does not hold: ${quote(end.announced, 240)}`;
    const compacted = compactionStep(st, req.line, end.line);
    // "Implement the plan." says nothing of what the plan is: where it is (edgerunner at 124).
    const approves = plan !== null && plan.latest.approved === true && plan.latest.result_line === req.line ? `; it approves the plan the agent put to the user at line ${plan.latest.line} (under Plan)` : '';
    return { text: `Continue ${whose}, which the agent ${how}${reqText}${approves}${listSince(current, req.line, changed)}${goAhead(l, req)}${answeredSince(l, req)}${ask}${askedBefore(l, req)}${lastCallOpen(l, end, st.harness === 'claude')}${lastWriteFailed(l, end)}${failedSince(open, req.line)}${announced}${sinceLastMessage(l, req, end)}${compacted}${staleClause(l)}`, rule: 'unfinished_request', label: 'inferred', line: req.line, ...(compacted === '' ? {} : { quotesCompaction: true as const }) };
  }
  const fail = open[open.length - 1];
  if (fail !== undefined) {
    // A call a permission rule denied is not the agent's to fix: the user must allow it.
    // A denial's key is `<tool>:<command>` (the command empty for a call that is not a shell's).
    const deniedKey = new Map(l.failures.filter((f) => f.kind === 'denied').map((f) => [f.line, f.keys[0] ?? '']));
    const denied = open.filter((f) => deniedKey.has(f.line));
    if (deniedKey.has(fail.line) && denied.length > 1) {
      // Several calls denied: the one denied last is not the one that matters most; each is named.
      // A command names itself; another call (WebSearch, Read) is named by its denial's reason.
      const what = (f: { line: number; text: string }): string => {
        const key = deniedKey.get(f.line) ?? '';
        const command = key.slice(key.indexOf(':') + 1);
        return command.length > 0 ? `\`${clip(command, 100)}\`` : clip(f.text.replace(/\.\s*$/, ''), 110);
      };
      const shown = denied.slice(-8).map((f) => `line ${f.line}: ${what(f)}`).join('; ');
      const more = denied.length > 8 ? `, and ${denied.length - 8} earlier` : '';
      // A call outside the folders the session may use is refused by no rule: the user adds the folder.
      const outside = denied.filter((f) => OUTSIDE_FOLDERS.test(f.text)).map((f) => f.line);
      const folders = outside.length === 0 ? '' : `; ${outside.length === 1 ? `line ${outside[0]} was` : `lines ${outside.join(', ')} were`} refused as outside the folders the session may use, which the user widens (\`--add-dir\`, \`/add-dir\`)`;
      const by = outside.length === 0 ? 'permission rules denied' : 'the harness refused';
      return { text: deniedAction(`the ${denied.length} calls ${by}`, `${shown}${more}${folders}`, answeredAfter(l, end, fail.line), denied.length), rule: 'open_failure', label: 'verified', line: fail.line };
    }
    const refusal = OUTSIDE_FOLDERS.test(fail.text) ? 'the harness refused as outside the folders the session may use' : 'a permission rule denied';
    if (deniedKey.has(fail.line)) return { text: deniedAction(`the call ${refusal}`, `line ${fail.line}: ${clip(fail.text, 300)}`, answeredAfter(l, end, fail.line), 1), rule: 'open_failure', label: 'verified', line: fail.line };
    return { text: `Fix the open failure first (line ${fail.line}): ${clip(fail.text, 300)}`, rule: 'open_failure', label: 'verified', line: fail.line };
  }
  const planFresh = l.lastPlanLine !== null && (l.lastRequestLine === null || l.lastPlanLine >= l.lastRequestLine);
  const step = current.in_progress[0] ?? current.not_started[0];
  if (planFresh && step !== undefined) {
    return { text: `Continue the plan step: ${clip(step, 300)}`, rule: 'plan_step', label: 'reported', line: l.lastPlanLine };
  }
  const unpushed = commits.filter((c) => c.pushed === false);
  if (unpushed.length > 0) {
    // Every commit counted is named, up to five; beyond, which five are named is said.
    const list = unpushed.slice(-5).map((c) => `${c.hash} ${quote(c.subject, 80)}`).join(', ');
    const which = unpushed.length > 5 ? '; the latest 5: ' : ': ';
    const line = unpushed[unpushed.length - 1]?.line ?? null;
    // With no remote seen, a push is not the step: where the commits go is the user's call.
    const noRemote = noRemoteSeen(l);
    if (noRemote !== null) return { text: `Ask the user what becomes of the ${unpushed.length} commit(s) the session made, which are not pushed${which}${list}; ${noRemote}`, rule: 'unpushed_commits', label: 'verified', line };
    return { text: `Push the ${unpushed.length} unpushed commit(s) once the user agrees${which}${list}${prOfBranch(l)}${planFilesLeft(plan)}`, rule: 'unpushed_commits', label: 'verified', line };
  }
  const said = l.lastAgentText;
  const stated = said === null ? null : statedNextStep(said.text);
  if (stated !== null && said !== null) return { text: `Do the next step the agent named: ${stated}`, rule: 'stated_next_step', label: 'reported', line: said.line };
  if (l.prHint !== null) return { text: `Open the pull request the last push offered: ${l.prHint.url}${movedAfterPush(l, l.prHint)}`, rule: 'open_pull_request', label: 'verified', line: l.prHint.line };
  const lastCommitLine = l.lastCommitLine ?? -1;
  const uncommitted = changed.filter((f) => f.line > lastCommitLine);
  if (uncommitted.length > 0) {
    const names = uncommitted.slice(-4).map((f) => f.path.split('/').pop() ?? f.path).join(', ');
    const list = `(${names}${uncommitted.length > 4 ? ', …' : ''})`;
    // With no git run by the session and no repository to read now, nothing says they are not committed.
    const what = l.gitRan === undefined && !repoRead ? `check \`git status\`: the session ran no git command, so whether its ${uncommitted.length} changed file(s) ${list} are committed is not recorded; commit them if not, once the user agrees` : `commit the ${uncommitted.length} uncommitted file change(s) ${list} once the user agrees`;
    // Checks check code: a README edited after them does not make them stale (coderabbit's last write was its README).
    const lastWrite = uncommitted[uncommitted.length - 1]?.line ?? 0;
    const lastCode = l.lastChangeLine !== null && l.lastChangeLine < lastWrite && uncommitted.some((f) => f.line <= l.lastChangeLine!) ? l.lastChangeLine : lastWrite;
    const checked = checksAfterWrite(l, lastCode, lastCode < lastWrite);
    const verify = checked.passed === null ? `Verify the change${checked.note}, then ${what}` : `${checked.passed[0]?.toUpperCase() ?? ''}${checked.passed.slice(1)}; ${what}`;
    return { text: `The last request${reqText} is answered. ${verify}${dirtyBeforeSaid(uncommitted)}${othersInTree(l, changed)}${prOfBranch(l)}`, rule: 'uncommitted_changes', label: 'inferred', line: uncommitted[uncommitted.length - 1]?.line ?? null };
  }
  const reply = l.lastAgentText;
  if (req !== null && (hidden || (reply !== null && reply.line > req.line && publisherRedacted(reply.text)))) {
    const which = hidden && reply !== null && publisherRedacted(reply.text) ? 'the request and the reply are' : hidden ? 'the request is' : "the agent's reply is";
    return { text: `unknown — the last request (line ${req.line}) was answered (${answeredAt(l, end, req.line)}), but ${which} unreadable (the transcript's publisher redacted ${which.includes(' and ') ? 'them' : 'it'}): whether anything is left pending is not known; ask the user what comes next`, rule: 'unknown', label: 'unknown', line: end.line };
  }
  if (req !== null) return { text: `Nothing is pending: the last request${reqText} was answered (${answeredAt(l, end, req.line)}).${longAnswer(st, req.line)} Wait for the user's next request.${recapSays(l, req)}`, rule: 'nothing_pending', label: 'inferred', line: end.line };
  // An API error or an interruption is no failure of the work's: said as what the transcript ends on, not denied.
  const incident = st.failures.findLast((f) => f.kind !== 'tool_error');
  const none = incident === undefined ? 'no plan, no failure and no commit' : 'no plan and no commit';
  const after = incident === undefined ? '' : `; it holds ${incident.kind === 'api_error' ? 'an API error' : 'an interruption'} (line ${incident.seq + 1}: ${quote(incident.text, 160)}), which says nothing of the work it stopped`;
  return { text: `unknown — the transcript holds no user request, ${none} to go on${after}; confirm the next step with the user`, rule: 'unknown', label: 'unknown', line: null };
}

function targetRows(checks: readonly CheckRun[], failures: readonly FailureEntry[]): CheckTargetRow[] {
  // Where each failed check was fixed, by the failure's line: looked up once per failed run.
  const fixedAt = new Map<number, number | null>();
  for (const f of failures) if (f.kind === 'check' && !fixedAt.has(f.line)) fixedAt.set(f.line, f.closedLine ?? null);
  const by = new Map<string, CheckTargetRow>();
  for (const c of checks) {
    const target = c.keys.join(' + ') || c.command;
    const failed = c.outcome === 'fail' ? 1 : 0;
    const fixed = failed === 1 ? (fixedAt.get(c.line) ?? null) : null;
    const row = by.get(target);
    if (row === undefined) {
      const first: CheckTargetRow = { line: c.line, command: c.command, outcome: c.outcome, summary: c.summary, exit_code: c.exitCode ?? null, target, runs: 1, failed, fixed_line: fixed };
      if (c.by !== undefined) first.by = c.by;
      if (c.outcome === 'unknown') first.undecided = 1;
      by.set(target, first);
      continue;
    }
    // The row shows the target's latest run; its counts cover them all.
    if (c.by !== undefined) row.by = c.by;
    else delete row.by;
    row.line = c.line;
    row.command = c.command;
    row.outcome = c.outcome;
    row.summary = c.summary;
    row.exit_code = c.exitCode ?? null;
    row.runs += 1;
    row.failed += failed;
    row.fixed_line = fixed;
    if (c.outcome === 'unknown') row.undecided = (row.undecided ?? 0) + 1;
  }
  // A failed chain whose output shows a later check starting proves the checks before it passed:
  // each is its own target's latest run there (`npm run build` in `npm run lint && npm run build && npm audit`).
  for (const c of checks) {
    for (const { key, command } of c.passed ?? []) {
      const row = by.get(key);
      if (row !== undefined && row.line >= c.line) continue;
      const summary = `passed within \`${clip(c.command, 120)}\`: a later check of that \`&&\` chain started`;
      if (row === undefined) by.set(key, { line: c.line, command, outcome: 'pass', summary, exit_code: null, target: key, runs: 1, failed: 0, fixed_line: null });
      else {
        delete row.by;
        row.line = c.line;
        row.command = command;
        row.outcome = 'pass';
        row.summary = summary;
        row.exit_code = null;
        row.runs += 1;
        row.fixed_line = null;
      }
    }
  }
  // Latest first: what a successor must believe now.
  return [...by.values()].sort((a, b) => b.line - a.line);
}

const base = fileName;

/**
 * What the session did between a failure and the run that fixed it: its writes and commands, all
 * of them when three or fewer; else the first (what answered the failure first), how many more,
 * and the last two (what came right before the fix).
 */
export function between(l: Ledger, from: number, to: number, keys: readonly string[] = []): string[] {
  return betweenIn(Object.values(l.calls), from, to, keys);
}

function betweenIn(all: readonly Ledger['calls'][string][], from: number, to: number, keys: readonly string[]): string[] {
  const out: string[] = [];
  // The failed command's own re-run is the fix's proof, not something done in between.
  const calls = all.filter((c) => c.line > from && c.line < to && c.question === undefined && !(c.command !== undefined && keys.includes(commandKey(c.command)))).sort((a, b) => a.line - b.line);
  for (const c of calls) {
    if (c.writes && c.writes.length > 0) out.push(`${c.writes[0]?.how ?? 'write'} ${base(c.writes[0]?.path ?? '')} (line ${c.line})`);
    else if (c.command !== undefined && c.targets === undefined) out.push(`\`${clip(c.command.split('\n')[0] ?? '', 80)}\` (line ${c.line})`);
  }
  return out.length <= 3 ? out : [out[0] as string, `… ${out.length - 3} more …`, ...out.slice(-2)];
}

/**
 * The failures later runs fixed (the last ten), each with that run's command when it is not the
 * failed one as written:
 * `COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version` after `pnpm --version` is the same target,
 * and the variable is how it was got around.
 */
/**
 * The subagents the session started whose own calls are not in this transcript (a subagent's
 * writes a parent's transcript holds inline, as side-chain turns, are the session's listed
 * writes): what they wrote or committed is in their reports and their own transcripts.
 */
/** The subagents whose own calls are not in the transcript, and what the session's git showed after them. */
export interface SubagentsApart {
  count: number;
  first: number;
  reports: number[];
  /** What the reports say they changed, in their words (`Brief added to \`…/ROADMAP.md\``), by the report's line. */
  said?: { line: number; text: string }[];
  commits?: { hash: string; line: number }[];
  /**
   * A `git log` the session ran after every report came back: `all`, of every branch (`--all`);
   * else of the branch checked out, whose first commit is `head`. What they had committed by then
   * is in it (worktrees at 122: `git log --all` after the three reports listed only the commits
   * they named).
   */
  logged?: { line: number; all: boolean; head?: string; subject?: string };
}

function subagentsApart(st: SessionState): { subagents?: SubagentsApart } {
  // Those whose report says they changed or committed something, and those not back yet; a report
  // of research or a review alone (happy-cli's web search) is no unseen writer.
  const subs = st.subagents.filter((x) => x.readOnly !== true && (x.result_seq === undefined || x.wrote === true));
  if (subs.length === 0 || Object.values(st.ledger.changed).some((c) => c.subagent === true)) return {};
  const reports = subs.flatMap((x) => (x.result_seq === undefined ? [] : [x.result_seq + 1])).sort((x, y) => x - y);
  const commits = subs.flatMap((x) => (x.result_seq === undefined ? [] : (x.commits ?? []).map((hash) => ({ hash, line: (x.result_seq as number) + 1 }))));
  const said = subs.flatMap((x) => (x.result_seq === undefined || x.saidWrote === undefined ? [] : [{ line: x.result_seq + 1, text: x.saidWrote }])).slice(0, 3);
  const out: SubagentsApart = { count: subs.length, first: Math.min(...subs.map((x) => x.line ?? x.seq + 1)), reports, ...(said.length === 0 ? {} : { said }), ...(commits.length === 0 ? {} : { commits }) };
  // Only when every one came back: one still at work may commit after any log.
  const last = reports.at(-1);
  if (last !== undefined && reports.length === subs.length) {
    const { logAll, logTop } = st.ledger;
    if (logAll !== undefined && logAll.line > last) out.logged = { line: logAll.line, all: true };
    else if (logTop !== undefined && logTop.line > last) out.logged = { line: logTop.line, all: false, head: logTop.hash, subject: logTop.subject };
  }
  return { subagents: out };
}

/** A command that compiles the code before it runs the program (`cargo run`, `go run`, `dotnet run`): a build, though no check. */
const COMPILES_TO_RUN = /(?:^|[\s;&|(])(?:cargo\s+(?:\+\S+\s+)?run|go\s+run|dotnet\s+run|swift\s+run|zig\s+build\s+run)\b/;

/** The first call after line `after` that compiled the code to run it, among the calls the ledger keeps. */
function compiledToRun(l: Ledger, after: number): { command: string; line: number; failedBefore: number[] } | undefined {
  // One that failed is passed over for one that did not (edgerunner at 394: "Operation not
  // permitted", and the server that ran was the one started at 402).
  const failedAt = new Set(l.failures.filter((f) => f.kind === 'command').map((f) => f.line));
  // A run left running as a job (Codex's code mode) that ended on an error.
  const jobFailed = new Set(Object.values(l.jobs ?? {}).filter(endedOnError).map((j) => j.line));
  let first: { command: string; line: number; failed: boolean } | undefined;
  const failedRuns: number[] = [];
  for (const c of Object.values(l.calls)) {
    if (c.line <= after || c.command === undefined || !COMPILES_TO_RUN.test(c.command)) continue;
    const failed = (c.resulted !== undefined && failedAt.has(c.resulted)) || jobFailed.has(c.line);
    if (failed) failedRuns.push(c.line);
    if (first === undefined || (first.failed && !failed) || (first.failed === failed && c.line < first.line)) first = { command: c.command, line: c.line, failed };
  }
  if (first === undefined) return undefined;
  // The failed runs passed over that came before the one named, which compiled the code too
  // (edgerunner at 460: "no build but … (line 402)" while the run at 394 built it and then failed).
  const line = first.line;
  return { command: first.command, line, failedBefore: failedRuns.filter((n) => n < line).sort((a, b) => a - b) };
}

/** The runs before the one named that ended on an error: they compiled the code too. */
function earlierRuns(lines: readonly number[]): string {
  if (lines.length === 0) return '';
  const last = lines[lines.length - 1] as number;
  return lines.length === 1 ? `; a run before it, at line ${last}, ended on an error` : `; ${lines.length} runs before it ended on an error, the last at line ${last}`;
}

/** A script a command names: a path with a source file's extension, as a word of its own. */
const SCRIPT_ARG = /(?:^|[\s'"=])((?:[\w.-]+\/)*[\w.-]+\.(?:py|js|mjs|cjs|ts|mts|tsx|rb|sh|pl|php|lua|R))(?=$|[\s'";|&)])/g;

/**
 * The files the session wrote after a job started, which a server or a script started before them
 * does not run (edgerunner at 560: the server of 402 ran on past the edits of 556). Docs and ignore
 * lists are no code; a job that runs a script it names (`python -u src/fetch.py`) runs that script,
 * and only a write of it counts (posthog at 420: `analyze.py` and `app.py` were written while the
 * fetcher ran on).
 */
function writtenSinceStart(l: Ledger, j: Job): { files: number; path: string; line: number } | null {
  const scripts = [...j.command.matchAll(SCRIPT_ARG)].map((m) => fileName(m[1] as string));
  const since = changesBetween(l, j.line, Number.POSITIVE_INFINITY, (p) => isDocumentation(p) || (scripts.length > 0 && !scripts.includes(fileName(p))));
  return since === null ? null : { files: since.files, path: since.path, line: since.line };
}

/**
 * The last shell output, when the transcript ends mid-work on results the agent has not answered:
 * no message of the agent's or the user's came after it (a tool loaded after it, as at worktrees
 * 130, does not hide it).
 */
function lastOutput(l: Ledger, end: End): Analysis['lastOutput'] {
  const o = l.lastShell;
  if (o === undefined || end.kind !== 'mid-work' || l.last?.event !== 'tool_result' || publisherRedacted(o.text)) return null;
  if ((l.lastAgentText !== null && l.lastAgentText.line > o.line) || (l.lastRequestLine !== null && l.lastRequestLine > o.line)) return null;
  return o;
}

function fixedFailures(l: Ledger): Analysis['fixedFailures'] {
  const fixed = l.failures.filter((f) => f.closedLine !== undefined && f.kind !== 'denied').slice(-10);
  if (fixed.length === 0) return [];
  // The commands by the line of their result, for the calls still remembered.
  const calls = Object.values(l.calls);
  const byResult = new Map<number, string>();
  for (const c of calls) if (c.command !== undefined && c.resulted !== undefined) byResult.set(c.resulted, c.command);
  return fixed.map((f) => {
    const closed = f.closedLine as number;
    const out: Analysis['fixedFailures'][number] = { line: f.line, text: f.text, fixed_line: closed, rerun: f.formatted === closed ? 'formatted' : f.found === closed ? 'read' : f.kind === 'check' && !f.keys.every((k) => k.startsWith('run ')) ? 'passed' : 'ran_clean', how: betweenIn(calls, f.line, closed, f.keys) };
    const failedWith = byResult.get(f.line);
    const fixedWith = byResult.get(closed);
    if (failedWith !== undefined && fixedWith !== undefined && fixedWith.trim() !== failedWith.trim()) out.fixed_by = clip(fixedWith.replace(/\s+/g, ' ').trim(), 160);
    return out;
  });
}

/** Words of a user who says something does not work: not loading, no data, still failing, an error seen. */
const REPORTS_PROBLEM =
  /\b(?:(?:does|do|did|is|are|was|were)(?:n'?t|\s+not)\s+(?:work|load|show|render|display|appear|update|fetch|return|save|run|start|compile|build|change)\w*|won'?t (?:work|load|show|render|start|run|build|compile|open)|not (?:working|loading|showing|rendering|displaying|updating|fetching|saving|running)|no \w+(?: or \w+)? (?:is|are) (?:loading|showing|displayed|shown|appearing)|no (?:data|results?|output|network request)(?![-\w])|(?:still|keeps?) (?:fail\w*|broken|crash\w*|empty|blank|show\w*|display\w*|return\w*|get\w*|seeing)|is (?:broken|empty|blank)|(?:it|app|page|server) crash(?:es|ed)\b|same (?:error|problem|issue)|(?:throws|getting|got|see|seeing) (?:an? )?(?:error|exception)|nothing (?:happens|shows|loads|renders|appears))|^\s*(?:Traceback \(most recent call last\)|Uncaught \w+|\w*Error: )/i;
/** A message that says it works now, or asks for behaviour in those words ("make sure it doesn't load all rows"). */
const NOT_A_PROBLEM = /\b(?:works? now|working now|(?:is|it's|that) fixed|fixed now|no (?:more )?errors? (?:any ?more|now)|(?:don'?t|do not) see (?:an|any) errors? (?:any ?more|now))\b/i;
const ASKS_FOR_IT = /\b(?:make sure|ensure|so that|so it|should|must|needs? to|want it to|that says|add an?|show an?|display an?)\b[^.?!\n]{0,40}$/i;

/** A user's word that what they tried works: "It's loading the data now", "works now", "that fixed it". */
const SAYS_IT_WORKS = /^(?:(?:ok(?:ay)?|great|nice|perfect|cool|good|yes|thanks|thank you|awesome)[,!. ]+)?(?:(?:it|that|this|everything|all)(?:'s| is)? (?:still )?(?:works?|working|fixed)\b(?! (?:before|earlier|yesterday|only|partly|sometimes|locally))|(?:it|that|this)(?:'s| is) loading (?:the \w+ )?now|(?:it |this |that )?works now|fixed now|that (?:fixed|did) it)/i;
/** A sentence that asks, supposes or orders, not one that says what the user saw. */
const NOT_SEEN = /\?|\b(?:if|when|whether|once|until|make sure|ensure|check|verify|test|can you|could you|please|should|must)\b/i;

/** The sentence of a message in which the user says it works, or null. */
function saysItWorks(text: string): string | null {
  for (const sentence of text.slice(0, 1000).split(/(?<=[.!?\n])\s*/)) {
    const t = sentence.trim();
    if (t.length > 0 && SAYS_IT_WORKS.test(t) && !NOT_SEEN.test(t)) return t;
  }
  return null;
}

/**
 * The user's latest word that it works, when the session changed files after it: what the user saw
 * is not the code now (agentcmd at 769: «It's loading the data now.» at 651, then six files of that
 * loading code changed, and a commit and a pull request asked for). Null when a later message
 * reports a problem (userProblem says it), or nothing changed since.
 */
function confirmedBefore(l: Ledger, changed: readonly FileChange[]): Finding | null {
  const asks = l.requests.filter((q) => q.kind === 'request');
  for (let i = asks.length - 1; i >= 0; i -= 1) {
    const q = asks[i] as RequestRecord;
    const said = saysItWorks(q.text);
    // Said beside a problem ("The list works now. The stats panel still shows zeros."): no word that it works.
    if (reportsProblem(said === null ? q.text : q.text.replace(said, ' '))) return null;
    if (said === null) continue;
    const after = changed.filter((f) => f.line > q.line && !isDocumentation(f.path));
    if (after.length === 0) return null;
    const last = Math.max(...after.map((f) => f.line));
    return { text: `The user said it worked at line ${q.line} (${quote(said, 160)}); the session changed ${after.length} file(s) after that (the latest at line ${last}), which the user has not tried`, label: 'reported', seq: q.line - 1 };
  }
  return null;
}

/** Whether a message reports a problem: its words say so, not as a wish, and not that it works now. */
function reportsProblem(text: string): boolean {
  // A brief's prohibitions ("- do NOT start dev server", "Please don't change the API") report
  // nothing: a "do not" that begins a line, a sentence or a list item, or follows "please", is an
  // order (rave-era at 539: three briefs read as "the user says it does not work"); one after "but"
  // or a colon reports ("The cards render but don't update").
  const t = text.slice(0, 1000).replace(/(["'`])[^"'`\n]{0,80}\1/g, ' ').replace(/(^|\n|[.!?]\s|^[ \t]*[-*•]\s|\n[ \t]*[-*•]\s|\bplease\s)\s*(?:do\s+not|don'?t|never)\s+\w+/gi, '$1 ');
  if (NOT_A_PROBLEM.test(t)) return false;
  const m = REPORTS_PROBLEM.exec(t);
  if (m !== null) return !ASKS_FOR_IT.test(t.slice(Math.max(0, m.index - 60), m.index));
  return saysLost(t);
}

/**
 * "We lost the session navigation", "you broke the login page", "the sidebar has disappeared",
 * "the export no longer works" (37f83ec9 at 294): said of the work as it is now, in a sentence
 * that is not a question, a condition, a quote of the past that was fixed, a changelog's line or a
 * request for a test (the skeptic's "Have we lost any orders?", "If you broke the API, revert",
 * "Fixed: the button disappeared", "you broke the record", "a test for the bug where … disappeared").
 */
const LOST = /\b(?:(?:we|you|it|i)(?:'ve| have)?\s+(?:somehow\s+|just\s+)?(?:lost|broke)\s+(?:the|my|our|all|its|this|that)\s+(?!record\b)\w+|(?:has|have|is|are|just)\s+(?:now\s+)?disappeared\b|\bdisappeared\s+(?:after|since|again|from)\b|\bno longer (?:works?|shows?|loads?|renders?|appears?)\b)/i;
const NOT_LOST = /\?|\b(?:if|whether|when|where|would|could|might|bug|test|fixed|fix(?:es)? for|nothing to fix|changelog|record|you lost!|make sure|ensure|should|must|so that|wrote|said|says)\b|^\s*(?:[-*]\s*)?(?:fixed|added|changed|removed)\s*:|^\s*>/i;

function saysLost(text: string): boolean {
  // A quoted message (`> …`, "A customer wrote: …") is someone else's word, and "nothing to fix" after it says so.
  if (/\bnothing to fix\b/i.test(text)) return false;
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    if (LOST.test(sentence) && !NOT_LOST.test(sentence)) return true;
  }
  return false;
}

/**
 * The user's last message, when it reports a problem: a resuming agent must take it for an open
 * failure, which no run of the session's recorded (the readers of agentcmd at 631 found "No open
 * failure" beside it). Only the last: an older report a later request moved on from is history.
 */
function userProblem(l: Ledger): Analysis['userProblem'] {
  const asks = l.requests.filter((q) => q.kind === 'request');
  const last = asks.at(-1);
  if (last === undefined || !reportsProblem(last.text)) return null;
  // The reports before it in a row (554 and 625: the same problem, said twice).
  const earlier: number[] = [];
  for (let i = asks.length - 2; i >= 0 && earlier.length < 5; i -= 1) {
    const q = asks[i] as (typeof asks)[number];
    if (!reportsProblem(q.text)) break;
    earlier.unshift(q.line);
  }
  return { line: last.line, text: clip(last.text, 300), earlier };
}

function staleOutput(l: Ledger): Analysis['staleOutput'] {
  const s = l.staleOutput;
  return s === undefined ? null : { line: s.line, command: s.command, path: s.path, edit_line: s.editLine, count: s.count, first: s.first };
}

/**
 * A check that failed since the request, with files written after it and not run again: the work
 * the request led to is waiting on that run (the `37f83ec9` sample at 250: the request at 194 was
 * done at 197, the tests failed at 227, a fix was written at 245). The latest such failure.
 */
function failedSince(open: Analysis['openFailures'], reqLine: number): string {
  const f = [...open].reverse().find((x) => x.line > reqLine && x.changedSince !== undefined);
  const c = f?.changedSince;
  if (f === undefined || c === undefined) return '';
  const written = c.files === 1 ? `\`${fileName(c.path)}\` was written after it (line ${c.line})` : `${c.files} files were written after it (the latest, \`${fileName(c.path)}\`, at line ${c.line})`;
  const later = c.later === undefined ? '' : ` (a check of the same tool since, \`${clip(c.later.command, 80)}\`, line ${c.later.line}: ${outcomeWord(c.later.outcome, c.later.outcome)})`;
  return `. Since the request, \`${clip(c.command, 100)}\` failed (line ${f.line}) and ${written}; it has not run again${later}: whether that fixes it is not known until it does`;
}

/** The clause a Next Action adds when the latest run ran code older than an edit (staleOutput). */
function staleClause(l: Ledger): string {
  const s = l.staleOutput;
  if (s === undefined) return '';
  return `. Before testing again: the run at line ${s.line} (\`${clip(s.command, 100)}\`) still printed ${s.count} texts the edit at line ${s.editLine} took out of \`${fileName(s.path)}\` (the first: ${quote(s.first, 120)}), so what it ran does not hold that edit: renew it (reinstall, rebuild or restart), or find the copy it runs, first`;
}

/** Failed commands the agent answered afterwards, never re-run clean (the last 5); not those still open (its last message says they failed). */
function passedOver(l: Ledger, open: readonly { line: number }[]): { line: number; text: string }[] {
  const said = l.lastAgentText?.line ?? 0;
  return l.failures.filter((f) => f.kind === 'command' && f.closedLine === undefined && f.line < said && !open.some((o) => o.line === f.line)).slice(-5).map((f) => ({ line: f.line, text: f.text }));
}

/** Words a file's name shares with any text: they name no step. */
const NAME_NOISE = new Set(['use', 'index', 'page', 'route', 'main', 'lib', 'mod', 'app', 'src', 'test', 'tests', 'spec', 'util', 'utils', 'types', 'type', 'with', 'for', 'and', 'the', 'get', 'set', 'new', 'old', 'file', 'config', 'init', 'readme']);

/** The words of a name or a text: camelCase, snake_case and kebab-case split, lower case, a plural's `s` dropped. */
function nameWords(text: string): string[] {
  return splitName(text)
    .filter((w) => w.length >= 3)
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/**
 * The files written after `after` whose names a list item's words spell out whole (agentcmd at 355:
 * "Refactor front-end TeamSheet …" still Not Started while `TeamSheet.tsx` was written at 313;
 * "Improve team update mutations …" while `useUpdateTeam.ts` was): a name of one generic word
 * (`page.tsx`, `index.ts`) names nothing. The latest first, at most three.
 */
export function writtenNamedBy(text: string, files: readonly FileChange[], after: number): FileChange[] {
  const said = new Set(nameWords(text));
  const out: FileChange[] = [];
  for (const f of files) {
    if (f.line <= after) continue;
    const words = nameWords(fileName(f.path).replace(/\.[^.]+$/, '')).filter((w) => !NAME_NOISE.has(w));
    if (words.length > 0 && words.every((w) => said.has(w))) out.push(f);
  }
  return out.sort((x, y) => y.line - x.line).slice(0, 3);
}

/** The words a list item uses for a kind of check, and the tools that name theirs. */
const CHECK_WORDS: Record<string, RegExp> = {
  test: /\b(?:tests?|testing|pytest|jest|vitest|specs?)\b/i,
  lint: /\b(?:lint|linting|linter|clippy|eslint|ruff|flake8)\b/i,
  format: /\b(?:format|formatting|formatter|fmt|prettier|black)\b/i,
  build: /\b(?:build|builds|compile|compiles)\b/i,
  typecheck: /\b(?:typecheck|type-check|type check|types? checks?|tsc|mypy|pyright)\b/i,
};

/** The agent's check runs with the kinds of check each runs: read once for all the items of a list (checksNamedBy). */
export function checkKinds(checks: readonly CheckRow[]): { row: CheckRow; kinds: string[] }[] {
  return checks.filter((c) => c.by !== 'hook').map((row) => ({ row, kinds: checkTargets(row.command).map((t) => t.kind) }));
}

/**
 * The checks run after `after` of the kinds a list item names (edgerunner at 702: "Run backend
 * formatting, clippy, tests, replay, benchmark …" still Not Started while clippy and the tests had
 * passed at 702): the latest run of each kind, the latest first. `runs` is asked for only when the
 * item names a kind of check.
 */
export function checksNamedBy(text: string, runs: () => readonly { row: CheckRow; kinds: readonly string[] }[], after: number): CheckRow[] {
  const kinds = Object.entries(CHECK_WORDS).filter(([, re]) => re.test(text)).map(([k]) => k);
  if (kinds.length === 0) return [];
  const out = new Map<string, CheckRow>();
  for (const { row, kinds: ran } of runs()) {
    if (row.line <= after) continue;
    for (const k of ran) {
      if (!kinds.includes(k)) continue;
      const was = out.get(k);
      if (was === undefined || row.line > was.line) out.set(k, row);
    }
  }
  return [...new Set(out.values())].sort((x, y) => y.line - x.line).slice(0, 3);
}

/** An open failure, and of a failed check the files written after it while its command did not run again. */
function withChangesSince(l: Ledger, f: FailureEntry): Analysis['openFailures'][number] {
  const out: Analysis['openFailures'][number] = { line: f.line, text: f.text };
  if (f.kind !== 'check') return out;
  const run = l.checks.find((c) => c.line === f.line && c.outcome === 'fail');
  if (run === undefined || l.checks.some((c) => c.line > f.line && c.command === run.command)) return out;
  // Run again in the background (a job of the same command started after it) is run again.
  if (Object.values(l.jobs ?? {}).some((j) => j.line > f.line && j.command.trim() === run.command.trim())) return out;
  const since = changesBetween(l, f.line, Number.POSITIVE_INFINITY, isDocumentation);
  if (since === null) return out;
  out.changedSince = { files: since.files, path: since.path, line: since.line, command: run.command };
  if (since.deleted > 0) out.changedSince.deleted = since.deleted;
  // Another run of a check of the same target since (the failing test alone, say): what it said.
  const tool = (k: string): string => k.split(' ')[0] ?? k;
  const tools = new Set(run.keys.map(tool));
  const later = [...l.checks].reverse().find((c) => c.line > f.line && c.outcome !== 'unknown' && c.keys.some((k) => tools.has(tool(k))));
  if (later !== undefined) out.changedSince.later = { command: later.command, line: later.line, outcome: later.outcome };
  // The files its errors name that no write touched since: those errors stand (agentcmd at 665:
  // five files' type errors, four of the files edited after, `route.ts` not).
  const untouched = (f.errorFiles ?? []).filter((e) => {
    const key = e.replace(/\\/g, '/').replace(/^\.\//, '');
    return !Object.entries(l.changed).some(([path, c]) => c.line > f.line && (path.replace(/\\/g, '/') === key || path.replace(/\\/g, '/').endsWith(`/${key}`)));
  });
  if (untouched.length > 0 && untouched.length < (f.errorFiles ?? []).length) out.changedSince.untouched = untouched.map((e) => fileName(e)).slice(0, 5);
  return out;
}

/** `parent`: the session that started this one, when this transcript is a subagent's own. */
/** `parentTask`: a subagent's objective came from its parent's call (RenderInput.parentTask), so it is not unknown. */
export function analyze(st: SessionState, git: GitEvidence, pressure: Pressure, parent: string | null = null, parentTask = false): Analysis {
  const l = st.ledger;
  const current = currentState(st);
  const end = endOf(st, parent);
  const open = openFailures(l).map((f) => withChangesSince(l, f));
  const commits = l.commits.map((c) => {
    const out: Analysis['commits'][number] = { hash: c.hash, subject: c.subject, pushed: c.pushed, line: c.line, branch: c.branch };
    if (c.rebasedFrom !== undefined) out.rebased_from = c.rebasedFrom;
    if (c.pushLine !== undefined) out.push_line = c.pushLine;
    if (c.files !== undefined) out.files = c.files;
    if (c.hashLine !== undefined) out.hash_line = c.hashLine;
    if (c.hashByPush === true) out.hash_by_push = true;
    if (c.took !== undefined) out.took = c.took;
    return out;
  });
  const filesChanged: FileChange[] = Object.entries(l.changed).map(([path, f]) => {
    const fc: FileChange = { path, line: f.line, how: f.how };
    if (f.subagent) fc.subagent = true;
    if (f.what && f.what.length > 0) fc.what = f.what;
    if (f.writes !== undefined && f.writes > 1 && f.first !== undefined) {
      fc.first = f.first;
      fc.writes = f.writes;
    }
    if (f.how === 'delete' && f.made === true) fc.made = true;
    if (f.how !== 'delete' && f.existed !== undefined) fc.existed = f.existed;
    if (f.how === 'delete' && f.again !== undefined) fc.again = f.again;
    else if (f.how === 'delete' && f.named !== undefined) fc.named = f.named;
    if (f.tool === 'git') fc.merged = true;
    if (f.said !== undefined && f.how === 'write') fc.said = true;
    return fc;
  });
  markDirtyBefore(l, filesChanged);
  const plan = planView(st.plans, l.changed);
  const na = nextAction(st, end, current, open, commits, filesChanged, parent, git.status === 'ok', plan);

  const incidents: Analysis['incidents'] = [];
  const lastAgentSeq = st.lastAgent?.seq ?? -1;
  for (const f of st.failures) {
    // An interruption or API error the agent has not answered since: the session stands in it.
    if (f.kind === 'tool_error' || f.seq <= lastAgentSeq) continue;
    // An interruption (a call stopped, or turned down: "STOP … wait for the user to tell you how to
    // proceed") the user followed with a request: that request is how to proceed (agentcmd's plan
    // refused at line 22, then "completely outside the search bar" at 25); nothing waits on it.
    if (f.kind === 'interrupted' && l.requests.some((q) => q.line > f.seq + 1 && q.kind !== 'answer')) continue;
    // Claude Code's "[Request interrupted by user for tool use]" follows the stopped call's own
    // result: one act of the user's, listed once, by the call it stopped.
    const prev = incidents[incidents.length - 1];
    if (f.kind === 'interrupted' && prev?.kind === 'interrupted' && prev.id !== undefined && TOOL_USE_INTERRUPT.test(f.text)) continue;
    incidents.push({ ...f, label: 'verified' });
  }

  const openLoops: Finding[] = [];
  if (l.pendingQuestion) openLoops.push({ text: `Unanswered question to the user: ${l.pendingQuestion.text}`, label: 'verified', seq: l.pendingQuestion.line - 1 });
  for (const t of current.in_progress) openLoops.push({ text: `In progress: ${t}`, label: 'reported', seq: current.seq });
  for (const t of current.not_started) openLoops.push({ text: `Not started: ${t}`, label: 'reported', seq: current.seq });
  for (const f of open) openLoops.push({ text: `Open failure: ${f.text}`, label: 'verified', seq: f.line - 1 });
  for (const c of commits) if (c.pushed === false) openLoops.push({ text: `Unpushed commit ${c.hash} ${c.subject}`, label: 'verified', seq: c.line - 1 });

  const rows = targetRows(l.checks, l.failures);
  const checksNotRun: Finding[] = [];
  for (const c of st.commands) {
    if (c.result === 'unknown' && c.resultSeq === undefined && l.calls[c.id]?.targets !== undefined) {
      checksNotRun.push({ text: `\`${c.command.split('\n')[0]}\` was started but no result is recorded`, label: 'verified', seq: c.seq });
    }
  }
  const lastCheck = l.checks[l.checks.length - 1];
  const lastChange = lastCheck === undefined ? l.lastChangeLine : lastSeenChange(l, lastCheck.line);
  if (lastChange !== null && (lastCheck === undefined || lastCheck.line < lastChange)) {
    const run = compiledToRun(l, lastChange);
    // None at all is said so: "after the last file change" read as if checks had run before it (rave-era).
    const after = lastCheck === undefined ? `in this session (its last file change: line ${lastChange}${docsAfter(l, lastChange)})` : `after the last file change (line ${lastChange}${docsAfter(l, lastChange)})`;
    const text = run === undefined ? `No test, build, type check or lint ran ${after}` : `No test, type check or lint ran ${after}, and no build but \`${clip(run.command.replace(/\s+/g, ' '), 100)}\` (line ${run.line}${earlierRuns(run.failedBefore)}), which compiles the code to run the program: no check (whether it built and started is in its output)`;
    checksNotRun.push({ text, label: 'verified', seq: lastChange - 1 });
    // A check whose last run is older than the last check's, before files it checks changed: the
    // sentence above does not date it (edgerunner at 620: the tests last ran at 361, before the
    // whole backend pass from 551 on, while `cargo check` passed at 589).
    if (lastCheck !== undefined) {
      const olderThanItsFiles = rows
        .filter((t) => t.line < lastCheck.line && t.outcome !== 'unknown' && !checkedNothing(t))
        .map((t) => ({ t, ch: changesFor(l, t.command, t.line) }))
        .filter((x): x is { t: CheckTargetRow; ch: NonNullable<typeof x.ch> } => x.ch !== null && x.ch.files > 0)
        .filter(({ t }) => !ranAgain(l, t.line)(t.target))
        // The oldest first: the staler a run, the more it may have missed.
        .sort((x, y) => x.t.line - y.t.line)
        .slice(0, 5);
      for (const { t, ch } of olderThanItsFiles) {
        const which = `${ch.files === 1 ? '1 file' : `${ch.files} files`} since, the latest at line ${ch.latest.line}: ${fileName(ch.latest.path)}`;
        checksNotRun.push({ text: `${lastRan(t)}, before files it checks changed (${which})`, label: 'verified', seq: t.line - 1 });
      }
    }
  } else if (l.lastChangeLine !== null) {
    // Some checks ran after the last change; the others last ran on older code. A combined run
    // (`ruff check && pytest`) whose every check ran again since, alone or with others, is not stale.
    const changed = l.lastChangeLine;
    const rerun = ranAgain(l, changed);
    const stale = rows
      .map((t) => ({ t, at: changeFor(l, t.command, t.line) }))
      .filter(({ t, at }) => at !== null && t.line < at.line && t.outcome !== 'unknown' && !checkedNothing(t) && !rerun(t.target))
      .slice(0, 5);
    for (const { t, at } of stale) {
      const which = at === null || at.line === changed ? `the last file change (line ${changed}${docsAfter(l, changed)})` : `the last change of a file it checks (line ${at.line}: ${at.path.split('/').pop() ?? at.path})`;
      checksNotRun.push({ text: `${lastRan(t)}, before ${which}`, label: 'verified', seq: t.line - 1 });
    }
    const suite = suiteNotRun(l, changed);
    if (suite !== null) checksNotRun.push(suite);
    else {
      const staticOnly = onlyStaticAfter(l, changed, st.ledger.requests);
      if (staticOnly !== null) checksNotRun.push(staticOnly);
    }
  }
  const asked = askedChecksNotRun(st);
  if (asked !== null) checksNotRun.push(asked);
  const confirmed = confirmedBefore(l, filesChanged);
  if (confirmed !== null) checksNotRun.push(confirmed);
  const copy = installedBefore(l, st.meta.cwd);
  if (copy !== null) checksNotRun.push(copy);
  const installedStale = copy === null ? null : (l.copyInstalled?.line ?? null);
  // The write the transcript ends on, with no result: no check can have seen it (rave-era at 394:
  // "Checks Not Run: None" beside a build that passed before the request the patch was for).
  const pending = pendingWrites(l)[0];
  if (pending !== undefined && !isDocumentation(pending.path)) {
    checksNotRun.push({ text: `No test, build, type check or lint ran after the write the transcript ends on (line ${pending.line}): it has no result, so whether it applied is not known, and no check has seen it`, label: 'verified', seq: pending.line - 1 });
  }

  const unknowns: Finding[] = [];
  if (pressure.level === 'unknown') unknowns.push({ text: 'Context usage: the transcript carries no usage telemetry', label: 'unknown', seq: null });
  if (git.status !== 'ok') unknowns.push({ text: `Repository state: ${git.reason ?? git.status}`, label: 'unknown', seq: null });
  if (st.objective === null && st.objectiveOverride === null && !parentTask) unknowns.push({ text: 'Objective: the transcript holds no user request that could be read', label: 'unknown', seq: null });
  if (l.startsAfter !== undefined) unknowns.push({ text: `Earlier conversation: the first message (line ${l.startsAfter}) answers one this transcript does not hold; what came before it, and the first request, are not in it`, label: 'unknown', seq: l.startsAfter - 1 });
  for (const u of l.unnamedWrites ?? []) unknowns.push({ text: `Files changed: \`${u.command}\` (line ${u.line}) rewrote ${u.count} file(s) its output does not name`, label: 'unknown', seq: u.line - 1 });
  if (l.unreadableWrites > 0) unknowns.push({ text: `Files changed: ${l.unreadableWrites} apply_patch call(s) whose paths are unreadable (the transcript's publisher redacted their arguments)`, label: 'unknown', seq: null });
  const hidden = hiddenCommands(l);
  if (hidden !== '') unknowns.push({ text: `Checks and commands: ${hidden}`, label: 'unknown', seq: null });
  const plans = hiddenPlans(l);
  if (plans !== '') unknowns.push({ text: `Current state: ${plans}`, label: 'unknown', seq: (l.hiddenPlans?.first ?? 1) - 1 });
  const hiddenResults = l.hiddenResults === undefined ? '' : `${l.hiddenResults.count} tool result(s)${since(l)}, the first at line ${l.hiddenResults.first}`;
  if (l.hiddenResults !== undefined) unknowns.push({ text: `Failures: ${hiddenResults}, are unreadable (the transcript's publisher redacted them): a failure among them would not show`, label: 'unknown', seq: l.hiddenResults.first - 1 });
  // A run of the session's own program is not judged passed by any rule (only a crash fails it):
  // its output is the reader's to judge, which "nothing decides" would not say.
  const undecided = l.checks.filter((c) => c.outcome === 'unknown');
  const smoke = undecided.filter((c) => c.keys.length > 0 && c.keys.every((k) => k.startsWith('run '))).length;
  const unknownChecks = undecided.length - smoke;
  // A line too long to read is a turn this handoff does not hold: said, where it is, and how to read it.
  if (st.oversized > 0) {
    const at = st.oversizedAt;
    unknowns.push({ text: `${st.oversized} line(s) of the transcript longer than capture.max_line_bytes were skipped unread${at === undefined ? '' : ` (the latest: line ${at.line}, at byte ${at.offset}, ${at.bytes} bytes)`}: what they held is not in this handoff; to read them, raise capture.max_line_bytes (docs/CONFIG.md), move the session's folder aside and build the transcript again`, label: 'unknown', seq: at === undefined ? null : at.line - 1 });
  }
  if (unknownChecks > 0) unknowns.push({ text: `${unknownChecks} check run(s) whose outcome neither an exit code nor the output decides`, label: 'unknown', seq: null });
  for (const [path, sc] of Object.entries(l.scripts ?? {})) {
    if (sc.ran !== undefined || sc.runs === 0) continue;
    // A new program seen only printing its help or stopping for want of a prerequisite was never seen doing its work.
    const name = st.meta.cwd === undefined ? path : (relativeTo(path, st.meta.cwd) ?? path);
    const ways = [sc.help > 0 ? `${sc.help} printing its help` : '', sc.blocked === undefined ? '' : `${sc.runs - sc.help} stopping before its work (the latest, line ${sc.blocked.line}: «${clip(sc.blocked.text, 120)}»)`].filter((w) => w !== '');
    unknowns.push({ text: `The session's new program \`${name}\` (created at line ${sc.created}) ran ${sc.runs} time(s), never past its setup: ${ways.join(', ')}. What it does once set up was not seen in this session, whatever was said of it`, label: 'unknown', seq: (sc.blocked?.line ?? sc.created) - 1 });
  }
  if (smoke > 0) unknowns.push({ text: `${smoke} run(s) of the session's own program, which no rule judges passed (a crash fails one): whether each did what it should, its output at its line says`, label: 'unknown', seq: null });
  if (l.requestsTotal > l.requests.length) unknowns.push({ text: `Only the last ${l.requests.length} of ${l.requestsTotal} user requests are listed; the rest are in timeline.jsonl`, label: 'verified', seq: null });

  let objective: Analysis['objective'] = null;
  if (st.objectiveOverride !== null) objective = { text: st.objectiveOverride, seq: null, line: null, override: true };
  else if (st.objective) {
    objective = { text: st.objective.text, seq: st.objective.seq, line: st.objective.line ?? st.objective.seq + 1, override: false };
    if (st.objective.chars !== undefined) objective.chars = st.objective.chars;
    if (st.objective.head !== undefined && st.objective.tail !== undefined) {
      objective.head = st.objective.head;
      objective.tail = st.objective.tail;
    }
  }

  let stateNow: Analysis['stateNow'] = null;
  const mirror = trailingMirror(st);
  if (mirror !== null) stateNow = { ...mirror, who: 'agent' };
  else if (st.lastAgent) stateNow = st.commentaryLine === st.lastAgent.seq + 1 ? { ...st.lastAgent, who: 'agent', commentary: true } : { ...st.lastAgent, who: 'agent' };
  else if (st.lastUser) stateNow = { text: st.lastUser.text, seq: st.lastUser.seq, who: 'user' };

  return {
    objective,
    requests: l.requests,
    rewinds: l.rewinds ?? [],
    ...(l.startsAfter === undefined ? {} : { startsAfter: l.startsAfter }),
    requestsTotal: l.requestsTotal,
    stateNow,
    afterStateNow: stateNow !== null && l.since !== undefined && l.since.line > stateNow.seq + 1 ? afterTheState(l, l.since, stateNow.seq + 1) : null,
    // A publisher's placeholder is no reasoning to quote (localpush's are all redacted).
    thoughtSince: stateNow?.who === 'agent' && st.lastThought !== undefined && st.lastThought.seq > stateNow.seq && !publisherRedacted(st.lastThought.text) ? { line: st.lastThought.seq + 1, text: st.lastThought.text } : null,
    compaction: compactionOf(st, na),
    withoutResult: withoutResult(st),
    lastOutput: lastOutput(l, end),
    pendingWrites: pendingWrites(l),
    unreadResults: st.commands.filter((c) => c.unread === true && c.resultSeq !== undefined).map((c) => ({ line: c.seq + 1, resultLine: (c.resultSeq as number) + 1 })),
    leftTurn: l.leftTurn ?? null,
    end,
    current,
    nextAction: na,
    contradictions: [...l.contradictions, ...untestedPlanSteps(l, current), ...stoppedSinceMarked(l, current), ...permissionDenied(st)],
    openLoops,
    filesChanged,
    filesChangedTotal: l.changedTotal,
    filesNotChanged: [...Object.entries(l.notChanged).map(([path, f]) => (f.maybe === true ? { path, line: f.line, reason: f.reason, maybe: true as const } : { path, line: f.line, reason: f.reason })), ...failedAfterWrite(l)].sort((x, y) => x.line - y.line),
    filesRedone: redone(l),
    writeFailuresDropped: l.writeFailuresDropped ?? 0,
    unreadableWrites: l.unreadableWrites,
    unreadableWritesAt: l.unreadableWritesAt ?? null,
    hiddenResults,
    hiddenCommands: hidden,
    hiddenPlans: plans,
    outsideCalls: outsideCalls(l),
    filesRead: l.reads ?? [],
    unseenWriters: { ...(l.hiddenCommands === undefined ? {} : { shell: l.hiddenCommands }), ...(l.unnamedTools === undefined ? {} : { unnamed: l.unnamedTools }), ...subagentsApart(st) },
    countsFrom: l.countsFrom ?? null,
    checks: l.checks.map((c) => ({ line: c.line, command: c.command, outcome: c.outcome, summary: c.summary, exit_code: c.exitCode ?? null, ...(c.by === undefined ? {} : { by: c.by }) })),
    checksTotal: l.checksTotal,
    checkTargets: rows,
    otherCommands: l.otherCommands,
    hookCommands: l.hookCommands ?? 0,
    patchCommands: l.patchCommands ?? 0,
    patchCommandsFailed: l.patchCommandsFailed ?? 0,
    gitRan: l.gitRan !== undefined,
    backgroundStarts: l.backgroundStarts,
    openFailures: open,
    fixedFailures: fixedFailures(l),
    passedOver: passedOver(l, open),
    staleOutput: staleOutput(l),
    installedStale,
    userProblem: userProblem(l),
    documents: l.docs ?? [],
    jobs: Object.values(l.jobs ?? {})
      .sort((a, b) => (a.status === 'running' ? 0 : 1) - (b.status === 'running' ? 0 : 1) || b.line - a.line)
      .map((j) => {
        const since = j.status === 'running' ? writtenSinceStart(l, j) : null;
        return since === null ? j : { ...j, writtenSince: since };
      }),
    agentMessages: (l.said ?? []).slice(-20).map((m) => ({ line: m.line, text: m.text })),
    incidents,
    plan,
    commits,
    failedCommit: l.failedCommit ?? null,
    // A push after it may have taken it: its line is said (the push names no hash it could be matched by).
    // The first push after it (a state from before `pushLine` was kept: the last).
    unnamedCommits: (l.unnamedCommits ?? []).map(({ pushLine, pushedTo: _to, pushedHead, ...c }) => {
      const at = pushLine ?? ((l.lastPushLine ?? 0) > c.line ? l.lastPushLine : undefined);
      return at === undefined ? c : { ...c, push_line: at, ...(pushedHead === true ? { pushed_head: true as const } : {}) };
    }),
    foreignHead: foreignHead(st),
    verification: st.commands,
    checksNotRun,
    unknowns,
  };
}

function planView(plans: readonly PlanRecord[] | undefined, changed: Ledger['changed']): Analysis['plan'] {
  const latest = plans?.at(-1);
  if (plans === undefined || latest === undefined) return null;
  const earlier = plans.slice(0, -1);
  const approvedBefore = latest.approved === true ? null : ([...earlier].reverse().find((p) => p.approved === true) ?? null);
  // Plans the user turned down since the last one approved before the latest: the latest is a redraft.
  const lastApproved = earlier.reduce((n, p, i) => (p.approved === true ? i : n), -1);
  const notApproved = earlier.slice(lastApproved + 1).filter((p) => p.approved === false);
  const approved = latest.approved === true ? latest : approvedBefore;
  // Written since the plan was put: a file written for an earlier task is not this plan's work done.
  const unwrittenOf = (p: PlanRecord): PlanUnwritten | null => {
    const files = p.files ?? [];
    const written = Object.keys(changed).filter((f) => (changed[f]?.line ?? 0) > p.line);
    const missing = notWritten(files, written);
    const maybe = notWritten(p.maybeFiles ?? [], written);
    return missing.length === 0 ? null : { line: p.line, named: files.length, files: missing, title: planTitle(p.text), ...(maybe.length === 0 ? {} : { conditional: maybe }) };
  };
  const unwritten = approved === null ? null : unwrittenOf(approved);
  const earlierUnwritten = plans
    .filter((p) => p.approved === true && approved !== null && p.line < approved.line && !plans.some((q) => q.line > p.line && q.text === p.text))
    .map(unwrittenOf)
    .filter((u): u is PlanUnwritten => u !== null)
    .slice(-EARLIER_PLANS);
  return { latest, approvedBefore, notApproved, unwritten, earlierUnwritten };
}

export interface PlanUnwritten {
  line: number;
  named: number;
  files: string[];
  /** The plan's first heading or line, 100 characters at most. */
  title: string;
  /** Files it names only if they exist, or as optional, also not written (not counted in `named`). */
  conditional?: string[];
}

/** How many plans approved before the latest approved one are looked at for files not written. */
const EARLIER_PLANS = 3;

function planTitle(text: string): string {
  const first = text.split('\n').find((l) => l.trim() !== '') ?? '';
  const t = first.replace(/^#+\s*/, '').replace(/^\*\*(.*)\*\*$/, '$1').trim();
  return t.length > 100 ? `${t.slice(0, 99)}…` : t;
}

/** Shell calls the transcript records no result for: readable commands, and calls whose command is redacted. */
/** The writes of the call the transcript ends on, which has no result (FundWise cut on its Write of docs/zerion-readiness.md). */
function pendingWrites(l: Ledger): Analysis['pendingWrites'] {
  if (l.last?.event !== 'tool_call') return [];
  const at = l.last.line;
  const call = Object.values(l.calls).find((c) => c.line === at && c.resulted === undefined);
  return (call?.writes ?? []).slice(0, 20).map((w) => ({ path: w.path, line: at }));
}

function withoutResult(st: SessionState): Analysis['withoutResult'] {
  const out: Analysis['withoutResult'] = st.commands.filter((c) => c.resultSeq === undefined).map((c) => ({ line: c.seq + 1, command: c.command }));
  // Calls of other tools since the agent's last message (deep-manifest at 63: a Glob at 60 whose
  // result never came, beside the `ruff` at 62 that was said): a subagent's call is followed apart.
  // Claude Code's only: it answers each call by its id, where Codex answers a `wait` for the script
  // it waits on, and records no result the ledger keeps for some of its own tools (`update_plan`).
  const l = st.ledger;
  const fence = st.harness === 'claude' ? (l.lastAgentText?.line ?? 0) : Number.POSITIVE_INFINITY;
  const hiddenAt = new Set(Object.values(l.hiddenOpen ?? {}));
  for (const c of Object.values(l.calls)) {
    // A shell call without its command is one whose command was redacted (hiddenOpen), said as such.
    // A question put to the user waits for an answer: said as a pending question, not as a call that may run.
    if (c.line <= fence || c.resulted !== undefined || c.command !== undefined || c.subagent === true || c.question !== undefined || SUBAGENT_TOOLS.has(c.name) || SHELL_TOOLS.has(c.name) || c.name === '' || hiddenAt.has(c.line)) continue;
    out.push({ line: c.line, command: c.read === undefined ? c.name : `${c.name} ${c.read}`, tool: true });
  }
  const hidden = Object.values(l.hiddenOpen ?? {});
  for (const line of hidden) out.push({ line, command: '', unreadable: true });
  return out.sort((a, b) => a.line - b.line);
}

/** Calls that start a subagent: followed as subagents (still running, or back), not as calls without a result. */
const SUBAGENT_TOOLS = new Set(['Task', 'Agent']);
/** Shell tools: their calls without a result are the commands above (or redacted ones, said so). */
const SHELL_TOOLS = new Set(['Bash', 'exec_command', 'shell', 'shell_command', 'local_shell', 'exec', 'container.exec', 'write_stdin']);

/** A request's words without the placeholders of its images (`[image: image/png, 278 KB omitted]`), when it has words. */
function withoutImages(text: string): string {
  const words = text.replace(IMAGE_PLACEHOLDERS, '').trim();
  return words.length > 0 ? words : text;
}

/** `mcp__<server>__<tool>` calls, the latest first (a server's name may hold `_`; its tool's is after the last `__`). */
function outsideCalls(l: Ledger): Analysis['outsideCalls'] {
  const out: Analysis['outsideCalls'] = [];
  for (const [name, c] of Object.entries(l.outside ?? {})) {
    const rest = name.slice('mcp__'.length);
    const cut = rest.lastIndexOf('__');
    out.push({ server: cut > 0 ? rest.slice(0, cut) : rest, tool: cut > 0 ? rest.slice(cut + 2) : rest, count: c.count, line: c.line, failed: c.failed });
  }
  return out.sort((a, b) => b.line - a.line);
}

/** Where a count begins when the state was begun by a version that did not keep it: the lines before it were read uncounted. */
/**
 * A checkout after the push that offered a pull request, to another branch: a successor that
 * checks or changes the work there works on the wrong branch (the session's last step was to
 * start the next piece of work).
 */
function movedAfterPush(l: Ledger, pr: { url: string; line: number }): string {
  const to = l.switchedTo;
  if (to === undefined || to.line <= pr.line) return '';
  const pushed = /\/pull\/new\/(.+)$/.exec(pr.url)?.[1];
  if (pushed !== undefined && (pushed === to.branch || pushed.replace(/%2F/gi, '/') === to.branch)) return '';
  return `. The session then moved to \`${clip(to.branch, 120)}\` (its git checkout or switch at line ${to.line}): the pull request is of the branch that push sent${pushed === undefined ? '' : `, \`${clip(pushed, 120)}\``}, and checks of its work run there — in a worktree of it (\`git worktree add\`), which leaves \`${clip(to.branch, 120)}\` and its files as they are`;
}

/**
 * The request before the last, when its turn got no final reply (a progress note at most) and was
 * not interrupted: the last message came while the agent was still on it, so the work it asked for
 * may be half done (localpush's 15-character last message followed a request whose turn's last
 * command had no result; the next action named only the last).
 */
function leftBefore(l: Ledger, req: RequestRecord, noResult: Analysis['withoutResult']): string {
  const rs = l.requests.filter((r) => r.kind === 'request' && r.line < req.line);
  const prev = rs[rs.length - 1];
  if (prev === undefined || prev.interruptedAt !== undefined || (prev.replied !== undefined && prev.repliedNote !== true)) return '';
  // A shell call of that turn with no result: the work stopped there, as far as the transcript shows.
  const open = noResult.filter((c) => c.line > prev.line && c.line < req.line).pop();
  const note = prev.replied === undefined ? 'no reply' : `no final reply (its last progress note: line ${prev.replied})`;
  const what = open === undefined ? '' : open.unreadable ? ', a command the transcript holds redacted' : `: \`${clip(open.command.replace(/\s+/g, ' '), 120)}\``;
  const stopped = open === undefined ? '' : `; its last command with no result is at line ${open.line}${what}`;
  // The harness began a new turn for it without recording the earlier one's end: that turn was left, not running.
  const left = l.leftTurn;
  if (left !== undefined && left.from <= prev.line && prev.line < left.at && left.at <= req.line) {
    return `. It came in a new turn (line ${left.at}), begun though the turn of the request before it (line ${prev.line}: ${quoteEnds(withoutImages(prev.text), 160)}) had recorded no end — ${note}, no completion, no abort: that turn was left (the app closed, reloaded or was interrupted between)${stopped}: that work may be half done — check what it changed before answering`;
  }
  return `. It came while the agent was still on the request before it (line ${prev.line}: ${quoteEnds(withoutImages(prev.text), 160)}), which got ${note}${stopped}: that work may be half done — check what it changed before answering`;
}

/**
 * A transcript that ends on a call with no result: which call, so that a successor sees what the
 * agent was doing (a file it was reading, a command it ran) before it repeats or drops it.
 */
function lastCallOpen(l: Ledger, end: End, claude: boolean): string {
  if (end.kind !== 'mid-work' || l.last?.event !== 'tool_call') return '';
  const at = l.last.line;
  const call = Object.values(l.calls).find((c) => c.line === at);
  // Its result written before it (FundWise at 229): not open.
  if (call === undefined || (call.resulted !== undefined && call.resulted < at)) return '';
  // Claude Code runs calls side by side and gives each a result with a verdict: the calls after the
  // last result and the last message that have none were all left open (a subagent's five Reads at
  // lines 16-20), not only the last. (A Codex result may carry no verdict, so there only the last.)
  if (claude) {
    const calls = Object.values(l.calls);
    const fence = Math.max(l.lastAgentText?.line ?? 0, ...calls.map((c) => c.resulted ?? 0));
    const open = calls.filter((c) => c.line > fence && c.resulted === undefined).sort((x, y) => x.line - y.line);
    if (open.length > 1) {
      const said = (c: (typeof open)[number]): string => {
        const w = c.command ?? c.read ?? c.fetches;
        return `${c.name || 'a tool'}${w === undefined ? '' : ` \`${clip(w.replace(/\s+/g, ' '), 80)}\``}`;
      };
      return `. Its last ${open.length} calls (lines ${open[0]?.line}-${at}: ${open.slice(0, 4).map(said).join(', ')}${open.length > 4 ? ', …' : ''}) have no result: whether they ran is not known`;
    }
  }
  const what = call.command ?? call.read ?? call.fetches;
  return `. Its last call (line ${at}: ${call.name || 'a tool'}${what === undefined ? '' : ` \`${clip(what.replace(/\s+/g, ' '), 200)}\``}) has no result: whether it ran is not known`;
}

/** A test's file: no installed copy of a project holds it, so its writes do not make one stale. */
const TEST_FILE = /(?:^|[\\/])(?:tests?|spec|__tests__)[\\/]|(?:^|[\\/])test_[^\\/]*\.py$|\.(?:test|spec)\.[cm]?[jt]sx?$/;

/**
 * The project installed from its folder as a copy, with files of it written since: the installed
 * command runs the code as it was at the install until it is built and installed again (coderabbit
 * at 122: `uv tool install .` at 66, then the script edited at 111 and 119, and a reader would have
 * run the installed `coderabbit-extract` to test the feature).
 */
function installedBefore(l: Ledger, cwd: string | undefined): Finding | null {
  const i = l.copyInstalled;
  if (i === undefined) return null;
  // The code the copy holds: of the install, or of the build uv installed again.
  const from = i.built === undefined ? i.line : Math.max(i.built, 0);
  const since = Object.entries(l.changed)
    .filter(([path, c]) => c.line > from && c.subagent !== true && !isDocumentation(path) && !TEST_FILE.test(path) && (cwd === undefined || relativeTo(path, cwd) !== null))
    .sort((x, y) => y[1].line - x[1].line);
  if (since.length === 0) return null;
  const named = since.slice(0, 3).map(([path, c]) => `\`${fileName(path)}\` (line ${c.line})`);
  const more = since.length > named.length ? `, and ${since.length - named.length} more` : '';
  const command = `\`${clip(i.command.replace(/\s+/g, ' '), 100)}\` (line ${i.line})`;
  const what =
    i.built === undefined
      ? `${command} installed a copy of the project, and ${since.length} of its file(s) were written since`
      : `${command} built nothing (uv printed no \`Built …\` line): it installed the build uv had cached${i.built > 0 ? `, made at line ${i.built}` : ', made before anything the transcript shows'}, and ${since.length} of the project's file(s) were written ${i.built > 0 ? 'after that build' : 'in the session'}`;
  return { text: `${what}: ${named.join(', ')}${more}. The installed command runs the code as it was then until it is built and installed again${i.built === undefined ? '' : ' (uv builds it again for a new version, or with `--no-cache`)'}`, label: 'verified', seq: i.line - 1 };
}

/**
 * The write the transcript ends on, when it failed (37f83ec9 at 100: an Edit whose string stood
 * twice, "replace_all is false"): the step to take again first, said where the Next Action is read.
 */
function lastWriteFailed(l: Ledger, end: End): string {
  if (end.kind !== 'mid-work' || l.last?.event !== 'tool_result') return '';
  const at = l.last.line;
  const failed = [...Object.entries(l.notChanged).map(([path, f]) => ({ path, line: f.line, reason: f.reason })), ...(l.writeFailures ?? []).filter((f) => f.redoneAt === undefined)].filter((f) => f.line === at);
  const f = failed[0];
  if (f === undefined) return '';
  // A patch of several files fails whole (edgerunner at 552: `risk.rs`, `engine.rs` and `server.rs`,
  // said "a write of `risk.rs`" beside an error in `server.rs`).
  const paths = [...new Map(failed.map((x) => [fileKey(x.path), x.path])).values()];
  // Two files of one name (`net/mod.rs`, `db/mod.rs`) are told apart by their folder.
  const names = paths.map((x) => fileName(x));
  const shown = paths.map((x, i) => (names.filter((n) => n === names[i]).length > 1 ? x.split(/[\\/]/).slice(-2).join('/') : (names[i] as string)));
  const what = paths.length === 1 ? `a write of \`${fileName(f.path)}\`` : `a write of ${paths.length} files (${shown.slice(0, 4).map((x) => `\`${x}\``).join(', ')}${paths.length > 4 ? ', …' : ''})`;
  // A shell command that failed may have done part of it (`sed -i … a.py b.py c.py` that could not
  // read the third; `rm` of three, one refused): a patch or an edit tool fails whole.
  const call = Object.values(l.calls).find((c) => c.resulted === at || c.line === at);
  const partly = call?.command !== undefined && !/^\s*apply_patch\b/.test(call.command) && call.patchScript !== true;
  return `. Its last call, ${what}, failed (line ${at}: ${clip(f.reason ?? 'the write failed', 160)}): ${partly ? 'a shell command that fails may have done part of it first (check the files)' : 'that write changed nothing'}`;
}

function since(l: Ledger): string {
  return countedFrom(l.countsFrom ?? null);
}

/** " from line N on (…)" when the state began to count calls late (ledger.countsFrom), else ''. */
export function countedFrom(line: number | null): string {
  return line === null ? '' : ` from line ${line} on (this store's state began to count them there)`;
}
