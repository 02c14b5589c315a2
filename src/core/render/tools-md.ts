import type { Turn } from '../types.js';
import { fence } from './markdown.js';

/** TOOLS.md: every TOOL turn in full (redacted), appended; never rewritten. */

export function toolsHeader(session: string): string {
  return `# Tools: ${session}\n\nEvery tool call and tool result of this session in full (secrets redacted), in transcript order. Appended as the session grows.\n\n`;
}

export function toolSection(turn: Turn): string {
  const name = turn.tool?.name ?? 'tool';
  const status = turn.tool?.ok === false ? ' (error)' : '';
  return `## [${turn.seq}] ${turn.ts ?? '-'} ${name}${status}\n\n${fence(turn.text)}\n\n`;
}
