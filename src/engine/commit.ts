import { createHash, randomBytes } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sha256Hex } from '../core/canonical.js';
import { escapeControls, stripControls } from '../core/control-chars.js';
import { extractContract, generatedPart } from '../core/contract.js';
import type { GitEvidence } from '../core/evidence.js';
import { redactedGit } from '../core/evidence.js';
import type { Pressure } from '../core/pressure.js';
import { computePressure } from '../core/pressure.js';
import { renderAll } from '../core/render/index.js';
import type { RenderInput } from '../core/render/index.js';
import type { ParentTask } from '../core/render/input.js';
import type { SessionState } from '../core/state.js';
import { stateJson } from '../core/state.js';
import { utf8 } from '../core/utf8.js';
import { hashPrefix, moveDir, readRegularText, removeEmptyDir, removeFile, writeAtomic } from '../store/files.js';
import { indexEntry } from '../store/index-file.js';
import type { IndexEntry } from '../store/index-file.js';
import { FILES, STATE_FILE_RE, stateFileName } from '../store/layout.js';
import type { HistoryEntry, Manifest, ProjectSource, StateAt, UnsealedManifest } from '../store/manifest.js';
import { seal, serializeManifest, stateBehind } from '../store/manifest.js';
import { StoreWriteError } from '../errors.js';
import { FILE_MODE } from '../store/permissions.js';
import { encodeState } from '../store/state-file.js';
import type { AppendBuffer } from './append.js';
import type { Cleaner } from './clean.js';
import { crashPoint } from './faults.js';
import { gitOf } from './git.js';
import type { HistoryRequest } from './history.js';
import { historyContent, historyName, readHistory, writeHistory } from './history.js';
import { inferProject, isProvisional } from './identity.js';
import type { EngineMemory } from './memory.js';
import { Sealable } from './sealable.js';
import { clearResetMarker, clearUncommitted } from './session.js';
import { sourceRecord } from './source.js';
import type { Base, BuildRequest, BuildResult, Ctx, EngineDeps, ReadResult } from './types.js';

/**
 * Step 4 of a build: the commit, in SPEC §5's crash-safe order, stated here once:
 *
 *   1. the new timeline and TOOLS.md lines are appended (a new session's folder is made here);
 *   2. history/'s copy, when one is asked for (first: a copy that cannot be written fails the
 *      build before anything the previous manifest names is replaced, so a failed finalize
 *      leaves the previous revision whole);
 *   3. the state file and the three renders are each replaced atomically;
 *   4. manifest.json, flushed to disk — the commit point: everything before it that a crash
 *      leaves behind is residue that the next build cuts away (session.ts);
 *   5. after it, only what can be redone: the previous state file removed, the reset marker
 *      cleared, memory and INDEX.json updated.
 */

export interface Parts {
  deps: EngineDeps;
  memory: EngineMemory;
  cleaner: Cleaner;
}

