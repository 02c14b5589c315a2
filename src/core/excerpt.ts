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

/*
 * A cut line carries the note and, in the timeline, `text_bytes` and `text_sha256` (about 130
 * bytes in all), so `max` leaves room for them above head + tail: a cut never makes a line longer.
 */

/** timeline.jsonl: the words of the user and of the agent (USER and AGENT turns). */
export const TIMELINE_TEXT: ExcerptLimits = { max: 600, head: 320, tail: 120 };
/**
 * timeline.jsonl: tool calls and results, reasoning and the rest. They are most of a session's
 * turns and bytes, and the handoff states what they proved (checks, failures, files) from the
 * state, so the timeline keeps less of each.
 */
export const TIMELINE_TOOL_TEXT: ExcerptLimits = { max: 380, head: 160, tail: 60 };
/** TOOLS.md: a tool call's or result's text (the timeline holds the same turn). */
export const TOOLS_TEXT: ExcerptLimits = { max: 180, head: 100, tail: 40 };

/** What timeline.jsonl keeps of a turn's text, by the turn's class. */
export function timelineLimits(cls: string): ExcerptLimits {
  return cls === 'USER' || cls === 'AGENT' ? TIMELINE_TEXT : TIMELINE_TOOL_TEXT;
}

export function excerpt(text: string, lim: ExcerptLimits): Excerpt {
  if (text.length <= lim.max) return { text, full: null };
  return { text: excerptText(text, lim), full: { bytes: Buffer.byteLength(text), sha256: sha256Hex(text) } };
}

/** What `excerpt` keeps of the text, without the digest of the whole (TOOLS.md carries none). */
export function excerptText(text: string, lim: ExcerptLimits): string {
  if (text.length <= lim.max) return text;
  const head = text.slice(0, boundary(text, lim.head));
  const tail = text.slice(boundary(text, text.length - lim.tail));
  const cut = text.length - head.length - tail.length;
  // The note is short: the full text's length and sha256 are the timeline line's `text_bytes`
  // and `text_sha256` (store format 3 wrote them into the note as well).
  return `${head}\n[… ${cut} characters cut …]\n${tail}`;
}

/** A cut never splits a surrogate pair (an emoji) in two. */
function boundary(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return c >= 0xdc00 && c <= 0xdfff ? at + 1 : at;
}
