import type { ErrorJson } from '../errors.js';
import { jsonErrorReason } from '../core/ingest.js';

/**
 * The control socket's protocol, defined once for the server and the client: JSON-RPC 2.0, one
 * JSON object per line (UTF-8, `\n`-terminated), requests of at most MAX_REQUEST_BYTES.
 * docs/PROTOCOL.md describes it for people; this module is the truth.
 */

export const PROTOCOL_VERSION = 1;
export const MAX_REQUEST_BYTES = 1 << 20;

export const RPC_ERRORS = {
  PARSE: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL: -32603,
  /** A HandoffError; `data` carries its stable code, exit code and fix. */
  APPLICATION: -32000,
  /** A request line stayed unfinished longer than daemon.request_timeout_ms (from its first byte). */
  TIMEOUT: -32001,
  /** The connection was closed for sitting idle (daemon.idle_timeout_ms), or to make room for a new one. */
  IDLE: -32002,
  /** A new connection refused: every connection the daemon holds (daemon.max_connections) is busy. */
  BUSY: -32003,
} as const;

export type Id = string | number | null;

export interface Request {
  jsonrpc: '2.0';
  id?: Id;
  method: string;
  params?: unknown;
}

export interface RpcError {
  code: number;
  message: string;
  data?: ErrorJson | Record<string, unknown>;
}

export type Response = { jsonrpc: '2.0'; id: Id; result: unknown } | { jsonrpc: '2.0'; id: Id; error: RpcError };

export interface Notification<M extends EventName = EventName> {
  jsonrpc: '2.0';
  method: M;
  params: EventParams[M];
}

// ------------------------------------------------------------------ methods

export interface PressureView {
  level: string;
  ratio: number | null;
  used: number | null;
  limit: number | null;
}

export type SessionState = 'live' | 'idle' | 'gone' | 'halted' | 'pending' | 'error' | 'unreadable';

export interface SessionView {
  id: string;
  /** The session's title (from the transcript, or given with `handoff retitle`), or null. */
  title: string | null;
  project: string;
  harness: string;
  dir: string;
  path: string;
  state: SessionState;
  turns: number;
  revision: number;
  lag_bytes: number;
  last_build_at: string | null;
  build_ms: number | null;
  pressure: PressureView;
  updated: string | null;
  halted?: { file: string; line: number; offset: number; fix: string; message: string };
  /** Why the last build failed (state error or unreadable), and when it is tried again. */
  error?: { code: string; message: string; fix?: string; attempts: number; retry_at: string | null };
  /** Other paths of the same transcript file (a hard link, a folder watched twice or bind-mounted): one session, listed once. */
  also_paths?: string[];
}

export interface ConnectionStats {
  open: number;
  max: number;
  subscribers: number;
  /** Connections not being read because their answers are not being read (back-pressure). */
  paused: number;
  /** Answers and notifications written but not yet taken by the clients. */
  pending_output_bytes: number;
  /** Closed since start for sitting idle, or to make room for a new connection. */
  closed_idle: number;
  /** Refused since start because every held connection was busy. */
  refused: number;
}

export interface StatusResult {
  name: 'handoffd';
  version: string;
  pid: number;
  root: string;
  socket: string;
  started_at: string;
  uptime_s: number;
  /** `resolved`: the real path watched when `path` is a symbolic link (else `path` itself). */
  watch: { path: string; exists: boolean; resolved: string; files: number }[];
  files: number;
  sessions: SessionView[];
  queue: { waiting: number; running: string | null; live_waiting: number; in_workers: string[] };
  /** `failed`: ended in error or unreadable; `pending`: no complete turn yet (not a failure). */
  backfill: { total: number; done: number; failed: number; pending: number; running: boolean; started_at: string | null; finished_at: string | null };
  /** Identical errors of one path are one entry: `count` times since `first_at`, the last at `at`. */
  errors: { at: string; first_at: string; count: number; path: string | null; code: string; message: string; resolved_at: string | null }[];
  /** Entries given up, oldest first, to keep `errors` to its 50 latest. */
  errors_dropped: number;
  unknown_types: Record<string, Record<string, number>>;
  memory: { rss_mb: number; heap_used_mb: number };
  /** How late the daemon's event loop ran since start (how long any request could have waited on it), ms. */
  event_loop: { delay_max_ms: number; delay_p99_ms: number };
  connections: ConnectionStats;
}

