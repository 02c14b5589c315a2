import type { Hash } from 'node:crypto';
import { hashPrefix } from '../store/files.js';

/**
 * Running sha256 digests of append-only files (a session's source prefix, its TOOLS.md).
 * Node cannot persist a hash's internal state, so a digest lives in memory for as long as the
 * process does: a refresh then hashes only the new bytes. The first build of a session in a
 * process re-hashes the prefix once (a sequential read at native speed) and checks it against
 * the digest the manifest recorded — a mismatch means the file was rewritten under us.
 */

interface Running {
  hash: Hash;
  length: number;
  digest: string;
}

export class DigestCache {
  private readonly map = new Map<string, Running>();

  constructor(private readonly maxEntries = 4096) {}

  /**
   * A live hash of `path` at `length` bytes whose digest equals `expect`, or null when the
   * file's prefix no longer hashes to it.
   */
  async resume(key: string, path: string, length: number, expect: string): Promise<Hash | null> {
    const hit = this.map.get(key);
    if (hit && hit.length === length && hit.digest === expect) return hit.hash.copy();
    const h = await hashPrefix(path, length);
    const digest = h.copy().digest('hex');
    if (digest !== expect) return null;
    return h;
  }

  remember(key: string, hash: Hash, length: number, digest: string): void {
    this.map.delete(key);
    this.map.set(key, { hash: hash.copy(), length, digest });
    if (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
  }

  forget(key: string): void {
    this.map.delete(key);
  }
}