export async function commit(e: Parts, ctx: Ctx, base: Base, state: SessionState, hash: Hash, tools: Hash, append: AppendBuffer, read: ReadResult, reset: string | null): Promise<BuildResult> {
  const { deps } = e;
  const prev = base.manifest;
  const now = deps.now();
  // The request changed the state: a state file left behind would not hold it.
  const modelSet = ctx.req.model !== undefined && ctx.req.model !== '' && !state.meta.model;
  if (modelSet) state.meta.model = ctx.req.model as string;
  const { dir, project, projectSource } = await refineProject(e, ctx, base, state, append);

  // 1.
  await append.flush();
  crashPoint('after-append');

  const rawSha = read.rawSha ?? hash.copy().digest('hex');
  const prevSrc = prev.sources[0] ?? null;
  const source = ctx.gone && prevSrc ? prevSrc : await sourceRecord(ctx, read, rawSha, prevSrc, reset);
  const revision = prev.revisions + 1;
  const git = await captureGit(e, ctx, state.meta.cwd ?? null);
  const pressure = computePressure(state, deps.config.pressure);
  const existingMd = await readRegularText(join(dir, FILES.handoff)).catch(() => null);
  const contract = existingMd === null ? null : extractContract(existingMd);
  const children = childrenOf(deps, prev).map((c) => ({ id: c.id, dir: c.dir }));
  const parentTask = await taskFromParent(e, prev, state);
  const token = randomBytes(32).toString('hex');
  const title = prev.title_override ?? state.meta.title ?? null;
  let histReq = historyRequest(ctx.req, prev, pressure);
  // A finalize the daemon decided on (pressure, a compaction) whose history/ cannot be made is
  // skipped and said, not retried with every build: the session's turns must not wait for it.
  let historySkipped: string | undefined;
  const unwritable = histReq === null ? null : await historyUnwritable(dir);
  if (histReq !== null && unwritable !== null) {
    // One asked for fails before anything the previous manifest names is replaced.
    if (ctx.req.history !== undefined) throw new StoreWriteError(`cannot keep a ${histReq.kind} copy: ${unwritable}`, { hint: 'move it aside, then run the command again; the previous revision stays in force' });
    historySkipped = `the automatic ${histReq.kind} (${histReq.reason}) was skipped: ${unwritable}`;
    histReq = null;
  }
  // Anything a caller passes in is redacted like transcript text (Cleaner).
  const hist = histReq?.note ? { ...histReq, note: stripControls(histReq.note) } : histReq;
  const entry: HistoryEntry | null = hist ? { at: now.toISOString(), file: historyName(dir, prev.dir_name, hist, now), kind: hist.kind, reason: hist.reason, revision } : null;
  const history = await readHistory(dir);
  if (entry) history.push(entry.file);
  const input: RenderInput = {
    session: prev.session,
    uuid: prev.uuid ?? state.meta.uuid ?? null,
    harness: state.harness ?? prev.harness,
    project,
    chainId: prev.chain_id,
    title,
    createdAt: prev.created_at,
    generatedAt: now.toISOString(),
    revision,
    root: deps.layout.root,
    dir,
    // The manifest keeps the real path (the store reads the file by it); what is rendered is
    // redacted, and control characters in a file name become visible escapes.
    sources: [{ path: e.cleaner.text(escapeControls(source.path)), offset: source.offset, size: source.size }],
    rawSha256: rawSha,
    manifestSha256: token,
    git,
    pressure,
    contract,
    parentSession: prev.parent_session,
    parentTask,
    childSessions: children,
    redactions: state.redactions,
    history: history.sort(),
    state,
  };
  const behind = stateLeftAt(ctx, base, revision, source.offset, reset !== null || modelSet || entry !== null);
  const renders = renderAll(input);
  // Renders name this revision's manifest sha256, which depends on their own digests: they
  // are hashed with a fixed placeholder in its place (see docs/PROVENANCE.md).
  const summary = new Sealable(renders.summaryJson, token);
  const llm = new Sealable(renders.llmJson, token);
  const md = new Sealable(renders.handoffMd, token);
  const toolsSha = tools.copy().digest('hex');
  const renderSha = {
    [FILES.summary]: summary.digest(),
    [FILES.llm]: llm.digest(),
    [FILES.tools]: toolsSha,
    [FILES.handoff]: sha256Hex(generatedPart(md.text())),
  };
  // Written, or left where it stands in the source.
  const stateBytes = behind === null ? compressState(state) : null;
  const stateFile = stateBytes === null ? prev.state_file : stateFileName(revision);

  const { manifest_sha256: _old, evidence_contract_sha256: _c, state_at: _at, ...carried } = prev;
  const unsealed: UnsealedManifest = {
    ...carried,
    project,
    project_source: projectSource,
    harness: input.harness,
    model: state.meta.model ?? null,
    title,
    cwd: state.meta.cwd ?? null,
    uuid: input.uuid,
    updated_at: now.toISOString(),
    source_paths: ctx.gone || prev.source_paths.includes(ctx.path) ? prev.source_paths : [...prev.source_paths, ctx.path],
    sources: [source],
    source_state: ctx.gone ? 'gone' : 'present',
    watermark: state.watermark,
    raw_sha256: rawSha,
    raw_bytes: source.offset,
    revisions: revision,
    turn_count: state.turns,
    counts: { ...state.counts },
    skipped_lines: state.skipped,
    bad_lines: state.bad,
    oversized_lines: state.oversized,
    unknown_types: { ...state.unknownTypes },
    timeline_head: read.head,
    timeline_bytes: prev.timeline_bytes + append.timelineBytes,
    tools_bytes: prev.tools_bytes + append.toolsBytes,
    render_sha256: renderSha,
    ...(contract === null ? {} : { evidence_contract_sha256: sha256Hex(contract) }),
    state_file: stateFile,
    state_sha256: stateBytes === null ? prev.state_sha256 : sha256Hex(stateBytes),
    state_at: behind ?? { offset: source.offset, lines: source.lines },
    context: pressure,
    git,
    redactions: state.redactions,
    quality: { transfer_ready: renders.gate.transfer_ready, failed: renders.gate.failed },
    finalized: entry ? [...prev.finalized, entry] : prev.finalized,
    subagents: children.map((c) => c.id),
    objective: state.objectiveOverride ?? state.objective?.text ?? parentTask?.text ?? null,
    objective_override: state.objectiveOverride,
  };
  // The manifest sha256 has a fixed length, so render sizes are known before it is.
  unsealed.render_bytes = { [FILES.summary]: summary.size, [FILES.llm]: llm.size, [FILES.handoff]: md.size };
  const manifest = seal(unsealed);

  const handoffMd = md.fill(manifest.manifest_sha256);
  // 2.
  if (entry && hist) await writeHistory(dir, entry.file, historyContent(hist, handoffMd.toString('utf8'), now, revision));
  // 3. (side by side: they do not depend on each other)
  await Promise.all([
    stateBytes === null ? null : writeAtomic(join(dir, stateFile), stateBytes, FILE_MODE, false).then(() => crashPoint('after-state')),
    writeAtomic(join(dir, FILES.summary), summary.fill(manifest.manifest_sha256), FILE_MODE, false),
    writeAtomic(join(dir, FILES.llm), llm.fill(manifest.manifest_sha256), FILE_MODE, false),
    writeAtomic(join(dir, FILES.handoff), handoffMd, FILE_MODE, false),
  ]);
  crashPoint('after-renders');
  // 4.
  await writeAtomic(join(dir, FILES.manifest), serializeManifest(manifest));
  crashPoint('after-manifest');

  // 5.
  if (prev.state_file && prev.state_file !== stateFile) await removeFile(join(dir, prev.state_file));
  if (reset !== null) await clearResetMarker(dir);
  const dependents = dependentsOf(e, prev, state);
  e.memory.remember(ctx.gone ? null : ctx.path, dir, manifest, state, ctx.gone ? null : hash, source.offset, rawSha);
  deps.digests.remember(`${dir}\0tools`, tools, manifest.tools_bytes, toolsSha);
  deps.index.upsert(indexEntry(manifest, dir, manifest.objective));
  return {
    ...resultOf(manifest, dir, read),
    path: source.path,
    new_turns: read.newTurns,
    up_to_date: false,
    offset: source.offset,
    reset,
    pressure,
    previous_pressure: base.isNew ? null : prev.context.level,
    new_compactions: Math.max(0, pressure.compactions - (base.isNew ? 0 : prev.context.compactions)),
    history: entry,
    ...(historySkipped === undefined ? {} : { history_skipped: historySkipped }),
    bad_lines: state.bad,
    corrupt: read.corrupt,
    ...oversizedNow(state, base.isNew ? 0 : prev.oversized_lines),
    ...(dependents.length > 0 ? { dependents } : {}),
  };
}

