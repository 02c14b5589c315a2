import { describe, expect, it } from 'vitest';
import { jsonPieces } from '../../src/control/json-stream.js';
import { ControlServer } from '../../src/control/server.js';
import { Redactor, redactJsonText } from '../../src/core/redact.js';
import { fakeSecrets, leaksOf } from '../fake-secrets.js';

/**
 * A large answer (`verify --all`, `status` of thousands of sessions) is redacted a stretch at a
 * time, the stretches cut only between two items of an array: nothing a whole-line redaction
 * removes may survive, and a clean answer is the same text either way.
 */

const redactor = new Redactor();
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
const server = new ControlServer({ path: '/nonexistent', handlers: {} as never, log: quiet, requestTimeoutMs: 1000, idleTimeoutMs: 1000, maxConnections: 1, sanitize: (line) => redactJsonText(redactor, line) });

async function sliced(value: unknown): Promise<string> {
  const text = await server.sanitizeInSlices('{"jsonrpc":"2.0","id":1,"result":', jsonPieces(value), '}\n', () => false);
  if (text === null) throw new Error('abandoned');
  return text;
}

function reports(n: number, extra: (i: number) => Record<string, unknown> = () => ({})): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({ id: `session-${i}`, ok: true, dir: `/store/projects/p/session-${i}`, problems: [], ...extra(i) }));
}

describe('a large answer redacted in slices', () => {
  it('is the same text as the whole line redacted at once when it holds no credential', async () => {
    const value = reports(3000);
    const text = await sliced(value);
    expect(text).toBe(redactJsonText(redactor, `{"jsonrpc":"2.0","id":1,"result":${JSON.stringify(value)}}\n`));
    expect(JSON.parse(text).result).toEqual(value);
  });

  it('removes every credential any item holds, just as the whole line redacted at once does', async () => {
    const secrets = fakeSecrets();
    const value = reports(3000, (i) => {
      const s = secrets[i % secrets.length];
      if (i % 7 === 0 && s) return { message: s.text };
      // A label in one field and its value in the next lie in one item: one stretch.
      if (i % 11 === 0 && s) return { problems: [{ field: 'api_key', value: s.value }] };
      return {};
    });
    const text = await sliced(value);
    // The same stretches removed; a tag may name another kind, as what stands near a value differs
    // (an AWS secret key next to a key id in a neighbouring item is `aws_secret_access_key` when
    // the whole line is read at once, `labelled_secret` in its own stretch).
    const untagged = (t: string): string => t.replace(/\[REDACTED:[a-z0-9_]+\]/g, '[REDACTED]');
    expect(untagged(text)).toBe(untagged(redactJsonText(redactor, `{"jsonrpc":"2.0","id":1,"result":${JSON.stringify(value)}}\n`)));
    const said = JSON.parse(text).result as { message?: string }[];
    expect(said).toHaveLength(3000);
    expect(leaksOf(said.map((r) => r.message ?? '').join('\n'), secrets, 'the messages')).toEqual([]);
  });

  it('redacts an object holding a large array (status) the same way', async () => {
    const secrets = fakeSecrets();
    const value = { name: 'handoffd', sessions: reports(2000, (i) => (i === 1500 ? { title: secrets[0]?.text } : {})), errors: [] };
    const text = await sliced(value);
    expect(leaksOf(text, secrets, 'the answer')).toEqual([]);
    expect(JSON.parse(text).result.sessions).toHaveLength(2000);
  });
});
