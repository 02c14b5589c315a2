import type { EventName, EventParams, StatusResult } from '../control/protocol.js';
import { ago, bytes, fitTable, pressureCell } from './format.js';
import type { Io } from './io.js';
import { paint } from './io.js';

/** `handoff status` as text: readable at a glance on an 80-column terminal. */

const SHOWN_SESSIONS = 20;
const BAR_WIDTH = 24;

function home(path: string, env: NodeJS.ProcessEnv): string {
  const h = env.HOME;
  return h && path.startsWith(`${h}/`) ? `~${path.slice(h.length)}` : path;
}

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

function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 13)}…` : id;
}

export function renderStatus(io: Pick<Io, 'color' | 'columns' | 'env' | 'now'>, s: StatusResult): string {
  const out: string[] = [];
  const now = io.now();
  out.push(`${paint(io, 'bold', 'handoffd')} ${s.version} · pid ${s.pid} · up ${duration(s.uptime_s)} · store ${home(s.root, io.env)}`);
  for (const w of s.watch) {
    out.push(w.exists ? `watching ${home(w.path, io.env)} (${w.files} transcript${w.files === 1 ? '' : 's'})` : paint(io, 'gray', `waiting for ${home(w.path, io.env)} to appear`));
  }
  const b = s.backfill;
  if (b.running) out.push(`backfill ${progressBar(b.done, b.total)}${b.failed ? ` (${b.failed} failed)` : ''}`);
  else if (b.total > 0) out.push(`backfill done: ${b.total} transcript${b.total === 1 ? '' : 's'}${b.failed ? `, ${b.failed} failed` : ''}`);
  const q = s.queue;
  if (q.waiting > 0 || q.running) out.push(`queue: ${q.waiting} waiting${q.live_waiting ? ` (${q.live_waiting} live)` : ''}${q.running ? `, building ${home(q.running, io.env)}` : ''}`);
  out.push('');
  if (s.sessions.length === 0) {
    out.push('no sessions yet — a new Claude Code or Codex session appears here moments after it starts');
  } else {
    const rows = s.sessions.slice(0, SHOWN_SESSIONS).map((v) => {
      const state = v.state === 'halted' ? paint(io, 'red', 'halted') : v.state === 'error' ? paint(io, 'red', 'error') : v.state === 'gone' ? paint(io, 'gray', 'gone') : v.state;
      return [v.project, shortId(v.id), v.harness, String(v.turns), pressureCell(io, v.pressure.level as 'green', v.pressure.ratio), bytes(v.lag_bytes), ago(v.last_build_at ?? v.updated, now), state];
    });
    out.push(fitTable(['PROJECT', 'SESSION', 'HARNESS', 'TURNS', 'PRESSURE', 'LAG', 'REFRESHED', 'STATE'], rows, io.columns, [0, 1]));
    if (s.sessions.length > SHOWN_SESSIONS) out.push(paint(io, 'gray', `(the ${SHOWN_SESSIONS} most recent of ${s.sessions.length} sessions; \`handoff list\` shows all)`));
  }
  const halted = s.sessions.filter((v) => v.halted);
  if (halted.length > 0) {
    out.push('', paint(io, 'red', `halted (${halted.length}): these sessions stopped at a corrupt line; the others carry on`));
    for (const v of halted) {
      const h = v.halted as NonNullable<typeof v.halted>;
      out.push(`  ${v.id}: ${h.file}:${h.line} (byte offset ${h.offset})`, `    fix: ${h.fix}`);
    }
  }
  const failing = s.sessions.filter((v) => v.error);
  for (const v of failing) out.push(`  ${paint(io, 'red', 'error')} ${v.id}: ${v.error?.message ?? ''}${v.error?.fix ? `\n    fix: ${v.error.fix}` : ''}`);
  const unknown = Object.entries(s.unknown_types).flatMap(([h, types]) => Object.entries(types).map(([t, n]) => `${h}: ${t} ×${n}`));
  if (unknown.length > 0) out.push('', paint(io, 'yellow', `unknown record types (a new agent version? they are counted, not read): ${unknown.join(', ')}`));
  return out.join('\n');
}

export function renderEvent<E extends EventName>(io: Pick<Io, 'color'>, event: E, p: EventParams[E]): string {
  const time = new Date((p as { at: string }).at).toTimeString().slice(0, 8);
  switch (event) {
    case 'built': {
      const b = p as EventParams['built'];
      return `${time} built ${b.project}/${shortId(b.session)} rev ${b.revision} +${b.new_turns} turn${b.new_turns === 1 ? '' : 's'} (${b.turns} in all, ${pressureCell(io, b.pressure.level as 'green', b.pressure.ratio)}, ${Math.round(b.build_ms)} ms)${b.reset ? ` — reset: ${b.reset}` : ''}`;
    }
    case 'pressure': {
      const x = p as EventParams['pressure'];
      return `${time} pressure ${shortId(x.session)}: ${x.from ?? 'unknown'} → ${pressureCell(io, x.to as 'green', x.ratio)}`;
    }
    case 'compaction': {
      const x = p as EventParams['compaction'];
      return `${time} compaction in ${shortId(x.session)} (#${x.compactions})${x.finalized ? `; finalized into history/${x.finalized}` : ''}`;
    }
    case 'halted': {
      const x = p as EventParams['halted'];
      return `${time} ${paint(io, 'red', 'halted')} ${x.session ?? x.file}: ${x.message}\n    fix: ${x.fix}`;
    }
    default: {
      const x = p as EventParams['error'];
      return `${time} ${paint(io, 'red', 'error')} ${x.session ?? x.path ?? ''}: ${x.message}${x.fix ? `\n    fix: ${x.fix}` : ''}`;
    }
  }
}
