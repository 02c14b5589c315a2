import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionState, StoredState } from '../core/state.js';
import { READABLE_STATE_VERSIONS, upgradeState } from '../core/state.js';
import { upgradePaths } from '../core/upgrade-paths.js';
import { copyAtomic, cutBack, listDir, moveDir, readRegular, readRegularText, removeEmptyDir, removeFile, sweepStrayTemps, writeAtomic } from '../store/files.js';
import { FILES, STATE_FILE_RE } from '../store/layout.js';
import type { Manifest, StateAt } from '../store/manifest.js';
import { readManifest, stateBehind } from '../store/manifest.js';
import { decodeState } from '../store/state-file.js';
import { VerifyError } from '../errors.js';
import { crashPoint } from './faults.js';
import type { SessionChange } from './types.js';

/**
 * Opening a session directory for a build: the manifest is the truth, and everything past it
 * (timeline or TOOLS.md lines, a newer state file, temp files) is the residue of a build that was
 * killed before its commit point, and is cut away so that build is redone exactly once.
 */

export const RESET_MARKER = '.reset-pending';

/** The change a move is making, written before the folder moves and removed by its commit. */
export const CHANGE_MARKER = '.change-pending';

/** The pending change a marker holds, or null when there is none or it cannot be read. */
export function parseChangeMarker(text: string): SessionChange | null {
  try {
    const v = JSON.parse(text) as { title?: unknown; project?: unknown };
    const change: SessionChange = {};
    if (typeof v.title === 'string') change.title = v.title;
    if (typeof v.project === 'string') change.project = v.project;
    return change.title === undefined && change.project === undefined ? null : change;
  } catch {
    return null;
  }
}

export interface LoadedSession {
  dir: string;
  manifest: Manifest;
  state: SessionState | null;
  /** An interrupted build left residue: re-render even if the source has not grown. */
  dirty: boolean;
  /** A source reset was under way when a build was killed. */
  resetPending: boolean;
  /** A retitle or rename moved the folder and was killed before its commit (lifecycle.ts). */
  pendingChange: SessionChange | null;
  /** The store no longer matches its manifest (a file went missing or shrank): rebuild. */
  damaged: string | null;
  /**
   * The state as read is behind the commit (the manifest's `state_at`): the bytes from there to
   * the commit are folded into it again before anything new (fold.ts catchUp).
   */
  behind: StateAt | null;
}

export function utcStamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
}

export async function loadSession(dir: string): Promise<LoadedSession> {
  const manifest = await readManifest(dir);
  if (!manifest) throw new Error(`${dir} has no manifest.json`);
  let dirty = false;
  let damaged: string | null = null;
  const resetPending = existsSync(join(dir, RESET_MARKER));
  if ((await sweepStrayTemps(dir)) > 0) dirty = true;
  if (!resetPending) {
    for (const [file, bytes] of [
      [FILES.timeline, manifest.timeline_bytes],
      [FILES.tools, manifest.tools_bytes],
    ] as const) {
      try {
        if (await cutBack(join(dir, file), bytes)) dirty = true;
      } catch (e) {
        if ((e as { code?: string }).code === 'HANDOFF_ERR_STORE_WRITE') throw e;
        damaged = (e as Error).message;
      }
    }
  }
  const committed = Number(STATE_FILE_RE.exec(manifest.state_file)?.[1] ?? -1);
  for (const name of await listDir(dir)) {
    const m = STATE_FILE_RE.exec(name);
    if (!m || name === manifest.state_file) continue;
    await removeFile(join(dir, name));
    // An older state is a build that committed but died before tidying up; a newer one is a
    // build that died before its commit point.
    if (Number(m[1]) > committed) dirty = true;
  }
  crashPoint('after-cutback');
  for (const [file, bytes] of Object.entries(manifest.render_bytes ?? {})) {
    // A folder in a render's place would stop every build at its write (EISDIR), the renders
    // before it already replaced: it moves into history/ (never deleted) and the render is written.
    const st = await lstat(join(dir, file)).catch(() => null);
    if (st?.isDirectory() === true) await moveToHistory(dir, file);
    if (st?.isFile() !== true || st.size !== bytes) dirty = true;
  }
  // A folder in the state file's place is no state (the session is read again from its
  // transcript): moved into history/ as a render's would be, or the new state could never be
  // written there and every build failed.
  if (manifest.state_file && (await lstat(join(dir, manifest.state_file)).catch(() => null))?.isDirectory() === true) await moveToHistory(dir, manifest.state_file);
  const state = await readState(dir, manifest);
  if (state === null) dirty = true;
  // A state from before written paths took one form may list a file twice: merged here, and the
  // renders that still list it twice are rewritten by this build.
  else if (upgradePaths(state)) dirty = true;
  const pendingChange = await readChangeMarker(dir);
  return { dir, manifest, state, dirty, resetPending, pendingChange, damaged, behind: state === null ? null : stateBehind(manifest) };
}

