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
  childSessions: { id: string; dir: string }[];
  redactions: number;
  history: string[];
  state: SessionState;
}

/** The sentinel rendered where this revision's manifest sha256 goes (see store/seal.ts). */
export const MANIFEST_SHA_PLACEHOLDER = '0'.repeat(64);
