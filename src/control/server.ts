import { chmodSync, lstatSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import { HandoffError } from '../errors.js';
import { Slicer } from '../slice.js';
import type { ConnectionStats, EventName, EventParams, Id, MethodName, RpcError } from './protocol.js';
import { EVENT_NAMES, encode, fail, isMethod, MAX_REQUEST_BYTES, notification, ok, ParamError, parseRequest, RPC_ERRORS } from './protocol.js';
import { isLarge, jsonPieces } from './json-stream.js';
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
  /** A request line left unfinished this long (from its first byte) is answered with an error and closed. */
  requestTimeoutMs: number;
  /** A connection with nothing to do (no request, no subscription) this long is closed. */
  idleTimeoutMs: number;
  /** Connections held at once; past it the longest idle one makes room (see admit()). */
  maxConnections: number;
  /**
   * Applied to every line the server sends (answers, errors, notifications): the daemon redacts
   * them, so a credential a handler or an error message carries never crosses the socket.
   */
  sanitize?: (line: string) => string;
}

/** Buffered notifications past which a subscriber that does not read is dropped. */
const MAX_PENDING_OUTPUT_BYTES = 8 << 20;
/**
 * Back-pressure: a connection whose answers are not being read stops being read itself once
 * this much output waits, or this many of its requests are being answered. The kernel's socket
 * buffer then fills and the client's writes block: memory stays bounded however much it sends.
 */
const OUTPUT_HIGH_WATER_BYTES = 1 << 20;
const MAX_IN_FLIGHT = 8;
/** A connection with half a request line and no byte for this long may make room (Conn.stalled). */
const STALLED_MS = 1000;
/** A connection accepted this recently that sent nothing yet is not closed to make room (Conn.fresh). */
const FRESH_MS = 1000;
const LISTEN_BACKLOG = 4096;
/** A large answer goes out in pieces of about this many characters, the event loop free between. */
const PIECE_CHARS = 64 << 10;

class Conn implements Connection {
  private buf = '';
  private bufBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly events = new Set<EventName>();
  /** Complete request lines received but not yet dispatched (held while back-pressure applies). */
  private readonly lines: string[] = [];
  /** Requests still being answered: a client that half-closes still gets their answers. */
  private inFlight = 0;
  private ending = false;
  private paused = false;
  private streaming = 0;
  private readonly held: string[] = [];
  /** Last time the client sent a byte or was sent an answer. */
  lastActive = Date.now();
  readonly openedAt = Date.now();
  /** The client sent a byte. */
  private heard = false;
  closed = false;

  constructor(
    readonly id: number,
    private readonly socket: Socket,
    private readonly server: ControlServer,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => this.onData(d));
    socket.on('end', () => this.onEnd());
    socket.on('drain', () => this.pump());
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  subscribe(events: readonly EventName[]): void {
    for (const e of events) this.events.add(e);
  }

  wants(event: EventName): boolean {
    return this.events.has(event);
  }

  get subscribed(): boolean {
    return this.events.size > 0;
  }

  /** Nothing asked and nothing owed: may be closed for idleness or to make room. */
  get idle(): boolean {
    return this.inFlight === 0 && this.lines.length === 0 && this.buf.length === 0 && this.events.size === 0;
  }

  /**
   * Half a request line and nothing more for a while (a client that stalled, a `socat` left
   * without its newline): asked nothing the daemon can answer, so it may make room as an idle one
   * does, after the idle ones and the quiet subscribers.
   */
  get stalled(): boolean {
    return this.inFlight === 0 && this.lines.length === 0 && this.buf.length > 0 && this.events.size === 0 && Date.now() - this.lastActive >= STALLED_MS;
  }

  /**
   * Accepted a moment ago and not yet read: under a burst of connections the daemon accepts many
   * before it reads any, so one whose request waits in the socket's buffer looks idle. It does not
   * make room for a newcomer until it had its turn to be read (FRESH_MS).
   */
  get fresh(): boolean {
    return !this.heard && Date.now() - this.openedAt < FRESH_MS;
  }

  /** Requests received and not yet answered. */
  get busy(): boolean {
    return this.inFlight > 0 || this.lines.length > 0;
  }