/** The result of a build that found nothing to commit. */
export function upToDate(dir: string, m: Manifest, read: ReadResult): BuildResult {
  return resultOf(m, dir, read);
}

function resultOf(m: Manifest, dir: string, read: ReadResult): BuildResult {
  return {
    session: m.session,
    title: m.title,
    path: m.sources[0]?.path ?? '',
    project: m.project,
    dir,
    harness: m.harness,
    revision: m.revisions,
    watermark: m.watermark,
    turns: m.turn_count,
    new_turns: 0,
    up_to_date: true,
    pending_bytes: read.pendingBytes,
    offset: read.offset,
    size: read.size,
    mtime_ms: read.mtimeMs,
    reset: null,
    pressure: m.context,
    previous_pressure: m.context.level,
    new_compactions: 0,
    history: null,
    bad_lines: m.bad_lines,
    unknown_types: m.unknown_types,
    corrupt: null,
    build_ms: 0,
    state_behind: stateBehind(m) !== null,
  };
}

/**
 * A lazy build (the daemon's live refresh, BuildRequest.lazyState) writes the state file at least
 * every STATE_EVERY_COMMITS commits and every STATE_EVERY_BYTES of source read since the one it
 * left: encoding and compressing the state was a fifth of a refresh of a long session, and what
 * a crash leaves behind is at most that much of the transcript to fold again (fold.ts catchUp).
 */