export interface BuildParams {
  /** The transcript; or give `id` to rebuild a session of the store from its recorded transcript. */
  path?: string;
  id?: string;
  session?: string;
  project?: string;
  harness?: string;
  model?: string;
  objective?: string;
  allow_bad_lines?: boolean;
  final?: boolean;
}

/** Each method: its params and result, named once. */
export interface Methods {
  hello: { params: Record<string, never> | undefined; result: { name: 'handoffd'; version: string; protocol: number; pid: number; root: string } };
  status: { params: Record<string, never> | undefined; result: StatusResult };
  'sessions.list': { params: { project?: string } | undefined; result: unknown[] };
  'session.get': { params: { id: string }; result: { session: unknown; summary: unknown } };
  verify: { params: { id?: string; all?: boolean; source?: boolean }; result: unknown[] };
  build: { params: BuildParams; result: Record<string, unknown> };
  'session.update': { params: { id: string; title?: string; project?: string }; result: Record<string, unknown> };
  finalize: { params: { id: string }; result: Record<string, unknown> };
  checkpoint: { params: { id: string; note?: string }; result: Record<string, unknown> };
  flush: { params: { timeout_ms?: number } | undefined; result: { ok: true; rounds: number; files: number; ms: number } };
  subscribe: { params: { events?: EventName[] } | undefined; result: { ok: true; events: EventName[] } };
  shutdown: { params: Record<string, never> | undefined; result: { ok: true } };
}

export type MethodName = keyof Methods;
export const METHOD_NAMES: readonly MethodName[] = ['hello', 'status', 'sessions.list', 'session.get', 'verify', 'build', 'session.update', 'finalize', 'checkpoint', 'flush', 'subscribe', 'shutdown'];

// ------------------------------------------------------------------ notifications

export interface EventParams {
  built: { session: string; project: string; dir: string; revision: number; turns: number; new_turns: number; pressure: PressureView; build_ms: number; at: string; reset: string | null };
  pressure: { session: string; from: string | null; to: string; ratio: number | null; at: string };
  compaction: { session: string; compactions: number; finalized: string | null; at: string };
  halted: { session: string | null; file: string; line: number; offset: number; fix: string; message: string; at: string };
  error: { session: string | null; path: string | null; code: string; message: string; fix?: string; at: string };
}

export type EventName = keyof EventParams;
export const EVENT_NAMES: readonly EventName[] = ['built', 'pressure', 'compaction', 'halted', 'error'];

// ------------------------------------------------------------------ guards and codecs

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `notify`: a well-formed notification whose params are wrong; JSON-RPC never answers those. */
export type Parsed = { ok: true; request: Request } | { ok: false; id: Id; error: RpcError; notify?: boolean };

/** Decodes one request line; every malformed input becomes a JSON-RPC error, never a throw. */
export function parseRequest(line: string): Parsed {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    return { ok: false, id: null, error: { code: RPC_ERRORS.PARSE, message: `parse error: expected one JSON object per line (${jsonErrorReason(e)})` } };
  }
  if (!isObj(v)) return { ok: false, id: null, error: { code: RPC_ERRORS.INVALID_REQUEST, message: 'invalid request: expected a JSON object (batches are not supported)' } };
  const id = v.id;
  const validId = id === undefined || id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  const rid: Id = validId ? ((id as Id | undefined) ?? null) : null;
  if (v.jsonrpc !== '2.0') return { ok: false, id: rid, error: { code: RPC_ERRORS.INVALID_REQUEST, message: 'invalid request: "jsonrpc" must be "2.0"' } };
  if (!validId) return { ok: false, id: null, error: { code: RPC_ERRORS.INVALID_REQUEST, message: 'invalid request: "id" must be a string, a number or null' } };
  if (typeof v.method !== 'string' || v.method.length === 0) return { ok: false, id: rid, error: { code: RPC_ERRORS.INVALID_REQUEST, message: 'invalid request: "method" must be a non-empty string' } };
  if (v.params !== undefined && !isObj(v.params)) return { ok: false, id: rid, error: { code: RPC_ERRORS.INVALID_PARAMS, message: 'invalid params: "params" must be an object (named parameters)' }, ...(id === undefined ? { notify: true } : {}) };
  const req: Request = { jsonrpc: '2.0', method: v.method };
  if (id !== undefined) req.id = rid;
  if (v.params !== undefined) req.params = v.params;
  return { ok: true, request: req };
}

export function isMethod(name: string): name is MethodName {
  return (METHOD_NAMES as readonly string[]).includes(name);
}

