import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../core/canonical.js';
import { gitUnavailable } from '../core/evidence.js';
import type { PressureConfig } from '../core/pressure.js';
import { computePressure } from '../core/pressure.js';
import type { SessionState } from '../core/state.js';
import { initialState } from '../core/state.js';
import type { IndexStore } from '../store/index-store.js';
import type { ProjectSource, UnsealedManifest } from '../store/manifest.js';
import { MANIFEST_SCHEMA_VERSION } from '../store/manifest.js';
import type { Identity } from './identity.js';

/** What a session seen for the first time commits against: a manifest of nothing read yet. */
export function bareManifest(ident: Identity, state: SessionState, where: { project: string; projectSource: ProjectSource; dirName: string }, now: string, objective: string | null, pressure: PressureConfig, index: IndexStore): UnsealedManifest {
  return {
    schema_version: MANIFEST_SCHEMA_VERSION,
    session: ident.id,
    uuid: ident.uuid ?? state.meta.uuid ?? null,
    chain_id: inheritedChain(state, index) ?? randomBytes(16).toString('hex'),
    project: where.project,
    project_source: where.projectSource,
    dir_name: where.dirName,
    harness: state.harness ?? 'generic',
    model: null,
    title: null,
    cwd: null,
    created_at: now,
    updated_at: now,
    source_paths: [],
    sources: [],
    source_state: 'present',
    watermark: -1,
    raw_sha256: sha256Hex(''),
    raw_bytes: 0,
    revisions: 0,
    turn_count: 0,
    counts: { USER: 0, AGENT: 0, THOUGHT: 0, TOOL: 0, OTHER: 0 },
    skipped_lines: 0,
    bad_lines: 0,
    oversized_lines: 0,
    unknown_types: {},
    timeline_head: '',
    timeline_bytes: 0,
    tools_bytes: 0,
    render_sha256: {},
    render_bytes: {},
    state_file: '',
    state_sha256: '',
    context: computePressure(initialState(), pressure),
    git: gitUnavailable('no-cwd', 'not captured yet', null, null),
    redactions: 0,
    quality: { transfer_ready: false, failed: [] },
    finalized: [],
    parent_session: ident.parent,
    subagents: [],
    prev_project: null,
    titled_from: [],
    title_override: null,
    objective: null,
    objective_override: objective,
  };
}

/** Codex records a fork's origin; a session forked from a known one continues its chain. */
function inheritedChain(state: SessionState, index: IndexStore): string | null {
  const from = state.meta.forkedFrom;
  return from ? (index.byUuid(from)?.chain_id ?? null) : null;
}
