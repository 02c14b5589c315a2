import type { GitEvidence } from './evidence.js';
import type { Pressure } from './pressure.js';
import type { CommandRecord, FailureRecord, SessionState } from './state.js';
import type { TodoItem } from './types.js';

/**
 * What a handoff says, derived from the session state: shared by HANDOFF.md and the JSON
 * payloads so the two can never disagree. Every statement carries its label (SPEC §6):
 * verified (a recorded result or a check at build time), reported (the agent said so),
 * inferred, or unknown.
 */

export type Label = 'verified' | 'reported' | 'inferred' | 'unknown';

export interface NextAction {
  text: string;
  source: 'in_progress_todo' | 'unanswered_user_request' | 'unknown';
  label: Label;
  seq: number | null;
}

export interface CurrentState {
  completed: string[];
  in_progress: string[];
  not_started: string[];
  source: 'todos' | 'tasks' | null;
  seq: number | null;
}

export interface Finding {
  text: string;
  label: Label;
  seq: number | null;
}

export interface Analysis {
  objective: { text: string; seq: number | null; override: boolean } | null;
  stateNow: { text: string; seq: number; who: 'agent' | 'user' } | null;
  current: CurrentState;
  nextAction: NextAction;
  openLoops: Finding[];
  verification: CommandRecord[];
  checksNotRun: Finding[];
  failures: (FailureRecord & { label: Label })[];
  earlierIncidents: number;
  unknowns: Finding[];
}

const TEST_LIKE = /\b(test|tests|pytest|jest|vitest|mocha|cargo (?:test|build|check|clippy)|go (?:test|build|vet)|npm (?:run )?(?:test|build|lint|check)|pnpm (?:run )?(?:test|build|lint)|yarn (?:test|build|lint)|make\b|tsc\b|mvn|gradle|ruff|mypy|eslint|rspec|ctest|phpunit|tox|nox|bun test|deno test)\b/i;

function currentState(st: SessionState): CurrentState {
  const items: TodoItem[] = st.todos?.items ?? [];
  return {
    completed: items.filter((i) => i.status === 'completed').map((i) => i.text),
    in_progress: items.filter((i) => i.status === 'in_progress').map((i) => i.text),
    not_started: items.filter((i) => i.status === 'pending').map((i) => i.text),
    source: st.todos?.source ?? null,
    seq: st.todos?.seq ?? null,
  };
}

/** The user's last request when no agent reply came after it. */
function unansweredRequest(st: SessionState): { text: string; seq: number } | null {
  if (st.lastUser === null) return null;
  if (st.lastAgent !== null && st.lastAgent.seq > st.lastUser.seq) return null;
  return st.lastUser;
}

function nextAction(st: SessionState, current: CurrentState): NextAction {
  const doing = current.in_progress[0];
  if (doing !== undefined) {
    return { text: `Continue the in-progress task: ${doing}`, source: 'in_progress_todo', label: 'reported', seq: current.seq };
  }
  const req = unansweredRequest(st);
  if (req) {
    const line = req.text.length > 300 ? `${req.text.slice(0, 299)}…` : req.text;
    return { text: `Answer the user's last request (no reply recorded yet): ${line}`, source: 'unanswered_user_request', label: 'inferred', seq: req.seq };
  }
  return {
    text: 'unknown — the transcript records no in-progress task and no unanswered request; confirm the next step with the user',
    source: 'unknown',
    label: 'unknown',
    seq: null,
  };
}

function lastEditSeq(st: SessionState): number | null {
  let max: number | null = null;
  for (const f of Object.values(st.files)) if (max === null || f.lastSeq > max) max = f.lastSeq;
  return max;
}

export function analyze(st: SessionState, git: GitEvidence, pressure: Pressure): Analysis {
  const current = currentState(st);
  const na = nextAction(st, current);
  const lastAgentSeq = st.lastAgent?.seq ?? -1;

  const failures: Analysis['failures'] = [];
  let earlierIncidents = 0;
  for (const f of st.failures) {
    if (f.kind === 'tool_error') {
      if (f.resolvedSeq === undefined) failures.push({ ...f, label: 'verified' });
    } else if (f.seq > lastAgentSeq) {
      // An interruption or API error the agent has not answered since: the session stands in it.
      failures.push({ ...f, label: 'verified' });
    } else {
      earlierIncidents += 1;
    }
  }

  const openLoops: Finding[] = [];
  for (const t of current.in_progress) openLoops.push({ text: `In progress: ${t}`, label: 'reported', seq: current.seq });
  for (const t of current.not_started) openLoops.push({ text: `Not started: ${t}`, label: 'reported', seq: current.seq });
  const req = unansweredRequest(st);
  if (req && na.source !== 'unanswered_user_request') {
    openLoops.push({ text: `Unanswered user request: ${req.text.slice(0, 200)}`, label: 'inferred', seq: req.seq });
  }
  for (const f of failures) {
    openLoops.push({ text: `Unresolved ${f.kind.replace('_', ' ')}: ${f.text}`, label: f.label, seq: f.seq });
  }

  const checksNotRun: Finding[] = [];
  for (const c of st.commands) {
    if (c.result === 'unknown' && c.resultSeq === undefined) {
      checksNotRun.push({ text: `\`${c.command.split('\n')[0]}\` was started but no result is recorded`, label: 'verified', seq: c.seq });
    }
  }
  const editSeq = lastEditSeq(st);
  if (editSeq !== null) {
    const checkedAfter = st.commands.some((c) => c.seq > editSeq && TEST_LIKE.test(c.command));
    if (!checkedAfter) {
      checksNotRun.push({ text: `No test, build or lint command ran after the last file edit (seq ${editSeq})`, label: 'inferred', seq: editSeq });
    }
  }

  const unknowns: Finding[] = [];
  if (pressure.level === 'unknown') unknowns.push({ text: 'Context usage: the transcript carries no usage telemetry', label: 'unknown', seq: null });
  if (git.status !== 'ok') unknowns.push({ text: `Repository state: ${git.reason ?? git.status}`, label: 'unknown', seq: null });
  if (st.objective === null && st.objectiveOverride === null) unknowns.push({ text: 'Objective: no user request of 20 or more characters was found', label: 'unknown', seq: null });
  const unknownResults = st.commands.filter((c) => c.result === 'unknown' && c.resultSeq !== undefined).length;
  if (unknownResults > 0) {
    unknowns.push({ text: `${unknownResults} command result(s) carry no exit status in the transcript`, label: 'unknown', seq: null });
  }
  if (st.commandsTotal > st.commands.length) {
    unknowns.push({ text: `Only the last ${st.commands.length} of ${st.commandsTotal} commands are tabled; the rest are in timeline.jsonl`, label: 'verified', seq: null });
  }

  let objective: Analysis['objective'] = null;
  if (st.objectiveOverride !== null) objective = { text: st.objectiveOverride, seq: null, override: true };
  else if (st.objective) objective = { text: st.objective.text, seq: st.objective.seq, override: false };

  let stateNow: Analysis['stateNow'] = null;
  if (st.lastAgent) stateNow = { text: st.lastAgent.text, seq: st.lastAgent.seq, who: 'agent' };
  else if (st.lastUser) stateNow = { text: st.lastUser.text, seq: st.lastUser.seq, who: 'user' };

  return {
    objective,
    stateNow,
    current,
    nextAction: na,
    openLoops,
    verification: st.commands,
    checksNotRun,
    failures,
    earlierIncidents,
    unknowns,
  };
}
