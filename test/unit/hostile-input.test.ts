import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNewLines } from '../../src/engine/read-source.js';
import { isLarge, jsonPieces } from '../../src/control/json-stream.js';
import { escapeControls, stripControls, terminalSafe } from '../../src/core/control-chars.js';
import { LineCutter } from '../../src/core/lines.js';
import { Redactor } from '../../src/core/redact.js';
import { initialState } from '../../src/core/state.js';
import { RepeatFilter } from '../../src/daemon/repeats.js';
import type { IndexEntry } from '../../src/store/index-file.js';
import { resolveIn, uniquePrefixes } from '../../src/store/index-store.js';
import { tempDir } from '../helpers.js';

const ESC = '\u001b';

describe('control sequences', () => {
  it.each([
    ['an OSC 52 clipboard write', `a${ESC}]52;c;ZWNobyBoaQ==\u0007b`, 'ab'],
    ['a window title ended by ST', `a${ESC}]0;owned${ESC}\\b`, 'ab'],
    ['a screen clear and a colour', `a${ESC}[2J${ESC}[31mb${ESC}[0m`, 'ab'],
    ['an 8-bit CSI', 'a\u009b31mb', 'ab'],
    ['a carriage return that would overwrite the line', 'safe\rEVIL', 'safe\nEVIL'],
    ['a backspace, a bell and DEL', 'a\bb\u0007c\u007fd', 'abcd'],
    ['an unterminated OSC, which stops at the end of its line', `a${ESC}]52;c;xyz\nnext`, 'a\nnext'],
  ])('strips %s, keeping the text around it', (_what, input, out) => {
    expect(stripControls(input)).toBe(out);
  });

  it('keeps tabs, newlines and every printable character, and returns clean text as it is', () => {
    const clean = 'tab\there\nnext line — ünïcode ✓ `code`';
    expect(stripControls(clean)).toBe(clean);
  });

  it('shows a bidirectional override or a zero-width space in a name as an escape, in a terminal too', () => {
    expect(escapeControls('evil\u202egnp.exe')).toBe('evil\\u202egnp.exe');
    expect(escapeControls('a\u200bb')).toBe('a\\u200bb');
    expect(terminalSafe('run handoff resume evil\u202egnp.exe')).toBe('run handoff resume evil\\u202egnp.exe');
  });

  it('shows control characters in a single-line value as visible escapes, so two names stay two', () => {
    expect(escapeControls(`evil${ESC}[2J\n- forged`)).toBe('evil\\x1b[2J\\n- forged');
    expect(escapeControls('a\tb')).not.toBe(escapeControls('a b'));
  });

  it('lets only colour through to a terminal', () => {
    expect(terminalSafe(`${ESC}[31mred${ESC}[0m ${ESC}]52;c;eA==\u0007x\u0007`)).toBe(`${ESC}[31mred${ESC}[0m x\\x07`);
  });
});

describe('a line longer than the cutter holds', () => {
  it('is reported deferred (to be read whole by the caller), or oversized past the limit, never held', () => {
    const c = new LineCutter(0, 0, 100, 10);
    expect(c.push(Buffer.from('0123456789abcdef'))).toEqual([]);
    expect(c.pendingBytes).toBe(16);
    expect(c.push(Buffer.from('gh\nok\n'))).toEqual([
      { index: 0, offset: 0, bytes: 19, text: null, deferred: true },
      { index: 1, offset: 19, bytes: 3, text: 'ok' },
    ]);
    c.push(Buffer.alloc(150, 0x61));
    expect(c.push(Buffer.from('\n'))).toEqual([{ index: 2, offset: 22, bytes: 151, text: null }]);
  });

  it('is read whole and hashed exactly when it fits, across chunks, with the last line still unwritten', async () => {
    const dir = tempDir('handoff-read-');
    const path = join(dir, 's.jsonl');
    // Lines of 3 MiB straddle the 4 MiB read chunks; one of 70 KiB is held; the last has no newline.
    // Words, not one run: a text longer than the redactor reads whole keeps its head and tail,
    // and a run that a cut would split is dropped whole (src/core/cut.ts).
    const long = (n: number, c: string): string => `${JSON.stringify({ role: 'user', content: `${c} `.repeat(n / 2) })}\n`;
    const text = long(3 << 20, 'a') + long(3 << 20, 'b') + long(70 << 10, 'c') + long(10, 'd') + '{"role":"assistant","content":"unfin';
    writeFileSync(path, text);
    const st = initialState();
    const seen: string[] = [];
    const out = await readNewLines(path, { offset: 0, lines: 0 }, st, createHash('sha256'), { maxLineBytes: 64 << 20, allowBadLines: false, final: false, ingest: { redactor: new Redactor() } }, (t) => void seen.push(t.text.slice(0, 1)));
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
    expect(out.offset).toBe(Buffer.byteLength(complete));
    expect(out.pendingBytes).toBe(Buffer.byteLength(text) - Buffer.byteLength(complete));
    expect(out.hash.digest('hex')).toBe(createHash('sha256').update(readFileSync(path).subarray(0, out.offset)).digest('hex'));
  });
});

