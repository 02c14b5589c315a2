import type { GitEvidence } from '../evidence.js';
import type { Pressure } from '../pressure.js';
import type { SessionState } from '../state.js';
import type { Harness } from '../types.js';

/** Everything a render needs; assembled by the build from the manifest, state and checks. */
export interface RenderInput {
  session: string;
  uuid: string | null;
  harness: Harness;
  project: string;
  chainId: string;
  title: string | null;
  createdAt: string;
  generatedAt: string;
  revision: number;
  /** Absolute paths. */
  root: string;
  dir: string;
  sources: { path: string; offset: number; size: number }[];
  rawSha256: string;
  /** Stands in for this revision's manifest sha256 until the manifest is sealed. */
  manifestSha256: string;
  git: GitEvidence;
  pressure: Pressure;
  contract: string | null;
  parentSession: string | null;
  /**
   * A subagent whose transcript holds no task: the task its parent's call gave it, read from the
   * parent's state once the call's result named this agent (`line`: the parent transcript's).
   */
  parentTask?: ParentTask | null;
  childSessions: { id: string; dir: string }[];
  redactions: number;
  history: string[];
  state: SessionState;
}

export interface ParentTask {
  session: string;
  line: number;
  text: string;
  /** The task's length when `text` is only its head. */
  chars?: number;
  description: string;
}

/** The sentinel rendered where this revision's manifest sha256 goes (see store/seal.ts). */
export const MANIFEST_SHA_PLACEHOLDER = '0'.repeat(64);
