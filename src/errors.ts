/**
 * Every failure the product reports has one class here, a stable `code` that tools and the
 * socket protocol can match on, and the exit code the CLI maps it to. Only `cli.ts` turns an
 * error into a process exit; everything else throws.
 *
 * Messages follow one shape: what was expected, what was found, and the fix (`hint`).
 */

import { shellWord } from './core/harness/extract.js';

export const EXIT = {
  OK: 0,
  FAILED: 1,
  USAGE: 2,
  AMBIGUOUS: 3,
  NOT_FOUND: 4,
  CORRUPT: 5,
  NO_DAEMON: 6,
  LOCKED: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface ErrorJson {
  code: string;
  name: string;
  message: string;
  hint?: string;
  exit: number;
  details?: Record<string, unknown>;
}

export abstract class HandoffError extends Error {
  abstract readonly code: string;
  abstract readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(message: string, opts: { hint?: string; cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.hint = opts.hint;
    this.details = opts.details;
  }

  toJSON(): ErrorJson {
    const out: ErrorJson = { code: this.code, name: this.name, message: this.message, exit: this.exitCode };
    if (this.hint !== undefined) out.hint = this.hint;
    if (this.details !== undefined) out.details = this.details;
    return out;
  }
}

/** Bad command line: unknown command or option, missing argument. */
export class UsageError extends HandoffError {
  readonly code = 'HANDOFF_ERR_USAGE';
  readonly exitCode = EXIT.USAGE;
}

/** A config file that exists but cannot be used. Never falls back to another store. */
export class ConfigError extends HandoffError {
  readonly code = 'HANDOFF_ERR_CONFIG';
  readonly exitCode = EXIT.USAGE;
}

/** An id prefix that matches more than one session. */
export class AmbiguousPrefixError extends HandoffError {
  readonly code = 'HANDOFF_ERR_AMBIGUOUS';
  readonly exitCode = EXIT.AMBIGUOUS;
}

/** An id prefix that matches nothing, or a store with no handoffs. */
export class NotFoundError extends HandoffError {
  readonly code = 'HANDOFF_ERR_NOT_FOUND';
  readonly exitCode = EXIT.NOT_FOUND;
}

/** A transcript from which not a single turn parsed. */
export class NoTurnsError extends HandoffError {
  readonly code = 'HANDOFF_ERR_NO_TURNS';
  readonly exitCode = EXIT.NOT_FOUND;
}

/** A complete line of a transcript that is not valid JSON. */
export class CorruptLineError extends HandoffError {
  readonly code = 'HANDOFF_ERR_CORRUPT_LINE';
  readonly exitCode = EXIT.CORRUPT;
  constructor(
    readonly file: string,
    readonly line: number,
    readonly offset: number,
    reason: string,
    hint?: string,
  ) {
    super(`${file}:${line}: line ${line} (byte offset ${offset}) is not valid JSON: ${reason}`, {
      hint:
        hint ??
        'repair or delete that line in the transcript, or pass --allow-bad-lines ' +
          '(watch.allow_bad_lines for the daemon) to count and skip it',
      details: { file, line, offset },
    });
  }
}

/** A source file that cannot be read (missing, permission, not a file). */
export class SourceError extends HandoffError {
  readonly code = 'HANDOFF_ERR_SOURCE';
  readonly exitCode = EXIT.NOT_FOUND;
}

/** A write to the store failed (ENOSPC, EACCES, ...). The previous manifest stays in force. */
export class StoreWriteError extends HandoffError {
  readonly code = 'HANDOFF_ERR_STORE_WRITE';
  readonly exitCode = EXIT.FAILED;
}

/** A session directory whose contents do not match its manifest. */
export class VerifyError extends HandoffError {
  readonly code = 'HANDOFF_ERR_VERIFY';
  readonly exitCode = EXIT.FAILED;
}

/** The quality gate found the handoff not ready for transfer. */
export class CheckFailedError extends HandoffError {
  readonly code = 'HANDOFF_ERR_CHECK';
  readonly exitCode = EXIT.FAILED;
}

/** A document the product produced does not match its own JSON Schema (a bug or a damaged store). */
export class SchemaError extends HandoffError {
  readonly code = 'HANDOFF_ERR_SCHEMA';
  readonly exitCode = EXIT.FAILED;
}

/** No daemon answers on the control socket. */
export class DaemonNotRunningError extends HandoffError {
  readonly code = 'HANDOFF_ERR_NO_DAEMON';
  readonly exitCode = EXIT.NO_DAEMON;
}

/** Another live daemon holds the store's lock. */
export class StoreLockedError extends HandoffError {
  readonly code = 'HANDOFF_ERR_LOCKED';
  readonly exitCode = EXIT.LOCKED;
}

/** A control-socket problem that is not "no daemon": path too long, a non-socket file, ... */
export class SocketError extends HandoffError {
  readonly code = 'HANDOFF_ERR_SOCKET';
  readonly exitCode = EXIT.FAILED;
}

/** `flush` did not see every transcript read to its end in time. */
export class FlushTimeoutError extends HandoffError {
  readonly code = 'HANDOFF_ERR_FLUSH_TIMEOUT';
  readonly exitCode = EXIT.FAILED;
}

/** The user's service manager (systemd, launchd) could not install, start or stop handoffd. */
export class ServiceError extends HandoffError {
  readonly code = 'HANDOFF_ERR_SERVICE';
  readonly exitCode = EXIT.FAILED;
}

/** A harness's settings file that `handoff hooks` cannot change: not strict JSON, read-only, changed meanwhile. */
export class SettingsError extends HandoffError {
  readonly code = 'HANDOFF_ERR_SETTINGS';
  readonly exitCode = EXIT.FAILED;
}

/** An error reported by the daemon over the socket, re-raised on the client side. */
export class RemoteError extends HandoffError {
  readonly code: string;
  readonly exitCode: ExitCode;
  constructor(json: ErrorJson) {
    super(json.message, { ...(json.hint === undefined ? {} : { hint: json.hint }), ...(json.details ? { details: json.details } : {}) });
    this.code = json.code;
    // The daemon-side class, so logs and `--json` output read the same either way.
    this.name = json.name;
    this.exitCode = (Object.values(EXIT) as number[]).includes(json.exit) ? (json.exit as ExitCode) : EXIT.FAILED;
  }
}

/** Every error class, so tests can keep the codes and docs in sync. */
export const ERROR_CLASSES = [
  UsageError,
  ConfigError,
  AmbiguousPrefixError,
  NotFoundError,
  NoTurnsError,
  CorruptLineError,
  SourceError,
  StoreWriteError,
  VerifyError,
  CheckFailedError,
  SchemaError,
  DaemonNotRunningError,
  StoreLockedError,
  SocketError,
  FlushTimeoutError,
  ServiceError,
  SettingsError,
] as const;

export function isHandoffError(e: unknown): e is HandoffError {
  return e instanceof HandoffError;
}

/** A readable one-line description of any thrown value, for logs. */
export function describeError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return typeof code === 'string' && !e.message.includes(code) ? `${code}: ${e.message}` : e.message;
  }
  return String(e);
}

