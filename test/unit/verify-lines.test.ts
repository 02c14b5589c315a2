import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../src/store/verify.js';
import { tempDir } from '../helpers.js';

/** What readline (which verify used before) makes of a file: the reference. */
async function viaReadline(path: string): Promise<string[]> {
  const out: string[] = [];
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const l of rl) out.push(l);
  return out;
}

async function viaVerify(path: string): Promise<string[]> {
  const out: string[] = [];
  await readLines(path, (l) => out.push(l));
  return out;
}

describe('verify reads a timeline line by line', () => {
  const dir = tempDir('handoff-lines-');
  const long = 'é'.repeat(20_000); // 40,000 bytes: lines and characters cut across read chunks
  it.each([
    ['an empty file', ''],
    ['lines ending in a newline', '{"a":1}\n{"b":2}\n'],
    ['a last line without a newline', '{"a":1}\n{"b":2}'],
    ['CRLF line ends', 'one\r\ntwo\r\n'],
    ['a lone CR', 'one\rtwo\n'],
    ['a CR at the very end', 'one\ntwo\r'],
    ['empty lines', '\n\n{"a":1}\n\n'],
    ['long lines of multi-byte characters across chunks', `${long}\n${long}\r\n${long}`],
    ['a CRLF split across two chunks', `${'x'.repeat((16 << 10) - 1)}\r\nnext\n`],
  ])('splits %s exactly as readline does', async (name, text) => {
    const path = join(dir, `${name.replace(/\W+/g, '-')}.jsonl`);
    writeFileSync(path, text);
    expect(await viaVerify(path)).toEqual(await viaReadline(path));
  });
});
