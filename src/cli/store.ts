import type { ResolvedConfig } from '../config.js';
import { resolveConfig } from '../config.js';
import type { Engine } from '../build/index.js';
import { openEngine } from '../build/index.js';
import type { IndexEntry } from '../store/index-file.js';
import type { IndexStore } from '../store/index-store.js';
import type { Parsed } from './args.js';
import { list, str } from './args.js';
import type { Io } from './io.js';

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
