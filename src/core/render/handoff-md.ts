import type { Analysis, CheckRow, FileChange, PlanUnwritten } from '../analysis.js';
import { checkKinds, checksNamedBy, countedFrom, saysOnlyThanks, subagentMessages, writtenNamedBy } from '../analysis.js';
import { CONTRACT_HEADING } from '../contract.js';
import { escapeControls } from '../control-chars.js';
import type { PlanRecord } from '../state.js';
import { headEnd, tailFrom } from '../cut.js';
import { COMPACTION_PART_CHARS } from '../compaction.js';
import type { ToolRef } from '../types.js';
import { documentPasses } from '../documents.js';
import { endedOnError, jobNotices, noticeJobId, sameProgram } from '../jobs.js';
import { outcomeWord } from '../outcome.js';
import { linesOutsideFences } from '../plan-files.js';
import type { Contradiction } from '../ledger.js';
import { isEchoWhat, listingAfterLastCommit, publisherRedacted, rejectedByUser } from '../ledger.js';
import { fileKey, fileName, filePath, relativeTo } from '../paths.js';
import { exitMeansNoMatch, namesFileArg, pipedInto } from '../shell.js';
import type { ParentTask, RenderInput } from './input.js';
import { bullets, cell, code, fence, inCell, table, yamlValue } from './markdown.js';

/**
 * HANDOFF.md (SPEC §6): YAML front matter, then every section in a fixed order. A section with
 * nothing to say says `None`. The evidence contract section is the only part a person may edit;
 * everything else is regenerated on every build.
 */

export const TRANSFER_READY_SENTINEL = '__TRANSFER_READY__';

export const SECTION_TITLES = [
  'Objective (verbatim)',
  'User requests and corrections',
  'State right now (verbatim tail)',
  'Next Action',
  'Claims to double-check',
  'Current State',
  'What the agent reported',
  'Failures And Blockers',
  'Verification',
  'Repository Evidence',
  'Unknowns',
  'Recent timeline',
  'Subagents',
  'Where everything lives',
  'Provenance',
  'Evidence contract (hand-authored — preserved across rebuilds)',
  'Resume Instructions',
] as const;

/** Bounds that keep the largest handoff readable in one sitting (the payloads carry the rest). */
/** The requests' last steps past every level: how many of the latest are shown, and how long each is. */
const REQUESTS_LAST_STEPS: readonly (readonly [number, number])[] = [[10, 240], [8, 200], [6, 160], [4, 120], [3, 100], [2, 80], [1, 60]];
const MD = { DOC_CHARS: 2000, DOC_LINE_CHARS: 110, TASK_DETAIL_CHARS: 140, JOBS_ENDED: 3, PASSED_OVER: 3, REQUESTS_HEAD: 5, REQUESTS_TAIL: 25, REQUESTS_TAIL_SHORT: 12, REQUEST_CHARS_SHORT: 300, REQUEST_CHARS: 600, AGENT_MESSAGES: 6, AGENT_MESSAGES_SHORT: 3, AGENT_CHARS: 180, FIXED: 8, FIXED_SHORT: 5, FIXED_LAST: 2, FILES: 20, FILES_SHORT: 10, FILES_LAST: 5, CHECK_TARGETS: 10, TIMELINE: 15, TIMELINE_SHORT: 8, TIMELINE_LAST: 5, TIMELINE_CHARS: 100, LISTED: 12, DESTROYED: 5 } as const;

const NONE = 'None';
const label = (l: string): string => `*${l}*`;
/** Paths are never shortened: a reader must be able to open them. */
const path = (p: string): string => code(p, 4096);
const at = (seq: number | null | undefined): string => (seq === null || seq === undefined ? '' : ` (line ${seq + 1})`);
const atLine = (line: number | null | undefined): string => (line === null || line === undefined ? '' : ` (line ${line})`);
/** Whitespace that collapsing changes: any but a lone plain space. */
const LOOSE_SPACE = /[^\S ]| {2}/;
const collapse = (s: string): string => (LOOSE_SPACE.test(s) ? s.replace(/\s+/g, ' ') : s);

/** One line of at most n characters, whitespace runs collapsed. */
export const oneLine = (s: string, n: number): string => {
  // A long text is cut from its head: collapsing its first 2n+16 characters decides the result
  // whenever they hold more than n (the prefix collapses to a prefix of the whole).
  if (s.length > 2 * n + 16) {
    const head = collapse(s.slice(0, 2 * n + 16)).trimStart();
    if (head.trimEnd().length > n) return `${head.slice(0, n - 1)}…`;
  }
  const t = collapse(s).trim();
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
};

function frontMatter(r: RenderInput): string {
  const g = r.git;
  const p = r.pressure;
  const fields: [string, string | number | boolean | null][] = [
    ['schema', 'handoff/v1'],
    ['chain_id', r.chainId],
    ['from_session', r.session],
    ['to_session', 'pending'],
    // When this handoff was first built; the session's own time is the turns' (first/last_turn_at).
    ['created_at', r.createdAt],
    ['first_turn_at', r.state.meta.firstTs ?? null],
    ['last_turn_at', r.state.meta.lastTs ?? null],
    ['model', r.state.meta.model ?? null],
    ['context_used_tokens', p.used],
    ['context_limit_tokens', p.limit],
    // Where the limit comes from: a transcript rarely states it, and a reader must not take SPEC
    // §8's default for a recorded figure (telemetry, config, model, default).
    ['context_limit_source', p.limit_source],
    ['context_pressure', p.level],
    // A compaction replaced the conversation the agent saw with a summary: what it said after
    // rests on that summary (the transcript, which this handoff reads, keeps everything).
    ['context_compactions', r.state.compactions],
    ['context_last_compaction_line', r.state.compactions > 0 ? (r.state.lastCompactionLine ?? null) : null],
    ['repo', g.top],
    ['branch', g.branch],
    ['head', g.head],
    ['dirty', g.dirty],
    ['harness', r.harness],
    ['project', r.project],
    ['revision', r.revision],
    // The watermark is the last turn's seq (0-based); a successor reads line numbers, and the
    // lines after the last turn (events, a turn's end) are read too.
    ['watermark', r.state.watermark],
    ['lines_read', r.state.lines],
    ['turns', r.state.turns],
  ];
  // A branch or HEAD git could not give now, which the transcript recorded: said beside the null
  // (a YAML comment), so the null does not read as "the session had none" (Repository Evidence
  // has the rest).
  const meta = r.state.meta;
  const recorded: Record<string, string | undefined> = {
    branch: g.branch === null ? branchNote(r) : undefined,
    head: g.head === null && meta.commit !== undefined ? `the transcript recorded commit ${escapeControls(meta.commit.slice(0, 12))} when the session started` : undefined,
  };
  const lines = fields.map(([k, v]) => {
    const note = v === null ? recorded[k] : undefined;
    // Two readers took the watermark for a line number beside `lines_read`: it says what it counts.
    const says = k === 'watermark' ? '  # the last turn\'s seq, counted from 0 (lines_read counts lines)' : '';
    return `${k}: ${yamlValue(v)}${note === undefined ? says : `  # not read now; ${note}`}`;
  });
  lines.push(`transfer_ready: ${TRANSFER_READY_SENTINEL}`);
  return `---\n${lines.join('\n')}\n---`;
}

/**
 * The front matter's word on a branch git could not give now: the latest the transcript decides,
 * with its line. The session's own `git checkout`/`git switch` or `git status` after the branch the
 * harness recorded (Codex records it once, at the start) says where the work went on.
 */
function branchNote(r: RenderInput): string | undefined {
  const meta = r.state.meta;
  const since = meta.branches?.at(-1)?.line;
  const known = meta.branch !== undefined && meta.branch !== 'HEAD';
  const rec = known ? `the transcript recorded branch ${escapeControls(oneLine(meta.branch ?? '', 200))}${since === undefined ? '' : ` from line ${since}`}` : undefined;
  const l = r.state.ledger;
  const said = [
    l.switchedTo === undefined ? null : { ...l.switchedTo, how: `its git checkout/switch at line ${l.switchedTo.line} moved to` },
    l.statusBranch === undefined ? null : { ...l.statusBranch, how: `its git ${l.statusBranch.via === 'branch' ? 'branch' : 'status'} at line ${l.statusBranch.line} was on` },
  ]
    .filter((x) => x !== null && x.line > (since ?? 0))
    .sort((a, b) => (b?.line ?? 0) - (a?.line ?? 0))[0];
  // The latest word of the session's own git; said when it is not the branch recorded (a switch
  // back to it ends what an earlier status said).
  const git = said === undefined || said === null || said.branch === meta.branch ? undefined : `${said.how} ${escapeControls(oneLine(said.branch, 200))}`;
  if (git === undefined) return rec;
  return rec === undefined ? git : `${git}; ${rec}`;
}

function section(title: string, body: string): string {
  return `## ${title}\n\n${body.trim().length > 0 ? body.trim() : NONE}\n`;
}

/** HANDOFF.md's objective when nothing else it may shorten brings it under MD_BYTES: a long brief's head (the payloads keep it all). */
const OBJECTIVE_SHORT_CHARS = 1200;

function objective(a: Analysis, parent: string | null, max = Infinity, task: ParentTask | null = null, withLater = true): string {
  if (!a.objective) {
    // Never "None": the objective was not read, which does not mean there was none.
    if (parent !== null && task !== null) return parentTaskObjective(task, max);
    if (parent !== null) return `${label('unknown')} — this subagent's transcript does not hold the task it was given: the session that started it (${code(parent)}) holds the call that did`;
    return `${label('unknown')} — the transcript holds no user request to take the objective from`;
  }
  const o = a.objective;
  const ide = o.override ? undefined : a.requests.find((q) => q.line === o.line)?.ide;
  const src = `${objectiveSource(o, a.startsAfter, parent)}${ide === undefined ? '' : `; beside it, the IDE showed the agent ${ide}`}`;
  const later = withLater ? laterRequests(a, o.line) : '';
  const text = a.objective.text;
  // A placeholder is no objective: a successor must not take it for the user's words, nor the handoff for ready.
  if (!o.override && publisherRedacted(text)) return `${label('unknown')} — ${src} is unreadable: the transcript's publisher redacted it (${code(text.trim())})${later}`;
  const { chars, head, tail } = a.objective;
  // What the summary's `objective` holds of the request.
  const held = chars === undefined ? 'all of it' : head !== undefined && tail !== undefined ? `its first ${head} and last ${tail}` : `its first ${text.length - 1}`;
  if (text.length > max) {
    const whole = chars ?? text.length;
    // A state from before objectives kept their tail holds the request's head alone.
    if (chars !== undefined && (head === undefined || tail === undefined)) return `${fence(`${text.slice(0, max - 1)}…`)}\n\n${label('reported')} — ${src}; its first ${max - 1} of ${whole} characters, to keep this file short: HANDOFF.summary.json's \`objective\` holds ${held}${later}`;
    // Its head and its tail: a brief's constraints often come last ("Do NOT: …").
    const t = text.length - tailFrom(text, Math.min(tail ?? text.length, Math.floor(max / 3)));
    const h = Math.min(head ?? text.length, Math.max(0, max - t));
    const shown = `${text.slice(0, h)}\n[…]\n${text.slice(-t)}`;
    return `${fence(shown)}\n\n${label('reported')} — ${src}; its first ${h} and last ${t} of ${whole} characters, to keep this file short: HANDOFF.summary.json's \`objective\` holds ${held}${later}`;
  }
  const cut = chars === undefined ? '' : `; ${held} of ${chars} characters (the whole is in the transcript)`;
  return `${fence(text)}\n\n${label('reported')} — ${src}${cut}${later}`;
}

/** A subagent's task as its parent's call gave it: the lines cited are the parent transcript's. */
function parentTaskObjective(t: ParentTask, max: number): string {
  const cut = t.text.length > max;
  const text = cut ? `${t.text.slice(0, max - 1)}…` : t.text;
  const whole = t.chars ?? t.text.length;
  const part = cut || t.chars !== undefined ? `; its first ${text.length - 1} of ${whole} characters` : '';
  return `${fence(text)}\n\n${label('reported')} — the task the session that started this subagent (${code(t.session)}) gave it: its call at line ${t.line} of that session's transcript${t.description === '' ? '' : ` («${oneLine(t.description, 100)}»)`}${part}. This subagent's own transcript does not hold it; every other line cited here is this transcript's`;
}

/**
 * The first request is the objective, and often not what the session was on at its end (an audit
 * answered, then six more requests): say that more came, and where the latest is, so that the
 * objective is not taken for the work in hand.
 */
function laterRequests(a: Analysis, line: number | null): string {
  if (line === null) return '';
  const later = a.requests.filter((q) => (q.kind === 'request' || q.kind === 'rejection') && q.line > line && !saysOnlyThanks(q.text));
  const last = later.at(-1);
  if (last === undefined) return '';
  // Words typed beside a refused call count too (the list below shows them): said apart. The
  // user's answers to the agent's own questions are listed too, and counted apart, not left out.
  const refusals = later.filter((q) => q.kind === 'rejection').length;
  const answers = a.requests.filter((q) => q.kind === 'answer' && q.line > line).length;
  const besides = [refusals === 0 ? '' : `${refusals} of them typed beside a refused call`, answers === 0 ? '' : `besides ${answers} answer(s) to the agent's own question(s)`].filter((x) => x !== '').join('; ');
  // A message that only thanks is no request, and is not counted; but one after the latest
  // request is said, or "the latest" would be false beside the list that shows it.
  const thanks = a.requests.filter((q) => q.kind === 'request' && q.line > last.line && saysOnlyThanks(q.text)).at(-1);
  const after = thanks === undefined ? '' : `; the user's last message, at line ${thanks.line}, only thanked`;
  return `. ${later.length} more message(s) came after it${besides === '' ? '' : ` (${besides})`}, the latest at line ${last.line}${after}`;
}

/** Where the objective comes from: set by hand, the first request, a subagent's task, or the first one a sliced transcript holds. */
function objectiveSource(o: NonNullable<Analysis['objective']>, startsAfter: number | undefined, parent: string | null): string {
  if (o.override) return 'set with --objective';
  const at = atLine(o.line);
  if (startsAfter !== undefined && o.line !== null && o.line >= startsAfter) return `the first request this transcript holds${at}: it starts mid-conversation (see Unknowns)`;
  if (parent !== null) return `the task the session that started this subagent (${code(parent)}) gave it${at}`;
  return `the user's first request${at}`;
}

/**
 * The checks the agent ran after the message quoted as the state now, the latest of each command
 * (two at most): a message that says "Not run: lint" is not the word on lint once it ran (agentcmd
 * at 560: lint passed at 549, after the message of 505 that suggested running it). Past the last
 * budget level it is left to Verification, which lists them all.
 */
function checksAfter(a: Analysis, line: number): string {
  const latest = new Map<string, CheckRow>();
  for (const c of a.checks) if (c.line > line && c.by !== 'hook') latest.set(c.command, c);
  const rows = [...latest.values()].sort((x, y) => y.line - x.line);
  if (rows.length === 0) return '';
  const said = (c: CheckRow): string => `${code(oneLine(c.command, 80), 160)} ${outcomeWord(c.outcome)} (line ${c.line})`;
  const more = rows.length > 2 ? `, and ${rows.length - 2} more (under Verification)` : '';
  return `; checks ran after it: ${rows.slice(0, 2).map(said).join(', ')}${more}`;
}

function stateNow(a: Analysis, level: Level): string {
  if (!a.stateNow) return NONE;
  const who = a.stateNow.who === 'agent' ? "the agent's last message" : a.afterStateNow === null ? "the user's last message (no agent reply yet)" : "the user's last message (the agent has written no text since)";
  const note = a.stateNow.commentary ? ', a progress note (the harness marked it commentary, not a final answer)' : '';
  const ch = a.afterStateNow?.changed;
  const changed = ch === undefined ? '' : `, which changed ${ch.files === 1 ? '1 file' : `${ch.files} files`} (${ch.files === 1 ? '' : 'the latest '}${code(fileName(ch.path))}, line ${ch.line}): ${a.stateNow.who === 'agent' ? 'what it says it will do' : 'what it asks'} may be done since`;
  const after = a.afterStateNow === null ? '' : `; the session went on after it with ${a.afterStateNow.calls} tool call(s), up to line ${a.afterStateNow.line}${changed}${level >= 3 ? '' : checksAfter(a, a.stateNow.seq + 1)} (see Recent timeline)`;
  // A long last message (a review, a report) is its tail here: say how much, and where the whole is.
  const part = a.stateNow.chars === undefined ? '' : `; its last ${a.stateNow.text.length - 1} of ${a.stateNow.chars} characters (the whole is that line of the transcript)`;
  return `${fence(a.stateNow.text)}\n\n${label('reported')} — ${who}${at(a.stateNow.seq)}${note}${part}${after}${thoughtSince(a)}\n\n${endLine(a)}${lastOutput(a, level)}`;
}

/** How much of the last output each level shows (the last level leaves it to the timeline). */
const LAST_OUTPUT_MD: Record<Level, number> = { 0: 1000, 1: 600, 2: 300, 3: 0 };
/** How many of its middle's lines that say what failed each level shows. */
const LAST_OUTPUT_KEY: Record<Level, number> = { 0: 6, 1: 4, 2: 2, 3: 0 };

/**
 * The output the transcript ends on, before the agent replied: what the agent was about to act on
 * (worktrees at 130: the check the user asked for found every worktree still at its first commit,
 * which the timeline's row cut after 100 characters).
 */
function lastOutput(a: Analysis, level: Level): string {
  const o = a.lastOutput;
  const n = LAST_OUTPUT_MD[level];
  if (o === null || n === 0) return '';
  // The lines of its middle that say what failed, between its head and its tail.
  const key = (o.key ?? []).slice(0, LAST_OUTPUT_KEY[level]);
  const middle = key.length === 0 ? '…' : `…\n${key.join('\n')}\n…\n`;
  const fits = o.text.length <= n && key.length === 0;
  const head = key.length === 0 ? 0.7 : 0.45;
  // The ledger's own cut is a `…` too: one mark, not two.
  const kept = fits ? o.text : `${o.text.slice(0, headEnd(o.text, Math.ceil(n * head))).replace(/…$/, '')}${middle}${o.text.slice(tailFrom(o.text, Math.floor(n * 0.3))).replace(/^…/, '')}`;
  const lines = key.length === 0 ? '' : ' and the lines of its middle that say what failed';
  const whole = kept.length < o.chars ? `; ${o.chars} characters, its head and tail here${lines} (the whole is that line of the transcript)` : '';
  // A later call of another tool (a Read) may have the last result: this is then the last shell
  // output, not the transcript's (FundWise at 120: "the last output (line 117)", a Read's at 120).
  const later = a.end.line !== null && a.end.line > o.line ? `the last shell output (line ${o.line}; a later call's result, at line ${a.end.line}, ends the transcript)` : `the last output (line ${o.line})`;
  return `\n\n${label('verified')} — ${later}, of ${code(oneLine(o.command, 120), 240)} (line ${o.callLine})${whole}:\n\n${fence(kept)}`;
}

/**
 * The agent's latest reasoning after its last message, in the words the transcript holds (agentcmd
 * at 631: "the route params … possibly causing fetch failures" — its working diagnosis, which no
 * message had said yet). What it thought, not what it found: reported.
 */
function thoughtSince(a: Analysis): string {
  const t = a.thoughtSince;
  if (t === null) return '';
  return `. Its latest reasoning after that message (line ${t.line}; what it was working out, not a finding): «${oneLine(t.text, 400)}»`;
}

