import type { Analysis } from '../analysis.js';
import { CONTRACT_HEADING } from '../contract.js';
import { LIMITS } from '../state.js';
import type { ToolRef } from '../types.js';
import type { RenderInput } from './input.js';
import { bullets, cell, code, fence, table, yamlValue } from './markdown.js';

/**
 * HANDOFF.md (SPEC §6): YAML front matter, then every section in a fixed order. A section with
 * nothing to say says `None`. The evidence contract section is the only part a person may edit;
 * everything else is regenerated on every build.
 */

export const TRANSFER_READY_SENTINEL = '__TRANSFER_READY__';

export const SECTION_TITLES = [
  'Objective (verbatim)',
  'State right now (verbatim tail)',
  'Current State',
  'Open loops / next steps',
  'Repository Evidence',
  'Verification',
  'Failures And Blockers',
  'Unknowns',
  'Next Action',
  'Recent timeline',
  'Subagents',
  'Where everything lives',
  'Provenance',
  'Evidence contract (hand-authored — preserved across rebuilds)',
  'Resume Instructions',
] as const;

const NONE = 'None';
const label = (l: string): string => `*${l}*`;
/** Paths are never shortened: a reader must be able to open them. */
const path = (p: string): string => code(p, 4096);
const at = (seq: number | null | undefined): string => (seq === null || seq === undefined ? '' : ` (seq ${seq})`);

function frontMatter(r: RenderInput): string {
  const g = r.git;
  const p = r.pressure;
  const fields: [string, string | number | boolean | null][] = [
    ['schema', 'handoff/v1'],
    ['chain_id', r.chainId],
    ['from_session', r.session],
    ['to_session', 'pending'],
    ['created_at', r.createdAt],
    ['model', r.state.meta.model ?? null],
    ['context_used_tokens', p.used],
    ['context_limit_tokens', p.limit],
    ['context_pressure', p.level],
    ['repo', g.top],
    ['branch', g.branch],
    ['head', g.head],
    ['dirty', g.dirty],
    ['harness', r.harness],
    ['project', r.project],
    ['revision', r.revision],
    ['watermark', r.state.watermark],
    ['turns', r.state.turns],
  ];
  const lines = fields.map(([k, v]) => `${k}: ${yamlValue(v)}`);
  lines.push(`transfer_ready: ${TRANSFER_READY_SENTINEL}`);
  return `---\n${lines.join('\n')}\n---`;
}

function section(title: string, body: string): string {
  return `## ${title}\n\n${body.trim().length > 0 ? body.trim() : NONE}\n`;
}

function objective(a: Analysis): string {
  if (!a.objective) return NONE;
  const src = a.objective.override ? 'set with --objective' : `the user's first request${at(a.objective.seq)}`;
  return `${fence(a.objective.text)}\n\n${label('reported')} — ${src}`;
}

function stateNow(a: Analysis): string {
  if (!a.stateNow) return NONE;
  const who = a.stateNow.who === 'agent' ? "the agent's last message" : "the user's last message (no agent reply yet)";
  return `${fence(a.stateNow.text)}\n\n${label('reported')} — ${who}${at(a.stateNow.seq)}`;
}

function currentState(a: Analysis): string {
  const c = a.current;
  if (c.source === null) return NONE;
  const list = (items: string[], mark: string): string => (items.length === 0 ? NONE : items.map((t) => `- [${mark}] ${t.replace(/\r?\n/g, ' ')}`).join('\n'));
  const src = c.source === 'tasks' ? 'task list' : 'todo/plan list';
  return [
    `${label('reported')} — from the agent's latest ${src}${at(c.seq)}`,
    `### Completed\n\n${list(c.completed, 'x')}`,
    `### In Progress\n\n${list(c.in_progress, '~')}`,
    `### Not Started\n\n${list(c.not_started, ' ')}`,
  ].join('\n\n');
}

function openLoops(a: Analysis): string {
  if (a.openLoops.length === 0) return NONE;
  return bullets(a.openLoops.map((f) => `${label(f.label)} ${f.text}${at(f.seq)}`));
}

