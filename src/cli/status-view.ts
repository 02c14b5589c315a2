import { basename } from 'node:path';
import type { EventName, EventParams, SessionView, StatusResult } from '../control/protocol.js';
import { escapeControls, stripControls } from '../core/control-chars.js';
import type { IndexEntry } from '../store/index-file.js';
import { uniquePrefixes } from '../store/index-store.js';
import { ago, bytes, fitTable, idColumn, pressureCell, TITLE_MIN_WIDTH } from './format.js';
import type { Io } from './io.js';
import { paint } from './io.js';

/**
 * `handoff status` as text: readable at a glance on an 80-column terminal. Every id, title, path
 * and message comes from a transcript or a file name: shown with its control characters made
 * visible, never obeyed.
 */

const SHOWN_SESSIONS = 20;
const BAR_WIDTH = 24;

function home(path: string, env: NodeJS.ProcessEnv): string {
  const h = env.HOME;
  return escapeControls(h && path.startsWith(`${h}/`) ? `~${path.slice(h.length)}` : path);
}

const line = (s: string): string => escapeControls(s);
const text = (s: string): string => stripControls(s);

function duration(s: number): string {
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

export function progressBar(done: number, total: number, width = BAR_WIDTH): string {
  const frac = total === 0 ? 1 : Math.min(1, done / total);
  const full = Math.round(frac * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${done}/${total}`;
}

/** A notification names one session: its whole id (a cut one may name another). */
const shortId = (id: string): string => line(id);

function asEntries(sessions: readonly SessionView[]): IndexEntry[] {
  return sessions.map((v) => ({ id: v.id, uuid: null, dir: v.dir || v.path }) as IndexEntry);
}

function stateCell(io: Pick<Io, 'color'>, v: SessionView): string {
  if (v.state === 'halted' || v.state === 'error' || v.state === 'unreadable') return paint(io, 'red', v.state);
  return v.state === 'gone' ? paint(io, 'gray', 'gone') : v.state;
}

export function renderStatus(io: Pick<Io, 'color' | 'columns' | 'env' | 'now'>, s: StatusResult): string {
  const out: string[] = [];
  const now = io.now();
  out.push(`${paint(io, 'bold', 'handoffd')} ${s.version} · pid ${s.pid} · up ${duration(s.uptime_s)} · store ${home(s.root, io.env)}`);
  for (const w of s.watch) {
    out.push(w.exists ? `watching ${home(w.path, io.env)} (${w.files} transcript${w.files === 1 ? '' : 's'})` : paint(io, 'gray', `waiting for ${home(w.path, io.env)} to appear`));
  }
  const b = s.backfill;
  const notes = [b.failed ? `${b.failed} failed` : '', b.pending ? `${b.pending} pending: no complete turn yet` : ''].filter(Boolean).join(', ');
  if (b.running) out.push(`backfill ${progressBar(b.done, b.total)}${notes ? ` (${notes})` : ''}`);
  else if (b.total > 0) out.push(`backfill done: ${b.total} transcript${b.total === 1 ? '' : 's'}${notes ? ` (${notes})` : ''}`);
  const q = s.queue;
  if (q.waiting > 0 || q.running) out.push(`queue: ${q.waiting} waiting${q.live_waiting ? ` (${q.live_waiting} live)` : ''}${q.running ? `, building ${home(q.running, io.env)}` : ''}`);
  // Older daemons do not send it.
  const workers = q.in_workers ?? [];
  if (workers.length > 0) out.push(`build workers: ${workers.map((p) => home(p, io.env)).join(', ')}`);
  out.push('');
  if (s.sessions.length === 0) {
    out.push('no sessions yet — a new Claude Code or Codex session appears here moments after it starts');
  } else {
    const shown = s.sessions.slice(0, SHOWN_SESSIONS);
    const ids = idColumn(
      shown.map((v) => v.id),
      uniquePrefixes(asEntries(s.sessions), shown.map((v) => v.id)),
    );
    const rows = shown.map((v, i) => [line(v.project), ids.cells[i] ?? '', line(v.title ?? ''), v.harness, String(v.turns), pressureCell(io, v.pressure.level as 'green', v.pressure.ratio), bytes(v.lag_bytes), ago(v.last_build_at ?? v.updated, now), stateCell(io, v)]);
    out.push(fitTable(['PROJECT', 'SESSION', 'TITLE', 'HARNESS', 'TURNS', 'PRESSURE', 'LAG', 'REFRESHED', 'STATE'], rows, io.columns, [2, 0, 1], [undefined, ids.minWidth, TITLE_MIN_WIDTH]));
    if (s.sessions.length > SHOWN_SESSIONS) out.push(paint(io, 'gray', `(the ${SHOWN_SESSIONS} most recent of ${s.sessions.length} sessions; \`handoff list\` shows all)`));
  }
  const halted = s.sessions.filter((v) => v.halted);
  if (halted.length > 0) {
    out.push('', paint(io, 'red', `halted (${halted.length}): these sessions stopped at a corrupt line; the others carry on`));
    for (const v of halted) {
      const h = v.halted as NonNullable<typeof v.halted>;
      out.push(`  ${line(v.id)}: ${line(h.file)}:${h.line} (byte offset ${h.offset})`, `    fix: ${text(h.fix)}`);
    }
  }
  const failing = s.sessions.filter((v) => v.error);
  for (const v of failing) {
    const e = v.error as NonNullable<SessionView['error']>;
    const again = e.retry_at ? ` (${e.attempts} attempt${e.attempts === 1 ? '' : 's'}; next at ${new Date(e.retry_at).toTimeString().slice(0, 8)} or when the file changes)` : '';
    out.push(`  ${paint(io, 'red', v.state)} ${line(v.id === basename(v.path) ? v.path : v.id)}: ${text(e.message)}${again}${e.fix ? `\n    fix: ${text(e.fix)}` : ''}`);
  }
  // The errors no failing session shows: those still failing, then how many were resolved since.
  const other = s.errors.filter((e) => !e.resolved_at && !s.sessions.some((v) => v.error && v.path === e.path));
  for (const e of other.slice(-5)) out.push(`  ${paint(io, 'red', 'error')} ${e.path ? home(e.path, io.env) : 'store'}: ${text(e.message)}${e.count > 1 ? ` (×${e.count} since ${new Date(e.first_at).toTimeString().slice(0, 8)})` : ''}`);
  if (other.length > 5) out.push(`  … and ${other.length - 5} more (\`handoff status --json\` lists them)`);
  // Older daemons send neither.
  const resolved = s.errors.filter((e) => e.resolved_at).length;
  const dropped = s.errors_dropped ?? 0;
  if (resolved > 0 || dropped > 0) {
    const parts = [...(resolved > 0 ? [`${resolved} error${resolved === 1 ? '' : 's'} since start resolved (the path builds again, or is gone)`] : []), ...(dropped > 0 ? [`${dropped} more still failing, not kept (\`handoff status\` keeps 50)`] : [])];
    out.push(`  ${paint(io, 'gray', `${parts.join('; ')}: the log has each`)}`);
  }
  const unknown = Object.entries(s.unknown_types).flatMap(([h, types]) => Object.entries(types).map(([t, n]) => `${h}: ${t} ×${n}`));
  if (unknown.length > 0) out.push('', paint(io, 'yellow', `unknown record types (a new agent version? they are counted, not read): ${unknown.join(', ')}`));
  return out.join('\n');
}