export function encode(msg: Request | Response | Notification): string {
  return `${JSON.stringify(msg)}\n`;
}

export function ok(id: Id, result: unknown): Response {
  return { jsonrpc: '2.0', id, result };
}

export function fail(id: Id, error: RpcError): Response {
  return { jsonrpc: '2.0', id, error };
}

export function notification<M extends EventName>(method: M, params: EventParams[M]): Notification<M> {
  return { jsonrpc: '2.0', method, params };
}

/** Param checks shared by the server's handlers: a missing or mistyped field is INVALID_PARAMS. */
export class ParamError extends Error {}

export function requireString(params: unknown, key: string): string {
  const v = isObj(params) ? params[key] : undefined;
  if (typeof v !== 'string' || v.length === 0) throw new ParamError(`invalid params: "${key}" must be a non-empty string`);
  return v;
}

export function optionalString(params: unknown, key: string): string | undefined {
  const v = isObj(params) ? params[key] : undefined;
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new ParamError(`invalid params: "${key}" must be a string`);
  return v;
}

export function optionalBool(params: unknown, key: string): boolean | undefined {
  const v = isObj(params) ? params[key] : undefined;
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw new ParamError(`invalid params: "${key}" must be true or false`);
  return v;
}

export function optionalNumber(params: unknown, key: string): number | undefined {
  const v = isObj(params) ? params[key] : undefined;
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new ParamError(`invalid params: "${key}" must be a non-negative number`);
  return v;
}

// ------------------------------------------------------------------ field lists (for the documentation)

/** A list naming every key of T: the compiler refuses one that misses a key or names another. */
type Complete<T, L extends readonly (keyof T)[]> = Exclude<keyof T, L[number]> extends never ? L : never;
const allOf =
  <T>() =>
  <const L extends readonly (keyof T)[]>(list: Complete<T, L>): L =>
    list;

/**
 * The fields of each shape, as values: test/unit/protocol-doc.test.ts checks that PROTOCOL.md
 * names exactly these, and the compiler that these are exactly the interfaces' keys.
 */
export const PROTOCOL_FIELDS = {
  hello: allOf<Methods['hello']['result']>()(['name', 'version', 'protocol', 'pid', 'root']),
  status: allOf<StatusResult>()(['name', 'version', 'pid', 'root', 'socket', 'started_at', 'uptime_s', 'watch', 'files', 'sessions', 'queue', 'backfill', 'errors', 'errors_dropped', 'unknown_types', 'memory', 'event_loop', 'connections']),
  event_loop: allOf<StatusResult['event_loop']>()(['delay_max_ms', 'delay_p99_ms']),
  watch: allOf<StatusResult['watch'][number]>()(['path', 'exists', 'resolved', 'files']),
  backfill: allOf<StatusResult['backfill']>()(['total', 'done', 'failed', 'pending', 'running', 'started_at', 'finished_at']),
  errors: allOf<StatusResult['errors'][number]>()(['at', 'first_at', 'count', 'path', 'code', 'message', 'resolved_at']),
  memory: allOf<StatusResult['memory']>()(['rss_mb', 'heap_used_mb']),
  connections: allOf<ConnectionStats>()(['open', 'max', 'subscribers', 'paused', 'pending_output_bytes', 'closed_idle', 'refused']),
  session: allOf<SessionView>()(['id', 'title', 'project', 'harness', 'dir', 'path', 'state', 'turns', 'revision', 'lag_bytes', 'last_build_at', 'build_ms', 'pressure', 'updated', 'halted', 'error', 'also_paths']),
  sessionError: allOf<NonNullable<SessionView['error']>>()(['code', 'message', 'fix', 'attempts', 'retry_at']),
  events: {
    built: allOf<EventParams['built']>()(['session', 'project', 'dir', 'revision', 'turns', 'new_turns', 'pressure', 'build_ms', 'at', 'reset']),
    pressure: allOf<EventParams['pressure']>()(['session', 'from', 'to', 'ratio', 'at']),
    compaction: allOf<EventParams['compaction']>()(['session', 'compactions', 'finalized', 'at']),
    halted: allOf<EventParams['halted']>()(['session', 'file', 'line', 'offset', 'fix', 'message', 'at']),
    error: allOf<EventParams['error']>()(['session', 'path', 'code', 'message', 'fix', 'at']),
  },
} as const;

export const SESSION_STATES: readonly SessionState[] = ['live', 'idle', 'pending', 'halted', 'error', 'unreadable', 'gone'];