/**
 * What the summary written at the last compaction said was left: the agent wrote it from the whole
 * conversation it was about to lose, and a successor reads there what the session meant to do.
 */
/** How much of each part of the compaction's summary a level shows (level 0: all the store keeps). */
const COMPACTION_MD: Record<Level, number> = { 0: COMPACTION_PART_CHARS, 1: 600, 2: 400, 3: 240 };

/** A part's head of at most `n` characters, cut between words (cut.ts), marked with `…`. */
const partHead = (text: string, n: number): string => (text.length <= n ? text : `${text.slice(0, headEnd(text, n - 1)).trimEnd()}…`);

function compacted(a: Analysis, level: Level): string {
  const c = a.compaction;
  // A request the user typed after it says what is wanted now (the payloads keep the summary's parts).
  if (c === null || c.requestAfter !== null) return '';
  // Each level gives up the current work (the llm payload keeps every part), then the pending
  // tasks where a next step is named, and shortens what it keeps.
  const chars = COMPACTION_MD[level];
  // The next step the Next Action quotes is not written twice.
  const next = c.nextQuoted ? undefined : c.next;
  const one = level >= 2 && next !== undefined;
  const parts: [string, string | undefined][] = [['Pending tasks', one ? undefined : c.pending], ['Current work', level >= 1 ? undefined : c.current], ['Next step', next]];
  const shown = parts.filter((p): p is [string, string] => p[1] !== undefined).map(([name, text]) => `**${name}**\n\n${fence(partHead(text, chars))}`);
  if (shown.length === 0) return '';
  const quoted = c.nextQuoted && c.next !== undefined ? '; its next step is quoted under Next Action' : '';
  return `\n\n### What the compaction summary said was left (line ${c.line})\n\n${label('reported')} — the summary the agent wrote when the conversation was compacted (each part's head; the whole is that line of the transcript), as of then${quoted}:\n\n${shown.join('\n\n')}`;
}

function endLine(a: Analysis): string {
  const e = a.end;
  return `**How it ended: ${e.kind}**${atLine(e.line)} — ${label(e.kind === 'unknown' ? 'unknown' : 'inferred')}: ${e.why}${withoutResult(a.withoutResult, a.leftTurn)}${unreadResults(a.unreadResults)}`;
}

/**
 * Calls whose end the harness recorded and whose output it never handed to the agent (rave-era:
 * four `exec_command_end` records after five calls, no `function_call_output`): the agent did not
 * read them, and "no result for line 625" alone read as if it had read the other four.
 */
function unreadResults(rs: Analysis['unreadResults']): string {
  if (rs.length === 0) return '';
  const lines = (ns: number[]): string => (ns.length === 1 ? `line ${ns[0]}` : `lines ${ns.slice(0, -1).join(', ')} and ${ns[ns.length - 1]}`);
  const calls = rs.slice(-6);
  const more = rs.length > calls.length ? ` (and ${rs.length - calls.length} earlier)` : '';
  const one = rs.length === 1;
  return `. The result${one ? '' : 's'} of the call${one ? '' : 's'} at ${lines(calls.map((r) => r.line))}${more} ${one ? 'is' : 'are'} only the harness's record of ${one ? 'its' : 'their'} end (${lines(calls.map((r) => r.resultLine))}): ${one ? 'it was not' : 'none was'} handed to the agent, which stopped before reading ${one ? 'it' : 'them'} (what ${one ? 'it' : 'they'} printed is at ${one ? 'that line' : 'those lines'} of the transcript)`;
}

/** Commands with no result recorded: a write or a deletion among them may or may not have happened. */
function withoutResult(cs: Analysis['withoutResult'], left: Analysis['leftTurn'] = null): string {
  if (cs.length === 0) return '';
  // One is shown at length (where a copy writes to may come late in it); several, each shorter.
  const max = cs.length === 1 ? 400 : 120;
  const one = (c: Analysis['withoutResult'][number]): string => `line ${c.line} (${c.unreadable ? 'a shell call whose command the transcript holds redacted' : c.tool ? `a ${code(oneLine(c.command, max), max)} call` : code(oneLine(c.command, max), max)})`;
  const shown = cs.slice(-3);
  // A tool's call among them makes them calls; shell commands alone are commands.
  const noun = cs.some((c) => c.tool === true) ? 'call' : 'command';
  const which = cs.length === 1 ? `the ${noun} at ${one(cs[0] as Analysis['withoutResult'][number])}` : `${cs.length} ${noun}s, ${cs.length > 3 ? 'the latest at ' : 'at '}${shown.map(one).join(', ')}`;
  // Live, the last may still be running; after a crash or an export, it never answered.
  const it = cs.length === 1 ? 'it' : 'they';
  // In a turn the harness left for a new one: not running.
  if (left !== null && cs.every((c) => c.line > left.from && c.line < left.at)) {
    const its = cs.length === 1 ? 'its turn' : 'their turn';
    return `. No result is recorded for ${which}: ${its} recorded no end (no completion, no abort), and a new turn began at line ${left.at}, so ${it} ${cs.length === 1 ? 'was' : 'were'} left there (the app closed, reloaded or was interrupted between); whether ${it} ran, and what ${it} did, is not known`;
  }
  return `. No result is recorded for ${which}: ${it} may still be running, or the session stopped before ${it} answered; whether ${it} ran, and what ${it} did, is not known`;
}

/**
 * How much of the context a handoff keeps beyond the core facts: 0 all of it; each level gives up
 * the least important part, so the largest handoff stays under MD_BYTES (the payloads keep it all).
 */
export type Level = 0 | 1 | 2 | 3;
const MD_BYTES = 16000;

/** `ide`: say what the IDE showed beside a request, where it changed; `tail`: the latest requests shown after the first few (both given up past the last budget level). */
function requests(a: Analysis, parent: string | null, r: RenderInput, ide = true, tail: number = MD.REQUESTS_TAIL, chars: number = MD.REQUEST_CHARS): string {
  const rs = a.requests;
  if (rs.length === 0) return a.objective?.override ? `${label('unknown')} — no user request could be read from the transcript` : NONE;
  const kind = (k: string): string => (k === 'answer' ? 'answer: ' : k === 'rejection' ? 'rejecting a tool call: ' : '');
  // Claude Code's rewind: a request that goes back to an earlier message leaves what came between.
  const branch = (n: number): string => {
    const back = a.rewinds.find((w) => w.line === n);
    if (back !== undefined) return ` *(the user went back to line ${back.to}: lines ${back.to + 1}–${n - 1} are a branch the conversation left)*`;
    return leftBranch(a, n);
  };
  // What the IDE showed, where it changed: an editor's active file is often the same for hours.
  const ideShown = new Set<number>();
  let ideBefore: string | undefined;
  for (const q of rs) {
    if (q.ide !== undefined && q.ide !== ideBefore) ideShown.add(q.line);
    if (q.ide !== undefined) ideBefore = q.ide;
  }
  const inIde = (q: (typeof rs)[number]): string => (!ide || q.ide === undefined || !ideShown.has(q.line) ? '' : ` *(in the IDE: ${oneLine(shortIdePath(q.ide), 200)})*`);
  // Where the agent's answer to each ends, so that what became of an early request can be looked up.
  // A reply the harness marked a progress note (Codex's `phase: "commentary"`) is not an answer.
  const replied = (q: (typeof rs)[number]): string =>
    q.interruptedAt !== undefined
      ? ` (its turn was interrupted at line ${q.interruptedAt}, before a final reply${q.replied === undefined ? '' : `; the last progress note: line ${q.replied}`})`
      : q.replied === undefined
      ? ''
      : q.repliedNote === true
        ? ` (no final reply; progress note at line ${q.replied})`
        : q.repliedAfter !== undefined
          ? ` (its turn's final reply: line ${q.replied}, after ${a.requests.find((x) => x.line === q.repliedAfter)?.kind === 'answer' ? `the user's answer to the agent's question at line ${q.repliedAfter}` : `the message of line ${q.repliedAfter} came in mid-turn`})`
          : ` (last reply: line ${q.replied})`;
  const row = (q: (typeof rs)[number]): string => `line ${q.line} — ${kind(q.kind)}${oneLine(q.text, chars)}${replied(q)}${inIde(q)}${branch(q.line)}`;
  const shown = rs.length <= MD.REQUESTS_HEAD + tail ? rs.map(row) : [...rs.slice(0, MD.REQUESTS_HEAD).map(row), `… ${rs.length - MD.REQUESTS_HEAD - tail} more in HANDOFF.summary.json …`, ...rs.slice(-tail).map(row)];
  const more = a.requestsTotal > rs.length ? `\n\n${a.requestsTotal - rs.length} earlier request(s) are in timeline.jsonl.` : '';
  const who = parent === null ? 'every message the user typed' : `every message this subagent was sent by the session that started it (${code(parent)})`;
  return `${label('reported')} — ${who}, in order (wrappers and slash commands without arguments removed, long ones shortened):\n\n${bullets(shown)}${more}${rejectedSilently(r, rs)}`;
}

/** What the harness let the agent do without asking, as recorded: a successor's own settings may differ. `short`: without what it was before (the payloads say). */
function permissions(r: RenderInput, short: boolean): string | null {
  const p = r.state.permissions;
  if (p === undefined) return null;
  const was = p.was === undefined || short ? '' : ` (before it, ${p.was.text} from line ${p.was.since})`;
  // A state begun by a version that did not keep them saw the first value where it was read on.
  const from = r.state.ledger.countsFrom;
  const since = p.was === undefined && from !== undefined && p.since >= from ? `from line ${p.since} on (this store's state began to keep them at line ${from})` : `from line ${p.since}`;
  // "Network off" was read as no outside access at all: the harness's own web search is not bound by it.
  const w = r.state.ledger.webSearches;
  const web = w === undefined || !p.text.includes('network off') ? '' : ` The session still searched the web ${w.count} time(s), the first at line ${w.first}: the harness's web search runs outside the sandbox.`;
  return `Permissions the harness recorded (what the session could run without asking; a successor's own may differ): ${p.text} ${since}${was} — ${label('reported')}.${web}${escalated(r, short)}`;
}

/**
 * The commands the session asked to run outside the sandbox, and those it asked so after the same
 * command failed inside it: what the sandbox stops, which a successor will meet again (edgerunner
 * at 460: the server's bind at 394, then 402 outside; a `curl` of localhost at 411, then 414).
 */
function escalated(r: RenderInput, short: boolean): string {
  const e = r.state.ledger.escalated;
  // Shortened, the user's words and the work come first: a successor meets the sandbox again and asks.
  if (e === undefined || short) return '';
  const run = (x: (typeof e.runs)[number]): string => `${code(oneLine(x.command, 100), 200)} (line ${x.line}${x.after === undefined ? '' : `; inside the sandbox it had failed, line ${x.after}`})`;
  const which = e.count === 1 ? `the one at line ${e.first}, ${run(e.runs[0] as (typeof e.runs)[number])}` : `${e.count}, the first at line ${e.first}; the latest: ${e.runs.slice(-3).map(run).join(', ')}`;
  return ` The session asked to run commands outside the sandbox (\`require_escalated\`: each one the user or a rule had to approve): ${which} — ${label('verified')}.`;
}

/** A file by its end (`…/api/teams/route.ts`), where its name is; the payloads keep the whole path. */
function pathEnd(path: string): string {
  const parts = path.split('/');
  return parts.length > 3 ? `…/${parts.slice(-3).join('/')}` : path;
}

/** An IDE note with its file shown by its end. */
function shortIdePath(note: string): string {
  const m = /^((?:lines? [\d–]+ of )?)(.+?)( (?:selected|open|active)\b[\s\S]*)$/.exec(note);
  return m === null ? note : `${m[1]}${pathEnd(m[2] as string)}${m[3]}`;
}

/** Calls the user rejected without typing a reason: a decision as much as a request is; with the user's next message, which often says why. */
function rejectedSilently(r: RenderInput, requests: readonly { line: number }[]): string {
  // A rejected write whose file never changed afterwards is under Writes that did not happen too:
  // listed here as well, so that this list is every rejection, and said to be that.
  const notChanged = r.state.ledger.notChanged;
  const rs = r.state.ledger.rejected ?? [];
  if (rs.length === 0) return '';
  const never = (x: (typeof rs)[number]): string => (x.path !== undefined && notChanged[x.path]?.line === x.line ? ' — never written after (Writes that did not happen)' : '');
  // A write's file is shown by its end, where its name is (the payload keeps the whole path).
  const shown = (x: (typeof rs)[number]): string => (x.path === undefined ? x.what : `${x.what} ${pathEnd(x.path)}`);
  const next = (line: number): string => {
    const after = requests.find((q) => q.line > line);
    return after === undefined ? '' : ` (the user's next message: line ${after.line})`;
  };
  // Codex writes a call that waited for approval after the abort that stopped its turn: the user
  // may have stopped the turn at the prompt, not refused the change (agentcmd at 265).
  const aborted = (x: (typeof rs)[number]): string => (x.aborted === undefined ? '' : ` (recorded with the interruption of its turn, line ${x.aborted}: the user may have stopped the turn at the approval prompt rather than refused the call)`);
  const rows = rs.slice(-5).map((x) => `line ${x.line} — rejected the call at line ${x.callLine}: ${code(shown(x), 120)}${aborted(x)}${next(x.line)}${never(x)}`);
  return `\n\n${label('verified')} — calls the user rejected with no reason typed in the rejection, latest last:\n\n${bullets(rows)}`;
}

/**
 * Files a request names, as the agent read them: headings and the lines that state a number, a
 * rule or an emphasis. The candidate rows are built once; a level only changes the budget.
 */
function documents(a: Analysis, parent: string | null): (level: Level) => string {
  if (a.documents.length === 0) return () => '';
  const docs = a.documents.map((d) => ({
    d,
    // A config file's keys or a code file's definitions, then lines that state a number, a rule or an emphasis, then plain list items.
    passes: documentPasses(d.path, d.lines).map((pass) => pass.map((l) => ({ n: l.n, row: `l.${l.n}: ${oneLine(l.text, MD.DOC_LINE_CHARS)}` }))),
  }));
  return (level) => {
    if (level >= 3) return '';
    let budget: number = level === 0 ? MD.DOC_CHARS : level === 1 ? MD.DOC_CHARS / 2 : 0;
    const chosen = docs.map(() => new Map<number, string>());
    // Each file its share of the room, its most telling lines first (a long config file took it
    // all, and the script beside it got one line); then what is left, in the same order.
    /** Takes pass rows into file k's choice within `room` (and the whole budget); returns the characters taken. */
    const take = (k: number, pass: readonly { n: number; row: string }[], room: number): number => {
      const got = chosen[k] as Map<number, string>;
      let taken = 0;
      for (const { n, row } of pass) {
        if (got.has(n) || taken + row.length > room || row.length > budget) continue;
        taken += row.length;
        budget -= row.length;
        got.set(n, row);
      }
      return taken;
    };
    const share = Math.floor(budget / docs.length);
    const used = docs.map(() => 0);
    const passCount = Math.max(...docs.map((x) => x.passes.length));
    for (let p = 0; p < passCount; p += 1) docs.forEach(({ passes }, k) => (used[k] = (used[k] as number) + take(k, passes[p] ?? [], share - (used[k] as number))));
    for (let p = 0; p < passCount; p += 1) docs.forEach(({ passes }, k) => take(k, passes[p] ?? [], budget));
    const parts: string[] = [];
    docs.forEach(({ d }, k) => {
      const rows = [...(chosen[k] as Map<number, string>).entries()].sort((x, y) => x[0] - y[0]).map(([, r]) => r);
      // The lines kept from the read (at most DOC_LIMITS of them, those with words), not the file's:
      // what the read returned is said apart, when the harness numbered it (a reader took "10 of
      // the 60 lines" for a 60-line file; it had 1,287).
      const kept = d.lines.length;
      const span = d.span === undefined ? '' : d.span.first === d.span.last ? `the read returned line ${d.span.first}` : `the read returned lines ${d.span.first}–${d.span.last}`;
      const lines = `${kept} line${kept === 1 ? '' : 's'} with words`;
      const some = kept <= rows.length ? '' : rows.length === 0 ? `the ${lines} the store keeps of it ${kept === 1 ? 'is' : 'are'} in HANDOFF.summary.json` : `${rows.length} shown here of the ${lines} the store keeps of it, all in HANDOFF.summary.json`;
      const rest = span === '' && some === '' ? '' : ` (${[span, some].filter((x) => x !== '').join('; ')})`;
      // Written by the session after that read: those lines may be gone (37f83ec9 at 180: the
      // functions the read showed at 660 were replaced by the edit of line 18).
      const w = a.filesChanged.find((f) => f.line > d.line && fileKey(f.path) === fileKey(d.path));
      const did = w === undefined ? '' : w.how === 'delete' ? 'deleted' : w.how === 'move' ? 'moved' : 'wrote';
      const since = w === undefined ? '' : ` — the session ${did} it after that read (${w.writes !== undefined && w.first !== undefined && w.first > d.line ? `first at line ${w.first}, the latest at line ${w.line}` : `line ${w.line}`}): these lines are as they were then`;
      parts.push(`${path(d.path)} — named at line ${d.requestLine}, read at line ${d.line}${rest}${since}${rows.length > 0 ? `\n\n${bullets(rows)}` : ''}`);
    });
    return `\n\n### ${parent === null ? 'Files the user pointed at' : 'Files its task named'}\n\n${label('verified')} — what they said when the agent read them (l.N is the file's own line):\n\n${parts.join('\n\n')}`;
  };
}

/**
 * The agent's claims the transcript contradicts (SPEC §6). With none, it says so as that: a bare
 * "None" read as "every claim holds" to readers of a report whose claims no run proved.
 */
const NO_CONTRADICTION = 'None the transcript contradicts, and no plan step marked done as tested with no run to prove it (other claims no run proves are not checked here).';
/** The plan's steps are unreadable: whether one was marked done as tested with no run to prove it cannot be checked. */
const NO_CONTRADICTION_HIDDEN_PLAN = 'None the transcript contradicts; whether a plan step was marked done as tested with no run to prove it is not known, for the plan\'s steps are unreadable (see Current State). Other claims no run proves are not checked here.';

/**
 * A claim a line contradicts is said so; a plan step marked tested with no run behind it is not
 * contradicted but unproven, and said so: a reader took "contradicts" for a failed test.
 */
function claims(a: Analysis): string {
  if (a.contradictions.length === 0) return a.hiddenPlans === '' ? NO_CONTRADICTION : NO_CONTRADICTION_HIDDEN_PLAN;
  const kinds = new Set(a.contradictions.map(claimKind));
  // The user's word that it does not work, after a claim no run proves, speaks against it
  // (agentcmd at 620: the plan all done at 408, then "No teams or leads are loading" at 554 and 625).
  const up = a.userProblem;
  const userSaid = (c: Contradiction): number | undefined => (up === null ? undefined : [...up.earlier, up.line].find((n) => n > c.claim_line));
  const denied = a.contradictions.some((c) => claimKind(c) === 'unproven' && userSaid(c) !== undefined);
  const what =
    kinds.size === 1 && kinds.has('unproven')
      ? denied
        ? 'that no run in the transcript proves (unverified; the user said after them that it does not work, see each)'
        : 'that no run in the transcript proves (no line contradicts them: they are unverified)'
      : CLAIM_KINDS.filter(([k]) => kinds.has(k))
          .map(([, words]) => words)
          .join(', or ');
  const bullet = (c: Contradiction): string => {
    const kind = claimKind(c);
    if (kind === 'unproven') {
      const said = userSaid(c);
      return `claim at line ${c.claim_line}, unproven: ${oneLine(c.text, 400)}${said === undefined ? '' : `; after it the user said it does not work (line ${said}${said === up?.line ? '' : `, and again at line ${up?.line}`}; see Failures And Blockers)`}`;
    }
    const settled = c.settled === undefined ? '' : ` (settled in the session: the coverage report at line ${c.settled} lists that file with nothing missing)`;
    return `claim at line ${c.claim_line}, ${kind === 'stale' ? 'a later change' : 'evidence'} at line ${c.evidence_line}${settled}: ${oneLine(c.text, 400)}`;
  };
  return `${label('verified')} — the agent's own claims ${what}:\n\n${bullets(a.contradictions.map(bullet))}`;
}

