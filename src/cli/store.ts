import type { ResolvedConfig } from '../config.js';
import { resolveConfig } from '../config.js';
import type { Engine } from '../engine/index.js';
import { openEngine } from '../engine/index.js';
import { WriterLock } from '../daemon/writer-lock.js';
import type { IndexEntry } from '../store/index-file.js';
import type { IndexStore } from '../store/index-store.js';
import { resolveIn } from '../store/index-store.js';
import { Layout } from '../store/layout.js';
import type { Parsed } from './args.js';
import { list, str } from './args.js';
import type { Command } from './command.js';
import { daemonIfRunning } from './daemon-link.js';
import type { Io } from './io.js';
import { UsageError } from '../errors.js';

/** The store a command works on, resolved from --root, the environment and config. */
export function loadConfig(io: Io, args: Parsed, watch?: boolean): ResolvedConfig {
  return resolveConfig({ cwd: io.cwd, env: io.env, rootFlag: str(args, 'root'), watchFlags: watch ? list(args, 'watch') : undefined });
}

/** How long a command waits for another one-shot command that writes the store (a backfill takes minutes). */
const WRITER_WAIT_MS = 10 * 60_000;

/**
 * The engine of a command that writes the store itself, no daemon running, and the store's writer
 * lock it holds meanwhile (daemon/writer-lock.ts): released by the command when it is done (at
 * the latest when the process exits); another command that holds it is waited for.
 */
export async function openWriter(io: Pick<Io, 'err'>, config: ResolvedConfig, what: string, waitMs = WRITER_WAIT_MS): Promise<{ engine: Engine; writer: WriterLock }> {
  const writer = await WriterLock.acquire(new Layout(config.root).writerLock, what, {
    daemon: false,
    waitMs,
    onWait: (h) => io.err(`handoff: waiting for ${h.what} (pid ${h.pid}) to finish writing the store\n`),
  });
  try {
    return { engine: await openEngine(config), writer };
  } catch (e) {
    writer.release();
    throw e;
  }
}

export async function openStore(io: Io, args: Parsed): Promise<{ config: ResolvedConfig; engine: Engine }> {
  const config = loadConfig(io, args);
  return { config, engine: await openEngine(config) };
}

export async function flushIndex(config: ResolvedConfig, index: IndexStore): Promise<void> {
  await index.flush({ enabled: config.options.linking.enabled, minScore: config.options.linking.min_overlap_score });
}

/** The session an id prefix names (see IndexStore.resolve). */
export function resolvePrefix(index: IndexStore, prefix: string, root: string): IndexEntry {
  return index.resolve(prefix, root);
}

/** The command's one id-prefix argument (`maxArgs` refuses more), or a usage error. */
export function requirePrefix(args: Parsed, command: Pick<Command, 'name' | 'usage'>): string {
  const prefix = args.positionals[0];
  if (prefix === undefined) throw new UsageError(`handoff ${command.name}: expected an id prefix`, { hint: `usage: ${command.usage}` });
  return prefix;
}

/**
 * Every session of the store. While a daemon runs, as the daemon knows them: its index follows
 * each build and each rename at once, where INDEX.json on disk may lag by up to a second (a
 * `show` right after `retitle` would find the old folder gone).
 */
export async function listSessions(io: Io, args: Parsed): Promise<{ config: ResolvedConfig; entries: IndexEntry[]; viaDaemon: boolean }> {
  const config = loadConfig(io, args);
  const daemon = await daemonIfRunning(config);
  if (daemon) {
    try {
      return { config, entries: (await daemon.call('sessions.list', undefined, 0)) as IndexEntry[], viaDaemon: true };
    } finally {
      daemon.close();
    }
  }
  return { config, entries: (await openEngine(config)).index.all(), viaDaemon: false };
}

/** The store and the session a command's id-prefix argument names (through the daemon when it runs). */
export async function openSession(io: Io, args: Parsed, command: Pick<Command, 'name' | 'usage'>): Promise<{ config: ResolvedConfig; entry: IndexEntry }> {
  const prefix = requirePrefix(args, command);
  return findSession(io, args, prefix);
}

export async function findSession(io: Io, args: Parsed, prefix: string): Promise<{ config: ResolvedConfig; entry: IndexEntry }> {
  const config = loadConfig(io, args);
  const daemon = await daemonIfRunning(config);
  if (daemon) {
    try {
      return { config, entry: (await daemon.call('session.get', { id: prefix }, 0)).session as IndexEntry };
    } finally {
      daemon.close();
    }
  }
  const engine = await openEngine(config);
  return { config, entry: await engine.current(resolveIn(engine.index.all(), prefix, config.root)) };
}
