import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MANIFEST_SHA_PLACEHOLDER } from '../../src/core/render/index.js';
import { utf8 } from '../../src/core/utf8.js';
import { Sealable } from '../../src/engine/sealable.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('a render sealed with its manifest sha256', () => {
  const token = 'ab'.repeat(32);
  const manifestSha = 'cd'.repeat(32);
  // Multi-byte characters before and between the places, and a literal placeholder that is content.
  const text = `漢字 ✓ 🙂 {"manifest_sha256":"${token}","note":"${MANIFEST_SHA_PLACEHOLDER}"}\n- manifest sha256: \`${token}\`\n`;

  it('is digested and sized with the placeholder in the sha256 places, and written with the sha256 there', () => {
    const s = new Sealable(text, token);
    const blank = text.split(token).join(MANIFEST_SHA_PLACEHOLDER);
    expect(s.digest()).toBe(sha(blank));
    expect(s.size).toBe(Buffer.byteLength(blank));
    expect(s.text()).toBe(blank);
    expect(s.fill(manifestSha).toString('utf8')).toBe(text.split(token).join(manifestSha));
  });

  it('leaves a placeholder that is part of the content where it is', () => {
    const filled = new Sealable(text, token).fill(manifestSha).toString('utf8');
    expect(filled).toContain(`"note":"${MANIFEST_SHA_PLACEHOLDER}"`);
    expect(filled).not.toContain(token);
  });
});

describe('utf8', () => {
  it('gives the bytes Buffer.from gives, lone surrogates and all', () => {
    for (const s of ['', 'ascii only', 'latin-1 é ß', '漢字 and 🙂', 'lone \ud800 high, lone \udc00 low, end \ud83d', 'x'.repeat(100_000) + '✓']) {
      expect(utf8(s).equals(Buffer.from(s, 'utf8'))).toBe(true);
    }
  });
});