export const STATE_EVERY_COMMITS = 16;
export const STATE_EVERY_BYTES = 256 << 10;

/**
 * Where the committed state file stands in the source when this commit may leave it there; null
 * when the commit writes the state. It always does for a commit whose state holds what the
 * transcript does not (a reset, a change asked for, a request's model or objective, a history
 * entry), for one whose transcript is gone (there is nothing to fold again from), and when the
 * previous manifest has no `state_at`: its state file is of a version that a handoffd from before
 * `state_at` would read on from, so it is never the one left behind.
 */
function stateLeftAt(ctx: Ctx, base: Base, revision: number, offset: number, changed: boolean): StateAt | null {
  const { req } = ctx;
  if (req.lazyState !== true || req.checkpoint === true || req.force === true || req.history !== undefined || req.objective !== undefined) return null;
  if (changed || base.isNew || base.dirty || ctx.gone || ctx.isText) return null;
  const prev = base.manifest;
  const written = Number(STATE_FILE_RE.exec(prev.state_file)?.[1] ?? Number.NaN);
  const at = prev.state_at;
  if (!Number.isSafeInteger(written) || at === undefined) return null;
  return revision - written < STATE_EVERY_COMMITS && offset - at.offset < STATE_EVERY_BYTES ? at : null;
}

/** The carried state is internal and compresses about sixfold (state-file.ts, docs/FORMAT.md). */
function compressState(state: SessionState): Buffer {
  return encodeState(utf8(stateJson(state)));
}

/** The running digest of TOOLS.md as committed, to continue with this build's appends. */
export async function toolsBase(deps: EngineDeps, dir: string, m: Manifest): Promise<Hash> {
  if (m.tools_bytes === 0) return createHash('sha256');
  const path = join(dir, FILES.tools);
  const h = await deps.digests.resume(`${dir}\0tools`, path, m.tools_bytes, m.render_sha256[FILES.tools] ?? '');
  // A TOOLS.md edited by hand (same length) no longer matches: verify reports it, and from
  // here on the digest covers what is on disk.
  return h ?? (await hashPrefix(path, m.tools_bytes));
}

/** A project guessed before the transcript named its cwd moves once it does. */
async function refineProject(e: Parts, ctx: Ctx, base: Base, state: SessionState, append: AppendBuffer): Promise<{ dir: string; project: string; projectSource: ProjectSource }> {
  const prev = base.manifest;
  const keep = { dir: base.dir, project: prev.project, projectSource: prev.project_source };
  if (!isProvisional(prev.project_source) || ctx.req.project || !state.meta.cwd) return keep;
  const choice = await inferProject(undefined, state.meta.cwd, ctx.path, e.deps.git, (n) => e.cleaner.text(n));
  if (isProvisional(choice.source) || choice.project === prev.project) return keep;
  const to = e.deps.layout.sessionDir(choice.project, prev.dir_name);
  // A first build killed after it moved here left its appends in the folder, with no manifest:
  // they go, or this build's would follow them (each turn twice).
  if (base.isNew) await clearUncommitted(to, existsSync(base.dir));
  // A session seen for the first time has no folder until its first append: nothing to move.
  if (existsSync(base.dir)) {
    await moveDir(base.dir, to);
    await removeEmptyDir(dirname(base.dir));
  }
  e.memory.forget(base.dir);
  append.dir = to;
  return { dir: to, project: choice.project, projectSource: choice.source };
}

