import { join } from 'node:path';
import { CONTRACT_KEYS } from '../core/contract.js';
import type { GitEvidence } from '../core/evidence.js';
import { FILES } from './layout.js';
import type { HistoryEntry, Manifest } from './manifest.js';

/**
 * The interchange contract v1.0 (schemas/handoff.schema.json): one document per session for
 * tools other than handoffd, assembled from the manifest and HANDOFF.llm.json. No I/O here: the
 * caller reads the files and hashes the artifacts; the schema is the single source of the shape.
 */

export const INTERCHANGE_SCHEMA_VERSION = '1.0';

/** The parts of HANDOFF.llm.json the document carries (the payload is schema-checked first). */
export interface LlmPayload {
  session: { title: string | null };
  objective: string | null;
  state_now: string | null;
  open_loops: string[];
  next_action: Record<string, unknown>;
  context: Record<string, unknown>;
  current_state: Record<string, unknown>;
  verification: Record<string, unknown>[];
  checks_not_run: Record<string, unknown>[];
  failures: Record<string, unknown>[];
  unknowns: Record<string, unknown>[];
  files_touched: Record<string, unknown>[];
  evidence_contract: string | null;
  transfer_ready: boolean;
  counts: { commands: number; files_touched: number };
}

export interface Artifact {
  role: 'handoff_md' | 'summary_json' | 'llm_json' | 'timeline' | 'tools_md' | 'manifest' | 'history';
  path: string;
  media_type: string;
  bytes: number;
  sha256: string;
}

export interface InterchangeInput {
  dir: string;
  manifest: Manifest;
  llm: LlmPayload;
  artifacts: Artifact[];
  producer: { name: string; version: string };
}

export function mediaType(file: string): string {
  if (file.endsWith('.jsonl')) return 'application/jsonl';
  if (file.endsWith('.json')) return 'application/json';
  if (file.endsWith('.md')) return 'text/markdown';
  return 'application/octet-stream';
}

/** The contract block by key; a line without a key continues the key before it. */
export function contractFields(text: string): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  const key = new RegExp(`^(${CONTRACT_KEYS.join('|')}):\\s?(.*)$`);
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    const m = key.exec(line);
    if (m?.[1] !== undefined) {
      current = fields[m[1]] ??= [];
      current.push(m[2] ?? '');
    } else if (current && line.trim().length > 0) current.push(line.trim());
  }
  return fields;
}

function git(g: GitEvidence): Record<string, unknown> {
  return {
    status: g.status,
    reason: g.reason,
    cwd: g.cwd,
    repository: g.top,
    branch: g.branch,
    head: g.head,
    dirty: g.dirty,
    changed: g.changed,
    untracked: g.untracked,
    changed_total: g.changed_total,
    untracked_total: g.untracked_total,
    diffstat: g.diffstat,
    captured_at: g.captured_at,
  };
}

const historyEntry = (dir: string, h: HistoryEntry): Record<string, unknown> => ({ kind: h.kind, file: join(dir, FILES.history, h.file), reason: h.reason, at: h.at, revision: h.revision });

const PERMISSION_NOTES = [
  'Live repository state beats the handoff: report drift, then continue.',
  'Never reset, check out, clean or discard changes to recreate the recorded state.',
  'Never publish, deploy or message anyone merely because the handoff mentions it.',
  'History copies are immutable.',
];

export function buildInterchange(input: InterchangeInput): Record<string, unknown> {
  const { dir, manifest: m, llm } = input;
  const source = m.sources[0];
  return {
    schema_version: INTERCHANGE_SCHEMA_VERSION,
    handoff_id: m.session,
    mission_id: m.chain_id,
    task_id: m.uuid ?? m.session,
    created_at: m.created_at,
    updated_at: m.updated_at,
    title: llm.session.title,
    source: {
      producer: input.producer,
      harness: m.harness,
      project: m.project,
      model: m.model,
      transcripts: m.sources.map((s) => ({ path: s.path, offset: s.offset, size: s.size, raw_sha256: s.raw_sha256 })),
      source_state: m.source_state,
      raw_sha256: source?.raw_sha256 ?? m.raw_sha256,
      manifest_sha256: m.manifest_sha256,
      revision: m.revisions,
      watermark: m.watermark,
      turns: m.turn_count,
      parent_session: m.parent_session,
    },
    state: {
      objective: llm.objective,
      state_now: llm.state_now,
      current_state: llm.current_state,
      open_loops: llm.open_loops,
      unknowns: llm.unknowns,
      pressure: llm.context,
      git: git(m.git),
      transfer_ready: m.quality.transfer_ready,
      quality_failed: m.quality.failed,
    },
    next_action: interchangeNext(llm.next_action),
    capabilities: {
      context_telemetry: m.context.used !== null,
      git_evidence: m.git.status === 'ok',
      compaction_detection: m.harness === 'claude' || m.harness === 'codex',
      session_identifiers: m.uuid !== null,
      tool_results: m.harness !== 'text',
      clean_session_creation: false,
    },
    permissions: {
      modify_working_tree: 'allowed',
      reset_or_discard_changes: 'forbidden',
      publish_or_external_effects: 'ask_user',
      rewrite_history: 'forbidden',
      notes: PERMISSION_NOTES,
    },
    checkpoint: {
      latest: m.finalized.length > 0 ? historyEntry(dir, m.finalized[m.finalized.length - 1] as HistoryEntry) : null,
      history: m.finalized.map((h) => historyEntry(dir, h)),
    },
    artifacts: input.artifacts,
    evidence: {
      verification: llm.verification,
      checks_not_run: llm.checks_not_run,
      files_touched: llm.files_touched,
      commands_total: llm.counts.commands,
      files_total: llm.counts.files_touched,
      evidence_contract: llm.evidence_contract === null ? null : { text: llm.evidence_contract, fields: contractFields(llm.evidence_contract) },
      redactions: m.redactions,
    },
    errors: llm.failures,
  };
}

/** The interchange contract keeps its v1.0 shape: {text, source, label, seq}, seq being the 0-based line index. */
function interchangeNext(n: Record<string, unknown>): Record<string, unknown> {
  const line = typeof n.line === 'number' ? n.line : null;
  return { text: n.text, source: n.rule ?? n.source ?? 'unknown', label: n.label, seq: line === null ? (typeof n.seq === 'number' ? n.seq : null) : line - 1 };
}
