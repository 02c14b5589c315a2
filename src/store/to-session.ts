import { stat } from 'node:fs/promises';
import { readRegularText } from './files.js';
import { join } from 'node:path';
import type { Successor } from '../core/successor.js';
import { frontMatterToSession, payloadWithSuccessor, SUCCESSOR_ID_RE, withSuccessor } from '../core/successor.js';
import { FILES } from './layout.js';

/**
 * `to-session.json` in a session folder: which later sessions were offered this handoff by the
 * `session-start` hook. An offer takes the handoff over (its `to_session`) once that session's
 * transcript exists and is not empty: a session opened and closed without a word takes nothing.
 * The file is the hook's alone: builds never read or write it, so it needs no place in the
 * manifest, and a rebuild never loses it. The session that took the handoff over is stamped onto
 * the committed HANDOFF.md and payloads (stampSuccessor), outside their digests.
 */

export const TO_SESSION_FILE = 'to-session.json';
export const TO_SESSION_KIND = 'handoff.to_session';

export interface Offer {
  /** The new session's id as its harness gave it. */
  session: string;
  harness: string;
  transcript_path: string | null;
  /** Why the hook ran: startup or clear. */
  source: string;
  offered_at: string;
}

export interface ToSessionRecord {
  schema_version: '1.0';
  kind: typeof TO_SESSION_KIND;
  from_session: string;
  offers: Offer[];
}

export async function readToSession(dir: string): Promise<ToSessionRecord | null> {
  try {
    const v = JSON.parse(await readRegularText(join(dir, TO_SESSION_FILE))) as ToSessionRecord;
    return v && v.kind === TO_SESSION_KIND && Array.isArray(v.offers) ? v : null;
  } catch {
    return null;
  }
}

async function hasBytes(path: string | null): Promise<boolean> {
  if (path === null) return false;
  try {
    return (await stat(path)).size > 0;
  } catch {
    return false;
  }
}

/** The session that took the handoff over: the first offer whose transcript has appeared. */
export async function takenBy(record: ToSessionRecord | null): Promise<Offer | null> {
  for (const o of record?.offers ?? []) if (await hasBytes(o.transcript_path)) return o;
  return null;
}

/** Adds an offer (once per offered session) and rewrites the record atomically. */
export async function recordOffer(dir: string, fromSession: string, offer: Offer): Promise<ToSessionRecord> {
  const prev = await readToSession(dir);
  const offers = (prev?.offers ?? []).filter((o) => o.session !== offer.session);
  const next: ToSessionRecord = { schema_version: '1.0', kind: TO_SESSION_KIND, from_session: fromSession, offers: [...offers, offer] };
  // The writers are loaded only to write: reading the record is on every session start's path.
  const { writeAtomic } = await import('./files.js');
  await writeAtomic(join(dir, TO_SESSION_FILE), `${JSON.stringify(next, null, 2)}\n`);
  return next;
}

/**
 * Writes the session that took the handoff over into the committed HANDOFF.md (front matter
 * `to_session`) and payloads (`to_session`), when to-session.json names one and they do not say
 * so yet. Only the store's writer calls it (the daemon in its queue, or a hook when no daemon
 * runs). Returns the successor stamped, or null when there was nothing to do.
 */
export async function stampSuccessor(dir: string): Promise<Offer | null> {
  const taker = await takenBy(await readToSession(dir));
  if (taker === null || !SUCCESSOR_ID_RE.test(taker.session)) return null;
  const mdPath = join(dir, FILES.handoff);
  const md = await readRegularText(mdPath).catch(() => null);
  if (md === null || frontMatterToSession(md) === taker.session) return null;
  const s: Successor = { session: taker.session, harness: taker.harness, source: taker.source, offered_at: taker.offered_at };
  const { writeAtomic } = await import('./files.js');
  // The payloads first: HANDOFF.md's line is what says the stamp is done.
  for (const file of [FILES.summary, FILES.llm]) {
    const text = await readRegularText(join(dir, file)).catch(() => null);
    const next = text === null ? null : payloadWithSuccessor(text, s);
    if (next !== null && next !== text) await writeAtomic(join(dir, file), next, undefined, false);
  }
  const next = withSuccessor(md, s);
  if (next === null) return null;
  await writeAtomic(mdPath, next, undefined, false);
  return taker;
}
