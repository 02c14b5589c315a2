import type { Analysis } from '../analysis.js';
import { subagentMessages } from '../analysis.js';
import type { PlanRecord, WindowTurn } from '../state.js';
import { LIMITS } from '../state.js';
import { listingAfterLastCommit } from '../ledger.js';
import type { RenderInput } from './input.js';
import { utf8 } from '../utf8.js';
import { SURROGATE_ESCAPE, textTail, wellFormed } from '../cut.js';

/**
 * The two JSON payloads (SPEC §4). HANDOFF.summary.json is compact; HANDOFF.llm.json adds the
 * detail an agent needs, still bounded: the last WINDOW_TURNS turns, with a reference to the
 * timeline for the rest, so a refresh never costs more as the session grows.
 */

/**
 * 1.1: HANDOFF.llm.json's `current_state` no longer repeats the plan's items; `tasks` holds them
 * (docs/FORMAT.md). 1.2: `objective` holds up to 8,000 characters (4,000 before). Readers accept all three.
 */
export const PAYLOAD_SCHEMA_VERSION = '1.2';
const SUMMARY_STATE_CHARS = 600;
/** The summary keeps a plan's head; HANDOFF.llm.json keeps what the state holds. */
const SUMMARY_PLAN_CHARS = 1500;


/**
 * One entry per tool call in the window, not per turn: a call and its result are two turns with
 * the same id (both in `turns`, each with its `tool`), and the entry says how the call ended.
 */
function toolCalls(window: readonly WindowTurn[]): { seq: number; name: string; id: string; ok: boolean | null }[] {
  const calls: { seq: number; name: string; id: string; ok: boolean | null }[] = [];
  const byId = new Map<string, { ok: boolean | null }>();
  for (const t of window) {
    if (t.tool === undefined) continue;
    const known = t.tool.id === '' ? undefined : byId.get(t.tool.id);
    if (known) {
      if (t.tool.ok !== undefined) known.ok = t.tool.ok;
      continue;
    }
    const call = { seq: t.seq, name: t.tool.name, id: t.tool.id, ok: t.tool.ok ?? null };
    calls.push(call);
    if (t.tool.id !== '') byId.set(t.tool.id, call);
  }
  return calls;
}

/**
 * Both payloads' bytes: the UTF-8 of what JSON.stringify writes for each, plus a newline. The llm
 * payload holds the summary's members, most of them the very same values, in the same order:
 * each of those is encoded, to JSON and to UTF-8, once for both.
 */
export function payloadsBytes(r: RenderInput, a: Analysis, transferReady: boolean): { summary: Buffer; llm: Buffer } {
  const summary = buildSummary(r, a, transferReady);
  const encoded = new Map<string, Buffer>();
  const bytes = (o: Record<string, unknown>, shared?: Map<string, Buffer>): Buffer => {
    const parts: Buffer[] = [];
    for (const [k, v] of Object.entries(o)) {
      let member = shared !== undefined && v === summary[k] ? shared.get(k) : undefined;
      if (member === undefined) {
        const json = wellFormedJson(v, JSON.stringify(v));
        if (json === undefined) continue; // as JSON.stringify leaves out undefined and functions
        member = utf8(`${JSON.stringify(k)}:${json}`);
        if (shared === undefined) encoded.set(k, member);
      }
      parts.push(parts.length === 0 ? OPEN : COMMA, member);
    }
    parts.push(parts.length === 0 ? EMPTY : CLOSE);
    return Buffer.concat(parts);
  };
  return { summary: bytes(summary), llm: bytes(buildLlm(r, a, summary), encoded) };
}

/**
 * A value's JSON with every string made well formed, where one may not be: JSON writes half a
 * surrogate pair (a cut through an emoji) as an escape that other readers refuse. Only a text that
 * holds such an escape (rare) is written again.
 */
function wellFormedJson(v: unknown, json: string | undefined): string | undefined {
  if (json === undefined || !SURROGATE_ESCAPE.test(json)) return json;
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'string' ? wellFormed(x) : x));
}

