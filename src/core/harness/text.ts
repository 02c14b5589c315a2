import { classifyTextRole } from '../classify.js';
import type { Turn } from '../types.js';

/**
 * The text role-marker format (any extension other than .jsonl): a line such as `User: ...`,
 * `## assistant> ...` or `tool: ...` starts a turn; following lines append to it. Files in this
 * format are small and hand-made: each build reads them whole, seq being the line index where a
 * turn starts.
 */
const MARKER = /^\s*(?:#*\s*)?(user|human|assistant|ai|system|tool)\s*[:>]\s*(.*)$/i;

export interface TextParse {
  turns: Turn[];
  /** Lines before the first marker, or blank turns. */
  skipped: number;
}

export function parseTextTranscript(text: string): TextParse {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const turns: Turn[] = [];
  let skipped = 0;
  let cur: { seq: number; role: string; body: string[] } | null = null;
  const flush = (): void => {
    if (!cur) return;
    const body = cur.body.join('\n').trimEnd();
    if (body.trim().length === 0) skipped += 1;
    else {
      const cls = classifyTextRole(cur.role);
      const turn: Turn = { seq: cur.seq, ts: null, class: cls, text: body };
      if (cls === 'TOOL') turn.tool = { name: 'tool', id: '' };
      turns.push(turn);
    }
    cur = null;
  };
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const m = MARKER.exec(line);
    if (m) {
      flush();
      cur = { seq: i, role: (m[1] ?? '').toLowerCase(), body: [m[2] ?? ''] };
    } else if (cur) cur.body.push(line);
    else if (line.trim().length > 0) skipped += 1;
  });
  flush();
  return { turns, skipped };
}
