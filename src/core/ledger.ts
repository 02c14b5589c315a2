import { ideShort } from './harness/requests.js';
import { cutBeforeRedaction, headEnd, textTail, wellFormed } from './cut.js';
import { pushBounded, setBounded, trimRecord } from './bounded.js';
import { coverageMissing, decideOutcome, lastLine, lastStarted, spansHold, typeErrorFiles } from './outcome.js';
import type { Outcome } from './outcome.js';
import { andChain, branchSwitch, changesFolder, programNames, readsOnly, copyInstall, uncopies, statusBranch, lsListing, modifiedInStatus, checkTargets, commandKey, commitMessage, commitsInOutput, copySources, destroys, gitUnstaged, diffedPaths, diffsTheTree, exitMeansNoMatch, formattedFor, gitAdded, gitDir, initBranch, showsFiles, gitListing, branchPullRequest, gitLogAll, gitLogTop, gitRemotes, remoteBranchCount, commitsStagedOnly, dependenciesChanged, headMovers, killedByName, logLines, segments, isGitCommit, isGitMergeOrPull, rewritesHead, isGitPush, isGitRebase, noCommitsYet, pipedInto, programsRun, pullRequestHint, pushesInOutput, reformattedCount, reformattedNamed, rewritingFormatter, shellWrites, startsInBackground, wouldReformat } from './shell.js';
import type { CheckTarget } from './shell.js';
import { fmtClock, fmtOffset, localMinutes, offsetFromDate, startClaim, startsBeforeSession } from './clock.js';
import { contentLines, DOC_LIMITS, namingRequest, readLines, readSpan } from './documents.js';
import type { DocRead } from './documents.js';
import { endedOnError, JOB_LIMITS, jobNotices, lastOutputLine, runningSession, sessionExit, shellCell, startedJobId, stoppedJobId } from './jobs.js';
import type { Job } from './jobs.js';
import { definitionName, printedDigest, WHAT_LIMITS } from './what-changed.js';
import { fileKey, fileName, filePath, heldKey, relativeTo } from './paths.js';

/**
 * The session's record of what happened, as a successor needs it: every real user request, the
 * files that changed (and the writes that did not), the checks with their real outcomes, the
 * failures still open, the commits and whether they were pushed, and what the agent claimed.
 * Folded one fact at a time like the rest of the state, and bounded the same way: a refresh costs
 * the same on the ten-thousandth line as on the tenth. Every entry carries the 1-based line of
 * the transcript that proves it.
 */

/** How much of the latest shell output the ledger keeps (`lastShell`). */
const LAST_SHELL = { COMMAND_CHARS: 300, HEAD_CHARS: 700, TAIL_CHARS: 300, KEY_LINES: 8, KEY_CHARS: 160 } as const;

/**
 * The lines of an output's middle that say what failed (pytest's `>` and `E` lines and its
 * `file.py:59: AssertionError`, a panic, an error), which a head and tail leave out (the `37f83ec9`
 * sample at 123: the three assertions sat between the head and the summary), and a coverage
 * report's rows that list the lines no test ran (deep-manifest at 160: `…  96%   163->165, 169, 217-221`).
 */
const KEY_LINE = /^(?:>\s|E\s{2,}|\S+:\d+: \w*(?:Error|Exception)\b|.*\b(?:\w+Error|panicked at|FAILED|error(?:\[\w+\])?:))|\s\d{1,3}(?:\.\d+)?%\s+\d+(?:->\d+)?(?:-\d+)?(?:, \d+(?:->\d+)?(?:-\d+)?)*\s*$/;

/** A cheap first look for any of KEY_LINE's words: most outputs hold none, and are not split into lines (this runs on every shell result). */
const KEY_HINT = /rror|Exception|FAIL|panicked|\d%|^[>E]\s/m;

/** Of the lines of `text` not wholly inside its first `head` or last `tail` characters, those that say what failed. */
function keyLines(text: string, head: number, tail: number): string[] {
  const out: string[] = [];
  if (!KEY_HINT.test(text)) return out;
  let start = 0;
  for (const line of text.split('\n')) {
    const end = start + line.length;
    const shown = end <= head || start >= text.length - tail;
    start = end + 1;
    if (shown || !KEY_LINE.test(line)) continue;
    const t = cutBeforeRedaction(line, LAST_SHELL.KEY_CHARS);
    if (!out.includes(t)) out.push(wellFormed(t));
    if (out.length === LAST_SHELL.KEY_LINES) break;
  }
  return out;
}

/** A text's head and tail around a `…` when it is longer than both, cut between words (a redaction's tag stays whole). */
function headAndTail(t: string, head: number, tail: number): string {
  return t.length <= head + tail + 1 ? t : wellFormed(`${t.slice(0, headEnd(t, head))}${textTail(t, tail)}`);
}

export const LEDGER_LIMITS = {
  REQUESTS: 200,
  REQUEST_CHARS: 1500,
  CALLS: 128,
  FILES: 1000,
  CHECKS: 200,
  FAILURES: 100,
  COMMITS: 100,
  CLAIMS: 20,
  CONTRADICTIONS: 20,
  TEXT_CHARS: 300,
} as const;

export type WriteHow = 'edit' | 'write' | 'create' | 'patch' | 'append' | 'copy' | 'move' | 'delete';

export interface RequestRecord {
  line: number;
  text: string;
  /** A typed request, an answer to the agent's question, or the feedback given when rejecting a tool call. */
  kind: 'request' | 'answer' | 'rejection';
  /** What the IDE told the agent beside it: the lines the user had selected, or the file open. */
  ide?: string;
  /** The line of the agent's last message before the next request: where its answer to this one ends. */
  replied?: number;
  /** That message is a progress note (Codex's `phase: "commentary"`), not an answer. */
  repliedNote?: true;
  /** The line where the turn it was made in was interrupted (Codex's `turn_aborted`, Claude Code's interrupt) before a final reply to it. */
  interruptedAt?: number;
  /**
   * The line of a message the user sent while this request's turn ran (Codex): the turn's final
   * reply, `replied`, came after it and answers both.
   */
  repliedAfter?: number;
  /**
   * A go-ahead ("ok 開始", "yes, do it"): the agent's message before it, which it approves (the
   * head; `chars` when longer). Its words say nothing of the work; that message does (posthog at 47).
   */
  approves?: { line: number; text: string; chars?: number };
  /**
   * A go-ahead after a message that put nothing to the user ("ok continue" after "I can't turn on
   * automatic acceptance"): the agent's latest message before it that set out next steps, when no
   * request since asked for other work (agentcmd at 277: the next steps of line 186).
   */
  continues?: { line: number; text: string; chars?: number };
}

/** A file a call writes when it succeeds; `ifExists`: a forced delete (ShellWrite). */
export interface CallWrite {
  path: string;
  how: WriteHow;
  what?: string[];
  ifExists?: true;
  /** Digests of texts a program could print that the write takes out, and puts in (what-changed.ts printedChange). */
  removed?: string[];
  added?: string[];
  /** The names of the definitions the write took out (an Edit whose old text defined them and whose new text does not). */
  gone?: string[];
  /** A manifest or lock file a change of dependencies rewrites (shell.ts ShellWrite.manager). */
  manager?: true;
}

export interface CallRecord {
  name: string;
  line: number;
  /** A Codex code-mode script whose one tool call is one patch: "Script failed" on the patch's error is the patch failing. */
  patchScript?: true;
  /** Codex: it asked to run outside the sandbox. */
  escalated?: true;
  /** Counted among the other commands as a file edit (Ledger.patchCommands): one that did not apply is counted again (patchCommandsFailed). */
  patchCommand?: true;
  command?: string;
  writes?: CallWrite[];
  targets?: CheckTarget[];
  background?: boolean;
  question?: string;
  subagent?: boolean;
  /** The file a read call reads. */
  read?: string;
  /** The address a fetch call reads: a failure to reach it is one, until a fetch of it succeeds. */
  fetches?: string;
  /** A job the call starts in the background (a monitor, a background shell). */
  job?: { command: string; description?: string };
  /** The job a stop call ends. */
  stops?: string;
  /** The running command's session the call polls or writes to (Codex `write_stdin`). */
  polls?: { session: string; interrupt?: true };
  /** The line of the result that gave the call its verdict: a later report of it is not another run. */
  resulted?: number;
  /** Recorded right after the turn was aborted (Codex writes a call waiting for approval after the abort): that abort's line. */
  afterAbort?: number;
}

export interface CheckRun {
  /** The line of the result (the line of the call when no result is recorded). */
  line: number;
  callLine: number;
  command: string;
  outcome: Outcome;
  keys: string[];
  summary: string | null;
  exitCode?: number;
  /** Run by a hook (Claude Code's Stop hook, say), not by the agent. */
  by?: 'hook';
  /** A failed `&&` chain: the checks its output shows passed (a later one started), by key, with their step of the chain. */
  passed?: { key: string; command: string }[];
}

export interface FailureEntry {
  line: number;
  text: string;
  /** Check target keys (a check failure), or the tool and its target (a denied call). */
  keys: string[];
  kind: 'check' | 'denied' | 'command';
  closedLine?: number;
  /** Of a failure of several checks, any of which may have failed: those that passed since. */
  covered?: string[];
  /** The line of a formatter's run that rewrote the files a format check of it failed on (not a run of the check). */
  formatted?: number;
  /** A command that showed a file and failed because it was not there: the path it named (as written, `/` for `\\`). */
  missing?: string;
  /** The line of a later call that read a file of that name: the failure was a wrong path, and the file was found. */
  found?: number;
  /** Of a check's failure, the files its type errors name, as printed (at most 20). */
  errorFiles?: string[];
}

export interface CommitRecord {
  hash: string;
  subject: string;
  branch: string;
  line: number;
  pushed: boolean | null;
  pushLine?: number;
  /** The hash `git commit` printed, before a rebase gave the commit the hash it was pushed with. */
  rebasedFrom?: string;
  /** The line of the `git log` that named a commit its own output did not (a merge's, a `git commit` cut by `| tail`). */
  hashLine?: number;
  /** The line that named the hash was a later push's (the remote's tip it moved from), not a `git log`. */
  hashByPush?: true;
  /** The files the commit took, when its own command staged them by name and git counted as many changed (FundWise at 226). */
  took?: string[];
  /** How many files its summary line said it changed (` 7 files changed, …`). */
  files?: number;
}

export interface Claim {
  line: number;
  text: string;
  kind: 'checks_pass' | 'success';
}

export interface Contradiction {
  claim_line: number;
  evidence_line: number;
  text: string;
  /**
   * A claim of what the agent could do (let calls run without asking), not of the work: nothing
   * the session delivered rests on it, and the Next Action does not send a successor to settle it
   * first (agentcmd at 331: "First settle the agent's claim …" over a permission the user had given).
   */
  ability?: true;
  /**
   * The claim is not contradicted by a line but unproven: it says the work was tested, and no run
   * in the transcript tested it (evidence_line: the last line the check looked back to).
   */
  unproven?: true;
  /** A claim that a line is covered, which a coverage report contradicted: the file and the line. */
  covered?: { file: string; line: number };
  /** The line of a later coverage report that lists that file with nothing missing: settled in the session. */
  settled?: number;
  /**
   * Not contradicted but stale: it says checks pass, and the runs it names passed on older code (a
   * file other than a document changed after them, and they did not run again before the claim).
   */
  stale?: true;
}

export type LastEvent = 'agent_text' | 'tool_call' | 'tool_result' | 'user' | 'interrupt' | 'api_error' | 'turn_complete' | 'turn_aborted';

export interface Ledger {
  requests: RequestRecord[];
  /** The line where the running turn started (Codex's `task_started`); absent where the harness does not say. */
  turnFrom?: number;
  /**
   * The latest turn the harness began another one after without recording its end (no completion,
   * no abort): `from` its start, `at` the next one's. It was left (the app closed, reloaded or was
   * killed between): a command of it with no result never answered.
   */
  leftTurn?: { from: number; at: number };
  requestsTotal: number;
  /** Written only through setBounded (bounded.ts): it keeps the keys' order beside the record. */
  calls: Record<string, CallRecord>;
  /** `first` and `writes` when a file was written more than once: its first write's line, and how many. */
  changed: Record<string, { line: number; how: WriteHow; tool: string; subagent?: boolean; what?: string[]; first?: number; writes?: number; event?: true; made?: true; existed?: number; again?: number; named?: number; said?: number }>;
  changedTotal: number;
  /** `maybe`: a shell command of several files that failed, which may have written some of them first. */
  notChanged: Record<string, { line: number; reason: string; maybe?: true }>;
  /** The latest writes that failed, whether or not the file was written later (the handoff says which were). */
  /** `redoneAt`: the line of the first write of the same file that succeeded after it. */
  writeFailures?: { path: string; line: number; redoneAt?: number; reason?: string }[];
  /** Files whose failed write the bound of `writeFailures` let go (their counts are then a floor). */
  writeFailuresDropped?: number;
  unreadableWrites: number;
  /** The lines of the first and the latest of them (a state from before it was kept has none). */
  unreadableWritesAt?: { first: number; last: number };
  /** Shell calls whose command the transcript does not hold (redacted arguments): how many, and the first's line. */
  hiddenCommands?: { count: number; first: number };
  /** Tool results whose output the transcript holds redacted (a publisher's `[REDACTED_OUTPUT …]`): how many, and the first's line. A failure among them does not show. */
  hiddenResults?: { count: number; first: number };
  /** Web searches the harness made (Codex `web_search_call`): how many, and the first's line. */
  webSearches?: { count: number; first: number };
  /** Plan updates whose steps the transcript does not hold (redacted arguments): how many, and the first's line (the latest is lastPlanLine). */
  hiddenPlans?: { count: number; first: number };
  /** Shell calls whose command is redacted and whose result has not been read, by call id: the line of each call (the latest 32). */
  hiddenOpen?: Record<string, number>;
  /**
   * Calls of tools an MCP server provides (`mcp__<server>__<tool>`), by name: how many, the latest
   * call's line, and how many results were errors. They act outside the repository (a deploy, a
   * database, a tracker), where no file list shows what they did (the latest 20 names).
   */
  outside?: Record<string, { count: number; line: number; failed: number }>;
  /**
   * The first line the counts of `outside`, `hiddenResults` and `unnamedTools` cover, when the
   * state was written by a version that did not keep them (the lines before were read then).
   */
  countsFrom?: number;
  /** Calls of a tool whose very name the transcript's publisher redacted: how many, and the first's line. */
  unnamedTools?: { count: number; first: number };
  checks: CheckRun[];
  checksTotal: number;
  otherCommands: number;
  /** Of those, the commands a hook ran (Claude Code 1.0's system lines), not the agent. */
  hookCommands?: number;
  /** Of those, the shell calls that were file edits (Codex's `apply_patch` run as a command): their files are under Files changed. */
  patchCommands?: number;
  /** Of those, the edits that did not apply (rejected, failed): their files are under Writes that did not happen. */
  patchCommandsFailed?: number;
  backgroundStarts: number;
  failures: FailureEntry[];
  commits: CommitRecord[];
  prHint: { url: string; line: number } | null;
  /** Codex code mode: a running script's cell id → the call that started it. */
  cells: Record<string, string>;
  waits: Record<string, string>;
  claims: Claim[];
  contradictions: Contradiction[];
  last: { event: LastEvent; line: number } | null;
  /**
   * Commands the session asked to run outside the sandbox (Codex's `require_escalated`): how many,
   * the first's line, and the latest few, each with the line of the failed result of the same
   * command run inside the sandbox just before it (`after`): what the sandbox stops (edgerunner:
   * a port's bind at 394, a `curl` of localhost at 411, each run again outside it).
   */
  escalated?: { count: number; first: number; runs: { line: number; command: string; after?: number }[] };
  /**
   * The latest shell command's output, its head and tail (`chars`: its whole length): what the
   * agent last saw, when the transcript ends on it (worktrees at 130: the check the user asked
   * for had found every worktree still at its first commit, and a timeline row cut that short).
   */
  lastShell?: { line: number; callLine: number; command: string; text: string; chars: number; key?: string[] };
  /**
   * Calls the user rejected without a word (the last 10): `what` is the command or the tool's name;
   * a write's is its program, and `path` its file. `aborted`: the call was recorded with the abort
   * of its turn (that line): the user may have stopped the turn at the approval prompt rather than
   * refused the call.
   */
  rejected?: { line: number; callLine: number; what: string; path?: string; aborted?: number }[];
  /** The user's last `/exit`, `/quit` or `/clear`: the conversation ended there, if nothing came after it. */
  closed?: { line: number; command: string };
  lastAgentText: { line: number; text: string } | null;
  /** A question the agent asked through a tool, still unanswered. */
  pendingQuestion: { line: number; text: string; id: string } | null;
  lastRequestLine: number | null;
  lastPlanLine: number | null;
  /** The last change of a file other than documentation (isDocumentation): what checks must follow. */
  lastChangeLine: number | null;
  /** The latest coverage report a check printed with the lines no test ran (outcome.ts coverageMissing): its line, its command, and per file those lines. */
  coverage?: { line: number; command: string; missing: { file: string; spans: string }[]; full?: string[] };
  /** The last commit, merge or pull: changes before it are committed. */
  lastCommitLine: number | null;
  lastRebaseLine: number | null;
  /** Executables the session installed from its own source ("Installed 1 executable: x"). */
  installed?: string[];
  /** The latest `git commit` that made no commit ("nothing to commit", a hook refused it). */
  failedCommit?: { line: number; text: string };
  /** The latest formatters that ran clean (`cargo fmt --all`, `prettier --write .`), the tool a format check of them is keyed by, and the line. */
  formatRuns?: { tool: string; paths: string[]; line: number }[];
  /** Tool calls since the agent's last message (the user's latest, before the agent wrote any), and the line of the latest: the session went on after it. */
  since?: { calls: number; line: number };
  /**
   * Programs the session created and then ran, by path: how many runs, how many only printed their
   * help, the latest that stopped on a missing prerequisite (`zerion` CLI not found on PATH, a key
   * not set), and the latest run that did neither (the latest 20 programs).
   */
  scripts?: Record<string, { created: number; runs: number; help: number; blocked?: { line: number; text: string }; ran?: number }>;
  /** The agent's messages, shortened (the last 20). */
  said?: { line: number; text: string; chars?: number }[];
  /** Results written before their call (parallel tool calls): applied when the call arrives. */
  early?: Record<string, ResultInput>;
  /** Files a user request names, as the agent read them. */
  docs?: DocRead[];
  /** The files the session's read calls read, each at its latest read (the latest 8): where a successor of a session that changed none starts. */
  reads?: { path: string; line: number }[];
  /** Background jobs by id. */
  jobs?: Record<string, Job>;
  /** Process ids a process listing (`ps`, `pgrep -a`) tied to a running job, by pid: a `kill` of one stops it. */
  jobPids?: Record<string, string>;
  /** The local offset from UTC (minutes) a `date` run proved, and its line. */
  clock?: { offset: number; line: number };
  /** The first user request and its timestamp. */
  firstRequest?: { line: number; ts: string };
  /**
   * Commits whose `git commit` printed no hash (its output was cut): named when a later log shows
   * them. `made`: what it did print shows a commit was made (git's ` create mode …` or
   * ` N files changed` lines); else whether it made one is not known.
   */
  /** `merge`: a `git merge` that made a merge commit, which git names by no hash in its output. */
  /** The latest pull, merge or reset to a revision: commits not the session's may have come, or its own gone. */
  headRewrite?: number;
  /** `pushLine`: the first push that succeeded after it (a later one says less: posthog's `gh repo create --push` at 523, then two more). */
  unnamedCommits?: { subject: string; line: number; made?: true; merge?: true; pushLine?: number; pushedTo?: string[]; pushedHead?: true }[];
  /** Hashes pushes reported as the remote's old or new tip: those commits are on the remote. */
  remoteTips?: { hash: string; line: number }[];
  lastPushLine?: number;
  /**
   * Files the session is known to have had without changing them (read whole, copied from), the
   * latest first: a forced delete (`rm -f`) of one of them is a deletion.
   */
  seen?: string[];
  /**
   * Claude Code's message chain (`uuid`, `parentUuid`) on the main chain: the latest node, the
   * lines of the recent ones, and a line whose parent is an earlier node than the latest (the
   * user went back to an earlier message: what came between is a branch the conversation left).
   * `lines` is written only through setBounded.
   */
  chain?: { last: string; lines: Record<string, number>; fork?: { line: number; from: number } };
  /** Requests typed after going back to an earlier message: where, and to which line. */
  rewinds?: { line: number; to: number }[];
  /** The transcript's first message answers one it does not hold (a slice of a longer conversation): its line. */
  startsAfter?: number;
  /** The files the latest format check listed as needing it (`Would reformat: x`), and its line. */
  wouldReformat?: { paths: string[]; line: number };
  /** The next step named by the harness's latest recap of the session (Claude Code's `away_summary`), and its line. */
  recap?: { next: string; line: number };
  /**
   * Texts a program could print that the session's latest edits took out (digests, by edit), and
   * those its writes put in (digests, the latest): a later run that still prints what an edit took
   * out ran code older than it (staleOutput).
   */
  printedGone?: { path: string; line: number; d: string[] }[];
  printedAdded?: string[];
  /** The latest install of the project from its own folder as a copy (`uv tool install .`, `pip install .`): the installed command runs the code as it was then. */
  /**
   * `built`: the line whose code the copy holds, when uv installed a build it had cached (no
   * `Built …` line: coderabbit at 233 and 242 after edits, while the last build was at 169); -1
   * when that build is not in the transcript. `lastBuilt`: the latest install that built the project.
   */
  copyInstalled?: { line: number; command: string; built?: number };
  lastBuilt?: number;
  /** The latest run whose output still held texts an edit had taken out: which edit, how many, the first. */
  staleOutput?: { line: number; command: string; key: string; path: string; editLine: number; count: number; first: string };
  /**
   * The session's git said the branch has no commits yet (and it made none since); `init`: the
   * session's own `git init` made the repository (its branch null when the command named none).
   */
  noCommits?: { line: number; branch: string | null; init?: true };
  /** The latest line where git said the folder is not a repository (`fatal: not a git repository`), and the folder the command ran in. */
  notRepo?: { line: number; cwd: string };
  /** The latest command that made a repository of a folder besides `git init` (`git clone`, `cargo new`, a `create-…` scaffold). */
  repoMade?: number;
  /**
   * The files the latest `git status` / `git diff --name-only` listed, as printed (the first 200),
   * and its line; `staged`: those it showed staged; `committed`: the line of a later commit of
   * what was staged, which `paths` no longer holds; `limited`: the listing named paths, and
   * showed only those.
   */
  /**
   * `untrackedPaths`: those of `paths` git does not track (when the listing shows it; `untracked`,
   * their count, in states written before 2026-12-04);
   * `narrower`: the line of a later listing limited to paths it named, which did not replace this
   * whole one (rave-era at 425: `git status --short <4 paths>` stood for the tree that the whole
   * listing at 321 had shown with 30 files);
   * `addedAt`: the line of a later `git add` that staged some of the files the listing showed
   * unstaged (deep-manifest at 262: "Changes not staged" at 257, then `git add a b c && git commit`),
   * and `stagedBefore` how many the listing showed staged before that first `git add`;
   * `newPaths`: those of `paths` staged as new files, in no commit (rave-era at 321: 47 of 67
   * entries `A`/`AM` in a repository whose files were added and never committed).
   */
  treeListed?: { line: number; paths: string[]; staged?: string[]; committed?: number; untracked?: number; untrackedPaths?: string[]; newPaths?: string[]; limited?: true; narrower?: number; took?: string[]; addedAt?: number; stagedBefore?: number };
  /**
   * The files the session's latest `git status`, `git diff --name-only` or `git diff` before its
   * first write showed changed (the first 200), and its line: work in the tree that was there
   * before the session touched it. Empty when that listing showed a clean tree.
   */
  dirtyBefore?: { line: number; paths: string[] };
  /** The current branch's pull request, as `gh pr view` or `gh pr create` printed it, and where. */
  branchPr?: { url: string; line: number; state?: string };
  /** What the session's own latest `git log` printed first, and where. */
  logTop?: { line: number; hash: string; subject: string; cwd?: string };
  /** The latest `git log --all` (or `--branches`) in the session's folder that listed commits: every branch's, as they were then. */
  logAll?: { line: number };
  /** The session's first `git log` of HEAD: where HEAD was then. */
  logFirst?: { line: number; hash: string };
  /** Lines of the session's git commands that can move HEAD (the last 20; a failed one too, but for a failed commit alone). */
  headMoves?: number[];
  /** How many remote-tracking branches the session's latest `git branch -a` listed, and where. */
  remoteBranches?: { line: number; count: number };
  /** The line of the latest result of a command that names git: the session looked at its repository. */
  gitRan?: number;
  /** The branch the session's latest `git checkout`/`git switch` moved to, as git said, and where. */
  switchedTo?: { line: number; branch: string };
  /** The branch the session's latest `git status` said it was on ("On branch x", `## x...`), or its `git branch` (`* x`: `via`). */
  statusBranch?: { line: number; branch: string; via?: 'branch' };
  /** A push of `HEAD` (`* [new branch] HEAD -> main`): the remote branch it went to, and the push's line (posthog at 523). */
  headPushedTo?: { line: number; branch: string };
  /**
   * The latest push that named the branch HEAD was on (the session's latest `git status` or `git
   * branch` before it said so, and no checkout or switch came between): its line and the branch
   * (agentcmd at 799: `git push origin fix/team-optimization-v2` after `## fix/team-optimization-v2`
   * at 781).
   */
  pushedHeadBranch?: { line: number; branch: string };
  /** The remotes the session's own latest `git remote -v` printed (none: an empty list), and where. */
  remotes?: { line: number; list: { name: string; url: string }[] };
  /** Commands that destroyed what the transcript cannot give back (`rm -rf`, `git reset --hard`, …), the last 20. */
  /** `line`: the result's; `call_line`: the command's, when it is another line (since 2026-12-03). */
  destroyed?: { line: number; command: string; what: string; ok: boolean; call_line?: number }[];
  /** Where the session's latest push went, as its output said (`To <url>` above its updates), and where. */
  pushedTo?: { line: number; url: string };
  /** Formatter runs that rewrote files their output does not name: how many, and where. */
  unnamedWrites?: { line: number; command: string; count: number }[];
}