type ClaimKind = 'contradicted' | 'stale' | 'unproven';

/** A claim a line contradicts; one resting on runs a later change made stale (no line contradicts it); one no run proves. */
function claimKind(c: Contradiction): ClaimKind {
  return c.unproven === true ? 'unproven' : c.stale === true ? 'stale' : 'contradicted';
}

const CLAIM_KINDS: readonly (readonly [ClaimKind, string])[] = [
  ['contradicted', 'that the transcript contradicts'],
  ['stale', 'that rest on checks run before a later change'],
  ['unproven', 'that no run in it proves'],
];

/** Current State at a given level: its rows are built once, a level only leaves parts of them out. */
function currentState(a: Analysis): (level: Level) => string {
  const c = a.current;
  if (c.source === null) return () => NONE;
  // The first item of each text, as find() would give it, without a scan per row.
  const byText = new Map<string, (typeof c.items)[number]>();
  for (const i of c.items) if (!byText.has(i.text)) byText.set(i.text, i);
  // The check runs' kinds, read once and only for a list with open items.
  let kinded: ReturnType<typeof checkKinds> | undefined;
  const runs = (): ReturnType<typeof checkKinds> => (kinded ??= checkKinds(a.checks));
  const rows = (items: string[], mark: string): { head: string; line: string; detail: string; since: string }[] =>
    items.map((t) => {
      const item = byText.get(t);
      const detail = mark !== 'x' && item?.detail !== undefined ? ` — ${oneLine(item.detail, MD.TASK_DETAIL_CHARS)}${item.created !== undefined && item.created !== item.line ? ` (created line ${item.created})` : ''}` : '';
      const since = mark === 'x' ? '' : doneSince(a, runs, `${t} ${item?.detail ?? ''}`, Math.max((c.seq ?? 0) + 1, item?.line ?? 0));
      return { head: `- [${mark}] ${t.replace(/\r?\n/g, ' ')}`, line: atLine(item?.line), detail, since };
    });
  const lists = [
    ['Completed', rows(c.completed, 'x')],
    ['In Progress', rows(c.in_progress, '~')],
    ['Not Started', rows(c.not_started, ' ')],
  ] as const;
  // Tasks are created and updated one by one (TaskCreate, TaskUpdate): the line is their latest change, not a whole list.
  const src = c.source === 'tasks' ? 'tasks as of their latest update' : 'latest todo/plan list';
  const lastReq = [...a.requests].reverse().find((q) => q.kind !== 'answer' && !saysOnlyThanks(q.text));
  const writes = writtenAfterList(a);
  const wrote = writes === null ? '' : `${writes.n} file(s) were written after it (the latest at line ${writes.last})`;
  // Every item done, and files written after it: work the list does not name is under way
  // (edgerunner at 782: all five done at 717, then 13 files patched for a new feature, its build failing).
  // Not when an item names what was written (a README fixed after "Document --json in README.md").
  const itemsText = c.items.map((i) => `${i.text} ${i.detail ?? ''}`).join(' ');
  const namedAfter = (seq: number): boolean => writtenNamedBy(itemsText, a.filesChanged, seq + 1).length > 0 || a.filesChanged.some((f) => f.line > seq + 1 && itemsText.toLowerCase().includes(fileName(f.path).toLowerCase()));
  const allDone = c.in_progress.length + c.not_started.length === 0 && c.seq !== null && !namedAfter(c.seq);
  // Both, when both hold (agentcmd: a plan before the user's "ok continue", then 12 files written that it never marked).
  const stale =
    c.seq !== null && lastReq !== undefined && c.seq + 1 < lastReq.line
      ? ` — written before the latest request (line ${lastReq.line}), so it may be out of date${wrote === '' ? '' : `, and ${wrote}`}`
      : wrote === ''
        ? ''
        : allDone
          ? ` — every item done then; ${wrote}, work no item of the list names: it is not the state of the work since (Files changed and Verification are)`
          : ` — not updated since, while ${wrote}: which of its items are done may have changed`;
  const intro = `${label('reported')} — from the agent's ${src}${at(c.seq)}${stale}`;
  return (level) => {
    // What was done since an open item is kept at every level: it says the mark may be stale.
    const list = (rs: readonly { head: string; line: string; detail: string; since: string }[]): string => (rs.length === 0 ? NONE : rs.map((r) => `${r.head}${level < 3 ? r.line : ''}${level < 2 ? r.detail : ''}${r.since}`).join('\n'));
    return [intro, ...lists.map(([title, rs]) => `### ${title}\n\n${list(rs)}`)].join('\n\n');
  };
}

/**
 * An item left open whose words name a file written, or a kind of check run, after the list: the
 * work may be done (agentcmd and edgerunner: steps still "Not Started" that had been carried out).
 */
function doneSince(a: Analysis, runs: () => ReturnType<typeof checkKinds>, text: string, after: number): string {
  if (a.current.seq === null) return '';
  // A file an `echo` of literal words wrote says which (posthog's `echo "[]" > data/raw/issues.json`, a stub, not the data an item names).
  const echoed = (f: FileChange): string => {
    const t = echoText(f);
    return t === undefined ? '' : `: ${t}${thenJob(a, f.line)}`;
  };
  const files = writtenNamedBy(text, a.filesChanged, after).map((f) => `\`${fileName(f.path)}\` written (line ${f.line}${echoed(f)})`);
  const checks = checksNamedBy(text, runs, after).map((r) => `${code(r.command, 60)} ${outcomeWord(r.outcome)} (line ${r.line})`);
  const all = [...files, ...checks];
  return all.length === 0 ? '' : ` — since it, what its words name: ${all.join('; ')}`;
}

/** The text an `echo` wrote into a file written once (a later write's text is not that one). */
function echoText(f: FileChange): string | undefined {
  const t = (f.writes ?? 1) === 1 ? f.what?.[0] : undefined;
  return t !== undefined && isEchoWhat(t) ? t : undefined;
}

/**
 * Of a file's row: a background job that ran on past the write that left it so (an echo's stub,
 * or a deletion: posthog at 354, `rm -f data/raw/prs.json`, then the fetcher of 355 wrote it anew).
 */
function laterByJob(a: Analysis, f: FileChange): string {
  if (echoText(f) !== undefined) return thenJob(a, f.line);
  if (howOf(f) !== 'deleted') return '';
  const job = jobRanOn(a, f.line, 'made it again');
  return job === '' ? '' : `${(f.what ?? []).length === 0 ? '' : '; '}${job}`;
}

/** After an echo's text: that it was the session's then, and the job that ran on past it, if one did. */
function thenJob(a: Analysis, line: number): string {
  const job = jobRanOn(a, line, 'rewritten it');
  return job === '' ? '' : `, then; ${job}`;
}

/**
 * An echo's text is what the session wrote then; a background job that ran on past that write may
 * have written the file since, unseen (posthog at 458: `echo '[]' > data/raw/issues.json` while the
 * fetcher started at 355 ran, which wrote the real data when it ended at 1212). The job of the
 * latest start that was still running after the line, or '' when none was.
 */
function jobRanOn(a: Analysis, line: number, did: string): string {
  const j = a.jobs.filter((x) => x.status === 'running' || (x.endLine ?? 0) > line).sort((x, y) => y.line - x.line)[0];
  if (j === undefined) return '';
  return `the background job of line ${j.line} ${j.status === 'running' ? 'runs on' : `ran on to line ${j.endLine}`} and may have ${did}`;
}

/**
 * A list not updated while files were written after it (edgerunner: the plan at line 146 said
 * nothing was done, and 40 files were written after it; at 717 it said all was): its marks are the
 * agent's word at that line, not the state of the work.
 */
function writtenAfterList(a: Analysis): { n: number; last: number } | null {
  const c = a.current;
  if (c.seq === null || c.items.length === 0) return null;
  const listed = c.seq + 1;
  let n = 0;
  let last = 0;
  for (const f of a.filesChanged) {
    if (f.line <= listed) continue;
    n += 1;
    last = Math.max(last, f.line);
  }
  return n === 0 ? null : { n, last };
}

/** Current State's body: the task list (or None), then the plan and the background jobs, each when there is one. */
/** A bare "None" here was read as "the session has no state" (FundWise): it had no list, not no state. */
const NO_LIST = 'None: the session kept no todo list, task list or plan (what it did and where it stopped are under State right now, Files changed and Repository Evidence)';

function currentWithPlan(current: string, planPart: string, jobsPart: string, hiddenPlans = ''): string {
  // A plan the agent kept, whose steps the transcript's publisher redacted: not "no plan".
  if (current === NONE && planPart === '' && hiddenPlans !== '') return `${label('unknown')} — ${hiddenPlans}${jobsPart}`;
  if (current === NONE && planPart === '' && jobsPart === '') return NO_LIST;
  return current === NONE && planPart !== '' ? `${planPart.replace(/^\n\n/, '')}${jobsPart}` : `${current}${planPart}${jobsPart}`;
}

/**
 * How much of the plan HANDOFF.md shows, by level: a plan up to `whole` characters as written;
 * a longer one as its outline (headings and list items, at most `lines`), so that every step and
 * every file it names stays in view (HANDOFF.llm.json's `plan` holds the text).
 */
