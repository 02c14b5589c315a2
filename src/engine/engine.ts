import { createHash, randomBytes } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { access, constants, open, readFile, realpath, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ResolvedConfig } from '../config.js';
import { sha256Hex } from '../core/canonical.js';
import { escapeControls, stripControls } from '../core/control-chars.js';
import { extractContract, generatedPart } from '../core/contract.js';
import type { GitEvidence } from '../core/evidence.js';
import { gitUnavailable } from '../core/evidence.js';
import { isJsonlPath } from '../core/harness/detect.js';
import { parseTextTranscript } from '../core/harness/text.js';
import { ingestTextTurn } from '../core/ingest.js';
import { withoutBom } from '../core/lines.js';
import { sessionDirName, slugify } from '../core/naming.js';
import type { Pressure } from '../core/pressure.js';
import { computePressure } from '../core/pressure.js';
import type { Redactor } from '../core/redact.js';
import { redactName } from '../core/redact.js';
import { MANIFEST_SHA_PLACEHOLDER, renderAll } from '../core/render/index.js';
import type { RenderInput } from '../core/render/index.js';
import { toolSection, toolsHeader } from '../core/render/tools-md.js';
import type { SessionState } from '../core/state.js';
import { cloneState, initialState } from '../core/state.js';
import { chainLine } from '../core/timeline.js';
import type { Harness, Turn } from '../core/types.js';
import { CorruptLineError, NoTurnsError, NotFoundError, SourceError, UsageError } from '../errors.js';
import type { GitProbe } from '../git/evidence.js';
import { ensureDir, hashPrefix, listDir, moveDir, removeEmptyDir, removeFile, writeAtomic } from '../store/files.js';
import { indexEntry } from '../store/index-file.js';
import type { IndexStore } from '../store/index-store.js';
import type { Layout } from '../store/layout.js';
import { FILES, STATE_FILE_RE, stateFileName } from '../store/layout.js';
import type { HistoryEntry, Manifest, ProjectSource, SourceRecord, UnsealedManifest } from '../store/manifest.js';
import { MANIFEST_SCHEMA_VERSION, seal, serializeManifest } from '../store/manifest.js';
import { FILE_MODE } from '../store/permissions.js';
import { AppendBuffer } from './append.js';
import type { DigestCache } from './digests.js';
import { crashPoint } from './faults.js';
import type { HistoryRequest } from './history.js';
import { historyContent, historyName, readHistory, writeHistory } from './history.js';
import type { Identity, Peek } from './identity.js';
import { identify, inferProject, isProvisional, peek } from './identity.js';
import type { ReadOptions } from './read-source.js';
import { readNewLines } from './read-source.js';
import type { LoadedSession } from './session.js';
import { archiveForReset, clearResetMarker, emptyForRebuild, loadSession } from './session.js';

/**
 * The incremental build (SPEC §5), shared by the one-shot CLI and the daemon: take a session's
 * stored state and the new bytes of its source, append the new turns, re-render, and commit by
 * writing the manifest last. A refresh reads only the new bytes: the bounded state carries
 * everything else forward, and running digests (DigestCache) continue where they stopped.
 */

const FINGERPRINT_BYTES = 1024;
const TEXT_MAX_BYTES = 64 << 20;

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
  /** Copy the committed HANDOFF.md into history/ in the same commit. */
  history?: HistoryRequest | undefined;
  /** Finalize on its own when pressure turns red or a compaction happens (daemon). */
  autoFinalize?: boolean | undefined;
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
  reset: string | null;
  pressure: Pressure;
  previous_pressure: Pressure['level'] | null;
  new_compactions: number;
  history: HistoryEntry | null;
  bad_lines: number;
  unknown_types: Record<string, number>;
  /** Set when the read stopped at a corrupt line (the turns before it were committed). */
  corrupt: CorruptLineError | null;
  build_ms: number;
}

interface Ctx {
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
}

interface ReadResult {
  offset: number;
  lines: number;
  size: number;
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
interface Base {
  dir: string;
  manifest: Manifest;
  isNew: boolean;
  dirty: boolean;
}

export class Engine {
  /** path → session directory, learned once per process so a refresh needs no peek. */
  private readonly located = new Map<string, string>();
  private readonly cache = new Map<string, { manifest: Manifest; state: SessionState }>();

  constructor(private readonly deps: EngineDeps) {}

  get layout(): Layout {
    return this.deps.layout;
  }

  get index(): IndexStore {
    return this.deps.index;
  }

  /** The redactor of this engine's configuration (also used for the socket and the log). */
  get redactor(): Redactor {
    return this.deps.redactor;
  }

  /** Forgets what the engine holds in memory about a path or a session directory. */
  forget(pathOrDir: string): void {
    const dir = this.located.get(pathOrDir) ?? pathOrDir;
    this.located.delete(pathOrDir);
    this.cache.delete(dir);
  }

