import { join } from 'node:path';
import { canonicalJson, sha256Hex } from '../core/canonical.js';
import { isSafeDirName } from '../core/naming.js';
import type { GitEvidence } from '../core/evidence.js';
import type { Pressure } from '../core/pressure.js';
import type { Harness, TurnClass } from '../core/types.js';
import { VerifyError } from '../errors.js';
import { readRegularText, writeError } from './files.js';
import { FILES } from './layout.js';
import { notJsonReason } from '../core/ingest.js';

/** manifest.json (SPEC §5): the commit point of every build, sealed by its own canonical hash. */

export const MANIFEST_SCHEMA_VERSION = '1.0';

export interface SourceRecord {
  path: string;
  dev: number;
  ino: number;
  /** sha256 of the first `fingerprint_bytes` (= min(size, 1024)) bytes. */
  fingerprint: string;
  fingerprint_bytes: number;
  /** The byte just past the last complete line consumed. */
  offset: number;
  raw_sha256: string;
  lines: number;
  size: number;
  mtime_ms: number;
  resets: number;
}

export interface HistoryEntry {
  at: string;
  file: string;
  kind: 'finalize' | 'checkpoint' | 'reset';
  reason: string;
  revision: number;
}

export type ProjectSource = 'flag' | 'config' | 'git' | 'cwd' | 'harness-folder' | 'unsorted' | 'index';

export interface Manifest {
  schema_version: string;
  session: string;
  uuid: string | null;
  chain_id: string;
  project: string;
  project_source: ProjectSource;
  dir_name: string;
  harness: Harness;
  model: string | null;
  title: string | null;
  cwd: string | null;
  created_at: string;
  updated_at: string;
  source_paths: string[];
  sources: SourceRecord[];
  source_state: 'present' | 'gone';
  watermark: number;
  raw_sha256: string;
  raw_bytes: number;
  revisions: number;
  turn_count: number;
  counts: Record<TurnClass, number>;
  skipped_lines: number;
  bad_lines: number;
  oversized_lines: number;
  unknown_types: Record<string, number>;
  timeline_head: string;
  timeline_bytes: number;
  tools_bytes: number;
  render_sha256: Record<string, string>;
  /** Sizes of the rewritten renders: opening a session compares them (cheap) to catch a render
   * lost to a power failure (renders are not fsynced; the manifest is). */
  render_bytes: Record<string, number>;
  evidence_contract_sha256?: string;
  state_file: string;
  state_sha256: string;
  /**
   * Where in the source the state file was folded to. Before `sources[0].offset` when a live
   * build of the daemon left the state behind (docs/FORMAT.md): the next build that reads the
   * state from disk folds the bytes in between into it again, writing nothing. Absent in a
   * manifest written before it existed: that state file is at the commit, and of a version that
   * is never left behind.
   */
  state_at?: StateAt;
  context: Pressure;
  git: GitEvidence;
  redactions: number;
  quality: { transfer_ready: boolean; failed: string[] };
  finalized: HistoryEntry[];
  parent_session: string | null;
  subagents: string[];
  prev_project: string | null;
  titled_from: string[];
  /** Set by `retitle`; beats any title the transcript records. */
  title_override: string | null;
  objective: string | null;
  objective_override: string | null;
  manifest_sha256: string;
}

/** A position in the source: the byte just past the last line folded, and the lines read. */
export interface StateAt {
  offset: number;
  lines: number;
}

/** Where the state file stands when it is behind the commit; null when it is at the commit. */
export function stateBehind(m: Manifest): StateAt | null {
  const at = m.state_at;
  const src = m.sources[0];
  return at !== undefined && src !== undefined && at.offset < src.offset ? at : null;
}

export type UnsealedManifest = Omit<Manifest, 'manifest_sha256'>;

export function manifestHash(m: UnsealedManifest | Manifest): string {
  const { manifest_sha256: _drop, ...rest } = m as Manifest;
  return sha256Hex(canonicalJson(rest));
}

export function seal(m: UnsealedManifest): Manifest {
  return { ...m, manifest_sha256: manifestHash(m) };
}

export function serializeManifest(m: Manifest): string {
  return `${JSON.stringify(m, null, 2)}\n`;
}

/**
 * Reads a session's manifest; null when the directory has none. A manifest that is not JSON, or
 * not a manifest, is a VerifyError naming it and the fix; one that cannot be read, a
 * StoreWriteError with the fix for its errno.
 */
export async function readManifest(dir: string): Promise<Manifest | null> {
  const path = join(dir, FILES.manifest);
  let raw: string;
  try {
    raw = await readRegularText(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // A folder, a FIFO or a device in its place commits nothing: it is set aside like a damaged one
    // (read, a FIFO would block every build; kept, a folder failed the session for good).
    if ((e as NodeJS.ErrnoException).code === 'ENOTREG') throw damagedManifest(path, 'it is not a regular file: a folder, a FIFO, a device or a socket is in its place');
    // No manifest is 2 GiB: what is there is not one.
    if ((e as NodeJS.ErrnoException).code === 'ERR_FS_FILE_TOO_LARGE') throw damagedManifest(path, 'it is larger than 2 GiB, which no manifest is');
    throw writeError('read', path, e);
  }
  let m: unknown;
  try {
    m = JSON.parse(raw);
  } catch (e) {
    throw damagedManifest(path, notJsonReason(e));
  }
  const why = manifestDamage(m);
  if (why !== null) throw damagedManifest(path, why);
  return m as Manifest;
}

/** JSON that can be a manifest (an object naming its session); `[]` or a string commits nothing. */
function isManifest(v: unknown): v is Manifest {
  return typeof v === 'object' && v !== null && typeof (v as { session?: unknown }).session === 'string';
}

/**
 * Why parsed JSON commits nothing the store can trust, or null when it is a manifest whose seal
 * holds. A field edited by hand or damaged on disk breaks the seal: such a manifest is treated as
 * unreadable (set aside and the session built afresh), never carried on and sealed again, which
 * would make the damage pass `verify` from then on.
 */
export function manifestDamage(v: unknown): string | null {
  if (!isManifest(v)) return 'it is not a manifest';
  if (manifestHash(v) !== v.manifest_sha256) return 'its manifest_sha256 does not match its fields: one was edited or damaged';
  // The seal is a plain hash, which anyone can make again: a project that is no folder name
  // (`../../outside`) would have PROJECT.md and links/ written outside the store.
  if (typeof v.project !== 'string' || !isSafeDirName(v.project)) return 'its project is not a folder name of the store';
  return null;
}

function damagedManifest(path: string, why: string): VerifyError {
  return new VerifyError(`${path} is damaged (${why})`, {
    hint: 'run `handoff build <its transcript>`: the damaged files are set aside into history/ and the session is built afresh; or restore the folder from a backup',
    details: { path, why },
  });
}
