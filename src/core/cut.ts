/**
 * Cutting a text that the redactor has not read yet. A credential cut in two no longer matches
 * its rule (`ghp_` and 30 of its 36 characters is no GitHub token), and the part kept would reach
 * the store whole: so a cut never falls inside a run of characters a credential may be made of.
 * It moves back to where that run began (forward, for a tail), dropping the part of a word it
 * would have split, however long the run: a URL of some thousand characters (a webhook's alert
 * text, a presigned link) is one run, and the piece of it past a cut holds its password or its
 * signature without the scheme or the name its rule starts from. The move is bounded by the cut
 * itself (a head of n characters is read back at most n), so a text that is one run keeps
 * nothing of it: a base64 blob the redactor would have collapsed anyway.
 */

/**
 * A text cut by code units, made well formed: an emoji or any character past U+FFFF cut in two
 * leaves half a surrogate pair, which JSON writes as an escape other readers refuse (jq). That
 * half is U+FFFD then, as an invalid UTF-8 byte is.
 */
export function wellFormed(s: string): string {
  return (s as string & { toWellFormed(): string }).toWellFormed();
}

/** A surrogate's escape in JSON text (`\ud83d`): only a text holding one can give a string with half a pair. */
export const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Whitespace, quotes, brackets and the punctuation that separates values: no credential holds them. */
function separates(c: number): boolean {
  return c <= 32 || c === 34 || c === 39 || c === 96 || c === 44 || c === 59 || c === 40 || c === 41 || c === 91 || c === 93 || c === 123 || c === 125 || c === 60 || c === 62 || c === 124 || c === 0x2026;
}

/** The end of a head of at most `n` characters that splits no run (`text.length` when it fits whole). */
export function headEnd(text: string, n: number): number {
  if (text.length <= n) return text.length;
  if (n <= 0) return 0;
  let end = n;
  while (end > 0 && !separates(text.charCodeAt(end - 1)) && !separates(text.charCodeAt(end))) end -= 1;
  return end;
}

/**
 * A tail that begins mid-line begins at the next line instead, when one starts this close: the
 * line's start may hold the name a value is known by (`DB_PASSWORD=`, `password:`), and a value
 * kept without it is a value the redactor cannot tell from any other word.
 */
const TAIL_LINE_SLACK = 240;

/** The start of a tail of at most `n` characters that splits no run (0 when the text fits whole). */
export function tailStart(text: string, n: number): number {
  if (text.length <= n) return 0;
  let start = text.length - Math.max(0, n);
  if (text.charCodeAt(start - 1) !== 10) {
    const next = text.indexOf('\n', start);
    if (next >= 0 && next - start < TAIL_LINE_SLACK) return next + 1;
  }
  while (start < text.length && !separates(text.charCodeAt(start - 1)) && !separates(text.charCodeAt(start))) start += 1;
  return start;
}

/** At most `n` characters of a text not yet redacted, `…` in place of what was cut (within the n). */
export function cutBeforeRedaction(text: string, n: number): string {
  if (text.length <= n) return text;
  return `${text.slice(0, headEnd(text, n - 1))}…`;
}

/**
 * Where a tail of about `n` characters of a text should start: at the start of the paragraph it
 * begins in, when that is at most a fifth of `n` back; else at the next line's start, when that
 * is near; else at `n` from the end.
 */
export function tailFrom(text: string, n: number): number {
  const at = Math.max(0, text.length - n);
  if (at === 0) return 0;
  const paragraph = text.lastIndexOf('\n\n', at);
  if (paragraph !== -1 && at - (paragraph + 2) <= n / 5) return Math.min(at, paragraph + 2);
  if (text[at - 1] === '\n') return at;
  const line = text.indexOf('\n', at);
  if (line !== -1 && line - at <= n / 10) return line + 1;
  return at;
}

/**
 * The last characters of a text, at most `n` with the `…` put before them, beginning where a reader
 * can start: the next line's start when one is near, else at a word, never inside one ("…e
 * [SUBMISSION.md] copy so" read as the message's first word). `tailStart` moves only forward, so
 * the bound holds.
 */
export function textTail(s: string, n: number): string {
  if (s.length <= n) return s;
  let start = tailStart(s, n - 1);
  while (start < s.length && /\s/.test(s[start] as string)) start += 1;
  return `…${s.slice(start)}`;
}