/** Why history/ cannot take a copy (something else in its place, a folder that cannot be made), or null. */
async function historyUnwritable(dir: string): Promise<string | null> {
  const path = join(dir, FILES.history);
  const st = await lstat(path).catch(() => null);
  if (st !== null && !st.isDirectory()) return `${path} is ${st.isSymbolicLink() ? 'a symbolic link' : 'a file'}, not a folder (move it aside to have copies kept again)`;
  return null;
}

function historyRequest(req: BuildRequest, prev: Manifest, p: Pressure): HistoryRequest | null {
  if (req.history) return req.history;
  if (!req.autoFinalize || prev.revisions === 0) return null;
  if (p.compactions > prev.context.compactions) return { kind: 'finalize', reason: 'compaction' };
  if (p.level === 'red' && prev.context.level !== 'red') return { kind: 'finalize', reason: 'context pressure turned red' };
  return null;
}

async function captureGit(e: Parts, ctx: Ctx, cwd: string | null): Promise<GitEvidence> {
  return redactedGit(e.deps.redactor, await gitOf(e.deps, ctx, cwd));
}

/** The agent id in a subagent's session id, `<parent>.agent-<id>` (identity.ts). */
const AGENT_OF = /\.agent-([\w-]{1,64})$/;

/**
 * A subagent whose own transcript holds no task (Claude Code before 2.1 starts it with the
 * agent's first reply): the task the parent's call gave it, from the parent's committed state,
 * once that call's result named this agent. Null when the transcript holds a request, or the
 * parent is not in the store, or has not recorded the answer yet (its build then re-renders this
 * one: `dependents` in engine.ts).
 */
async function taskFromParent(e: Parts, m: Manifest, state: SessionState): Promise<ParentTask | null> {
  if (state.objective !== null || state.objectiveOverride !== null || m.parent_session === null) return null;
  const agent = AGENT_OF.exec(m.session)?.[1];
  const parent = agent === undefined ? undefined : parentEntry(e.deps, m.parent_session);
  if (parent === undefined) return null;
  const ps = await e.memory.peekState(parent.dir);
  const s = ps?.subagents.find((x) => x.agent === agent && x.prompt !== undefined);
  if (s?.prompt === undefined) return null;
  return { session: m.parent_session, line: s.line ?? s.seq + 1, text: s.prompt, ...(s.prompt_chars === undefined ? {} : { chars: s.prompt_chars }), description: s.description };
}

/**
 * The transcripts of this session's subagents whose agent this build learned (its call's result
 * named it) and whose handoffs still have no objective: each takes its task from this state
 * (taskFromParent), so each is re-rendered after this commit.
 */
function dependentsOf(e: Parts, prev: Manifest, state: SessionState): string[] {
  const learned = new Set<string>();
  for (const s of state.subagents) if (s.agent !== undefined && s.prompt !== undefined && (s.result_seq ?? -1) > prev.watermark) learned.add(s.agent);
  if (learned.size === 0) return [];
  const out: string[] = [];
  for (const c of childrenOf(e.deps, prev)) {
    const agent = AGENT_OF.exec(c.id)?.[1];
    if (agent !== undefined && learned.has(agent) && c.objective === null && c.source !== null) out.push(c.source.path);
  }
  return out;
}

/**
 * A subagent names its parent by the parent's native session id; the parent's own id is its
 * file's name, which is that id in Claude Code's folders but need not be (a copied transcript).
 */
export function parentEntry(deps: Pick<EngineDeps, 'index'>, parentId: string): IndexEntry | undefined {
  return deps.index.get(parentId) ?? deps.index.byUuid(parentId);
}

/** The sessions that name this one their parent, by its id or its native session id. */
function childrenOf(deps: EngineDeps, m: Manifest): IndexEntry[] {
  const own = deps.index.childrenOf(m.session);
  if (m.uuid === null || m.uuid === m.session) return own;
  const byUuid = deps.index.childrenOf(m.uuid).filter((c) => !own.some((o) => o.id === c.id));
  return [...own, ...byUuid];
}

/** The lines a build skipped as too long, when it skipped any (a lost turn is said, never silent). */
function oversizedNow(state: SessionState, before: number): { oversized?: { count: number; line: number; offset: number; bytes: number } } {
  const at = state.oversizedAt;
  const count = state.oversized - before;
  return count > 0 && at !== undefined ? { oversized: { count, ...at } } : {};
}