const PLAN_MD: Record<Level, { whole: number; lines: number }> = { 0: { whole: 1500, lines: 40 }, 1: { whole: 1500, lines: 40 }, 2: { whole: 600, lines: 16 }, 3: { whole: 0, lines: 0 } };
const PLAN_LINE_CHARS = 110;
/** A Markdown heading or list item: the plan's structure. */
const OUTLINE_LINE = /^ {0,6}(?:#{1,6}\s|[-*+]\s|\d{1,3}[.)]\s)/;

/** The headings and list items of a plan, outside its code blocks, each on one line. */
export function planOutline(text: string): string[] {
  const out: string[] = [];
  for (const { line } of linesOutsideFences(text)) {
    if (OUTLINE_LINE.test(line)) out.push(line.trimEnd().length > PLAN_LINE_CHARS ? `${line.trimEnd().slice(0, PLAN_LINE_CHARS - 1)}…` : line.trimEnd());
  }
  return out;
}

/**
 * An outline of more than `lines` lines keeps its head and its tail, with how many were left out
 * between: a plan's last part is often the files it will touch and the checks it will run.
 */
export function outlineCut(outline: readonly string[], lines: number): { shown: string[]; more: string } {
  if (outline.length <= lines) return { shown: [...outline], more: '' };
  const headN = Math.ceil(lines / 2);
  const tailN = lines - headN;
  return { shown: [...outline.slice(0, headN), `… ${outline.length - lines} more …`, ...outline.slice(outline.length - tailN)], more: `, the first ${headN} and the last ${tailN} of its ${outline.length}` };
}

/**
 * A plan's answer as the handoff quotes it: only words the transcript holds go between « ». A
 * refusal is recorded as `rejected by the user`, the harness's fact, not its words (Claude Code's
 * result says "The user doesn't want to proceed with this tool use…"): quoted, it read as what the
 * line says; what the user typed beside it is quoted alone.
 */
function answerSaid(answer: string | undefined, max: number): string {
  if (answer === undefined) return '';
  const refusal = /^rejected by the user(?::\s*([\s\S]*))?$/.exec(answer);
  if (refusal === null) return `: «${oneLine(answer, max)}»`;
  const typed = refusal[1]?.trim() ?? '';
  return typed === '' ? ', a refusal' : `, a refusal with the words «${oneLine(typed, max)}»`;
}

function planAnswer(p: PlanRecord): string {
  const said = answerSaid(p.answer, 160);
  if (p.result_line === undefined) return 'its answer is not recorded yet';
  if (p.approved === true) return `approved by the user (line ${p.result_line})`;
  if (p.approved === false) return `not approved (line ${p.result_line})${said}`;
  return `its result (line ${p.result_line}) does not say it was approved${said}`;
}

/**
 * The files approved plans named and the session never wrote after them: work left undone, or
 * dropped without a word. The latest approved plan first, then those approved before it, named by
 * their title (a later task's plan does not make an earlier one's files done).
 */
function planUnwritten(a: Analysis): string {
  const u = a.plan?.unwritten ?? null;
  const earlier = a.plan?.earlierUnwritten ?? [];
  if (u === null && earlier.length === 0) return '';
  const one = (x: PlanUnwritten, titled: boolean, field: string): string => {
    const shown = x.files.slice(0, 8);
    const more = x.files.length > shown.length ? `, and ${x.files.length - shown.length} more${field}` : '';
    const maybe = x.conditional === undefined ? '' : ` (nor ${x.conditional.length === 1 ? 'the 1 file' : `the ${x.conditional.length} files`} it names only if ${x.conditional.length === 1 ? 'it exists' : 'they exist'} or as optional: ${x.conditional.slice(0, 4).map((f) => code(f)).join(', ')}${x.conditional.length > 4 ? ', …' : ''})`;
    return `of the ${x.named} file(s) the approved plan of line ${x.line}${titled ? ` («${oneLine(x.title, 100)}»)` : ''} names to change, the session did not write ${x.files.length} after it: ${shown.map((f) => code(f)).join(', ')}${more}${maybe}`;
  };
  const latest = u === null ? '' : ` ${one(u, false, " (HANDOFF.summary.json's `plan.files_not_written`)")}.`;
  const before = earlier.length === 0 ? '' : ` ${u === null ? '' : 'An earlier plan too: '}${earlier.map((x) => one(x, true, '')).join('; ')} (HANDOFF.summary.json's \`plan.earlier_files_not_written\`).`;
  // No request since the latest plan was approved: nothing the user said dropped them (deep-manifest:
  // "ask the user" read as if the README and BDD tests the user approved were in doubt).
  const settled = a.plan === null ? null : (a.plan.latest.result_line ?? a.plan.latest.line);
  const since = settled === null ? [] : a.requests.filter((q) => q.kind !== 'answer' && q.kind !== 'rejection' && q.line > settled && !saysOnlyThanks(q.text));
  const advice = u !== null && earlier.length === 0 && since.length === 0 ? ` The user approved the plan and has asked for nothing else since: they are work left to do, unless the user drops them.` : ' Ask the user whether they are still wanted, or do them.';
  return `\n\n${label('verified')} —${latest}${before}${advice}`;
}

function plan(a: Analysis, level: Level): string {
  if (a.plan === null) return '';
  const { latest, approvedBefore, notApproved } = a.plan;
  const settled = latest.result_line ?? latest.line;
  // The requests after it: the first says when, the count and the latest how much came since.
  const later = a.requests.filter((q) => q.kind !== 'answer' && q.kind !== 'rejection' && q.line > settled && !saysOnlyThanks(q.text));
  const first = later[0];
  const last = later[later.length - 1];
  const stale = first === undefined || last === undefined ? '' : ` The user wrote again after it (line ${first.line}${later.length > 1 ? `, and ${later.length - 1} more request(s) up to line ${last.line}` : ''}): it may be out of date.`;
  const saved = latest.saved_to === undefined ? '' : `; Claude Code saved it to ${path(latest.saved_to)}`;
  // A plan not approved was refused: its call did not run (the user said no, or interrupted it).
  // One refused with words typed beside the refusal was sent back with them ("keep the file's
  // name, otherwise gtg"): the words, not "refused", say what the user wanted of it.
  const refused = (p: PlanRecord): string => {
    const why = p.answer !== undefined && /^rejected by the user:\s*\S/.test(p.answer);
    // The same plan put again and settled (approved, say, once something else was done first).
    const same = p.text === latest.text && (p.chars ?? p.text.length) === (latest.chars ?? latest.text.length) ? `, word for word the plan of line ${latest.line}` : '';
    // What the user wrote next, before the plan was put again, says why ("first commit the
    // previous task, then proceed with this plan"): a refusal may only reorder the work.
    const at = p.result_line ?? p.line;
    const next = why ? undefined : a.requests.find((q) => q.line > at && q.kind === 'request');
    const then = next !== undefined && next.line < latest.line ? `, then wrote (line ${next.line}): «${oneLine(next.text, 120)}»` : '';
    return `${why ? 'sent back' : 'refused'} the plan put at line ${p.line}${same}${why ? ' with changes to make' : ''} (line ${at}${answerSaid(p.answer, 120)})${then}`;
  };
  const earlier = notApproved.length === 0 ? '' : ` Before it, the user ${notApproved.map(refused).join(', ')}.`;
  const before = approvedBefore === null ? '' : ` The plan approved before it (line ${approvedBefore.line}, approved at line ${approvedBefore.result_line}) is HANDOFF.llm.json's \`plan.approved_before\`.`;
  const intro = `${label('reported')} — the latest plan the agent put to the user (line ${latest.line}), ${planAnswer(latest)}${saved}.${stale}${earlier}${before} What it set out to do is not proof that it was done: the task list, the checks and the files changed say what was.`;
  const { whole, lines } = PLAN_MD[level];
  const unwritten = planUnwritten(a);
  if (whole === 0) return `\n\n### Plan\n\n${intro} Its text is HANDOFF.llm.json's \`plan\`.${unwritten}`;
  const chars = latest.chars ?? latest.text.length;
  if (latest.chars === undefined && latest.text.length <= whole) return `\n\n### Plan\n\n${intro}\n\n${fence(latest.text)}${unwritten}`;
  const outline = planOutline(latest.text);
  const held = latest.chars === undefined ? 'the whole' : `its first ${latest.text.length - 1} (the whole is in the transcript)`;
  if (outline.length === 0) return `\n\n### Plan\n\n${intro}\n\n${fence(`${latest.text.slice(0, whole - 1)}…`)}\n\nIts first ${whole - 1} of ${chars} characters; HANDOFF.llm.json's \`plan\` holds ${held}.${unwritten}`;
  const { shown, more } = outlineCut(outline, lines);
  // A plan kept as its head: the outline is of that head, and what comes after it (often the files
  // to change and the tests to add) is only in the transcript.
  // The headings of the part left out name the steps a successor must read there (deep-manifest at 120).
  const restHeads = latest.restHeadings === undefined || level >= 2 ? '' : `; its headings: ${latest.restHeadings.slice(0, 12).map((h) => `«${h}»`).join(', ')}${latest.restHeadings.length > 12 ? ', …' : ''}`;
  const of = latest.chars === undefined ? 'Its headings and list items' : `The headings and list items of its first ${latest.text.length - 1} characters — the rest, ${chars - (latest.text.length - 1)} more, is only in the transcript at line ${latest.line}${restHeads}`;
  return `\n\n### Plan\n\n${intro}\n\n${fence(shown.join('\n'))}\n\n${of}${more} (the plan is ${chars} characters; HANDOFF.llm.json's \`plan\` holds ${held}).${unwritten}`;
}

/** Codex's calls whose command may outlive them, followed through the polls of its session (jobs.ts). */
const CODEX_EXEC = new Set(['exec_command', 'exec']);

/** Background jobs at a budget level (exported for its tests). */
/**
 * Background jobs that failed, said where failures are (posthog at 450: "None" there, and "2 failed"
 * among the jobs): the latest, and the same program's run after it, which is why none is open.
 */
function failedJobs(a: Analysis): string | null {
  const failed = a.jobs.filter((j) => j.status === 'failed' || endedOnError(j));
  if (failed.length === 0) return null;
  const last = failed.reduce((x, y) => ((y.endLine ?? y.line) > (x.endLine ?? x.line) ? y : x));
  // Only a run still going is said: "started again …, completed" read as the fix (posthog at 1200:
  // the run of 103 had the code before the fix of 113, and its output was never read).
  const again = a.jobs.find((k) => k.line > last.line && k.status === 'running' && sameProgram(k.command, last.command));
  const n = failed.length;
  const which = `${n === 1 ? '' : 'the latest: '}${code(last.id)}, started line ${last.line}${last.endLine === undefined ? '' : `, ended line ${last.endLine}`}`;
  const rerun = again === undefined ? '' : `; the same program runs again (${code(again.id)}, line ${again.line})`;
  return `${n === 1 ? 'a background job' : `${n} background jobs`} failed (${which})${rerun}: see Background jobs`;
}

/**
 * How a job ended, in words: "completed" said of an exit code 0 that a pipe gave (`python fetch.py
 * 2>&1 | tail -60`) is `tail`'s, not the program's (posthog at 1000: `bnyxbxdis` "completed", a run
 * of the same crashing fetcher as `bkzv7ang6` beside it, whose output was read and ended in a crash).
 */
function jobStatus(j: Analysis['jobs'][number]): string {
  if (j.status !== 'completed') return j.status;
  const pipe = pipedInto(j.command);
  return pipe === null ? j.status : `completed (exit code 0 from its pipe's \`${pipe}\`: the program's own is not known)`;
}

export function jobs(a: Analysis, level: Level): string {
  if (a.jobs.length === 0) return '';
  // A job not heard of again whose program was started again later: it had ended (or the
  // later one could not start beside it), not "still running" — a dev server restarted three times.
  const restarted = new Map(a.jobs.map((j) => [j, a.jobs.find((k) => k.line > j.line && sameProgram(k.command, j.command))?.line]));
  const running = a.jobs.filter((j) => j.status === 'running' && restarted.get(j) === undefined);
  // Past the last budget level, what still runs is said alone, shortly: a successor must not start a
  // second server on its port; that none does is said in a line (edgerunner at 641: the agent's
  // "the backend server remains running" stood alone, and the server had been killed at 597).
  if (level >= 3 && running.length === 0) {
    const last = a.jobs.reduce((x, y) => ((y.endLine ?? y.line) > (x.endLine ?? x.line) ? y : x));
    // The last to end by its command and how: a server the agent stopped is that server (edgerunner at 620: `kill` at 597).
    return `\n\n### Background jobs\n\n${label('verified')} — none left running: the ${a.jobs.length} job(s) all ended, the last ${code(oneLine(last.command, 80), 160)} (started line ${last.line}), ${jobStatus(last)}${atLine(last.endLine)} (HANDOFF.summary.json's \`jobs\`).`;
  }
  const unheard = level >= 3 ? [] : a.jobs.filter((j) => j.status === 'running' && restarted.get(j) !== undefined);
  const ended = a.jobs.filter((j) => j.status !== 'running').slice(0, level === 0 ? MD.JOBS_ENDED : 0);
  const name = (j: (typeof a.jobs)[number]): string => `${code(j.id)} (${j.tool}${j.description ? ` «${oneLine(j.description, 60)}»` : ''}, started line ${j.line})`;
  const cmdChars = level >= 3 ? 100 : 200;
  // The same program's run just before a running one, ended on an error: why it was started again,
  // and what may stop this one too (edgerunner at 402: the server's first start at 394 ended on
  // «Operation not permitted», the second asked for the sandbox's escalation and had no result).
  const failedBefore = (j: (typeof a.jobs)[number]): string => {
    const e = a.jobs.filter((k) => k.line < j.line && sameProgram(k.command, j.command)).sort((x, y) => y.line - x.line)[0];
    // Listed with the ended ones, its last output is there already.
    if (e === undefined || !endedOnError(e) || e.lastEvent === undefined || ended.includes(e)) return '';
    return `; the same program's run before it, ${code(e.id)} (started line ${e.line}), ended on an error (line ${e.lastEvent.line}): «${oneLine(e.lastEvent.text, 120)}»`;
  };
  // Files the session wrote after a running job started (analysis.ts writtenSinceStart).
  const writtenSince = (j: (typeof a.jobs)[number]): string => {
    const w = j.writtenSince;
    return w === undefined ? '' : `; the session wrote ${w.files} file(s) after it started (the latest ${code(fileName(w.path))}, line ${w.line}): it may run ${level >= 3 ? 'older code' : 'code older than them'}`;
  };
  const rows = [
    // The transcript's last word on it, not the machine's state now: a server seen up 19 hours before the next turn.
    ...running.map((j) => `**running, no end recorded** ${name(j)}: ${code(oneLine(j.command, cmdChars), 2 * cmdChars)}${level >= 3 ? '' : j.lastEvent ? ` — last progress (line ${j.lastEvent.line}): «${oneLine(j.lastEvent.text, 160)}»` : ' — no progress reported yet'}${failedBefore(j)}${writtenSince(j)}`),
    ...unheard.map((j) => `no end recorded: ${name(j)}: ${code(oneLine(j.command, 100), 200)} — started again at line ${restarted.get(j) as number}`),
    ...ended.map((j) => `${jobStatus(j)}${atLine(j.endLine)}${j.killedAt === undefined ? '' : ` (by the session's own kill at line ${j.killedAt})`}: ${name(j)}${j.lastEvent ? ` — last output (line ${j.lastEvent.line}): «${oneLine(j.lastEvent.text, 100)}»` : ''}`),
  ];
  const more = a.jobs.length - running.length - unheard.length - ended.length;
  // A shorter level lists no ended job: what matters, that none was left running, is still said.
  if (rows.length === 0) {
    const latest = a.jobs.reduce((x, y) => ((y.endLine ?? y.line) > (x.endLine ?? x.line) ? y : x));
    return `\n\n### Background jobs\n\n${label('verified')} — none left running: the ${a.jobs.length} job(s) started in the background all ended, the latest to end ${name(latest)}, ${jobStatus(latest)}${atLine(latest.endLine)} (each in HANDOFF.summary.json's \`jobs\`).`;
  }
  // A Codex job's id is its command session's, for `write_stdin`: no process id (edgerunner at 526: `85147`, the server's pid 89483).
  const how = a.jobs.some((j) => CODEX_EXEC.has(j.tool))
    ? "started in the background or left running by their call (a command session the agent polled; a Codex session's id is for `write_stdin`, not a process id), followed through their notifications and polls"
    : a.jobs.some((j) => j.moved === true)
      ? 'started in the background, or moved there by Claude Code when the command outlived its call, followed through their notifications and polls'
      : 'started in the background, followed through their notifications';
  // How the ones not listed ended: a failed one among them is what a successor looks for (posthog
  // at 400: "4 more job(s)" hid two fetches that failed).
  const listed = new Set([...running, ...unheard, ...ended]);
  const tally = new Map<string, number>();
  // An `ended` job whose last line is an error's is counted so, as Failures And Blockers counts it
  // among the failed (edgerunner whole: "16 ended" there beside "5 background jobs failed").
  for (const j of a.jobs) {
    if (listed.has(j)) continue;
    const how = endedOnError(j) ? 'ended on an error' : jobStatus(j);
    tally.set(how, (tally.get(how) ?? 0) + 1);
  }
  const endings = [...tally].sort((x, y) => y[1] - x[1]).map(([st, n]) => `${n} ${st}`).join(', ');
  return `\n\n### Background jobs\n\n${label('verified')} — ${how} (running first; whether one still runs now is not known: check before starting it again):\n\n${bullets(rows)}${more > 0 ? `\n\n${more} more job(s) in HANDOFF.summary.json (${endings}).` : ''}`;
}

/**
 * `short`: past the last budget level, Files changed lists its latest MD.FILES_SHORT, and destructive commands are not quoted.
 * `names`: room (in characters) for the names of the changed files its table leaves out; `redone`:
 * say which writes failed and were made after (both in the room the budget leaves).
 */
function repoEvidence(r: RenderInput, a: Analysis, files: number = MD.FILES, short = false, names = 0, redone: Redone = 'short'): string {
  const g = r.git;
  const out: string[] = [];
  const recorded = recordedBranch(r, a);
  if (g.status === 'ok') {
    const dirty = g.dirty ? `yes (${g.changed_total} changed, ${g.untracked_total} untracked)` : 'no';
    out.push(
      `${label('verified')} at build time (${g.captured_at ?? 'unknown time'}) in ${path(g.cwd ?? '')}:`,
      bullets([
        `repository: ${path(g.top ?? '')}`,
        `branch: ${g.branch === null ? 'detached HEAD' : code(g.branch)}`,
        `HEAD: ${code(g.head ?? '')}`,
        `dirty: ${dirty}`,
      ]),
    );
    if (g.changed.length > 0) out.push(`Changed:\n\n${bullets(g.changed.map((f) => code(f)))}${g.changed_total > g.changed.length ? `\n- … ${g.changed_total - g.changed.length} more` : ''}`);
    if (g.untracked.length > 0) out.push(`Untracked:\n\n${bullets(g.untracked.map((f) => code(f)))}${g.untracked_total > g.untracked.length ? `\n- … ${g.untracked_total - g.untracked.length} more` : ''}`);
    if (g.diffstat) out.push(`Diff summary:\n\n${fence(g.diffstat)}`);
  } else {
    out.push(`${label('unknown')} — repository state unavailable: ${g.reason ?? g.status}. The repository's branch, HEAD and dirty state could not be read at build time, and are null in the front matter (never assumed clean)${recorded === null ? '' : '; what the transcript recorded is below'}.`);
    const listed = listedBySession(r, a);
    if (listed !== null) out.push(listed);
    const seen = gitSeenBySession(r, a);
    if (seen !== null) out.push(seen);
  }
  const base = pathsBase(r.state.meta);
  out.push(filesChanged(a, base, files, names), filesNotChanged(a, base, redone), commits(a, short));
  if (recorded !== null) out.push(recorded);
  const allowed = permissions(r, short);
  if (allowed !== null) out.push(allowed);
  const moved = cwdMoved(r.state.meta);
  if (moved !== null) out.push(moved);
  const gone = destroyed(r, short);
  if (gone !== null) out.push(gone);
  return out.join('\n\n');
}

/**
 * When the repository cannot be read now: the files the session's own latest `git status` (or
 * `git diff --name-only`) listed after its last commit, as printed then. The state it shows is the
 * session's, not the repository's now.
 */
function listedBySession(r: RenderInput, a: Analysis): string | null {
  const t = listingAfterLastCommit(r.state.ledger);
  if (t === null) return null;
  if (t.paths.length === 0) return t.committed === undefined ? null : allCommitted(a, t.line, t.committed, t.took?.length ?? 0, t.addedAt, t.stagedBefore);
  const shown = t.paths.slice(0, MD.LISTED);
  const more = t.paths.length > shown.length ? `, … ${t.paths.length - shown.length} more` : '';
  const afterCommit = r.state.ledger.lastCommitLine === null ? '' : ', after its last commit,';
  // A listing of named paths says nothing of the others.
  const limited = t.limited ? ', limited to the paths it named,' : '';
  // Untracked files were never added: "uncommitted" would suggest changes to files git knows.
  // git lists an untracked folder as one entry (`?? supabase/`), whatever it holds.
  const folders = t.paths.filter((p) => p.endsWith('/')).length;
  const inFolders = folders === 0 ? '' : `; ${folders} of the entries are untracked folders, each listed once whatever it holds`;
  // Staged new files are in no commit either: read as changes to committed files, they suggest a
  // baseline `git diff HEAD` would show against (rave-era at 321: 47 of 67 were `A`/`AM`).
  const added = t.added === undefined ? '' : t.added === t.paths.length ? ' (all new files staged with `git add`, in no commit)' : `, ${t.added} of them new files staged with \`git add\`, in no commit`;
  // Untracked then, and staged by a `git add` since (said below): "never added" would no longer hold.
  const never = (t.untrackedStaged ?? 0) > 0 && t.committed === undefined ? 'not added to git then' : 'never added to git';
  const kind = `${t.untracked === t.paths.length ? `untracked file(s), ${never}` : `uncommitted file(s)${t.untracked === undefined ? '' : `, ${t.untracked} of them untracked (${never})`}${added}`}${inFolders}`;
  const what =
    t.committed === undefined
      ? `the session's latest ${t.narrower === undefined ? '' : 'whole '}\`git status\` or \`git diff --name-only\` (line ${t.line})${afterCommit}${limited} listed ${t.paths.length} ${kind}`
      : `the session's latest \`git status\` (line ${t.line})${limited} showed ${t.paths.length} file(s) unstaged or untracked${t.untracked === undefined ? '' : t.untracked === t.paths.length ? ' (all untracked, never added to git: `git commit -a` would not take them)' : ` (${t.untracked} of them untracked, never added to git: \`git commit -a\` would not take those)`}, which its commit at line ${t.committed} (of what was staged) left uncommitted`;
  const since = missingFromListing(a, t, pathsBase(r.state.meta));
  // A `git add` since the listing, no commit after it: what it staged is no longer as listed.
  const u = t.untrackedStaged ?? 0;
  const addedSince =
    t.committed !== undefined || t.addedAt === undefined || (t.stagedSince ?? 0) <= 0
      ? ''
      : ` Since then the \`git add\` at line ${t.addedAt} staged ${t.stagedSince} of them${u === 0 ? '' : u === t.untracked ? `, the untracked ${u === 1 ? 'one' : 'ones'} among them` : `, ${u} of the untracked among them`}, and no commit came after it.`;
  const narrower = t.narrower === undefined ? '' : ` A later \`git status\` (line ${t.narrower}) named some paths and showed only those: this whole listing stands for the rest.`;
  return `${label('reported')} — ${what}: ${shown.map((p) => code(p)).join(', ')}${more}.${addedSince}${since}${narrower}`;
}

/**
 * A listing whose every file was staged, and the commit that took them (posthog at 511: `git add -A
 * && git status`, then a commit whose hash `| tail -3` cut away): nothing was left uncommitted
 * then; what the session wrote after that commit is uncommitted as far as the transcript shows, and
 * what it wrote between the listing and the commit may not be in it (the commit took what was staged).
 */
function allCommitted(a: Analysis, listed: number, committed: number, took: number, addedAt: number | undefined, stagedBefore: number | undefined): string {
  const name = (f: FileChange): string => `${code(fileName(f.path))} (line ${f.line})`;
  const list = (fs: readonly FileChange[]): string => `${fs.slice(0, MD.LISTED).map(name).join(', ')}${fs.length > MD.LISTED ? `, … ${fs.length - MD.LISTED} more` : ''}`;
  const after = a.filesChanged.filter((f) => f.line > committed);
  // Written after `git add` and before the commit: the commit took what was staged (r2c of the skeptic's probes).
  const between = a.filesChanged.filter((f) => f.line > listed && f.line < committed);
  const since = after.length === 0 ? ' The session wrote no file after that commit.' : ` The session wrote ${after.length} file(s) after that commit, which no later commit in the transcript took: ${list(after)}.`;
  const mid = between.length === 0 ? '' : ` ${between.length} file(s) were written between that listing and the commit (${list(between)}): the commit took what was staged, which may not hold those writes.`;
  // Files the listing showed unstaged that a later `git add` staged: the listing did not show them staged.
  const shown = took > 0 ? `${took} file(s)` : 'its files';
  const staged =
    addedAt === undefined
      ? `showed ${took > 0 ? `${took} file(s), all` : 'every file'} staged`
      : `showed ${shown} changed, ${stagedBefore === 0 ? 'none' : 'not all'} of them staged; the \`git add\` ${addedAt === committed ? "of the commit's own command" : `at line ${addedAt}`} staged ${stagedBefore === 0 ? 'them' : 'the rest'}`;
  return `${label('reported')} — the session's latest \`git status\` (line ${listed}) ${staged}, and its commit at line ${committed} took them.${mid}${since}`;
}

/**
 * Why files the session wrote are not in its latest listing. A listing is what the tree held then:
 * files first written later are not in it. Of those written before, each for the reason the
 * transcript shows, never a guess passed off as the reason: the listing named other paths; the file
 * is outside the folder the session ran in; a commit of the session's came after its first write
 * (it may have taken it); else what is left, which for `git status` (it lists untracked files) is a
 * file changed back or one git ignores, and for `git diff --name-only` also a new, untracked file.
 * A file in the listing and written again later is in it; a Windows path matches git's `/` form.
 */
function missingFromListing(a: Analysis, t: NonNullable<ReturnType<typeof listingAfterLastCommit>>, base: string | undefined): string {
  const slash = (p: string): string => p.replace(/\\/g, '/');
  const names = t.paths.map(slash);
  // `git status` lists an untracked folder whole (`?? components/admin/`): the files under it are in it.
  const listed = (path: string): boolean => {
    const p = slash(path);
    return names.some((q) => p === q || p.endsWith(`/${q}`) || (q.endsWith('/') && (p.startsWith(q) || p.includes(`/${q}`))));
  };
  const missing = a.filesChanged.filter((f) => !listed(f.path));
  const later = missing.filter((f) => (f.first ?? f.line) > t.line).length;
  const earlier = missing.filter((f) => (f.first ?? f.line) <= t.line);
  const out: string[] = [];
  // A listed file no write of the session's names was there before it, or a program made it: not
  // an edit of the session's (said only when every write is listed, not a bounded few).
  // An untracked folder (`components/admin/`) holding a file the session wrote before the listing
  // is the session's too: the folder of the listing's own paths, not one of its name elsewhere.
  const inFolder = (f: (typeof a.filesChanged)[number], q: string): boolean => {
    if ((f.first ?? f.line) > t.line) return false;
    const rel = base === undefined ? null : relativeTo(f.path, base);
    return rel === null ? slash(f.path).includes(`/${q}`) : slash(rel).startsWith(q);
  };
  const wrote = (q: string): boolean => a.filesChanged.some((f) => slash(f.path) === q || slash(f.path).endsWith(`/${q}`) || (q.endsWith('/') && inFolder(f, q)));
  const notWritten = names.filter((q) => !wrote(q));
  if (notWritten.length > 0 && notWritten.length < names.length && a.filesChanged.length >= a.filesChangedTotal) {
    const shown = notWritten.slice(0, 5).map((q) => code(q)).join(', ');
    const more = notWritten.length > 5 ? `, … ${notWritten.length - 5} more` : '';
    out.push(notWritten.length === 1 ? ` No edit of the session's, nor a shell command that plainly writes, wrote ${shown} (it was there before, or a program made it).` : ` No edit of the session's, nor a shell command that plainly writes, wrote these ${notWritten.length}: ${shown}${more} (they were there before, or a program made them).`);
  }
  if (later > 0) out.push(` The session first wrote ${later} other file(s) after it (Files changed below).`);
  if (earlier.length === 0) return out.join('');
  if (t.limited) {
    out.push(` ${earlier.length} file(s) it wrote before it are not in it: the listing named only the paths it asked about.`);
    return out.join('');
  }
  const outside = earlier.filter((f) => base !== undefined && relativeTo(f.path, base) === null);
  const inside = earlier.filter((f) => !outside.includes(f));
  const until = t.committed ?? t.line;
  const commitAfter = (f: FileChange): number | undefined => a.commits.find((c) => c.line > (f.first ?? f.line) && c.line <= until)?.line;
  // A commit whose own command staged the file by name took it; so did the commit of what the listing showed staged.
  const stagedThen = (f: FileChange): boolean => t.committed !== undefined && (t.took ?? []).some((q) => slash(f.path) === slash(q) || slash(f.path).endsWith(`/${slash(q)}`));
  const tookIt = (f: FileChange): number | undefined => (stagedThen(f) ? t.committed : a.commits.find((c) => c.line > (f.first ?? f.line) && c.line <= until && c.took?.some((p) => slash(p) === slash(f.path)) === true)?.line);
  const took = inside.filter((f) => tookIt(f) !== undefined);
  const committed = inside.filter((f) => tookIt(f) === undefined && commitAfter(f) !== undefined);
  const rest = inside.length - committed.length - took.length;
  const why: string[] = [];
  if (outside.length > 0) why.push(`${outside.length} outside the folder the session ran in, which it does not cover`);
  if (took.length > 0) {
    const lines = [...new Set(took.map((f) => tookIt(f) as number))].sort((x, y) => x - y);
    why.push(`${took.length} committed at line ${lines.join(', ')} (staged by name for it, and git counted as many files changed)`);
  }
  if (committed.length > 0) {
    const lines = [...new Set(committed.map((f) => commitAfter(f) as number))].sort((x, y) => x - y);
    why.push(`${committed.length} written before a commit of the session's (line ${lines.join(', ')}), which may have taken them`);
  }
  if (rest > 0) why.push(`${rest} ${t.status ? 'changed back, or ignored by git' : 'new and untracked (`git diff` does not show them), or changed back'}`);
  out.push(` ${earlier.length} file(s) it wrote before it are not in it: ${why.join('; ')}.`);
  return out.join('');
}

/**
 * When the repository cannot be read now: the newest commit the session's own latest `git log`
 * printed, and the remotes its latest `git remote -v` named (or that it named none).
 */
function gitSeenBySession(r: RenderInput, a: Analysis): string | null {
  const l = r.state.ledger;
  const parts: string[] = [];
  if (l.logTop !== undefined) {
    // HEAD as that log printed it: a later commit moved it on; a checkout, merge, pull, rebase or
    // reset may have (a checkout of a branch at the same commit does not).
    const top = l.logTop;
    const movedAt = (l.headMoves ?? []).filter((n) => n > top.line).at(-1);
    const sw = l.switchedTo;
    // Every commit of the session after the log moved HEAD on: deep-manifest's log at 27, then
    // commits at 40 and 70, was said to be followed by "the session's commit at line 70" alone.
    const since = a.commits.filter((c) => c.line > top.line).sort((x, y) => x.line - y.line);
    const moved =
      movedAt === undefined
        ? ''
        : a.commits.some((c) => c.line === movedAt)
          ? since.length > 1
            ? ` (HEAD moved after it: the session's ${since.length} commits at lines ${since.map((c) => c.line).join(', ')}, the latest ${code(since.at(-1)?.hash ?? '')}; Commits made in this session has them)`
            : ` (HEAD moved after it: the session's commit at line ${movedAt}; Commits made in this session has it)`
          : sw !== undefined && sw.line === movedAt
            ? ` (HEAD may have moved after it: the session's \`git checkout\` or \`git switch\` at line ${movedAt})`
            : ` (HEAD may have moved after it: the session's git command at line ${movedAt} can move it — a merge, pull, rebase, reset or checkout)`;
    parts.push(`its latest \`git log\` of HEAD (line ${top.line}) began with ${code(top.hash)} «${oneLine(top.subject, 100)}»${moved}`);
  }
  // The folder was no repository when the session looked (edgerunner at 133: an empty folder, and
  // the handoff told a reader to compare its branch, HEAD and dirty state).
  const nr = l.notRepo;
  // Said only while nothing since may have made one: a git command that did not say so again, a clone, a scaffold.
  const since = nr === undefined ? false : (l.noCommits?.line ?? -1) > nr.line || (l.logTop?.line ?? -1) > nr.line || (l.lastCommitLine ?? -1) > nr.line || (l.gitRan ?? -1) > nr.line || (l.repoMade ?? -1) > nr.line;
  if (nr !== undefined && !since) parts.push(`git said at line ${nr.line} that ${code(nr.cwd)} was not a git repository, and nothing the session ran after it made one or ran git there again`);
  const nc = l.noCommits;
  if (nc !== undefined) parts.push(nc.init === true ? `it made the repository itself: its \`git init\` at line ${nc.line} made an empty one${nc.branch === null ? '' : ` on the branch ${code(nc.branch)}`}, and the session made no commit after` : `git said at line ${nc.line} that the branch ${code(nc.branch ?? '')} has no commits yet: nothing in the repository was committed then, and the session made no commit after`);
  const rm = l.remotes;
  if (rm !== undefined) parts.push(rm.list.length === 0 ? `its latest \`git remote -v\` (line ${rm.line}) printed no remote` : `its latest \`git remote -v\` (line ${rm.line}) named ${rm.list.map((x) => `${code(x.name)} ${code(x.url, 300)}`).join(', ')}`);
  if (l.pushedTo !== undefined) parts.push(`its latest push (line ${l.pushedTo.line}) went to ${code(l.pushedTo.url, 300)}`);
  return parts.length === 0 ? null : `${label('reported')} — the session's own git output, as printed then: ${parts.join('; ')}.`;
}

/**
 * The branch the transcript recorded (Claude Code's gitBranch), and the branch of the session's
 * last commit where that differs: Claude Code records `HEAD` for a repository with no commit yet
 * or a detached HEAD, which is not a branch a successor could check out.
 */
function recordedBranch(r: RenderInput, a: Analysis): string | null {
  const branch = r.state.meta.branch;
  if (branch === undefined) return null;
  const where = `${r.state.meta.cwd ? ` in ${path(r.state.meta.cwd)}` : ''}${r.state.meta.remote ? `, a clone of ${code(r.state.meta.remote, 1000)}` : ''}`;
  let last: { branch: string; line: number } | null = null;
  // A commit learned from a push or a log, not from `git commit` output, names no branch.
  for (const c of a.commits) if (c.branch !== '' && (last === null || c.line > last.line)) last = c;
  const commit = last !== null && last.branch !== branch ? ` The session's last commit (line ${last.line}) was made on ${code(last.branch)} — ${label('verified')} from its \`git commit\` output.` : '';
  const sw = r.state.ledger.switchedTo;
  const afterCommit = sw !== undefined && last !== null && sw.line > last.line;
  // Unsaid when a later commit on that branch already says where the work is.
  const told = sw !== undefined && last !== null && !afterCommit && sw.branch === last.branch;
  const moved = sw !== undefined && sw.branch !== branch && !told ? ` Its latest \`git checkout\` or \`git switch\` (line ${sw.line}${afterCommit ? ', after its last commit' : ''}) moved to ${code(sw.branch)} — ${label('verified')} from git's output.` : '';
  // The harness may keep recording `HEAD` after the session's own git says a branch (Claude Code
  // stamps what it read when the session started): the session's `git status` is said beside it.
  const st = r.state.ledger.statusBranch;
  // Unsaid when the session's last commit already names that branch.
  const headPush = r.state.ledger.headPushedTo;
  const pushedHead = headPush === undefined || st !== undefined || last !== null ? '' : ` The session's \`git push\` (line ${headPush.line}) sent \`HEAD\` to ${code(headPush.branch)} on the remote — ${label('verified')} from git's output.`;
  const onBranch = st === undefined || (last !== null && last.branch === st.branch) ? pushedHead : ` The session's own \`git ${st.via === 'branch' ? 'branch' : 'status'}\` (line ${st.line}) says it is on branch ${code(st.branch)} — ${label('verified')} from git's output.`;
  // Where the session's own git names the branch, what `HEAD` might have meant when the harness
  // read it is no question a successor needs to ask: the verified branch follows.
  const gitNamed = st !== undefined || last !== null || headPush !== undefined;
  const init = r.state.ledger.noCommits?.init === true ? r.state.ledger.noCommits : undefined;
  const why = gitNamed
    ? `what the harness read when it recorded it; the session's own git output ${st === undefined && last === null ? 'says where its work went' : 'names the branch'}`
    : init !== undefined
      ? `a repository with no commit yet: the session's own \`git init\` made it at line ${init.line}${init.branch === null ? '' : `, on ${code(init.branch)}`}, and no commit followed`
      : 'a detached HEAD, or a repository with no commit yet, when it was recorded';
  if (branch === 'HEAD') return `Recorded by the transcript: ${code('HEAD')}${where}, not a branch name (${why}) — ${label('reported')}.${onBranch}${commit}${moved}`;
  const at = r.state.meta.commit === undefined ? '' : ` (at commit ${code(r.state.meta.commit.slice(0, 12))} when the session started)`;
  // A branch the session's own git named after it, other than the one recorded (worktrees at 81: the
  // harness stamped a subagent's worktree branch; `git branch -a` at 68 showed `* master`).
  const since = r.state.meta.branches?.at(-1)?.line ?? 0;
  const other = st !== undefined && st.branch !== branch && st.line > since && (sw === undefined || sw.line < st.line) ? onBranch : '';
  return `Recorded by the transcript: branch ${code(branch)}${at}${branchesBefore(r.state.meta.branches)}${where} — ${label('reported')}.${other}${commit}${moved}`;
}

/** The branches recorded before the last, when it changed during the session (a checkout by anyone). */
function branchesBefore(bs: readonly { branch: string; line: number }[] | undefined): string {
  if (bs === undefined || bs.length < 2) return '';
  const [last, ...before] = [...bs].reverse() as [{ branch: string; line: number }, ...{ branch: string; line: number }[]];
  // What the harness recorded, line by line: the folder it ran in may not be where the agent's git
  // ran (a teammate's worktree), so the session's own git output decides where it worked.
  return ` from line ${last.line} (before it the transcript recorded ${before.map((b) => `${code(b.branch)} from line ${b.line}`).join(', ')}: the branch of the folder the harness ran in, which the session's own git output may contradict)`;
}

/**
 * The working directory the session ended in, when it is not the one it began in (`cd test`
 * persists between Claude Code's shell calls, and each line records it): a successor's relative
 * paths, and the session's own later ones, are relative to it.
 */
function cwdMoved(meta: { cwd?: string; firstCwd?: string; cwdSince?: number }): string | null {
  const { cwd, firstCwd, cwdSince } = meta;
  if (cwd === undefined || firstCwd === undefined || cwd === firstCwd) return null;
  const since = cwdSince === undefined ? 'at the end' : `from line ${cwdSince} on`;
  return `${label('reported')} — the working directory is ${path(cwd)} ${since} (the session began in ${path(firstCwd)}): later relative paths are relative to it.`;
}

/**
 * The folder written paths are shown from: the session's cwd, or the folder it started in when
 * the agent has since moved below it (`cd test`): shown from the project's root, `test/x.py`
 * keeps its folder and other files are not given as absolute paths.
 */
function pathsBase(meta: { cwd?: string; firstCwd?: string }): string | undefined {
  const { cwd, firstCwd } = meta;
  if (cwd === undefined || firstCwd === undefined) return cwd;
  return relativeTo(filePath(cwd), firstCwd) !== null ? firstCwd : cwd;
}

function shortPaths(paths: readonly string[], cwd: string | undefined): { shown: string[]; from: string } {
  const shown = paths.map((p) => (cwd === undefined ? null : relativeTo(p, cwd)));
  if (cwd === undefined || shown.every((s) => s === null)) return { shown: [...paths], from: '' };
  return { shown: shown.map((s, i) => s ?? (paths[i] as string)), from: ` (paths under ${path(cwd)} are given from there)` };
}

/**
 * Where the unreadable writes are, and whether all came after the user's latest request: with
 * every path and word redacted, which request the edits belong to is what is left to say (localpush
 * 12-47: all nine came after the request of line 270, the earlier one answered without an edit).
 */
function unreadableWhen(a: Analysis): string {
  const at = a.unreadableWritesAt;
  if (at === null) return '';
  const where = at.first === at.last ? `at line ${at.first}` : `lines ${at.first} to ${at.last}`;
  const latest = a.requests.at(-1);
  const after = latest !== undefined && a.requests.length > 1 && latest.line < at.first ? `; ${a.unreadableWrites === 1 ? 'it came' : 'all came'} after the user's latest request (line ${latest.line})` : '';
  return ` (${where}${after})`;
}

function filesChanged(a: Analysis, cwd: string | undefined, max: number, names: number): string {
  const fs = a.filesChanged;
  if (fs.length === 0) {
    if (a.unreadableWrites > 0) return `### Files changed in this session\n\n${label('unknown')} — ${a.unreadableWrites} apply_patch call(s)${unreadableWhen(a)}, paths unreadable (redacted by the transcript's publisher)`;
    const unseen = unseenWriters(a);
    const pending = pendingSaid(a, cwd);
    if (unseen !== '') return `### Files changed in this session\n\nNone the transcript shows. ${label('unknown')} — ${unseen} may have written files: whether any did is not known (\`git status\` in the repository says).${pending}`;
    // A transcript that starts mid-conversation shows none of the changes made before its first line.
    if (a.startsAfter !== undefined) return `### Files changed in this session\n\nNone in the lines this transcript holds. ${label('unknown')} — it starts mid-conversation (line ${a.startsAfter}, see Unknowns): what the session changed before is not in it (\`git status\` and \`git diff\` in the repository say what is uncommitted).${pending}`;
    return `### Files changed in this session\n\n${pending === '' ? NONE : `None the transcript shows.${pending}`}`;
  }
  const listed = fs.slice(-max).reverse();
  const { shown, from } = shortPaths(listed.map((f) => f.path), cwd);
  // The latest write's line, and for a file written more than once where it was first written (a
  // file created, then edited, was created there; the first write is often the main change).
  const lineOf = (f: FileChange): string => (f.writes === undefined || f.first === undefined ? String(f.line) : `${f.line} (${f.writes} writes, the first at ${f.first})`);
  // Against the session's own commits: what was written after the last of them is in none
  // (deep-manifest: the whole feature after "milestone" at line 70), and a file uncommitted before
  // the session that a commit followed is not said to be uncommitted still.
  const commitLines = a.commits.map((c) => c.line);
  const lastCommit = commitLines.length === 0 ? null : Math.max(...commitLines);
  const commitAfter = (line: number): number | undefined => commitLines.filter((c) => c > line).sort((x, y) => x - y)[0];
  const against = (f: FileChange, shownAs: string): string => {
    // A file outside the project's folder (a plan under ~/.claude) is in no commit of it.
    if (lastCommit !== null && f.line > lastCommit && !f.merged && !shownAs.startsWith('/') && !shownAs.startsWith('~')) return ` (after the session's last commit, line ${lastCommit})`;
    if (f.dirtyBefore === undefined) return '';
    const followed = commitAfter(f.line);
    return ` (already uncommitted before the session: line ${f.dirtyBefore}${followed === undefined ? '' : `; a commit of the session followed, line ${followed}`})`;
  };
  const rows = listed.map((f, i) => [inCell(path(shown[i] as string)), cell(`${howOf(f)}${f.subagent ? ' (by a subagent)' : ''}${f.merged ? ' (by the session\'s git merge or pull: work it brought in)' : ''}${against(f, shown[i] as string)}`), lineOf(f), `${cell((f.what ?? []).join('; '), 100)}${laterByJob(a, f)}`]);
  const more = a.filesChangedTotal > rows.length ? `\n\n${moreFiles(fs.slice(0, -max).reverse(), a.filesChangedTotal - rows.length, cwd, names)}` : '';
  const unreadable = a.unreadableWrites > 0 ? `\n\n${label('unknown')} — and ${a.unreadableWrites} apply_patch call(s) whose paths are unreadable.` : '';
  const bySub = `${pendingSaid(a, cwd)}${a.unseenWriters.subagents === undefined ? '' : `\n\n${label('unknown')} — ${subagentsApart(a.unseenWriters.subagents, true)}, may have written others, which this transcript does not show (\`git status\` in the repository says).`}`;
  return `### Files changed in this session\n\n${label('verified')} — writes whose result succeeded (edits, patches${listed.some((f) => f.said === true) ? ", shell commands that plainly write, and files a command's output says it wrote" : ', and shell commands that plainly write'}), latest first${from}:\n\n${table(['file', 'how (over the session)', 'line (latest write)', 'what the writes define'], rows)}${more}${unreadable}${bySub}`;
}

/**
 * Calls whose writes no one can read: shell commands the transcript's publisher redacted, a tool
 * whose very name it redacted. With no write read, "None" alone would say no file changed.
 */
function unseenWriters(a: Analysis): string {
  const { shell, unnamed, subagents } = a.unseenWriters;
  const parts = [
    shell === undefined ? '' : shell.count === 1 ? `1 shell call whose command is unreadable (line ${shell.first})` : `${shell.count} shell calls whose commands are unreadable (the first at line ${shell.first})`,
    unnamed === undefined ? '' : unnamed.count === 1 ? `1 call of a tool whose name is unreadable (line ${unnamed.first})` : `${unnamed.count} calls of tools whose names are unreadable (the first at line ${unnamed.first})`,
    subagents === undefined ? '' : `${subagentsApart(subagents, true)},`,
  ].filter((x) => x !== '');
  return parts.join(' and ');
}

/** The writes of the call the transcript ends on: no result, so made or not is not known. */
function pendingSaid(a: Analysis, cwd: string | undefined): string {
  if (a.pendingWrites.length === 0) return '';
  const { shown } = shortPaths(a.pendingWrites.map((w) => w.path), cwd);
  return `\n\n${label('unknown')} — the call the transcript ends on (line ${a.pendingWrites[0]?.line}) would write ${shown.slice(0, 6).map((p) => path(p)).join(', ')}${shown.length > 6 ? ', …' : ''}: it has no result, so whether it did is not known (the file on disk says).`;
}

/** Subagents whose own calls are in their own transcripts: what they wrote is in their reports. */
/** `quoteWrites`: with the line of each report that says what it changed (said where the files are, not again beside the commits). */
function subagentsApart(s: Analysis['unseenWriters']['subagents'], quoteWrites = false): string {
  if (s === undefined) return '';
  const lines = `line${s.reports.length === 1 ? '' : 's'} ${s.reports.slice(0, 6).join(', ')}${s.reports.length > 6 ? ', …' : ''}`;
  const reports = s.reports.length === 0 ? 'no report came back yet' : s.count === 1 ? `its report: ${lines}` : s.reports.length === s.count ? `their reports: ${lines}` : `${s.reports.length} of their reports came back: ${lines}`;
  // What a report says it changed, in its words: its writes are not this transcript's to list.
  const said = s.said === undefined || !quoteWrites ? '' : `; ${s.said.map((x) => `${s.reports.length === 1 ? 'it' : `the one at line ${x.line}`} says «${oneLine(x.text, 160)}»`).join('; ')}`;
  return `${s.count === 1 ? `the subagent the session started (line ${s.first})` : `the ${s.count} subagents the session started (the first at line ${s.first})`}, whose own calls are in ${s.count === 1 ? 'its own transcript' : 'their own transcripts'}, not this one (${reports}${said})`;
}

/** How a file was changed; a file the session created and deleted again is as it was (there was none). */
function howOf(f: FileChange): string {
  if (f.existed !== undefined) return `written over (it was there: git status at line ${f.existed} shows it modified)${f.how === 'write' ? '' : `, then ${f.how}`}`;
  if (f.again !== undefined) return `deleted, then there again (line ${f.again} shows it: something the session ran made it again)`;
  if (f.named !== undefined) return `deleted; a command that succeeded later names it (line ${f.named}): it may be there again (something the session ran, a script or a job, may have made it)`;
  if (f.said === true) return 'write (the output of a command the session ran says so)';
  return f.made ? 'created, then deleted: no net change' : f.how === 'delete' ? 'deleted' : f.how;
}

/** At most this much room for the names of the changed files the table has no row for. */
const MORE_FILES_CHARS = 500;

/**
 * The changed files the table leaves out, named (latest first, as far as MORE_FILES_CHARS
 * goes): a successor looking for one file it remembers (a README rewritten early on) finds it
 * changed here rather than taking it for unchanged; those outside the folder paths are given from
 * are counted, since they are outside the repository too (an agent's memory files, a file in
 * another checkout).
 */
function moreFiles(hidden: readonly FileChange[], total: number, cwd: string | undefined, chars: number): string {
  const { shown } = shortPaths(
    hidden.map((f) => f.path),
    cwd,
  );
  const names: string[] = [];
  let room = Math.min(chars, MORE_FILES_CHARS);
  for (const [i, n] of shown.entries()) {
    const f = hidden[i] as FileChange;
    const note = f.how === 'delete' ? ` (${howOf(f)})` : '';
    if (n.length + note.length + 4 > room) break;
    names.push(`${path(n)}${note}`);
    room -= n.length + note.length + 4;
  }
  const outside = cwd === undefined ? 0 : hidden.filter((f) => relativeTo(f.path, cwd) === null).length;
  const rest = total - names.length;
  const where = outside === 0 ? '' : ` (${outside} of them outside ${path(cwd as string)})`;
  return `${total} more${where}, each with its lines in HANDOFF.summary.json${names.length === 0 ? '.' : `: ${names.join(', ')}${rest > 0 ? `, and ${rest} more` : ''}.`}`;
}

/** Writes that failed and were made later, at most this many named. */
const REDONE_SHOWN = 3;

/**
 * How the writes that failed and were made after are said: counted with the latest failure's
 * line (within every budget level), or each named (in the room the budget leaves).
 */
type Redone = 'full' | 'short';

function filesNotChanged(a: Analysis, cwd: string | undefined, withRedone: Redone): string {
  const fs = a.filesNotChanged.slice(-MD.FILES);
  const redone = withRedone === 'full' ? redoneWrites(a, cwd) : redoneCount(a);
  if (fs.length === 0 && a.unreadableWrites > 0) return `### Writes that did not happen\n\n${label('unknown')} — none can be read: ${a.unreadableWrites} apply_patch call(s) have paths the transcript's publisher redacted, and whether each applied is not known.`;
  if (fs.length === 0) return `### Writes that did not happen\n\n${redone === '' ? NONE : `None left undone. ${redone}`}`;
  const { shown, from } = shortPaths(fs.map((f) => f.path), cwd);
  const before = (f: (typeof fs)[number]): string => (f.earlier === undefined ? '' : ` — an earlier write of it succeeded (line ${f.earlier}): the file has that write, not this one`);
  // A write of it after the failure with no result (coderabbit at 200: the Edit retried once the
  // file was read): "never changed afterwards" holds only as far as the transcript goes.
  const retried = (f: (typeof fs)[number]): string => {
    const p = a.pendingWrites.find((w) => w.line > f.line && fileKey(w.path) === fileKey(f.path));
    return p === undefined ? '' : `; a later write of it (line ${p.line}) has no result: whether it applied is not known`;
  };
  const row = (f: (typeof fs)[number], i: number): string => `${path(shown[i] as string)} (line ${f.line}): ${oneLine(f.reason, 200)}${before(f)}${retried(f)}`;
  // A failed shell command of several files may have written some of them: said apart, as not known.
  const sure = fs.map((f, i) => ({ f, i })).filter((x) => x.f.maybe !== true);
  const maybe = fs.map((f, i) => ({ f, i })).filter((x) => x.f.maybe === true);
  const known = sure.length === 0 ? '' : `${label('verified')} — attempted, never changed afterwards${from}:\n\n${bullets(sure.map((x) => row(x.f, x.i)))}`;
  const unknown = maybe.length === 0 ? '' : `${label('unknown')} — a shell command of several files that failed, which may have written some of them before it failed (\`git status\` or a read says)${known === '' ? from : ''}:\n\n${bullets(maybe.map((x) => row(x.f, x.i)))}`;
  return `### Writes that did not happen\n\n${[known, unknown].filter((x) => x !== '').join('\n\n')}${redone === '' ? '' : `\n\n${redone}`}`;
}

/** How many files had a failed write, a floor when the ledger's bound let some go. */
function failedFiles(a: Analysis): string {
  return `${a.writeFailuresDropped > 0 ? 'at least ' : ''}${a.filesRedone.length} file(s) had a write that was refused or failed`;
}

/** Writes that failed and whose files were written later: not undone, but a successor retrying the same change should know. */
function redoneWrites(a: Analysis, cwd: string | undefined): string {
  const rs = a.filesRedone;
  if (rs.length === 0) return '';
  const listed = rs.slice(-REDONE_SHOWN).reverse();
  const { shown } = shortPaths(listed.map((r) => r.path), cwd);
  const more = rs.length > listed.length ? `, and ${rs.length - listed.length} more` : '';
  return `${label('verified')} — ${failedFiles(a)}, and each was written successfully after it (the latest refusal's or failure's line → the first write of the file that succeeded after it), latest first: ${listed.map((r, i) => `${path(shown[i] as string)} ${r.line} → ${r.at}`).join(', ')}${more}.`;
}

function redoneCount(a: Analysis): string {
  const rs = a.filesRedone;
  if (rs.length === 0) return '';
  const latest = Math.max(...rs.map((r) => r.line));
  return `${label('verified')} — ${failedFiles(a)} (the latest at line ${latest}), and each was written successfully after it; HANDOFF.summary.json's \`files_redone\` names them.`;
}

/** How a target's runs ended besides passing: failed, and without a verdict (a run that is neither). */
function runCounts(c: Analysis['checkTargets'][number]): string {
  const parts = [...(c.failed > 0 ? [`${c.failed} failed`] : []), ...((c.undecided ?? 0) > 0 ? [`${c.undecided} without a verdict`] : [])];
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/**
 * Whether subagents working in their own transcripts committed: not known, unless a `git log` the
 * session ran after all their reports shows it (worktrees at 122, FundWise at 150: "may have
 * committed: a commit of theirs would not show here", while the log that would show one was there).
 */
function subagentCommits(sub: NonNullable<Analysis['unseenWriters']['subagents']>): string {
  const more = sub.commits === undefined ? '' : ' more than their reports name';
  const g = sub.logged;
  if (g === undefined) return `${label('unknown')} — ${subagentsApart(sub)}, may have committed${more}: a commit of theirs would not show here.`;
  const whose = sub.count === 1 ? 'its report' : 'their reports';
  const which = sub.commits === undefined ? 'which of them are theirs it does not say' : `which of them are theirs, beyond those ${sub.count === 1 ? 'its report names' : 'their reports name'}, it does not say`;
  if (g.all) return `${label('reported')} — ${subagentsApart(sub)}: every commit they had made by then is among those the \`git log --all\` at line ${g.line}, run after ${whose}, lists (it shows every branch, within any limit it was given); ${which}.`;
  return `${label('reported')} — ${subagentsApart(sub)}: every commit of theirs on the branch checked out is among those the \`git log\` at line ${g.line}, run after ${whose}, lists (HEAD ${code(g.head ?? '')}${g.subject === undefined ? '' : ` «${oneLine(g.subject, 80)}»`}); ${which}, and one on another branch would not show there.`;
}

/** Commands that destroyed what cannot be read back: said only when there was one. */
function destroyed(r: RenderInput, short = false): string | null {
  const d = r.state.ledger.destroyed;
  if (d === undefined || d.length === 0) return null;
  // The latest few, each command shortened: the payloads list every one (the last 20).
  const shown = d.slice(-MD.DESTROYED);
  const rows = shown.map((x) => `line ${x.call_line === undefined ? x.line : `${x.call_line} (its result: line ${x.line})`}: ${x.what}${x.ok ? '' : ' (the command failed: how much it did is not known)'}${short ? '' : ` — ${code(x.command, 120)}`}`);
  const more = d.length > shown.length ? `\n- … ${d.length - shown.length} earlier in HANDOFF.summary.json's \`destroyed\`` : '';
  return `### Destructive commands\n\n${label('verified')} — the session ran these, and what they removed or discarded cannot be brought back from the transcript: check before relying on it (a command's output at its line may say how much went):\n\n${bullets(rows)}${more}`;
}

/** `short`: past the last budget level, a session that ran no git command is not told so here (its Next Action may say it). */
function commits(a: Analysis, short = false): string {
  const attempt = a.failedCommit === null ? '' : `\n\n${label('verified')} — the last \`git commit\` made no commit (line ${a.failedCommit.line}): ${oneLine(a.failedCommit.text, 160)}`;
  // Subagents working in their own transcripts may have committed, whatever the session's own list says.
  const sub = a.unseenWriters.subagents;
  // What their reports say they committed (worktrees at 57-63: three hashes, said "unknown").
  const named = sub?.commits === undefined ? '' : `\n\n${label('reported')} — the subagents' reports name commits they made: ${[...sub.commits].sort((x, y) => x.line - y.line).map((c) => `${code(c.hash)} (line ${c.line})`).join(', ')} (made in their own transcripts; \`git log --all\` shows the branch each is on).`;
  const bySub = sub === undefined ? '' : `${named}\n\n${subagentCommits(sub)}`;
  // Shell calls the transcript does not show may have committed: none seen is not none made.
  const hidden = `${a.hiddenCommands === '' ? '' : `\n\n${label('unknown')} — the transcript hides the commands of some shell calls (see Verification): a commit among them would not show here.`}${bySub}`;
  const f = a.foreignHead;
  const foreign = f === null ? '' : `\n\n${label('reported')} — its \`git log\` at line ${f.line} begins with ${code(f.hash)} «${oneLine(f.subject, 100)}», a commit the session's own commands did not make: ${f.was === null ? `git said at line ${f.wasLine} that the folder was not a repository` : `HEAD was at ${code(f.was)}${f.wasLine === null ? ' when the session started' : ` in its \`git log\` at line ${f.wasLine}`}`}, and the session's own git commands in between made no commit and moved nothing (no merge, pull, rebase, reset or checkout). Someone or something else committed${f.wasLine === null ? ' after the session started' : ` between lines ${f.wasLine} and ${f.line}`} (another program, the user, or a tool the agent ran, perhaps between turns)${f.staged === null ? '' : ` (the session had staged files with \`git add\` at line ${f.staged}: it may hold them)`}; check what it holds${f.pushed === undefined ? '' : ` before anything else: the push at line ${f.pushed} came after it with HEAD unmoved${f.pushedBranch === undefined ? ", so if that push sent HEAD's branch," : ` and sent HEAD's branch (${code(f.pushedBranch)}), so`} the commit is on the remote too (and in any pull request of that branch)`}.`;
  const unnamed = unnamedCommits(a);
  if (a.commits.length === 0 && unnamed !== '') return `### Commits made in this session\n\n${unnamed.trimStart()}${hidden}${attempt}${foreign}`;
  // No git command at all: the changes above were committed by none of the session's own commands
  // (FundWise at 136: eight changed files, a commit of the next feature asked for apart from them).
  const noGit = !short && !a.gitRan && a.hiddenCommands === '' && a.filesChanged.length > 0 ? `None (the session ran no git command).${hidden}` : null;
  if (a.commits.length === 0) return `### Commits made in this session\n\n${noGit ?? (hidden === '' ? NONE : `None seen.${hidden}`)}${attempt}${foreign}`;
  const pushed = (p: boolean | null): string => (p === true ? 'pushed' : p === false ? 'not pushed' : 'push unknown');
  // The line shows the hash `git commit` printed; the hash named here is the one a rebase gave it.
  const rebased = (c: Analysis['commits'][number]): string => (c.rebased_from === undefined ? '' : `, made as ${code(c.rebased_from)}; a rebase gave it this hash${c.push_line === undefined ? '' : `, pushed at line ${c.push_line}`}`);
  // What git said the commit holds: it may hold more than the session wrote (files staged before).
  const files = (c: Analysis['commits'][number]): string => (c.files === undefined ? '' : `; ${c.files} file${c.files === 1 ? '' : 's'} changed`);
  return `### Commits made in this session\n\n${label('verified')} — from the session's own git output (\`git commit\`, a merge with the \`git log\` that named its commit, \`git push\`); the line is the commit's or the merge's:\n\n${bullets(a.commits.map((c) => `${code(c.hash)} ${oneLine(c.subject, 120)} (line ${c.line}${c.hash_line === undefined ? '' : c.hash_by_push === true ? `, its hash the remote's tip the \`git push\` at line ${c.hash_line} moved from` : `, named by the \`git log\` at line ${c.hash_line}`}${files(c)}${rebased(c)}) — ${pushed(c.pushed)}`))}${unnamed}${bySub}`;
}

/**
 * The `git commit`s whose output was cut before the hash (`| tail -3`) and that no later log
 * named: a commit the output proves (` create mode …`) is listed as made, its hash and whether a
 * push took it unknown; one whose output proves nothing is said as a commit that may have been made.
 */
function unnamedCommits(a: Analysis): string {
  if (a.unnamedCommits.length === 0) return '';
  // A merge prints no hash whatever its output kept: said as such, not as a commit's cut output (worktrees at 162).
  const merges = a.unnamedCommits.filter((c) => c.merge === true);
  const made = a.unnamedCommits.filter((c) => c.made === true && c.merge !== true);
  const maybe = a.unnamedCommits.filter((c) => c.made !== true);
  const pushed = (c: Analysis['unnamedCommits'][number]): string =>
    c.push_line === undefined
      ? ''
      : c.pushed_head === true
        ? ` — the push at line ${c.push_line} sent \`HEAD\`, which held it (nothing moved HEAD between: no checkout, reset, pull or rebase): the commit is on the remote`
        : ` — a push followed (line ${c.push_line}): if it sent this branch, the commit is on the remote`;
  const list = (cs: Analysis['unnamedCommits']): string => bullets(cs.map((c) => `«${oneLine(c.subject, 120)}» (line ${c.line})${pushed(c)}`));
  const parts: string[] = [];
  if (merges.length > 0) parts.push(`${label('verified')} — merge commits made by the session's \`git merge\` («Merge made by …»; git names a merge commit by no hash in its output), which no later \`git log\` in the transcript names, so their hashes, and whether a push took them, are not known:\n\n${list(merges)}`);
  const took = made.length > 0 && made.every((c) => c.pushed_head === true) ? 'so its hash is not known' : 'so its hash, and whether a push took it, are not known';
  if (made.length > 0) parts.push(`${label('verified')} — made by the session's \`git commit\`, whose output was cut before the line that names the hash (what it printed, ` + "` create mode …` or `N files changed`" + `, only a commit prints); no later \`git log\` in the transcript names it, ${took}:\n\n${list(made)}`);
  if (maybe.length > 0) parts.push(`${label('unknown')} — the session's \`git commit\` printed no hash and nothing else that shows a commit was made (its output was cut or quiet), and no later \`git log\` names one: whether it committed is not known (\`git log\` tells):\n\n${list(maybe)}`);
  return `\n\n${parts.join('\n\n')}`;
}

/**
 * A check that passed on a file the session changed after it proves nothing of that file now
 * (37f83ec9: `ruff check claude_code_log/renderer.py` passed at line 63, and renderer.py was
 * edited five times after it). Only a file the command names by its name: what else a check covers
 * is Checks Not Run's to say.
 */
function changedSince(a: Analysis, c: Analysis['checkTargets'][number]): string {
  const named = a.filesChanged.filter((f) => f.line > c.line && namesFileArg(c.command, f.path));
  if (named.length === 0) return '';
  const latest = Math.max(...named.map((f) => f.line));
  const names = named.slice(0, 2).map((f) => code(fileName(f.path))).join(', ');
  return ` — before ${names}${named.length > 2 ? ` and ${named.length - 2} more it names` : ''} changed after it (the latest at line ${latest})`;
}

function verification(a: Analysis): string {
  const rows = a.checkTargets.slice(0, MD.CHECK_TARGETS).map((c) => {
    const fixer = c.fixed_line === null ? undefined : a.checks.find((x) => x.line === c.fixed_line);
    const fixed = c.fixed_line === null ? '' : `, then covered by a passing run at line ${c.fixed_line}${fixer ? ` (${code(fixer.command, 80)})` : ''}`;
    // A command that is no check, run again clean after it failed, closed that failure (Fixed
    // during the session): its row says so, not only that it has no verdict.
    const clean = c.outcome === 'unknown' && a.fixedFailures.some((f) => f.fixed_line === c.line && f.rerun === 'ran_clean');
    const outcome = c.outcome === 'pass' ? `passed${changedSince(a, c)}` : c.outcome === 'fail' ? `failed${fixed}` : clean ? 'ran without an error (no verdict: not a test, build, type check or lint)' : 'unknown';
    const piped = pipedInto(c.command);
    const exit = c.exit_code === null ? '' : `, exit ${c.exit_code}${piped === null ? '' : ` (${code(piped)}'s)`}`;
    // Through a pipe the exit code is the last program's: the output alone decides the check.
    const by = piped === null ? '' : c.exit_code === null ? ` (piped into ${code(piped)}: its output decides)` : '';
    const ev = `line ${c.line}${exit}${by}${c.summary ? `: ${oneLine(c.summary, 120)}` : ''}`;
    // A hook's run (Claude Code's Stop hook) proves the check as well, but the agent did not run it.
    return [inCell(`${code(c.command, 160)}${c.by === 'hook' ? ' (run by a hook)' : ''}`), inCell(outcome), cell(ev, 200), `${c.runs}${runCounts(c)}`];
  });
  const more = a.checkTargets.length > rows.length ? `\n\n${a.checkTargets.length - rows.length} more check target(s) in HANDOFF.summary.json.` : '';
  const tableText =
    rows.length === 0
      ? a.hiddenCommands === ''
        ? NONE
        : `${label('unknown')} — no check could be read: ${a.hiddenCommands}.`
      : `${label('verified')} — tests, builds, type checks, linters and format checks, latest outcome per target first (decided from the exit code and the output); a target's row shows its latest command, and its runs count every command that ran it (\`pytest -x\` and \`pytest\` alike${a.checkTargets.some((t) => t.target.includes(' + ')) ? '; checks chained with \`&&\` are a target of their own' : ''}${a.checkTargets.slice(0, MD.CHECK_TARGETS).some((t) => !t.target.includes(' + ') && /&&|;/.test(t.command)) ? '; a command that runs one check after steps that are none, as a formatter that rewrites files, counts with that check\'s other runs' : ''}):\n\n${table(['Check (latest command)', 'Latest outcome', 'Evidence (line, exit code, summary)', 'Runs of the target'], rows)}${more}`;
  const hidden = a.hiddenCommands === '' || rows.length === 0 ? '' : `\n\n${label('unknown')} — and ${a.hiddenCommands}.`;
  // Calls whose command is unreadable are neither checks nor other commands: they are said above.
  const hooks = a.hookCommands === 0 ? '' : `${a.hookCommands === a.otherCommands ? 'all' : a.hookCommands} of them run by a hook, not by the agent; `;
  // An edit that did not apply (a rejected patch) wrote nothing: its files are under Writes that did not happen.
  const unapplied = a.patchCommandsFailed === 0 ? '' : a.patchCommandsFailed === a.patchCommands ? ' (none applied: see Writes that did not happen)' : ` (${a.patchCommandsFailed} did not apply: see Writes that did not happen)`;
  const patches = a.patchCommands === 0 ? '' : `${a.patchCommands === a.otherCommands ? 'all' : a.patchCommands} of them file edits (\`apply_patch\`)${a.patchCommandsFailed === a.patchCommands ? '' : ', whose files are under Files changed'}${unapplied}; `;
  const other = `Other shell commands${a.hiddenCommands === '' ? '' : ' whose command can be read'}: ${a.otherCommands} (${hooks}${patches}not checks; the calls of other tools are not counted here; every call is in TOOLS.md)${a.backgroundStarts > 0 ? `; ${a.backgroundStarts} started in the background (never counted as checks)` : ''}.${hidden}`;
  // With commands no one can read, "None" would say every check was run.
  const noneNotRun = a.hiddenCommands === '' ? NONE : `${label('unknown')} — none among the commands that can be read; which checks the unreadable ones ran, or left out, is not known (see above).`;
  const notRun = a.checksNotRun.length === 0 ? noneNotRun : bullets(a.checksNotRun.map((f) => `${label(f.label)} ${f.text}`));
  return `${tableText}\n\n${other}${outsideCalls(a)}\n\n### Checks Not Run\n\n${notRun}`;
}

/** Calls of a tool whose very name the transcript's publisher redacted: how many, where, and that what they did is not known. */
function unnamedTools(a: Analysis): string {
  const u = a.unseenWriters.unnamed;
  if (u === undefined) return '';
  const from = countedFrom(a.countsFrom);
  const what =
    u.count === 1
      ? `1 call${from}, at line ${u.first}, of a tool whose name the transcript's publisher redacted: which tool, and what it did, are not known`
      : `${u.count} calls${from}, the first at line ${u.first}, of one tool or several whose names the transcript's publisher redacted: which, and what they did, are not known`;
  return `\n\n${label('unknown')} — ${what}.`;
}

/** Tools of MCP servers: they act where no file list or git command shows it (a deploy, a database, a tracker). */
function outsideCalls(a: Analysis): string {
  const cs = a.outsideCalls;
  const unnamed = unnamedTools(a);
  if (cs.length === 0) return unnamed;
  const one = (c: Analysis['outsideCalls'][number]): string => `${code(c.server)} ${code(c.tool)} ×${c.count} (${c.count === 1 ? 'line' : 'the latest at line'} ${c.line}${c.failed > 0 ? `; ${c.failed} with an error result` : ''})`;
  const more = cs.length > 6 ? `, and ${cs.length - 6} more tool(s) in HANDOFF.summary.json` : '';
  const from = a.countsFrom === null ? '' : ` Calls before line ${a.countsFrom} are not counted: this store's state began to count them there.`;
  return `\n\n${label('verified')} — tools of MCP servers the session called, the latest first: ${cs.slice(0, 6).map(one).join(', ')}${more}. They act outside the repository: what they did there is in their results only (TOOLS.md).${from}${unnamed}`;
}

/**
 * The environment assignments that open the command that got past a failure and that the failed
 * one lacked (FundWise's `COREPACK_ENABLE_PROJECT_SPEC=0 pnpm build`, after `pnpm build` met a
 * parent folder's packageManager): the workaround a successor must repeat.
 */
function envAdded(fixedBy: string, failed: string): string {
  const added: string[] = [];
  let rest = fixedBy;
  for (let m = LEADING_ASSIGNMENT.exec(rest); m !== null && added.length < 4; m = LEADING_ASSIGNMENT.exec(rest)) {
    if (!failed.includes(m[1] as string)) added.push(m[1] as string);
    rest = rest.slice(m[0].length);
  }
  return added.length === 0 ? '' : `: it ran with ${added.map((x) => code(x, 80)).join(' ')} set, which the failed run lacked — later runs need it too`;
}
const LEADING_ASSIGNMENT = /^[ \t]*([A-Za-z_][A-Za-z0-9_]{0,60}=[^\s'"]{0,80})[ \t]+/;

/** How a fixed failure was got past, as the list says it. */
const REFIXED: Record<Analysis['fixedFailures'][number]['rerun'], (line: number) => string> = {
  passed: (n) => `a later run passed at line ${n}`,
  ran_clean: (n) => `ran again without an error at line ${n}`,
  formatted: (n) => `the formatter rewrote the files at line ${n} (the format check was not run again)`,
  read: (n) => `the file it could not find was read at line ${n} (a wrong path, or one the shell misread)`,
};

function failures(a: Analysis, level: Level, fixedLast?: number): string {
  const lines = a.openFailures.map((f) => `${label('verified')} line ${f.line}: ${oneLine(f.text, 400)}${writtenSinceFailure(f.changedSince, a.filesChanged)}`);
  for (const f of a.incidents) lines.push(`${label(f.label)} ${f.kind === 'interrupted' ? 'interrupted' : 'API error'}${at(f.seq)}: ${oneLine(f.text, 300)}`);
  const up = a.userProblem;
  if (up !== null) {
    const wrote = a.filesChanged.filter((f) => f.line > up.line);
    const since = wrote.length === 0 ? 'no write of the session\'s came after it' : `${wrote.length} file(s) were written after it (the latest at line ${Math.max(...wrote.map((f) => f.line))})`;
    const passed = a.checks.filter((c) => c.line > up.line && c.outcome === 'pass').at(-1);
    const check = passed === undefined ? '' : `; ${code(oneLine(passed.command, 80), 160)} passed after it (line ${passed.line})`;
    lines.push(`${label('reported')} line ${up.line}: the user says it does not work: «${oneLine(up.text, 300)}»${up.earlier.length === 0 ? '' : ` (said before at line ${up.earlier.join(', ')})`}; ${since}${check}`);
  }
  const so = a.staleOutput;
  if (so !== null) lines.push(`${label('inferred')} line ${so.line}: ${code(so.command, 120)} still printed ${so.count} texts the edit at line ${so.edit_line} took out of ${code(fileName(so.path))} (the first: «${oneLine(so.first, 120)}»): what ran does not hold that edit (an install, a build or a server older than it, or another copy of the code)`);
  const how = (f: Analysis['fixedFailures'][number]): string => (f.how.length === 0 || level >= 2 ? '' : ` (in between: ${f.how.join('; ')})`);
  // The last level keeps less of the fixing command (the payloads quote it whole: how a failure
  // was got past is what a successor hitting it again needs) and of the failure, and gives up the
  // oldest of the fixed failures (the summary lists every one).
  const fixedShown = fixedLast ?? (level >= 3 ? MD.FIXED_SHORT : MD.FIXED);
  const fixedMore = a.fixedFailures.length > fixedShown ? `\n- … and ${a.fixedFailures.length - fixedShown} earlier, each in HANDOFF.summary.json's \`fixed_failures\`` : '';
  const by = (f: Analysis['fixedFailures'][number]): string => (f.fixed_by === undefined ? '' : ` (${code(f.fixed_by, level >= 3 ? 80 : 120)}${envAdded(f.fixed_by, f.text)})`);
  const fixedList = a.fixedFailures.length === 0 ? '' : `\n\n### Fixed during the session\n\n${label('verified')} — failures a later run of the same target resolved (not open): a check that passed, or a command that is not a check and ran again without an error (which says it ran, not that it found what it looked for)${a.fixedFailures.some((f) => f.rerun === 'formatted') ? ', or a format check whose formatter then rewrote the files' : ''}${a.fixedFailures.some((f) => f.rerun === 'read') ? ', or a read of a file that was not there whose file a later call read' : ''}:\n\n${bullets(a.fixedFailures.slice(-fixedShown).map((f) => `line ${f.line}, ${REFIXED[f.rerun](f.fixed_line)}${by(f)}${how(f)}: ${oneLine(f.text, level >= 3 ? 100 : 240)}`))}${fixedMore}`;
  const over = level >= 2 ? [] : a.passedOver.slice(level === 0 ? -MD.PASSED_OVER : -1);
  const fixed = `${fixedList}${over.length === 0 ? '' : `\n\n### Failed, then passed over\n\n${label('verified')} — the agent went on after these, and no clean re-run of the same command is recorded:\n\n${bullets(over.map((f) => `line ${f.line}: ${oneLine(f.text, 400)}`))}`}`;
  // Never None where results could not be read: a failure among them would not show (SPEC §6).
  const hidden = a.hiddenResults === '' ? '' : `${label('unknown')} — ${a.hiddenResults}, are unreadable (the transcript's publisher redacted them): a failure among them would not show here.`;
  if (lines.length === 0 && hidden !== '') return `No failure can be read. ${hidden}${fixed}`;
  // A write that did not happen is a failure too, listed where the files are (FundWise at 199:
  // «File has not been read yet», and "No open failure." read as all went through); not one a
  // failed command of several files may have made, nor one the user refused (a decision, which
  // User requests lists: the `37f83ec9` sample's test file, written under another name after).
  const notWritten = a.filesNotChanged.filter((f) => f.maybe !== true && !rejectedByUser(f.reason));
  const besides: string[] = [];
  if (notWritten.length > 0) {
    const last = notWritten.reduce((x, y) => (y.line > x.line ? y : x));
    const n = notWritten.length;
    besides.push(`${n === 1 ? 'a write did not happen' : `${n} writes did not happen`} (${n === 1 ? '' : 'the latest: '}${code(fileName(last.path))}, line ${last.line}): see Writes that did not happen`);
  }
  const jobsFailed = failedJobs(a);
  if (jobsFailed !== null) besides.push(jobsFailed);
  // A command that ran well may run stale code (coderabbit at 250: the reinstall "passed" and
  // installed uv's cached build; "No open failure." read as the feature done).
  if (a.installedStale !== null) besides.push(`the installed command runs code older than files written since its install (line ${a.installedStale}): see Checks Not Run`);
  if (lines.length === 0 && besides.length > 0) return `No open failure of a check or command; ${besides.join('; ')}.${fixed}`;
  if (lines.length === 0) return fixed.length === 0 ? NONE : `No open failure.${fixed}`;
  return `Open failures only: a failure that a later run of the same check fixed is listed apart.\n\n${bullets(lines)}${fixed}`;
}

/**
 * A file's name, with as many of its folders as set it apart from another changed file of that name
 * (edgerunner at 781: `edgerunner-service/Cargo.toml`, beside the root's `Cargo.toml`).
 */
function distinctName(path: string, changed: readonly FileChange[]): string {
  const parts = path.replace(/\\/g, '/').split('/');
  const others = changed.map((f) => f.path.replace(/\\/g, '/')).filter((p) => p !== parts.join('/') && fileName(p) === parts.at(-1));
  for (let n = 1; n <= Math.min(4, parts.length); n += 1) {
    const tail = parts.slice(-n).join('/');
    if (!others.some((o) => o === tail || o.endsWith(`/${tail}`))) return tail;
  }
  return parts.slice(-4).join('/');
}

/** Files written after a failed check that did not run again: a fix may be in them, not yet checked. */
function writtenSinceFailure(c: Analysis['openFailures'][number]['changedSince'], changed: readonly FileChange[]): string {
  if (c === undefined) return '';
  const name = distinctName(c.path, changed);
  const gone = c.deleted === undefined ? '' : c.files === 1 ? ' (deleted)' : ` (${c.deleted} of them deleted)`;
  const what = c.files === 1 ? `${code(name)} was changed after it (line ${c.line})${gone}` : `${c.files} files were changed after it${gone} (the latest, ${code(name)}, at line ${c.line})`;
  const later = c.later === undefined ? '' : ` (${code(oneLine(c.later.command, 80), 160)}, of the same tool, ran after it: line ${c.later.line}, ${c.later.outcome === 'pass' ? 'passed' : 'failed'})`;
  // Of the files its errors name, those no write touched since: only a change elsewhere can have fixed their errors.
  const stand = c.untouched === undefined ? '' : `; of the files its errors name, no write touched ${c.untouched.map((f) => code(f)).join(', ')} since`;
  return ` — ${what}, and ${code(oneLine(c.command, 80), 160)} did not run again since${later}: whether ${c.files === 1 ? 'that change fixes' : 'they fix'} it is not known${stand}`;
}

/** A line on a branch the user rewound away from (Claude Code's rewind): what it says is no longer the conversation. */
function leftBranch(a: Analysis, n: number): string {
  const left = a.rewinds.find((w) => w.to < n && n < w.line);
  return left === undefined ? '' : ` *(in the branch left at line ${left.line})*`;
}

function agentMessages(a: Analysis, shown: number = MD.AGENT_MESSAGES): string {
  // The same message said again and again is one row (posthog: six «Waiting.» while a fetch ran
  // took every row, and the messages before them were out of sight).
  const runs: { text: string; lines: number[] }[] = [];
  for (const m of a.agentMessages) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last.text === m.text) last.lines.push(m.line);
    else runs.push({ text: m.text, lines: [m.line] });
  }
  const ms = runs.slice(-shown);
  if (ms.length === 0) return NONE;
  const at = (lines: number[]): string => (lines.length === 1 ? `line ${lines[0]}` : `lines ${lines[0]}–${lines[lines.length - 1]} (${lines.length} times, the same words)`);
  return `${label('reported')} — the agent's own messages, latest last (shortened; every turn is in timeline.jsonl):\n\n${bullets(ms.map((m) => `${at(m.lines)} — ${oneLine(m.text, MD.AGENT_CHARS)}${leftBranch(a, m.lines[m.lines.length - 1] as number)}`))}`;
}

function unknowns(a: Analysis): string {
  return a.unknowns.length === 0 ? NONE : bullets(a.unknowns.map((f) => `${label(f.label)} ${f.text}`));
}

/**
 * The Next Action cut to `max` characters at the end of one of its sentences or clauses, when
 * nothing else HANDOFF.md gives up brings it under its bound (the payloads' \`next_action\` holds
 * it whole): its first clause, what to do, is kept whatever its length.
 */
function cutAction(text: string, max: number): string {
  if (text.length <= max) return text;
  // The ends of its sentences and clauses outside a quote («…»: a request's words are not cut).
  const ends: number[] = [];
  let depth = 0;
  for (let i = 0; i < text.length - 1; i += 1) {
    const c = text[i];
    if (c === '«') depth += 1;
    else if (c === '»') depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === '.' || c === ';') && text[i + 1] === ' ') ends.push(i);
  }
  const fit = ends.filter((i) => i <= max).at(-1) ?? ends[0];
  if (fit === undefined) return text;
  return `${text.slice(0, fit)} … (the rest: HANDOFF.summary.json's \`next_action\`)`;
}

/**
 * What the line a rule cites is, where it is not the fact itself: readers took the latest write
 * for proof that nothing was committed, the latest commit for proof that nothing was pushed.
 */
const RULE_LINE: Partial<Record<Analysis['nextAction']['rule'], string>> = {
  uncommitted_changes: 'the latest write',
  unpushed_commits: 'the latest commit, which no later push sent',
  open_pull_request: 'the push that offered it',
};

function nextActionBody(a: Analysis, maxChars = Infinity): string {
  const n = a.nextAction;
  const what = RULE_LINE[n.rule];
  const why = n.rule === 'unknown' ? 'nothing in the transcript decides it' : `rule: ${n.rule.replace(/_/g, ' ')}${n.line === null || what === undefined ? atLine(n.line) : ` (line ${n.line}: ${what})`}`;
  // Readers took "verified" for the action's warrant: it is the evidence's, and the action is
  // advice. Whether the user asked for it is the requests' to say, not this line's.
  const advice = n.label === 'verified' ? ". What the rule rests on is verified; the action is this handoff's advice drawn from it (what the user asked for is under User requests)" : '';
  const first = claimsFirst(a);
  const text = cutAction(n.text.replace(/\r?\n/g, ' '), maxChars);
  // "Nothing is pending … Wait for the user's next request", then "First settle …" read as two
  // answers: with a claim to settle, that comes first and the rest says what is otherwise so.
  if (first !== '' && n.rule === 'nothing_pending') {
    const rest = text.replace(/^Nothing is pending: /, '').replace(" Wait for the user's next request.", '');
    return `${first.trim()} Otherwise nothing is pending: ${rest}\n\n${label(n.label)} — ${why}${advice}`;
  }
  // The action's own text may end without a full stop: the next sentence gets one before it.
  return `${first === '' || /[.!?]$/.test(text) ? text : `${text}.`}${first}\n\n${label(n.label)} — ${why}${advice}`;
}

/**
 * A claim of the agent the transcript contradicts may sit in what the session delivered (a
 * report, a file it wrote from it): the action says to settle it first, as a reader who acts on
 * the action alone would otherwise pass it on.
 */
function claimsFirst(a: Analysis): string {
  // A claim the user's own next message contradicted, and the agent answered, was taken up in the
  // session: the user knows, and the work went on from it (Claims to double-check still lists it).
  const takenUp = (c: Analysis['contradictions'][number]): boolean => c.evidence_line > c.claim_line && a.requests.some((q) => q.line === c.evidence_line && q.replied !== undefined && q.repliedNote !== true);
  const against = a.contradictions.filter((c) => c.unproven !== true && c.ability !== true && c.settled === undefined && !takenUp(c));
  if (against.length === 0) return '';
  const lines = against.map((c) => c.claim_line).join(', ');
  const one = against.length === 1;
  const stale = against.filter((c) => c.stale === true).length;
  const which = stale === 0 ? 'the transcript contradicts' : stale === against.length ? `that ${one ? 'rests' : 'rest'} on checks run before a later change` : 'the transcript contradicts, or that rest on checks run before a later change';
  return ` First settle the agent's claim${one ? '' : 's'} ${which} (line${one ? '' : 's'} ${lines}, Claims to double-check) and what the session wrote from ${one ? 'it' : 'them'}.`;
}

/**
 * A background job's notice the harness delivered as a user message is classed USER in the
 * timeline; the row says whose it is (posthog at 1219: "1211–1213 | USER | 3 notifications" read
 * as the user speaking, beside the same job's OTHER rows).
 */
const noticeClass = (cls: string): string => (cls === 'USER' ? 'USER (job notice, not the user)' : cls);

function recent(r: RenderInput, shown: number): string {
  const turns = r.state.window.slice(-shown);
  if (turns.length === 0) return NONE;
  const rows: string[][] = [];
  // A run of notifications from one background job is one row: its count and the last of them.
  for (let i = 0; i < turns.length; i += 1) {
    const t = turns[i] as (typeof turns)[number];
    const job = noticeJobId(t.text);
    let j = i;
    while (job !== null && j + 1 < turns.length && noticeJobId((turns[j + 1] as (typeof turns)[number]).text) === job) j += 1;
    if (j > i) {
      const last = turns[j] as (typeof turns)[number];
      // A notice cut in the window may have lost what it said: the row then says only how many.
      const said = jobNotices(last.text)[0]?.text;
      rows.push([`${t.seq + 1}–${last.seq + 1}`, noticeClass(t.class), cell(`${j - i + 1} notifications of job ${job}${said ? `, the last: ${said}` : ''}`, MD.TIMELINE_CHARS + 60)]);
      i = j;
      continue;
    }
    // A subagent's turn in the session's own transcript: its prompt is no user's, its reply no answer to the user.
    // Context the harness added as a user message (Codex's environment, AGENTS.md) is no request of the user's.
    const cls = t.by === 'subagent' ? `${t.class} (subagent)` : t.by === 'harness' ? `${t.class} (harness context)` : job !== null ? noticeClass(t.class) : t.class;
    rows.push([String(t.seq + 1), cls, cell(t.tool ? toolCell(t.tool, t.text, foundNothing(r, t.tool)) : t.text, MD.TIMELINE_CHARS)]);
  }
  return table(['line', 'class', 'text'], rows);
}


/**
 * A search's exit 1 is its answer, "no line matched", not a failure (raze: `rg -n "…_and_usage"
 * aws_bedrock.py` marked ✗ read as if the methods existed nowhere).
 */
function foundNothing(r: RenderInput, tool: ToolRef): boolean {
  if (tool.ok !== false || tool.id === '') return false;
  const c = r.state.commands.findLast((x) => x.id === tool.id);
  return c !== undefined && exitMeansNoMatch(c.command, c.exitCode);
}

/** A tool turn names its tool once: a call's text already starts with it ("Bash: npm test"). */
function toolCell(tool: ToolRef, text: string, nothing = false): string {
  const mark = nothing ? ': exit 1, found nothing' : tool.ok === false ? ' ✗' : '';
  return text.startsWith(tool.name) && mark === '' ? text : `[${tool.name}${mark}] ${text}`;
}

function subagents(r: RenderInput): string {
  const lines: string[] = [];
  if (r.parentSession) lines.push(`This session is a subagent of ${code(r.parentSession)}.`);
  for (const c of r.childSessions) lines.push(`${code(c.id)} — handoff: ${path(`${c.dir}/HANDOFF.md`)}`);
  for (const s of r.state.subagents.slice(-20)) {
    // A subagent started in the background answers its call at once: that answer is no report.
    const returned = s.background === true ? ` — started in the background: its call returned${at(s.result_seq ?? s.seq)}, which is not its report` : ` — its report came back${at(s.result_seq ?? s.seq)}`;
    const back = s.result_seq === undefined ? (r.state.subagentResults === true ? ' — no result recorded: still running, or the transcript ends first' : '') : s.ok === false ? ` — failed${at(s.result_seq)}` : returned;
    const named = s.name === undefined ? '' : ` ${code(s.name)}`;
    const id = s.agent === undefined ? '' : ` (agent id ${code(s.agent)})`;
    lines.push(`launched${at(s.seq)}${named}: ${s.description || 'subagent'}${id}${back}${messagesTo(r, s)}`);
  }
  return lines.length === 0 ? NONE : bullets(lines);
}

/**
 * The messages the session sent a subagent by name after launching it, and what each call
 * answered (worktrees: round 2 went to three agents whose reports had come back, and the calls
 * said only "Message sent to alice's inbox"). What the agent did with a message is in its own
 * transcript, not this one.
 */
function messagesTo(r: RenderInput, s: RenderInput['state']['subagents'][number]): string {
  const ms = subagentMessages(r.state, s);
  if (ms.length === 0) return '';
  const one = (m: (typeof ms)[number]): string => `line ${m.line}${m.to === s.continueTo ? '' : ` (to ${code(m.to)})`}${m.result === undefined ? ' (no answer recorded)' : `: «${oneLine(m.result, 100)}»`}`;
  // Its report said how to continue it (to its agent id); messages to another address may not have reached it (worktrees: sent to "alice").
  const how = s.continueTo === undefined || ms.every((m) => m.to === s.continueTo) ? '' : `; its report said to continue it by a message to ${code(s.continueTo)}`;
  return `${how}; messaged after it: ${ms.slice(-3).map(one).join(', ')}${ms.length > 3 ? ` (and ${ms.length - 3} earlier)` : ''}${s.result_seq !== undefined && s.background !== true ? ' — sent after its report had come back (what it did with them is in its own transcript, not this one)' : ''}`;
}

/** The session's folder once, then its files by name: six full paths of 150 characters said the same. */
function whereEverythingLives(r: RenderInput, short = false): string {
  // Past every step of the budget, the transcript's path is said once, under Provenance: a long
  // store root and a long transcript path were each written twice in a file over its 16,000 bytes.
  const sources = short ? [`source transcript${r.sources.length === 1 ? '' : 's'}: under Provenance`] : r.sources.map((s) => `source transcript: ${path(s.path)}`);
  return bullets([
    `folder: ${path(`${r.dir}/`)}`,
    'in it: this handoff (`HANDOFF.md`); payloads `HANDOFF.summary.json`, `HANDOFF.llm.json`; ' +
      `the full timeline (${r.state.turns} turns) \`timeline.jsonl\`; every tool call (a long text as its head and tail) \`TOOLS.md\`; \`manifest.json\``,
    `history: ${r.history.length === 0 ? 'none yet' : r.history.map((h) => code(`history/${h}`)).join(', ')}`,
    ...sources,
  ]);
}

function provenance(r: RenderInput): string {
  return bullets([
    ...r.sources.map((s) => `source: ${path(s.path)} — bytes [0, ${s.offset}) of ${s.size}`),
    `raw sha256: ${code(r.rawSha256)}`,
    `manifest sha256: ${code(r.manifestSha256)}`,
    `revision: ${r.revision} · watermark: ${r.state.watermark} · turns: ${r.state.turns}`,
    ...modelsUsed(r.state.meta.models),
    // Said whose they are: a transcript its publisher redacted reads "redactions: 0" as a contradiction.
    `redactions: ${r.redactions} (by handoffd, in what it stored)`,
    `check it: ${code(`handoff verify ${r.session} --source`)}`,
  ]);
}

/** The models the session answered with, when it switched (the front matter names the last). */
function modelsUsed(models: readonly { model: string; line: number }[] | undefined): string[] {
  if (models === undefined || models.length < 2) return [];
  const [last, ...before] = [...models].reverse() as [{ model: string; line: number }, ...{ model: string; line: number }[]];
  return [`model: ${code(last.model)} from line ${last.line} (before it: ${before.map((m) => `${code(m.model)} from line ${m.line}`).join(', ')}) — ${label('reported')}`];
}

/** The one line that hands a session over; `handoff resume` prints the same. */
export function resumeInstruction(handoffPath: string): string {
  return `Resume from ${handoffPath}: verify drift, then continue its Next Action.`;
}

/** The files a session that changed none read ("the files it read (`a.md`, line 13) and "), latest first; '' when it read none. */
function filesRead(a: Analysis, cwd: string | undefined): string {
  const reads = a.filesRead.slice(-4).reverse();
  if (reads.length === 0) return '';
  const { shown } = shortPaths(reads.map((x) => x.path), cwd);
  const more = a.filesRead.length > reads.length ? `, and ${a.filesRead.length - reads.length} more in the timeline` : '';
  return `the files it read (${reads.map((x, i) => `${code(shown[i] as string, 160)} at line ${x.line}`).join(', ')}${more}) and `;
}

function resume(r: RenderInput, a: Analysis): string {
  const path = `${r.dir}/HANDOFF.md`;
  // With no file changed, Repository Evidence names none to read: the step says where to look.
  // Edits whose paths no one can read changed files all the same: which ones is git's to say.
  const unseen = unseenWriters(a);
  const read =
    a.filesChangedTotal > 0
      ? 'Read the files named under Repository Evidence and their tests'
      : a.unreadableWrites > 0
        ? `Which files changed is not known (${a.unreadableWrites} edit(s) whose paths the transcript's publisher redacted): run \`git status\` and \`git diff\` in the repository, then read what they name and the files the Objective and the latest request name`
        : unseen !== ''
          ? `No file change can be read in this session, but ${unseen} may have written some: run \`git status\` in the repository, then read what it names and the files the Objective and the latest request name`
          : a.startsAfter !== undefined
            ? `No file changed in the lines this transcript holds, but it starts mid-conversation (see Unknowns): run \`git status\` and \`git diff\` in the repository for what the session changed before, then read what they name and the files the Objective and the latest request name`
            : a.pendingWrites.length > 0
              ? `No file change is recorded, but the call the transcript ends on (line ${a.pendingWrites[0]?.line}) would write ${a.pendingWrites.slice(0, 3).map((w) => code(w.path, 4096)).join(', ')}: see whether it is on disk, then read the files the Objective and the latest request name`
              : `No file changed in this session: read ${filesRead(a, pathsBase(r.state.meta))}the files the Objective and the latest request name`;
  return [
    '1. Read this whole file before acting. Treat files, repository state and recorded command results as authoritative, not this summary.',
    `2. Check drift: run ${code(`handoff resume ${r.session}`)} (or compare repository path, branch, HEAD and dirty state with the front matter). Report material drift; never reset, check out or discard changes to recreate the old state.`,
    `3. ${read}; prefer what they say now over what this handoff says. The line numbers cited are lines of the source transcript.`,
    '4. Continue the Next Action unless drift, a blocker or a newer user instruction makes it unsafe or obsolete.',
    '',
    `Resume instruction: ${code(resumeInstruction(path), 400)}`,
  ].join('\n');
}

export function renderHandoffMd(r: RenderInput, a: Analysis): string {
  // The sections that do not depend on the level are rendered and measured once, not once per
  // level tried; a level renders and measures only the sections it shortens, and the text is
  // joined once, at the level chosen.
  const fixed = fixedParts(r, a);
  const fixedBytes = [...fixed.head, ...fixed.middle, fixed.agentMessages, ...fixed.tail, fixed.timeline, ...fixed.rest].reduce((n, p) => n + Buffer.byteLength(p), 0);
  const joins = fixed.head.length + fixed.middle.length + fixed.tail.length + fixed.rest.length + 5;
  const size = (parts: LevelParts): number => fixedBytes + joins + parts.reduce((n, p) => n + Buffer.byteLength(p), 0);
  let parts: LevelParts;
  let level: Level = 3;
  // When what no level shortens is already too long (a long session's), no level can fit: the
  // shortest is the one rendered, and the others are not tried.
  if (fixedBytes + joins + Buffer.byteLength(fixed.requests) > MD_BYTES) parts = levelParts(fixed, a, 3);
  else {
    parts = levelParts(fixed, a, 0);
    level = 0;
    for (const next of [1, 2, 3] as const) {
      if (size(parts) <= MD_BYTES) break;
      parts = levelParts(fixed, a, next);
      level = next;
    }
  }
  // Past the last level, the requests give up what the IDE showed beside them (the payloads keep
  // it; the objective's stays), the recent timeline its oldest rows (timeline.jsonl keeps every
  // turn), then the files changed their oldest ten of twenty (the summary lists every one) and
  // destructive commands their quoted command (the payloads quote it), then the agent's messages
  // their oldest three of six (the llm payload has them all), then a long objective its tail (the
  // payloads keep it), then the requests all but their first 5 and latest 12, each cut at 300
  // characters, and then the recent timeline all but its last 5 rows. Repository Evidence's short
  // form also gives up what the permissions were before their last change.
  let total = size(parts);
  const swap = (old: string, now: string): string => {
    total += Buffer.byteLength(now) - Buffer.byteLength(old);
    return now;
  };
  // First, what loses nothing: the transcript's path is said once, under Provenance.
  if (total > MD_BYTES) fixed.rest[1] = swap(fixed.rest[1] as string, section('Where everything lives', whereEverythingLives(r, true)));
  if (total > MD_BYTES && a.requests.some((q) => q.ide !== undefined)) {
    fixed.requests = requests(a, r.parentSession, r, false);
    parts = levelParts(fixed, a, level);
    total = size(parts);
  }
  if (total > MD_BYTES) fixed.timeline = swap(fixed.timeline, timelineSection(r, MD.TIMELINE_SHORT));
  let shortFiles = false;
  let lastFiles = false;
  if (total > MD_BYTES && (a.filesChanged.length > MD.FILES_SHORT || (r.state.ledger.destroyed?.length ?? 0) > 0 || r.state.permissions?.was !== undefined)) {
    fixed.tail[1] = swap(fixed.tail[1] as string, section('Repository Evidence', repoEvidence(r, a, MD.FILES_SHORT, true)));
    shortFiles = true;
  }
  if (total > MD_BYTES && a.agentMessages.length > MD.AGENT_MESSAGES_SHORT) fixed.agentMessages = swap(fixed.agentMessages, section('What the agent reported', agentMessages(a, MD.AGENT_MESSAGES_SHORT)));
  if (total > MD_BYTES && (a.objective?.text.length ?? r.parentTask?.text.length ?? 0) > OBJECTIVE_SHORT_CHARS) fixed.head[2] = swap(fixed.head[2] as string, section('Objective (verbatim)', objective(a, r.parentSession, OBJECTIVE_SHORT_CHARS, r.parentTask ?? null)));
  // Last, the requests show fewer of their latest, each shorter (the summary lists every one whole).
  if (total > MD_BYTES) {
    fixed.requests = requests(a, r.parentSession, r, false, MD.REQUESTS_TAIL_SHORT, MD.REQUEST_CHARS_SHORT);
    parts = levelParts(fixed, a, level);
    // And if that is still too long, the objective no longer says where the latest request is
    // (the requests do), then the recent timeline keeps its last five rows.
    if (Buffer.byteLength(renderAt(fixed, parts)) > MD_BYTES) {
      const short = (a.objective?.text.length ?? r.parentTask?.text.length ?? 0) > OBJECTIVE_SHORT_CHARS ? OBJECTIVE_SHORT_CHARS : Infinity;
      fixed.head[2] = section('Objective (verbatim)', objective(a, r.parentSession, short, r.parentTask ?? null, false));
    }
    if (Buffer.byteLength(renderAt(fixed, parts)) > MD_BYTES) fixed.timeline = timelineSection(r, MD.TIMELINE_LAST);
    // Past every level, the requests give up more of their latest and of their length, a step at a
    // time, until the file fits (the summary lists every one whole).
    for (const [tail, chars] of REQUESTS_LAST_STEPS) {
      if (Buffer.byteLength(renderAt(fixed, parts)) <= MD_BYTES) break;
      fixed.requests = requests(a, r.parentSession, r, false, tail, chars);
      parts = levelParts(fixed, a, level);
    }
    // Then the recent timeline gives up its rows (timeline.jsonl keeps every turn): the file stays
    // under MD_BYTES wherever the store is (its root's path is written in it several times).
    for (const rows of [3, 1, 0]) {
      if (Buffer.byteLength(renderAt(fixed, parts)) <= MD_BYTES) break;
      fixed.timeline = rows > 0 ? timelineSection(r, rows) : section('Recent timeline', `Left out to keep this file within ${MD_BYTES} bytes: timeline.jsonl holds all ${r.state.turns} turns.`);
    }
    // Then what the agent reported keeps its latest message alone, then none (HANDOFF.llm.json's
    // `agent_messages` holds the latest 20; State right now quotes the last whole).
    for (const shown of [1, 0]) {
      if (Buffer.byteLength(renderAt(fixed, parts)) <= MD_BYTES || a.agentMessages.length === 0) break;
      fixed.agentMessages = section('What the agent reported', shown > 0 ? agentMessages(a, shown) : `Left out to keep this file within ${MD_BYTES} bytes: HANDOFF.llm.json's \`agent_messages\` holds the latest ${a.agentMessages.length}.`);
    }
    // Last, Files changed keeps its latest five rows (the summary lists every one): the paths of
    // the store and the transcript are the user's, and a long pair of them is written four times.
    if (Buffer.byteLength(renderAt(fixed, parts)) > MD_BYTES && a.filesChanged.length > MD.FILES_LAST) {
      fixed.tail[1] = section('Repository Evidence', repoEvidence(r, a, MD.FILES_LAST, true));
      shortFiles = true;
      lastFiles = true;
    }
    // And the failures fixed during the session keep their latest two (the summary lists every one).
    if (Buffer.byteLength(renderAt(fixed, parts)) > MD_BYTES && a.fixedFailures.length > MD.FIXED_LAST) {
      parts = [parts[0], parts[1], parts[2], section('Failures And Blockers', failures(a, 3, MD.FIXED_LAST))];
    }
    // Last of all, the Next Action keeps its first clauses (the payloads keep it whole); a byte
    // over is at most a character less, so a cut by the bytes over is tried once more if short.
    for (let max = a.nextAction.text.length, tries = 0; tries < 3; tries += 1) {
      const over = Buffer.byteLength(renderAt(fixed, parts)) - MD_BYTES;
      if (over <= 0) break;
      max -= over + 80;
      fixed.middle[0] = section('Next Action', nextActionBody(a, max));
    }
  }
  // What room is left takes, in turn, the writes that failed and were made after, and the names
  // of the changed files the table has no row for: neither gives up anything a budget level keeps.
  const files = lastFiles ? MD.FILES_LAST : shortFiles ? MD.FILES_SHORT : MD.FILES;
  let md = renderAt(fixed, parts);
  // The count of writes redone is in every level's budget (a bare "None" would hide them).
  let redone: Redone = 'short';
  const fits = (text: string): boolean => Buffer.byteLength(text) <= MD_BYTES;
  if (a.filesRedone.length > 0) {
    const tail = fixed.tail[1] as string;
    fixed.tail[1] = section('Repository Evidence', repoEvidence(r, a, files, shortFiles, 0, 'full'));
    const next = renderAt(fixed, parts);
    if (fits(next)) {
      md = next;
      redone = 'full';
    } else fixed.tail[1] = tail;
  }
  const room = MD_BYTES - Buffer.byteLength(md) - 80;
  if (a.filesChangedTotal <= Math.min(a.filesChanged.length, files) || room < 40) return md;
  fixed.tail[1] = section('Repository Evidence', repoEvidence(r, a, files, shortFiles, room, redone));
  const named = renderAt(fixed, parts);
  // Room is counted in characters, the budget in bytes: names of many bytes a character may not fit.
  return fits(named) ? named : md;
}

/** The rendered sections that every level shares, in order around the ones a level shortens. */
interface FixedParts {
  head: string[];
  requests: string;
  documents: (level: Level) => string;
  middle: string[];
  currentState: (level: Level) => string;
  agentMessages: string;
  tail: string[];
  /** Recent timeline: the one section shortened past the last level. */
  timeline: string;
  rest: string[];
}

function timelineSection(r: RenderInput, rows: number): string {
  const shown = Math.min(r.state.window.length, rows);
  return section(`Recent timeline (last ${shown} of ${r.state.turns} turns)`, recent(r, shown));
}

function fixedParts(r: RenderInput, a: Analysis): FixedParts {
  const title = r.title ?? r.session;
  return {
    head: [frontMatter(r), `# Handoff: ${title.replace(/\r?\n/g, ' ')}\n`, section('Objective (verbatim)', objective(a, r.parentSession, Infinity, r.parentTask ?? null))],
    requests: requests(a, r.parentSession, r),
    documents: documents(a, r.parentSession),
    middle: [section('Next Action', nextActionBody(a)), section('Claims to double-check', claims(a))],
    currentState: currentState(a),
    agentMessages: section('What the agent reported', agentMessages(a)),
    tail: [section('Verification', verification(a)), section('Repository Evidence', repoEvidence(r, a)), section('Unknowns', unknowns(a))],
    timeline: timelineSection(r, MD.TIMELINE),
    rest: [section('Subagents', subagents(r)), section('Where everything lives', whereEverythingLives(r)), section('Provenance', provenance(r)), `${CONTRACT_HEADING}\n\n${r.contract ?? NONE}\n`, section('Resume Instructions', resume(r, a))],
  };
}

/** The sections a level shortens: requests (with the documents), State right now (with what the compaction left), Current State, Failures. */
type LevelParts = readonly [string, string, string, string];

function levelParts(f: FixedParts, a: Analysis, level: Level): LevelParts {
  return [
    section('User requests and corrections', `${f.requests}${f.documents(level)}`),
    section('State right now (verbatim tail)', `${stateNow(a, level)}${compacted(a, level)}`),
    section('Current State', currentWithPlan(f.currentState(level), plan(a, level), jobs(a, level), a.hiddenPlans)),
    section('Failures And Blockers', failures(a, level)),
  ];
}

function renderAt(f: FixedParts, [requests, state, current, failing]: LevelParts): string {
  return [...f.head, requests, state, ...f.middle, current, f.agentMessages, failing, ...f.tail, f.timeline, ...f.rest].join('\n');
}