async function readChangeMarker(dir: string): Promise<SessionChange | null> {
  try {
    return parseChangeMarker(await readRegularText(join(dir, CHANGE_MARKER)));
  } catch {
    return null;
  }
}

/** The state a manifest commits to, read and nothing else (null when missing, damaged or unreadable). */
export async function readState(dir: string, m: Manifest): Promise<SessionState | null> {
  if (!m.state_file) return null;
  try {
    const raw = await readRegular(join(dir, m.state_file));
    if (createHash('sha256').update(raw).digest('hex') !== m.state_sha256) return null;
    // Brotli since store format 5, gzip in 3 and 4, plain before: each read as it is.
    const json = await decodeState(m.state_file, raw);
    const st = JSON.parse(json.toString('utf8')) as StoredState;
    return READABLE_STATE_VERSIONS.includes(st.v) ? upgradeState(st) : null;
  } catch {
    return null;
  }
}

/**
 * Before a source reset rebuilds a session from byte 0, its timeline and TOOLS.md are copied
 * into history/ (never deleted) and a marker is written; only then are they emptied. A build
 * killed in between finds the marker and finishes the reset without copying again.
 */
export async function archiveForReset(dir: string, m: Manifest, reason: string, now: Date): Promise<string[]> {
  const base = `${utcStamp(now)}-${m.dir_name}-reset-r${m.revisions}`;
  const already = await listDir(join(dir, FILES.history));
  const files: string[] = [];
  for (const [file, bytes] of [
    [FILES.timeline, m.timeline_bytes],
    [FILES.tools, m.tools_bytes],
  ] as const) {
    const from = join(dir, file);
    // A reset killed before its marker was written copied these already: once is enough.
    const done = already.find((n) => n.endsWith(`-reset-r${m.revisions}.${file}`));
    if (done) files.push(done);
    else if (bytes > 0 && existsSync(from)) {
      const name = `${base}.${file}`;
      if (await copyAtomic(from, join(dir, FILES.history, name))) files.push(name);
    }
  }
  crashPoint('after-reset-copy');
  await writeAtomic(join(dir, RESET_MARKER), `${JSON.stringify({ reason, at: now.toISOString(), files })}\n`);
  return files;
}

/**
 * A folder whose manifest.json cannot be read (not JSON, or not a manifest: a disk error, an
 * editor's accident) commits nothing the store can trust: a build that took it for empty would
 * append every turn again after the old ones. Its files are set aside into history/ (never
 * deleted) as `<stamp>-damaged.<file>`, and the session is built afresh from its transcript.
 * The reason, or null when the folder holds no manifest or a readable one.
 */
