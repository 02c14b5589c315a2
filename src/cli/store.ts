import type { ResolvedConfig } from '../config.js';
import { resolveConfig } from '../config.js';
import type { Engine } from '../build/index.js';
import { openEngine } from '../build/index.js';
import { AmbiguousPrefixError, NotFoundError } from '../errors.js';
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

/**
 * The session an id prefix names. An exact id wins; otherwise the prefix must match exactly one
 * session id, native uuid or folder name.
 */
export function resolvePrefix(index: IndexStore, prefix: string, root: string): IndexEntry {
  const all = index.all();
  if (all.length === 0) {
    throw new NotFoundError(`no handoffs in ${root}`, { hint: 'build one with `handoff build <transcript>` or start the daemon with `npm start`' });
  }
  const exact = index.get(prefix);
  if (exact) return exact;
  const base = (e: IndexEntry): string => e.dir.split('/').pop() ?? '';
  const matches = all.filter((e) => e.id.startsWith(prefix) || (e.uuid ?? '').startsWith(prefix) || base(e).startsWith(prefix));
  if (matches.length === 1) return matches[0] as IndexEntry;
  if (matches.length === 0) {
    throw new NotFoundError(`no session matches "${prefix}" in ${root}`, { hint: '`handoff list` shows every session id' });
  }
  const shown = matches
    .slice(0, 8)
    .map((e) => `${e.project}/${e.id}`)
    .join(', ');
  throw new AmbiguousPrefixError(`"${prefix}" matches ${matches.length} sessions: ${shown}${matches.length > 8 ? ', …' : ''}`, {
    hint: 'give more characters of the session id',
  });
}
