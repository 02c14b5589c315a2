import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.js';
import { encode, fail, RPC_ERRORS } from '../../src/control/protocol.js';
import { SocketError } from '../../src/errors.js';
import { tempDir } from '../helpers.js';

/**
 * When the daemon closes a connection it says why, in an error line with no id (PROTOCOL.md): a
 * client refused because every connection is busy, or closed while idle, hears that reason and
 * its fix, not a bare "the daemon closed the connection" that reads as a crash.
 */

async function daemonThatSays(message: string, code: number): Promise<{ path: string; close: () => void }> {
  const path = join(tempDir('handoff-sock-'), 'd.sock');
  // Answers every connection as the daemon's server.ts does at its cap: one line, then the end.
  const server = createServer((s) => s.end(encode(fail(null, { code, message }))));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, close: () => server.close() };
}

describe('the control client, told why a connection is closed', () => {
  it.each([
    [RPC_ERRORS.BUSY, 'too many connections: all 128 are busy answering requests; try again', /raise daemon\.max_connections/],
    [RPC_ERRORS.IDLE, 'closed after 300 ms without a request', /connect again/],
  ])('code %i: the call fails with the daemon\'s reason and a fix', async (code, message, hint) => {
    const d = await daemonThatSays(message, code);
    try {
      const client = await ControlClient.connect(d.path);
      const err = await client.call('hello', {}).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SocketError);
      expect((err as SocketError).message).toContain(message);
      expect((err as SocketError).hint).toMatch(hint);
      client.close();
    } finally {
      d.close();
    }
  });
});
