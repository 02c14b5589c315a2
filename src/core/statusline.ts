/**
 * The one line `handoff hook statusline` prints under Claude Code's prompt: the session's context
 * pressure, its handoff revision and whether the handoff is ready to hand over. Pure: the caller
 * says what it knows and whether colour is wanted (never with NO_COLOR).
 */

export interface StatusFacts {
  level: string;
  used: number | null;
  limit: number | null;
  ratio: number | null;
  revision: number | null;
  transferReady: boolean | null;
  daemon: DaemonState;
}

/** live: the daemon answered; off: none runs, the handoff is not being refreshed; busy: one runs but did not answer in time. */
export type DaemonState = 'live' | 'off' | 'busy';

export type StatusLineState = { kind: 'session'; facts: StatusFacts } | { kind: 'not-built'; daemon: DaemonState } | { kind: 'unavailable'; why: string };

const DAEMON_NOTE: Record<DaemonState, string | null> = { live: null, off: 'daemon off', busy: 'daemon busy' };

const COLOURS: Record<string, string> = { green: '32', yellow: '33', orange: '38;5;208', red: '31', unknown: '90' };

const paint = (colour: boolean, code: string | undefined, text: string): string => (colour && code ? `\u001b[${code}m${text}\u001b[0m` : text);

export function compactTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n % 1_000_000 === 0 ? 0 : 1)}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}k`;
  return String(n);
}

function pressure(f: StatusFacts, colour: boolean): string {
  const pct = f.ratio === null ? null : `${Math.round(f.ratio * 100)}%`;
  const tokens = f.used !== null && f.limit !== null ? ` ${compactTokens(f.used)}/${compactTokens(f.limit)}` : '';
  const text = pct === null ? `ctx ${f.level}` : `ctx ${pct} ${f.level}${tokens}`;
  return paint(colour, COLOURS[f.level], text);
}

export function statusLine(state: StatusLineState, colour: boolean): string {
  const name = paint(colour, '1', 'handoff');
  if (state.kind === 'unavailable') return `${name} · ${paint(colour, '90', state.why)}`;
  if (state.kind === 'not-built') {
    const note = DAEMON_NOTE[state.daemon];
    return `${name} · ${paint(colour, '90', note ? `not built yet · ${note}` : 'not built yet')}`;
  }
  const f = state.facts;
  const parts = [name, pressure(f, colour)];
  if (f.revision !== null) parts.push(`rev ${f.revision}`);
  if (f.transferReady !== null) parts.push(f.transferReady ? paint(colour, '32', 'ready') : paint(colour, '33', 'not ready'));
  const note = DAEMON_NOTE[f.daemon];
  if (note) parts.push(paint(colour, '90', note));
  return parts.join(' · ');
}
