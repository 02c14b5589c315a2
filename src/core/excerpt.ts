import { sha256Hex } from './canonical.js';

/**
 * What the store keeps of a long text (a tool's output, a file written whole): its head and its
 * tail, with the full text's UTF-8 length and sha256, so the store stays a fraction of the
 * transcripts' size and what it kept can still be proven against them (`verify --deep`
 * re-reads the transcript and compares the digests). The handoff itself is built from the
 * state, which never reads these files: cutting them loses no fact a handoff states.
 */

export interface Excerpt {
  text: string;
  /** Set when the text was cut: the full text's UTF-8 bytes and sha256. */
  full: { bytes: number; sha256: string } | null;
}

export interface ExcerptLimits {
  /** Texts up to this many characters are kept whole. */
  max: number;
  head: number;
  tail: number;
}

/** timeline.jsonl: a turn's text. */
export const TIMELINE_TEXT: ExcerptLimits = { max: 500, head: 320, tail: 120 };
/** TOOLS.md: a tool call's or result's text (the timeline holds the same turn). */
export const TOOLS_TEXT: ExcerptLimits = { max: 300, head: 180, tail: 80 };

export function excerpt(text: string, lim: ExcerptLimits): Excerpt {
  if (text.length <= lim.max) return { text, full: null };
  const head = text.slice(0, boundary(text, lim.head));
  const tail = text.slice(boundary(text, text.length - lim.tail));
  const full = { bytes: Buffer.byteLength(text), sha256: sha256Hex(text) };
  const cut = text.length - head.length - tail.length;
  return { text: `${head}\n[… ${cut} characters cut: the full text is ${full.bytes} bytes, sha256 ${full.sha256} …]\n${tail}`, full };
}

/** A cut never splits a surrogate pair (an emoji) in two. */
function boundary(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return c >= 0xdc00 && c <= 0xdfff ? at + 1 : at;
}
