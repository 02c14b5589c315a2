import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical.js';
import { canonicalTurn, chainLine, checkChain, timelineRecord } from '../../src/core/timeline.js';

describe('canonicalJson', () => {
  it('sorts keys recursively, drops undefined and has no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined }, e: 'x y' })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1,"e":"x y"}');
  });
  it('matches JSON.stringify for scalars', () => {
    for (const v of [null, true, 1.5, 'q"\n', 0]) expect(canonicalJson(v)).toBe(JSON.stringify(v));
  });
});

describe('timeline hash chain', () => {
  it('links each line to the previous one and detects an edit that keeps the line count', () => {
    const a = chainLine('', { seq: 0, ts: null, class: 'USER', text: 'hello' });
    const b = chainLine(a.h, { seq: 1, ts: '2026-01-01T00:00:00Z', class: 'TOOL', text: 'ls', tool: { name: 'Bash', id: 't1', ok: true } });
    const expectA = createHash('sha256').update(canonicalJson({ class: 'USER', seq: 0, text: 'hello', ts: null })).digest('hex');
    expect(a.h).toBe(expectA);
    const lines = [a.bytes, b.bytes].map((l) => l.toString('utf8').trimEnd());
    expect(checkChain(lines)).toEqual({ ok: true, lines: 2, head: b.h });
    const tampered = [lines[0] as string, (lines[1] as string).replace('"ls"', '"rm"')];
    const r = checkChain(tampered);
    expect(r.ok).toBe(false);
    expect(r.brokenAt).toBe(2);
  });

  it('hashes the previous head and the line without h, whatever the previous head and the text hold', () => {
    const turn = { seq: 5, ts: '2026-01-01T00:00:00Z', class: 'AGENT' as const, text: `é🚀 "q" \\ ${'x'.repeat(700)} ü` };
    const body = canonicalJson(timelineRecord(turn));
    // A sha256 in hex, the empty head, and heads of other shapes (upper case, non-ASCII, too long).
    for (const prev of ['', 'a'.repeat(64), 'A'.repeat(64), 'é'.repeat(35), 'é'.repeat(36), '🚀'.repeat(40), 'f'.repeat(72), '0123']) {
      const { bytes, h } = chainLine(prev, turn);
      expect(h).toBe(createHash('sha256').update(prev).update(body).digest('hex'));
      const line = bytes.toString('utf8');
      expect(line.endsWith('\n')).toBe(true);
      expect(line).toBe(`${canonicalTurn(turn, h)}\n`);
    }
  });
});

describe('the fast turn serializer', () => {
  it('writes exactly what the general canonical serializer writes', async () => {
    const { canonicalTurn, timelineRecord } = await import('../../src/core/timeline.js');
    const turns = [
      { seq: 0, ts: null, class: 'USER' as const, text: 'plain' },
      { seq: 17, ts: '2026-01-01T00:00:00.000Z', class: 'TOOL' as const, text: 'quote " backslash \\ newline \n tab \t emoji 🚀 \u2028', tool: { name: 'Bash', id: 'toolu_1', ok: false } },
      { seq: 3.5, ts: 't', class: 'OTHER' as const, text: '', tool: { name: 'n', id: '' } },
      // Long enough to be kept as head and tail, with text_bytes and text_sha256.
      { seq: 4, ts: null, class: 'TOOL' as const, text: `head ${'é🚀 '.repeat(400)} tail`, tool: { name: 'Bash', id: 'toolu_2', ok: true } },
    ];
    for (const t of turns) {
      expect(canonicalTurn(t)).toBe(canonicalJson(timelineRecord(t)));
      expect(canonicalTurn(t, 'abc')).toBe(canonicalJson({ ...timelineRecord(t), h: 'abc' }));
    }
    expect(canonicalTurn(turns[3] as (typeof turns)[number])).toMatch(/"text_bytes":\d+,"text_sha256":"[0-9a-f]{64}"/);
  });
});

describe('excerpt', () => {
  it('keeps a short text whole and a long one as head and tail, never splitting a surrogate pair', async () => {
    const { excerpt } = await import('../../src/core/excerpt.js');
    const lim = { max: 10, head: 5, tail: 3 };
    expect(excerpt('short', lim)).toEqual({ text: 'short', full: null });
    const emoji = '1234🚀5678901234';
    const ex = excerpt(emoji, lim);
    expect(ex.full).toEqual({ bytes: Buffer.byteLength(emoji), sha256: createHash('sha256').update(emoji).digest('hex') });
    expect(ex.text.startsWith('1234🚀')).toBe(true);
    expect(ex.text.endsWith('234')).toBe(true);
    expect(ex.text).toContain('characters cut');
    expect(ex.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
