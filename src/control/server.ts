import { chmodSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import { HandoffError } from '../errors.js';
import type { EventName, EventParams, Id, MethodName, RpcError } from './protocol.js';
import { EVENT_NAMES, encode, fail, isMethod, MAX_REQUEST_BYTES, notification, ok, ParamError, parseRequest, RPC_ERRORS } from './protocol.js';
import { checkSocketPath, clearStaleSocket, prepareSocketDir } from './socket-path.js';

/**
 * The control socket server. Requests are dispatched through a table of handlers; a client can
 * never take the daemon down: garbage gets a JSON-RPC error, an oversized or stalled request an
 * error and a close, a slow subscriber is dropped before it can fill our memory.
 */

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface Connection {
  readonly id: number;
  subscribe(events: readonly EventName[]): void;
}

export type Handler = (params: unknown, conn: Connection) => Promise<unknown>;
export type Handlers = Record<MethodName, Handler>;

export interface ServerOptions {
  path: string;
  handlers: Handlers;
  log: Logger;
  /** A request line left unfinished this long is answered with an error and closed. */
  requestTimeoutMs: number;
  /**
   * Applied to every line the server sends (answers, errors, notifications): the daemon redacts
   * them, so a credential a handler or an error message carries never crosses the socket.
   */
  sanitize?: (line: string) => string;
}

/** Buffered output past which a connection (a stalled subscriber) is dropped. */
const MAX_PENDING_OUTPUT_BYTES = 8 << 20;

class Conn implements Connection {
  private buf = '';
  private bufBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly events = new Set<EventName>();
  /** Requests still being answered: a client that half-closes still gets their answers. */
  private inFlight = 0;
  private ending = false;
  closed = false;

  constructor(
    readonly id: number,
    private readonly socket: Socket,
    private readonly server: ControlServer,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => this.onData(d));
    socket.on('end', () => this.onEnd());
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  subscribe(events: readonly EventName[]): void {
    for (const e of events) this.events.add(e);
  }

  wants(event: EventName): boolean {
    return this.events.has(event);
  }

  send(text: string): void {
    this.sendSanitized(this.server.sanitize(text));
  }

  sendSanitized(text: string): void {
    if (this.closed || this.socket.destroyed) return;
    if (this.socket.writableLength > MAX_PENDING_OUTPUT_BYTES) {
      this.server.log.warn({ conn: this.id }, 'dropping a client that does not read its notifications');
      this.socket.destroy();
      return;
    }
    this.socket.write(text);
  }

  private onData(d: string): void {
    let chunk = d;
    for (;;) {
      const nl = chunk.indexOf('\n');
      if (nl === -1) break;
      const line = this.buf + chunk.slice(0, nl);
      this.buf = '';
      this.bufBytes = 0;
      chunk = chunk.slice(nl + 1);
      if (Buffer.byteLength(line) > MAX_REQUEST_BYTES) {
        this.reject(null, { code: RPC_ERRORS.INVALID_REQUEST, message: `request larger than ${MAX_REQUEST_BYTES} bytes` });
        return;
      }
      if (line.trim().length > 0) {
        this.inFlight += 1;
        void this.server.dispatch(this, line).finally(() => this.settled());
      }
      if (this.closed) return;
    }
    const started = this.buf.length === 0 && chunk.length > 0;
    this.buf += chunk;
    this.bufBytes += Buffer.byteLength(chunk);
    if (this.bufBytes > MAX_REQUEST_BYTES) {
      this.reject(null, { code: RPC_ERRORS.INVALID_REQUEST, message: `request larger than ${MAX_REQUEST_BYTES} bytes (no newline within the limit)` });
      return;
    }
    if (this.buf.length === 0) this.clearTimer();
    else if (started || this.timer === null) this.armTimer();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Measured from the first byte of an unfinished line, not from the last chunk. */
  private armTimer(): void {
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.reject(null, { code: RPC_ERRORS.TIMEOUT, message: `request not finished within ${this.server.requestTimeoutMs} ms (a line must end with \\n)` });
    }, this.server.requestTimeoutMs);
    this.timer.unref();
  }

  /**
   * The client half-closed its side: an unfinished request is an error; answers still being
   * worked on are sent first; a subscriber keeps receiving notifications until it closes.
   */
  private onEnd(): void {
    if (this.buf.trim().length > 0) this.send(encode(fail(null, { code: RPC_ERRORS.PARSE, message: 'incomplete request: the connection ended before a newline' })));
    this.buf = '';
    this.clearTimer();
    this.ending = true;
    this.settled(0);
  }

  private settled(done = 1): void {
    this.inFlight -= done;
    if (this.ending && this.inFlight === 0 && this.events.size === 0 && !this.socket.destroyed) this.socket.end();
  }

  reject(id: Id, error: RpcError): void {
    this.send(encode(fail(id, error)));
    this.buf = '';
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
    this.closed = true;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.closed = true;
    this.server.forget(this);
  }

  destroy(): void {
    this.socket.destroy();
    this.close();
  }
}

