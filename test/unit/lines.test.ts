import { describe, expect, it } from 'vitest';
import { LineCutter } from '../../src/core/lines.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('LineCutter', () => {
  it('hands out only complete lines and keeps a half-written last line back', () => {
    const c = new LineCutter(0, 0, 1024);
    const got = c.push(b('{"a":1}\n{"b":'));
    expect(got.map((l) => l.text)).toEqual(['{"a":1}']);
    expect(c.offset).toBe(8);
    expect(c.pendingBytes).toBe(5);
    const more = c.push(b('2}\n'));
    expect(more).toEqual([{ index: 1, offset: 8, bytes: 8, text: '{"b":2}' }]);
    expect(c.offset).toBe(16);
    expect(c.pendingBytes).toBe(0);
  });

  it('joins a line cut at any byte, including inside a multi-byte character', () => {
    const line = '{"t":"héllo → wörld"}\n';
    const bytes = b(line);
    for (let cut = 1; cut < bytes.length; cut += 1) {
      const c = new LineCutter(100, 7, 1024);
      const out = [...c.push(bytes.subarray(0, cut)), ...c.push(bytes.subarray(cut))];
      expect(out).toEqual([{ index: 7, offset: 100, bytes: bytes.length, text: line.slice(0, -1) }]);
    }
  });

  it('strips a trailing carriage return', () => {
    const c = new LineCutter(0, 0, 1024);
    expect(c.push(b('x\r\ny\n')).map((l) => l.text)).toEqual(['x', 'y']);
  });

  it('reports an oversized line without its text, even when it spans many chunks', () => {
    const c = new LineCutter(0, 0, 10);
    expect(c.push(b('0123456789ABCDEF'))).toEqual([]);
    expect(c.pendingBytes).toBe(16);
    const out = c.push(b('GH\nok\n'));
    expect(out).toEqual([
      { index: 0, offset: 0, bytes: 19, text: null },
      { index: 1, offset: 19, bytes: 3, text: 'ok' },
    ]);
  });

  it('takes a final line without newline only when asked', () => {
    const c = new LineCutter(0, 0, 1024);
    c.push(b('a\nb'));
    expect(c.takePending()).toEqual({ index: 1, offset: 2, bytes: 1, text: 'b' });
    expect(c.offset).toBe(3);
  });
});