  async build(reqIn: BuildRequest): Promise<BuildResult> {
    const started = performance.now();
    const req = this.cleanRequest(reqIn);
    const ctx = await this.context(req);
    let dir = req.session === undefined ? this.located.get(ctx.path) : undefined;
    let ident: Identity | null = null;
    let peeked: Peek | null = null;
    if (dir === undefined) {
      peeked = await peek(ctx.path);
      const found = await this.locate(this.cleanIdentity(identify(ctx.path, peeked, req.session)), req.session !== undefined);
      ident = found.ident;
      dir = found.dir;
    }
    const result = dir !== undefined ? await this.buildExisting(ctx, dir) : await this.buildNew(ctx, ident as Identity, peeked as Peek);
    result.build_ms = Math.round((performance.now() - started) * 100) / 100;
    return result;
  }

  // ---------------------------------------------------------------- text from outside the transcript

  /** Text a caller brings in (a flag, a title), as the store may hold it: redacted like transcript text. */
  private clean(text: string): string {
    return this.deps.redactor.redact(stripControls(text)).text;
  }

  /** A name that becomes an id or a folder (a file name, a `session` field, `--session`). */
  private cleanName(name: string): string {
    return redactName(this.deps.redactor, name);
  }

  private cleanRequest(req: BuildRequest): BuildRequest {
    const out: BuildRequest = { ...req };
    if (req.objective !== undefined) out.objective = this.clean(req.objective);
    if (req.session !== undefined) out.session = this.cleanName(req.session);
    if (req.project !== undefined) out.project = this.clean(req.project);
    if (req.model !== undefined) out.model = this.clean(req.model);
    if (req.history?.note !== undefined) out.history = { ...req.history, note: this.clean(req.history.note) };
    return out;
  }

  private cleanIdentity(ident: Identity): Identity {
    return { ...ident, id: this.cleanName(ident.id), uuid: ident.uuid === null ? null : this.cleanName(ident.uuid), parent: ident.parent === null ? null : this.cleanName(ident.parent) };
  }

  private cleanChange(change: SessionChange): SessionChange {
    return {
      ...(change.title === undefined ? {} : { title: this.clean(change.title) }),
      ...(change.project === undefined ? {} : { project: this.clean(change.project) }),
      ...(change.history === undefined ? {} : { history: change.history.note === undefined ? change.history : { ...change.history, note: this.clean(change.history.note) } }),
    };
  }