export async function setAsideDamaged(dir: string, now: Date): Promise<string | null> {
  let why: unknown;
  try {
    await readManifest(dir);
    return null; // none, or a readable one
  } catch (e) {
    // Unreadable for now (EACCES after a `sudo handoff build`, EIO): the build fails and says so,
    // and the folder is left as it is. Built on as new, it had every turn appended a second time
    // after the old timeline, which the next build then cut mid-line.
    if (!(e instanceof VerifyError)) throw e;
    why = e.details?.why;
  }
  const base = `${utcStamp(now)}-damaged`;
  for (const file of [FILES.manifest, FILES.timeline, FILES.tools]) {
    const from = join(dir, file);
    const st = await lstat(from).catch(() => null);
    if (st === null) continue;
    // A regular file is copied; anything else in a store file's place (a folder, a FIFO) is moved
    // into history/ whole: it is not read, and not left to fail the rebuild. The manifest, which
    // goes next anyway, is moved (one of 3 GB is not copied).
    if (st.isFile() && file !== FILES.manifest) await copyAtomic(from, join(dir, FILES.history, `${base}.${file}`));
    else await moveDir(from, join(dir, FILES.history, `${base}.${file}`));
  }
  // With its manifest gone the folder commits nothing: clearUncommitted empties it next.
  await removeFile(join(dir, FILES.manifest));
  return `its manifest.json could not be read (${String(why)}); the damaged files were kept in history/ as ${base}.*`;
}

export async function emptyForRebuild(dir: string): Promise<void> {
  for (const file of [FILES.timeline, FILES.tools]) {
    // A folder in the file's place is not the store's to delete: it moves into history/.
    if ((await lstat(join(dir, file)).catch(() => null))?.isDirectory() === true) await moveToHistory(dir, file);
    else await rm(join(dir, file), { force: true });
  }
}

/** Moves a folder found where the session's `file` belongs into history/, as `<stamp>-a-folder.<file>`. */
async function moveToHistory(dir: string, file: string): Promise<void> {
  await moveDir(join(dir, file), join(dir, FILES.history, `${utcStamp(new Date())}-a-folder.${file}`));
}

/**
 * What a first build killed before its manifest left in a folder (nothing there is committed):
 * its appends and its state files go, so the next first build does not append to them. A folder
 * with a manifest is left alone (false).
 */
export async function clearUncommitted(dir: string, renders = false): Promise<boolean> {
  if (!existsSync(dir) || existsSync(join(dir, FILES.manifest))) return false;
  await emptyForRebuild(dir);
  for (const n of await listDir(dir)) if (STATE_FILE_RE.test(n)) await removeFile(join(dir, n));
  // Its renders too, when the folder itself must go (a folder is moved onto it): what is left
  // then (a history/ folder: never deleted) keeps it.
  if (renders) {
    for (const f of [FILES.handoff, FILES.summary, FILES.llm]) await removeFile(join(dir, f));
    await removeEmptyDir(dir);
  }
  return true;
}

/**
 * A reset that cannot finish (its transcript went away before the rebuild read it, or a build was
 * killed and the transcript is gone now): the manifest still seals the timeline and TOOLS.md the
 * reset had archived and emptied. Their copies come back from history/ (the copies stay there
 * too), and the marker goes: the session stands as last committed. False when nothing was
 * pending.
 */
export async function undoPendingReset(dir: string, m: Manifest): Promise<boolean> {
  const marker = join(dir, RESET_MARKER);
  if (!existsSync(marker)) return false;
  let files: string[] = [];
  try {
    const parsed = JSON.parse(await readRegularText(marker)) as { files?: unknown };
    files = Array.isArray(parsed.files) ? parsed.files.filter((f): f is string => typeof f === 'string' && !f.includes('/') && !f.includes('\\')) : [];
  } catch {
    // An unreadable marker names no copy: the archived files are looked for by the revision's name.
    files = (await listDir(join(dir, FILES.history))).filter((n) => n.includes(`-reset-r${m.revisions}.`));
  }
  for (const [file, bytes] of [
    [FILES.timeline, m.timeline_bytes],
    [FILES.tools, m.tools_bytes],
  ] as const) {
    // What stands there now is the rebuild's, uncommitted (or nothing): the archived copy replaces it.
    const copy = files.find((n) => n.endsWith(`.${file}`));
    const to = join(dir, file);
    if (bytes > 0 && copy !== undefined && (await copyAtomic(join(dir, FILES.history, copy), to))) await cutBack(to, bytes);
  }
  await clearResetMarker(dir);
  return true;
}

export async function clearResetMarker(dir: string): Promise<void> {
  await removeFile(join(dir, RESET_MARKER));
}