export function initialLedger(): Ledger {
  return {
    requests: [],
    requestsTotal: 0,
    calls: {},
    changed: {},
    changedTotal: 0,
    notChanged: {},
    unreadableWrites: 0,
    checks: [],
    checksTotal: 0,
    otherCommands: 0,
    backgroundStarts: 0,
    failures: [],
    commits: [],
    prHint: null,
    cells: {},
    waits: {},
    claims: [],
    contradictions: [],
    last: null,
    lastAgentText: null,
    pendingQuestion: null,
    lastRequestLine: null,
    lastPlanLine: null,
    lastChangeLine: null,
    lastCommitLine: null,
    lastRebaseLine: null,
  };
}

const clip = (s: string, n: number): string => {
  const t = s.trim();
  if (t.length <= n) return t;
  const tailN = Math.floor(n / 4);
  return `${t.slice(0, n - tailN - 3)} … ${t.slice(t.length - tailN)}`;
};

const trim = trimRecord;
const push = pushBounded;

/**
 * The jobs kept: past the bound, the oldest that ended go first; one still running is what a
 * successor must know of (a dev server started first and 31 short jobs after it: the skeptic's c36).
 */
function trimJobs(l: Ledger): void {
  const jobs = l.jobs;
  if (jobs === undefined) return;
  const ids = Object.keys(jobs);
  let over = ids.length - JOB_LIMITS.JOBS;
  for (const id of ids) {
    if (over <= 0) return;
    if ((jobs[id] as Job).status !== 'running') {
      delete jobs[id];
      over -= 1;
    }
  }
  trim(jobs, JOB_LIMITS.JOBS);
}

// ------------------------------------------------------------------ requests and claims

const SUCCESS_CLAIM = /\b(all (?:\d+ )?tests? (?:now )?pass(?:es|ing)?|tests? (?:now )?pass(?:es|ing)?\b|build (?:now )?(?:passes|succeeds)|no regressions?|everything (?:now )?works|works (?:now|correctly|as expected)|all (?:checks )?(?:green|passing)|(?:all (?:\w+ )?)?checks? (?:are |is |now )?(?:all )?(?:green|passing))/i;
const SUCCESS_CLAIMS = new RegExp(SUCCESS_CLAIM.source, 'gi');
const PROBLEM_REPORT = /\b(lost|broke|broken|doesn'?t work|does not work|not working|isn'?t working|no longer|regress\w*|still (?:fail\w*|broken|see|shows?|get\w*)|nothing (?:is )?showing|not showing|no data|is missing|are missing|wrong)\b/i;

/**
 * How many recent nodes of the message chain are kept to find a rewind's target, each by the
 * first 13 characters of its uuid: 48 random bits of a v4 uuid, enough to tell a session's recent
 * messages apart, in a third of the bytes every state write carries.
 */
const CHAIN_NODES = 128;
const NODE_KEY_CHARS = 13;

/** One line of Claude Code's main message chain (a `node` fact). */
export function noteNode(l: Ledger, uuidIn: string, parentIn: string | undefined, line: number): void {
  const uuid = uuidIn.slice(0, NODE_KEY_CHARS);
  const parent = parentIn?.slice(0, NODE_KEY_CHARS);
  const c = l.chain;
  if (c === undefined) {
    l.chain = { last: uuid, lines: { [uuid]: line } };
    if (parent !== undefined) l.startsAfter = line;
    return;
  }
  const from = parent !== undefined && parent !== c.last ? c.lines[parent] : undefined;
  if (from !== undefined) c.fork = { line, from };
  else delete c.fork;
  // Every main-chain line passes here: the bound is kept without listing the record's keys.
  setBounded(c.lines, uuid, line, CHAIN_NODES);
  c.last = uuid;
}

export function noteRequest(l: Ledger, text: string, line: number, kind: RequestRecord['kind'], ts?: string, ide?: string): void {
  const t = text.trim();
  if (t.length === 0) return;
  // A request whose message goes back to an earlier one, past requests of its own: a rewind.
  const fork = l.chain?.fork;
  if (fork !== undefined && fork.line === line && kind === 'request' && l.requests.some((r) => r.line > fork.from && r.line < line)) {
    push((l.rewinds ??= []), { line, to: fork.from }, 20);
  }
  if (kind === 'request' && l.firstRequest === undefined && ts !== undefined) l.firstRequest = { line, ts };
  const prev = l.requests[l.requests.length - 1];
  // Codex writes a request twice (response item and event); one copy counts.
  if (prev && prev.text === clip(t, LEDGER_LIMITS.REQUEST_CHARS) && line - prev.line <= 3) return;
  l.requestsTotal += 1;
  const rec: RequestRecord = { line, text: clip(t, LEDGER_LIMITS.REQUEST_CHARS), kind };
  if (ide !== undefined) rec.ide = clip(ideShort(ide), 300);
  const before = l.lastAgentText;
  // Only a message that proposed something is approved ("OK 開始嗎?", "Shall I start?"); an "ok"
  // after a report acknowledges it, and a "yes" to "are you running with NODE_ENV=production?" answers it.
  if (kind === 'request' && before !== null && before.line < line && proposes(before.text) && isGoAhead(t)) {
    const flat = before.text.replace(/\s+/g, ' ');
    // The message's length as written (`lastAgentText` keeps a long one's head and tail).
    const said = l.said?.at(-1);
    const chars = said !== undefined && said.line === before.line ? (said.chars ?? said.text.length) : flat.length;
    rec.approves = chars <= APPROVED_CHARS ? { line: before.line, text: flat } : { line: before.line, text: clip(flat, APPROVED_CHARS), chars };
  } else if (kind === 'request' && isGoAhead(t)) {
    const steps = l.said?.findLast((m) => m.line < line && NEXT_STEPS.test(m.text));
    // Every request since that message a go-ahead or a question: none asked for other work.
    if (steps !== undefined && l.requests.every((r) => r.line < steps.line || r.kind !== 'request' || isGoAhead(r.text) || /[?？]\s*$/.test(r.text))) rec.continues = steps;
  }
  push(l.requests, rec, LEDGER_LIMITS.REQUESTS);
  if (kind !== 'answer') l.lastRequestLine = line;
  // With no agent text yet, the calls since are counted from the user's latest message, the state now.
  if (l.lastAgentText === null) delete l.since;
  l.last = { event: 'user', line };
  if (l.pendingQuestion && kind === 'answer') l.pendingQuestion = null;
  // The user's reply contradicts the agent's latest success claim: of checks when the report
  // names one ("the tests still fail"), else of the work ("no regressions", "everything works").
  const claim = reportedClaim(l.claims, t);
  if (claim && line > claim.line && PROBLEM_REPORT.test(t) && !l.contradictions.some((c) => c.claim_line === claim.line)) {
    push(l.contradictions, { claim_line: claim.line, evidence_line: line, text: `The agent said ${quote(claim.text)}; the user's next message reports a problem: ${quote(t)}` }, LEDGER_LIMITS.CONTRADICTIONS);
  }
  l.claims = [];
}

const quote = (s: string): string => `«${clip(s.replace(/\s+/g, ' '), 160)}»`;

/** What a write's `what` says of an `echo` of literal words into a file: "the text «[]»", "an empty line". */
const echoWhat = (text: string): string => (text === '' ? 'an empty line' : `the text ${quote(text)}`);
/** Whether an entry of a write's `what` is an echo's text (echoWhat), not a definition's name. */
export const isEchoWhat = (what: string): boolean => what === 'an empty line' || what.startsWith('the text «');
/** Whether why a call did not run is the user's refusal (with or without a reason typed), not a rule's denial or an error. */
export const rejectedByUser = (reason: string): boolean => reason.startsWith('rejected by the user');
/** How a check's summary begins when it selected no test (pytest's exit 5, `-m unit` of a suite with no such mark): it checked nothing. */
export const NOTHING_RAN = 'selected no test: ';

/** An agent's message that sets out what comes next: "Next steps: 1) …", "Next, I'll …", "Remaining: …". */
const NEXT_STEPS = /\bnext steps?\b|\bnext,? I(?:'|’)ll\b|\bremaining (?:steps|work|items)\b|\bstill (?:to do|needed|left)\b/i;

/** How much of the message a go-ahead approves is kept. */
const APPROVED_CHARS = 400;

/** The words of a go-ahead, in the languages the corpus and users write in (lower case). */
const GO_AHEAD_WORDS = new Set([
  'ok', 'okay', 'k', 'yes', 'yep', 'yeah', 'y', 'sure', 'go', 'ahead', 'go-ahead', 'do', 'it', 'proceed', 'continue', 'start', 'begin',
  'lgtm', 'sounds', 'good', 'great', 'perfect', 'fine', 'alright', 'please', 'pls', 'plz', "let's", 'lets', 'approved', 'approve', 'agreed',
  'ship', 'now', 'then',
  '好', '好的', '好啊', '開始', '开始', '開始吧', '开始吧', '請開始', '请开始', '可以', '行', '继续', '繼續', '是', '對', '对', '沒問題', '没问题', '嗯',
  'はい', 'お願いします', '進めて', 'どうぞ', '네', '그래', '시작', 'ja', 'oui', 'sí', 'si', 'vas-y', 'dale', 'vamos', 'los',
]);

/**
 * A question that puts a step to the user, in its closing part (code aside: `user?.name` asks
 * nothing): "Shall I start?", "OK to proceed?", "Want me to …?", "OK 開始嗎?".
 */
const PROPOSES = /\b(?:shall I|should I|want me to|do you want me|would you like me|ok(?:ay)? to|ready (?:for me )?to|can I (?:go ahead|start|proceed)|may I|good to go|sound (?:good|ok|right)|look (?:good|ok|right)|proceed|go ahead|start|begin|continue|approve|agree)\b[^?？\n]{0,120}[?？]|(?:開始|开始|進め|进行|繼續|继续|可以|好嗎|好吗|よろしい|いいですか)[^?？\n]{0,40}[?？]/i;

function proposes(text: string): boolean {
  const words = text.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`\n]*`/g, ' ');
  return PROPOSES.test(words.slice(-800));
}

/** A message of a few words, each of them a go-ahead's ("ok 開始", "yes, go ahead"): it approves what the agent just said. */
export function isGoAhead(text: string): boolean {
  if (text.length > 40) return false;
  const words = text.toLowerCase().split(/[\s,.!?;:~。！？、，…]+/u).filter((w) => w.length > 0);
  return words.length > 0 && words.length <= 5 && words.every((w) => GO_AHEAD_WORDS.has(w));
}

/** A problem report that names a check (a test, a build, lint, CI, types). */
const REPORT_NAMES_CHECK = /\b(tests?|specs?|builds?|lint\w*|ci|pipeline|type ?check\w*|compil\w*)\b/i;

/**
 * Which of the agent's success claims since the last request a problem report answers: the latest
 * of the report's kind (a claim of checks for a report that names one, a claim of the work for one
 * that does not: "we lost the navigation" answers "No regressions in functionality", not "All 6 new
 * tests pass"), else the latest of any kind.
 */
function reportedClaim(claims: readonly Claim[], report: string): Claim | undefined {
  const kind: Claim['kind'] = REPORT_NAMES_CHECK.test(report) ? 'checks_pass' : 'success';
  for (let i = claims.length - 1; i >= 0; i -= 1) if ((claims[i] as Claim).kind === kind) return claims[i];
  return claims[claims.length - 1];
}

