import { isObj, num, str } from './harness/extract.js';

/**
 * What a new or cleared session is told about its project's latest unclaimed handoff: a few
 * lines (who, objective, next action, where), for the agent to mention to the user — never the
 * whole handoff, which might belong to other work.
 */

export interface OfferCandidate {
  id: string;
  harness: string;
  project: string;
  turns: number;
  updated: string;
  transferReady: boolean;
  handoffPath: string;
  /** The candidate's HANDOFF.summary.json, parsed (any shape). */
  summary: unknown;
}

const OBJECTIVE_CHARS = 300;
const NEXT_CHARS = 300;

function oneLine(s: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function since(iso: string, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  if (!Number.isFinite(s)) return 'at an unknown time';
  if (s < 90) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400 * 2) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} days ago`;
}

export function offerText(c: OfferCandidate, now: Date): string {
  const s = isObj(c.summary) ? c.summary : {};
  const session = isObj(s.session) ? s.session : {};
  const title = str(session.title);
  const objective = str(s.objective);
  const next = isObj(s.next_action) ? s.next_action : null;
  const nextText = next ? str(next.text) : undefined;
  const nextLine = next ? (num(next.line) ?? num(next.seq)) : undefined;
  const nextWhere = next && num(next.line) !== undefined ? `line ${nextLine}` : nextLine !== undefined ? `seq ${nextLine}` : null;
  const lines = [
    `handoffd: an earlier session of this project (${c.project}) left a handoff that no session has taken over yet. If the user's request continues that work, tell them and offer to resume from it; otherwise ignore this.`,
    `- session ${c.id} (${c.harness}${title ? `, "${oneLine(title, 80)}"` : ''}, ${c.turns} turns, last active ${since(c.updated, now)}; ${c.transferReady ? 'transfer-ready' : 'not transfer-ready: check it before relying on it'})`,
  ];
  if (objective) lines.push(`- objective: ${oneLine(objective, OBJECTIVE_CHARS)}`);
  if (nextText) lines.push(`- next action: ${oneLine(nextText, NEXT_CHARS)}${nextWhere ? ` (${nextWhere})` : ''}`);
  lines.push(`- handoff: ${c.handoffPath} (\`handoff resume ${c.id}\` also shows what changed in the repository since)`);
  return lines.join('\n');
}
