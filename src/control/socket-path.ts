import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { SocketError, StoreLockedError } from '../errors.js';

/**
 * The socket's place on disk: its folder is private (0700), the socket itself 0600. A socket
 * left by a daemon that was killed is removed (nothing answers it); a file at that path that
 * is not a socket is never removed.
 */

/** sun_path is 108 bytes on Linux and 104 on macOS, including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = process.platform === 'darwin' ? 103 : 107;

export function checkSocketPath(path: string): void {
  const len = Buffer.byteLength(path);
  if (len > MAX_SOCKET_PATH_BYTES) {
    throw new SocketError(`socket path is ${len} bytes, the limit is ${MAX_SOCKET_PATH_BYTES}: ${path}`, {
      hint: 'set XDG_RUNTIME_DIR to a shorter directory (the socket goes to $XDG_RUNTIME_DIR/handoffd/), or use a store root with a shorter path',
    });
  }
}

export function prepareSocketDir(path: string): void {
  const dir = dirname(path);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  } catch (e) {
    throw new SocketError(`cannot prepare the socket folder ${dir}: ${(e as Error).message}`, { hint: 'make the folder writable by this user', cause: e });
  }
}

/** Resolves true when something accepts a connection at `path`. */
export function probe(path: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    const done = (v: boolean): void => {
      s.removeAllListeners();
      s.destroy();
      resolve(v);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * Clears the way for a new socket: nothing there is fine; a dead socket is removed; a live one
 * means another daemon answers there; anything that is not a socket is left alone and refused.
 */
export async function clearStaleSocket(path: string): Promise<'none' | 'removed'> {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw new SocketError(`cannot inspect ${path}: ${(e as Error).message}`, { cause: e });
  }
  if (!st.isSocket()) {
    throw new SocketError(`${path} exists and is not a socket (found a ${st.isDirectory() ? 'folder' : st.isFile() ? 'regular file' : 'special file'}); refusing to remove it`, {
      hint: `move that file away yourself if it is not needed, or set XDG_RUNTIME_DIR so the socket goes elsewhere`,
    });
  }
  if (await probe(path)) {
    throw new StoreLockedError(`another daemon answers on ${path}`, { hint: 'stop it first (`handoff status` shows its pid), or use another store root' });
  }
  unlinkSync(path);
  return 'removed';
}
