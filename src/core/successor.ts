/**
 * The session that took a handoff over (its `to_session`), as it shows in HANDOFF.md's front
 * matter and in the payloads. It is not a fact of the transcript: the session-start hook records
 * it in to-session.json, and it is stamped onto the committed renders after a build. So, like the
 * hand-authored evidence contract, it lies outside the render digests: a render is sealed with
 * `to_session: pending` (payloads: `"to_session": null`) and `verify` checks a stamped value
 * against to-session.json instead (docs/FORMAT.md). Pure: texts in, texts out.
 */

export const PENDING = 'pending';

/**
 * A session id that may be recorded and written into the front matter: the UUID Claude Code and
 * Codex give a session. The hook reads it from the harness's input, with no redactor at hand (it
 * must start fast): an id of any other shape is not recorded, so a token passed as an id (a
 * `ghp_…`) never reaches the store.
 */
export const SUCCESSOR_ID_RE = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

export interface Successor {
  session: string;
  harness: string;
  /** Why the hook ran in the new session: startup or clear. */
  source: string;
  offered_at: string;
}

/** Where the front matter ends: the second `---` line, if the file starts with one. */
function frontMatterEnd(md: string): number {
  if (!md.startsWith('---\n')) return -1;
  const end = md.indexOf('\n---', 3);
  return end === -1 ? -1 : end;
}

const LINE_RE = /^to_session: (.*)$/m;

/** The id the front matter names (`pending` when none), or null without such a line. */
export function frontMatterToSession(md: string): string | null {
  const end = frontMatterEnd(md);
  if (end === -1) return null;
  const m = LINE_RE.exec(md.slice(0, end));
  if (!m) return null;
  const value = (m[1] ?? '').replace(/\s+#.*$/, '').trim();
  return value;
}

export function successorLine(s: Successor | null): string {
  if (s === null) return `to_session: ${PENDING}`;
  return `to_session: ${s.session}  # took this handoff over: offered ${s.offered_at} (${s.harness}, ${s.source}), recorded in to-session.json`;
}

/** HANDOFF.md with its `to_session` line set; null when it has none (not a handoff's front matter). */
export function withSuccessor(md: string, s: Successor | null): string | null {
  if (s !== null && !SUCCESSOR_ID_RE.test(s.session)) return null;
  const end = frontMatterEnd(md);
  if (end === -1) return null;
  const head = md.slice(0, end);
  if (!LINE_RE.test(head)) return null;
  return head.replace(LINE_RE, () => successorLine(s)) + md.slice(end);
}

/** HANDOFF.md as it was sealed: `to_session: pending`. */
export function sealedHandoffMd(md: string): string {
  return withSuccessor(md, null) ?? md;
}

type Payload = Record<string, unknown>;

const parse = (text: string): Payload | null => {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Payload) : null;
  } catch {
    return null;
  }
};

/**
 * Written as the payload was (core/render/index.ts): HANDOFF.summary.json as two-space JSON,
 * HANDOFF.llm.json compact, each with a final newline.
 */
const json = (v: unknown, like: string): string => `${like.startsWith('{\n') ? JSON.stringify(v, null, 2) : JSON.stringify(v)}\n`;

/**
 * A payload with its `to_session` set, or null when it has no such key (a payload of an older
 * version: the next build adds it).
 */
export function payloadWithSuccessor(text: string, s: Successor | null): string | null {
  const v = parse(text);
  if (v === null || !('to_session' in v)) return null;
  v.to_session = s === null ? null : { session: s.session, harness: s.harness, source: s.source, offered_at: s.offered_at, recorded_in: 'to-session.json' };
  return json(v, text);
}

/** A payload as it was sealed (`"to_session": null`): a stamped one is put back, the rest is unchanged. */
export function sealedPayload(text: string): string {
  if (!/"to_session": ?\{/.test(text)) return text;
  return payloadWithSuccessor(text, null) ?? text;
}

/** The session a payload names as its successor, or null. */
export function payloadToSession(text: string): string | null {
  const v = parse(text)?.to_session;
  return typeof v === 'object' && v !== null && typeof (v as Payload).session === 'string' ? ((v as Payload).session as string) : null;
}
