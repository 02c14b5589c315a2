import { basename } from 'node:path';
import type { BuildResult } from '../build/index.js';
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
  /** Size and inode of the file when the last build read it to its end. */
  seenSize: number;
  seenIno: number;
  offset: number;
  dir: string | null;
  session: string | null;
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
  /** Consecutive failed builds (store write errors back off on this). */
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
    offset: 0,
    dir: null,
    session: null,
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
  r.offset = e.source.offset;
  r.dir = e.dir;
  r.session = e.id;
  r.project = e.project;
  r.harness = e.harness;
  r.turns = e.turns;
  r.revision = e.revisions;
  r.pressure = { level: e.pressure, ratio: null, used: null, limit: null };
  r.updated = e.updated;
  r.state = e.source_state === 'gone' ? 'gone' : 'idle';
  return r;
}

export function applyBuild(r: FileRecord, b: BuildResult, at: string): void {
  r.seenSize = b.size;
  r.seenIno = r.stat?.ino ?? r.seenIno;
  r.offset = b.offset;
  r.dir = b.dir;
  r.session = b.session;
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

/** Read to its end: nothing the last build has not seen (a halted file cannot move on). */
export function caughtUp(r: FileRecord): boolean {
  if (r.state === 'halted' || r.state === 'gone' || r.state === 'error') return true;
  if (r.ignored && !needsBuild(r)) return true;
  return r.stat !== null && r.stat.size === r.seenSize && r.stat.ino === r.seenIno;
}

export function needsBuild(r: FileRecord): boolean {
  if (r.stat === null) return r.state !== 'gone' && r.session !== null;
  if (r.ignored) {
    if (r.stat.size === r.ignored.size && r.stat.mtimeMs === r.ignored.mtimeMs) return false;
    delete r.ignored;
  }
  if (r.stat.ino !== r.seenIno) return true;
  return r.stat.size !== r.seenSize;
}

export function view(r: FileRecord, liveWindowMs: number, now: number): SessionView | null {
  if (r.session === null || r.dir === null) {
    // A transcript halted before its first turn has no session yet; it is still reported.
    if (r.state !== 'halted' && r.state !== 'error') return null;
    return { id: basename(r.path), project: '', harness: '', dir: '', path: r.path, state: r.state, turns: 0, revision: 0, lag_bytes: r.stat?.size ?? 0, last_build_at: null, build_ms: null, pressure: r.pressure, updated: null, ...(r.halted ? { halted: r.halted } : {}), ...(r.error ? { error: r.error } : {}) };
  }
  let state = r.state;
  if (state === 'idle' || state === 'live') state = r.stat && now - r.stat.mtimeMs < liveWindowMs ? 'live' : 'idle';
  const v: SessionView = {
    id: r.session,
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
