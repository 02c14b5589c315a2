import type { ResolvedConfig } from '../config.js';
import type { SessionClaims } from './claims.js';
import { Redactor } from '../core/redact.js';
import { GitProbe } from '../git/evidence.js';
import { IndexStore } from '../store/index-store.js';
import { migrateLegacy } from '../store/index-file.js';
import { existsSync } from 'node:fs';
import { ensureDir, moveDir } from '../store/files.js';
import { Layout } from '../store/layout.js';
import { DigestCache } from './digests.js';
import { Engine } from './engine.js';

export interface EngineOptions {
  cacheSessions?: number;
  now?: () => Date;
  relinkNow?: (path: string) => boolean;
  /** The table of sessions being built shared with other engines of this process (claims.ts). */
  claims?: SessionClaims;
}

/** Repository evidence as the configuration asks for it (git.enabled, git.timeout_ms). */
export function gitProbe(config: ResolvedConfig): GitProbe {
  return new GitProbe({ enabled: config.options.git.enabled, timeoutMs: config.options.git.timeout_ms });
}

/**
 * Assembles an engine for a store: the one-shot CLI and the daemon build with the same parts.
 * Legacy session folders directly under the root are moved into projects/ first (SPEC §2).
 */
export async function openEngine(config: ResolvedConfig, opts: EngineOptions = {}): Promise<Engine> {
  const layout = new Layout(config.root);
  // A new store is private: handoffs quote sessions (credentials redacted, the rest verbatim).
  if (!existsSync(config.root)) await ensureDir(config.root, 0o700);
  const moved = await migrateLegacy(layout, moveDir);
  const index = await IndexStore.load(layout);
  if (moved.length > 0) await index.rebuild();
  return new Engine({
    config,
    layout,
    redactor: new Redactor(config.redactionPatterns),
    git: gitProbe(config),
    // Running digests of the sessions refreshed lately; others re-hash their prefix once when they next grow.
    digests: new DigestCache(512),
    index,
    now: opts.now ?? (() => new Date()),
    cacheSessions: opts.cacheSessions ?? 0,
    ...(opts.relinkNow ? { relinkNow: opts.relinkNow } : {}),
    ...(opts.claims ? { claims: opts.claims } : {}),
  });
}

export { Engine, taskMissed } from './engine.js';
export { BuildPool, workerCount } from './pool.js';
export type { PoolOutcome } from './pool.js';
export type { BuildRequest, BuildResult, SessionChange } from './types.js';
export { inodeKey, SessionClaims, sessionKey } from './claims.js';
