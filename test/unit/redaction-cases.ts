import { describe, expect, it } from 'vitest';
import { stripControls } from '../../src/core/control-chars.js';
import { Redactor } from '../../src/core/redact.js';

/** The red teams' case tables (redaction-ninth.test.ts, redaction-tenth.test.ts): what a text keeps after redaction. */

const r = new Redactor();

export const kept = (text: string): string => r.redact(stripControls(text)).text;

/** One test per case `[what, text, secret]`: the secret is not in what the text keeps. */
export function removesEach(cases: ReadonlyArray<readonly [string, string, string]>): void {
  it.each(cases)('%s', (_what, text, secret) => {
    expect(kept(text)).not.toContain(secret);
  });
}

/** One test per case `[what, text]`: the text is kept as it is. */
export function keepsEach(cases: ReadonlyArray<readonly [string, string]>): void {
  it.each(cases)('keeps %s', (_what, text) => {
    expect(kept(text)).toBe(text);
  });
}

/** Each case as it is, and again as a JSON string's content (the secret then as JSON escapes it: a Codex call's output, a tool result printed as JSON). */
export function removesEachAlsoInJson(cases: ReadonlyArray<readonly [string, string, string]>): void {
  removesEach(cases);
  describe('in a JSON string', () => {
    removesEach(cases.map(([what, text, secret]) => [what, JSON.stringify({ output: text }), JSON.stringify(secret).slice(1, -1)] as const));
  });
}