function repoEvidence(r: RenderInput): string {
  const g = r.git;
  const out: string[] = [];
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
    out.push(`${label('unknown')} — repository state unavailable: ${g.reason ?? g.status}. Branch, HEAD and dirty state are not recorded (never assumed clean).`);
  }
  const files = Object.entries(r.state.files);
  if (files.length > 0) {
    const rows = files
      .slice(-100)
      .reverse()
      .map(([file, f]) => [path(file), cell(f.tool), f.firstSeq === f.lastSeq ? String(f.firstSeq) : `${f.firstSeq}…${f.lastSeq} (${f.count}×)`]);
    const more = r.state.filesTotal > rows.length ? `\n\n${r.state.filesTotal - rows.length} more in HANDOFF.llm.json / timeline.jsonl.` : '';
    out.push(`### Files edited in this session\n\n${label('verified')} — from the session's own edit tool calls:\n\n${table(['file', 'tool', 'seq'], rows)}${more}`);
  } else {
    out.push(`### Files edited in this session\n\n${NONE}`);
  }
  return out.join('\n\n');
}

function verification(a: Analysis): string {
  const rows = a.verification.map((c) => {
    const ev =
      c.resultSeq === undefined
        ? `seq ${c.seq}, no result recorded`
        : `seq ${c.seq} → ${c.resultSeq}${c.exitCode !== undefined ? `, exit ${c.exitCode}` : c.result === 'unknown' ? ', no exit code or status recorded' : ''}`;
    return [code(c.command, 160), c.result, ev];
  });
  const tableText = rows.length === 0 ? NONE : `${label('verified')} — commands the session ran, with the results its transcript records:\n\n${table(['Command or check', 'Result', 'Evidence (seq, exit code)'], rows)}`;
  const notRun = a.checksNotRun.length === 0 ? NONE : bullets(a.checksNotRun.map((f) => `${label(f.label)} ${f.text}`));
  return `${tableText}\n\n### Checks Not Run\n\n${notRun}`;
}

function failures(a: Analysis): string {
  const lines = a.failures.map((f) => {
    const what = f.kind === 'tool_error' ? `${f.tool ?? 'tool'} failed${f.exitCode === undefined ? '' : ` (exit ${f.exitCode})`}` : f.kind === 'interrupted' ? 'interrupted' : 'API error';
    return `${label(f.label)} ${what}${at(f.seq)}: ${f.text.replace(/\r?\n/g, ' ')}`;
  });
  if (a.earlierIncidents > 0) lines.push(`${a.earlierIncidents} earlier interruption(s) or API error(s), each followed by an agent reply (see timeline).`);
  return lines.length === 0 ? NONE : bullets(lines);
}

function unknowns(a: Analysis): string {
  return a.unknowns.length === 0 ? NONE : bullets(a.unknowns.map((f) => `${label(f.label)} ${f.text}`));
}

function nextActionBody(a: Analysis): string {
  const n = a.nextAction;
  const why = n.source === 'unknown' ? 'nothing in the transcript decides it' : `${n.source.replace(/_/g, ' ')}${at(n.seq)}`;
  return `${n.text.replace(/\r?\n/g, ' ')}\n\n${label(n.label)} — ${why}`;
}

function recent(r: RenderInput): string {
  const turns = r.state.window.slice(-LIMITS.RECENT_TURNS);
  if (turns.length === 0) return NONE;
  return table(
    ['seq', 'class', 'text'],
    turns.map((t) => [String(t.seq), t.class, cell(t.tool ? toolCell(t.tool, t.text) : t.text, 120)]),
  );
}

/** A tool turn names its tool once: a call's text already starts with it ("Bash: npm test"). */
function toolCell(tool: ToolRef, text: string): string {
  const mark = tool.ok === false ? ' ✗' : '';
  return text.startsWith(tool.name) && mark === '' ? text : `[${tool.name}${mark}] ${text}`;
}