export function noteAgentText(l: Ledger, text: string, line: number, note = false): void {
  const t = text.trim();
  if (t.length === 0) return;
  l.lastAgentText = { line, text: t.length > 4000 ? `${t.slice(0, 1500)}\n…\n${t.slice(-2400)}` : t };
  // The agent's latest word on the latest request, until the next one is made.
  const asked = l.requests[l.requests.length - 1];
  if (asked !== undefined && line > asked.line) {
    asked.replied = line;
    if (note) asked.repliedNote = true;
    else delete asked.repliedNote;
  }
  const flat = t.replace(/\s+/g, ' ');
  l.said = [...(l.said ?? []), flat.length <= 400 ? { line, text: flat } : { line, text: clip(flat, 400), chars: flat.length }].slice(-20);
  delete l.since;
  l.last = { event: 'agent_text', line };
  checkStartClaim(l, t, line);
  checkCoverageClaim(l, t, line);
  const m = SUCCESS_CLAIM.exec(t);
  if (!m) return;
  const sentence = sentenceAround(t, m.index);
  const isChecks = (claim: string): boolean => /test|build|check|green|passing/i.test(claim);
  const checksClaim = isChecks(m[0]);
  push(l.claims, { line, text: sentence, kind: checksClaim ? 'checks_pass' : 'success' }, LEDGER_LIMITS.CLAIMS);
  // The message's first claim of the other kind too, for the problem report that answers it.
  for (const other of t.slice(m.index + m[0].length).matchAll(SUCCESS_CLAIMS)) {
    if (isChecks(other[0]) === checksClaim) continue;
    const at = m.index + m[0].length + (other.index ?? 0);
    push(l.claims, { line, text: sentenceAround(t, at), kind: checksClaim ? 'success' : 'checks_pass' }, LEDGER_LIMITS.CLAIMS);
    break;
  }
  if (checksClaim) {
    // Contradicted by the evidence already recorded: the latest run of a check failed.
    const lastRun = [...l.checks].reverse().find((c) => c.outcome !== 'unknown');
    if (lastRun && lastRun.outcome === 'fail' && !l.contradictions.some((c) => c.claim_line === line)) {
      push(
        l.contradictions,
        { claim_line: line, evidence_line: lastRun.line, text: `The agent said ${quote(sentence)}, but the latest check before it failed: \`${clip(lastRun.command, 120)}\`${lastRun.summary ? ` — ${quote(lastRun.summary)}` : ''}` },
        LEDGER_LIMITS.CONTRADICTIONS,
      );
    } else if (lastRun && !l.contradictions.some((c) => c.claim_line === line)) {
      // Passed, but on older code: a file other than a document changed after the latest run of a
      // check the claim names (of any check, when it names none).
      // The kinds are the claim's sentence's, and its list's when it ends on a colon ("All three checks are green:").
      // Every run the claim names that is stale is said: the latest alone left `lint` out, as stale as `test`.
      const stale = namedRuns(l, claimScope(t, m.index, sentence))
        .map((run) => ({ run, change: changedAfter(l, run.line, line) }))
        .filter((x): x is { run: CheckRun; change: NonNullable<ReturnType<typeof changedAfter>> } => x.change !== null)
        .sort((a, b) => b.run.line - a.run.line);
      const first = stale[0];
      if (first !== undefined) {
        const { run, change } = first;
        const name = change.path.split('/').pop() ?? change.path;
        // All the files that changed since are counted: the latest alone read as the only one.
        const what = change.files === 1 ? `${name} changed (line ${change.line})` : `${change.files} files changed (the latest, ${name}, at line ${change.line})`;
        const others = stale.slice(1).map((x) => `\`${clip(x.run.command, 120)}\` (line ${x.run.line})`);
        const nor = others.length === 0 ? '' : `; nor did ${others.join(' or ')}, older still`;
        push(
          l.contradictions,
          { claim_line: line, evidence_line: change.line, text: `The agent said ${quote(sentence)}, but ${what} after the latest \`${clip(run.command, 120)}\` (line ${run.line}), and it did not run again before the claim${nor}`, stale: true },
          LEDGER_LIMITS.CONTRADICTIONS,
        );
      }
    }
  }
}

/** A claim's sentence and, when it ends on a colon, the list that follows it (up to its end). */
function claimScope(text: string, at: number, sentence: string): string {
  if (!sentence.trimEnd().endsWith(':')) return sentence;
  const after = text.slice(text.indexOf(':', at) + 1, text.indexOf(':', at) + 1 + 2000);
  const items: string[] = [];
  for (const line of after.split('\n')) {
    if (/^\s*(?:[-*+]|\d{1,3}[.)])\s/.test(line)) items.push(line);
    else if (line.trim() !== '' && items.length > 0) break;
  }
  return `${sentence}\n${items.join('\n')}`;
}

/** Kinds of check a claim may name, and the check keys of each. */
const CLAIM_KINDS: readonly [RegExp, RegExp][] = [
  [/\btests?\b|\bspecs?\b/i, /test|pytest|vitest|jest|mocha|rspec/],
  [/\blint/i, /lint|ruff check|clippy|flake8|rubocop/],
  [/\btypes?\b|typecheck|type check|check-types|\btsc\b|mypy|pyright/i, /tsc|types|typecheck|mypy|pyright/],
  [/\bbuilds?\b|\bcompiles?\b/i, /build|compile|cargo check/],
];

/** The latest run of each kind of check a claim names, or the latest run of any when it names none. */
function namedRuns(l: Ledger, claim: string): CheckRun[] {
  const latest = (keys: RegExp | null): CheckRun | undefined => [...l.checks].reverse().find((c) => c.outcome !== 'unknown' && (keys === null || c.keys.some((k) => keys.test(k))));
  const named = CLAIM_KINDS.filter(([words]) => words.test(claim)).map(([, keys]) => latest(keys));
  const runs = named.length > 0 ? named : [latest(null)];
  return runs.filter((r): r is CheckRun => r !== undefined);
}

/** Documents and notes, whose change no test, build or lint checks. */
const DOC_FILE = /\.(?:md|mdx|markdown|txt|rst|adoc|org)$/i;

/** The latest change, between two lines, of a file that is not a document; null when none. */
function changedAfter(l: Ledger, from: number, to: number): { path: string; line: number; files: number } | null {
  return changesBetween(l, from, to, (path) => DOC_FILE.test(path));
}

/**
 * The files changed between two lines (neither counted), but those `skip` leaves out, scratch
 * files and, unless `said` counts them, a program's output (the files a command's output says it
 * wrote): how many, how many of them were deleted, and the latest with its line; null when none.
 */
export function changesBetween(l: Ledger, from: number, to: number, skip: (path: string) => boolean, said = false): { path: string; line: number; files: number; deleted: number } | null {
  let latest: { path: string; line: number } | null = null;
  let files = 0;
  let deleted = 0;
  for (const path in l.changed) {
    const c = l.changed[path] as Ledger['changed'][string];
    if (c.line <= from || c.line >= to || skip(path) || isScratch(path) || (c.said !== undefined && !said)) continue;
    files += 1;
    if (c.how === 'delete') deleted += 1;
    if (latest === null || c.line > latest.line) latest = { path, line: c.line };
  }
  return latest === null ? null : { ...latest, files, deleted };
}

/** A start time the agent gives for the session's work, earlier than the session's first message. */
function checkStartClaim(l: Ledger, text: string, line: number): void {
  const first = l.firstRequest;
  if (l.clock === undefined || first === undefined || first.line >= line) return;
  const claim = startClaim(text);
  const firstMin = localMinutes(first.ts, l.clock.offset);
  if (claim === null || firstMin === null || !startsBeforeSession(claim.minutes, firstMin)) return;
  if (l.contradictions.some((c) => c.claim_line === line)) return;
  push(
    l.contradictions,
    {
      claim_line: line,
      evidence_line: first.line,
      text: `The agent gives ${claim.clock} as when the work started (${quote(claim.sentence)}), but the session's first message (line ${first.line}) was sent at ${fmtClock(firstMin)} local time (${fmtOffset(l.clock.offset)}, from the \`date\` output at line ${l.clock.line})`,
    },
    LEDGER_LIMITS.CONTRADICTIONS,
  );
}

/** Tools that only read. */
const READ_TOOLS = new Set(['Read', 'Grep', 'Glob', 'LS', 'TodoWrite', 'TodoRead', 'WebSearch', 'WebFetch', 'BashOutput', 'view_image', 'update_plan']);

/** Whether a sentence names a file by its name as a word of its own (`parser.py`, not inside `test_parser.py`). */
function namesFile(sentence: string, name: string): boolean {
  for (let at = sentence.indexOf(name); at !== -1; at = sentence.indexOf(name, at + 1)) {
    if (at > 0 && /[\w.-]/.test(sentence.charAt(at - 1))) continue;
    if (/[\w-]/.test(sentence.charAt(at + name.length))) continue;
    return true;
  }
  return false;
}

/** A sentence that says a test covers something, or that something is covered. */
const COVERED = /\b(?:tests?\s+(?:now\s+|already\s+|does\s+|do\s+)?covers?|(?:is|are|now|fully|already|been|gets?)\s+covered)\b/i;
/** …which a negation, a hedge, a plan or a question takes back. */
const NOT_COVERED = /\b(?:not|never|no longer|isn'?t|aren'?t|doesn'?t|don'?t|won'?t|wasn'?t|uncovered|should|would|could|might|may|if|need|needs|will|once|until|unless|missing|says?|said|claims?|according|wrong)\b|\bto cover\b|\?|[’'](?:t|ll)\b/i;
/** The lines a sentence names: `line 169`, `lines 12-15 and 20`. */
const LINE_REFS = /\blines?\s+(\d{1,6}(?:\s*(?:-|–|to)\s*\d{1,6})?(?:\s*(?:,|and|&)\s*\d{1,6}(?:\s*(?:-|–|to)\s*\d{1,6})?)*)/gi;

/**
 * The agent saying a test covers a line that the latest coverage report, with no change of code
 * since, lists as run by no test (deep-manifest at 200: "The same applies to line 169 - …, but
 * the test covers that", while 196's report listed `169` missing in deep_manifest.py): the claim
 * is contradicted. A line missing in more than one file, or a sentence naming another file of the
 * report, is not decided.
 */
function checkCoverageClaim(l: Ledger, text: string, line: number): void {
  const cov = l.coverage;
  if (cov === undefined || cov.line >= line || cov.missing.length === 0 || !COVERED.test(text)) return;
  if (changedAfter(l, cov.line, line) !== null || l.contradictions.some((c) => c.claim_line === line)) return;
  // Nothing between the report and the claim may have changed the code unseen: a subagent, a
  // command that is not a plain read (`git apply`), a call of another tool that could write.
  for (const id in l.calls) {
    const c = l.calls[id] as CallRecord;
    if (c.line <= cov.line || c.line >= line) continue;
    if (c.command !== undefined ? !readsOnly(c.command) : !READ_TOOLS.has(c.name)) return;
  }
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    if (!COVERED.test(sentence) || NOT_COVERED.test(sentence)) continue;
    const named = cov.missing.filter((f) => namesFile(sentence, fileName(f.file)));
    // A sentence that names a file, none of those the report lists missing lines of, speaks of
    // another file's lines (`line 169 of test_parser.py`).
    if (named.length === 0 && /[\w-]\.(?:py|[jt]sx?|mjs|cjs|rb|go|rs|java|kt|cs|php|swift|c|cc|cpp|h|hpp|ex|exs|scala|vue|svelte)\b/.test(sentence)) continue;
    for (const m of sentence.matchAll(LINE_REFS)) {
      for (const part of (m[1] as string).split(/\s*(?:,|and|&)\s*/)) {
        const [a, b] = part.split(/\s*(?:-|–|to)\s*/).map(Number);
        if (a === undefined || Number.isNaN(a)) continue;
        const n = b === undefined || Number.isNaN(b) ? a : b;
        for (let at = a; at <= n && at < a + 50; at += 1) {
          const files = (named.length > 0 ? named : cov.missing).filter((f) => spansHold(f.spans, at));
          const only = files[0];
          if (files.length !== 1 || only === undefined) continue;
          push(
            l.contradictions,
            { claim_line: line, evidence_line: cov.line, text: `The agent said ${quote(clip(sentence.trim(), 300))}, but the latest coverage report before it (line ${cov.line}, \`${clip(cov.command, 120)}\`) lists line ${at} of \`${only.file}\` as run by no test, and no code changed between`, covered: { file: only.file, line: at } },
            LEDGER_LIMITS.CONTRADICTIONS,
          );
          return;
        }
      }
    }
  }
}

function sentenceAround(text: string, at: number): string {
  const start = Math.max(text.lastIndexOf('\n', at), text.lastIndexOf('. ', at) + 1, 0);
  const endNl = text.indexOf('\n', at);
  const end = endNl === -1 ? text.length : endNl;
  return text.slice(start, end).trim().slice(0, 300);
}

// ------------------------------------------------------------------ calls and results

export interface CallInput {
  id: string;
  name: string;
  line: number;
  command?: string;
  writes?: { path: string; how: WriteHow; what?: string[]; removed?: string[]; added?: string[]; gone?: string[] }[];
  unreadable?: boolean;
  /** A shell call whose command cannot be read (its arguments were redacted). */
  hidden?: boolean;
  background?: boolean;
  question?: string;
  plan?: boolean;
  planHidden?: boolean;
  subagent?: boolean;
  read?: string;
  fetches?: string;
  job?: { command: string; description?: string };
  stops?: string;
  polls?: { session: string; interrupt?: true };
  /** The folder the call ran in: its relative paths are joined to it (src/core/paths.ts). */
  cwd?: string;
  /** A Codex code-mode script whose one tool call is one patch. */
  patchScript?: true;
  /** Codex: the call asked to run outside the sandbox. */
  escalated?: true;
}

/** How many escalated runs the ledger names (the latest). */
const ESCALATED_RUNS = 5;

/** A command's first two words: `cargo run`, `curl -sS`, `npm audit`. */
const commandStart = (command: string): string => command.trim().split(/\s+/).slice(0, 2).join(' ');

function noteEscalated(l: Ledger, command: string, line: number): void {
  // The same command's run just before it, inside the sandbox, that failed: a failure the ledger
  // recorded for its result, or a job it left that ended on an error.
  const start = commandStart(command);
  const failedAt = new Set(l.failures.filter((f) => f.kind === 'command' || f.kind === 'check').map((f) => f.line));
  const jobs = Object.values(l.jobs ?? {});
  let after: number | undefined;
  for (const c of Object.values(l.calls)) {
    if (c.line >= line || c.escalated === true || c.subagent === true || c.command === undefined || commandStart(c.command) !== start) continue;
    const failed = (c.resulted !== undefined && failedAt.has(c.resulted)) || jobs.some((j) => j.line === c.line && endedOnError(j));
    if (failed && (after === undefined || c.line > after)) after = c.resulted ?? jobs.find((j) => j.line === c.line)?.endLine ?? c.line;
  }
  // A patch is named by its first file, not by its text.
  const patched = /^\s*apply_patch\b/.test(command) ? /^\*\*\* (?:Add|Update|Delete) File: (.+)$/m.exec(command)?.[1] : undefined;
  const shown = patched === undefined ? command.replace(/\s+/g, ' ') : `apply_patch (${fileName(patched.trim())})`;
  const run = { line, command: clip(shown, 160), ...(after === undefined ? {} : { after }) };
  const was = l.escalated;
  l.escalated = { count: (was?.count ?? 0) + 1, first: was?.first ?? line, runs: [...(was?.runs ?? []), run].slice(-ESCALATED_RUNS) };
}

/** One more of what a count follows, which keeps the line of its first. */
export const tally = (was: { count: number; first: number } | undefined, line: number): { count: number; first: number } => ({ count: (was?.count ?? 0) + 1, first: was?.first ?? line });

export function noteCall(l: Ledger, c: CallInput): void {
  if (c.escalated === true && !c.subagent && c.command !== undefined) noteEscalated(l, c.command, c.line);
  const rec: CallRecord = { name: c.name, line: c.line };
  if (l.last?.event === 'turn_aborted' && !c.subagent) rec.afterAbort = l.last.line;
  if (c.subagent) rec.subagent = true;
  if (c.patchScript) rec.patchScript = true;
  if (c.escalated === true) rec.escalated = true;
  if (c.unreadable) {
    l.unreadableWrites += 1;
    l.unreadableWritesAt = { first: l.unreadableWritesAt?.first ?? c.line, last: c.line };
  }
  if (!c.subagent && c.name.startsWith('[REDACTED_')) l.unnamedTools = tally(l.unnamedTools, c.line);
  if (c.name.startsWith('mcp__') && !c.subagent) {
    const o = (l.outside ??= {});
    const was = o[c.name];
    if (was === undefined) o[c.name] = { count: 1, line: c.line, failed: 0 };
    else {
      was.count += 1;
      was.line = c.line;
    }
    trim(o, 20);
  }
  if (c.hidden) {
    l.hiddenCommands = tally(l.hiddenCommands, c.line);
    if (c.id !== '') {
      (l.hiddenOpen ??= {})[c.id] = c.line;
      trim(l.hiddenOpen, 32);
    }
  }
  // Every path the call names is kept in the one form that makes one file one entry.
  const writes: CallWrite[] = (c.writes ?? []).map((w) => ({ ...w, path: filePath(w.path, c.cwd) }));
  if (c.command !== undefined) {
    rec.command = c.command;
    for (const w of shellWrites(c.command)) {
      const path = filePath(w.path, c.cwd);
      if (!writes.some((x) => x.path === path && x.how === w.how)) writes.push(w.ifExists ? { path, how: w.how, ifExists: true } : w.text !== undefined ? { path, how: w.how, what: [echoWhat(w.text)] } : w.manager ? { path, how: w.how, manager: true } : { path, how: w.how });
    }
    const background = c.background === true || startsInBackground(c.command);
    const targets = background ? [] : checkTargets(c.command, l.installed ?? []);
    if (background) {
      rec.background = true;
      l.backgroundStarts += 1;
    }
    if (targets.length > 0) rec.targets = targets;
    else {
      l.otherCommands += 1;
      if (c.name === 'hook') l.hookCommands = (l.hookCommands ?? 0) + 1;
      else if ((c.writes ?? []).length > 0) {
        l.patchCommands = (l.patchCommands ?? 0) + 1;
        rec.patchCommand = true;
      }
    }
  }
  if (writes.length > 0) rec.writes = writes;
  if (c.question !== undefined) {
    rec.question = c.question;
    l.pendingQuestion = { line: c.line, text: c.question, id: c.id };
  }
  if (c.plan) l.lastPlanLine = c.line;
  if (c.planHidden) l.hiddenPlans = tally(l.hiddenPlans, c.line);
  if (c.read !== undefined) rec.read = filePath(c.read, c.cwd);
  if (c.fetches !== undefined) rec.fetches = c.fetches;
  if (c.job !== undefined) rec.job = c.job;
  if (c.stops !== undefined) rec.stops = c.stops;
  if (c.polls !== undefined) rec.polls = c.polls;
  if (c.id !== '') {
    setBounded(l.calls, c.id, rec, LEDGER_LIMITS.CALLS);
  }
  // A hook runs beside the agent: it never decides where the agent stopped.
  if (!c.subagent && c.name !== 'hook') {
    l.last = { event: 'tool_call', line: c.line };
    // Since the agent's last message, or since the user's when the agent has written none (agentcmd at 150: 50 calls, no text).
    if (l.lastAgentText !== null || l.lastRequestLine !== null) l.since = { calls: (l.since?.calls ?? 0) + 1, line: c.line };
  }
  const early = c.id === '' ? undefined : l.early?.[c.id];
  if (early !== undefined && l.early) {
    delete l.early[c.id];
    const lastBefore = l.last;
    noteResult(l, early);
    // The result is older than the call: where the session stands is still the call.
    l.last = lastBefore;
  }
}

export interface ResultInput {
  id: string;
  line: number;
  ok?: boolean;
  exitCode?: number;
  output?: string;
  /** Why the call did not run: rejected by the user, denied by a permission rule. */
  denied?: string;
  interrupted?: boolean;
  subagent?: boolean;
  /** The record's timestamp. */
  ts?: string;
  /** The session's working folder when the result came (for the files a merge reports). */
  cwd?: string;
  /** Codex code mode: the script threw on a patch, with this error (types.ts). */
  patchFailed?: string;
  /** The harness refused the call in its current mode (types.ts). */
  modeRefused?: true;
}

const codeModeCell = /^Script running with cell ID (\S+)/;
/** A program that crashed, whatever the harness's verdict (`python x.py | tail` exits 0): its exception's line, or a traceback's head. */
const EXCEPTION_LINE = /^[A-Z]\w*(?:Error|Exception): \S.*$/m;
const TRACEBACK = /^Traceback \(most recent call last\):$/m;
/** A package manager's own error line: npm's `npm ERR!` (`npm error` since npm 10), pnpm's `ERR_PNPM_…`, yarn's `error …`. */
const PM_ERROR = /^(?:npm ERR!|npm error |error |\S*ERR_PNPM_)/m;
const crashed = (out: string): boolean => EXCEPTION_LINE.test(out) || TRACEBACK.test(out);

