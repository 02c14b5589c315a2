import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, testEnv } from '../helpers.js';

/** Transcripts in an encoding other than plain UTF-8: read when the meaning is certain, else a fix that fits. */

const line = (uuid: string, text: string): string => `${JSON.stringify({ type: 'user', uuid, sessionId: 's', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: text } })}\n`;

describe('a transcript not in plain UTF-8', () => {
  it('reads a line that begins with a byte-order mark, as where two transcripts were joined', async () => {
    const dir = tempDir();
    const file = join(dir, 'joined.jsonl');
    writeFileSync(file, Buffer.concat([Buffer.from(line('a', 'first part')), Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(line('b', 'second part'))]));
    const r = await runCli(['build', file], { env: testEnv({ HANDOFFS_ROOT: join(dir, 'store') }) });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('+2 turns');
  });

  it('says a UTF-16 transcript is UTF-16, with the conversion as the fix, not "repair the line"', async () => {
    const dir = tempDir();
    const file = join(dir, 'wide.jsonl');
    const text = line('a', 'written by PowerShell');
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const r = await runCli(['build', file], { env: testEnv({ HANDOFFS_ROOT: join(dir, 'store') }) });
    expect(r.code).toBe(5);
    expect(r.err).toContain(`${file}:1: line 1 (byte offset 0) is not valid JSON: it has a NUL byte between every two characters: the transcript is written in UTF-16, not UTF-8`);
    expect(r.err).toContain('fix: convert the transcript to UTF-8 (`iconv -f UTF-16 -t UTF-8 <file> > <copy>`)');
    expect(r.err).not.toContain('--allow-bad-lines');
  });

  it('still gives the repair for a line that is simply broken', async () => {
    const dir = tempDir();
    const file = join(dir, 'broken.jsonl');
    writeFileSync(file, `${line('a', 'fine')}{"type":"user",\n`);
    const r = await runCli(['build', file], { env: testEnv({ HANDOFFS_ROOT: join(dir, 'store') }) });
    expect(r.code).toBe(5);
    expect(r.err).toContain('fix: repair or delete that line in the transcript, or pass --allow-bad-lines');
  });
});
