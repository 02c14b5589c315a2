/**
 * What the summary a harness writes when it compacts a conversation says is left to do. Claude
 * Code has the agent write it under numbered headings (`7. Pending Tasks:`, `8. Current Work:`,
 * `9. Optional Next Step:`) and sends it as the next user line (`isCompactSummary`); a successor
 * resuming after the compaction reads there what the agent meant to do next. Pure.
 */

import { headEnd, wellFormed } from './cut.js';

/** The parts of a compaction summary a handoff quotes, each as written (its head, when long; the indentation its lines share removed). */
export interface CompactionParts {
  pending?: string;
  current?: string;
  next?: string;
}

/** How much of each part is kept: the head of a part says what comes first. */
export const COMPACTION_PART_CHARS = 900;

/** A heading line of the summary: `7. Pending Tasks:`, `**Current Work:**`, `## Optional Next Step`. */
const HEADING = /^[ \t]*(?:\d{1,2}\.[ \t]+)?(?:#{1,4}[ \t]+)?(?:\*\*)?([A-Z][A-Za-z ,/&'()-]{2,60}?)(?:\*\*)?(?::(?:\*\*)?[ \t]*|[ \t]*)$/gm;

/** What Claude Code appends after the summary: instructions to the model, not the summary's. */
const TRAILER = /^(?:If you need specific details from before compaction|Please continue the conversation from where|Continue the conversation from where it left off)/m;

function partOf(name: string): keyof CompactionParts | null {
  if (/^pending tasks?$/i.test(name)) return 'pending';
  if (/^current (?:work|state|status)$/i.test(name)) return 'current';
  if (/^(?:optional )?next steps?$/i.test(name)) return 'next';
  return null;
}

/** A text's lines without the indentation they all share (the summary's items sit indented under its numbered headings). */
function dedent(text: string): string {
  const lines = text.split('\n');
  const indent = (l: string): number => /^[ \t]*/.exec(l)?.[0].length ?? 0;
  const widths = lines.filter((l) => l.trim().length > 0).map(indent);
  const cut = widths.length === 0 ? 0 : Math.min(...widths);
  return cut === 0 ? text : lines.map((l) => l.slice(Math.min(cut, indent(l)))).join('\n');
}

function clipPart(text: string): string {
  const t = dedent(text.replace(/\r\n/g, '\n').replace(/^\s*\n|\s+$/g, '').replace(/\n{3,}/g, '\n\n'));
  if (t.length <= COMPACTION_PART_CHARS) return t;
  // Read after the redactor read the summary whole (reduce.ts): cut between words, a redaction's tag stays whole.
  return `${wellFormed(t.slice(0, headEnd(t, COMPACTION_PART_CHARS - 1))).trimEnd()}…`;
}

/**
 * The pending tasks, current work and next step a compaction summary names, or null when it names
 * none of them (a summary of another shape, a one-line title). Only the summary's own headings
 * count: a line `Next step:` inside a quoted message is no heading unless it stands alone.
 */
export function compactionParts(summary: string): CompactionParts | null {
  if (summary.length === 0 || !/pending|current|next/i.test(summary)) return null;
  const trailer = TRAILER.exec(summary);
  const text = trailer === null ? summary : summary.slice(0, trailer.index);
  const heads: { name: string; start: number; end: number }[] = [];
  for (const m of text.matchAll(HEADING)) heads.push({ name: (m[1] as string).trim(), start: m.index, end: m.index + m[0].length });
  const out: CompactionParts = {};
  for (let i = 0; i < heads.length; i += 1) {
    const h = heads[i] as (typeof heads)[number];
    const part = partOf(h.name);
    if (part === null || out[part] !== undefined) continue;
    const body = clipPart(text.slice(h.end, heads[i + 1]?.start ?? text.length));
    if (body.length > 0) out[part] = body;
  }
  return Object.keys(out).length === 0 ? null : out;
}