  get pendingOutputBytes(): number {
    return this.socket.destroyed ? 0 : this.socket.writableLength;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** An answer: always written (back-pressure bounds how many can wait), redacted first. */
  answer(text: string): void {
    if (this.closed || this.socket.destroyed) return;
    this.lastActive = Date.now();
    this.write(this.server.sanitize(text));
  }

  /** A notification, already redacted: a subscriber that lets them pile up unread is dropped. */
  notify(text: string): void {
    if (this.closed || this.socket.destroyed) return;
    if (this.socket.writableLength > MAX_PENDING_OUTPUT_BYTES) {
      this.server.log.warn({ conn: this.id }, 'dropping a client that does not read its notifications');
      this.destroy();
      return;
    }
    this.write(text);
  }

  /** Lines written while a large answer goes out in pieces wait for its last piece. */
  private write(text: string): void {
    if (this.streaming > 0) this.held.push(text);
    else this.socket.write(text);
  }

  /**
   * A large answer, encoded, redacted and written in slices with the event loop free in between;
   * other lines for this connection wait so that each line stays whole.
   */
  async answerInPieces(head: string, pieces: Iterable<string>, tail: string): Promise<void> {
    if (this.closed || this.socket.destroyed) return;
    this.lastActive = Date.now();
    this.streaming += 1;
    try {
      const text = await this.server.sanitizeInSlices(head, pieces, tail, () => this.closed || this.socket.destroyed);
      if (text === null) return;
      const slice = new Slicer();
      for (let i = 0; i < text.length; i += PIECE_CHARS) {
        this.socket.write(text.slice(i, i + PIECE_CHARS));
        if (i + PIECE_CHARS >= text.length) break;
        await slice.pause();
        if (this.closed || this.socket.destroyed) return;
      }
    } finally {
      this.streaming -= 1;
      if (this.streaming === 0 && !this.socket.destroyed) for (const t of this.held.splice(0)) this.socket.write(t);
    }
  }

  private onData(d: string): void {
    this.lastActive = Date.now();
    this.heard = true;
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
      if (line.trim().length > 0) this.lines.push(line);
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
    this.pump();
  }

  /** Dispatches waiting lines while the client keeps up; stops reading it while it does not. */
  private pump(): void {
    if (this.closed) return;
    while (this.lines.length > 0 && this.inFlight < MAX_IN_FLIGHT && this.pendingOutputBytes < OUTPUT_HIGH_WATER_BYTES) {
      const line = this.lines.shift() as string;
      this.inFlight += 1;
      void this.server.dispatch(this, line).finally(() => this.settled());
      if (this.closed) return;
    }
    const blocked = this.lines.length > 0 || this.inFlight >= MAX_IN_FLIGHT || this.pendingOutputBytes >= OUTPUT_HIGH_WATER_BYTES;
    if (blocked && !this.paused) {
      this.paused = true;
      this.socket.pause();
    } else if (!blocked && this.paused) {
      this.paused = false;
      this.socket.resume();
    }
    this.maybeEnd();
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
    if (this.buf.trim().length > 0) this.answer(encode(fail(null, { code: RPC_ERRORS.PARSE, message: 'incomplete request: the connection ended before a newline' })));
    this.buf = '';
    this.clearTimer();
    this.ending = true;
    this.pump();
  }

  private settled(): void {
    this.inFlight -= 1;
    this.pump();
  }

  private maybeEnd(): void {
    if (this.ending && this.inFlight === 0 && this.lines.length === 0 && this.events.size === 0 && !this.socket.destroyed) this.socket.end();
  }

  reject(id: Id, error: RpcError): void {
    this.answer(encode(fail(id, error)));
    this.buf = '';
    this.lines.length = 0;
    closeWhenFlushed(this.socket);
    this.closed = true;
    this.server.forget(this);
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

/**
 * Ends a connection the daemon is done with and gives its descriptor back as soon as the last
 * answer has reached the kernel, without waiting for the client to close its side: a crowd of
 * clients connecting faster than they read would otherwise hold a descriptor each while they
 * linger, past the cap, until builds met EMFILE. A client that reads nothing keeps it a second.
 */
function closeWhenFlushed(socket: Socket): void {
  socket.end(() => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
}

export class ControlServer {
  private server: Server | null = null;
  private readonly conns = new Set<Conn>();
  /** The socket was deleted and binding it again failed: each check of the claims tries again. */
  private unbound = false;
  private nextId = 1;
  private closing: Promise<void> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private closedIdle = 0;
  private refused = 0;
  /** The socket file this server bound (dev and inode), to tell it from one made after it. */
  private bound: { dev: number; ino: number } | null = null;

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

  /**
   * The line `head + pieces + tail`, redacted a stretch at a time with the event loop free in
   * between (a `verify --all` answer of thousands of reports is megabytes: redacted at once it
   * keeps every client waiting for a tenth of a second). Stretches are cut only between two items
   * of an array (a `,` piece of jsonPieces): every string, and every key with its value, lies
   * whole in one stretch. Should a redaction have cut into the JSON syntax of a stretch, the whole
   * line is redacted again at once, as any other answer is. Null when `gone()` says the client left.
   */
  async sanitizeInSlices(head: string, pieces: Iterable<string>, tail: string, gone: () => boolean): Promise<string | null> {
    const slice = new Slicer();
    const raw: string[] = [];
    const out: string[] = [];
    let changed = false;
    let part = head;
    const seal = (): void => {
      const clean = this.sanitize(part);
      if (clean !== part) changed = true;
      raw.push(part);
      out.push(clean);
      part = '';
    };
    for (const p of pieces) {
      if (p === ',' && part.length >= PIECE_CHARS) seal();
      part += p;
      if (slice.due) {
        await slice.pause();
        if (gone()) return null;
      }
    }
    part += tail;
    seal();
    const text = out.join('');
    if (!changed || parsesAsJson(text)) return text;
    return this.sanitize(raw.join(''));
  }

  set requestTimeoutMs(ms: number) {
    this.opts.requestTimeoutMs = ms;
  }

  /** SIGHUP: new limits apply to the next check (held connections are not cut back at once). */
  setLimits(limits: { idleTimeoutMs: number; maxConnections: number }): void {
    this.opts.idleTimeoutMs = limits.idleTimeoutMs;
    this.opts.maxConnections = limits.maxConnections;
    this.armIdleSweep();
  }

  get path(): string {
    return this.opts.path;
  }

  get connections(): number {
    return this.conns.size;
  }

  stats(): ConnectionStats {
    let subscribers = 0;
    let paused = 0;
    let pending = 0;
    for (const c of this.conns) {
      if (c.subscribed) subscribers += 1;
      if (c.isPaused) paused += 1;
      pending += c.pendingOutputBytes;
    }
    return { open: this.conns.size, max: this.opts.maxConnections, subscribers, paused, pending_output_bytes: pending, closed_idle: this.closedIdle, refused: this.refused };
  }

  async listen(): Promise<void> {
    const path = this.opts.path;
    checkSocketPath(path);
    prepareSocketDir(path);
    if ((await clearStaleSocket(path)) === 'removed') this.opts.log.warn({ socket: path }, 'removed a stale socket left by a daemon that did not exit cleanly');
    const server = createServer({ allowHalfOpen: true }, (socket) => this.admit(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Created with umask 0177 semantics: chmod right after bind closes the window that matters.
      // A deep accept queue: a burst of clients (or a daemon busy for a moment) must not turn
      // connects into EAGAIN; the kernel caps it at net.core.somaxconn.
      server.listen({ path, backlog: LISTEN_BACKLOG }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o600);
    const st = lstatSync(path);
    this.bound = { dev: st.dev, ino: st.ino };
    server.on('error', (e) => this.opts.log.error({ err: e }, 'control socket error'));
    this.server = server;
    this.armIdleSweep();
  }

  /**
   * Whether the socket file is still the one this server bound: `missing` when something deleted
   * it (a cleanup of the runtime folder), `replaced` when another file or socket is there now.
   */
  socketState(): 'ours' | 'missing' | 'replaced' {
    // A bind again that failed (its folder was briefly a file) is tried again at the next check.
    if (!this.bound) return this.unbound ? 'missing' : 'ours';
    try {
      const st = lstatSync(this.opts.path);
      return st.dev === this.bound.dev && st.ino === this.bound.ino ? 'ours' : 'replaced';
    } catch {
      return 'missing';
    }
  }

  /**
   * Binds the socket again after its file was deleted: clients find the daemon by that path, and
   * without it `handoff status` would say no daemon runs (and a second one could be started).
   * Connections open on the old socket carry on. The old server is closed first, while the path
   * is empty: closing a server unlinks its path, whoever's socket is there by then.
   */
  async rebind(): Promise<void> {
    if (this.closing || this.socketState() !== 'missing') return;
    const old = this.server;
    this.server = null;
    this.bound = null;
    this.unbound = true;
    if (old) await new Promise<void>((resolve) => old.close(() => resolve()));
    await this.listen();
    this.unbound = false;
  }

  /**
   * A new connection. At the cap, the connection idle the longest is closed to make room (then
   * the subscriber quiet the longest, then the one that stalled half-way through a request line
   * the longest ago): clients that open connections and never use them can never lock out one
   * that has something to ask. Only when every held connection is waiting for an answer is the
   * new one refused.
   */
  private admit(socket: Socket): void {
    if (this.conns.size >= this.opts.maxConnections) {
      const victim = this.evictable();
      if (victim) {
        this.closedIdle += 1;
        this.bye(victim, RPC_ERRORS.IDLE, `closed to make room: the daemon holds at most ${this.opts.maxConnections} connections and this one was ${victim.idle || victim.subscribed ? 'idle the longest' : 'stalled half-way through a request line'}`);
      } else {
        this.refused += 1;
        socket.on('error', () => undefined);
        socket.write(encode(fail(null, { code: RPC_ERRORS.BUSY, message: `too many connections: all ${this.opts.maxConnections} are busy answering requests or have just connected; try again` })));
        closeWhenFlushed(socket);
        return;
      }
    }
    this.conns.add(new Conn(this.nextId++, socket, this));
  }

  private evictable(): Conn | null {
    let idle: Conn | null = null;
    let sub: Conn | null = null;
    let stalled: Conn | null = null;
    for (const c of this.conns) {
      if (c.fresh) continue;
      if (c.idle) {
        if (!idle || c.lastActive < idle.lastActive) idle = c;
      } else if (c.subscribed && !c.busy && (!sub || c.lastActive < sub.lastActive)) sub = c;
      else if (c.stalled && (!stalled || c.lastActive < stalled.lastActive)) stalled = c;
    }
    return idle ?? sub ?? stalled;
  }

  private bye(c: Conn, code: number, message: string): void {
    c.reject(null, { code, message });
  }

  private armIdleSweep(): void {
    if (this.idleTimer) clearInterval(this.idleTimer);
    if (this.closing) return;
    const every = Math.max(50, Math.min(5000, Math.floor(this.opts.idleTimeoutMs / 4)));
    this.idleTimer = setInterval(() => this.sweepIdle(), every);
    this.idleTimer.unref();
  }

  private sweepIdle(): void {
    const cutoff = Date.now() - this.opts.idleTimeoutMs;
    for (const c of [...this.conns]) {
      if (c.idle && c.lastActive < cutoff) {
        this.closedIdle += 1;
        this.bye(c, RPC_ERRORS.IDLE, `closed after ${this.opts.idleTimeoutMs} ms without a request (daemon.idle_timeout_ms)`);
      }
    }
  }

  forget(c: Conn): void {
    this.conns.delete(c);
  }

  async dispatch(conn: Conn, line: string): Promise<void> {
    const parsed = parseRequest(line);
    if (!parsed.ok) {
      if (parsed.notify !== true) conn.answer(encode(fail(parsed.id, parsed.error)));
      return;
    }
    const { request } = parsed;
    const id = request.id ?? null;
    const notify = request.id === undefined;
    if (!isMethod(request.method)) {
      if (!notify) conn.answer(encode(fail(id, { code: RPC_ERRORS.METHOD_NOT_FOUND, message: `method not found: "${request.method}"` })));
      return;
    }
    try {
      const result = await this.opts.handlers[request.method](request.params, conn);
      if (notify) return;
      if (isLarge(result)) await conn.answerInPieces(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`, jsonPieces(result), '}\n');
      else conn.answer(encode(ok(id, result)));
    } catch (e) {
      if (notify) return;
      if (e instanceof ParamError) conn.answer(encode(fail(id, { code: RPC_ERRORS.INVALID_PARAMS, message: e.message })));
      else if (e instanceof HandoffError) conn.answer(encode(fail(id, { code: RPC_ERRORS.APPLICATION, message: e.message, data: e.toJSON() })));
      else {
        this.opts.log.error({ err: e, method: request.method }, 'handler failed');
        conn.answer(encode(fail(id, { code: RPC_ERRORS.INTERNAL, message: `internal error in ${request.method}: ${(e as Error).message ?? String(e)}` })));
      }
    }
  }

  broadcast<M extends EventName>(event: M, params: EventParams[M]): void {
    if (this.conns.size === 0) return;
    // Redacted once here, not once per subscriber.
    const text = this.sanitize(encode(notification(event, params)));
    for (const c of this.conns) if (c.wants(event)) c.notify(text);
  }

  /** Idempotent: the same promise every time. Open connections are destroyed. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.idleTimer) clearInterval(this.idleTimer);
      for (const c of [...this.conns]) c.destroy();
      const s = this.server;
      this.server = null;
      if (!s) return;
      // Closing unlinks the path: where another daemon's socket is there now, this one is only
      // let go (the kernel closes it when the process exits) so as not to delete theirs.
      if (this.socketState() === 'replaced') s.unref();
      else await new Promise<void>((resolve) => s.close(() => resolve()));
    })();
    return this.closing;
  }
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export { EVENT_NAMES };