  private async context(req: BuildRequest): Promise<Ctx> {
    // One file, one key: a transcript reached through a link or a relative path is the same session.
    const given = resolve(req.source);
    const path = await realpath(given).catch(() => given);
    let st;
    try {
      st = await stat(path);
      if (st.isFile()) await access(path, constants.R_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const denied = code === 'EACCES' || code === 'EPERM';
      throw new SourceError(`${path}: cannot read transcript: ${code === 'ENOENT' ? 'no such file' : denied ? 'permission denied' : String(code)}`, {
        hint: code === 'ENOENT' ? 'check the path; `handoff list` shows the sessions already built' : denied ? `let this user read it (\`chmod u+r ${path}\`)` : 'check the file permissions',
        cause: e,
        details: { file: path, errno: code ?? 'EIO' },
      });
    }
    if (!st.isFile()) {
      throw new SourceError(`${path}: expected a transcript file, found a ${st.isDirectory() ? 'folder' : 'special file'}`, { hint: 'pass the transcript file itself', details: { file: path } });
    }
    return { req, path, size: st.size, dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs, isText: !isJsonlPath(path), gone: false };
  }

  /**
   * The directory of a session the index knows. A session is keyed by its transcript's path: the
   * session that reads this very file comes first. Then the session with this id, when it reads
   * the same file (moved or archived: the file it read is gone, or has the same inode). Two
   * live files whose ids collide (`-a/same.jsonl`, `-b/same.jsonl`) are two sessions: the
   * newcomer's id gets a short hash of its path, as folder names do. `forced`: the id was
   * given (`--session`), and names the session whatever file it reads.
   */
  private async locate(ident0: Identity, forced: boolean): Promise<{ ident: Identity; dir: string | undefined }> {
    const idx = this.deps.index;
    let ident = ident0;
    if (!forced) {
      const byPath = idx.byPath(ident.path);
      if (byPath && (await this.manifestOf(byPath.dir))?.session === byPath.id) return { ident: { ...ident, id: byPath.id }, dir: byPath.dir };
    }
    let byId = idx.get(ident.id);
    if (byId && !forced && !(await this.sameSource(byId.source?.path ?? null, ident))) {
      ident = { ...ident, id: `${ident.id}-${sha256Hex(ident.path).slice(0, 8)}` };
      byId = idx.get(ident.id);
    }
    if (byId) {
      if ((await this.manifestOf(byId.dir))?.session === byId.id) return { ident, dir: byId.dir };
      // Moved to its real project by a build that died before INDEX.json caught up.
      const moved = await this.findInProjects(basename(byId.dir), byId.id);
      if (moved) {
        idx.upsert(indexEntry(moved.manifest, moved.dir, moved.manifest.objective));
        return { ident, dir: moved.dir };
      }
    }
    const byUuid = ident.uuid && !ident.subagentFile ? idx.byUuid(ident.uuid) : undefined;
    // The same native session under another id (built earlier with --session, say) — unless
    // that session reads a different file that still exists: then they are two sessions.
    if (byUuid && (await this.sameSource(byUuid.source?.path ?? null, ident)) && (await this.manifestOf(byUuid.dir))?.session === byUuid.id) return { ident, dir: byUuid.dir };
    return { ident, dir: undefined };
  }

  /** The folder named `dirName` in any project whose manifest is session `id`'s. */
  private async findInProjects(dirName: string, id: string): Promise<{ dir: string; manifest: Manifest } | undefined> {
    for (const project of await listDir(this.deps.layout.projectsDir)) {
      const dir = this.deps.layout.sessionDir(project, dirName);
      const manifest = await this.manifestOf(dir);
      if (manifest?.session === id) return { dir, manifest };
    }
    return undefined;
  }

  /**
   * SPEC §3's directory name for a new session, unless that folder already holds another
   * session's committed manifest (two ids can map to one name: `a/b` and `a_b`, or ids cut at 200
   * characters) or the name is the project's own PROJECT.md: then a short hash of the id tells
   * them apart. A folder with no manifest holds nothing committed and may be taken. `committed`:
   * the folder already holds this session's manifest.
   */
  private async freeDirName(project: string, id: string): Promise<{ name: string; committed: boolean }> {
    const base = sessionDirName(id);
    const tag = sha256Hex(id).slice(0, 8);
    const stem = base.slice(0, 200 - tag.length - 1 - 4);
    for (let n = 0; ; n += 1) {
      const name = n === 0 ? base : n === 1 ? `${stem}-${tag}` : `${stem}-${tag}-${n}`;
      if (name.toLowerCase() === 'project.md') continue;
      const m = await this.manifestOf(this.deps.layout.sessionDir(project, name));
      if (m === null || m.session === id) return { name, committed: m !== null };
    }
  }

  private async sameSource(other: string | null, ident: Identity): Promise<boolean> {
    if (other === null || other === ident.path) return true;
    try {
      const [a, b] = await Promise.all([stat(other), stat(ident.path)]);
      return a.dev === b.dev && a.ino === b.ino;
    } catch {
      return true; // the other file is gone: this one continues it
    }
  }

  private async manifestOf(dir: string): Promise<Manifest | null> {
    const hit = this.cache.get(dir);
    if (hit) return hit.manifest;
    try {
      return JSON.parse(await readFile(join(dir, FILES.manifest), 'utf8')) as Manifest;
    } catch {
      return null;
    }
  }

  // ---------------------------------------------------------------- a session seen for the first time

  private async buildNew(ctx: Ctx, ident: Identity, p: Peek): Promise<BuildResult> {
    const { req } = ctx;
    let choice = await inferProject(req.project, p.cwd, ctx.path, this.deps.git, (n) => this.clean(n));
    const parent = ident.parent ? this.deps.index.get(ident.parent) : undefined;
    if (!req.project && parent) choice = { project: parent.project, source: 'index' };
    const { name: dirName, committed } = await this.freeDirName(choice.project, ident.id);
    const dir = this.deps.layout.sessionDir(choice.project, dirName);
    // Committed but missing from the index (a process died before writing INDEX.json): it is
    // an existing session after all.
    if (committed) return this.buildExisting(ctx, dir);
    // Nothing is committed without a manifest: residue of a killed first build goes.
    if (existsSync(dir)) {
      await emptyForRebuild(dir);
      for (const n of await listDir(dir)) if (STATE_FILE_RE.test(n)) await removeFile(join(dir, n));
    }
    crashPoint('after-cutback');
    // No folder is made until a turn is appended (AppendBuffer makes it): a file that never
    // yields one (empty, binary, not a transcript) leaves nothing behind.

    const state = initialState();
    if (req.objective) state.objectiveOverride = req.objective;
    const hash = createHash('sha256');
    const tools = createHash('sha256');
    const append = new AppendBuffer(dir, (b) => tools.update(b));
    append.header(toolsHeader(ident.id));
    const read = await this.read(ctx, state, { offset: 0, lines: 0 }, '', hash, append, ident.subagentFile);
    if (state.turns === 0) {
      await emptyForRebuild(dir);
      await removeEmptyDir(dir);
      await removeEmptyDir(dirname(dir));
      if (read.corrupt) throw read.corrupt;
      throw noTurns(ctx, read);
    }
    const now = this.deps.now().toISOString();
    const manifest = seal(this.bareManifest(ident, state, choice.project, choice.source, dirName, now, req.objective ?? null));
    const result = await this.commit(ctx, { dir, manifest, isNew: true, dirty: false }, state, read.hash, tools, append, read, null);
    if (ident.parent) await this.linkToParent(ident.parent);
    return result;
  }

  private bareManifest(ident: Identity, state: SessionState, project: string, projectSource: ProjectSource, dirName: string, now: string, objective: string | null): UnsealedManifest {
    return {
      schema_version: MANIFEST_SCHEMA_VERSION,
      session: ident.id,
      uuid: ident.uuid ?? state.meta.uuid ?? null,
      chain_id: this.inheritedChain(state) ?? randomBytes(16).toString('hex'),
      project,
      project_source: projectSource,
      dir_name: dirName,
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
      context: computePressure(initialState(), this.deps.config.pressure),
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
  private inheritedChain(state: SessionState): string | null {
    const from = state.meta.forkedFrom;
    return from ? (this.deps.index.byUuid(from)?.chain_id ?? null) : null;
  }

  // ---------------------------------------------------------------- a session already in the store

  private async loadBase(dir: string): Promise<LoadedSession> {
    const hit = this.cache.get(dir);
    if (hit) return { dir, manifest: hit.manifest, state: cloneState(hit.state), dirty: false, resetPending: false, damaged: null };
    return loadSession(dir);
  }

  private async buildExisting(ctx: Ctx, dirIn: string, change?: SessionChange): Promise<BuildResult> {
    const loadedIn = await this.loadBase(dirIn);
    const { dir, manifest: m } = change ? await this.applyChange(loadedIn, change) : { dir: dirIn, manifest: loadedIn.manifest };
    const loaded = { ...loadedIn, dir, manifest: m };
    const src = m.sources[0];
    let reset: string | null = loaded.damaged ? `the store no longer matches its manifest (${loaded.damaged})` : loaded.resetPending ? 'an interrupted reset' : null;
    let hash: Hash | null = null;
    if (reset === null && src && !ctx.gone) {
      reset = await this.continuity(ctx, src);
      if (reset === null && ctx.isText) {
        // A text transcript is parsed whole on every build; what was read must still be its start.
        ctx.text = await readTextFile(ctx.path);
        if (sha256Hex(ctx.text.subarray(0, src.offset)) !== src.raw_sha256) reset = 'the bytes already read changed (the transcript was rewritten)';
      } else if (reset === null) {
        hash = await this.deps.digests.resume(`${dir}\0raw`, ctx.path, src.offset, src.raw_sha256);
        if (!hash) reset = 'the bytes already read changed (the transcript was rewritten)';
      }
    }
    let base: Base = { dir, manifest: m, isNew: false, dirty: loaded.dirty || change !== undefined };
    if (ctx.gone) return this.commitGone(ctx, base, loaded.state ?? (await this.replayGone(m)));
    let state = loaded.state;
    let start = { offset: src?.offset ?? 0, lines: src?.lines ?? 0 };
    if (reset !== null) {
      this.forget(dir);
      if (!loaded.resetPending) await archiveForReset(dir, m, reset, this.deps.now());
      await emptyForRebuild(dir);
      base = { ...base, manifest: seal({ ...m, timeline_bytes: 0, tools_bytes: 0, timeline_head: '', watermark: -1 }) };
      state = null;
      start = { offset: 0, lines: 0 };
    }
    if (ctx.isText || hash === null) hash = createHash('sha256');
    if (state === null) state = reset === null ? await this.replay(ctx, m) : initialState();
    if (reset !== null && m.objective_override) state.objectiveOverride = m.objective_override;
    if (ctx.req.objective !== undefined) state.objectiveOverride = ctx.req.objective;

    const tools = await this.toolsBase(dir, base.manifest);
    const append = new AppendBuffer(dir, (b) => tools.update(b));
    if (base.manifest.tools_bytes === 0) append.header(toolsHeader(m.session));
    const read = await this.read(ctx, state, start, base.manifest.timeline_head, hash, append, m.parent_session !== null);
    const unchanged = ctx.isText ? read.newTurns === 0 && read.rawSha === src?.raw_sha256 : read.newTurns === 0 && read.offset === start.offset;
    const asked = ctx.req.force === true || ctx.req.history !== undefined || ctx.req.objective !== undefined;
    // The transcript was moved (a Codex rollout archived): the manifest must name where it is now.
    const relocated = src !== undefined && src.path !== ctx.path;
    if (unchanged && reset === null && !base.dirty && !asked && !relocated) {
      this.located.set(ctx.path, dir);
      if (read.corrupt) throw read.corrupt;
      return this.upToDate(dir, m, read);
    }
    return this.commit(ctx, base, state, read.hash, tools, append, read, reset);
  }

  /**
   * retitle, rename, finalize, checkpoint: change a session and re-render it. New bytes of its
   * transcript are read as in any build; a transcript that is gone re-renders what is committed.
   */
  async update(dir: string, changeIn: SessionChange): Promise<BuildResult> {
    const started = performance.now();
    const change = this.cleanChange(changeIn);
    const m = await this.manifestOf(dir);
    if (!m) throw new NotFoundError(`${dir}: no manifest.json`, { hint: 'run `handoff list` to see the sessions of this store' });
    const path = m.sources[0]?.path;
    let ctx: Ctx;
    try {
      ctx = await this.context({ source: path ?? join(dir, '(no source)'), force: true, history: change.history });
    } catch (e) {
      if (!(e instanceof SourceError)) throw e;
      ctx = { req: { source: path ?? '', force: true, history: change.history }, path: path ?? '', size: 0, dev: 0, ino: 0, mtimeMs: 0, isText: !isJsonlPath(path ?? ''), gone: true };
    }
    const result = await this.buildExisting(ctx, dir, change);
    result.build_ms = Math.round((performance.now() - started) * 100) / 100;
    return result;
  }

  /**
   * Marks a session whose transcript `path` was deleted: its handoff stays, re-rendered as
   * `gone`. `moved`: the session reads another file by now (the transcript was moved, or a Codex
   * rollout archived), so nothing is gone.
   */
  async markGone(dir: string, path: string): Promise<BuildResult | null | 'moved'> {
    const m = await this.manifestOf(dir);
    if (!m) return null;
    const reads = m.sources[0]?.path;
    if (reads !== undefined && reads !== path) return 'moved';
    if (m.source_state === 'gone') return null;
    return this.update(dir, {});
  }

  /** Moves and renames a session folder before the build that records the change. */
  private async applyChange(loaded: LoadedSession, change: SessionChange): Promise<{ dir: string; manifest: Manifest }> {
    const m = loaded.manifest;
    let target = loaded.dir;
    const patch: Partial<UnsealedManifest> = {};
    if (change.title !== undefined) {
      const title = stripControls(change.title).replace(/\s+/g, ' ');
      const slug = slugify(title, sessionDirName(m.session));
      target = join(dirname(target), slug);
      if (slug !== m.dir_name) {
        patch.dir_name = slug;
        patch.titled_from = [...m.titled_from, m.dir_name];
      }
      patch.title_override = title.trim();
    }
    if (change.project !== undefined) {
      const project = slugify(change.project);
      if (project !== m.project) {
        target = this.deps.layout.sessionDir(project, basename(target));
        patch.prev_project = m.project;
        patch.project = project;
        patch.project_source = 'flag';
      }
    }
    if (target !== loaded.dir) {
      if (existsSync(target)) {
        throw new UsageError(`${target} already exists`, { hint: 'choose another name, or rename the session that holds it first' });
      }
      await moveDir(loaded.dir, target);
      this.forget(loaded.dir);
      this.deps.index.remove(m.session);
    }
    const { manifest_sha256: _s, ...rest } = m;
    return { dir: target, manifest: seal({ ...rest, ...patch }) };
  }

  /** The committed state of a session whose transcript is gone (from its state file only). */
  private async replayGone(m: Manifest): Promise<SessionState> {
    const st = initialState();
    st.watermark = m.watermark;
    st.turns = m.turn_count;
    if (m.objective_override) st.objectiveOverride = m.objective_override;
    return st;
  }

  private async commitGone(ctx: Ctx, base: Base, state: SessionState): Promise<BuildResult> {
    const m = base.manifest;
    const src = m.sources[0];
    const read: ReadResult = { offset: src?.offset ?? 0, lines: src?.lines ?? 0, size: src?.size ?? 0, pendingBytes: 0, newTurns: 0, corrupt: null, head: m.timeline_head, rawSha: m.raw_sha256, hash: createHash('sha256') };
    const append = new AppendBuffer(base.dir);
    const tools = await this.toolsBase(base.dir, m);
    return this.commit(ctx, base, state, createHash('sha256'), tools, append, read, null);
  }

  /** Source reset detection (SPEC §5): shrink, a replaced file, or different first bytes. */
  private async continuity(ctx: Ctx, src: SourceRecord): Promise<string | null> {
    if (ctx.size < src.offset) return `the transcript shrank from ${src.offset} to ${ctx.size} bytes`;
    if (src.path === ctx.path && (src.dev !== ctx.dev || src.ino !== ctx.ino)) return 'the transcript was replaced by another file (new inode)';
    if (src.fingerprint_bytes > 0 && (await fingerprint(ctx.path, src.fingerprint_bytes)) !== src.fingerprint) {
      return 'the first bytes of the transcript changed';
    }
    return null;
  }

  /** A lost or damaged state file: fold the committed bytes [0, offset) again, writing nothing. */
  private async replay(ctx: Ctx, m: Manifest): Promise<SessionState> {
    const state = initialState();
    if (m.objective_override) state.objectiveOverride = m.objective_override;
    const src = m.sources[0];
    if (!src) return state;
    if (ctx.isText) {
      await this.read(ctx, state, { offset: 0, lines: 0 }, '', createHash('sha256'), null, false);
      return state;
    }
    await readNewLines(ctx.path, { offset: 0, lines: 0 }, state, createHash('sha256'), { ...this.readOptions(ctx, true, m.parent_session !== null), limit: src.offset, final: true }, () => undefined);
    return state;
  }

  private readOptions(ctx: Ctx, allowBad: boolean, subagentFile: boolean): ReadOptions {
    const o = this.deps.config.options;
    const harness = ctx.req.harness === 'text' ? undefined : ctx.req.harness;
    return {
      maxLineBytes: o.capture.max_line_bytes,
      allowBadLines: allowBad,
      final: ctx.req.final === true,
      ingest: { redactor: this.deps.redactor, harness, subagentFile },
    };
  }

  // ---------------------------------------------------------------- reading new bytes

  private async read(ctx: Ctx, state: SessionState, start: { offset: number; lines: number }, head0: string, hash: Hash, append: AppendBuffer | null, subagentFile: boolean): Promise<ReadResult> {
    let head = head0;
    const onTurn = async (t: Turn): Promise<void> => {
      const { bytes, h } = chainLine(head, t);
      head = h;
      // Every tool call in full: TOOL turns, and agent turns that also carry a call.
      if (append) await append.add(bytes, t.tool !== undefined ? toolSection(t) : null);
    };
    if (ctx.isText) {
      const raw = ctx.text ?? (await readTextFile(ctx.path));
      hash.update(raw);
      const text = raw.toString('utf8');
      state.harness = 'text';
      const parsed = parseTextTranscript(withoutBom(text));
      let n = 0;
      for (const t of parsed.turns) {
        const kept = ingestTextTurn(state, t, this.deps.redactor);
        if (kept) {
          n += 1;
          await onTurn(kept);
        }
      }
      state.skipped = parsed.skipped;
      state.lines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      return { offset: raw.length, lines: state.lines, size: raw.length, pendingBytes: 0, newTurns: n, corrupt: null, head, rawSha: sha256Hex(raw), hash };
    }
    const allowBad = ctx.req.allowBadLines === true || this.deps.config.options.watch.allow_bad_lines;
    const out = await readNewLines(ctx.path, start, state, hash, this.readOptions(ctx, allowBad, subagentFile), onTurn);
    const corrupt = out.corrupt ? new CorruptLineError(ctx.path, out.corrupt.line, out.corrupt.offset, out.corrupt.reason) : null;
    return { offset: out.offset, lines: out.lines, size: out.size, pendingBytes: out.pendingBytes, newTurns: out.newTurns, corrupt, head, rawSha: null, hash: out.hash };
  }

  private upToDate(dir: string, m: Manifest, read: ReadResult): BuildResult {
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
      reset: null,
      pressure: m.context,
      previous_pressure: m.context.level,
      new_compactions: 0,
      history: null,
      bad_lines: m.bad_lines,
      unknown_types: m.unknown_types,
      corrupt: null,
      build_ms: 0,
    };
  }

  // ---------------------------------------------------------------- commit (SPEC §5 write order)

  private async commit(ctx: Ctx, base: Base, state: SessionState, hash: Hash, tools: Hash, append: AppendBuffer, read: ReadResult, reset: string | null): Promise<BuildResult> {
    const prev = base.manifest;
    const now = this.deps.now();
    if (ctx.req.model && !state.meta.model) state.meta.model = ctx.req.model;
    const { dir, project, projectSource } = await this.refineProject(ctx, base, state, append);

    // 1. Timeline and TOOLS.md lines first (the first of a new session makes its folder, and
    // history/ with it: a session with a turn has the layout of SPEC §4).
    await append.flush();
    if (base.isNew) await ensureDir(join(dir, FILES.history));
    crashPoint('after-append');

    const rawSha = read.rawSha ?? hash.copy().digest('hex');
    const prevSrc = prev.sources[0] ?? null;
    const source = ctx.gone && prevSrc ? prevSrc : await this.sourceRecord(ctx, read, rawSha, prevSrc, reset);
    const revision = prev.revisions + 1;
    const git = await this.captureGit(state.meta.cwd ?? null);
    const pressure = computePressure(state, this.deps.config.pressure);
    const existingMd = await readFile(join(dir, FILES.handoff), 'utf8').catch(() => null);
    const contract = existingMd === null ? null : extractContract(existingMd);
    const children = this.deps.index.childrenOf(prev.session).map((c) => ({ id: c.id, dir: c.dir }));
    const token = randomBytes(32).toString('hex');
    const title = prev.title_override ?? state.meta.title ?? null;
    const histReq = this.historyRequest(ctx.req, prev, pressure);
    // Anything a caller passes in is redacted like transcript text (cleanRequest, cleanChange).
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
      root: this.deps.layout.root,
      dir,
      // The manifest keeps the real path (the store reads the file by it); what is rendered is
      // redacted, and control characters in a file name become visible escapes.
      sources: [{ path: this.clean(escapeControls(source.path)), offset: source.offset, size: source.size }],
      rawSha256: rawSha,
      manifestSha256: token,
      git,
      pressure,
      contract,
      parentSession: prev.parent_session,
      childSessions: children,
      redactions: state.redactions,
      history: history.sort(),
      state,
    };
    const renders = renderAll(input);
    // Renders name this revision's manifest sha256, which depends on their own digests: they
    // are hashed with a fixed placeholder in its place (see docs/PROVENANCE.md).
    const digestOf = (s: string): string => sha256Hex(s.split(token).join(MANIFEST_SHA_PLACEHOLDER));
    const toolsSha = tools.copy().digest('hex');
    const stateJson = JSON.stringify(state);
    const stateFile = stateFileName(revision);

    const { manifest_sha256: _old, evidence_contract_sha256: _c, ...carried } = prev;
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
      render_sha256: {
        [FILES.summary]: digestOf(renders.summaryJson),
        [FILES.llm]: digestOf(renders.llmJson),
        [FILES.tools]: toolsSha,
        [FILES.handoff]: digestOf(generatedPart(renders.handoffMd)),
      },
      ...(contract === null ? {} : { evidence_contract_sha256: sha256Hex(contract) }),
      state_file: stateFile,
      state_sha256: sha256Hex(stateJson),
      context: pressure,
      git,
      redactions: state.redactions,
      quality: { transfer_ready: renders.gate.transfer_ready, failed: renders.gate.failed },
      finalized: entry ? [...prev.finalized, entry] : prev.finalized,
      subagents: children.map((c) => c.id),
      objective: state.objectiveOverride ?? state.objective?.text ?? null,
      objective_override: state.objectiveOverride,
    };
    // The manifest sha256 has a fixed length, so render sizes are known before it is.
    const sized = (s: string): number => Buffer.byteLength(s.split(token).join(MANIFEST_SHA_PLACEHOLDER));
    unsealed.render_bytes = { [FILES.summary]: sized(renders.summaryJson), [FILES.llm]: sized(renders.llmJson), [FILES.handoff]: sized(renders.handoffMd) };
    const manifest = seal(unsealed);
    const fill = (s: string): string => s.split(token).join(manifest.manifest_sha256);

    // 2. The state and the renders, each atomically (side by side: they do not depend on each
    // other); 3. the manifest last, flushed to disk: the commit point.
    const handoffMd = fill(renders.handoffMd);
    await Promise.all([
      writeAtomic(join(dir, stateFile), stateJson, FILE_MODE, false).then(() => crashPoint('after-state')),
      writeAtomic(join(dir, FILES.summary), fill(renders.summaryJson), FILE_MODE, false),
      writeAtomic(join(dir, FILES.llm), fill(renders.llmJson), FILE_MODE, false),
      writeAtomic(join(dir, FILES.handoff), handoffMd, FILE_MODE, false),
    ]);
    crashPoint('after-renders');
    if (entry && hist) await writeHistory(dir, entry.file, historyContent(hist, handoffMd, now, revision));
    await writeAtomic(join(dir, FILES.manifest), serializeManifest(manifest));
    crashPoint('after-manifest');

    if (prev.state_file && prev.state_file !== stateFile) await removeFile(join(dir, prev.state_file));
    if (reset !== null) await clearResetMarker(dir);
    this.remember(ctx.gone ? null : ctx.path, dir, manifest, state, ctx.gone ? null : hash, source.offset, rawSha);
    this.deps.digests.remember(`${dir}\0tools`, tools, manifest.tools_bytes, toolsSha);
    this.deps.index.upsert(indexEntry(manifest, dir, manifest.objective));
    return {
      session: manifest.session,
      title: manifest.title,
      path: source.path,
      project,
      dir,
      harness: manifest.harness,
      revision,
      watermark: manifest.watermark,
      turns: manifest.turn_count,
      new_turns: read.newTurns,
      up_to_date: false,
      pending_bytes: read.pendingBytes,
      offset: source.offset,
      size: read.size,
      reset,
      pressure,
      previous_pressure: base.isNew ? null : prev.context.level,
      new_compactions: Math.max(0, pressure.compactions - (base.isNew ? 0 : prev.context.compactions)),
      history: entry,
      bad_lines: state.bad,
      unknown_types: manifest.unknown_types,
      corrupt: read.corrupt,
      build_ms: 0,
    };
  }

