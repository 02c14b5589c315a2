import type { GitEvidence } from '../core/evidence.js';
import { BACKFILL_REUSE_MS } from '../git/evidence.js';
import type { Ctx, EngineDeps } from './types.js';

/**
 * A build's git evidence, asked for once: as soon as the read learns the session's folder
 * (fold.ts), so that git's processes run while the rest of the transcript is read, or by the
 * commit when the folder was learned later or has changed since.
 */

/** A backfill of sessions that ended long ago may reuse a capture for longer. */
const reuseOf = (ctx: Ctx): number | undefined => (ctx.req.backfill === true ? BACKFILL_REUSE_MS : undefined);

/** Starts the capture of `cwd` for this build. It never rejects: a failure is captured again by `gitOf`. */
export function askGit(deps: EngineDeps, ctx: Ctx, cwd: string): void {
  ctx.git = {
    cwd,
    evidence: deps.git.capture(cwd, reuseOf(ctx)).then(
      (ev) => ev,
      () => null,
    ),
  };
}

/** The evidence for the folder the commit names: the capture already under way when it is that folder's. */
export async function gitOf(deps: EngineDeps, ctx: Ctx, cwd: string | null): Promise<GitEvidence> {
  if (cwd !== null && ctx.git?.cwd !== cwd) askGit(deps, ctx, cwd);
  const early = cwd === null ? null : await ctx.git?.evidence;
  // No folder, or the capture failed: asked again here, where a failure is the commit's.
  return early ?? (await deps.git.capture(cwd, reuseOf(ctx)));
}