/**
 * What to do when the machine ran out of what a command or a build needs, by the error's code
 * (`EMFILE`: `ulimit -n 32`), or null for any other error: not a bug of handoffd's. The caller
 * says what happens next (the command is run again; the build is retried).
 */
export function resourceFix(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? (RESOURCE_FIXES[code] ?? null) : null;
}

/**
 * A file or folder this user may not use, or that is not what it should be, met outside a store
 * write (those are StoreWriteErrors): the daemon's start reading INDEX.json a `sudo handoff build`
 * left root-only, a plain file at `<root>/.handoffd`. The system's message and a fix, as for the
 * resources above: no bug of handoffd's.
 */
export function accessFix(e: unknown): string | null {
  const err = e as { code?: unknown; path?: unknown } | null;
  const path = typeof err?.path === 'string' ? err.path : null;
  if (path === null) return null;
  const quoted = shellWord(path);
  switch (err?.code) {
    case 'EACCES':
    case 'EPERM':
      return `this user may not use ${quoted}: a file another user made (a \`sudo handoff …\` run once) is given back with \`sudo chown -R "$(id -un)" ${quoted}\`; else fix its mode (\`chmod u+rw\`)`;
    case 'ENOTDIR':
      return `a file stands where a folder is expected on the way to ${quoted}: move that file aside (or remove it)`;
    case 'EEXIST':
      // mkdir of a folder whose name a file (or a link) already has.
      return (err as { syscall?: unknown }).syscall === 'mkdir' ? `a file stands where a folder is expected at ${quoted}: move that file aside (or remove it)` : null;
    case 'EISDIR':
      return `a folder stands where a file is expected at ${quoted}: move it aside`;
    case 'EROFS':
      return `${quoted} is on a read-only file system: point HANDOFFS_ROOT (or --root) at a writable folder`;
    default:
      return null;
  }
}

const RESOURCE_FIXES: Readonly<Record<string, string>> = {
  EMFILE: 'this process reached its open-file limit: raise it (`ulimit -n 1024`, or LimitNOFILE= in a service unit)',
  ENFILE: "the system's open-file table is full: close programs (or raise fs.file-max)",
  ENOMEM: 'the machine is out of memory: free some',
  ENOSPC: 'the disk is full: free space',
};
