import { canonicalJson, chainHash } from './canonical.js';
import type { Turn } from './types.js';

/**
 * timeline.jsonl lines: one turn each, `{seq, ts, class, text, h}` (+ `tool`), where
 * h = sha256(previous h + canonical JSON of the line without h). Lines are written canonical,
 * so the stored bytes are exactly what the chain hashes (plus the `h` member).
 */

export interface ChainedLine {
  line: string;
  h: string;
}

export function timelineRecord(turn: Turn): Record<string, unknown> {
  const rec: Record<string, unknown> = { seq: turn.seq, ts: turn.ts, class: turn.class, text: turn.text };
  if (turn.tool) rec.tool = turn.tool;
  return rec;
}

export function chainLine(prevH: string, turn: Turn): ChainedLine {
  const rec = timelineRecord(turn);
  const h = chainHash(prevH, rec);
  return { line: `${canonicalJson({ ...rec, h })}\n`, h };
}

export interface ChainCheck {
  ok: boolean;
  lines: number;
  head: string;
  /** 1-based line number of the first broken link. */
  brokenAt?: number;
  reason?: string;
}

/** Walks a timeline's lines, recomputing the chain. */
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
    const expect = chainHash(prev, rest);
    if (h !== expect) return { ok: false, lines: n, head: prev, brokenAt: n, reason: `timeline line ${n}: hash chain broken (stored h does not match its content)` };
    prev = expect;
  }
  return { ok: true, lines: n, head: prev };
}
