/**
 * Cutting a text that the redactor has not read yet. A credential cut in two no longer matches
 * its rule (`ghp_` and 30 of its 36 characters is no GitHub token), and the part kept would reach
 * the store whole: so a cut never falls inside a run of characters a credential may be made of.
 * It moves back to where that run began (forward, for a tail), dropping the part of a word it
 * would have split; a run longer than RUN_REACH (a base64 blob, which the redactor collapses
 * anyway) is cut where asked.
 */

/** How far a cut moves to keep a run whole: longer than any credential the redactor knows by its shape. */
const RUN_REACH = 256;

/** Whitespace, quotes, brackets and the punctuation that separates values: no credential holds them. */
function separates(c: number): boolean {
  return c <= 32 || c === 34 || c === 39 || c === 96 || c === 44 || c === 59 || c === 40 || c === 41 || c === 91 || c === 93 || c === 123 || c === 125 || c === 60 || c === 62 || c === 124 || c === 0x2026;
}

/** The end of a head of at most `n` characters that splits no run (`text.length` when it fits whole). */
export function headEnd(text: string, n: number): number {
  if (text.length <= n) return text.length;
  if (n <= 0) return 0;
  let end = n;
  while (end > 0 && n - end < RUN_REACH && !separates(text.charCodeAt(end - 1)) && !separates(text.charCodeAt(end))) end -= 1;
  return n - end >= RUN_REACH ? n : end;
}

/** The start of a tail of at most `n` characters that splits no run (0 when the text fits whole). */
export function tailStart(text: string, n: number): number {
  if (text.length <= n) return 0;
  const want = text.length - Math.max(0, n);
  let start = want;
  while (start < text.length && start - want < RUN_REACH && !separates(text.charCodeAt(start - 1)) && !separates(text.charCodeAt(start))) start += 1;
  return start - want >= RUN_REACH ? want : start;
}

/** At most `n` characters of a text not yet redacted, `…` in place of what was cut (within the n). */
export function cutBeforeRedaction(text: string, n: number): string {
  if (text.length <= n) return text;
  return `${text.slice(0, headEnd(text, n - 1))}…`;
}
