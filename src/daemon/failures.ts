import { HandoffError, SourceError, describeError } from '../errors.js';

/**
 * What a failed build means for the daemon: which state the transcript is in, what status and
 * the log say, and the fix. Every failure is retried with backoff and at once when the file
 * changes; none is final (the cause may be outside the file: permissions, the disk, the
 * open-file limit).
 */

export interface Failure {
  state: 'error' | 'unreadable';
  code: string;
  message: string;
  fix?: string;
  /**
   * What makes two failures the same one: the code and the errno, or the message. A write
   * error's message names a temp file that changes on every try; its errno does not.
   */
  signature: string;
}

const RETRY_BASE_MS = 1000;
const RETRY_MAX_MS = 60_000;

/** 1 s, doubling, at most 60 s. */
export function retryDelayMs(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(6, Math.max(0, failures - 1)));
}

const RESOURCE_ERRNOS: Record<string, string> = {
  EMFILE: 'raise the open-file limit (`ulimit -n`, or LimitNOFILE= in the service unit) or close idle clients of the socket; the build is retried',
  ENFILE: 'the system-wide open-file table is full; close programs or raise fs.file-max; the build is retried',
  ENOMEM: 'the machine is out of memory; the build is retried',
};

function errnoOf(e: unknown): string | undefined {
  if (e instanceof HandoffError) {
    const d = e.details?.errno;
    return typeof d === 'string' ? d : undefined;
  }
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/**
 * `race`: the transcript went away (or was replaced) between the stat and the read; the event
 * that follows settles it, so nothing is reported.
 */
export function describeFailure(e: unknown, path: string, exists: boolean): Failure | 'race' {
  const errno = errnoOf(e);
  if (e instanceof SourceError) {
    if (errno === 'ENOENT' || !exists) return 'race';
    if (errno === 'EACCES' || errno === 'EPERM') {
      return { state: 'unreadable', code: e.code, message: e.message, fix: `let this user read it (\`chmod u+r ${path}\`); it is read as soon as it can be`, signature: `${e.code} ${errno}` };
    }
  }
  if (e instanceof HandoffError) return { state: 'error', code: e.code, message: e.message, ...(e.hint ? { fix: e.hint } : {}), signature: `${e.code} ${errno ?? e.message}` };
  if (errno && RESOURCE_ERRNOS[errno]) {
    return { state: 'error', code: 'HANDOFF_ERR_RESOURCE', message: `${path}: ${errno} while building (${describeError(e)})`, fix: RESOURCE_ERRNOS[errno], signature: `HANDOFF_ERR_RESOURCE ${errno}` };
  }
  const message = describeError(e);
  return { state: 'error', code: 'HANDOFF_ERR_INTERNAL', message, fix: 'this is a bug in handoffd; the session is retried with backoff and on its next change', signature: `HANDOFF_ERR_INTERNAL ${message}` };
}
