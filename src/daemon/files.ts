import { basename } from 'node:path';
import { escapeControls } from '../core/control-chars.js';
import type { BuildResult } from '../engine/index.js';
import type { SessionView } from '../control/protocol.js';
import type { IndexEntry } from '../store/index-file.js';
import type { FileStat } from '../watch/scan.js';

/**
 * What the daemon knows about each transcript it watches: the last stat, how far the last build
 * read, and the session it feeds. Memory only; the manifests are the truth.
 */

export interface FileRecord {
  path: string;
  stat: FileStat | null;
  /** Size, inode and times of the file when the last build read it (or gave up on it). */
  seenSize: number;
  seenIno: number;
  seenMtimeMs: number;
  seenCtimeMs: number;
  offset: number;
  dir: string | null;
  session: string | null;
  title: string | null;
  project: string | null;
  harness: string | null;
  turns: number;
  revision: number;
  pressure: SessionView['pressure'];
  updated: string | null;
  lastBuildAt: string | null;
  buildMs: number | null;
  state: SessionView['state'];
  halted?: NonNullable<SessionView['halted']>;
  error?: NonNullable<SessionView['error']>;
  unknownTypes: Record<string, number>;
  /** Older than the backfill window when first seen: left alone until it changes. */
  ignored?: { size: number; mtimeMs: number };
  /** Consecutive failed builds: the retry backs off on this. */
  failures: number;
  retry: NodeJS.Timeout | null;
}

const UNKNOWN_PRESSURE: SessionView['pressure'] = { level: 'unknown', ratio: null, used: null, limit: null };

export function newRecord(path: string): FileRecord {
  return {
    path,
    stat: null,
    seenSize: -1,
    seenIno: -1,
    seenMtimeMs: -1,
    seenCtimeMs: -1,
    offset: 0,
    dir: null,
    session: null,
    title: null,
    project: null,
    harness: null,
    turns: 0,
    revision: 0,
    pressure: UNKNOWN_PRESSURE,
    updated: null,
    lastBuildAt: null,
    buildMs: null,
    state: 'pending',
    unknownTypes: {},
    failures: 0,
    retry: null,
  };
}

export function fromIndex(e: IndexEntry): FileRecord | null {
  if (!e.source) return null;
  const r = newRecord(e.source.path);
  // What lies past the committed offset (a line still being written, or one a build stopped at
  // as corrupt) is read again once at start, so a halted session is reported again.
  r.seenSize = e.source.offset;
  r.seenIno = e.source.ino;
  r.seenMtimeMs = e.source.mtime_ms;
  r.offset = e.source.offset;
  r.dir = e.dir;
  r.session = e.id;
  r.title = e.title ?? null;
  r.project = e.project;
  r.harness = e.harness;
  r.turns = e.turns;
  r.revision = e.revisions;
  r.pressure = { level: e.pressure, ratio: null, used: null, limit: null };
  r.updated = e.updated;
  r.state = e.source_state === 'gone' ? 'gone' : 'idle';
  return r;
}

/** The file as it is now has been dealt with: only a change to it makes it worth building again. */
export function noteSeen(r: FileRecord): void {
  if (!r.stat) return;
  r.seenSize = r.stat.size;
  r.seenIno = r.stat.ino;
  r.seenMtimeMs = r.stat.mtimeMs;
  r.seenCtimeMs = r.stat.ctimeMs;
}

export function applyBuild(r: FileRecord, b: BuildResult, at: string): void {
  noteSeen(r);
  r.seenSize = b.size;
  r.seenMtimeMs = b.mtime_ms;
  r.offset = b.offset;
  r.dir = b.dir;
  r.session = b.session;
  r.title = b.title;
  r.project = b.project;
  r.harness = b.harness;
  r.turns = b.turns;
  r.revision = b.revision;
  r.pressure = { level: b.pressure.level, ratio: b.pressure.ratio, used: b.pressure.used, limit: b.pressure.limit };
  r.lastBuildAt = at;
  r.buildMs = b.build_ms;
  if (!b.up_to_date) r.updated = at;
  r.unknownTypes = b.unknown_types;
  r.failures = 0;
  delete r.error;
  if (!b.corrupt) delete r.halted;
}

