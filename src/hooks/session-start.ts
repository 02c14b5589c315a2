import { join } from 'node:path';
import type { ControlClient } from '../control/client.js';
import { buildDigest } from '../core/digest.js';
import { SUCCESSOR_ID_RE } from '../core/successor.js';
import { isObj, num, str } from '../core/harness/extract.js';
import { describeError } from '../errors.js';
import type { IndexEntry } from '../store/index-file.js';
import { FILES } from '../store/layout.js';
import type { HookContext } from './context.js';
import { callTimeout, catchUp, readIndexFile, readPayloads, readSummary } from './context.js';

/**
 * `handoff hook session-start`: what a session is told when it starts. After a compaction (and
 * on resuming a compacted session) it gets its own handoff back, as a digest within the token
 * budget; a new or cleared session is offered the project's latest handoff that nobody has taken
 * over. Returns the additional context, or null for none.
 */

/** How many of the project's most recent sessions are looked at for an offer. */
const OFFER_CANDIDATES = 5;

export async function sessionStart(ctx: HookContext, daemon: ControlClient | null): Promise<string | null> {
  const source = ctx.input.source ?? 'startup';
  if (source === 'compact' || source === 'resume') return giveBack(ctx, daemon, source);
  if (source === 'startup' || source === 'clear') return offer(ctx, daemon, source);
  ctx.warn(`session-start: unknown source "${source}"; nothing to add`);
  return null;
}

function compactions(summary: unknown): number {
  const c = isObj(summary) && isObj(summary.context) ? summary.context : {};
  return num(c.compactions) ?? (c.compacted === true ? 1 : 0);
}

async function giveBack(ctx: HookContext, daemon: ControlClient | null, source: 'compact' | 'resume'): Promise<string | null> {
  if (ctx.config.options.hooks.on_compact === 'never') return null;
  const at = await catchUp(ctx, daemon);
  if (!at) return null;
  const { summary, llm } = await readPayloads(at.dir);
  if (summary === null) {
    ctx.warn(`session-start: ${join(at.dir, FILES.summary)} is missing or not JSON; nothing to add`);
    return null;
  }
  // A resumed session that never compacted has its whole conversation back already.
  if (source === 'resume' && compactions(summary) === 0) return null;
  const digest = buildDigest(summary, llm, { budgetTokens: ctx.config.options.hooks.token_budget, handoffPath: join(at.dir, FILES.handoff), reason: source, stale: at.stale });
  return digest.text;
}

async function projectEntries(ctx: HookContext, daemon: ControlClient | null, project: string): Promise<IndexEntry[]> {
  if (daemon) {
    try {
      return (await daemon.call('sessions.list', { project }, callTimeout(ctx))) as IndexEntry[];
    } catch (e) {
      ctx.warn(`session-start: the daemon did not list the sessions (${describeError(e)}); reading INDEX.json`);
    }
  }
  return (await readIndexFile(ctx.config)).filter((e) => e.project === project);
}

/** When the session was last active: its transcript's last write (a rebuild is not activity). */
function activeAt(e: IndexEntry): number {
  return e.source?.mtime_ms ?? Date.parse(e.updated);
}

function isMine(e: IndexEntry, ctx: HookContext): boolean {
  const { sessionId, transcriptPath } = ctx.input;
  return (sessionId !== null && (e.id === sessionId || e.uuid === sessionId)) || (transcriptPath !== null && e.source?.path === transcriptPath);
}

async function offer(ctx: HookContext, daemon: ControlClient | null, source: string): Promise<string | null> {
  if (ctx.config.options.hooks.on_start === 'never') return null;
  const cwd = ctx.input.cwd;
  if (cwd === null) return null;
  // Loaded here, not with the module: the digest after a compaction needs none of them, and each
  // module a hook loads is paid on every run (git's brings node:child_process along).
  const [{ GitProbe }, { inferProject }, { offerText }, { readToSession, recordOffer, stampSuccessor, takenBy }] = await Promise.all([
    import('../git/evidence.js'),
    import('../engine/identity.js'),
    import('../core/offer.js'),
    import('../store/to-session.js'),
  ]);
  const git = new GitProbe({ enabled: ctx.config.options.git.enabled, timeoutMs: Math.max(1, Math.floor(Math.min(ctx.config.options.git.timeout_ms, ctx.remaining()))) });
  const { project } = await inferProject(undefined, cwd, ctx.input.transcriptPath ?? cwd, git);
  const top = await git.topLevel(cwd);
  const oldest = ctx.now.getTime() - ctx.config.options.hooks.offer_max_age_h * 3_600_000;
  const recent = (await projectEntries(ctx, daemon, project))
    .filter((e) => e.parent_session === null && e.turns > 0 && !isMine(e, ctx) && activeAt(e) >= oldest)
    .sort((a, b) => activeAt(b) - activeAt(a))
    .slice(0, OFFER_CANDIDATES);
  for (const e of recent) {
    const taken = await takenBy(await readToSession(e.dir));
    if (taken && taken.session !== ctx.input.sessionId) {
      // With no daemon this hook is the store's writer: the successor goes into that handoff now.
      if (ctx.direct) await stampSuccessor(e.dir).catch((err: unknown) => ctx.warn(`session-start: could not record ${taken.session} as the successor in ${e.dir}: ${describeError(err)}`));
      continue;
    }
    const summary = await readSummary(e.dir);
    // Two repositories with the same folder name share a project slug; only this one's sessions count.
    const repo = isObj(summary) && isObj(summary.git) ? str(summary.git.repo) : undefined;
    if (top !== null && repo !== undefined && repo !== top) continue;
    if (ctx.input.sessionId !== null && SUCCESSOR_ID_RE.test(ctx.input.sessionId)) {
      try {
        await recordOffer(e.dir, e.id, { session: ctx.input.sessionId, harness: ctx.harness, transcript_path: ctx.input.transcriptPath, source, offered_at: ctx.now.toISOString() });
      } catch (err) {
        ctx.warn(`session-start: could not record the offer in ${e.dir}: ${describeError(err)}`);
      }
    }
    return offerText({ id: e.id, harness: e.harness, project: e.project, turns: e.turns, updated: new Date(activeAt(e)).toISOString(), transferReady: e.transfer_ready, handoffPath: join(e.dir, FILES.handoff), summary }, ctx.now);
  }
  return null;
}