const OPEN = Buffer.from('{');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from('}\n');
const EMPTY = Buffer.from('{}\n');

export function buildSummary(r: RenderInput, a: Analysis, transferReady: boolean): Record<string, unknown> {
  const st = r.state;
  return {
    schema_version: PAYLOAD_SCHEMA_VERSION,
    kind: 'handoff.summary',
    session: { id: r.session, uuid: r.uuid, harness: r.harness, model: st.meta.model ?? null, title: r.title },
    project: r.project,
    chain_id: r.chainId,
    // Stamped after the build once a later session takes the handoff over (core/successor.ts).
    to_session: null,
    generated_at: r.generatedAt,
    objective: a.objective?.text ?? r.parentTask?.text ?? null,
    objective_line: a.objective?.line ?? null,
    // A subagent's task from its parent's call: `objective_line` is null, as the line is the parent's.
    objective_from_parent: a.objective || !r.parentTask ? null : { session: r.parentTask.session, line: r.parentTask.line, description: r.parentTask.description, chars: r.parentTask.chars ?? r.parentTask.text.length },
    requests: a.requests.map((q) => ({ line: q.line, text: q.text, kind: q.kind, ...(q.ide === undefined ? {} : { ide: q.ide }), ...(q.replied === undefined ? {} : { replied_line: q.replied }), ...(q.interruptedAt === undefined ? {} : { interrupted_line: q.interruptedAt }) })),
    state_now: a.stateNow ? textTail(a.stateNow.text, SUMMARY_STATE_CHARS) : null,
    end: { kind: a.end.kind, line: a.end.line, why: a.end.why },
    files_changed: a.filesChanged.map((f) => ({ path: f.path, line: f.line, how: f.how, ...(f.subagent ? { by: 'subagent' } : {}), ...(f.what ? { what: f.what } : {}), ...(f.dirtyBefore === undefined ? {} : { dirty_before_line: f.dirtyBefore }), ...(f.made ? { created_first: true } : {}), ...(f.existed === undefined ? {} : { existed_line: f.existed }), ...(f.again === undefined ? {} : { reappeared_line: f.again }), ...(f.named === undefined ? {} : { named_again_line: f.named }), ...(f.said ? { said_by_output: true } : {}) })),
    files_not_changed: a.filesNotChanged.map((f) => ({ path: f.path, line: f.line, reason: f.reason, ...(f.earlier === undefined ? {} : { earlier_line: f.earlier }), ...(f.maybe === true ? { maybe_written: true as const } : {}) })),
    files_redone: a.filesRedone.map((f) => ({ path: f.path, line: f.line, redone_line: f.at })),
    unreadable_writes: a.unreadableWrites,
    checks: a.checks.map((c) => ({ line: c.line, command: c.command, outcome: c.outcome, summary: c.summary, exit_code: c.exit_code, ...(c.by === undefined ? {} : { by: c.by }) })),
    open_failures: a.openFailures.map((f) => ({ line: f.line, text: f.text, ...(f.changedSince === undefined ? {} : { changed_since: f.changedSince }) })),
    // HANDOFF.md lists these among the open failures: an interruption or API error the agent has
    // not answered since (HANDOFF.llm.json's `failures` gives the same by seq).
    incidents: a.incidents.map((f) => ({ kind: f.kind, line: f.seq + 1, text: f.text, label: f.label })),
    plan: a.plan === null ? null : { ...planOut(a.plan.latest, SUMMARY_PLAN_CHARS), ...unwrittenOut(a) },
    fixed_failures: a.fixedFailures,
    passed_over: a.passedOver,
    stale_output: a.staleOutput,
    user_problem: a.userProblem,
    documents: a.documents.map((d) => ({ path: d.path, line: d.line, request_line: d.requestLine, ...(d.span === undefined ? {} : { read_lines: d.span }), lines: d.lines })),
    tasks: a.current.items.map((i) => ({ text: i.text, status: i.status, line: i.line ?? null, ...(i.detail === undefined ? {} : { detail: i.detail, created_line: i.created ?? null }) })),
    ...(a.compaction === null ? {} : { compaction_summary: { line: a.compaction.line, pending: a.compaction.pending ?? null, current: a.compaction.current ?? null, next_step: a.compaction.next ?? null, request_after_line: a.compaction.requestAfter } }),
    jobs: a.jobs.map((j) => ({ id: j.id, tool: j.tool, line: j.line, command: j.command, description: j.description ?? null, status: j.status, end_line: j.endLine ?? null, ...(j.killedAt === undefined ? {} : { killed_at: j.killedAt }), last_event: j.lastEvent ?? null })),
    agent_messages: a.agentMessages,
    commits: a.commits.map((c) => ({ hash: c.hash, subject: c.subject, pushed: c.pushed, line: c.line, ...(c.rebased_from === undefined ? {} : { rebased_from: c.rebased_from }), ...(c.files === undefined ? {} : { files: c.files }), ...(c.hash_line === undefined ? {} : { hash_line: c.hash_line }) })),
    next_action: { text: a.nextAction.text, rule: a.nextAction.rule, label: a.nextAction.label, line: a.nextAction.line },
    contradictions: a.contradictions.map((c) => ({ claim_line: c.claim_line, evidence_line: c.evidence_line, text: c.text, ...(c.unproven === true ? { unproven: true as const } : {}), ...(c.stale === true ? { stale: true as const } : {}), ...(c.settled === undefined ? {} : { settled_line: c.settled }) })),
    open_loops: a.openLoops.map((f) => f.text),
    context: r.pressure,
    git: {
      status: r.git.status,
      reason: r.git.reason,
      repo: r.git.top,
      branch: r.git.branch,
      head: r.git.head,
      dirty: r.git.dirty,
      changed_total: r.git.changed_total,
      untracked_total: r.git.untracked_total,
      captured_at: r.git.captured_at,
    },
    session_git: sessionGit(r, a),
    // Commands that destroyed what the transcript cannot give back (HANDOFF.md: Repository Evidence).
    destroyed: st.ledger.destroyed ?? [],
    // Calls the user rejected without a word (HANDOFF.md: beside the requests).
    rejected_calls: (st.ledger.rejected ?? []).map((x) => ({ line: x.line, call_line: x.callLine, what: x.path === undefined ? x.what : `${x.what} ${x.path}`, ...(x.aborted === undefined ? {} : { aborted_line: x.aborted }) })),
    // Commands with no result recorded (HANDOFF.md: How it ended).
    commands_without_result: a.withoutResult.slice(-20),
    // Commands whose output the agent never read: only the harness's record of their end (HANDOFF.md: How it ended).
    ...(a.unreadResults.length > 0 ? { unread_results: a.unreadResults.slice(-20).map((r) => ({ line: r.line, result_line: r.resultLine })) } : {}),
    // Tools of MCP servers the session called (HANDOFF.md: Verification).
    outside_calls: a.outsideCalls,
    // What the harness let the agent do without asking (HANDOFF.md: Repository Evidence).
    permissions: st.permissions === undefined ? null : { text: st.permissions.text, line: st.permissions.since, before: st.permissions.was === undefined ? null : { text: st.permissions.was.text, line: st.permissions.was.since } },
    ...(st.ledger.escalated === undefined ? {} : { escalated: { count: st.ledger.escalated.count, first_line: st.ledger.escalated.first, runs: st.ledger.escalated.runs.map((x) => ({ line: x.line, command: x.command, ...(x.after === undefined ? {} : { failed_inside_line: x.after }) })) } }),
    // Each model the session switched to and the line it first answered from, when there was more than one.
    models: (st.meta.models?.length ?? 0) > 1 ? st.meta.models : null,
    counts: {
      turns: st.turns,
      ...st.counts,
      skipped_lines: st.skipped,
      bad_lines: st.bad,
      commands: st.commandsTotal,
      files_touched: st.filesTotal,
      requests: a.requestsTotal,
      files_changed: a.filesChangedTotal,
      checks: a.checksTotal,
      other_commands: a.otherCommands,
    },
    transfer_ready: transferReady,
    artifacts: {
      dir: r.dir,
      handoff_md: 'HANDOFF.md',
      summary_json: 'HANDOFF.summary.json',
      llm_json: 'HANDOFF.llm.json',
      timeline: 'timeline.jsonl',
      tools_md: 'TOOLS.md',
      manifest: 'manifest.json',
      history: r.history,
    },
    provenance: {
      sources: r.sources,
      raw_sha256: r.rawSha256,
      manifest_sha256: r.manifestSha256,
      revision: r.revision,
      watermark: st.watermark,
      total_turns: st.turns,
    },
  };
}

