import type { Hash } from 'node:crypto';
import { createHash } from 'node:crypto';
import { closeSync, readSync } from 'node:fs';
import { hashPrefix, openRegularSync } from '../store/files.js';

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
  /** sha256 of the last TAIL_BYTES before `length`, for a file someone else writes (a transcript). */
  tail?: string;
}

/**
 * How much of a transcript before the offset read is compared again on every refresh. A file
 * rewritten in place with the same first bytes and a larger size (`cat new > file`, an editor's
 * save) looks like one that grew; its first kibibyte (the fingerprint) and its size say nothing,
 * and the whole prefix is hashed again only when the digest is not in memory. The bytes just
 * before the offset are where such a rewrite shows, for the price of one small read.
 */
const TAIL_BYTES = 4096;

function tailDigest(path: string, length: number): string | null {
  let fd: number | null = null;
  try {
    fd = openRegularSync(path);
    const n = Math.min(TAIL_BYTES, length);
    const buf = Buffer.allocUnsafe(n);
    const read = readSync(fd, buf, 0, n, length - n);
    return read === n ? createHash('sha256').update(buf).digest('hex') : null;
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
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
    if (hit && hit.length === length && hit.digest === expect && (hit.tail === undefined || tailDigest(path, length) === hit.tail)) return hit.hash.copy();
    const h = await hashPrefix(path, length);
    const digest = h.copy().digest('hex');
    if (digest !== expect) return null;
    return h;
  }

  /** `source`: the file is a transcript, whose bytes before `length` are checked again on resume (TAIL_BYTES). */
  remember(key: string, hash: Hash, length: number, digest: string, source?: string): void {
    this.map.delete(key);
    const tail = source === undefined ? null : tailDigest(source, length);
    this.map.set(key, tail === null ? { hash: hash.copy(), length, digest } : { hash: hash.copy(), length, digest, tail });
    if (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
  }

  forget(key: string): void {
    this.map.delete(key);
  }
}