  /** A project guessed before the transcript named its cwd moves once it does. */
  private async refineProject(ctx: Ctx, base: Base, state: SessionState, append: AppendBuffer): Promise<{ dir: string; project: string; projectSource: ProjectSource }> {
    const prev = base.manifest;
    const keep = { dir: base.dir, project: prev.project, projectSource: prev.project_source };
    if (!isProvisional(prev.project_source) || ctx.req.project || !state.meta.cwd) return keep;
    const choice = await inferProject(undefined, state.meta.cwd, ctx.path, this.deps.git, (n) => this.clean(n));
    if (isProvisional(choice.source) || choice.project === prev.project) return keep;
    const to = this.deps.layout.sessionDir(choice.project, prev.dir_name);
    // A session seen for the first time has no folder until its first append: nothing to move.
    if (existsSync(base.dir)) {
      await moveDir(base.dir, to);
      await removeEmptyDir(dirname(base.dir));
    }
    this.forget(base.dir);
    append.dir = to;
    return { dir: to, project: choice.project, projectSource: choice.source };
  }

  private historyRequest(req: BuildRequest, prev: Manifest, p: Pressure): HistoryRequest | null {
    if (req.history) return req.history;
    if (!req.autoFinalize || prev.revisions === 0) return null;
    if (p.compactions > prev.context.compactions) return { kind: 'finalize', reason: 'compaction' };
    if (p.level === 'red' && prev.context.level !== 'red') return { kind: 'finalize', reason: 'context pressure turned red' };
    return null;
  }