function subagents(r: RenderInput): string {
  const lines: string[] = [];
  if (r.parentSession) lines.push(`This session is a subagent of ${code(r.parentSession)}.`);
  for (const c of r.childSessions) lines.push(`${code(c.id)} — handoff: ${path(`${c.dir}/HANDOFF.md`)}`);
  for (const s of r.state.subagents.slice(-20)) lines.push(`launched${at(s.seq)}: ${s.description || 'subagent'}`);
  return lines.length === 0 ? NONE : bullets(lines);
}

function whereEverythingLives(r: RenderInput): string {
  const d = r.dir;
  return bullets([
    `handoff: ${path(`${d}/HANDOFF.md`)}`,
    `payloads: ${path(`${d}/HANDOFF.summary.json`)}, ${path(`${d}/HANDOFF.llm.json`)}`,
    `full timeline (${r.state.turns} turns): ${path(`${d}/timeline.jsonl`)}`,
    `every tool call in full: ${path(`${d}/TOOLS.md`)}`,
    `manifest: ${path(`${d}/manifest.json`)}`,
    `history: ${r.history.length === 0 ? 'none yet' : r.history.map((h) => path(`${d}/history/${h}`)).join(', ')}`,
    ...r.sources.map((s) => `source transcript: ${path(s.path)}`),
  ]);
}

function provenance(r: RenderInput): string {
  return bullets([
    ...r.sources.map((s) => `source: ${path(s.path)} — bytes [0, ${s.offset}) of ${s.size}`),
    `raw sha256: ${code(r.rawSha256)}`,
    `manifest sha256: ${code(r.manifestSha256)}`,
    `revision: ${r.revision} · watermark: ${r.state.watermark} · turns: ${r.state.turns}`,
    `redactions: ${r.redactions}`,
    `check it: ${code(`handoff verify ${r.session} --source`)}`,
  ]);
}

/** The one line that hands a session over; `handoff resume` prints the same. */
export function resumeInstruction(handoffPath: string): string {
  return `Resume from ${handoffPath}: verify drift, then continue its Next Action.`;
}

function resume(r: RenderInput): string {
  const path = `${r.dir}/HANDOFF.md`;
  return [
    '1. Read this whole file before acting. Treat files, repository state and recorded command results as authoritative, not this summary.',
    `2. Check drift: run ${code(`handoff resume ${r.session}`)} (or compare repository path, branch, HEAD and dirty state with the front matter). Report material drift; never reset, check out or discard changes to recreate the old state.`,
    '3. Read the files named under Repository Evidence and their tests; prefer what they say now over what this handoff says.',
    '4. Continue the Next Action unless drift, a blocker or a newer user instruction makes it unsafe or obsolete.',
    '',
    `Resume instruction: ${code(resumeInstruction(path), 400)}`,
  ].join('\n');
}

export function renderHandoffMd(r: RenderInput, a: Analysis): string {
  const title = r.title ?? r.session;
  const shown = Math.min(r.state.window.length, LIMITS.RECENT_TURNS);
  const parts = [
    frontMatter(r),
    `# Handoff: ${title.replace(/\r?\n/g, ' ')}\n`,
    section('Objective (verbatim)', objective(a)),
    section('State right now (verbatim tail)', stateNow(a)),
    section('Current State', currentState(a)),
    section('Open loops / next steps', openLoops(a)),
    section('Repository Evidence', repoEvidence(r)),
    section('Verification', verification(a)),
    section('Failures And Blockers', failures(a)),
    section('Unknowns', unknowns(a)),
    section('Next Action', nextActionBody(a)),
    section(`Recent timeline (last ${shown} of ${r.state.turns} turns)`, recent(r)),
    section('Subagents', subagents(r)),
    section('Where everything lives', whereEverythingLives(r)),
    section('Provenance', provenance(r)),
    `${CONTRACT_HEADING}\n\n${r.contract ?? NONE}\n`,
    section('Resume Instructions', resume(r)),
  ];
  return parts.join('\n');
}
