import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolvedConfig } from '../config.js';
import { ControlClient } from '../control/client.js';
import { describeError, HandoffError } from '../errors.js';
import type { IndexEntry } from '../store/index-file.js';
import { inThisStore } from '../store/index-file.js';
import { FILES, Layout } from '../store/layout.js';
import type { HookInput } from './input.js';

/**
 * What every hook shares: its input, its configuration, a clock that counts down the time
 * budget from the start of the process, and the store — through the daemon when one answers,
 * else read (and, for one small session, built) directly.
 */

/** Without a daemon, a session is built in the hook only when this little of it is unread. */
export const DIRECT_BUILD_MAX_BYTES = 2 * 1024 * 1024;
/** Time kept back from a daemon call for reading the handoff and printing the answer. */
const ANSWER_MARGIN_MS = 40;

export type HookHarness = 'claude' | 'codex';

export interface HookContext {
  config: ResolvedConfig;
  /**
   * Whether the hook may write the store itself: only when nothing listens on the socket. A
   * daemon that is there but slow to answer still owns the store (one writer), so then the hook
   * only reads.
   */
  direct: boolean;
  input: HookInput;
  harness: HookHarness;
  now: Date;
  /** Milliseconds left of the time budget (negative once spent). */
  remaining(): number;
  /** A problem worth telling: to stderr, which harnesses show only in their debug views. */
  warn(message: string): void;
}

/**
 * The budget's clock, counted from `originMs` on performance.now()'s clock: 0 is the start of the
 * process, so Node's own start-up counts too when a harness runs the hook.
 */
export function budgetClock(budgetMs: number, originMs: number): () => number {
  return () => budgetMs - (performance.now() - originMs);
}

/** Connecting and saying hello get at least this long, even when Node's start-up took the budget. */
const MIN_CONNECT_MS = 30;

export interface DaemonLink {
  client: ControlClient | null;
  /** Nothing listens on the socket: the hook may build and write itself. */
  absent: boolean;
}

/** The daemon of this store, if one answers within the budget. */
export async function connectDaemon(ctx: Pick<HookContext, 'config' | 'remaining' | 'warn'>): Promise<DaemonLink> {
  const wait = (): number => Math.max(MIN_CONNECT_MS, Math.min(200, ctx.remaining() - ANSWER_MARGIN_MS));
  let c: ControlClient;
  try {
    c = await ControlClient.connect(ctx.config.socketPath, wait());
  } catch (e) {
    if (e instanceof HandoffError && e.code === 'HANDOFF_ERR_NO_DAEMON') return { client: null, absent: true };
    ctx.warn(`the daemon did not answer (${describeError(e)}); only reading the store`);
    return { client: null, absent: false };
  }
  try {
    const hello = await c.call('hello', undefined, wait());
    if (hello.root === ctx.config.root) return { client: c, absent: false };
    ctx.warn(`the daemon on ${ctx.config.socketPath} serves ${hello.root}, not ${ctx.config.root}; only reading the store`);
  } catch (e) {
    ctx.warn(`the daemon did not answer hello (${describeError(e)}); only reading the store`);
  }
  c.close();
  return { client: null, absent: false };
}

/** Time for one daemon call: what the budget has left, less the time the answer needs. */
export function callTimeout(ctx: HookContext): number {
  return Math.max(1, ctx.remaining() - ANSWER_MARGIN_MS);
}

/**
 * With no daemon, a hook writes the store itself: it holds the store's writer lock until it
 * is done (daemon/writer-lock.ts), and waits for another command that holds it within half of
 * what is left of its budget. Null (warned) when it did not get it: nothing is written.
 */
export async function holdWriter(ctx: HookContext): Promise<{ release(): void } | null> {
  const { WriterLock } = await import('../daemon/writer-lock.js');
  try {
    return await WriterLock.acquire(new Layout(ctx.config.root).writerLock, `a ${ctx.harness} hook`, { daemon: false, waitMs: callTimeout(ctx) / 2 });
  } catch (e) {
    ctx.warn(`the store was not written: ${describeError(e)}`);
    return null;
  }
}

/**
 * INDEX.json as the last flush left it. Read here rather than through the store's index module,
 * which brings the store's writers along: a status-line refresh only reads.
 */
export async function readIndexFile(config: ResolvedConfig): Promise<IndexEntry[]> {
  const layout = new Layout(config.root);
  const data = await readJson(layout.index);
  if (!Array.isArray(data)) return [];
  return (data as IndexEntry[]).filter((e) => e !== null && typeof e === 'object' && typeof e.id === 'string' && typeof e.dir === 'string').map((e) => inThisStore(layout, e));
}