  private async sourceRecord(ctx: Ctx, read: ReadResult, rawSha: string, prev: SourceRecord | null, reset: string | null): Promise<SourceRecord> {
    const fpBytes = Math.min(read.offset, FINGERPRINT_BYTES);
    return {
      path: ctx.path,
      dev: ctx.dev,
      ino: ctx.ino,
      fingerprint: fpBytes === 0 ? sha256Hex('') : await fingerprint(ctx.path, fpBytes),
      fingerprint_bytes: fpBytes,
      offset: read.offset,
      raw_sha256: rawSha,
      lines: read.lines,
      size: read.size,
      mtime_ms: ctx.mtimeMs,
      resets: (prev?.resets ?? 0) + (reset === null ? 0 : 1),
    };
  }

  private async captureGit(cwd: string | null): Promise<GitEvidence> {
    const g = await this.deps.git.capture(cwd);
    const r = this.deps.redactor;
    // Paths of the repository are file names: shown, never obeyed.
    const red = (s: string | null): string | null => (s === null ? null : r.redact(stripControls(s)).text);
    const name = (s: string): string => r.redact(escapeControls(s)).text;
    return { ...g, cwd: red(g.cwd), top: red(g.top), diffstat: red(g.diffstat), reason: red(g.reason), changed: g.changed.map(name), untracked: g.untracked.map(name) };
  }