/** A foreground shell Claude Code moved to the background, and a poll of one that has not ended (or was killed: no outcome). */
const MOVED_TO_BACKGROUND = /^\s*Command running in background with ID:\s*([\w-]{2,64})(?:[.\s]|$)/;
const STILL_RUNNING = /^\s*<status>(?:running|killed)<\/status>/;
const POLL_EXIT = /<exit_code>(-?\d{1,4})<\/exit_code>/;
/** What a poll of a shell says the command printed: its `<stdout>` and `<stderr>`, without the poll's own tags. */
const pollOutput = (out: string): string => out.replace(/<(status|timestamp|exit_code)>[^<]*<\/\1>/g, '').replace(/<\/?(?:stdout|stderr)>/g, '');

/**
 * A kill by name of what the session did not start: no earlier call of the session it remembers
 * (LEDGER_LIMITS.CALLS) ran a command naming it. Stopping its own `fetch.py` or dev server is
 * housekeeping; `pkill -9 zsh` kills the user's shells.
 */
function killedOthers(l: Ledger, call: CallRecord): string | null {
  for (const k of killedByName(call.command ?? '')) {
    const started = Object.values(l.calls).some((c) => c !== call && c.command !== undefined && c.line < call.line && c.command.includes(k.name) && killedByName(c.command).length === 0);
    if (!started) return `killed every process matching ${JSON.stringify(k.name.slice(0, 80))} (${k.tool}; no earlier command of the session names it, though a program it ran may have started some)`;
  }
  return null;
}

/** A publisher's placeholder for a whole output it redacted: `[REDACTED_OUTPUT len=136 sha=b8890189]`. */
const REDACTED_OUTPUT = /^\[REDACTED_[A-Z_]+ len=\d+ sha=[0-9a-f]+\]$/;

/** The placeholder an image of a message becomes (`[image: image/png, 278 KB omitted]`, extract.ts). */
export const IMAGE_PLACEHOLDERS = /\[image: [^\]\n]{1,80} omitted\]\s*/g;

/**
 * A message or output the transcript's publisher redacted whole (`[REDACTED_MESSAGE len=86
 * sha=2239bcba]`): its words are not in the transcript. The images a message carried beside it are no words.
 */
export function publisherRedacted(text: string): boolean {
  const t = text.replace(IMAGE_PLACEHOLDERS, '').trim();
  return t.length < 80 && REDACTED_OUTPUT.test(t);
}

export function noteResult(l: Ledger, r: ResultInput): void {
  if (l.hiddenOpen?.[r.id] !== undefined) delete l.hiddenOpen[r.id];
  // A placeholder after the call's verdict was read (Codex reports a shell call twice) adds nothing.
  if (!r.subagent && r.ok === undefined && r.exitCode === undefined && r.output !== undefined && publisherRedacted(r.output) && l.calls[r.id]?.resulted === undefined) {
    l.hiddenResults = tally(l.hiddenResults, r.line);
  }
  let call = l.calls[r.id];
  // Codex code mode: a long script answers later, through `wait {cell_id}`.
  const waitOf = l.waits[r.id];
  if (waitOf !== undefined) call = l.calls[waitOf] ?? call;
  const out = r.output ?? '';
  const cell = codeModeCell.exec(out);
  if (cell?.[1] !== undefined && call !== undefined) {
    l.cells[cell[1]] = waitOf ?? r.id;
    trim(l.cells, LEDGER_LIMITS.CALLS);
    if (!r.subagent) {
      // Still running, a job until its `wait` answers (edgerunner at 301: `cargo test` running at
      // the cut, and "No test ran after the last file change" beside it).
      if (waitOf === undefined && call.command !== undefined) {
        l.jobs = { ...(l.jobs ?? {}), [cell[1]]: { id: cell[1], line: call.line, tool: call.name, command: clip(call.command, JOB_LIMITS.COMMAND_CHARS), status: 'running', moved: true } };
        trimJobs(l);
      }
      l.last = { event: 'tool_result', line: r.line };
    }
    return; // still running: no outcome yet
  }
  // Claude Code moves a shell that outlives its timeout to the background: the command has no
  // outcome yet, and the poll (BashOutput) that reports it completed gives it, at that line.
  const moved = call !== undefined && call.command !== undefined && !call.background && waitOf === undefined ? MOVED_TO_BACKGROUND.exec(out) : null;
  if (moved?.[1] !== undefined && call !== undefined) {
    l.cells[shellCell(moved[1])] = r.id;
    trim(l.cells, LEDGER_LIMITS.CALLS);
    // A job now, as one started in the background is: a successor must know it may still run.
    if (!r.subagent) {
      l.jobs = { ...(l.jobs ?? {}), [moved[1]]: { id: moved[1], line: call.line, tool: call.name, command: clip(call.command ?? '', JOB_LIMITS.COMMAND_CHARS), status: 'running', moved: true } };
      trimJobs(l);
      l.last = { event: 'tool_result', line: r.line };
    }
    return;
  }
  const movedJob = waitOf !== undefined && call !== undefined ? Object.values(l.jobs ?? {}).find((j) => j.line === call.line && j.status === 'running' && j.tool === call.name) : undefined;
  if (movedJob !== undefined) {
    const said = lastOutputLine(pollOutput(out));
    if (said !== null) movedJob.lastEvent = { line: r.line, text: said };
  }
  if (waitOf !== undefined && STILL_RUNNING.test(out)) {
    if (!r.subagent) l.last = { event: 'tool_result', line: r.line };
    // The poll answered (the job runs on): its own call has its result (coderabbit at 160: "No
    // result is recorded for the call at line 159 (a `BashOutput` call)" beside that answer).
    const poll = l.calls[r.id];
    if (poll !== undefined && poll !== call && poll.resulted === undefined) poll.resulted = r.line;
    return;
  }
  if (movedJob !== undefined) {
    const exit = POLL_EXIT.exec(out)?.[1];
    movedJob.status = exit === undefined ? 'ended' : exit === '0' ? 'completed' : 'failed';
    movedJob.endLine = r.line;
  }
  for (const m of out.matchAll(/^Installed \d+ executables?: (.+)$/gm)) {
    for (const name of (m[1] as string).split(',').map((x) => x.trim()).filter((x) => /^[\w.-]{1,64}$/.test(x))) {
      l.installed = [...(l.installed ?? []).filter((x) => x !== name), name].slice(-20);
    }
  }
  if (!r.subagent && call?.name !== 'hook') l.last = { event: 'tool_result', line: r.line };
  if (!r.subagent && call?.command !== undefined && r.denied === undefined && out.trim() !== '') {
    const whole = out.trim();
    const key = whole.length > LAST_SHELL.HEAD_CHARS + LAST_SHELL.TAIL_CHARS + 1 ? keyLines(whole, LAST_SHELL.HEAD_CHARS, LAST_SHELL.TAIL_CHARS) : [];
    l.lastShell = { line: r.line, callLine: call.line, command: clip(call.command, LAST_SHELL.COMMAND_CHARS), text: headAndTail(whole, LAST_SHELL.HEAD_CHARS, LAST_SHELL.TAIL_CHARS), chars: whole.length, ...(key.length > 0 ? { key } : {}) };
  }
  if (l.pendingQuestion?.id === r.id) l.pendingQuestion = null;
  if (!call) {
    // Claude Code may write a result before its call when calls run in parallel: keep it for the call.
    if (r.id !== '' && waitOf === undefined) {
      l.early = { ...(l.early ?? {}), [r.id]: r };
      trim(l.early, 32);
    }
    return;
  }
  // Codex reports a shell call twice (exec_command_end, then function_call_output): the first
  // report with a verdict decides the call's result, and a later one is neither a second run nor a
  // second failure. What was recorded is cited at the later report's line: the function_call_output
  // is the result in the model's own stream, the line a reader of the transcript looks for.
  if (call.resulted !== undefined) {
    moveResultLine(l, call.line, call.resulted, r.line);
    call.resulted = r.line;
    return;
  }
  if (r.denied !== undefined || r.interrupted === true || r.ok !== undefined || r.exitCode !== undefined) call.resulted = r.line;
  const failed = r.denied !== undefined || r.interrupted === true || r.ok === false || (r.exitCode !== undefined && r.exitCode !== 0);
  const outside = failed ? l.outside?.[call.name] : undefined;
  if (outside !== undefined) outside.failed += 1;
  if (!r.subagent) noteContext(l, call, r, out, failed);
  if (!failed) {
    noteSeen(l, call, r);
    closeMissingReads(l, call, r);
  }
  // A code-mode script that only patches fails as its patch does (edgerunner 161: "Script failed …
  // apply_patch verification failed", five of them, each said nowhere).
  // A package manager's error that a pipe hid from the exit code (`npm install react@19 2>&1 | tail
  // -5` printing `npm ERR! ERESOLVE`, exit 0): its manifest and lock may not have been written.
  const pmFailed = !failed && call.command !== undefined && PM_ERROR.test(out) && /\b(?:npm|pnpm|yarn|bun)\b/.test(call.command) && pipedInto(call.command) !== null;
  const unwritten = failed || pmFailed || (call.patchScript === true && r.patchFailed !== undefined);
  if (call.writes) noteWrites(l, call, r, unwritten);
  if (call.patchCommand === true && unwritten) l.patchCommandsFailed = (l.patchCommandsFailed ?? 0) + 1;
  if (call.fetches !== undefined && r.denied === undefined && !r.subagent) noteFetch(l, call.fetches, r, failed);
  if (call.command !== undefined && !call.background) {
    // A check the user rejected, or a rule denied, did not run: it is no run, passed or failed
    // (a denial is listed below as a call that did not run).
    if (call.targets) {
      if (r.denied === undefined) noteCheckRun(l, call, r);
    } else noteCommandResult(l, call, r, (failed && !exitMeansNoMatch(call.command, r.exitCode, out)) || (r.exitCode === undefined && crashed(out)));
    noteGit(l, call.command, out, r.line, failed, r.cwd);
    if (!failed && !r.subagent) noteJobOutputRead(l, call.command, out, r.line);
    if (r.denied === undefined && !r.subagent) noteScriptRun(l, call.command, out, r.line, r.cwd);
    if (!failed && r.denied === undefined && !r.subagent) noteSaidWritten(l, call, out, r);
    if (!failed && r.denied === undefined && REPO_MAKERS.test(call.command)) l.repoMade = r.line;
    if (!failed && r.denied === undefined && !r.subagent && copyInstall(call.command)) noteCopyInstall(l, call.command, out, r.line);
    else if (!failed && r.denied === undefined && !r.subagent && l.copyInstalled !== undefined && uncopies(call.command)) delete l.copyInstalled;
    if (r.denied === undefined && !r.subagent && r.interrupted !== true) noteStaleOutput(l, call.command, out, r.line);
    noteFormatting(l, call, r, out, failed);
    // A command that did not run destroyed nothing; one that failed may have done part of it.
    const what = r.denied === undefined ? (destroys(call.command) ?? killedOthers(l, call)) : null;
    if (what !== null) push((l.destroyed ??= []), call.line === r.line ? { line: r.line, command: clip(call.command, 200), what, ok: !failed } : { line: r.line, command: clip(call.command, 200), what, ok: !failed, call_line: call.line }, 20);
  }
  // A call the user rejected is the user's decision (its feedback is a request), not a failure;
  // one rejected without a word is said beside the requests (what the user stopped); a write's
  // names its file (Writes that did not happen gives it too, while the file stays unchanged).
  if (r.denied === 'rejected by the user' && call.question === undefined && !r.subagent) {
    // A write is named by its program and its file (a patch's heredoc says less at a glance).
    const file = call.writes?.[0]?.path;
    const aborted = call.afterAbort === undefined ? {} : { aborted: call.afterAbort };
    if (file !== undefined) push((l.rejected ??= []), { line: r.line, callLine: call.line, what: call.command?.trim().split(/\s/, 1)[0] ?? call.name, path: clip(file, 300), ...aborted }, 10);
    else push((l.rejected ??= []), { line: r.line, callLine: call.line, what: call.command !== undefined ? clip(call.command, 200) : call.name, ...aborted }, 10);
  }
  // A question the harness refused to put (Codex's `request_user_input is unavailable in Default
  // mode`) was never asked: the agent's question is still open, unlike one the user declined.
  const unasked = call.question !== undefined && r.denied !== undefined && r.modeRefused === true;
  if (r.denied !== undefined && !call.writes && (call.question === undefined || unasked) && !rejectedByUser(r.denied)) {
    const what = call.command !== undefined ? `\`${clip(call.command, 120)}\`` : call.name;
    // Not the user's decision but the agent's to get past (ask in words, or decide): passed over once it went on.
    push(l.failures, { line: r.line, text: `${what} did not run: ${clip(r.denied, 200)}`, keys: [`${call.name}:${call.command ?? ''}`], kind: unasked ? 'command' : 'denied' }, LEDGER_LIMITS.FAILURES);
  }
}

/** Commands that make a folder a git repository besides `git init`: a clone, a Rust crate, a scaffold. */
const REPO_MAKERS = /\b(?:git\s+clone|cargo\s+(?:new|init)|create-[\w-]+-app|npm\s+(?:create|init)\s+[\w@]|pnpm\s+create|yarn\s+create|bun\s+create|rails\s+new|dotnet\s+new|gh\s+repo\s+(?:create|clone))\b/;


/**
 * Whether a command's git ran in another folder than the call's (`git -C <dir>`, a folder other than
 * the call's own, or one a shell variable names): what it printed is that folder's repository's.
 */