export function renderEvent<E extends EventName>(io: Pick<Io, 'color'>, event: E, p: EventParams[E]): string {
  const time = new Date((p as { at: string }).at).toTimeString().slice(0, 8);
  switch (event) {
    case 'built': {
      const b = p as EventParams['built'];
      return `${time} built ${line(b.project)}/${shortId(b.session)} rev ${b.revision} +${b.new_turns} turn${b.new_turns === 1 ? '' : 's'} (${b.turns} in all, ${pressureCell(io, b.pressure.level as 'green', b.pressure.ratio)}, ${Math.round(b.build_ms)} ms)${b.reset ? ` — reset: ${text(b.reset)}` : ''}`;
    }
    case 'pressure': {
      const x = p as EventParams['pressure'];
      return `${time} pressure ${shortId(x.session)}: ${x.from ?? 'unknown'} → ${pressureCell(io, x.to as 'green', x.ratio)}`;
    }
    case 'compaction': {
      const x = p as EventParams['compaction'];
      return `${time} compaction in ${shortId(x.session)} (#${x.compactions})${x.finalized ? `; finalized into history/${line(x.finalized)}` : ''}`;
    }
    case 'halted': {
      const x = p as EventParams['halted'];
      return `${time} ${paint(io, 'red', 'halted')} ${line(x.session ?? x.file)}: ${text(x.message)}\n    fix: ${text(x.fix)}`;
    }
    default: {
      const x = p as EventParams['error'];
      return `${time} ${paint(io, 'red', 'error')} ${line(x.session ?? x.path ?? '')}: ${text(x.message)}${x.fix ? `\n    fix: ${text(x.fix)}` : ''}`;
    }
  }
}
