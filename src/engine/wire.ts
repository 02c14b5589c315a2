import { ERROR_CLASSES, HandoffError } from '../errors.js';
import type { BuildResult } from './types.js';

/**
 * What crosses between a build worker and the main thread. Messages are structured clones,
 * which keep plain data and lose classes: an error is sent as its fields and rebuilt as the
 * same class on the other side, so `instanceof CorruptLineError` and the stable `code` (and an
 * errno's `code`, which failures.ts reads) still hold.
 */

export interface WireError {
  /** The HandoffError's class name, when it was one. */
  handoff: string | null;
  message: string;
  stack: string | undefined;
  /** Own fields: code, exitCode, hint, details, and a class's own (file, line, offset). */
  fields: Record<string, unknown>;
}

export type WireResult = Omit<BuildResult, 'corrupt'> & { corrupt: WireError | null };

export function errorToWire(e: unknown): WireError {
  if (!(e instanceof Error)) return { handoff: null, message: String(e), stack: undefined, fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) if (isCloneable(v)) fields[k] = v;
  return { handoff: e instanceof HandoffError ? e.constructor.name : null, message: e.message, stack: e.stack, fields };
}

const CLASSES = new Map<string, (typeof ERROR_CLASSES)[number]>(ERROR_CLASSES.map((c) => [c.name, c]));

export function errorFromWire(w: WireError): Error {
  const cls = w.handoff === null ? undefined : CLASSES.get(w.handoff);
  // The constructor is not run again: the fields it set (and the message it composed) are copied.
  const e = (cls ? Object.create(cls.prototype as object) : new Error(w.message)) as Error;
  Object.defineProperty(e, 'message', { value: w.message, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(e, 'stack', { value: w.stack, writable: true, configurable: true, enumerable: false });
  Object.assign(e, w.fields);
  return e;
}

export function resultToWire(r: BuildResult): WireResult {
  return { ...r, corrupt: r.corrupt ? errorToWire(r.corrupt) : null };
}

export function resultFromWire(w: WireResult): BuildResult {
  return { ...w, corrupt: w.corrupt ? (errorFromWire(w.corrupt) as BuildResult['corrupt']) : null };
}

function isCloneable(v: unknown): boolean {
  return typeof v !== 'function' && typeof v !== 'symbol' && !(v instanceof Error);
}
