import { TOOLS_TEXT, excerptText } from '../excerpt.js';
import type { Turn } from '../types.js';
import { fence } from './markdown.js';

/**
 * TOOLS.md: every tool call and result (redacted), appended, never rewritten. A long text keeps
 * its head and tail (excerpt.ts); timeline.jsonl holds the same turn, with the full text's length
 * and sha256 when it was cut.
 */

export function toolsHeader(session: string): string {
  return `# Tools: ${session}\n\nEvery tool call and tool result of this session (secrets redacted; a long text as its head and tail; timeline.jsonl's line of the same [seq] keeps more of it, and the full text's length and sha256 where it is cut too), in transcript order. Appended as the session grows.\n\n`;
}

export function toolSection(turn: Turn): string {
  const name = turn.tool?.name ?? 'tool';
  const status = turn.tool?.ok === false ? ' (error)' : '';
  return `## [${turn.seq}] ${turn.ts ?? '-'} ${name}${status}\n\n${fence(excerptText(turn.text, TOOLS_TEXT))}\n\n`;
}