/** The session a hook's input names: by its transcript, else by the harness's session id. */
export function findEntry(entries: readonly IndexEntry[], input: HookInput): IndexEntry | null {
  const byPath = input.transcriptPath === null ? undefined : entries.find((e) => e.source?.path === input.transcriptPath);
  if (byPath) return byPath;
  if (input.sessionId === null) return null;
  return entries.find((e) => e.parent_session === null && (e.uuid === input.sessionId || e.id === input.sessionId)) ?? null;
}

/** The session through the daemon's index (current to the last build) or INDEX.json. */
export async function locate(ctx: HookContext, daemon: ControlClient | null): Promise<IndexEntry | null> {
  if (daemon && ctx.input.sessionId !== null) {
    try {
      const got = await daemon.call('session.get', { id: ctx.input.sessionId }, callTimeout(ctx));
      const e = got.session as IndexEntry;
      if (ctx.input.transcriptPath === null || e.source?.path === ctx.input.transcriptPath) return e;
    } catch {
      // Not known by that id (a subagent, a Codex id): the index file is searched below.
    }
  }
  return findEntry(await readIndexFile(ctx.config), ctx.input);
}

export interface Payloads {
  summary: unknown;
  llm: unknown;
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

export async function readSummary(dir: string): Promise<unknown> {
  return readJson(join(dir, FILES.summary));
}

export async function readPayloads(dir: string): Promise<Payloads> {
  const [summary, llm] = await Promise.all([readJson(join(dir, FILES.summary)), readJson(join(dir, FILES.llm))]);
  return { summary, llm };
}

export interface CaughtUp {
  dir: string;
  session: string;
  /** Why the handoff may lag the transcript, when it does. */
  stale: string | null;
}

/**
 * Brings the session's handoff up to the transcript's last complete line: the daemon builds it
 * now (its queue keeps the single-writer rule); without a daemon it is built here when little is
 * unread, else left as it is (null when there is none). A daemon that is too slow leaves the last
 * handoff on disk, marked stale.
 */
export async function catchUp(ctx: HookContext, daemon: ControlClient | null): Promise<CaughtUp | null> {
  const path = ctx.input.transcriptPath ?? (await locate(ctx, daemon))?.source?.path ?? null;
  if (path === null) {
    ctx.warn('the hook input names no transcript and no session of the store matches its session id');
    return null;
  }
  if (daemon) {
    try {
      const r = await daemon.call('build', { path }, callTimeout(ctx));
      return { dir: String(r.dir), session: String(r.session), stale: null };
    } catch (e) {
      const known = await locate(ctx, daemon);
      if (!known) {
        ctx.warn(`the daemon could not build ${path}: ${describeError(e)}`);
        return null;
      }
      return { dir: known.dir, session: known.id, stale: `handoffd could not read the newest lines of the transcript in time (${describeError(e)}); facts after revision ${known.revisions} may be missing.` };
    }
  }
  if (!ctx.direct) {
    const known = await locate(ctx, null);
    return known ? { dir: known.dir, session: known.id, stale: `the daemon was too busy to read the newest lines of the transcript; facts after revision ${known.revisions} may be missing.` } : null;
  }
  return buildDirectly(ctx, path);
}

async function buildDirectly(ctx: HookContext, path: string): Promise<CaughtUp | null> {
  const entry = findEntry(await readIndexFile(ctx.config), { ...ctx.input, transcriptPath: path });
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (e) {
    ctx.warn(`cannot read the transcript ${path}: ${describeError(e)}`);
    return entry ? { dir: entry.dir, session: entry.id, stale: 'the transcript could not be read; this is its last handoff.' } : null;
  }
  const unread = size - (entry?.source?.path === path ? entry.source.offset : 0);
  if (unread > DIRECT_BUILD_MAX_BYTES) {
    ctx.warn(`no daemon is running and ${Math.round(unread / 1024)} KB of ${path} are unread (more than a hook builds in its time budget); start the daemon (\`handoff daemon\` or \`handoff service install\`)`);
    return null;
  }
  const writer = await holdWriter(ctx);
  if (writer === null) return entry ? { dir: entry.dir, session: entry.id, stale: 'another handoff command was writing the store; this is its last handoff.' } : null;
  let r;
  try {
    // Loaded only here: the engine is most of the CLI's start-up time.
    const { openEngine } = await import('../engine/index.js');
    const engine = await openEngine(ctx.config);
    r = await engine.build({ source: path });
    await engine.index.flush({ enabled: ctx.config.options.linking.enabled, minScore: ctx.config.options.linking.min_overlap_score });
  } finally {
    writer.release();
  }
  const stale = r.corrupt ? `the transcript has a corrupt line (${r.corrupt.message}); the handoff stops before it.` : null;
  return { dir: r.dir, session: r.session, stale };
}
