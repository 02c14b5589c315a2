import { createHash } from 'node:crypto';
import { MANIFEST_SHA_PLACEHOLDER } from '../core/render/index.js';
import { utf8 } from '../core/utf8.js';

/**
 * A render that names its own revision's manifest sha256, which depends on the render's digest
 * (docs/PROVENANCE.md): it is rendered with a random token where that sha256 goes, digested and
 * sized with MANIFEST_SHA_PLACEHOLDER there, and written with the sha256 there once the manifest
 * is sealed. The three are the same length in ASCII, so the text is encoded once and the token's
 * byte positions are overwritten in place: a payload of a few hundred kilobytes is not split,
 * joined and re-encoded three times on every refresh.
 */
export class Sealable {
  private readonly bytes: Buffer;
  private readonly at: number[] = [];

  constructor(text: string | Buffer, token: string) {
    if (token.length !== MANIFEST_SHA_PLACEHOLDER.length) throw new Error('the token must be as long as a sha256 in hex');
    this.bytes = typeof text === 'string' ? utf8(text) : text;
    for (let i = this.bytes.indexOf(token, 0, 'latin1'); i !== -1; i = this.bytes.indexOf(token, i + token.length, 'latin1')) this.at.push(i);
    this.put(MANIFEST_SHA_PLACEHOLDER);
  }

  /** Bytes on disk (the manifest's sha256 is as long as the placeholder). */
  get size(): number {
    return this.bytes.length;
  }

  /** sha256 with the placeholder in the manifest sha256's place. */
  digest(): string {
    return createHash('sha256').update(this.bytes).digest('hex');
  }

  /** The text with the placeholder in the manifest sha256's place. */
  text(): string {
    return this.bytes.toString('utf8');
  }

  /** The bytes to write, with the manifest's sha256 in its place (this render is done with after that). */
  fill(manifestSha: string): Buffer {
    this.put(manifestSha);
    return this.bytes;
  }

  private put(s: string): void {
    for (const i of this.at) this.bytes.write(s, i, 'latin1');
  }
}
