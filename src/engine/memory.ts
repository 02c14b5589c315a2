import type { Hash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionState } from '../core/state.js';
import { readRegularText } from '../store/files.js';
import { FILES } from '../store/layout.js';
import type { Manifest } from '../store/manifest.js';
import { manifestDamage } from '../store/manifest.js';
import type { DigestCache } from './digests.js';
import type { LoadedSession } from './session.js';
import { loadSession, readState } from './session.js';

/**
 * What an engine keeps between builds, so a refresh of a hot session reads only its new bytes:
 * which folder a transcript builds into, the last committed manifest and state of the sessions
 * refreshed lately (a bounded LRU), and their running digests (DigestCache).
 *
 * A cached state is handed over, not copied: load() takes it out of the cache (the build folds
 * into it in place), and only a commit (remember) or a build that folded nothing (keep) puts it
 * back. A build that fails half-way leaves nothing in memory, so the next one reads the committed
 * state from disk. Copying instead cost two deep copies of the whole state per refresh, the
 * largest cost of a refresh on a long session (docs/PERFORMANCE.md).
 */
export class EngineMemory {
  /** path → session directory, learned once per process so a refresh needs no peek. */
  private readonly located = new Map<string, string>();
  private readonly cache = new Map<string, { manifest: Manifest; state: SessionState; stamp: string | null }>();

  constructor(
    private readonly digests: DigestCache,
    private readonly size: number,
  ) {}

  dirOf(path: string): string | undefined {
    return this.located.get(path);
  }

  locatedAt(path: string, dir: string): void {
    this.located.set(path, dir);
  }

  /** Forgets what is held about a path or a session directory. */
  forget(pathOrDir: string): void {
    const dir = this.located.get(pathOrDir) ?? pathOrDir;
    this.located.delete(pathOrDir);
    this.cache.delete(dir);
  }

  /** The committed manifest of a folder (null when it holds none, or an unreadable one). */
  async manifestOf(dir: string): Promise<Manifest | null> {
    const hit = this.fresh(dir);
    if (hit) return hit.manifest;
    try {
      const m: unknown = JSON.parse(await readRegularText(join(dir, FILES.manifest)));
      return manifestDamage(m) === null ? (m as Manifest) : null;
    } catch {
      return null;
    }
  }

  /**
   * A session as its last commit left it: from memory when hot (taken out of the cache: the
   * caller owns the state now), else from disk (session.ts).
   */
  async load(dir: string): Promise<LoadedSession> {
    const hit = this.fresh(dir);
    if (hit) {
      this.cache.delete(dir);
      return { dir, manifest: hit.manifest, state: hit.state, dirty: false, resetPending: false, pendingChange: null, damaged: null, behind: null };
    }
    return loadSession(dir);
  }

  /**
   * Another session's committed state, to read and not to change: from memory when hot (left
   * there), else from disk with nothing cut back or swept (that is its own build's to do). Null
   * when it has none that can be read; a session building right now gives its last commit's.
   */
  async peekState(dir: string): Promise<SessionState | null> {
    const hit = this.fresh(dir);
    if (hit) return hit.state;
    const m = await this.manifestOf(dir);
    return m === null ? null : readState(dir, m);
  }

  /** A state taken by load() that the build left as committed (it folded nothing): back in the cache. */
  keep(dir: string, manifest: Manifest, state: SessionState): void {
    this.put(dir, manifest, state);
  }

  /** After a commit: the folder, the state (handed over: the build is done with it) and the running digest of the bytes read. */
  remember(path: string | null, dir: string, manifest: Manifest, state: SessionState, hash: Hash | null, offset: number, rawSha: string): void {
    if (path !== null) this.located.set(path, dir);
    if (hash !== null) this.digests.remember(`${dir}\0raw`, hash, offset, rawSha, path ?? undefined);
    this.put(dir, manifest, state);
  }

  /**
   * What memory holds of a folder, while its manifest on disk is still the one this process
   * committed (the same file, size and time): a session folder restored from a backup, or
   * written by another process, holds another, and what memory holds of it is dropped, so the
   * build starts from what the folder says (and reads again what the folder lacks) rather than
   * appending to it turns past a gap.
   */
  private fresh(dir: string): { manifest: Manifest; state: SessionState } | undefined {
    const hit = this.cache.get(dir);
    if (hit === undefined) return undefined;
    if (manifestStamp(dir) === hit.stamp && appendedAsCommitted(dir, hit.manifest)) return hit;
    this.cache.delete(dir);
    return undefined;
  }

  /** `state` is the cache's from here on: nothing else may change it. */
  private put(dir: string, manifest: Manifest, state: SessionState): void {
    if (this.size <= 0) return;
    this.cache.delete(dir);
    this.cache.set(dir, { manifest, state, stamp: manifestStamp(dir) });
    if (this.cache.size > this.size) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }
}

/**
 * Whether timeline.jsonl and TOOLS.md hold what the manifest commits to: cut short or grown by
 * something else since (a hand, a restore), the session is opened from the folder again, whose
 * checks set it aside and rebuild it rather than append past a gap (the eleventh chaos test: a
 * timeline five lines short was appended to, and `verify` failed from then on).
 */
function appendedAsCommitted(dir: string, m: Manifest): boolean {
  const size = (file: string): number => {
    try {
      return statSync(join(dir, file)).size;
    } catch {
      return 0;
    }
  };
  return size(FILES.timeline) === m.timeline_bytes && size(FILES.tools) === m.tools_bytes;
}

/** manifest.json's identity on disk: inode, size and modification time (null when there is none). */
function manifestStamp(dir: string): string | null {
  try {
    const st = statSync(join(dir, FILES.manifest));
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return null;
  }
}