describe('ids as status and list show them', () => {
  const e = (id: string, uuid: string | null = null): IndexEntry => ({ id, uuid, dir: `/s/projects/p/${id}` }) as IndexEntry;

  it('are as long as it takes to name one session, like git short hashes', () => {
    const all = [e('rollout-2026-11-30T10-00-00-019a7c2e-0001'), e('rollout-2026-11-30T10-00-00-019a7c2e-0002'), e('0d3a8e6f-290f'), e('0d3a8e6f-290f.agent-a1'), e('short')];
    const u = uniquePrefixes(all);
    expect(u.get('rollout-2026-11-30T10-00-00-019a7c2e-0001')).toBe('rollout-2026-11-30T10-00-00-019a7c2e-0001');
    expect(u.get('0d3a8e6f-290f')).toBe('0d3a8e6f-290f');
    expect(u.get('0d3a8e6f-290f.agent-a1')).toBe('0d3a8e6f-290f.');
    expect(u.get('short')).toBe('short');
    for (const [id, p] of u) expect(resolveIn(all, p, '/s').id).toBe(id);
  });

  it('never clash with another session’s native uuid', () => {
    const all = [e('abcdefgh-1'), e('other', 'abcdefgh-2')];
    expect(uniquePrefixes(all).get('abcdefgh-1')).toBe('abcdefgh-1');
  });
});

describe('repeated errors', () => {
  it('are said once, then counted, with a reminder after ten minutes and the total when they stop', () => {
    let now = 0;
    const f = new RepeatFilter(() => now);
    expect(f.note('p', 'EACCES')).toEqual({ log: 'first', previous: 0 });
    now += 1000;
    expect(f.note('p', 'EACCES')).toEqual({ log: 'none' });
    now += 10 * 60_000;
    expect(f.note('p', 'EACCES')).toMatchObject({ log: 'reminder', repeats: 2 });
    expect(f.note('p', 'ENOSPC')).toEqual({ log: 'first', previous: 0 });
    expect(f.clear('p')).toBe(1);
    expect(f.clear('p')).toBe(0);
  });
});

describe('a large answer written in pieces', () => {
  it('is exactly the JSON of the whole, undefined members and all', () => {
    const value = { name: 'x', gone: undefined, sessions: Array.from({ length: 300 }, (_, i) => ({ id: `s${i}`, t: i % 2 ? null : 'é\u001b', u: undefined })), nested: { a: [1, undefined, 3] } };
    expect(isLarge(value)).toBe(true);
    expect(isLarge({ sessions: [1, 2] })).toBe(false);
    expect([...jsonPieces(value)].join('')).toBe(JSON.stringify(value));
    expect([...jsonPieces([1, 'two', { three: 3 }])].join('')).toBe(JSON.stringify([1, 'two', { three: 3 }]));
  });
});

describe('a transcript that goes away while it is read', () => {
  it('stops the read with the file named and why, not as a bug of handoffd', async () => {
    const path = join(tempDir('handoff-read-'), 'deleted.jsonl');
    const read = readNewLines(path, { offset: 0, lines: 0 }, initialState(), createHash('sha256'), { maxLineBytes: 64 << 20, allowBadLines: false, final: false, ingest: { redactor: new Redactor() } }, () => undefined);
    await expect(read).rejects.toMatchObject({ code: 'HANDOFF_ERR_SOURCE', message: `${path}: cannot read transcript (it went away while the build read it): no such file` });
    await expect(read).rejects.toHaveProperty('hint', expect.stringMatching(/deleted or moved while it was read/));
  });
});
