import type { BlockKind, TurnClass } from './types.js';

export interface ClassifyInput {
  kind: string;
  role?: string | undefined;
  blocks: readonly BlockKind[];
}

const isToolBlock = (b: BlockKind): boolean => b === 'tool_call' || b === 'tool_result';

/**
 * Assigns one class to a turn; the first rule that matches wins (SPEC §3):
 * TOOL, THOUGHT, USER, AGENT, OTHER.
 */
export function classify({ kind, role, blocks }: ClassifyInput): TurnClass {
  const k = kind.toLowerCase();
  const r = (role ?? '').toLowerCase();
  if (k.includes('tool') || k.includes('function_call') || r === 'tool') return 'TOOL';
  if (blocks.length > 0 && blocks.every(isToolBlock)) return 'TOOL';
  if (k.includes('reason') || k.includes('think')) return 'THOUGHT';
  if (blocks.length > 0 && blocks.every((b) => b === 'thinking')) return 'THOUGHT';
  if (r === 'user' || k === 'human' || k === 'user') return 'USER';
  if (r === 'assistant' || k === 'ai' || k === 'assistant') return 'AGENT';
  return 'OTHER';
}

/** The text format's role markers map straight to a class. */
export function classifyTextRole(role: string): TurnClass {
  switch (role.toLowerCase()) {
    case 'user':
    case 'human':
      return 'USER';
    case 'assistant':
    case 'ai':
      return 'AGENT';
    case 'tool':
      return 'TOOL';
    default:
      return 'OTHER';
  }
}
