/**
 * The hand-authored evidence contract: a block of lines starting RESULT:, WHAT_CHANGED:,
 * VALIDATION:, EVIDENCE:, BLOCKERS:, RISKS:, FOLLOW_UP:. A rebuild regenerates HANDOFF.md, so
 * the block is read from the existing file and re-emitted verbatim under its own heading.
 */

export const CONTRACT_HEADING = '## Evidence contract (hand-authored — preserved across rebuilds)';
export const CONTRACT_KEYS = ['RESULT', 'WHAT_CHANGED', 'VALIDATION', 'EVIDENCE', 'BLOCKERS', 'RISKS', 'FOLLOW_UP'] as const;
const KEY_LINE = new RegExp(`^(?:${CONTRACT_KEYS.join('|')}):`);
const FENCE = /^\s*(`{3,}|~{3,})/;

export interface ContractSplit {
  /** Everything up to and including the heading line. */
  before: string;
  /** The section body (between the heading and the next `## ` heading). */
  body: string;
  after: string;
}

/**
 * Splits HANDOFF.md around the contract section body, or null when there is no such heading.
 * Only a heading outside code fences counts, and the last one: transcript text quoted in the
 * generated sections (inside fences) may carry the same line, and must not become a contract.
 */
export function splitAtContract(md: string): ContractSplit | null {
  const start = headingOffset(md);
  if (start === -1) return null;
  const bodyStart = start + CONTRACT_HEADING.length + 2;
  const next = md.indexOf('\n## ', bodyStart - 1);
  const bodyEnd = next === -1 ? md.length : next + 1;
  return { before: md.slice(0, bodyStart), body: md.slice(bodyStart, bodyEnd), after: md.slice(bodyEnd) };
}

/** Offset of the newline before the last contract heading outside code fences, or -1. */
function headingOffset(md: string): number {
  let found = -1;
  let inFence = false;
  let at = 0; // offset of the current line's first character
  for (const line of md.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    else if (!inFence && at > 0 && line === CONTRACT_HEADING && md.charCodeAt(at + line.length) === 0x0a) found = at - 1;
    at += line.length + 1;
  }
  return found;
}

/** The contract text of an existing HANDOFF.md, or null when none was authored. */
export function extractContract(md: string): string | null {
  const split = splitAtContract(md);
  if (split && split.body.split('\n').some((l) => KEY_LINE.test(l))) {
    // A person adding a contract under the rendered "None" keeps the lines, not the "None".
    const body = split.body.replace(/^\n+/, '').replace(/^None\n+(?=[A-Z_]+:)/, '').replace(/\n+$/, '');
    return body.length > 0 ? body : null;
  }
  // A block written anywhere else (outside code fences) still counts.
  const lines = md.split('\n');
  let inFence = false;
  let block: string[] | null = null;
  for (const line of lines) {
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence) continue;
    if (KEY_LINE.test(line)) (block ??= []).push(line);
    else if (block && line.trim().length > 0 && !line.startsWith('#')) block.push(line);
    else if (block) break;
  }
  return block ? block.join('\n') : null;
}

/** The generated part of HANDOFF.md: the file with the contract section's body left out. */
export function generatedPart(md: string): string {
  const split = splitAtContract(md);
  return split ? split.before + split.after : md;
}
