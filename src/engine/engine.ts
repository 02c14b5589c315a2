import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { sha256Hex } from '../core/canonical.js';
import type { Redactor } from '../core/redact.js';
import type { Turn } from '../core/types.js';
import { toolsHeader } from '../core/render/tools-md.js';
import { initialState, objectiveSet } from '../core/state.js';
import { NotFoundError, SourceError, UsageError } from '../errors.js';
import { cutBack, removeEmptyDir, removeFile } from '../store/files.js';
import { indexEntry } from '../store/index-file.js';
import type { IndexEntry } from '../store/index-file.js';
import type { IndexStore } from '../store/index-store.js';
import type { Layout } from '../store/layout.js';
import { FILES } from '../store/layout.js';
import type { Manifest } from '../store/manifest.js';
import { readManifest, seal, stateBehind } from '../store/manifest.js';
import { AppendBuffer } from './append.js';
import { inodeKey, SessionClaims, sessionKey } from './claims.js';
import { Cleaner } from './clean.js';
import type { Parts } from './commit.js';
import { commit, parentEntry, toolsBase, upToDate } from './commit.js';
import { crashPoint } from './faults.js';
import { catchUp, readNew, replay, replayGone, replayTurns } from './fold.js';
import type { Identity, Peek } from './identity.js';
import { identify, inferProject, peek } from './identity.js';
import { applyChange, commitGone } from './lifecycle.js';
import { collided, freeDirName, locate, relocate, sameSource } from './locate.js';
import type { Where } from './locate.js';
import { EngineMemory } from './memory.js';
import { bareManifest } from './new-session.js';
import { archiveForReset, CHANGE_MARKER, clearUncommitted, emptyForRebuild, setAsideDamaged, undoPendingReset } from './session.js';
import { continuity, goneSource, noTurns, openSource, readTextFile } from './source.js';
import type { Base, BuildRequest, BuildResult, Ctx, EngineDeps, SessionChange } from './types.js';
import { DependentSession, StateBehindGone } from './types.js';

export type { BuildRequest, BuildResult, EngineDeps, SessionChange } from './types.js';

/**
 * The incremental build (SPEC §5), shared by the one-shot CLI and the daemon: take a session's
 * stored state and the new bytes of its source, append the new turns, re-render, and commit by
 * writing the manifest last. A refresh reads only the new bytes: the bounded state carries
 * everything else forward, and running digests (DigestCache) continue where they stopped.
 *
 * A build takes these steps, each a module that reads alone:
 *   1. source.ts     — the transcript as this build sees it, and whether it continues what was read;
 *   2. locate.ts     — which folder of the store it builds into (memory.ts remembers the answer);
 *   3. fold.ts       — the new bytes, folded into the state by the pure core;
 *   4. commit.ts     — the commit, in the crash-safe write order stated there;
 *   lifecycle.ts     — retitle, rename and gone, which the transcript does not make.
 */
export class Engine {
  private readonly memory: EngineMemory;
  /** A new subagent's build, and the parent to re-render once its claim is released (build()). */
  private readonly parentToLink = new WeakMap<BuildResult, string>();
  private readonly cleaner: Cleaner;
  private readonly parts: Parts & Where;
  readonly claims: SessionClaims;