/**
 * What the session's own git output and the transcript's metadata said, as printed then
 * (*reported*, each with its line): HANDOFF.md gives them in Repository Evidence, beside the
 * repository as read at build time (`git`), and alone when that could not be read.
 */
function sessionGit(r: RenderInput, a: Analysis): Record<string, unknown> {
  const l = r.state.ledger;
  const meta = r.state.meta;
  const listed = listingAfterLastCommit(l);
  return {
    label: 'reported',
    recorded: { branch: meta.branch ?? null, commit: meta.commit ?? null, cwd: meta.cwd ?? null, repository_url: meta.remote ?? null, ...((meta.branches?.length ?? 0) > 1 ? { branches: meta.branches } : {}) },
    // The working directory the session began in, and the line from which `cwd` holds, when they differ.
    cwd_moved: meta.cwd !== undefined && meta.firstCwd !== undefined && meta.cwd !== meta.firstCwd ? { began_in: meta.firstCwd, line: meta.cwdSince ?? null } : null,
    uncommitted_listed: listed === null ? null : { line: listed.line, paths: listed.paths, committed_line: listed.committed ?? null, ...(listed.untracked !== undefined ? { untracked: listed.untracked } : {}), ...(listed.limited ? { limited: true } : {}), ...(listed.narrower === undefined ? {} : { narrower_line: listed.narrower }) },
    // The ledger keeps each of these in the payload's own shape.
    log_top: l.logTop === undefined ? null : { line: l.logTop.line, hash: l.logTop.hash, subject: l.logTop.subject },
    no_commits: l.noCommits ?? null,
    foreign_head: foreignHeadOf(a.foreignHead),
    remotes: l.remotes ?? null,
    pushed_to: l.pushedTo ?? null,
    remote_branches: l.remoteBranches ?? null,
    switched_to: l.switchedTo ?? null,
    ...(a.unnamedCommits.length === 0 ? {} : { commits_without_hash: a.unnamedCommits.map((c) => ({ subject: c.subject, line: c.line, made: c.made === true })) }),
  };
}