export const isFailed = (r: FileRecord): boolean => r.state === 'error' || r.state === 'unreadable';

/**
 * Read to its end: nothing the last build has not seen. A halted file cannot move on, and a
 * failed one waits for its retry: neither holds a flush up.
 */
export function caughtUp(r: FileRecord): boolean {
  if (r.state === 'halted' || r.state === 'gone' || isFailed(r)) return true;
  if (r.ignored && !needsBuild(r)) return true;
  return r.stat !== null && r.stat.size === r.seenSize && r.stat.ino === r.seenIno && !editedInPlace(r);
}

export function needsBuild(r: FileRecord): boolean {
  if (r.stat === null) return r.state !== 'gone' && r.session !== null;
  // Back after it was gone (moved out and back, its folder unreadable for a while): as it was,
  // it is read again, and its handoff no longer says gone.
  if (r.state === 'gone') return true;
  if (r.ignored) {
    if (r.stat.size === r.ignored.size && r.stat.mtimeMs === r.ignored.mtimeMs) return false;
    delete r.ignored;
  }
  if (r.stat.ino !== r.seenIno || r.stat.size !== r.seenSize) return true;
  if (editedInPlace(r)) return true;
  // A failed build is tried again on any change: `touch`, or `chmod` making the file readable.
  return isFailed(r) && r.stat.ctimeMs !== r.seenCtimeMs;
}

/**
 * Written to since it was read, without growing: the same inode and size, a new modification
 * time. A transcript is appended to, so this is an edit in place (a line corrected, a secret
 * overwritten at its length) or a `touch`: its build hashes the whole prefix again (the
 * engine's `recheck`), which the bytes' running digest alone would not.
 */
export function editedInPlace(r: FileRecord): boolean {
  return r.stat !== null && r.stat.ino === r.seenIno && r.stat.size === r.seenSize && r.seenMtimeMs !== -1 && r.stat.mtimeMs !== r.seenMtimeMs;
}

/**
 * Written within the live window. A time ahead of the clock by more than the window (`touch -d
 * 2100-01-01`, a copy from a machine whose clock ran ahead) is no sign of life: such a file would
 * be live, and outrank every backfill, for good. A little ahead (clocks a few seconds apart) is.
 */
export function isLive(mtimeMs: number, liveWindowMs: number, now: number): boolean {
  return Math.abs(now - mtimeMs) < liveWindowMs;
}

export function view(r: FileRecord, liveWindowMs: number, now: number): SessionView | null {
  if (r.session === null || r.dir === null) {
    // A transcript halted or failing before its first turn has no session yet; it is still reported.
    if (r.state !== 'halted' && !isFailed(r)) return null;
    return { id: escapeControls(basename(r.path)), title: null, project: '', harness: '', dir: '', path: r.path, state: r.state, turns: 0, revision: 0, lag_bytes: r.stat?.size ?? 0, last_build_at: null, build_ms: null, pressure: r.pressure, updated: null, ...(r.halted ? { halted: r.halted } : {}), ...(r.error ? { error: r.error } : {}) };
  }
  let state = r.state;
  if (state === 'idle' || state === 'live') state = r.stat && isLive(r.stat.mtimeMs, liveWindowMs, now) ? 'live' : 'idle';
  const v: SessionView = {
    id: r.session,
    title: r.title,
    project: r.project ?? '',
    harness: r.harness ?? '',
    dir: r.dir,
    path: r.path,
    state,
    turns: r.turns,
    revision: r.revision,
    lag_bytes: r.stat ? Math.max(0, r.stat.size - r.offset) : 0,
    last_build_at: r.lastBuildAt,
    build_ms: r.buildMs,
    pressure: r.pressure,
    updated: r.updated,
  };
  if (r.halted) v.halted = r.halted;
  if (r.error) v.error = r.error;
  return v;
}