  constructor(private readonly deps: EngineDeps) {
    this.claims = deps.claims ?? new SessionClaims();
    this.memory = new EngineMemory(deps.digests, deps.cacheSessions ?? 0);
    this.cleaner = new Cleaner(deps.redactor);
    this.parts = { deps, memory: this.memory, cleaner: this.cleaner, index: deps.index, layout: deps.layout };
  }

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
    this.memory.forget(pathOrDir);
  }

  async build(reqIn: BuildRequest): Promise<BuildResult> {
    const started = performance.now();
    const req = this.cleaner.request(reqIn);
    for (;;) {
      const ctx = await openSource(req);
      const at = await this.where(ctx, req);
      // One build of a session at a time in this process, whichever path led to it (claims.ts).
      const keys = await this.claimKeys(ctx, at);
      if (!this.claims.tryClaim(keys)) {
        if (req.independentOnly === true) throw new DependentSession(ctx.path, 'its session is being built by another thread');
        // Where the other build left the session is read again once it is done.
        await this.claims.whileHeld(keys);
        continue;
      }
      let result: BuildResult;
      try {
        result = at.dir !== undefined ? await this.buildExisting(ctx, at.dir) : await this.buildNew(ctx, at.ident as Identity, at.peeked as Peek);
      } finally {
        this.claims.release(keys);
      }
      // A new subagent's parent is re-rendered once this session's claim is released: the
      // parent's build may learn this subagent's task and re-render it (its dependents), which
      // inside the claim would wait for this very build to end.
      const parent = this.parentToLink.get(result);
      if (parent !== undefined) {
        this.parentToLink.delete(result);
        await this.linkToParent(parent);
      }
      result.build_ms = Math.round((performance.now() - started) * 100) / 100;
      if (result.dependents !== undefined && req.independentOnly !== true) await this.renderDependents(result.dependents);
      return result;
    }
  }

  /**
   * What a build claims (claims.ts): the transcript's inode (the same file under two paths: a hard
   * link, a symbolic link) and the session's id, as the transcript names it and as the folder it
   * builds into records it (two files that carry one id).
   */
  private async claimKeys(ctx: Ctx, at: { dir: string | undefined; ident: Identity | null }): Promise<string[]> {
    const keys = ctx.gone ? [] : [inodeKey(ctx.dev, ctx.ino)];
    if (at.ident !== null) return [...keys, sessionKey(at.ident.id)];
    // Found by memory (a refresh) or given (an update): the session its manifest names, which
    // memory holds for a live session; a build that located it already knows its id.
    const session = at.dir === undefined ? undefined : (await this.memory.manifestOf(at.dir))?.session;
    return session === undefined ? keys : [...keys, sessionKey(session)];
  }

  /** Step 2 (locate.ts): the folder this transcript builds into, or the identity of a new session. */
  private async where(ctx: Ctx, req: BuildRequest): Promise<{ dir: string | undefined; ident: Identity | null; peeked: Peek | null }> {
    let dir = req.session === undefined ? this.memory.dirOf(ctx.path) : undefined;
    // A session folder deleted under a live session (by hand, by a cleanup tool): what memory
    // holds of it would be appended to a new, empty folder, its earlier turns lost. It is located
    // again, and built from the transcript's start when its folder is not found.
    if (dir !== undefined && !existsSync(join(dir, FILES.manifest))) {
      this.memory.forget(ctx.path);
      dir = undefined;
    }
    let ident: Identity | null = null;
    let peeked: Peek | null = null;
    if (dir === undefined) {
      peeked = await peek(ctx.path);
      const found = await locate(this.parts, this.cleaner.identity(identify(ctx.path, peeked, req.session)), req.session !== undefined);
      ident = found.ident;
      dir = found.dir;
    }
    return { dir, ident, peeked };
  }

  /**
   * An index entry whose folder holds its session, as the entry given or, when that folder was
   * left by a retitle or rename killed before INDEX.json caught up, where the session went.
   */
  async current(entry: IndexEntry): Promise<IndexEntry> {
    if ((await this.memory.manifestOf(entry.dir))?.session === entry.id) return entry;
    const moved = await relocate(this.parts, entry.id, basename(entry.dir));
    return moved === undefined ? entry : (this.deps.index.get(entry.id) ?? entry);
  }

  /**
   * retitle, rename, finalize, checkpoint: change a session and re-render it. New bytes of its
   * transcript are read as in any build; a transcript that is gone re-renders what is committed.
   */
  async update(dirIn: string, changeIn: SessionChange): Promise<BuildResult> {
    const started = performance.now();
    for (;;) {
      const claimed = await this.updateClaimed(dirIn, changeIn, started);
      if (claimed !== null) return claimed;
    }
  }

  /** update(), under the session's claim (claims.ts); null when another thread held it, and is done now. */
  private async updateClaimed(dirIn: string, changeIn: SessionChange, started: number): Promise<BuildResult | null> {
    const change = this.cleaner.change(changeIn);
    // The session the index files there, found where it went if a killed retitle moved it.
    const indexed = this.deps.index.all().find((e) => e.dir === dirIn);
    const dir = indexed === undefined ? dirIn : (await this.current(indexed)).dir;
    // A manifest that is there but damaged is named as such (readManifest's VerifyError and its fix).
    const m = (await this.memory.manifestOf(dir)) ?? (await readManifest(dir));
    if (!m) throw new NotFoundError(`${dir}: no manifest.json`, { hint: 'run `handoff list` to see the sessions of this store' });
    const path = m.sources[0]?.path;
    const req: BuildRequest = { source: path ?? join(dir, '(no source)'), force: true, history: change.history };
    let ctx: Ctx;
    try {
      ctx = await openSource(req);
    } catch (e) {
      if (!(e instanceof SourceError)) throw e;
      ctx = goneSource({ ...req, source: path ?? '' }, path ?? '');
    }
    const keys = await this.claimKeys(ctx, { dir, ident: null });
    if (!this.claims.tryClaim(keys)) {
      await this.claims.whileHeld(keys);
      return null;
    }
    try {
      const result = await this.buildExisting(ctx, dir, change);
      result.build_ms = Math.round((performance.now() - started) * 100) / 100;
      return result;
    } finally {
      this.claims.release(keys);
    }
  }

  /**
   * Marks a session whose transcript `path` was deleted: its handoff stays, re-rendered as
   * `gone`. `moved`: the session reads another file by now (the transcript was moved, or a Codex
   * rollout archived), so nothing is gone.
   */
  async markGone(dir: string, path: string): Promise<BuildResult | null | 'moved'> {
    const m = await this.memory.manifestOf(dir);
    if (!m) return null;
    const reads = m.sources[0]?.path;
    if (reads !== undefined && reads !== path) return 'moved';
    if (m.source_state === 'gone') return null;
    try {
      return await this.update(dir, {});
    } catch (e) {
      // The handoff stays as last built (StateBehindGone says why): nothing to mark.
      if (e instanceof StateBehindGone) return null;
      throw e;
    }
  }

  /**
   * The turns a session's transcript yields up to its committed offset, full texts included
   * (`verify --source` compares them with timeline.jsonl). Throws a SourceError when the
   * transcript cannot be read.
   */
  async turnsOf(m: Manifest, onTurn: (t: Turn) => void): Promise<void> {
    const path = m.sources[0]?.path;
    if (path === undefined) return;
    await replayTurns(this.deps, await openSource({ source: path }), m, onTurn);
  }

  // ---------------------------------------------------------------- a session seen for the first time

  private async buildNew(ctx: Ctx, identIn: Identity, p: Peek): Promise<BuildResult> {
    const { req } = ctx;
    let ident = identIn;
    if (req.independentOnly && (ident.parent !== null || p.forkedFrom !== null)) throw new DependentSession(ctx.path);
    let choice = await inferProject(req.project, p.cwd, ctx.path, this.deps.git, (n) => this.cleaner.text(n));
    // By the parent's id or its native session id (a copied transcript's file name is neither).
    const parent = ident.parent ? parentEntry(this.deps, ident.parent) : undefined;
    if (!req.project && parent) choice = { project: parent.project, source: 'index' };
    let { name: dirName, committed } = await freeDirName(this.parts, choice.project, ident.id);
    // Committed by another thread's build of another live file with this id, which the index
    // does not name yet (a worker's entries arrive after its commit): two sessions, as locate
    // makes them when the index knows the first.
    if (committed && req.session === undefined && !(await sameSource((await this.memory.manifestOf(this.deps.layout.sessionDir(choice.project, dirName)))?.sources[0]?.path ?? null, ident))) {
      ident = collided(ident);
      ({ name: dirName, committed } = await freeDirName(this.parts, choice.project, ident.id));
    }
    const dir = this.deps.layout.sessionDir(choice.project, dirName);
    // Committed but missing from the index (a process died before writing INDEX.json): it is
    // an existing session after all.
    if (committed) return this.buildExisting(ctx, dir);
    // A manifest that cannot be read is set aside, not appended after (session.ts).
    const damaged = await setAsideDamaged(dir, this.deps.now());
    // Nothing is committed without a manifest: residue of a killed first build goes.
    await clearUncommitted(dir);
    crashPoint('after-cutback');
    // No folder is made until a turn is appended (AppendBuffer makes it): a file that never
    // yields one (empty, binary, not a transcript) leaves nothing behind.

    const state = initialState();
    if (req.objective) state.objectiveOverride = objectiveSet(req.objective);
    const hash = createHash('sha256');
    const tools = createHash('sha256');
    const append = new AppendBuffer(dir, (b) => tools.update(b));
    append.header(toolsHeader(ident.id));
    let read: Awaited<ReturnType<typeof readNew>>;
    let result: BuildResult;
    try {
      read = await readNew(this.deps, ctx, state, { offset: 0, lines: 0 }, '', hash, append, ident.subagentFile);
      if (state.turns === 0) {
        await emptyForRebuild(dir);
        await removeEmptyDir(dir);
        await removeEmptyDir(dirname(dir));
        if (read.corrupt) throw read.corrupt;
        throw noTurns(ctx, read, state.oversized, this.deps.config.options.capture.max_line_bytes);
      }
      const now = this.deps.now().toISOString();
      const where = { project: choice.project, projectSource: choice.source, dirName };
      const manifest = seal(bareManifest(ident, state, where, now, req.objective ?? null, this.deps.config.pressure, this.deps.index));
      result = await commit(this.parts, ctx, { dir, manifest, isNew: true, dirty: false }, state, read.hash, tools, append, read, null);
    } catch (err) {
      // A first build that failed before its manifest (its transcript renamed or gone meanwhile,
      // a full disk) committed nothing: what it appended goes, or its folder would stay as residue
      // no later build of that name may come to clear (verify would fail on it for good).
      if (await clearUncommitted(dir, true)) await removeEmptyDir(dirname(dir));
      throw err;
    }
    if (damaged !== null) result.reset = damaged;
    if (ident.parent) this.parentToLink.set(result, ident.parent);
    return result;
  }

  // ---------------------------------------------------------------- a session already in the store

  private async buildExisting(ctx: Ctx, dirIn: string, requested?: SessionChange): Promise<BuildResult> {
    const loadedIn = await this.memory.load(dirIn);
    // Checked before a change moves anything: a gone transcript cannot bring the state up to date.
    if (ctx.gone && loadedIn.behind !== null) throw new StateBehindGone(ctx.path);
    // A retitle or rename killed between its move and its commit is finished first (lifecycle.ts).
    let change = loadedIn.pendingChange !== null ? withPending(loadedIn.pendingChange, requested) : requested;
    let moved: { dir: string; manifest: Manifest };
    try {
      moved = change ? await applyChange(this.parts, loadedIn, change) : { dir: dirIn, manifest: loadedIn.manifest };
    } catch (e) {
      // The interrupted change can no longer be made (its folder name was given to another
      // session since): it is dropped, so that the session's own turns still reach the store.
      if (!(e instanceof UsageError) || loadedIn.pendingChange === null) throw e;
      await removeFile(join(dirIn, CHANGE_MARKER));
      change = requested;
      moved = change ? await applyChange(this.parts, { ...loadedIn, pendingChange: null }, change) : { dir: dirIn, manifest: loadedIn.manifest };
    }
    const { dir, manifest: m } = moved;
    const loaded = { ...loadedIn, dir, manifest: m };
    const src = m.sources[0];
    let reset: string | null = loaded.damaged ? `the store no longer matches its manifest (${loaded.damaged})` : loaded.resetPending ? 'an interrupted reset' : null;
    let hash: Hash | null = null;
    if (reset === null && src && !ctx.gone) {
      reset = await continuity(ctx, src);
      if (reset === null && ctx.isText) {
        // A text transcript is parsed whole on every build; what was read must still be its start.
        ctx.text = await readTextFile(ctx.path);
        if (sha256Hex(ctx.text.subarray(0, src.offset)) !== src.raw_sha256) reset = 'the bytes already read changed (the transcript was rewritten)';
      } else if (reset === null) {
        if (ctx.req.recheck === true) this.deps.digests.forget(`${dir}\0raw`);
        hash = await this.deps.digests.resume(`${dir}\0raw`, ctx.path, src.offset, src.raw_sha256);
        if (!hash) reset = 'the bytes already read changed (the transcript was rewritten)';
      }
    }
    // A transcript marked gone that is there again is committed as present, though it brings no new byte.
    let base: Base = { dir, manifest: m, isNew: false, dirty: loaded.dirty || change !== undefined || (m.source_state === 'gone' && !ctx.gone) };
    if (ctx.gone) {
      // A reset the transcript's going interrupted leaves the committed session as it was.
      if (loaded.resetPending && (await undoPendingReset(dir, m))) this.memory.forget(dir);
      // Bytes a build appended past the commit before the transcript went: no later build will
      // come to cut them (verify would note them for good).
      // Best effort: a file that is not as the manifest says is verify's to report, not this commit's to stop.
      await cutBack(join(dir, FILES.timeline), m.timeline_bytes).catch(() => false);
      await cutBack(join(dir, FILES.tools), m.tools_bytes).catch(() => false);
      return this.changed(dir, change, await commitGone(this.parts, ctx, base, loaded.state ?? replayGone(m)));
    }
    let state = loaded.state;
    let start = { offset: src?.offset ?? 0, lines: src?.lines ?? 0 };
    if (reset !== null) {
      this.memory.forget(dir);
      if (!loaded.resetPending) await archiveForReset(dir, m, reset, this.deps.now());
      await emptyForRebuild(dir);
      base = { ...base, manifest: seal({ ...m, timeline_bytes: 0, tools_bytes: 0, timeline_head: '', watermark: -1 }) };
      state = null;
      start = { offset: 0, lines: 0 };
    }
    if (ctx.isText || hash === null) hash = createHash('sha256');
    if (state === null) state = reset === null ? await replay(this.deps, ctx, m) : initialState();
    else if (reset === null && loaded.behind !== null) await catchUp(this.deps, ctx, m, state, loaded.behind);
    if (reset !== null && m.objective_override) state.objectiveOverride = m.objective_override;
    if (ctx.req.objective !== undefined) state.objectiveOverride = objectiveSet(ctx.req.objective);

    const tools = await toolsBase(this.deps, dir, base.manifest);
    const append = new AppendBuffer(dir, (b) => tools.update(b));
    if (base.manifest.tools_bytes === 0) append.header(toolsHeader(m.session));
    const read = await readNew(this.deps, ctx, state, start, base.manifest.timeline_head, hash, append, m.parent_session !== null);
    const unchanged = ctx.isText ? read.newTurns === 0 && read.rawSha === src?.raw_sha256 : read.newTurns === 0 && read.offset === start.offset;
    const asked = ctx.req.force === true || ctx.req.history !== undefined || ctx.req.objective !== undefined || (ctx.req.checkpoint === true && stateBehind(m) !== null) || taskMissed(this.deps, { parent_session: m.parent_session, objective: m.objective, updated: m.updated_at });
    // The transcript was moved (a Codex rollout archived): the manifest must name where it is now.
    const relocated = src !== undefined && src.path !== ctx.path;
    if (unchanged && reset === null && !base.dirty && !asked && !relocated) {
      this.memory.locatedAt(ctx.path, dir);
      // Nothing was folded (a text transcript is folded whole, a corrupt line stops the read after
      // marking the state): the state is still the committed one.
      if (!ctx.isText && !read.corrupt) this.memory.keep(dir, m, state);
      if (read.corrupt) throw read.corrupt;
      // Committed, but the index never heard of it (a process killed between its manifest and
      // INDEX.json, a worker that died after its commit): listed now, not at its next turn.
      if (this.deps.index.get(m.session)?.dir !== dir) this.deps.index.upsert(indexEntry(m, dir, m.objective));
      return upToDate(dir, m, read);
    }
    return this.changed(dir, change, await commit(this.parts, ctx, base, state, read.hash, tools, append, read, reset));
  }

  /** A change is done once its commit names the folder: its marker goes (lifecycle.ts). */
  private async changed(dir: string, change: SessionChange | undefined, result: BuildResult): Promise<BuildResult> {
    if (change?.title !== undefined || change?.project !== undefined) await removeFile(join(dir, CHANGE_MARKER));
    return result;
  }

  /** Subagents whose task their parent's build just learned: re-rendered so each shows it. */
  private async renderDependents(paths: readonly string[]): Promise<void> {
    for (const path of paths) {
      if (this.deps.relinkNow && !this.deps.relinkNow(path)) continue;
      try {
        await this.build({ source: path, force: true });
      } catch {
        // The subagent's own problems (a corrupt line, a missing file) surface in its own builds.
      }
    }
  }

  /** A subagent seen after its parent was built: re-render the parent so it lists it. */
  private async linkToParent(parentId: string): Promise<void> {
    const parent = parentEntry(this.deps, parentId);
    if (!parent?.source) return;
    if (this.deps.relinkNow && !this.deps.relinkNow(parent.source.path)) return;
    try {
      await this.build({ source: parent.source.path, force: true });
    } catch {
      // The parent's own problems (a corrupt line, a missing file) surface in its own builds.
    }
  }
}

/** A pending change (a move killed before its commit) under the one asked now, which wins. */
function withPending(pending: SessionChange, requested: SessionChange | undefined): SessionChange {
  const change: SessionChange = { ...requested };
  if (change.title === undefined && pending.title !== undefined) change.title = pending.title;
  if (change.project === undefined && pending.project !== undefined) change.project = pending.project;
  return change;
}

/**
 * A subagent rendered with no objective while its parent has committed since: the parent's build
 * may have learned the task it gave (it re-renders the subagent then, through the daemon's queue,
 * which a stop can empty first). So such a subagent is rendered again when next asked, not
 * reported up to date: once, as its own commit is then the later one.
 */
export function taskMissed(deps: Pick<EngineDeps, 'index'>, s: Pick<IndexEntry, 'parent_session' | 'objective' | 'updated'>): boolean {
  if (s.parent_session === null || s.objective !== null) return false;
  const parent = parentEntry(deps, s.parent_session);
  return parent !== undefined && parent.updated > s.updated;
}
