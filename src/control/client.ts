import type { Socket } from 'node:net';
import { connect } from 'node:net';
import type { ErrorJson } from '../errors.js';
import { DaemonNotRunningError, RemoteError, SocketError } from '../errors.js';
import type { EventName, EventParams, Methods, MethodName, Notification, Response } from './protocol.js';
import { encode, RPC_ERRORS } from './protocol.js';

/** The control socket client: the CLI's way to the daemon. */

// ENOTDIR: a file stands where the socket's folder should be, so no daemon listens there.
const NOT_RUNNING = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK', 'ENOTDIR']);
/** The daemon closed the connection as this client wrote or read. */
const CUT = new Set(['EPIPE', 'ECONNRESET']);

export function notRunning(path: string): DaemonNotRunningError {
  return new DaemonNotRunningError(`no daemon is running (nothing answers on ${path})`, {
    hint: 'start it with `handoff daemon` (or `npm start` in the project folder), or install it as a service with `handoff service install`',
    details: { socket: path },
  });
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout | null; method: string };

function farewell(code: number, message: string, path: string): SocketError {
  const hint =
    code === RPC_ERRORS.BUSY
      ? 'every connection the daemon holds is waiting for an answer or has just connected: try again in a moment, or raise daemon.max_connections'
      : code === RPC_ERRORS.IDLE
        ? 'connect again: a connection with nothing to ask is closed when idle, or to make room for another'
        : 'connect again; `handoff status` tells whether the daemon runs';
  return new SocketError(`the daemon closed the connection (${path}): ${message}`, { hint, details: { rpc_code: code } });
}

export class ControlClient {
  private buf = '';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private listeners: ((n: Notification) => void)[] = [];
  private closedErr: Error | null = null;
  /** Why the daemon said it closes this connection (an error line with no id), if it did. */
  private farewell: Error | null = null;
  private endListeners: ((e: Error | null) => void)[] = [];

  private constructor(
    private readonly socket: Socket,
    readonly path: string,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => this.onData(d));
    const end = (e?: Error): void => {
      if (this.closedErr) return;
      // A write into a connection the daemon had already closed (it turned this one away as busy,
      // and the request crossed its farewell): the farewell says why, when it came; else it closed.
      const cut = e !== undefined && CUT.has((e as NodeJS.ErrnoException).code ?? '');
      const closed = (): SocketError => new SocketError(`the daemon closed the connection (${path})`, { hint: 'the daemon stopped; `handoff status` tells whether it runs', details: cut ? { errno: (e as NodeJS.ErrnoException).code } : undefined });
      this.closedErr = cut ? (this.farewell ?? closed()) : (e ?? this.farewell ?? closed());
      for (const p of this.pending.values()) {
        if (p.timer) clearTimeout(p.timer);
        p.reject(this.closedErr);
      }
      this.pending.clear();
      for (const l of this.endListeners) l(e ?? null);
    };
    socket.on('error', (e) => end(e));
    socket.on('close', () => end());
  }

  static connect(path: string, timeoutMs = 2000): Promise<ControlClient> {
    return new Promise((resolve, reject) => {
      const s = connect(path);
      const timer = setTimeout(() => {
        s.destroy();
        reject(new SocketError(`the daemon did not accept a connection on ${path} within ${timeoutMs} ms`, { hint: 'it may be stuck; check its logs, or restart it' }));
      }, timeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        s.removeAllListeners('error');
        resolve(new ControlClient(s, path));
      });
      s.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(NOT_RUNNING.has(e.code ?? '') ? notRunning(path) : new SocketError(`cannot connect to ${path}: ${e.message}`, { cause: e }));
      });
    });
  }

  private onData(d: string): void {
    this.buf += d;
    for (;;) {
      const nl = this.buf.indexOf('\n');
      if (nl === -1) break;
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.trim().length === 0) continue;
      let msg: Response | Notification;
      try {
        msg = JSON.parse(line) as Response | Notification;
      } catch {
        continue;
      }
      if ('method' in msg) {
        for (const l of this.listeners) l(msg);
        continue;
      }
      // An error for no request: the daemon says why it closes this connection (every one it
      // holds is busy, or this one was idle): that, not a bare "closed", is what the caller hears.
      if (msg.id === null && 'error' in msg) {
        this.farewell = farewell(msg.error.code, msg.error.message, this.path);
        continue;
      }
      const id = typeof msg.id === 'number' ? msg.id : -1;
      const p = this.pending.get(id);
      if (!p) continue;
      this.pending.delete(id);
      if (p.timer) clearTimeout(p.timer);
      if ('error' in msg) {
        const data = msg.error.data as ErrorJson | undefined;
        if (msg.error.code === RPC_ERRORS.APPLICATION && data && typeof data.code === 'string') p.reject(new RemoteError(data));
        else p.reject(new SocketError(`the daemon answered ${p.method} with an error: ${msg.error.message}`));
      } else p.resolve(msg.result);
    }
  }

  call<M extends MethodName>(method: M, params?: Methods[M]['params'], timeoutMs = 30_000): Promise<Methods[M]['result']> {
    if (this.closedErr) return Promise.reject(this.closedErr);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              this.pending.delete(id);
              reject(new SocketError(`the daemon did not answer ${method} within ${timeoutMs} ms`, { hint: 'it may be busy with a large backfill; try again, or check its logs', details: { method, timeout_ms: timeoutMs, unanswered: true } }));
            }, timeoutMs)
          : null;
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer, method });
      this.socket.write(encode({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  onNotification<E extends EventName>(cb: (event: E, params: EventParams[E]) => void): void {
    this.listeners.push((n) => cb(n.method as E, n.params as EventParams[E]));
  }

  onClose(cb: (e: Error | null) => void): void {
    this.endListeners.push(cb);
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}

/** The daemon took the request and did not answer it in time (a `call`'s timeout), not a refusal or a closed socket. */
export function isUnanswered(e: unknown, method?: string): boolean {
  return e instanceof SocketError && e.details?.unanswered === true && (method === undefined || e.details.method === method);
}

/** The daemon refused this connection because every one it holds is busy or has just connected (or closed it as the request was written): try again. */
export function isBusy(e: unknown): boolean {
  return e instanceof SocketError && (e.details?.rpc_code === RPC_ERRORS.BUSY || (e.details?.errno !== undefined && CUT.has(String(e.details.errno))));
}

/** How long a client keeps connecting again while the daemon says it is busy (a burst of clients). */
const BUSY_RETRY_MS = 3000;

/**
 * Connects and asks `hello`, connecting again (a little later each time) while the daemon
 * refuses with busy, for up to BUSY_RETRY_MS: under a burst of clients a connection may be
 * turned away, and the command should not fail for it.
 */
export async function connectAndHello(connect: () => Promise<ControlClient>, helloTimeoutMs: number): Promise<{ client: ControlClient; hello: Methods['hello']['result'] }> {
  const deadline = Date.now() + BUSY_RETRY_MS;
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    const client = await connect();
    try {
      return { client, hello: await client.call('hello', undefined, helloTimeoutMs) };
    } catch (e) {
      client.close();
      if (!isBusy(e) || Date.now() + wait > deadline) throw e;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** One call on a fresh connection. */
export async function callDaemon<M extends MethodName>(path: string, method: M, params?: Methods[M]['params'], timeoutMs?: number): Promise<Methods[M]['result']> {
  const c = await ControlClient.connect(path);
  try {
    return await c.call(method, params, timeoutMs);
  } finally {
    c.close();
  }
}
