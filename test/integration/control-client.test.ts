import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectAndHello, ControlClient } from '../../src/control/client.js';
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

describe('the control client, turned away in a burst', () => {
  it('connects again while the daemon says it is busy, or closes the connection as the request is written, then gets in', async () => {
    const path = join(tempDir('handoff-sock-'), 'd.sock');
    let n = 0;
    const server = createServer((s) => {
      n += 1;
      s.on('error', () => undefined);
      // First: busy, said before the end. Second: closed at once, so the client's write may meet a closed socket.
      if (n === 1) s.end(encode(fail(null, { code: RPC_ERRORS.BUSY, message: 'too many connections: all 4 are busy answering requests or have just connected; try again' })));
      else if (n === 2) s.destroy();
      else s.on('data', () => s.write('{"jsonrpc":"2.0","id":1,"result":{"name":"handoffd","version":"0","protocol":1,"pid":1,"root":"/r"}}\n'));
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const { client, hello } = await connectAndHello(() => ControlClient.connect(path), 2000);
      expect(hello.root).toBe('/r');
      expect(n).toBe(3);
      client.close();
    } finally {
      server.close();
    }
  });

  it('says the daemon closed the connection, not an internal EPIPE, when a request meets a closed socket', async () => {
    const path = join(tempDir('handoff-sock-'), 'd.sock');
    const server = createServer((s) => {
      s.on('error', () => undefined);
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      // The request races the close: written before or after the client hears of it, it fails the same way.
      for (let i = 0; i < 20; i += 1) {
        const client = await ControlClient.connect(path);
        const err = await client.call('hello', { pad: 'x'.repeat(200_000) } as never, 2000).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(SocketError);
        expect((err as SocketError).message).toContain('the daemon closed the connection');
        client.close();
      }
    } finally {
      server.close();
    }
  });
});