export class ControlServer {
  private server: Server | null = null;
  private readonly conns = new Set<Conn>();
  private nextId = 1;
  private closing: Promise<void> | null = null;

  constructor(private readonly opts: ServerOptions) {}

  get log(): Logger {
    return this.opts.log;
  }

  get requestTimeoutMs(): number {
    return this.opts.requestTimeoutMs;
  }

  sanitize(line: string): string {
    return this.opts.sanitize ? this.opts.sanitize(line) : line;
  }

  set requestTimeoutMs(ms: number) {
    this.opts.requestTimeoutMs = ms;
  }

  get path(): string {
    return this.opts.path;
  }

  get connections(): number {
    return this.conns.size;
  }

  async listen(): Promise<void> {
    const path = this.opts.path;
    checkSocketPath(path);
    prepareSocketDir(path);
    if ((await clearStaleSocket(path)) === 'removed') this.opts.log.warn({ socket: path }, 'removed a stale socket left by a daemon that did not exit cleanly');
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      const c = new Conn(this.nextId++, socket, this);
      this.conns.add(c);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Created with umask 0177 semantics: chmod right after bind closes the window that matters.
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o600);
    server.on('error', (e) => this.opts.log.error({ err: e }, 'control socket error'));
    this.server = server;
  }

  forget(c: Conn): void {
    this.conns.delete(c);
  }

  async dispatch(conn: Conn, line: string): Promise<void> {
    const parsed = parseRequest(line);
    if (!parsed.ok) {
      if (parsed.notify !== true) conn.send(encode(fail(parsed.id, parsed.error)));
      return;
    }
    const { request } = parsed;
    const id = request.id ?? null;
    const notify = request.id === undefined;
    if (!isMethod(request.method)) {
      if (!notify) conn.send(encode(fail(id, { code: RPC_ERRORS.METHOD_NOT_FOUND, message: `method not found: "${request.method}"` })));
      return;
    }
    try {
      const result = await this.opts.handlers[request.method](request.params, conn);
      if (!notify) conn.send(encode(ok(id, result)));
    } catch (e) {
      if (notify) return;
      if (e instanceof ParamError) conn.send(encode(fail(id, { code: RPC_ERRORS.INVALID_PARAMS, message: e.message })));
      else if (e instanceof HandoffError) conn.send(encode(fail(id, { code: RPC_ERRORS.APPLICATION, message: e.message, data: e.toJSON() })));
      else {
        this.opts.log.error({ err: e, method: request.method }, 'handler failed');
        conn.send(encode(fail(id, { code: RPC_ERRORS.INTERNAL, message: `internal error in ${request.method}: ${(e as Error).message ?? String(e)}` })));
      }
    }
  }

  broadcast<M extends EventName>(event: M, params: EventParams[M]): void {
    if (this.conns.size === 0) return;
    // Redacted once here, not once per subscriber.
    const text = this.sanitize(encode(notification(event, params)));
    for (const c of this.conns) if (c.wants(event)) c.sendSanitized(text);
  }

  /** Idempotent: the same promise every time. Open connections are destroyed. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const c of [...this.conns]) c.destroy();
      const s = this.server;
      this.server = null;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    })();
    return this.closing;
  }
}

export { EVENT_NAMES };