function inAnotherFolder(command: string, cwd: string | undefined): boolean {
  const dir = gitDir(command);
  if (dir === null) return false;
  const d = dir.replace(/^["']|["']$/g, '').replace(/[\\/]+$/, '');
  if (d === '.' || d === '') return false;
  return cwd === undefined || filePath(d, cwd).replace(/[\\/]+$/, '') !== filePath(cwd).replace(/[\\/]+$/, '');
}

/** uv's lines for a project it built from a folder, and for one it installed from a folder. */
const UV_BUILT = /^\s*Built \S+ @ file:\/\//m;
const UV_FROM_FOLDER = /^\s*\+ \S+==\S+ \(from file:\/\//m;

/**
 * An install of the project as a copy. uv builds a folder's project once and installs that build
 * again while its version stands, whatever changed in the folder: an install that says where it
 * took the project from (`+ x==1.0.0 (from file://…)`) but built nothing holds the code of the last
 * build, not of now.
 */
function noteCopyInstall(l: Ledger, command: string, out: string, line: number): void {
  if (UV_BUILT.test(out)) l.lastBuilt = line;
  // Only an output read whole (uv's `Resolved …` first) that built nothing: a cut one (`| tail -2`) may have lost the line.
  const cached = UV_FROM_FOLDER.test(out) && !UV_BUILT.test(out) && /^\s*Resolved \d+ packages?\b/m.test(out) && !/--no-cache\b/.test(command);
  l.copyInstalled = cached ? { line, command: clip(command, 200), built: l.lastBuilt ?? -1 } : { line, command: clip(command, 200) };
}

/** A script's file: what an interpreter runs, or a file run as a program. */
const SCRIPT_FILE = /\.(?:mjs|cjs|js|ts|mts|py|sh|bash|rb|pl|php|ps1)$/i;
const SCRIPT_NAMED = /\.(?:mjs|cjs|js|ts|mts|py|sh|bash|rb|pl|php|ps1)\b/i;
/** Output that says a program stopped before its work for want of something it needs. */
const PREREQUISITE = /^.*(?:not found on (?:the )?PATH|: command not found|is not (?:set|installed|configured)|not installed\b|Cannot find module|ModuleNotFoundError|No module named|missing (?:required )?(?:environment variable|env var|API key|credentials?|config(?:uration)?)|(?:API key|token|credentials?) (?:is |are )?(?:missing|required|not (?:set|found|provided))).*$/im;

/** Programs that run the script named after them (`node x.mjs`, `uv run python x.py`), and the wrappers before them. */
const INTERPRETERS = new Set(['node', 'python', 'python3', 'py', 'bash', 'sh', 'zsh', 'deno', 'bun', 'tsx', 'ts-node', 'ruby', 'perl', 'php', 'pwsh', 'powershell']);
const WRAPPERS = new Set(['uv', 'run', 'npx', 'poetry', 'pipenv', 'pnpm', 'exec', 'env', 'time', 'sudo', 'dlx']);

/** The script a simple command runs: the first word when it is a script's path, else the first path after an interpreter. */
function scriptRun(tokens: readonly string[]): string | undefined {
  let i = 0;
  while (i < tokens.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(tokens[i] as string)) i += 1;
  const first = tokens[i];
  if (first === undefined) return undefined;
  if (SCRIPT_FILE.test(first)) return first;
  while (i < tokens.length && WRAPPERS.has(tokens[i] as string)) i += 1;
  if (!INTERPRETERS.has((tokens[i] ?? '').replace(/\.exe$/i, ''))) return undefined;
  for (let j = i + 1; j < tokens.length; j += 1) {
    const t = tokens[j] as string;
    if (t.startsWith('-')) continue;
    return SCRIPT_FILE.test(t) ? t : undefined;
  }
  return undefined;
}

/**
 * A run of a program the session created (`node scripts/zerion-readiness.mjs FAKE`): whether it
 * only printed its help, stopped on a missing prerequisite, or ran. A new program run only those
 * ways was never seen doing its work, whatever the agent then wrote of it ("shipped").
 */
function noteScriptRun(l: Ledger, command: string, out: string, line: number, cwd: string | undefined): void {
  // Most commands name no script, and the session has created none: neither is split into words.
  if (l.changedTotal === 0 || !SCRIPT_NAMED.test(command)) return;
  for (const seg of segments(command)) {
    const file = scriptRun(seg.trim().split(/\s+/).map((t) => t.replace(/^['"]|['"]$/g, '')));
    if (file === undefined) continue;
    const tokens = seg.trim().split(/\s+/);
    const key = heldKey(l.changed, filePath(file, cwd));
    const rec = key === undefined ? undefined : l.changed[key];
    if (key === undefined || rec === undefined || !(rec.how === 'create' || rec.made === true) || (rec.first ?? rec.line) >= line) continue;
    const scripts = (l.scripts ??= {});
    const s = (scripts[key] ??= { created: rec.first ?? rec.line, runs: 0, help: 0 });
    s.runs += 1;
    // Of the lines that say what is missing, an error's rather than a warning's.
    const lines = [...out.matchAll(new RegExp(PREREQUISITE.source, 'gim'))].map((m) => m[0].trim());
    const missing = lines.find((x) => /\berror\b/i.test(x)) ?? lines.at(-1);
    if (tokens.some((t) => t === '--help' || t === '-h' || t === 'help')) s.help += 1;
    else if (missing !== undefined) s.blocked = { line, text: clip(missing, 160) };
    else s.ran = line;
    trim(scripts, 20);
    return;
  }
}

/**
 * A line of a program's output that says it wrote a file, and which: `Saved scores for 183
 * engineers -> /…/data/scores.json`, `Wrote 12 rows to out/report.csv`, `Results written to
 * reports/q3.json`, `Created dist/bundle.js`. Past tense only (`Writing config.json…` may fail
 * after); a file's path has a folder, or an extension files have; a URL, a table (`public.users`),
 * a host, an address, a link (`Created symlink … → …`) or a write to the clipboard is none.
 */
const SAID_WRITTEN =
  /^[\s✓✔>*-]*(?:\[(?:info|ok|done|success)\]\s*|INFO:?\s*)?(?:saved|wrote|written|created|generated|exported|dumped|output written|results? (?:saved|written))\b([^\n]{0,120}?\s(?:->|=>|to|into|in|as|at)\s*:?\s+|\s*:\s*|\s+)[`'"]?((?:~|\.{1,2})?[\w./\\:+-]*?[\w-]\.[A-Za-z][A-Za-z0-9]{0,7})[`'"]?\s*[.!:]?\s*(?:\(\s*[\d.,]+\s*\w+\s*\)|in\s+[\d.]+\s*m?s)?$/gim;
/** Extensions a file a program reports may have when its path names no folder. */
const FILE_EXTENSION = /\.(?:json|jsonl|ndjson|csv|tsv|txt|md|html?|m?[jt]sx?|cjs|py|ipynb|pt|pth|onnx|h5|pkl|pickle|parquet|feather|arrow|npy|npz|ckpt|safetensors|png|jpe?g|gif|svg|webp|pdf|xml|ya?ml|toml|ini|cfg|log|sql|db|sqlite3?|zip|tar|gz|tgz|whl|out|bin|css|map|wasm|docx|xlsx|pptx|mp[34]|wav|srt|vtt|pem|crt|lock)$/i;
/** Programs whose output reports what happened elsewhere or earlier (another machine, a container, a log, git's records). */
const REPORTS_ELSEWHERE = /^(?:ssh|scp|docker|podman|kubectl|oc|journalctl|git|gh|glab|heroku|fly|flyctl|vercel|railway)$/;

/** How many files one output may say it wrote before it is read as a listing, not a report. */
const SAID_FILES = 8;

/**
 * Files a command that succeeded says it wrote (posthog at 1219: `python src/analyze.py` printed
 * `Saved scores for 183 engineers -> …/data/scores.json`, which no redirection or write of the
 * command shows): changed at the result's line, with the output's word for it (`said`). Not from a
 * command that only reads or prints (`tail train.log`), runs elsewhere (`ssh`, `docker logs`),
 * runs a check (what a test prints is the code under test's; what a build makes, its artifacts),
 * is a dry run, or printed an error; a relative path
 * from a command that moved to another folder first is not placed (it is relative to that folder).
 */
function noteSaidWritten(l: Ledger, call: CallRecord, out: string, r: ResultInput): void {
  if (out.length === 0 || out.length > 200_000 || !/\b(?:saved|wrote|written|created|generated|exported|dumped)\b/i.test(out)) return;
  const command = call.command ?? '';
  if (call.targets !== undefined || readsOnly(command) || programNames(command).some((p) => REPORTS_ELSEWHERE.test(p))) return;
  if (/\s--?(?:dry-?run|noop|what-?if)\b/i.test(command) || /\bdry[- ]?run\b|\bwould (?:write|create|save)\b/i.test(out) || crashed(out) || PM_ERROR.test(out)) return;
  const moved = changesFolder(command) || /\s(?:--prefix|-C|--cwd|--dir|--directory)[\s=]/.test(command);
  const paths: string[] = [];
  let lines: string[] | undefined;
  for (const m of out.matchAll(SAID_WRITTEN)) {
    const between = m[1] as string;
    const raw = m[2] as string;
    // `Saved checkpoint in checkpoints/ as epoch_3.pt`: the folder is in the words skipped.
    if (/\S\/(?:\s|$)/.test(between) || /\b(?:symlink|link)\b/i.test(m[0])) continue;
    if (/:\/\//.test(raw) || raw.includes('@') || (!/[/\\]/.test(raw) && (!FILE_EXTENSION.test(raw) || /\sin\s+$/.test(between)))) continue;
    // `Error: disk quota exceeded while writing out/summary.json`: a later line says the write failed.
    if ((lines ??= out.split('\n')).some((x) => x.includes(raw) && /\b(?:error|failed|exception|denied|cannot|could not)\b/i.test(x))) continue;
    if (moved && !/^(?:\/|[A-Za-z]:[\\/]|~)/.test(raw)) continue;
    const path = filePath(raw, r.cwd);
    if (isScratch(path) || /^(?:~|\$)/.test(path)) continue;
    if (!paths.includes(path)) paths.push(path);
    if (paths.length > SAID_FILES) return;
  }
  for (const path of paths) {
    // Written by the command itself (a redirection, `cp`): that write is the record.
    if (call.writes?.some((w) => fileKey(w.path) === fileKey(path)) === true) continue;
    // What a program made is its output, not a change of the code: no check it ran before is older for it.
    const code = l.lastChangeLine;
    markChanged(l, path, 'write', call.name, r.line, false);
    l.lastChangeLine = code;
    const key = heldKey(l.changed, path);
    if (key !== undefined) (l.changed[key] as Ledger['changed'][string]).said = r.line;
  }
}

/**
 * What the ledger recorded from one call's result, cited at a later report of the same result (a
 * Codex line holds one record, so what was recorded at `from` came from that result).
 */
function moveResultLine(l: Ledger, callLine: number, from: number, to: number): void {
  for (const c of l.checks) if (c.line === from && c.callLine === callLine) c.line = to;
  for (const f of l.failures) {
    if (f.line === from) f.line = to;
    if (f.closedLine === from) f.closedLine = to;
    if (f.formatted === from) f.formatted = to;
    if (f.found === from) f.found = to;
  }
}

/** What a result says beyond success: a file the user pointed at, a job started or stopped, the local clock. */
function noteContext(l: Ledger, call: CallRecord, r: ResultInput, out: string, failed: boolean): void {
  if (call.read !== undefined && !failed && out.length > 0) {
    const key = fileKey(call.read);
    l.reads = [...(l.reads ?? []).filter((x) => fileKey(x.path) !== key), { path: call.read, line: r.line }].slice(-8);
    const asked = namingRequest(call.read, l.requests);
    const docs = l.docs ?? [];
    const read = fileKey(call.read);
    if (asked !== null && !docs.some((d) => fileKey(d.path) === read)) {
      const lines = contentLines(readLines(out));
      const span = readSpan(out);
      if (lines.length > 0) l.docs = [...docs, { path: call.read, line: r.line, requestLine: asked, lines, ...(span === null ? {} : { span }) }].slice(-DOC_LIMITS.DOCS);
    }
  }
  if (call.job !== undefined && !failed) {
    const id = startedJobId(out);
    if (id !== null) {
      const job: Job = { id, line: call.line, tool: call.name, command: clip(call.job.command, JOB_LIMITS.COMMAND_CHARS), status: 'running' };
      if (call.job.description !== undefined) job.description = clip(call.job.description, 160);
      // A Codex command that outlived its call: what it printed so far is its progress.
      const said = runningSession(out) === id ? lastOutputLine(out) : null;
      if (said !== null) job.lastEvent = { line: r.line, text: said };
      // "Monitor started (task x, timeout 900000ms)": it stops by itself then, reported or not.
      const ms = /\btimeout (\d{1,9})ms\b/.exec(out)?.[1];
      const start = r.ts === undefined ? NaN : Date.parse(r.ts);
      if (ms !== undefined && Number.isFinite(start)) job.timeoutAt = new Date(start + Number(ms)).toISOString();
      l.jobs = { ...(l.jobs ?? {}), [id]: job };
      trimJobs(l);
    }
  }
  if (call.polls !== undefined) notePoll(l, call.polls, out, r.line);
  if (call.command !== undefined && !failed) noteJobPids(l, call.command, out, r.line);
  if (call.stops !== undefined && !failed) {
    const job = l.jobs?.[stoppedJobId(out) ?? call.stops];
    if (job !== undefined && job.status === 'running') {
      job.status = 'stopped';
      job.endLine = r.line;
    }
  }
  if (call.command !== undefined && r.ts !== undefined && !failed) {
    const offset = offsetFromDate(call.command, out, r.ts);
    if (offset !== null) l.clock = { offset, line: r.line };
  }
}

/**
 * A poll of (or input to) a running Codex command: still running (its session named again), or
 * ended — with its exit code when the answer gives one, stopped when the poll sent Ctrl-C.
 */
function notePoll(l: Ledger, poll: { session: string; interrupt?: true }, out: string, line: number): void {
  const job = l.jobs?.[poll.session];
  if (job === undefined || job.status !== 'running') return;
  const said = lastOutputLine(out);
  if (said !== null) job.lastEvent = { line, text: said };
  if (runningSession(out) === poll.session) return;
  const code = sessionExit(out);
  job.status = poll.interrupt === true ? 'stopped' : code === null ? 'ended' : code === 0 ? 'completed' : 'failed';
  job.endLine = line;
}

/**
 * A process listing's lines (`ps -axo pid,command`, `pgrep -af`: the pid first) tie a pid to a
 * running job whose command shares a distinctive word with the line (`127.0.0.1:8080`,
 * `data/runs/latest.jsonl`: `cargo run … -- serve --bind …` runs as `target/debug/x serve --bind …`);
 * a `kill` of that pid that succeeds stops the job (edgerunner: `kill 89483` ended the server the
 * handoff said still ran).
 */
function noteJobPids(l: Ledger, command: string, out: string, line: number): void {
  const running = Object.values(l.jobs ?? {}).filter((j) => j.status === 'running');
  if (running.length === 0) return;
  const kill = KILL.exec(command);
  if (kill !== null) {
    for (const pid of (kill[1] as string).trim().split(/\s+/)) {
      const job = l.jobs?.[l.jobPids?.[pid] ?? ''];
      if (job === undefined || job.status !== 'running') continue;
      job.status = 'stopped';
      job.endLine = line;
    }
    return;
  }
  if (!/\b(?:ps|pgrep)\b/.test(command)) return;
  const words = new Map(running.map((j) => [j, j.command.split(/\s+/).filter((w) => DISTINCT_WORD.test(w))]));
  for (const m of out.matchAll(/^[ \t]*(\d{2,7})[ \t]+(.+)$/gm)) {
    const listed = new Set((m[2] as string).split(/\s+/));
    const job = running.find((j) => (words.get(j) ?? []).some((w) => listed.has(w)));
    if (job === undefined) continue;
    l.jobPids = { ...(l.jobPids ?? {}), [m[1] as string]: job.id };
    trim(l.jobPids, JOB_LIMITS.JOBS);
  }
}

/** `kill 89483`, `kill -9 1234 5678`, `kill -TERM 42`: the pids. */
const KILL = /^\s*kill(?:\s+-(?:\d{1,2}|[A-Z]{3,8}|s\s+[A-Z]{3,8}))?((?:\s+\d{2,7})+)\s*$/;
/** A word of a command that says which process it is: an address, a path, a file (not a flag or a plain word). */
const DISTINCT_WORD = /^(?!-)(?=.{6,})(?=.*[:/.])(?=.*[\w])[^\s'"]+$/;

/** A notification about a background job: its progress, or its end. */
export function noteJobText(l: Ledger, text: string, line: number): void {
  for (const n of jobNotices(text)) {
    const job = l.jobs?.[n.id];
    if (job === undefined) continue;
    if (n.text !== undefined && (job.lastEvent === undefined || job.lastEvent.line <= line)) job.lastEvent = { line, text: n.text };
    if (n.status !== undefined && job.status === 'running') {
      job.status = n.status;
      job.endLine = line;
      const killed = n.status === 'failed' ? killedBySession(l, job, line) : null;
      if (killed !== null) {
        job.status = 'stopped';
        job.killedAt = killed;
      }
    }
  }
}

/**
 * The line of the session's kill by name (`pkill -f fetch.py`, `killall node`) of a job's program
 * between its start and its end, or null: a job that ended "failed" after it was stopped.
 */
function killedBySession(l: Ledger, job: Job, end: number): number | null {
  let at: number | null = null;
  for (const c of Object.values(l.calls)) {
    if (c.line <= job.line || c.line >= end || c.command === undefined || c.subagent === true) continue;
    if (killedByName(c.command).some((k) => k.name.length >= 3 && job.command.includes(k.name)) && (at === null || c.line > at)) at = c.line;
  }
  return at;
}

function noteWrites(l: Ledger, call: CallRecord, r: ResultInput, failed: boolean): void {
  // A shell command of several files that ran and failed (`sed -i … a.py b.py c.py` that could not
  // read the third, `rm` of three with one refused) may have written the others first: a patch,
  // an edit tool, a refusal or an interruption before it ran writes none.
  const several = failed && r.denied === undefined && r.interrupted !== true && call.command !== undefined && !/^\s*apply_patch\b/.test(call.command) && call.patchScript !== true && (call.writes?.length ?? 0) > 1;
  for (const w of call.writes ?? []) {
    if (failed) {
      // Code mode's header ("Script failed") says nothing; the patch's error does.
      const said = r.patchFailed ?? (r.output ? firstLine(r.output) : '');
      const reason = r.denied ?? (r.interrupted ? 'interrupted' : `the tool reported an error${said ? `: ${clip(said, 160)}` : ''}`);
      markNotChanged(l, w.path, r.line, reason, several);
      continue;
    }
    // No verdict recorded: not claimed, unless the package manager's own summary says it changed the dependencies.
    if (r.ok === undefined && r.exitCode === undefined && !(w.manager === true && dependenciesChanged(r.output ?? '') && !PM_ERROR.test(r.output ?? ''))) continue;
    // `rm -f` succeeds on a file that was never there: a deletion only of one the session had.
    if (w.ifExists === true && heldKey(l.changed, w.path) === undefined && !(l.seen ?? []).some((p) => fileKey(p) === fileKey(w.path))) continue;
    // Claude Code's Write says when the file is new.
    const how = w.how === 'write' && /^\s*File created successfully at/.test(r.output ?? '') ? 'create' : w.how;
    // Codex reports a patch by an event (patch_apply_end) before the call's own result: one write.
    const key = heldKey(l.changed, w.path);
    const had = key === undefined ? undefined : l.changed[key];
    const reported = had?.event === true && had.line > call.line && had.line <= r.line;
    markChanged(l, w.path, how, call.name, r.line, call.subagent === true, w.what, !reported, false, w.gone);
    // Codex reports a patch by its event first: the texts are read from the call's own result (the event carries none).
    if (!call.subagent) notePrinted(l, w, r.line);
  }
}

/** How many edits' and writes' printable texts are remembered. */
const PRINTED_EDITS = 8;
const PRINTED_ADDED = 300;

/** What a successful write took out and put in, as a program could print it (staleOutput). */
function notePrinted(l: Ledger, w: CallWrite, line: number): void {
  const added = w.added ?? [];
  if (added.length > 0) {
    const put = new Set(added);
    for (const g of l.printedGone ?? []) g.d = g.d.filter((d) => !put.has(d));
    l.printedGone = l.printedGone?.filter((g) => g.d.length > 0);
    l.printedAdded = [...(l.printedAdded ?? []).filter((d) => !put.has(d)), ...added].slice(-PRINTED_ADDED);
  }
  // Text moved to another file (put in by a recent write) still prints from there.
  const recent = new Set(l.printedAdded ?? []);
  const gone = (w.removed ?? []).filter((d) => !recent.has(d));
  if (gone.length > 0) l.printedGone = [...(l.printedGone ?? []), { path: w.path, line, d: gone }].slice(-PRINTED_EDITS);
}

/**
 * A run that still prints texts the session's edit took out ran code older than the edit: an
 * install, build or server that was not renewed (coderabbit at 152: `coderabbit-extract` printed
 * the banner its edit at 129 removed; uv had reused its cached build). Two texts or more of one
 * edit, from a command that shows no file's text; a later run of the same command that prints none
 * of them ends it.
 */
function noteStaleOutput(l: Ledger, command: string, out: string, line: number): void {
  if (l.printedGone === undefined || l.printedGone.length === 0) {
    if (l.staleOutput !== undefined && l.staleOutput.key === commandKey(command)) delete l.staleOutput;
    return;
  }
  if (showsFiles(command)) return;
  const key = commandKey(command);
  const hits = new Map<number, { n: number; first: string; seen: Set<string> }>();
  // Only a line as long as a text an edit took out is hashed.
  const lengths = new Set<number>();
  for (const g of l.printedGone) for (const d of g.d) lengths.add(Number.parseInt(d, 10));
  for (const raw of out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split('\n')) {
    const t = raw.trim();
    if (!lengths.has(t.length)) continue;
    const d = printedDigest(t);
    l.printedGone.forEach((g, i) => {
      if (g.line >= line || !g.d.includes(d)) return;
      const h = hits.get(i) ?? { n: 0, first: t, seen: new Set<string>() };
      if (!h.seen.has(d)) {
        h.seen.add(d);
        h.n += 1;
      }
      hits.set(i, h);
    });
  }
  let best: [number, { n: number; first: string }] | undefined;
  for (const e of hits) if (e[1].n >= 2 && (best === undefined || e[1].n > best[1].n)) best = e;
  if (best === undefined) {
    if (l.staleOutput?.key === key) delete l.staleOutput;
    return;
  }
  const g = l.printedGone[best[0]] as { path: string; line: number };
  l.staleOutput = { line, command: clip(command, 160), key, path: g.path, editLine: g.line, count: best[1].n, first: clip(best[1].first, 160) };
}

/**
 * `path` as filePath gives it (src/core/paths.ts): one file, one entry. `counted`: a write of its
 * own (false for a second report of one write); `event`: reported by an event that the call's own
 * result may report again (Codex's patch_apply_end).
 */
export function markChanged(l: Ledger, path: string, how: WriteHow, tool: string, line: number, subagent: boolean, what?: readonly string[], counted = true, event = false, gone?: readonly string[]): void {
  const key = heldKey(l.changed, path);
  const had = key === undefined ? undefined : l.changed[key];
  if (key !== undefined) delete l.changed[key];
  else l.changedTotal += 1;
  // A file the session created stays a creation through later edits; a deletion is the last word.
  const rec: Ledger['changed'][string] = { line, how: had?.how === 'create' && how !== 'delete' ? 'create' : how, tool };
  if (subagent) rec.subagent = true;
  // Created by the session, and `how` no longer says so (deleted since): the file is as it was
  // before the session, when there was none.
  if (rec.how !== 'create' && (had?.how === 'create' || had?.made === true)) rec.made = true;
  // A file the session wrote over whole (a create where git showed one) stays so through later
  // patches (agentcmd: `*** Add File` over a tracked route, then a patch): its old content is gone.
  if (had?.existed !== undefined && rec.how !== 'delete') rec.existed = had.existed;
  // A file written again keeps where it was first written (often the main change) and how often.
  if (had !== undefined && counted) {
    rec.first = had.first ?? had.line;
    rec.writes = (had.writes ?? 1) + 1;
  } else if (had?.first !== undefined && had.writes !== undefined) {
    rec.first = had.first;
    rec.writes = had.writes;
  }
  if (event) rec.event = true;
  // What the latest writes define, newest first; older items fill the rest of the bound.
  // Placeholders an older write left may have been filled since: only the latest write's count.
  // A definition a later write took out is no longer what the file defines.
  const out = new Set(gone ?? []);
  const older = (had?.what ?? []).filter((x) => !x.startsWith('placeholders ') && !out.has(definitionName(x)));
  const items = [...(what ?? []), ...older].filter((x, i, all) => all.indexOf(x) === i).slice(0, WHAT_LIMITS.ITEMS);
  if (items.length > 0) rec.what = items;
  l.changed[path] = rec;
  // The first write after a failed one is where the change was made after all (a patch of four
  // files refused for one of them, each file written again right after): not the file's latest write.
  for (const f of l.writeFailures ?? []) if (f.redoneAt === undefined && f.line < line && fileKey(f.path) === fileKey(path)) f.redoneAt = line;
  const refused = heldKey(l.notChanged, path);
  if (refused !== undefined) delete l.notChanged[refused];
  trim(l.changed, LEDGER_LIMITS.FILES);
  if (!isDocumentation(path) && !isScratch(path)) l.lastChangeLine = line;
}

/**
 * Files no test, build, type check or lint reads: a README, a changelog, an ignore list. A
 * change to one after the last check does not leave the code unchecked.
 */
const DOCUMENTATION = /(?:^|\/)(?:[^/]+\.(?:md|mdx|markdown|rst|adoc)|\.gitignore|\.gitattributes|\.dockerignore|\.editorconfig|LICENSE(?:\.[a-z]+)?|COPYING|AUTHORS|NOTICE|CHANGELOG(?:\.[a-z]+)?)$/i;

export function isDocumentation(path: string): boolean {
  return DOCUMENTATION.test(path);
}

/** A scratch file in the system's temporary folder (`/tmp/wip.patch`): no part of the project's code. */
export function isScratch(path: string): boolean {
  return /^(?:\/tmp|\/var\/tmp|\/private\/tmp|\/private\/var\/folders)\//.test(path.replace(/\\/g, '/'));
}

/** How many files `seen` keeps (the latest). */
const SEEN_FILES = 200;

/** Files a successful call proves were there: the one it read, the ones it copied from. */
function noteSeen(l: Ledger, call: CallRecord, r: ResultInput): void {
  const had = [...(call.read !== undefined ? [call.read] : []), ...(call.command !== undefined ? copySources(call.command).map((p) => filePath(p, r.cwd)) : [])];
  noteAgain(l, call, r, had);
  if (had.length === 0) return;
  const keys = new Set(had.map(fileKey));
  l.seen = [...had, ...(l.seen ?? []).filter((p) => !keys.has(fileKey(p)))].slice(0, SEEN_FILES);
}

/**
 * A file the session deleted that a later command which succeeded names by its path (with its
 * folder: `data/raw/prs.json`, not a bare `prs.json` that a search may name): it may be there
 * again (posthog at 560: `python3 -c "…open('…/data/raw/prs.json')…"` read what the background
 * fetch wrote after the `rm -f` of 353). Weaker than a read or a listing: a command may name a
 * path and not touch the file (`grep data/raw/prs.json .gitignore`), so it is said as may.
 */
function noteNamedAgain(l: Ledger, call: CallRecord, command: string, r: ResultInput): void {
  if (!hasDeletion(l) || !namesOnlyToUse(command, r.output ?? '')) return;
  // A command that moves elsewhere first (`cd ../archive && wc -c data/raw/prs.json`) names another file by a relative path.
  const moved = changesFolder(command);
  for (const key in l.changed) {
    const rec = l.changed[key] as Ledger['changed'][string];
    if (rec.how !== 'delete' || rec.line >= r.line || rec.again !== undefined) continue;
    if (call.writes?.some((w) => heldKey(l.changed, w.path) === key) === true) continue;
    const cwd = r.cwd?.replace(/[\\/]+$/, '');
    const rel = cwd !== undefined && key.startsWith(`${cwd}/`) ? key.slice(cwd.length + 1) : null;
    const forms = [key, ...(rel !== null && rel.includes('/') && !moved ? [rel, `./${rel}`] : [])];
    if (forms.some((f) => namesPath(command, f))) rec.named = r.line;
  }
}

const hasDeletion = (l: Ledger): boolean => Object.values(l.changed).some((c) => c.how === 'delete');

/**
 * Programs that name a path without needing the file (a search, a print, git's own records) or
 * test whether it is there; an output that says a file is missing.
 */
const NAMES_WITHOUT_USE = new Set(['git', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'find', 'fd', 'locate', 'echo', 'printf', 'test', '[', '[[', 'rm', 'unlink', 'trash', 'stat', 'ls', 'file', 'realpath', 'readlink', 'dirname', 'basename']);
const SAYS_MISSING = /\b(?:no such file|not found|cannot access|can't open|does not exist|doesn't exist|FileNotFoundError|ENOENT|not there|missing|gone)\b/i;

/** Whether a command that succeeded and names a path used the file: not a test of it, a search or a print. */
function namesOnlyToUse(command: string, out: string): boolean {
  if (/\|\||(?:^|\s)!\s|\s-[ef]\s/.test(command) || SAYS_MISSING.test(out.slice(0, 4000))) return false;
  return !programNames(command).some((p) => NAMES_WITHOUT_USE.has(p));
}

/** Whether a command's text holds a path whole: not inside a longer name or path. */
function namesPath(command: string, path: string): boolean {
  for (let at = command.indexOf(path); at !== -1; at = command.indexOf(path, at + 1)) {
    if (at > 0 && /[\w.\\/~-]/.test(command.charAt(at - 1))) continue;
    const end = at + path.length;
    // Not a longer name (`prs.json.bak`, `prs.json2`) nor a path below it.
    if (/[\w\\/-]/.test(command.charAt(end)) || (command.charAt(end) === '.' && /\w/.test(command.charAt(end + 1)))) continue;
    return true;
  }
  return false;
}

/**
 * A file the session deleted that a later call shows there again (read, copied from, or named by
 * an `ls` of its folder): something the session ran made it again, which no write of it shows (a
 * script's output). The deletion is no longer the last word on it.
 */
function noteAgain(l: Ledger, call: CallRecord, r: ResultInput, had: readonly string[]): void {
  const seen = (key: string | undefined): void => {
    const rec = key === undefined ? undefined : l.changed[key];
    if (rec !== undefined && rec.how === 'delete' && rec.line < r.line) rec.again = r.line;
  };
  for (const p of had) seen(heldKey(l.changed, p));
  if (call.command !== undefined && (r.exitCode === 0 || (r.exitCode === undefined && r.ok === true))) noteNamedAgain(l, call, call.command, r);
  const listing = call.command === undefined || r.output === undefined ? null : lsListing(call.command, r.output);
  if (listing === null) return;
  for (const [key, rec] of Object.entries(l.changed)) {
    if (rec.how !== 'delete' || rec.line >= r.line) continue;
    const name = key.split(/[\\/]/).pop() ?? '';
    if (!listing.names.has(name)) continue;
    if (listing.folders.some((f) => heldKey(l.changed, filePath(`${f.replace(/[\\/]+$/, '')}/${name}`, r.cwd)) === key)) seen(key);
  }
}

/**
 * A format check's list of files to rewrite, and a formatter run that rewrote files in place: the
 * files its output names (black, isort), or, when it gives only a count (`6 files reformatted`),
 * the files the latest format check listed if they are as many. Otherwise the count is kept, and
 * the handoff says how many files went unnamed.
 */
function noteFormatting(l: Ledger, call: CallRecord, r: ResultInput, out: string, failed: boolean): void {
  const listed = wouldReformat(out);
  if (listed.length > 0) l.wouldReformat = { paths: listed.slice(0, LEDGER_LIMITS.FILES).map((p) => filePath(p, r.cwd)), line: r.line };
  if (!failed && call.command !== undefined && r.denied === undefined && r.interrupted !== true) closeFormatChecks(l, call.command, r.line);
  if (failed || call.command === undefined || !rewritingFormatter(call.command)) return;
  const named = reformattedNamed(out).map((p) => filePath(p, r.cwd));
  const count = reformattedCount(out);
  const paths = named.length > 0 ? named : count > 0 && l.wouldReformat?.paths.length === count ? l.wouldReformat.paths : [];
  for (const p of paths) markChanged(l, p, 'edit', call.name, r.line, call.subagent === true);
  if (paths.length === 0 && count > 0) push((l.unnamedWrites ??= []), { line: r.line, command: clip(call.command, 160), count }, 10);
  if (paths.length > 0 || count > 0) delete l.wouldReformat;
}

/** How many failed writes are kept, the latest. */
const WRITE_FAILURES = 20;

/** A write that did not happen; a later failure does not undo an earlier change. */
export function markNotChanged(l: Ledger, path: string, line: number, reason: string, maybe = false): void {
  // One record a file, its latest failure (what files_redone and the writes not made say of it), so
  // the bound counts files, not attempts: a patch of ten files failed, then three of four, then ...
  // pushed a file's only failure out (edgerunner at 700: "14 file(s)" of 16).
  const list = (l.writeFailures ??= []);
  const was = list.findIndex((f) => fileKey(f.path) === fileKey(path));
  if (was !== -1) list.splice(was, 1);
  else if (list.length >= WRITE_FAILURES) l.writeFailuresDropped = (l.writeFailuresDropped ?? 0) + 1;
  push(list, { path, line, reason: clip(reason, 240) }, WRITE_FAILURES);
  if (heldKey(l.changed, path) !== undefined) return;
  l.notChanged[heldKey(l.notChanged, path) ?? path] = maybe ? { line, reason, maybe: true } : { line, reason };
  trim(l.notChanged, LEDGER_LIMITS.FILES);
}

function firstLine(s: string): string {
  return s.trim().split('\n').find((x) => x.trim().length > 0)?.trim() ?? '';
}

function noteCheckRun(l: Ledger, call: CallRecord, r: ResultInput): void {
  const targets = call.targets ?? [];
  const kind = targets[0]?.kind ?? 'test';
  let decided = decideOutcome(kind, r.exitCode, r.interrupted ? false : r.ok, r.output ?? '');
  // A run of the session's own program is a smoke test whose verdict only its output can give:
  // exit 0 does not prove it right, and a usage message exits 1 by design. Listed, never judged,
  // except a crash (a traceback, `ModuleNotFoundError: …`): a failure, which a later run of the same
  // program that exits clean without one closes, itself still unjudged.
  if (targets.every((t) => t.tool.startsWith('run '))) {
    const out = r.output ?? '';
    const didCrash = crashed(out);
    decided = didCrash ? { outcome: 'fail', line: crashLine(out) ?? decided.line } : { outcome: 'unknown', line: decided.line };
    const clean = !didCrash && r.interrupted !== true && (r.exitCode === 0 || (r.exitCode === undefined && r.ok === true));
    if (clean) closeFailures(l, targets, r.line);
  }
  // A failed chain of checks joined by `&&` whose output shows a later check starting: the checks
  // before it passed (`npm run lint && npm run build && npm audit` that only the audit failed).
  let failedTargets: readonly CheckTarget[] = targets;
  let passed: { key: string; command: string }[] | undefined;
  if (decided.outcome === 'fail' && targets.length > 1 && andChain(call.command ?? '')) {
    const k = lastStarted(targets.map((t) => t.key), r.output ?? '');
    if (k > 0) {
      closeFailures(l, targets.slice(0, k), r.line);
      failedTargets = targets.slice(k);
      passed = chainSteps(call.command ?? '', targets.slice(0, k));
    }
  }
  // A selection that matched no test says so, before the line that shows it.
  const summary = decided.line === null ? null : decided.nothingRan === true ? `${NOTHING_RAN}${decided.line}` : decided.line;
  const run: CheckRun = { line: r.line, callLine: call.line, command: clip(checkText(call.command ?? ''), 400), outcome: decided.outcome, keys: targets.map((t) => t.key), summary: summary === null ? null : clip(summary, 240) };
  if (passed !== undefined) run.passed = passed;
  if (r.exitCode !== undefined) run.exitCode = r.exitCode;
  if (call.name === 'hook') run.by = 'hook';
  l.checksTotal += 1;
  push(l.checks, run, LEDGER_LIMITS.CHECKS);
  const rows = r.interrupted === true ? null : coverageMissing(r.output ?? '');
  if (rows !== null) {
    const missing = rows.filter((f) => f.spans !== '').slice(0, 60);
    // Of a report run in another folder (`cd ../fork && pytest --cov`), no file is this project's.
    const full = changesFolder(call.command ?? '') ? [] : rows.filter((f) => f.spans === '' && f.partial !== true).map((f) => f.file).slice(0, 100);
    l.coverage = full.length === 0 ? { line: r.line, command: run.command, missing } : { line: r.line, command: run.command, missing, full };
    // A claim a report contradicted is settled by a later one that lists its file with nothing missing.
    for (const c of l.contradictions) if (c.covered !== undefined && c.settled === undefined && full.includes(c.covered.file)) c.settled = r.line;
  }
  if (decided.outcome === 'pass') closeFailures(l, targets, r.line);
  else if (decided.outcome === 'fail' && decided.nothingRan !== true) {
    const what = run.summary ? `: ${run.summary}` : '';
    const errorFiles = typeErrorFiles(r.output ?? '');
    push(l.failures, { line: r.line, text: `\`${clip(call.command ?? '', 160)}\` failed${r.exitCode !== undefined ? ` (exit ${r.exitCode})` : ''}${what}`, keys: failedTargets.map((t) => t.key), kind: 'check', ...(errorFiles.length > 0 ? { errorFiles } : {}) }, LEDGER_LIMITS.FAILURES);
  }
}

/** Each target with the step of the `&&` chain that runs it (the chain itself when none is found). */
function chainSteps(command: string, targets: readonly CheckTarget[]): { key: string; command: string }[] {
  const steps = segments(command).map((seg) => ({ seg, keys: checkTargets(seg).map((t) => t.key) }));
  return targets.map((t) => ({ key: t.key, command: clip(steps.find((s) => s.keys.includes(t.key))?.seg.trim() ?? command, 200) }));
}

/** The open check failures a run of `targets` at `line` closes. */
function closeFailures(l: Ledger, targets: readonly CheckTarget[], line: number): void {
  for (const f of l.failures) {
    if (f.kind !== 'check') continue;
    // A failure its formatter answered is closed again by a later run of every one of its checks
    // that passed (edgerunner: formatted at 702, the format check passed at 786): the run proves more.
    if (f.closedLine !== undefined && f.formatted === f.closedLine && f.closedLine < line && f.keys.every((k) => closes(targets, [k]))) {
      f.closedLine = line;
      continue;
    }
    if (f.closedLine === undefined) cover(f, (k) => closes(targets, [k]), line);
  }
}

/**
 * Marks the checks of an open failure that `answered` says were answered at `line`; the failure
 * closes when each of its checks has been (which of several failed is not known). Whether any was.
 */
function cover(f: FailureEntry, answered: (key: string) => boolean, line: number): boolean {
  const covered = new Set(f.covered);
  for (const k of f.keys) if (answered(k)) covered.add(k);
  if (covered.size === (f.covered?.length ?? 0)) return false; // none of its checks ran here
  if (f.keys.every((k) => covered.has(k))) {
    f.closedLine = line;
    delete f.covered;
  } else f.covered = [...covered];
  return true;
}

/** Whether formatters that ran clean answer a format check's key: the same tool, over all or over the same paths. */
export function formatterAnswers(ran: readonly { tool: string; paths: readonly string[] }[], k: string): boolean {
  return ran.some((f) => k === f.tool || (f.paths.length === 0 && k.startsWith(`${f.tool} `)) || (f.paths.length > 0 && k === `${f.tool} ${[...f.paths].sort().join(' ')}`));
}

/**
 * A formatter that ran clean over what a format check of it failed on answers that check: the
 * files are rewritten as the check wants them. It is said as formatting, not as a passing run
 * (the check was not run again). A failure of several checks closes when the others passed too.
 */
function closeFormatChecks(l: Ledger, command: string, line: number): void {
  const ran = formattedFor(command);
  if (ran.length === 0) return;
  // Kept for the checks a later change dates (analysis.ts `ranAgain`): `cargo fmt --all` answers
  // `cargo fmt -- --check` as a run of it would (edgerunner at 245).
  l.formatRuns = [...(l.formatRuns ?? []), ...ran.map((f) => ({ ...f, line }))].slice(-10);
  const answers = (k: string): boolean => formatterAnswers(ran, k);
  for (const f of l.failures) {
    if (f.closedLine !== undefined || f.kind !== 'check' || f.line >= line) continue;
    if (cover(f, answers, line)) f.formatted = line;
  }
}

/** A long command is shown by its check steps: a script that lists files, then runs the tests, is its tests. */
function checkText(command: string): string {
  if (command.length <= 160) return command;
  const steps = segments(command).filter((seg) => checkTargets(seg).length > 0);
  return steps.length > 0 ? steps.join(' && ') : command;
}

/** A passing run of the left proves what the right checks: `cargo test` compiles, as `cargo check` does. */
export const IMPLIES: Readonly<Record<string, readonly string[]>> = {
  // A run of the tests compiles them first: what `cargo test --no-run` alone does (edgerunner at 702).
  'cargo test': ['cargo check', 'cargo build', 'cargo test --no-run'],
  'cargo bench': ['cargo bench --no-run'],
  'cargo clippy': ['cargo check'],
  'cargo build': ['cargo check'],
};

/** A passing run closes a failure when it runs one of the same targets, or the same tool over its whole scope. */
export function closes(passing: readonly CheckTarget[], failedKeys: readonly string[]): boolean {
  for (const t of passing) {
    for (const k of failedKeys) {
      if (t.key === k || IMPLIES[t.key]?.includes(k) === true) return true;
      if (t.paths.length === 0 && (k === t.tool || k.startsWith(`${t.tool} `))) return true;
    }
  }
  return false;
}

/**
 * A command whose exit code a pipe hid (`pnpm --version 2>&1 | head -5`) that printed, as its last
 * line, the error an earlier command of the session failed with: it failed the same way (FundWise at
 * 171: "This project is configured to use yarn …", after two runs that exited 1 on it). The open
 * failure it repeats, or null.
 */
function sameErrorHidden(l: Ledger, command: string, output: string): FailureEntry | null {
  if (pipedInto(command) === null) return null;
  // A few lines, the error last: not a server's banner cut by `head -12` (a dev server that timed
  // out before, then started), nor a log read for the error it holds (`cat deploy.log | tail -3`).
  if (output.split('\n').filter((x) => x.trim().length > 0).length > 3) return null;
  const last = lastLine(output);
  if (last === null || last.length < 24) return null;
  const runs = programsRun(command);
  if (runs.length === 0) return null;
  for (let i = l.failures.length - 1; i >= 0; i -= 1) {
    const f = l.failures[i] as FailureEntry;
    if (f.kind !== 'command' || f.closedLine !== undefined || !f.text.includes(`: ${last}`)) continue;
    // The same program ran again: `pnpm --version` after `pnpm --version && cat …` failed.
    if (programsRun(f.keys[0] ?? '').some((p) => runs.includes(p))) return f;
  }
  return null;
}

/**
 * A read of a finished job's output file (Claude Code's `…/tasks/<id>.output`) that shows it
 * crashed: the job failed, whatever exit code its notification gave (posthog at 110: two runs of
 * `python src/fetch.py 2>&1 | tail -60` "completed (exit code 0)", `tail`'s, and their output, read
 * by `cat`, ended in `RuntimeError: PR fetch failed page 1: …`).
 */
function noteJobOutputRead(l: Ledger, command: string, out: string, line: number): void {
  if (!command.includes('.output')) return;
  // The output ends on the exception: a traceback logged and recovered from ends on what came after.
  const last = lastLine(out);
  if (last === null || !EXCEPTION_LINE.test(last)) return;
  // One job's file read: a `tail` of two says nothing of which crashed.
  const read = Object.values(l.jobs ?? {}).filter((j) => command.includes(`${j.id}.output`));
  const j = read.length === 1 ? read[0] : undefined;
  // Completed by its notification, whose exit code a pipe gave (without one, exit 0 was the program's).
  if (j === undefined || j.status !== 'completed' || j.endLine === undefined || j.endLine > line || pipedInto(j.command) === null) return;
  j.status = 'failed';
  j.lastEvent = { line, text: clip(`its output, read at line ${line}, ends in a crash (its exit code was its pipe's): ${last}`, JOB_LIMITS.EVENT_CHARS) };
}

/**
 * A commit whose hash its output lost, named by a later push: the commit was the session's last
 * before the push that sent it (the first after it), and that push the last before this one, so
 * the remote's tip this push moved from (`0d982ca..813a320  main -> main`) is that commit (posthog
 * at 647: the cut commit of 519, pushed by `gh repo create --push` at 523).
 */
function namePushedUnnamed(l: Ledger, updates: readonly { from: string; to: string; dst: string; url: string }[], prevPush: number, line: number): void {
  // One branch moved, the one the earlier push sent it to.
  if (updates.length !== 1) return;
  const u = updates[0] as (typeof updates)[number];
  if (!/^[0-9a-f]{7,40}$/.test(u.from)) return;
  const from = u.from;
  const pending = l.unnamedCommits ?? [];
  // Nothing between the two pushes brought other commits (a pull, a merge) or rewrote the branch.
  if (Math.max(l.headRewrite ?? 0, l.lastRebaseLine ?? 0) > prevPush) return;
  // The same branch of the same remote.
  const i = pending.findIndex((p) => p.pushLine === prevPush && p.merge !== true && p.pushedTo?.length === 1 && p.pushedTo[0] === clip(`${u.url} ${u.dst}`, 300));
  if (i === -1) return;
  const p = pending[i] as NonNullable<Ledger['unnamedCommits']>[number];
  // No other commit between it and its push: the push sent it as the branch's tip.
  if (l.commits.some((c) => c.line > p.line && c.line <= prevPush) || pending.some((q) => q !== p && q.line > p.line && q.line <= prevPush)) return;
  if (l.commits.some((c) => sameHash(c.hash, from))) return;
  pending.splice(i, 1);
  push(l.commits, { hash: from, subject: clip(p.subject, 160), branch: '', line: p.line, pushed: true, pushLine: prevPush, hashLine: line, hashByPush: true }, LEDGER_LIMITS.COMMITS);
  l.commits.sort((x, y) => x.line - y.line);
}

function noteCommandResult(l: Ledger, call: CallRecord, r: ResultInput, failed: boolean): void {
  const again = failed ? null : sameErrorHidden(l, call.command ?? '', r.output ?? '');
  if (again !== null) {
    const piped = pipedInto(call.command ?? '') as string;
    push(l.failures, { line: r.line, text: `\`${clip(call.command ?? '', 160)}\` printed the error the command of line ${again.line} failed with, its exit code hidden by \`${piped}\`: ${lastLine(r.output ?? '') ?? ''}`, keys: [commandKey(call.command ?? '')], kind: 'command' }, LEDGER_LIMITS.FAILURES);
    return;
  }
  if (!failed) {
    // The same command succeeding later closes its earlier failure; so does the tool running
    // at all after it was denied.
    let key: string | undefined;
    for (const f of l.failures) {
      if (f.closedLine !== undefined) continue;
      if ((f.kind === 'command' && f.keys[0] === (key ??= commandKey(call.command ?? ''))) || (f.kind === 'denied' && f.keys[0] === `${call.name}:${call.command ?? ''}`)) f.closedLine = r.line;
    }
    return;
  }
  if (r.denied !== undefined) return; // listed as a denied call
  if (lookupPartlyMissed(call.command ?? '', r.output ?? '')) return;
  // `git log` in a repository with no commit fails by saying so: what it says is the repository's
  // state, not a fault of the command; said as a bare failure, it read as one to fix by committing.
  const empty = noCommitsYet(r.output ?? '');
  const onlyGit = empty !== null && segments(call.command ?? '').every((s) => /^\s*(?:cd\s+\S+|git\b.*)$/s.test(s));
  const what = onlyGit ? `the branch \`${empty}\` has no commits yet (the repository's state: nothing was committed on it; no fault of the command)` : failureLine(r.output ?? '');
  const site = tracebackSite(r.output ?? '');
  const missing = onlyGit ? null : missingRead(call.command ?? '', r.output ?? '');
  push(l.failures, { line: r.line, text: `\`${clip(call.command ?? '', 160)}\` failed${r.exitCode !== undefined ? ` (exit ${r.exitCode})` : ''}${what ? `: ${what}` : ''}${site ? ` (in ${site})` : ''}`, keys: [onlyGit ? NO_COMMITS_KEY : commandKey(call.command ?? '')], kind: 'command', ...(missing === null ? {} : { missing }) }, LEDGER_LIMITS.FAILURES);
}

/** The lines a harness puts around a command's output (Claude Code's `Exit code 1`, Codex's `Wall time`, `Chunk ID`, `Process exited …`, code mode's `Script completed`): not the command's own. */
const HARNESS_HEADER = /^(?:Error: )?Exit code:? \d+$|^Wall time|^Output:$|^Process exited|^Chunk ID:|^Original token count:|^Script (?:completed|failed|running)\b/;

/** A lookup's report of a path it was given that is not there: `rg: libs/x/embedder: No such file or directory (os error 2)`, `ls: cannot access 'x': …`, `find: 'x': …`. */
const LOOKUP_MISSED = /^(?:rg|grep|egrep|ls|find|fd|tree|cat|head|tail|sed|nl|wc|stat|file|du): .{1,400}: No such file or directory(?: \(os error 2\))?$|^ls: cannot access .{1,400}: No such file or directory$|^find: .{1,400}: No such file or directory$/;

/**
 * A search or a listing that only read (`rg --files a b c`, `ls x y`), given some paths that are not
 * there, and that printed what the others hold: the paths it missed are the whole of its failure
 * (raze at 17: `rg --files … libs/agno/agno/embedder libs/agno/agno/media` exit 2, with 130 files
 * listed from the folders that were there; the agent found `knowledge/embedder` and `media.py` at
 * once). It is no failure to fix or to run again: the failure lists leave it out.
 */
function lookupPartlyMissed(command: string, out: string): boolean {
  if (!readsOnly(command)) return false;
  const lines = out.split('\n').map((x) => x.trim()).filter((x) => x.length > 0 && !HARNESS_HEADER.test(x));
  const missed = lines.filter((x) => LOOKUP_MISSED.test(x)).length;
  return missed > 0 && missed < lines.length && !lines.some((x) => !LOOKUP_MISSED.test(x) && ERROR_WORDS.test(x));
}

/** What a command that shows a file prints when the file is not there (sed, cat, PowerShell's Get-Content in English and Russian, Node). */
const NOT_FOUND = /No such file or directory|does not exist|не существует|Cannot find path|ItemNotFound|ENOENT|cannot find the (?:file|path) specified/i;

/**
 * The path a failed command that shows files named and its output says is not there (`sed -n
 * '1,200p' packages/ui/hooks/use-api-list.ts`: "No such file or directory"; PowerShell reading
 * `app\events\[slug]\page.tsx` as a wildcard), or null.
 */
function missingRead(command: string, out: string): string | null {
  if (!NOT_FOUND.test(out) || !showsFiles(command)) return null;
  for (const word of command.split(/[\s'"`]+/)) {
    const path = word.replace(/\\+/g, '/').replace(/^\.\//, '');
    const name = fileName(path);
    if (/\.[A-Za-z0-9]{1,8}$/.test(name) && name.length > 2 && out.replace(/\\+/g, '/').includes(name)) return clip(path, 300);
  }
  return null;
}

/** Programs that print a file they are given: what reading it with a shell looks like. */
const FILE_PRINTERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'sed', 'bat', 'nl', 'get-content', 'gc', 'type', 'jq', 'xxd', 'od']);

/**
 * The files a command prints: the arguments of a printer that are no option (and, for `sed` and
 * `jq`, not the script), in a segment that writes nowhere (`cat > f <<EOF` makes the file) and
 * does not hide a failure (`cat f 2>/dev/null || echo "not found"`).
 */
function printedFiles(command: string): string[] {
  // Split by spaces, not by shell.ts's words(): an unquoted Windows path's backslashes are escapes
  // to a POSIX word splitter (`app\events\x.tsx` would read `appeventsx.tsx`), and PowerShell's are not.
  if (/\|\||2>\s*\/dev\/null/.test(command)) return [];
  const out: string[] = [];
  for (const seg of segments(command)) {
    if (/(?:^|[^0-9&])>{1,2}(?!&)/.test(seg)) continue;
    const ws = seg.trim().split(/\s+/).map((w) => w.replace(/^['"]|['"]$/g, ''));
    const name = fileName(ws[0] ?? '').toLowerCase();
    if (!FILE_PRINTERS.has(name)) continue;
    const args = ws.slice(1).filter((w) => !w.startsWith('-') && w !== '');
    out.push(...(name === 'sed' || name === 'jq' ? args.slice(1) : args));
  }
  return out.map((w) => w.replace(/\\+/g, '/').replace(/^\.\//, ''));
}

/**
 * Whether `found` is the file `missing` meant: the same name, and every folder of the missing path
 * in it, in order (`packages/ui/src/hooks/x.ts` for `packages/ui/hooks/x.ts`: a folder was left
 * out), so `apps/web/src/x.ts` is not `apps/admin/src/x.ts`.
 */
function sameFileMeant(missing: string, found: string): boolean {
  const want = missing.split('/').filter((x) => x !== '' && x !== '.');
  const have = found.split('/').filter((x) => x !== '' && x !== '.');
  if (want.length === 0 || want.at(-1) !== have.at(-1)) return false;
  let i = 0;
  for (const part of have.slice(0, -1)) if (i < want.length - 1 && part === want[i]) i += 1;
  return i === want.length - 1;
}

/**
 * A successful read of a file a failed command could not find closes that failure: the path was
 * wrong, or written so the shell misread it, and the file was read (rave-era at 54: PowerShell
 * read `[slug]` as a wildcard, and `-LiteralPath` read it at 60; agentcmd at 46, read at its real
 * path at 57). The read must name the file as its argument: the same path, or one that holds its
 * folders in order and its name (`packages/ui/src/hooks/use-api-list.ts` for `packages/ui/hooks/…`), and
 * print something that is not "not found"; a file the session wrote since was made, not found.
 * (sameFileMeant says which paths are the same file.)
 */
function closeMissingReads(l: Ledger, call: CallRecord, r: ResultInput): void {
  const open = l.failures.filter((f) => f.missing !== undefined && f.closedLine === undefined && f.line < r.line);
  if (open.length === 0) return;
  const out = r.output ?? '';
  if (out.trim() === '' || NOT_FOUND.test(out.slice(0, 2000))) return;
  const read = [...(call.read === undefined ? [] : [call.read.replace(/\\+/g, '/')]), ...(call.command === undefined ? [] : printedFiles(call.command))];
  if (read.length === 0) return;
  for (const f of open) {
    const path = f.missing as string;
    const named = read.some((t) => t === path || path.endsWith(`/${t}`) || sameFileMeant(path, t));
    if (!named) continue;
    const made = Object.entries(l.changed).some(([key, c]) => c.line > f.line && sameFileMeant(path, key));
    if (made) continue;
    f.closedLine = r.line;
    f.found = r.line;
  }
}

/** The key of a failure that only said the branch has no commit: the session's first commit ends it (it said a state, which no longer holds). */
const NO_COMMITS_KEY = 'git: no commits yet';

/**
 * A fetch that failed (a 403, a timeout) is a failure of its address, as a command's is of its
 * words: closed when a fetch of the same address succeeds, passed over when the agent went on.
 */
function noteFetch(l: Ledger, url: string, r: ResultInput, failed: boolean): void {
  const key = `fetch ${url}`;
  if (!failed) {
    for (const f of l.failures) if (f.closedLine === undefined && f.kind === 'command' && f.keys[0] === key) f.closedLine = r.line;
    return;
  }
  const what = failureLine(r.output ?? '');
  push(l.failures, { line: r.line, text: `fetching \`${clip(url, 160)}\` failed${what ? `: ${what}` : ''}`, keys: [key], kind: 'command' }, LEDGER_LIMITS.FAILURES);
}

/** Where a Python traceback left the project's own code: the last frame outside installed packages. */
export function tracebackSite(out: string): string | null {
  let site: string | null = null;
  for (const m of out.matchAll(/^\s*File "([^"]+)", line (\d+), in (\S+)\n\s*(.+)$/gm)) {
    const file = m[1] as string;
    if (/[\\/](?:site|dist)-packages[\\/]|^<|[\\/]lib[\\/]python\d/.test(file)) continue;
    site = `${file.split(/[\\/]/).pop() ?? file}:${m[2]} ${m[3]}: ${clip((m[4] as string).trim(), 100)}`;
  }
  return site;
}

/** The line that names a crash: the exception's own (`ModuleNotFoundError: No module named 'x'`), else the traceback's head. */
function crashLine(out: string): string | null {
  const m = EXCEPTION_LINE.exec(out) ?? TRACEBACK.exec(out);
  return m === null ? null : clip(m[0], 240);
}

const ERROR_WORDS = /error|fatal|fail|denied|not found|no such|cannot|could not|couldn't/i;

/**
 * What a failed command's output says of its failure: its last line that names an error (else its
 * first line); when others do too, the first of them is named; and when it also printed lines that
 * name none, how many (raze's `rg --files a b c d` failed on two missing paths and listed the
 * files of the others: quoted by its last error alone, it read as if nothing was found).
 */
function failureLine(out: string): string | null {
  const lines = out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split('\n').map((x) => x.trim()).filter((x) => x.length > 0 && !HARNESS_HEADER.test(x));
  const marked = lines.filter((x) => ERROR_WORDS.test(x));
  // With no line that says error, the last printed is where the run stopped (FundWise's `node
  // --version && pnpm --version` printed node's version, then pnpm's refusal).
  const pick = marked[marked.length - 1] ?? lines[lines.length - 1];
  if (pick === undefined) return null;
  if (marked.length === 0 && lines.length > 1) return `${clip(pick, 200)} (its last line of output; ${lines.length - 1} before it)`;
  const before = marked.length > 1 ? `; ${marked.length - 1} more error line${marked.length === 2 ? '' : 's'} before it (the first: «${clip(marked[0] as string, 100)}»)` : '';
  // A long output is kept as its head and tail around a `…` line (ingest.ts): its middle's lines are not counted.
  const cut = lines.includes('…');
  const other = marked.length > 0 ? lines.length - marked.length - (cut ? 1 : 0) : 0;
  return `${clip(pick, 200)}${before}${other > 0 ? `; ${cut ? 'at least ' : ''}${other} other line${other === 1 ? '' : 's'} of output as well` : ''}`;
}

function noteGit(l: Ledger, command: string, out: string, line: number, failed: boolean, cwd: string | undefined): void {
  // What the session's own git and gh runs printed; most commands name neither.
  const namesGit = /\bgit\b/.test(command);
  if (namesGit) {
    l.gitRan = line;
    // A failed merge or rebase may have done part; a failed commit did nothing ("nothing to commit").
    const movers = headMovers(command);
    if (movers.length > 0 && !(failed && movers.every((m) => m === 'commit'))) l.headMoves = [...(l.headMoves ?? []), line].slice(-20);
    // Said by a failing `git log` too: it is the repository's state, not the command's failure.
    const empty = noCommitsYet(out);
    if (empty !== null) l.noCommits = { line, branch: clip(empty, 200) };
    // The session made the repository (posthog at 364: `git init -b main`, and the harness then
    // recorded the branch as `HEAD`, read as "a detached HEAD, or no commit yet").
    else if (!failed && /^Initialized empty Git repository in /m.test(out)) {
      const b = initBranch(command);
      l.noCommits = { line, branch: b === null ? null : clip(b, 200), init: true };
    }
    // Of the folder the call ran in: not when the command moved elsewhere (`cd x`, `git -C x`).
    // git's own words for the folder it ran in (not `--git-dir=…`'s, nor a submodule's path it names).
    if (/\bnot a git repository \(or any of the parent directories\): \.git\b/.test(out) && cwd !== undefined && !changesFolder(command) && !/\bgit\s+-C\b|--git-dir|--work-tree/.test(command)) l.notRepo = { line, cwd };
  }
  if (!failed && (namesGit || /\bgh\b/.test(command))) {
    const pr = branchPullRequest(command, out);
    if (pr !== null) l.branchPr = pr.state === undefined ? { url: clip(pr.url, 300), line } : { url: clip(pr.url, 300), line, state: pr.state };
    // A log of another repository (`git -C .claude/worktrees/agent-* log`: worktrees at 129) says nothing of HEAD here.
    const top = inAnotherFolder(command, cwd) ? null : gitLogTop(command, out);
    if (top !== null) {
      l.logFirst ??= { line, hash: top.hash };
      l.logTop = cwd === undefined ? { line, hash: top.hash, subject: clip(top.subject, 160) } : { line, hash: top.hash, subject: clip(top.subject, 160), cwd };
      delete l.noCommits;
    }
    if (!inAnotherFolder(command, cwd) && gitLogAll(command, out)) l.logAll = { line };
    const branches = remoteBranchCount(command, out);
    if (branches !== null) l.remoteBranches = { line, count: branches };
    const remotes = gitRemotes(command, out);
    if (remotes !== null) l.remotes = { line, list: remotes.slice(0, 5).map((r) => ({ name: clip(r.name, 60), url: clip(r.url, 300) })) };
    const switched = branchSwitch(command, out);
    if (switched !== null) l.switchedTo = { line, branch: switched };
    const on = inAnotherFolder(command, cwd) || changesFolder(command) ? null : statusBranch(command, out);
    if (on !== null) l.statusBranch = /\bstatus\b/.test(command) ? { line, branch: clip(on, 200) } : { line, branch: clip(on, 200), via: 'branch' };
  }
  const listed = failed ? null : inGitFolder(gitListing(command, out), command, cwd);
  if (!failed && namesGit && isEmpty(l.changed)) {
    // Only what the tree held: a listing against another revision says what changed since it.
    const before = listed !== null ? (diffsTheTree(command, ['--name-only', '--name-status']) ? listed.paths : null) : diffedPaths(command, out);
    if (before !== null) l.dirtyBefore = { line, paths: before.slice(0, 200) };
  }
  if (listed !== null) {
    // A file the session created that git shows modified was there before: the create overwrote it.
    for (const p of modifiedInStatus(command, out)) {
      const key = heldKey(l.changed, filePath(p, gitFolder(command, cwd)));
      const rec = key === undefined ? undefined : l.changed[key];
      if (rec !== undefined && rec.how === 'create' && rec.line < line) {
        rec.how = 'write';
        rec.existed = line;
      }
    }
    const paths = listed.paths.slice(0, 200);
    const whole = l.treeListed;
    // A listing of named paths says nothing of the others: a whole listing since the last commit stands.
    if (listed.limited && whole !== undefined && whole.limited !== true && whole.committed === undefined && whole.line > (l.lastCommitLine ?? -1)) whole.narrower = line;
    else {
      l.treeListed = listed.staged === null ? { line, paths } : { line, paths, staged: listed.staged.slice(0, 200) };
      if (listed.limited) l.treeListed.limited = true;
      const untracked = listed.untracked?.filter((p) => paths.includes(p)) ?? [];
      if (untracked.length > 0) l.treeListed.untrackedPaths = untracked;
      const added = listed.added?.filter((p) => paths.includes(p)) ?? [];
      if (added.length > 0) l.treeListed.newPaths = added;
    }
  }
  if (!failed && isGitMergeOrPull(command)) {
    // A merge or pull writes the files it brings in: `create mode 100644 path`, ` path | 3 ++-`.
    const created = new Set<string>();
    for (const m of out.matchAll(/^ (?:create|delete) mode \d+ (.+)$/gm)) {
      const path = (m[1] as string).trim();
      created.add(path);
      markChanged(l, filePath(path, cwd), m[0].includes('delete') ? 'delete' : 'create', 'git', line, false);
    }
    // A file the session had changed that the diffstat names was written again (a branch of its
    // own merged in); others it brings in are upstream work, not listed as the session's (a path
    // git shortened to `.../x` cannot be told).
    for (const m of out.matchAll(/^ (\S(?:.*\S)?)\s+\|\s+(?:\d+|Bin\b)/gm)) {
      const name = m[1] as string;
      if (name.startsWith('...') || name.includes(' => ') || created.has(name)) continue;
      const path = filePath(name, cwd);
      if (heldKey(l.changed, path) !== undefined) markChanged(l, path, 'patch', 'git', line, false);
    }
    l.lastCommitLine = line;
  }
  // A commit line proves the commit even when a later step of the same command failed (a rejected push).
  {
    const made = commitsInOutput(out);
    // A commit whose first line (with the hash) was cut away (`| tail -3`) but whose output only a commit prints.
    // Not one made in another repository (`cd ../other && git commit`, `git -C x commit`): this one's staged files stay.
    const madeUnnamed = made.length === 0 && !failed && isGitCommit(command) && COMMIT_MADE.test(out) && !/nothing to commit|no changes added/i.test(out) && !changesFolder(command) && !inAnotherFolder(command, cwd);
    const added = gitAdded(command);
    // `git add a b c && git commit` and "3 files changed": the commit took a, b and c.
    const named = made.length === 1 && added !== null && !added.all && !added.tracked && added.paths.length > 0 && added.paths.length <= 50 && !added.paths.some((p) => p.endsWith('/') || p.includes('*')) ? added.paths : null;
    for (const c of made) {
      if (!l.commits.some((x) => x.hash === c.hash)) {
        const rec: CommitRecord = { hash: c.hash, subject: clip(c.subject, 160), branch: c.branch, line, pushed: false };
        if (c.files !== undefined) rec.files = c.files;
        if (named !== null && c.files === named.length) rec.took = named.map((p) => filePath(p, cwd));
        push(l.commits, rec, LEDGER_LIMITS.COMMITS);
      }
    }
    // A commit was made (named by its hash or not): "no commits yet" is over, and changes before it are committed.
    if (made.length > 0 || madeUnnamed) {
      l.lastCommitLine = line;
      delete l.noCommits;
      l.failures = l.failures.filter((f) => f.keys[0] !== NO_COMMITS_KEY);
    }
    // What the session unstaged since the latest listing is not staged (`git restore --staged .`).
    const unstaged = gitUnstaged(command);
    const ut = l.treeListed;
    if (!failed && unstaged !== null && ut?.staged !== undefined && ut.line < line && ut.committed === undefined && !changesFolder(command) && !inAnotherFolder(command, cwd)) {
      ut.staged = unstaged.all ? [] : ut.staged.filter((p) => !unstaged.paths.some((u) => p === u || p.startsWith(`${u.replace(/\/+$/, '')}/`)));
    }
    // What the session staged since the latest listing is staged too (`git add a b && git commit`).
    const lt = l.treeListed;
    // Not a `git add` that failed (agentcmd at 769: `(protected)` unquoted, a syntax error).
    if (!failed && added !== null && lt?.staged !== undefined && lt.line < line && lt.committed === undefined) {
      // `-u` stages tracked files only: all of them when the listing showed none untracked.
      const tracked = added.tracked && untrackedIn(lt) === 0;
      const takes = (p: string): boolean => added.all || tracked || added.paths.some((a) => p === a || p.startsWith(`${a.replace(/\/+$/, '')}/`));
      const before = lt.staged.length;
      lt.staged = [...new Set([...lt.staged, ...lt.paths.filter(takes)])];
      if (lt.staged.length > before) {
        // How many the listing itself showed staged, at the first `git add` after it: "none of them" is said so.
        if (lt.addedAt === undefined) lt.stagedBefore = before;
        lt.addedAt = line;
      }
    }
    // What the latest listing showed staged went into this commit; the rest is still uncommitted.
    // A listing of a clean tree gave the commit nothing (`git commit --allow-empty` after "working
    // tree clean", deep-manifest at 70): the commit is the session's last, and the listing before it.
    const t = l.treeListed;
    if ((made.length > 0 || madeUnnamed) && t?.staged !== undefined && t.paths.length > 0 && t.line < line && t.committed === undefined && commitsStagedOnly(command) && !changesFolder(command) && !inAnotherFolder(command, cwd)) {
      const staged = t.staged;
      // The commit took what was staged, when git counted as many changed: said of the commit too,
      // which outlives this listing (FundWise: `git add` three files at 222, the commit at 226,
      // another listing at 250).
      const one = made.length === 1 ? l.commits.find((x) => x.hash === made[0]?.hash) : undefined;
      if (one !== undefined && one.took === undefined && one.files === staged.length && staged.length > 0 && staged.length <= 200) one.took = staged.map((p) => filePath(p, cwd));
      // Untracked files are never staged, unless a `git add` named them since (then they went in).
      const left = t.paths.filter((p) => !staged.includes(p));
      const untracked = t.untrackedPaths === undefined ? (t.untracked === undefined ? {} : { untracked: t.untracked }) : { untrackedPaths: t.untrackedPaths.filter((p) => left.includes(p)) };
      l.treeListed = { line: t.line, paths: left, committed: line, ...untracked, ...(t.limited ? { limited: true as const } : {}), ...(staged.length > 0 ? { took: staged.slice(0, 200) } : {}), ...(t.addedAt === undefined ? {} : { addedAt: t.addedAt }), ...(t.stagedBefore === undefined ? {} : { stagedBefore: t.stagedBefore }) };
    }
  }
  if (!failed && isGitRebase(command)) l.lastRebaseLine = line;
  // What may bring another's commits or drop one's own: a pull, a merge, a reset to a revision.
  if (!failed && rewritesHead(command)) l.headRewrite = line;
  noteUnnamedCommits(l, command, out, line, failed);
  if (failed && isGitCommit(command) && commitsInOutput(out).length === 0) l.failedCommit = { line, text: lastLine(out) ?? 'git commit failed' };
  // A push prints where it went above its updates (`gh repo create --push` too).
  // `gh repo create --source=. --push` pushes the branch it is on, and prints git's own lines.
  const gitPush = isGitPush(command) || GH_CREATE_PUSH.test(command);
  const updates = gitPush || out.includes('To ') ? pushesInOutput(out) : [];
  const to = updates.at(-1)?.url;
  if (to) l.pushedTo = { line, url: clip(to, 300) };
  if (!gitPush) return;
  const prevPush = l.lastPushLine;
  if (!failed) {
    l.lastPushLine = line;
    const on = l.statusBranch;
    if (on !== undefined && on.line < line && (l.switchedTo?.line ?? -1) < on.line && updates.some((u) => u.branch === on.branch)) l.pushedHeadBranch = { line, branch: on.branch };
    // A push of `HEAD` (`* [new branch] HEAD -> main`) sent what the branch held: the commit, when
    // nothing moved HEAD between them (posthog's first commit in a fresh repository, at 519).
    const sentHead = updates.some((u) => u.branch === 'HEAD');
    const headTo = updates.length === 1 && sentHead ? updates[0]?.dst : undefined;
    if (headTo !== undefined && headTo !== '') l.headPushedTo = { line, branch: clip(headTo, 200) };
    for (const c of l.unnamedCommits ?? []) {
      if (c.line > line || c.pushLine !== undefined) continue;
      c.pushLine = line;
      c.pushedTo = updates.map((u) => clip(`${u.url} ${u.dst}`, 300)).slice(0, 5);
      if (sentHead && c.merge !== true && Math.max(l.headRewrite ?? 0, l.lastRebaseLine ?? 0, l.switchedTo?.line ?? 0) < c.line) c.pushedHead = true;
    }
  }
  if (!failed && prevPush !== undefined) namePushedUnnamed(l, updates, prevPush, line);
  if (failed && updates.length === 0) return;
  const branches = new Set(updates.map((u) => u.branch));
  // A rebase since a commit gave it a new hash: the push names the new one (`a..NEW main -> main`).
  for (const u of updates) {
    const mine = l.commits.filter((c) => c.pushed !== true && c.branch === u.branch && c.line < line);
    const last = mine[mine.length - 1];
    if (last && l.lastRebaseLine !== null && l.lastRebaseLine > last.line && u.to.length >= 7 && !last.hash.startsWith(u.to) && !u.to.startsWith(last.hash)) {
      last.rebasedFrom = last.hash;
      last.hash = u.to;
    }
  }
  l.remoteTips = [...(l.remoteTips ?? []), ...updates.flatMap((u) => [u.from, u.to]).filter((h) => h.length >= 7).map((hash) => ({ hash, line }))].slice(-50);
  for (const c of l.commits) {
    if (c.pushed === true || c.line > line) continue;
    if (onRemote(l, c.hash) !== null) {
      c.pushed = true;
      c.pushLine = line;
      continue;
    }
    // A push that names its branches pushes the commits made on them; one whose output says
    // nothing readable is not proof either way.
    if (updates.length === 0) c.pushed = c.pushed === false ? null : c.pushed;
    else if (branches.has(c.branch) || branches.size === 0) {
      c.pushed = true;
      c.pushLine = line;
    }
  }
  const pr = pullRequestHint(out);
  if (pr !== null) l.prHint = { url: pr, line };
}

const sameHash = (a: string, b: string): boolean => a.length >= 7 && b.length >= 7 && (a.startsWith(b) || b.startsWith(a));
const onRemote = (l: Ledger, hash: string): number | null => l.remoteTips?.find((t) => sameHash(t.hash, hash))?.line ?? null;

/**
 * The folder a git command's listing is relative to: `git -C <dir>`'s, read from the session's
 * folder (the session's own folder when the command names none).
 */
function gitFolder(command: string, cwd: string | undefined): string | undefined {
  const dir = gitDir(command);
  return dir === null ? cwd : filePath(dir, cwd);
}

/**
 * A listing of `git -C <dir> status` (FundWise: `git -C /Users/…/FundWise status --short`) is the
 * session's when `<dir>` is its folder; of a folder below it, its paths are read from there; of
 * any other folder, it lists another repository's files, not the session's (null).
 */
function inGitFolder(listed: ReturnType<typeof gitListing>, command: string, cwd: string | undefined): ReturnType<typeof gitListing> {
  if (listed === null || gitDir(command) === null || cwd === undefined) return listed;
  const here = filePath('.', cwd);
  const at = gitFolder(command, cwd) as string;
  if (at === here) return listed;
  if (relativeTo(at, here) === null) return null;
  const from = (ps: string[]): string[] => ps.map((p) => filePath(p, at));
  return { ...listed, paths: from(listed.paths), staged: listed.staged === null ? null : from(listed.staged), ...(listed.untracked === undefined ? {} : { untracked: from(listed.untracked) }) };
}

/**
 * A `git commit` whose output was cut (`| tail -3`) proves a commit without naming it. A later log
 * line with the same subject names it; a push that reported the hash as the remote's tip (old or
 * new) proves it pushed.
 */
const GH_CREATE_PUSH = /\bgh\s+repo\s+create\b[^\n;&|]*\s--push\b/;

/** What only a commit that was made prints, when its first line (with the hash) was cut away. */
const COMMIT_MADE = /^ ?(?:\d+ files? changed\b|(?:create|delete) mode \d{6} )/m;

function noteUnnamedCommits(l: Ledger, command: string, out: string, line: number, failed: boolean): void {
  const madeMerge = isGitMergeOrPull(command) && /^Merge made by /m.test(out);
  if (!failed && (isGitCommit(command) || madeMerge) && commitsInOutput(out).length === 0 && !/nothing to commit|no changes added/i.test(out)) {
    const subject = commitMessage(command);
    if (subject !== null) l.unnamedCommits = [...(l.unnamedCommits ?? []), { subject, line, ...(COMMIT_MADE.test(out) || madeMerge ? { made: true as const } : {}), ...(madeMerge ? { merge: true as const } : {}) }].slice(-20);
    return;
  }
  const pending = l.unnamedCommits ?? [];
  if (pending.length === 0) return;
  for (const { hash, rest } of logLines(out)) {
    const i = pending.findIndex((p) => rest === p.subject || rest.endsWith(` ${p.subject}`));
    if (i === -1) continue;
    const p = pending[i] as { subject: string; line: number };
    pending.splice(i, 1);
    if (l.commits.some((c) => sameHash(c.hash, hash))) continue;
    const pushLine = onRemote(l, hash);
    // Unpushed until a push says otherwise, like any commit; a later push that does not name it leaves it unknown.
    const pushed = pushLine !== null ? true : (l.lastPushLine ?? 0) > p.line ? null : false;
    const rec: CommitRecord = { hash, subject: clip(p.subject, 160), branch: '', line: p.line, pushed, hashLine: line };
    if (pushLine !== null) rec.pushLine = pushLine;
    push(l.commits, rec, LEDGER_LIMITS.COMMITS);
    l.commits.sort((x, y) => x.line - y.line);
  }
  l.unnamedCommits = pending;
}

export function noteTurnEnd(l: Ledger, event: 'turn_complete' | 'turn_aborted' | 'interrupt' | 'api_error', line: number): void {
  l.last = { event, line };
  if (event === 'turn_complete') creditTurn(l);
  if (event === 'turn_aborted' || event === 'interrupt') markInterrupted(l, line);
  delete l.turnFrom;
}

/**
 * A turn interrupted before its final reply: the requests made in it (since its start, or the
 * latest when the harness marks no start) that have no final reply were stopped, not answered
 * with a progress note ("no final reply; progress note at line 485" hid that the user aborted it).
 */
function markInterrupted(l: Ledger, line: number): void {
  const from = l.turnFrom;
  for (let i = l.requests.length - 1; i >= 0; i -= 1) {
    const r = l.requests[i] as RequestRecord;
    if (from !== undefined ? r.line < from : i < l.requests.length - 1) break;
    if (r.line > line || (r.replied !== undefined && r.repliedNote !== true)) continue;
    r.interruptedAt = line;
  }
}

/**
 * A turn that completed on its final reply answered every request made in it: the one that began
 * it and those the user sent while it ran (Codex takes a message typed mid-turn into the running
 * turn). Until now each had only the progress notes written before the next.
 */
function creditTurn(l: Ledger): void {
  const from = l.turnFrom;
  const last = l.requests[l.requests.length - 1];
  if (from === undefined || last === undefined || last.replied === undefined || last.repliedNote === true || last.line < from) return;
  for (let i = l.requests.length - 2; i >= 0; i -= 1) {
    const r = l.requests[i] as RequestRecord;
    if (r.line < from) break;
    if (r.replied !== undefined && r.repliedNote !== true) continue;
    r.replied = last.replied;
    delete r.repliedNote;
    r.repliedAfter = last.line;
  }
}

const FAILED_WORDS = /\b(?:failed|fails|errored|could ?n[o']t|unable to|did ?n[o']t work|does ?n[o']t work)\b/i;
const RESOLVED_WORDS = /\b(?:fixed|resolved|now (?:works|passes|succeeds)|succeeded|worked around|instead)\b/i;

/**
 * The agent's message says the command failed: a sentence with a word of failure, none of
 * resolution, and the command's program or a word of the file it runs (`export-session.sh`:
 * export, session).
 */
export function saysFailed(text: string, command: string): boolean {
  return namesCommand(failureSentences(text), command);
}

/** The sentences of a message that say something failed and nothing of its resolution, lower-cased. */
function failureSentences(text: string): string[] {
  // Most messages say nothing failed: one test of the whole text spares splitting it.
  if (!FAILED_WORDS.test(text)) return [];
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .filter((s) => FAILED_WORDS.test(s) && !RESOLVED_WORDS.test(s))
    .map((s) => s.toLowerCase());
}

function namesCommand(sentences: readonly string[], command: string): boolean {
  if (sentences.length === 0) return false;
  const ws = command.split(/\s+/).filter((w) => w.length > 0 && !w.startsWith('-'));
  const program = (ws[0] ?? '').split(/[\\/]/).pop() ?? '';
  const script = ws.slice(1).find((w) => /\.\w{1,4}$/.test(w))?.split(/[\\/]/).pop() ?? '';
  const words = [program, ...script.replace(/\.\w{1,4}$/, '').split(/[-_.]/)].map((w) => w.toLowerCase().replace(/[^a-z0-9]/g, '')).filter((w) => w.length >= 4);
  return words.some((w) => {
    const re = new RegExp(`\\b${w}`);
    return sentences.some((s) => re.test(s));
  });
}

/** How many of a listing's paths git does not track (states written before 2026-12-04 kept the count alone). */
function untrackedIn(t: NonNullable<Ledger['treeListed']>): number {
  return t.untrackedPaths?.length ?? t.untracked ?? 0;
}

/**
 * The latest `git` listing of uncommitted files that still holds after the session's last commit:
 * one made after it, or one whose staged files that commit took (the rest still uncommitted).
 */
export function listingAfterLastCommit(l: Ledger): { line: number; paths: string[]; committed?: number; untracked?: number; added?: number; limited?: true; status?: true; narrower?: number; took?: string[]; addedAt?: number; stagedBefore?: number; stagedSince?: number; untrackedStaged?: number } | null {
  const t = l.treeListed;
  if (t === undefined) return null;
  const last = l.lastCommitLine ?? -1;
  // `status`: a `git status` listing (it records what was staged), which shows untracked files; `git diff --name-only` does not.
  const untracked = untrackedIn(t);
  const lim = { ...(untracked > 0 ? { untracked } : {}), ...(t.limited ? { limited: true as const } : {}), ...(t.staged !== undefined || t.committed !== undefined ? { status: true as const } : {}), ...(t.narrower === undefined ? {} : { narrower: t.narrower }) };
  if (t.committed !== undefined) return t.committed >= last ? { line: t.line, paths: t.paths, committed: t.committed, ...lim, ...(t.took === undefined ? {} : { took: t.took }), ...(t.addedAt === undefined ? {} : { addedAt: t.addedAt }), ...(t.stagedBefore === undefined ? {} : { stagedBefore: t.stagedBefore }) } : null;
  const added = t.newPaths?.length ?? 0;
  // Staged by a `git add` since the listing, with no commit after it (agentcmd at 780: the listing's
  // untracked hook, staged at 774 with the other seven).
  const staged = new Set(t.staged ?? []);
  const since = t.addedAt === undefined ? {} : { addedAt: t.addedAt, stagedSince: staged.size - (t.stagedBefore ?? 0), untrackedStaged: (t.untrackedPaths ?? []).filter((p) => staged.has(p)).length };
  return t.line > last ? { line: t.line, paths: t.paths, ...lim, ...(added > 0 ? { added } : {}), ...since } : null;
}

/** Open failures: not closed by a later passing run, once per target (the latest). */
export function openFailures(l: Ledger): FailureEntry[] {
  const open: FailureEntry[] = [];
  let said: string[] | undefined;
  for (let i = l.failures.length - 1; i >= 0; i -= 1) {
    const f = l.failures[i] as FailureEntry;
    if (f.closedLine !== undefined) continue;
    // A failed command the agent answered afterwards was dealt with (a detour, a probe, a retry
    // with other words); one the transcript ends on was not, nor one the agent's last message
    // says failed ("the bundled bash command failed on Windows").
    if (f.kind === 'command' && l.lastAgentText !== null && f.line < l.lastAgentText.line && !namesCommand((said ??= failureSentences(l.lastAgentText.text)), f.keys[0] ?? '')) continue;
    if (open.some((o) => o.keys.join('\u0000') === f.keys.join('\u0000'))) continue;
    open.push(f);
  }
  return open.reverse();
}

/** No key at all, without listing the keys. */
function isEmpty(o: Record<string, unknown>): boolean {
  for (const _ in o) return false;
  return true;
}
