import type { ControlClient } from '../control/client.js';
import { describeError } from '../errors.js';
import type { HookContext } from './context.js';
import { callTimeout, catchUp, holdWriter } from './context.js';

/**
 * `handoff hook pre-compact`: before the harness compacts, the handoff is brought up to the last
 * line and copied into history/ as a checkpoint, so the state before the compaction is kept
 * whatever the summary after it says. It adds nothing to the conversation (PreCompact cannot).
 * Returns the history file written, or null.
 */
export async function preCompact(ctx: HookContext, daemon: ControlClient | null): Promise<string | null> {
  if (!ctx.config.options.hooks.checkpoint_before_compact) return null;
  if (!daemon && !ctx.direct) {
    ctx.warn('pre-compact: the daemon did not answer in time; no checkpoint (it alone writes the store while it runs)');
    return null;
  }
  const at = await catchUp(ctx, daemon);
  if (!at) return null;
  const note = `before a${ctx.input.trigger === 'auto' ? 'n automatic' : ctx.input.trigger === 'manual' ? ' requested' : ''} compaction (${ctx.harness} PreCompact hook)`;
  if (daemon) {
    try {
      const r = await daemon.call('checkpoint', { id: at.session, note }, callTimeout(ctx));
      const h = r.history as { file?: string } | null | undefined;
      return h?.file ?? null;
    } catch (e) {
      ctx.warn(`pre-compact: the daemon did not write the checkpoint: ${describeError(e)}`);
      return null;
    }
  }
  const writer = await holdWriter(ctx);
  if (writer === null) return null;
  try {
    const { openEngine } = await import('../engine/index.js');
    const engine = await openEngine(ctx.config);
    const r = await engine.update(at.dir, { history: { kind: 'checkpoint', reason: 'pre-compact hook', note } });
    await engine.index.flush({ enabled: ctx.config.options.linking.enabled, minScore: ctx.config.options.linking.min_overlap_score });
    return r.history?.file ?? null;
  } finally {
    writer.release();
  }
}