/**
 * A plan the agent put to the user, as the payloads give it (*reported*): its text (the summary
 * keeps its head; `chars` is the whole's length when either cut it), and what the call's result said.
 */
function planOut(p: PlanRecord, max: number): Record<string, unknown> {
  const text = p.text.length <= max ? p.text : `${p.text.slice(0, max - 1)}…`;
  const chars = p.chars ?? (text.length < p.text.length ? p.text.length : undefined);
  return {
    label: 'reported',
    line: p.line,
    text,
    ...(chars === undefined ? {} : { chars }),
    approved: p.approved,
    result_line: p.result_line ?? null,
    answer: p.answer ?? null,
    saved_to: p.saved_to ?? null,
  };
}

/** The files the latest approved plan named and the session never wrote, when there are any, and those of the plans approved before it. */
function unwrittenOut(a: Analysis): Record<string, unknown> {
  const u = a.plan?.unwritten;
  const earlier = a.plan?.earlierUnwritten ?? [];
  return {
    ...(u === null || u === undefined ? {} : { files_not_written: { plan_line: u.line, named: u.named, files: u.files } }),
    ...(earlier.length === 0 ? {} : { earlier_files_not_written: earlier.map((e) => ({ plan_line: e.line, title: e.title, named: e.named, files: e.files })) }),
  };
}

