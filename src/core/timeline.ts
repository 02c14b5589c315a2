import { canonicalJson, sha256Hex } from './canonical.js';
import { excerpt, timelineLimits } from './excerpt.js';
import type { ToolRef, Turn } from './types.js';

/**
 * timeline.jsonl lines: one turn each, `{seq, ts, class, text, h}` (+ `tool`), where
 * h = sha256(previous h + canonical JSON of the line without h). Lines are written canonical,
 * so the stored bytes are exactly what the chain hashes (plus the `h` member).
 *
 * A long text is kept as its head and tail (excerpt.ts) with `text_bytes` and `text_sha256`
 * of the full text, which the chain seals like any other member. Lines written before that
 * rule (store format 1) carry their text whole and no such members: both read alike.
 */

export interface ChainedLine {
  /** The line as stored, newline included, UTF-8 encoded once. */
  bytes: Buffer;
  h: string;
}

export function timelineRecord(turn: Turn): Record<string, unknown> {
  const ex = excerpt(turn.text, timelineLimits(turn.class));
  const rec: Record<string, unknown> = { seq: turn.seq, ts: turn.ts, class: turn.class, text: ex.text };
  if (ex.full) {
    rec.text_bytes = ex.full.bytes;
    rec.text_sha256 = ex.full.sha256;
  }
  if (turn.tool) rec.tool = turn.tool;
  return rec;
}

function toolJson(t: ToolRef): string {
  // Keys in canonical (sorted) order: id, name, ok.
  return `{"id":${JSON.stringify(t.id)},"name":${JSON.stringify(t.name)}${t.ok === undefined ? '' : `,"ok":${t.ok}`}}`;
}

/**
 * The canonical JSON of a turn, written directly: this runs once per turn on every build, and a
 * turn has a fixed shape, so the general recursive serializer is not needed. A unit test keeps
 * the two in agreement.
 */
export function canonicalTurn(turn: Turn, h?: string): string {
  const tail = canonicalTail(turn);
  return h === undefined ? `{"class":${JSON.stringify(turn.class)},${tail}` : `{"class":${JSON.stringify(turn.class)},"h":${JSON.stringify(h)},${tail}`;
}

/** Everything after `class` (and `h`): serialized once per turn, the text being the bulk. */
function canonicalTail(turn: Turn): string {
  const seq = Number.isFinite(turn.seq) ? String(turn.seq) : 'null';
  const ex = excerpt(turn.text, timelineLimits(turn.class));
  // Keys in canonical (sorted) order: seq, text, text_bytes, text_sha256, tool, ts.
  const full = ex.full ? `,"text_bytes":${ex.full.bytes},"text_sha256":"${ex.full.sha256}"` : '';
  return `"seq":${seq},"text":${JSON.stringify(ex.text)}${full}${turn.tool ? `,"tool":${toolJson(turn.tool)}` : ''},"ts":${JSON.stringify(turn.ts)}}`;
}

const H_FIELD = '"h":"'.length + 64 + '",'.length;

export function chainLine(prevH: string, turn: Turn): ChainedLine {
  const head = `{"class":${JSON.stringify(turn.class)},`;
  const tail = canonicalTail(turn);
  // The line is laid out once, its text encoded straight into place. The hash reads the previous
  // head, the line's head and its tail as one run: the first two are written just before the tail
  // (in the gap the h member fills: a previous head is 64 hex digits), hashed in one call, then
  // the head and h take their places.
  const headBytes = head.length; // ASCII
  const tailBytes = Buffer.byteLength(tail);
  const line = Buffer.allocUnsafe(headBytes + H_FIELD + tailBytes + 1);
  const tailAt = headBytes + H_FIELD;
  line.write(tail, tailAt, 'utf8');
  line[line.length - 1] = 0x0a;
  const prevBytes = prevH.length <= H_FIELD ? Buffer.byteLength(prevH) : H_FIELD + 1;
  let h: string;
  if (prevBytes <= H_FIELD) {
    const from = tailAt - headBytes - prevBytes;
    line.write(prevH, from, 'utf8');
    line.write(head, tailAt - headBytes, 'latin1');
    h = sha256Hex(line.subarray(from, tailAt + tailBytes));
  } else {
    h = sha256Hex(`${prevH}${head}${tail}`);
  }
  line.write(`${head}"h":"${h}",`, 0, 'latin1');
  return { bytes: line, h };
}

export interface ChainCheck {
  ok: boolean;
  lines: number;
  head: string;
  /** 1-based line number of the first broken link. */
  brokenAt?: number;
  reason?: string;
}

/** Walks a timeline's lines, recomputing the chain with the general canonical serializer. */
export function checkChain(lines: Iterable<string>): ChainCheck {
  let prev = '';
  let n = 0;
  for (const raw of lines) {
    if (raw.length === 0) continue;
    n += 1;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return { ok: false, lines: n, head: prev, brokenAt: n, reason: `timeline line ${n} is not valid JSON` };
    }
    const { h, ...rest } = rec;
    const expect = sha256Hex(prev + canonicalJson(rest));
    if (h !== expect) return { ok: false, lines: n, head: prev, brokenAt: n, reason: `timeline line ${n}: hash chain broken (stored h does not match its content)` };
    prev = expect;
  }
  return { ok: true, lines: n, head: prev };
}
