import type { ResolvedConfig } from '../config.js';
import { resolveConfig } from '../config.js';
import type { Engine } from '../build/index.js';
import { openEngine } from '../build/index.js';
import type { IndexEntry } from '../store/index-file.js';
import type { IndexStore } from '../store/index-store.js';
import type { Parsed } from './args.js';
import { list, str } from './args.js';
import type { Command } from './command.js';
import type { Io } from './io.js';
import { UsageError } from '../errors.js';

/** The store a command works on, resolved from --root, the environment and config. */
export function loadConfig(io: Io, args: Parsed, watch?: boolean): ResolvedConfig {
  return resolveConfig({ cwd: io.cwd, env: io.env, rootFlag: str(args, 'root'), watchFlags: watch ? list(args, 'watch') : undefined });
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

/** The store and the session a command's id-prefix argument names. */
export async function openSession(io: Io, args: Parsed, command: Pick<Command, 'name' | 'usage'>): Promise<{ config: ResolvedConfig; engine: Engine; entry: IndexEntry }> {
  const prefix = requirePrefix(args, command);
  const { config, engine } = await openStore(io, args);
  return { config, engine, entry: resolvePrefix(engine.index, prefix, config.root) };
}
