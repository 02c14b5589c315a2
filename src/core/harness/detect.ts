import type { Harness } from '../types.js';
import { looksLikeClaude } from './claude.js';
import { looksLikeCodex } from './codex.js';
import { isObj } from './extract.js';
import { looksGeneric } from './generic.js';

/**
 * The harness one parsed line votes for, or null when the line says nothing either way. A file's
 * harness is the vote of its first voting line, never simply its first line: Claude Code files
 * often open with bookkeeping records. A line that does not vote yields no text under any
 * reader, so a file reads the same however its bytes arrived.
 */
export function voteHarness(obj: unknown): Exclude<Harness, 'text'> | null {
  if (!isObj(obj)) return null;
  if (looksLikeCodex(obj)) return 'codex';
  if (looksLikeClaude(obj)) return 'claude';
  if (looksGeneric(obj)) return 'generic';
  return null;
}

/** `.jsonl` files are JSON lines; every other extension is the text role-marker format. */
export function isJsonlPath(path: string): boolean {
  return path.toLowerCase().endsWith('.jsonl');
}