  /** The running digest of TOOLS.md as committed, to continue with this build's appends. */
  private async toolsBase(dir: string, m: Manifest): Promise<Hash> {
    if (m.tools_bytes === 0) return createHash('sha256');
    const path = join(dir, FILES.tools);
    const h = await this.deps.digests.resume(`${dir}\0tools`, path, m.tools_bytes, m.render_sha256[FILES.tools] ?? '');
    // A TOOLS.md edited by hand (same length) no longer matches: verify reports it, and from
    // here on the digest covers what is on disk.
    return h ?? (await hashPrefix(path, m.tools_bytes));
  }

  private remember(path: string | null, dir: string, manifest: Manifest, state: SessionState, hash: Hash | null, offset: number, rawSha: string): void {
    if (path !== null) this.located.set(path, dir);
    if (hash !== null) this.deps.digests.remember(`${dir}\0raw`, hash, offset, rawSha);
    const size = this.deps.cacheSessions ?? 0;
    if (size <= 0) return;
    this.cache.delete(dir);
    this.cache.set(dir, { manifest, state: cloneState(state) });
    if (this.cache.size > size) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }

  /** A subagent seen after its parent was built: re-render the parent so it lists it. */
  private async linkToParent(parentId: string): Promise<void> {
    const parent = this.deps.index.get(parentId);
    if (!parent?.source) return;
    try {
      await this.build({ source: parent.source.path, force: true });
    } catch {
      // The parent's own problems (a corrupt line, a missing file) surface in its own builds.
    }
  }
}

async function fingerprint(path: string, bytes: number): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return sha256Hex(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

async function readTextFile(path: string): Promise<Buffer> {
  const { size } = await stat(path);
  if (size > TEXT_MAX_BYTES) {
    throw new SourceError(`${path}: a text transcript of ${size} bytes is larger than the ${TEXT_MAX_BYTES} bytes read whole`, {
      hint: 'text transcripts are read whole on every build; convert large ones to JSONL (.jsonl), which is read incrementally',
      details: { file: path },
    });
  }
  return readFile(path);
}

/** Why no turn came out of a new transcript, and what to do: never `--final` to a build that had it. */
function noTurns(ctx: Ctx, read: ReadResult): NoTurnsError {
  const final = ctx.req.final === true;
  const waiting = read.pendingBytes > 0 ? ` (${read.pendingBytes} bytes of an unfinished last line ${final ? 'do not parse as JSON' : 'wait for their newline'})` : '';
  const notTranscript = 'check that this is a Claude Code, Codex, JSONL or role-marked text transcript (`--harness` forces a reader)';
  return new NoTurnsError(`${ctx.path}: no turn parsed from ${read.lines} line(s)${waiting}`, {
    hint: read.pendingBytes === 0 || final ? notTranscript : 'if that last line is complete, `--final` takes it; otherwise wait for the agent to finish writing it',
    details: { file: ctx.path, lines: read.lines },
  });
}
