import type { ControlClient } from '../control/client.js';
import { isObj, num, str } from '../core/harness/extract.js';
import type { DaemonState, StatusLineState } from '../core/statusline.js';
import { describeError, HandoffError } from '../errors.js';
import type { IndexEntry } from '../store/index-file.js';
import type { HookContext } from './context.js';
import { callTimeout, findEntry, readIndexFile, readSummary } from './context.js';

/**
 * `handoff hook statusline`: what the daemon knows of this session, for Claude Code's status
 * line. Read-only and quick: one `session.get` on the socket, or INDEX.json without a daemon.
 */

function facts(entry: IndexEntry | null, summary: unknown, daemon: DaemonState): StatusLineState {
  const s = isObj(summary) ? summary : {};
  const c = isObj(s.context) ? s.context : {};
  const prov = isObj(s.provenance) ? s.provenance : {};
  return {
    kind: 'session',
    facts: {
      level: str(c.level) ?? entry?.pressure ?? 'unknown',
      used: num(c.used) ?? null,
      limit: num(c.limit) ?? null,
      ratio: num(c.ratio) ?? null,
      revision: num(prov.revision) ?? entry?.revisions ?? null,
      transferReady: typeof s.transfer_ready === 'boolean' ? s.transfer_ready : (entry?.transfer_ready ?? null),
      daemon,
    },
  };
}

export async function statusLineState(ctx: HookContext, daemon: ControlClient | null): Promise<StatusLineState> {
  if (ctx.input.sessionId === null && ctx.input.transcriptPath === null) return { kind: 'unavailable', why: 'no session in the status line input' };
  if (daemon && ctx.input.sessionId !== null) {
    try {
      const got = await daemon.call('session.get', { id: ctx.input.sessionId }, callTimeout(ctx));
      const e = got.session as IndexEntry;
      if (ctx.input.transcriptPath === null || e.source?.path === ctx.input.transcriptPath) return facts(e, got.summary, 'live');
    } catch (e) {
      if (!(e instanceof HandoffError) || e.code !== 'HANDOFF_ERR_NOT_FOUND') return { kind: 'unavailable', why: `daemon: ${describeError(e).slice(0, 60)}` };
    }
  }
  const state: DaemonState = daemon ? 'live' : ctx.direct ? 'off' : 'busy';
  const entry = findEntry(await readIndexFile(ctx.config), ctx.input);
  if (!entry) return { kind: 'not-built', daemon: state };
  return facts(entry, await readSummary(entry.dir), state);
}
