import type { Hash } from 'node:crypto';
import type { SessionClaims } from './claims.js';
import type { ResolvedConfig } from '../config.js';
import type { GitEvidence } from '../core/evidence.js';
import type { Pressure } from '../core/pressure.js';
import type { Redactor } from '../core/redact.js';
import type { Harness } from '../core/types.js';
import type { CorruptLineError } from '../errors.js';
import { SourceError } from '../errors.js';
import type { GitProbe } from '../git/evidence.js';
import type { IndexStore } from '../store/index-store.js';
import type { Layout } from '../store/layout.js';
import type { HistoryEntry, Manifest } from '../store/manifest.js';
import type { DigestCache } from './digests.js';
import type { HistoryRequest } from './history.js';

/** The shapes a build passes between its steps (engine.ts names the steps). */

export interface EngineDeps {
  config: ResolvedConfig;
  layout: Layout;
  redactor: Redactor;
  git: GitProbe;
  digests: DigestCache;
  index: IndexStore;
  now: () => Date;
  /** Sessions whose state stays in memory between refreshes (the daemon's hot set). */
  cacheSessions?: number;
  /**
   * Asked before a build re-renders a linked session (a new subagent its parent, a parent the
   * subagents whose task it learned): false when the caller will re-render it itself (the daemon,
   * when it may be building in a worker at this moment).
   */
  relinkNow?: (path: string) => boolean;
  /** The sessions being built by this process's threads (claims.ts); the engine's own when absent. */
  claims?: SessionClaims;
}

/** Thrown by an `independentOnly` build before it writes anything: build this one on its own. */
export class DependentSession extends Error {
  constructor(
    readonly path: string,
    why = 'a subagent or a fork',
  ) {
    super(`${path}: ${why}, built on the main thread`);
    this.name = 'DependentSession';
  }
}

/**
 * The transcript is gone and the session's state file is behind its last commit (a lazy build
 * left it and the process stopped before writing it): nothing can fold the bytes in between
 * again, so nothing is re-rendered and the handoff stays as last built.
 */
export class StateBehindGone extends SourceError {
  constructor(path: string) {
    super(`${path} is gone, and the carried state of its session was written before the last commit, so the bytes in between cannot be read again: the handoff stays as it was last built`, {
      hint: 'nothing is lost: HANDOFF.md and the payloads are those of the last commit; restore the transcript to build the session again',
    });
  }
}

export interface BuildRequest {
  source: string;
  session?: string | undefined;
  project?: string | undefined;
  harness?: Harness | undefined;
  model?: string | undefined;
  objective?: string | undefined;
  allowBadLines?: boolean | undefined;
  final?: boolean | undefined;
  /** Re-render and bump the revision even when nothing is new. */
  force?: boolean | undefined;
  /**
   * The transcript changed without growing (same inode and size, a new modification time): an
   * edit in place, which the running digest's check of the last bytes (digests.ts) may not see.
   * Its whole prefix is hashed again, whatever this process remembers of it.
   */
  recheck?: boolean | undefined;
  /** Copy the committed HANDOFF.md into history/ in the same commit. */
  history?: HistoryRequest | undefined;
  /** Finalize on its own when pressure turns red or a compaction happens (daemon). */
  autoFinalize?: boolean | undefined;
  /** Part of a backfill (the daemon's start-up scan, a one-shot build of many files): repository evidence may be reused for longer. */
  backfill?: boolean | undefined;
  /**
   * Build only a session that depends on no other being built at the same time (a parallel
   * backfill, pool.ts): a new subagent (it re-renders its parent) or fork (it takes its origin's
   * chain) throws DependentSession before anything is written, to be built after the others.
   */
  independentOnly?: boolean | undefined;
  /**
   * A live build of the daemon: the state file may be left behind the commit (written every
   * STATE_EVERY_COMMITS commits or STATE_EVERY_BYTES of source, commit.ts); the next build from
   * disk folds the bytes in between again. The daemon asks for a `checkpoint` once the session is quiet.
   */
  lazyState?: boolean | undefined;
  /** Commit (re-render) if the state file is behind the last commit, to write it; else nothing. */
  checkpoint?: boolean | undefined;
}

/** Changes `update()` makes to a session besides what its transcript says. */
export interface SessionChange {
  /** retitle: the new title; the folder becomes its slug. */
  title?: string | undefined;
  /** rename: the project to move under. */
  project?: string | undefined;
  history?: HistoryRequest | undefined;
}

export interface BuildResult {
  session: string;
  title: string | null;
  /** The transcript this session reads. */
  path: string;
  project: string;
  dir: string;
  harness: Harness;
  revision: number;
  watermark: number;
  turns: number;
  new_turns: number;
  up_to_date: boolean;
  pending_bytes: number;
  offset: number;
  size: number;
  /** The transcript's modification time when `size` was taken: with size and inode, what this build saw. */
  mtime_ms: number;
  reset: string | null;
  pressure: Pressure;
  previous_pressure: Pressure['level'] | null;
  new_compactions: number;
  history: HistoryEntry | null;
  /** An automatic finalize (pressure, a compaction) that could not keep its copy: why. */
  history_skipped?: string;
  bad_lines: number;
  unknown_types: Record<string, number>;
  /** Set when the read stopped at a corrupt line (the turns before it were committed). */
  corrupt: CorruptLineError | null;
  /** Lines this build skipped unread as longer than capture.max_line_bytes, and where the latest was. */
  oversized?: { count: number; line: number; offset: number; bytes: number };
  /**
   * Transcripts of subagents this build learned the task of, whose handoffs must be re-rendered
   * (forced): the engine does it unless the build was `independentOnly` (a worker's, or the first
   * pass of buildMany), whose caller does. Absent when there are none.
   */
  dependents?: string[];
  build_ms: number;
  /** The state file is behind this commit (a lazy build left it): a `checkpoint` build writes it. */
  state_behind: boolean;
}

/** One build's view of its transcript, taken once when the build starts. */
export interface Ctx {
  req: BuildRequest;
  path: string;
  size: number;
  dev: number;
  ino: number;
  mtimeMs: number;
  isText: boolean;
  /** The transcript no longer exists: re-render from the committed state alone. */
  gone: boolean;
  /** A text transcript's bytes, once read for this build (text is parsed whole). */
  text?: Buffer;
  /**
   * Git evidence asked for as soon as the read learned the session's folder, so that git runs
   * while the rest of the transcript is read; the commit takes it when the folder is still that one.
   */
  git?: { cwd: string; evidence: Promise<GitEvidence | null> };
}

export interface ReadResult {
  offset: number;
  lines: number;
  size: number;
  /** The transcript's modification time when `size` was taken. */
  mtimeMs: number;
  pendingBytes: number;
  newTurns: number;
  corrupt: CorruptLineError | null;
  head: string;
  /** Text transcripts are hashed whole; JSONL through the running hash. */
  rawSha: string | null;
  /** The running hash of the source's consumed bytes, to continue from. */
  hash: Hash;
}

/** What a commit starts from: the last committed manifest (a bare one for a new session). */
export interface Base {
  dir: string;
  manifest: Manifest;
  isNew: boolean;
  dirty: boolean;
}
