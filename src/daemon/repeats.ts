/**
 * Repeated identical errors are said once. A store that cannot be written fails the same way on
 * every retry and every index flush; a log that repeats the line twice a second buries
 * everything else. The first occurrence is logged, repeats are counted, and the count is told
 * when the error changes, when it clears, or every REMIND_MS while it lasts.
 */

const REMIND_MS = 10 * 60_000;

interface Seen {
  signature: string;
  /** Occurrences not logged since the last line that was. */
  suppressed: number;
  total: number;
  firstAt: number;
  loggedAt: number;
}

export type Verdict =
  /** A new error (or a different one): log it; `previous` repeats of the last one went unlogged. */
  | { log: 'first'; previous: number }
  /** Still the same error, long enough since it was said: log a reminder with the count. */
  | { log: 'reminder'; repeats: number; sinceMs: number }
  | { log: 'none' };

export class RepeatFilter {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly now: () => number = Date.now) {}

  /** One occurrence of `signature` (the code and message) for `key` (a path, "index"). */
  note(key: string, signature: string): Verdict {
    const t = this.now();
    const s = this.seen.get(key);
    if (!s || s.signature !== signature) {
      this.seen.set(key, { signature, suppressed: 0, total: 1, firstAt: t, loggedAt: t });
      return { log: 'first', previous: s?.suppressed ?? 0 };
    }
    s.total += 1;
    if (t - s.loggedAt >= REMIND_MS) {
      const repeats = s.suppressed + 1;
      s.suppressed = 0;
      s.loggedAt = t;
      return { log: 'reminder', repeats, sinceMs: t - s.firstAt };
    }
    s.suppressed += 1;
    return { log: 'none' };
  }

  /** The error for `key` is over. Returns how many times it happened in all (0: it never did). */
  clear(key: string): number {
    const s = this.seen.get(key);
    this.seen.delete(key);
    return s?.total ?? 0;
  }
}
