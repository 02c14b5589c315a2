import { trimRecord } from './bounded.js';
import { LEDGER_LIMITS } from './ledger.js';
import type { Ledger } from './ledger.js';
import { fileKey, filePath } from './paths.js';
import { LIMITS, PATHS_FORM } from './state.js';
import type { FileRecord, SessionState } from './state.js';
import { WHAT_LIMITS } from './what-changed.js';

/**
 * A state carried from before written paths took one form (src/core/paths.ts) may list one file
 * twice: as `lib/a.ts` from a patch's text and as `C:\repo\lib\a.ts` from the harness's report.
 * Its entries are put in the new form and merged as the fold would have merged them, so an
 * existing store is upgraded where it stands: nothing is re-read, nothing rebuilt. The folder
 * relative paths are joined to is the latest the state recorded (the one a state keeps); a session
 * whose folder changed before the upgrade may join an old relative path to the newer folder.
 *
 * Returns whether any entry changed: the renders then no longer say what the state says, and the
 * session is re-rendered by its next build.
 */
export function upgradePaths(st: SessionState): boolean {
  if (st.paths === PATHS_FORM) return false;
  st.paths = PATHS_FORM;
  const cwd = st.meta.cwd;
  const l = st.ledger;
  let changed = false;

  const files = rekey(l.changed, cwd, mergeChange, 'later');
  changed ||= files.changed;
  l.changed = files.rec;
  l.changedTotal = Math.max(Object.keys(l.changed).length, l.changedTotal - files.merged);

  // A refusal met again keeps its first place and spelling and takes the later reason (markNotChanged's rule).
  const refused = rekey(l.notChanged, cwd, (_older, newer) => newer, 'first');
  // A file that changed is never also a write that did not happen (markChanged's rule).
  const changedKeys = new Set(Object.keys(l.changed).map(fileKey));
  for (const k of Object.keys(refused.rec)) {
    if (changedKeys.has(fileKey(k))) {
      delete refused.rec[k];
      refused.changed = true;
    }
  }
  changed ||= refused.changed;
  l.notChanged = refused.rec;

  const touched = rekey(st.files, cwd, mergeTouch, 'later');
  changed ||= touched.changed;
  st.files = touched.rec;
  st.filesTotal = Math.max(Object.keys(st.files).length, st.filesTotal - touched.merged);

  upgradeCalls(l, cwd);
  if (l.docs !== undefined) {
    // The first read of a file the user pointed at is the one kept (noteContext's rule).
    const docs: NonNullable<Ledger['docs']> = [];
    for (const d of l.docs) {
      const path = filePath(d.path, cwd);
      if (path !== d.path) changed = true;
      if (docs.some((x) => fileKey(x.path) === fileKey(path))) changed = true;
      else docs.push({ ...d, path });
    }
    l.docs = docs;
  }
  trimRecord(l.changed, LEDGER_LIMITS.FILES);
  trimRecord(l.notChanged, LEDGER_LIMITS.FILES);
  trimRecord(st.files, LIMITS.FILES);
  return changed;
}

/**
 * The record with every key in filePath's form, a file met twice merged as the fold keeps it: at
 * its later place with its later spelling (changed and touched files are in order of their latest
 * write or touch), or at its first (writes that did not happen).
 */
function rekey<T>(rec: Record<string, T>, cwd: string | undefined, merge: (older: T, newer: T) => T, place: 'first' | 'later'): { rec: Record<string, T>; changed: boolean; merged: number } {
  const out: Record<string, T> = {};
  const held = new Map<string, string>();
  let changed = false;
  let merged = 0;
  for (const [key, value] of Object.entries(rec)) {
    const path = filePath(key, cwd);
    if (path !== key) changed = true;
    const id = fileKey(path);
    const before = held.get(id);
    if (before === undefined) {
      out[path] = value;
      held.set(id, path);
    } else if (place === 'first') {
      out[before] = merge(out[before] as T, value);
      merged += 1;
      changed = true;
    } else {
      const older = out[before] as T;
      delete out[before];
      out[path] = merge(older, value);
      held.set(id, path);
      merged += 1;
      changed = true;
    }
  }
  return { rec: out, changed, merged };
}

type Change = Ledger['changed'][string];

/** What markChanged makes of two writes of one file: the later one, a creation staying one, both writes' items. */
function mergeChange(older: Change, newer: Change): Change {
  const rec: Change = { ...newer, how: older.how === 'create' ? 'create' : newer.how };
  const kept = (older.what ?? []).filter((x) => !x.startsWith('placeholders '));
  const items = [...(newer.what ?? []), ...kept].filter((x, i, all) => all.indexOf(x) === i).slice(0, WHAT_LIMITS.ITEMS);
  if (items.length > 0) rec.what = items;
  else delete rec.what;
  return rec;
}

function mergeTouch(older: FileRecord, newer: FileRecord): FileRecord {
  return { firstSeq: Math.min(older.firstSeq, newer.firstSeq), lastSeq: Math.max(older.lastSeq, newer.lastSeq), tool: newer.tool, count: older.count + newer.count };
}

/** Calls still waiting for their result name their writes and reads in the new form too (no render shows them). */
function upgradeCalls(l: Ledger, cwd: string | undefined): void {
  for (const call of Object.values(l.calls)) {
    if (call.writes !== undefined) call.writes = call.writes.map((w) => ({ ...w, path: filePath(w.path, cwd) }));
    if (call.read !== undefined) call.read = filePath(call.read, cwd);
  }
}
