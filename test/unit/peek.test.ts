import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { peek } from '../../src/engine/identity.js';
import { tempDir } from '../helpers.js';

/** What a transcript's first lines say of it, read line by line from a bounded window. */
describe('peek', () => {
  const file = (text: string | Buffer): string => {
    const path = join(tempDir('handoff-peek-'), 't.jsonl');
    writeFileSync(path, text);
    return path;
  };

  it('reads a first line longer than its first read (a Codex session with long instructions)', async () => {
    const meta = { timestamp: '2026-01-01T00:00:00Z', type: 'session_meta', payload: { id: 'c-1', cwd: '/w', instructions: 'x'.repeat(48 * 1024) } };
    const p = await peek(file(`${JSON.stringify(meta)}\n{"type":"response_item"}\n`));
    expect(p).toMatchObject({ nativeId: 'c-1', cwd: '/w' });
  });

  it('takes no line that the window cuts, and skips a byte order mark', async () => {
    expect(await peek(file('{"sessionId":"s","cwd":"/w"'))).toMatchObject({ nativeId: null, cwd: null });
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"session":"named","sessionId":"s","cwd":"/w"}\n')]);
    expect(await peek(file(bom))).toMatchObject({ firstSession: 'named', nativeId: 's', cwd: '/w' });
  });

  it('knows a subagent transcript by the side chain of every line it reads', async () => {
    const line = (o: object) => `${JSON.stringify({ sessionId: 'p', cwd: '/w', ...o })}\n`;
    expect(await peek(file(line({ isSidechain: true, agentId: 'a1' }) + line({ isSidechain: true })))).toMatchObject({ sidechain: true, agentId: 'a1' });
    expect(await peek(file(line({ isSidechain: true, agentId: 'a1' }) + line({ isSidechain: false })))).toMatchObject({ sidechain: false });
  });
});