/** HANDOFF.llm.json's object: the summary's members (the same values), two of them longer (state_now, plan), and more. */
export function buildLlm(r: RenderInput, a: Analysis, summary: Record<string, unknown>): Record<string, unknown> {
  const st = r.state;
  const window = st.window;
  const first = window[0];
  return {
    ...summary,
    kind: 'handoff.llm',
    plan: a.plan === null ? null : { ...planOut(a.plan.latest, LIMITS.PLAN_CHARS), ...unwrittenOut(a), approved_before: a.plan.approvedBefore === null ? null : planOut(a.plan.approvedBefore, LIMITS.PLAN_CHARS) },
    state_now: a.stateNow ? textTail(a.stateNow.text, LIMITS.STATE_NOW_CHARS) : null,
    // The plan's items are `tasks` (a summary member): not written a second time.
    current_state: { completed: a.current.completed, in_progress: a.current.in_progress, not_started: a.current.not_started, source: a.current.source, seq: a.current.seq },
    verification: a.verification.map((c) => ({
      command: c.command,
      tool: c.tool,
      result: c.result,
      exit_code: c.exitCode ?? null,
      seq: c.seq,
      result_seq: c.resultSeq ?? null,
    })),
    checks_not_run: a.checksNotRun,
    check_targets: a.checkTargets,
    failures: a.incidents.map((f) => ({ kind: f.kind, text: f.text, tool: f.tool ?? null, exit_code: f.exitCode ?? null, seq: f.seq, label: f.label })),
    unknowns: a.unknowns,
    files_touched: Object.entries(st.files).map(([path, f]) => ({ path, tool: f.tool, first_seq: f.firstSeq, last_seq: f.lastSeq, count: f.count })),
    subagents: {
      parent: r.parentSession,
      sessions: r.childSessions,
      // The task's text is the subagent's handoff's objective, not repeated here (the call's line says where it is).
      launched: st.subagents.map((sub) => {
        const { prompt: _p, prompt_chars: _c, wrote: _w, saidWrote: _s, readOnly, continueTo: _t, ...s } = sub;
        const ms = subagentMessages(st, sub).map((m) => ({ line: m.line, result: m.result ?? null, ...(m.ok === undefined ? {} : { ok: m.ok }) }));
        return { ...s, ...(readOnly === true ? { read_only: true as const } : {}), ...(ms.length === 0 ? {} : { messages: ms }) };
      }),
    },
    evidence_contract: r.contract,
    turns: window.map((t) => ({ seq: t.seq, ts: t.ts, class: t.class, text: t.text, ...(t.tool ? { tool: t.tool } : {}), ...(t.by ? { by: t.by } : {}) })),
    tool_calls: toolCalls(window),
    timeline_ref: {
      path: 'timeline.jsonl',
      total_turns: st.turns,
      included_turns: window.length,
      first_included_seq: first?.seq ?? null,
      text_chars_per_turn: LIMITS.WINDOW_TEXT_CHARS,
      other_text_chars_per_turn: LIMITS.WINDOW_TOOL_TEXT_CHARS,
    },
  };
}

/** HEAD moved to a commit the session did not make (Analysis.foreignHead), in the payload's shape. */
function foreignHeadOf(f: Analysis['foreignHead']): Record<string, unknown> | null {
  if (f === null) return null;
  const out: Record<string, unknown> = { line: f.line, hash: f.hash, subject: f.subject, was: f.was, was_line: f.wasLine, staged_line: f.staged };
  if (f.pushed !== undefined) out.pushed_line = f.pushed;
  if (f.pushedBranch !== undefined) out.pushed_branch = f.pushedBranch;
  return out;
}
