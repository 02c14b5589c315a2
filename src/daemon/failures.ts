import { HandoffError, SourceError, describeError, resourceFix } from '../errors.js';

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

function errnoOf(e: unknown): string | undefined {
  if (e instanceof HandoffError) {
    const d = e.details?.errno;
    return typeof d === 'string' ? d : undefined;
  }
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/** A transcript this user may not read: its state, with the fix, retried once it can be read. */
function unreadable(path: string, code: string, message: string, errno: string): Failure {
  return { state: 'unreadable', code, message, fix: `let this user read it (\`chmod u+r ${path}\`); it is read as soon as it can be`, signature: `${code} ${errno}` };
}

/**
 * `race`: the transcript went away (or was replaced) between the stat and the read; the event
 * that follows settles it, so nothing is reported.
 */
export function describeFailure(e: unknown, path: string, exists: boolean): Failure | 'race' {
  const errno = errnoOf(e);
  if (e instanceof SourceError) {
    if (errno === 'ENOENT' || !exists) return 'race';
    if (errno === 'EACCES' || errno === 'EPERM') return unreadable(path, e.code, e.message, errno);
  }
  if (e instanceof HandoffError) return { state: 'error', code: e.code, message: e.message, ...(e.hint ? { fix: e.hint } : {}), signature: `${e.code} ${errno ?? e.message}` };
  // The transcript's mode changed between the stat and the open (a permission flipping): the
  // read was denied, which is the file's state, not a fault of handoffd's.
  if ((errno === 'EACCES' || errno === 'EPERM') && (e as { path?: unknown }).path === path) return unreadable(path, 'HANDOFF_ERR_SOURCE', `${path}: permission denied while reading it`, errno);
  // A folder or file of the store (or another the build reads) this user may not enter: the fix
  // is its mode, not a bug report (`chmod 000` on the store's projects/ said "a bug in handoffd").
  const where = (e as { path?: unknown }).path;
  if ((errno === 'EACCES' || errno === 'EPERM') && typeof where === 'string') {
    const syscall = (e as { syscall?: unknown }).syscall;
    return {
      state: 'error',
      code: 'HANDOFF_ERR_PERMISSION',
      message: `${where}: permission denied${typeof syscall === 'string' ? ` (${syscall})` : ''} while building ${path}`,
      fix: `let the daemon's user read and write it (\`ls -ld ${where}\`, then \`chmod u+rwx\` a folder, \`chmod u+rw\` a file); the build is retried with backoff and on the transcript's next change`,
      signature: `HANDOFF_ERR_PERMISSION ${errno} ${where}`,
    };
  }
  const resource = errno === undefined ? null : resourceFix({ code: errno });
  if (resource !== null) {
    const clients = errno === 'EMFILE' ? ', or close idle clients of the socket' : '';
    return { state: 'error', code: 'HANDOFF_ERR_RESOURCE', message: `${path}: ${errno} while building (${describeError(e)})`, fix: `${resource}${clients}; the build is retried`, signature: `HANDOFF_ERR_RESOURCE ${errno}` };
  }
  const message = describeError(e);
  return { state: 'error', code: 'HANDOFF_ERR_INTERNAL', message, fix: 'this is a bug in handoffd; the session is retried with backoff and on its next change', signature: `HANDOFF_ERR_INTERNAL ${message}` };
}

/**
 * Status keeps `max` error entries: past it, the oldest resolved go first, then the oldest still
 * failing that `keep` does not hold on to (a watched folder that cannot be listed: nothing else in
 * status says so). Removes them from `list` in place and returns those still failing.
 */
export function evictErrors<E extends { resolved_at: string | null }>(list: E[], max: number, keep: (e: E) => boolean): E[] {
  const open: E[] = [];
  while (list.length > max) {
    const resolved = list.findIndex((x) => x.resolved_at !== null);
    const i = resolved !== -1 ? resolved : list.findIndex((x) => !keep(x));
    const [gone] = list.splice(i === -1 ? 0 : i, 1);
    if (gone !== undefined && gone.resolved_at === null) open.push(gone);
  }
  return open;
}
