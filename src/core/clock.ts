/**
 * Wall-clock claims. Transcripts stamp every record in UTC, while an agent speaks in the user's
 * local time. A `date` run inside the session ties the two together (its printed local time
 * against its record's timestamp), and then a time the agent gives for when the session's work
 * started can be checked against the session's first message. Pure.
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Runs `date` as one of its steps (`date`, `date "+%F %T" && stat …`). */
const RUNS_DATE = /(?:^|&&|;|\|\||\n)\s*date(?:\s|$)/;

/** A local time a `date` printed, as milliseconds since the epoch as if it were UTC. */
function printedLocal(output: string): number | null {
  for (const raw of output.split('\n', 50)) {
    const t = raw.trim();
    const iso = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?(?:\s|$)/.exec(t);
    if (iso) return Date.UTC(+iso[1]!, +iso[2]! - 1, +iso[3]!, +iso[4]!, +iso[5]!, +(iso[6] ?? 0));
    const unix = /^[A-Z][a-z]{2},? +([A-Z][a-z]{2}) +(\d{1,2}),? +(\d{2}):(\d{2}):(\d{2})(?: +[A-Z]{2,5})? +(\d{4})$/.exec(t);
    if (unix) {
      const mo = MONTHS.indexOf(unix[1]!.toLowerCase());
      if (mo >= 0) return Date.UTC(+unix[6]!, mo, +unix[2]!, +unix[3]!, +unix[4]!, +unix[5]!);
    }
  }
  return null;
}

/** The local offset from UTC in minutes that a `date` run proves, or null. */
export function offsetFromDate(command: string, output: string, recordTs: string): number | null {
  if (!RUNS_DATE.test(command)) return null;
  const local = printedLocal(output);
  const utc = Date.parse(recordTs);
  if (local === null || !Number.isFinite(utc)) return null;
  const diff = (local - utc) / 60000;
  const offset = Math.round(diff / 15) * 15;
  // The record is written within seconds of the run; anything else is not this clock.
  if (Math.abs(diff - offset) > 3 || Math.abs(offset) > 14 * 60) return null;
  return offset;
}

/** Minutes since local midnight of a UTC timestamp. */
export function localMinutes(ts: string, offset: number): number | null {
  const t = Date.parse(ts);
  if (!Number.isFinite(t)) return null;
  const d = new Date(t + offset * 60000);
  return d.getUTCHours() * 60 + d.getUTCMinutes() + d.getUTCSeconds() / 60;
}

export const fmtOffset = (m: number): string => `UTC${m < 0 ? '−' : '+'}${String(Math.floor(Math.abs(m) / 60)).padStart(2, '0')}:${String(Math.abs(m) % 60).padStart(2, '0')}`;
export const fmtClock = (m: number): string => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(Math.floor(m % 60)).padStart(2, '0')}`;

const STARTED = /\b(?:start(?:ed|s|ing)?|began|begun|beginning|kick(?:ed)?[- ]off)\b|開始/i;
const OF_THE_WORK = /\b(?:session|discussion|conversation|work|implementation|timer)\b|討論|對話|工作|實作/i;
const CLOCK = /(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?![\d:])/g;

export interface StartClaim {
  /** Minutes since local midnight. */
  minutes: number;
  clock: string;
  sentence: string;
}

/**
 * A time the agent gives for when the session's work started: a line that says "start" (or
 * began, kicked off), names the work (session, discussion, implementation, timer) and holds a
 * clock time; the earliest time on the line is the start it claims.
 */
export function startClaim(text: string): StartClaim | null {
  for (const line of text.split('\n')) {
    if (!STARTED.test(line) || !OF_THE_WORK.test(line)) continue;
    let best: StartClaim | null = null;
    for (const m of line.matchAll(CLOCK)) {
      const minutes = +m[1]! * 60 + +m[2]! + +(m[3] ?? 0) / 60;
      if (best === null || minutes < best.minutes) best = { minutes, clock: m[0], sentence: line.trim().slice(0, 300) };
    }
    if (best !== null) return best;
  }
  return null;
}

/** The claimed start is before the first message (by more than `slack` minutes, the same day). */
export function startsBeforeSession(claimed: number, first: number, slack = 2): boolean {
  const gap = first - claimed;
  return gap > slack && gap < 12 * 60;
}
