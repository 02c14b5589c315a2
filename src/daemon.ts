import { existsSync, mkdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dirname, isAbsolute, join, sep } from 'node:path';
import type { Engine, BuildRequest, BuildResult } from './engine/index.js';
import { BuildPool, openEngine, taskMissed, workerCount } from './engine/index.js';
import { maybeSubagent } from './engine/identity.js';
import type { Lane, Offload, Priority } from './engine/scheduler.js';
import { Scheduler } from './engine/scheduler.js';
import type { ResolvedConfig } from './config.js';
import { redactJsonText } from './core/redact.js';
import type { EventName, EventParams, SessionView, StatusResult } from './control/protocol.js';
import { ControlServer } from './control/server.js';
import { connectionCap } from './daemon/fd-limit.js';
import { describeFailure, evictErrors, retryDelayMs } from './daemon/failures.js';
import type { Failure } from './daemon/failures.js';
import type { FileRecord } from './daemon/files.js';
import { applyBuild, caughtUp, editedInPlace, fromIndex, isFailed, isLive, needsBuild, newRecord, noteSeen, view } from './daemon/files.js';
import { makeHandlers } from './daemon/handlers.js';
import { processStart, StoreLock } from './daemon/lock.js';
import { WriterLock } from './daemon/writer-lock.js';
import { StoreGuard } from './daemon/store-guard.js';
import { RepeatFilter } from './daemon/repeats.js';
import { StatusFiles } from './daemon/status-files.js';
import { CorruptLineError, DaemonNotRunningError, describeError, FlushTimeoutError, HandoffError, NoTurnsError, SourceError, StoreLockedError } from './errors.js';
import type { Logger } from './log.js';
import { packageVersion } from './paths.js';
import { Slicer, sortInSlices } from './slice.js';
import { listDir, removeEmptyDir, sweepStrayTemps } from './store/files.js';
import { clearUncommitted } from './engine/session.js';
import { FILES, Layout } from './store/layout.js';
import { storeExposure } from './store/permissions.js';
import { shellWord } from './core/harness/extract.js';
import { stampSuccessor, TO_SESSION_FILE } from './store/to-session.js';
import { validator } from './store/schemas.js';
import type { FileStat } from './watch/scan.js';
import type { Excluded } from './watch/scan.js';
import { isExcluded, isTranscript, isUnderAny, NONE_EXCLUDED, ownStore, type ScanNotes, scanRoots, type SpecialKind, statFile, statOrDenied } from './watch/scan.js';
import { TranscriptWatcher } from './watch/watcher.js';

/**
 * The daemon's composition root (SPEC §10): watcher → scheduler → engine → store, and the
 * control socket beside them. Every write to the store goes through the scheduler's single
 * queue; watch events are hints answered by a stat; a periodic rescan catches what events miss.
 */

const MAX_ERRORS_KEPT = 50;
/** One error of one path (null: INDEX.json), as `droppedErrors` holds it; with signature '', the prefix of every error of the path. */
const errorKey = (path: string | null, signature: string): string => `${path ?? ''}\u0000${signature}`;
const INDEX_KEY = '\0index';
/** flush: a pause between rounds that found work still going, and the longest wait it accepts. */
const FLUSH_ROUND_MS = 50;
const MAX_FLUSH_MS = 24 * 3600 * 1000;
/** A build with this much to read is a bulk read (daemon.bulk): about a second of a build's time on a laptop. */
const BULK_BYTES = 32 << 20;
/** What a build of a transcript has to read: past the offset read, or all of it when it shrank below (it is read again from its start). */
const unreadBytes = (size: number, offset: number): number => (size >= offset ? size - offset : size);
/**
 * chokidar drops a change that follows another within 50 ms, and a watch can miss an event
 * under load. Files that changed recently are therefore also polled (a stat each) until they
 * have been quiet for HOT_WINDOW_MS: what the agent is writing now is never missed for long,
 * and an idle daemon polls nothing.
 */
const HOT_POLL_MS = 500;
const HOT_WINDOW_MS = 30_000;
const HOT_MAX_FILES = 256;
const APPEARED_RESCAN_MS = 2000;
/** How often the lock file and the socket are checked to be still there (daemon.checkClaims). */
const GUARD_CHECK_MS = 2000;
/**
 * How often the event-loop delay that `status` reports is sampled: every sample wakes the loop,
 * and at 5 ms those wake-ups alone were 2 % of a core at rest (0.7 % at 20 ms). A block of the
 * loop longer than this is still caught whole.
 */
const LOOP_DELAY_RESOLUTION_MS = 20;
/**
 * While builds keep the queue busy, INDEX.json is rewritten no more often than every this many
 * times as long as its last rewrite took: a store of thousands of sessions takes tenths of a
 * second to lay out, and rewriting it every second would spend a good part of the backfill (and
 * of the garbage collector's time) on a file that the next second replaces.
 */
const INDEX_COST_FACTOR = 10;
/** Status-line files of quiet sessions are swept at start and at most this often after. */
const STATUS_SWEEP_MS = 3600 * 1000;

export interface DaemonOptions {
  config: ResolvedConfig;
  log: Logger;
  /** Re-resolves the configuration (SIGHUP). */
  reload?: () => ResolvedConfig;
  /** `--log-level` was given: it beats daemon.log_level, also after a reload. */
  logLevelFlag?: string | undefined;
}

export class Daemon {
  config: ResolvedConfig;
  engine!: Engine;
  readonly files = new Map<string, FileRecord>();
  readonly errors: StatusResult['errors'] = [];
  /**
   * The errors given up to keep `errors` to MAX_ERRORS_KEPT (path and signature), while they are
   * not back in the list: `errors_dropped` is how many distinct errors status cannot show.
   */
  private readonly droppedErrors = new Set<string>();
  readonly backfill: StatusResult['backfill'] = { total: 0, done: 0, failed: 0, pending: 0, running: false, started_at: null, finished_at: null };
  readonly startedAt = new Date();
  /** The same moment on a clock that never jumps: uptime stays true when the wall clock is set. */
  private readonly startedMono = performance.now();
  readonly log: Logger;
  private scheduler!: Scheduler;
  /** Build workers for the backfill (null: daemon.backfill_workers is 0, or one core). */
  private pool: BuildPool | null = null;
  /** Parents to re-render (forced) because a subagent appeared while they may have been building in a worker. */
  private readonly relink = new Set<string>();
  /** Transcripts built through the socket (a hook's build, the CLI's), wherever they are: followed as the watched ones are (the latest 10,000). */
  private readonly external = new Set<string>();
  /**
   * Transcripts whose session's state file is behind its last commit: a live build leaves it
   * there for a few commits (BuildRequest.lazyState). Once the file is quiet (it leaves the hot
   * set) or the daemon stops, a `checkpoint` build writes it.
   */
  private readonly behind = new Set<string>();
  /** Transcripts queued for a checkpoint build (on the main lane: it must write, not just read). */
  private readonly checkpoints = new Set<string>();
  private server!: ControlServer;
  private watcher!: TranscriptWatcher;
  private lock!: StoreLock;
  private guard: StoreGuard | null = null;
  private writer: WriterLock | null = null;
  private readonly startAbort = new AbortController();
  /** The store's own folder (its real path): never read as transcripts, even inside a watch folder. */
  private exclude: Excluded = NONE_EXCLUDED;
  private guardTimer: NodeJS.Timeout | null = null;
  /** Set when another daemon took the store while this one ran: the CLI exits with it. */
  private yielded: StoreLockedError | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;
  private hotTimer: NodeJS.Timeout | null = null;
  /** Paths that changed recently, with when they last did. */
  private readonly hot = new Map<string, number>();
  private indexTimer: NodeJS.Timeout | null = null;
  private lastIndexFlush = 0;
  /** How long the last INDEX.json rewrite took, from start to rename. */
  private indexFlushMs = 0;
  /** INDEX.json could not be written: the next try waits until then (backing off). */
  private indexRetryAt = 0;
  private indexFailures = 0;
  private readonly repeats = new RepeatFilter();
  /** Transcripts whose file names are not UTF-8 (scan.ts), each said once in the log. */
  private readonly badNames = new Set<string>();
  private readonly badName = (path: string): void => {
    if (this.badNames.has(path) || this.badNames.size >= 1000) return;
    this.badNames.add(path);
    this.log.warn({ path }, `${path}: not built: its file name is not valid UTF-8 (the bytes that are not are shown as \uFFFD), and the store records a transcript's path as text; rename the file to a UTF-8 name and it is built at the next scan`);
  };
  /**
   * Watched folders this user may not list (scan.ts), with the errno: each said once in the log
   * and kept among status's errors until a scan lists it again (or it is gone).
   */
  private readonly unreadableDirs = new Map<string, string>();
  /**
   * Transcripts' names on things that are not regular files (scan.ts): a symbolic link is not
   * followed, a FIFO, socket or device is never read. Each is said once in the log and kept among
   * status's errors until a scan finds a regular file there again (or nothing).
   */
  private readonly specialFiles = new Map<string, SpecialKind>();
  /** chokidar met a folder it could not read: the watch thread is started afresh at the next rescan. */
  private rewatchDue = false;
  private scanNotes(met: Set<string>): ScanNotes {
    return {
      badName: this.badName,
      unreadable: (dir, errno) => {
        met.add(dir);
        if (this.unreadableDirs.has(dir) || this.unreadableDirs.size >= 1000) return;
        this.unreadableDirs.set(dir, errno);
        const message = `${dir}: this folder cannot be listed (${errno === 'EACCES' ? 'permission denied' : 'operation not permitted'}): no transcript in it is watched or built. Let this user read it (\`chmod u+rx ${shellWord(dir)}\`) and its transcripts are built at the next scan`;
        this.pushError(dir, 'HANDOFF_ERR_SOURCE', message, `unreadable-folder ${errno}`);
        this.log.warn({ path: dir, errno }, message);
      },
      special: (path, kind) => {
        met.add(path);
        if (this.specialFiles.get(path) === kind || this.specialFiles.size >= 1000) return;
        this.specialFiles.set(path, kind);
        const message =
          kind === 'symbolic link'
            ? `${path}: not built: it is a symbolic link, and links below a watched folder are not followed (so a link loop is harmless and nothing is built twice); watch the folder it points to, or build it with \`handoff build ${shellWord(path)}\``
            : `${path}: not built: it is a ${kind}, not a regular file, and only regular files are read (a ${kind} could block the daemon or never end); put the transcript itself there`;
        this.pushError(path, 'HANDOFF_ERR_SOURCE', message, `special-file ${kind}`);
        this.log.warn({ path, kind }, message);
      },
    };
  }

  /** Folders said unreadable below `roots` that this scan listed (or that are gone): said once, and their error resolved. */
  private readableAgain(roots: readonly string[], met: Set<string>): void {
    let again = 0;
    for (const dir of [...this.unreadableDirs.keys()]) {
      if (met.has(dir) || !(roots.includes(dir) || isUnderAny(dir, roots))) continue;
      again += 1;
      this.unreadableDirs.delete(dir);
      this.resolveErrors(dir);
      this.log.info({ path: dir }, `${dir}: the folder can be listed again (or is gone); its transcripts are watched`);
    }
    for (const [path, kind] of [...this.specialFiles]) {
      if (met.has(path) || !isUnderAny(path, roots)) continue;
      this.specialFiles.delete(path);
      this.resolveErrors(path);
      this.log.info({ path, kind }, `${path}: no longer a ${kind} (a regular file again, or gone)`);
    }
    // chokidar gave up its watch of the folder (and of those below) when it could not read it.
    if (again > 0) {
      this.rewatchDue = false;
      this.watcher.rewatch();
    }
  }

  /** Every transcript under `roots`, with what the scan met said (see scanNotes). */
  private async scan(roots: readonly string[]): Promise<FileStat[]> {
    const met = new Set<string>();
    const found = await scanRoots(roots, this.exclude, this.scanNotes(met));
    this.readableAgain(roots, met);
    return found;
  }

  /** How late the event loop runs: what a request on the socket may have to wait. */
  private readonly loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  private readonly errorSignatures = new WeakMap<object, string>();
  /** Session folder → the transcript paths whose rows name it (normally one). */
  private readonly rowsByDir = new Map<string, Set<string>>();
  private backfillKeys = new Set<string>();
  private stopping: Promise<void> | null = null;
  private statusFiles!: StatusFiles;
  private lastStatusSweep = 0;
  /** Until the start-up scan has queued the backfill (newest first), events only note a stat. */
  private backfillQueued = false;
  private readonly stopWaiters: (() => void)[] = [];
  /** Resolves when start() has queued the backfill: a flush asked before then waits for it. */
  private markStarted: () => void = () => undefined;
  private readonly started = new Promise<void>((resolve) => (this.markStarted = resolve));

  constructor(private readonly opts: DaemonOptions) {
    this.config = opts.config;
    this.log = opts.log;
  }

  get socketPath(): string {
    return this.config.socketPath;
  }

  get liveWindowMs(): number {
    return this.config.options.watch.live_window_s * 1000;
  }

  async start(): Promise<void> {
    const c = this.config;
    if (!existsSync(c.root)) mkdirSync(c.root, { recursive: true, mode: 0o700 });
    const layout = new Layout(c.root);
    mkdirSync(layout.runtimeDir, { recursive: true, mode: 0o700 });
    this.lock = new StoreLock(layout.lockFile, { pid: process.pid, pid_start: processStart(process.pid), started_at: this.startedAt.toISOString(), socket: c.socketPath, version: packageVersion() });
    this.guard = await StoreGuard.claim(c.root, this.log);
    const { tookOver } = await this.lock.acquire().catch((e: unknown) => {
      this.guard?.close();
      throw e;
    });
    if (tookOver) this.log.warn({ holder_pid: tookOver.pid, why: tookOver.why }, `took over the lock of a daemon that is gone (${tookOver.why})`);
    // A one-shot command writing the store (no daemon ran when it started) finishes first.
    this.writer = await WriterLock.acquire(layout.writerLock, 'the daemon', {
      daemon: true,
      waitMs: Number.POSITIVE_INFINITY,
      onWait: (h) => this.log.info({ holder_pid: h.pid }, `waiting for ${h.what} (pid ${h.pid}) to finish writing the store`),
      // A stop signal while it waits ends the wait: nothing was written yet.
      signal: this.startAbort.signal,
    }).catch((e: unknown) => {
      this.lock.release();
      this.guard?.close();
      throw e;
    });
    this.statusFiles = new StatusFiles(layout.statusDir);
    try {
      await this.sweep();
      this.engine = await this.openEngine(c);
      this.pool = this.makePool();
      this.scheduler = new Scheduler((key, p) => this.run(key, p), { debounceMs: c.options.watch.debounce_ms }, this.offload());
      // Compiled now, before the socket opens: the first `verify` would otherwise stall it for this.
      validator('handoff.llm');
      this.server = new ControlServer({
        path: c.socketPath,
        handlers: makeHandlers(this),
        log: this.log.child({ component: 'control' }),
        requestTimeoutMs: c.options.daemon.request_timeout_ms,
        sanitize: (line) => redactJsonText(this.engine.redactor, line),
        ...this.connectionLimits(),
      });
      await this.server.listen();
    } catch (e) {
      this.writer?.release();
      this.lock.release();
      this.guard?.close();
      throw e;
    }
    this.loopDelay.enable();
    const exposed = storeExposure(c.root);
    if (exposed) this.log.warn({ path: exposed.path, mode: exposed.mode.toString(8), fix: exposed.fix }, `${exposed.message}. fix: ${exposed.fix}`);
    for (const e of this.engine.index.all()) {
      const r = fromIndex(e);
      if (!r) continue;
      this.files.set(r.path, r);
      this.dropMovedRows(r);
    }
    this.exclude = ownStore(c.root);
    this.watcher = new TranscriptWatcher(c.watchPaths, {
      hint: (kind, path) => this.onHint(kind, path),
      rootAppeared: (root) => {
        const to = this.rootsNow([root])[0];
        this.log.info({ path: root, resolved: to }, `${root} appeared${to !== undefined && to !== root ? ` (a link to ${to})` : ''}; watching it now`);
        void this.scanAndSchedule(this.rootsNow([root]), 'live', true);
        // chokidar reports nothing it finds in its first scan of the new folder: a file created
        // while it scans is caught by a second look once that scan is surely over.
        setTimeout(() => void this.scanAndSchedule(this.rootsNow([root]), 'live', true), APPEARED_RESCAN_MS).unref();
      },
      error: (err, where) => {
        // A folder chokidar could not read: the scan says so (once, with the fix), and chokidar,
        // which drops its watch of it for good, is started afresh at the next rescan.
        if (/\b(?:EACCES|EPERM)\b/.test(describeError(err))) {
          this.rewatchDue = true;
          this.log.debug({ err: describeError(err), where }, 'watcher could not read a folder (the next rescan watches it anew)');
        } else this.log.warn({ err: describeError(err), where }, 'watcher error (carrying on)');
      },
    }, this.exclude);
    await this.watcher.start();
    for (const w of this.watcher.status()) {
      const store = this.exclude.paths[0] as string;
      if (isUnderAny(store, [w.resolved])) this.log.warn({ path: w.path, store: c.root }, `the store ${c.root} lies inside the watched folder ${w.path}: it is left out of the watch (a store is never read as transcripts)`);
      else if (isExcluded(w.resolved, this.exclude)) this.log.warn({ path: w.path, store: c.root }, `the watched folder ${w.path} lies inside the store ${c.root}: nothing there is read as a transcript; watch the agents' transcript folders instead`);
      const via = w.resolved !== w.path ? ` (a link to ${w.resolved}, watched there)` : '';
      if (w.exists) this.log.info({ path: w.path, resolved: w.resolved }, `watching ${w.path}${via}`);
      else if (existsSync(w.path)) this.log.warn({ path: w.path }, `${w.path} is not a folder (a file, a FIFO, or a link to one): nothing is watched there until it is one; watch the folder that holds the transcripts instead`);
      else this.log.info({ path: w.path }, `${w.path} does not exist yet; it will be watched as soon as it appears`);
    }
    await this.startBackfill();
    this.markStarted();
    this.startTimers();
    this.log.info({ root: c.root, socket: c.socketPath, version: packageVersion() }, `handoffd ${packageVersion()} is running (store ${c.root}); ask it with \`handoff status\``);
  }

  private openEngine(c: ResolvedConfig): Promise<Engine> {
    return openEngine(c, { cacheSessions: c.options.daemon.cache_sessions, relinkNow: (p) => this.relinkNow(p) });
  }

  /** daemon.backfill_workers, at most one fewer than the cores: the main thread keeps one for live work. */
  private makePool(): BuildPool | null {
    const n = workerCount(this.config.options.daemon.backfill_workers);
    if (n > 0) this.log.info({ workers: n }, `backfill builds in ${n} worker thread(s) beside the main thread`);
    return n > 0 ? new BuildPool(n, this.config, this.engine.index, this.engine.claims, { background: true }) : null;
  }

  private offload(): Offload | null {
    const pool = this.pool;
    if (!pool) return null;
    return { slots: pool.size, lane: (path) => this.laneOf(path), run: (path) => this.runInPool(pool, path), bulk: (path) => this.bulk(path) };
  }

  /**
   * Built in a worker, live or not, so that the main lane stays free for the refreshes of sessions
   * already built: a transcript's first build (200 new transcripts written at once held a live
   * session's refresh 2 to 5 s), and a build with more than BULK_BYTES not yet read (a transcript
   * of hundreds of megabytes, a sparse file of gigabytes that holds no newline).
   */
  private bulk(path: string): boolean {
    const r = this.files.get(path);
    if (r !== undefined && r.session === null && !isFailed(r)) return true;
    return r?.stat != null && unreadBytes(r.stat.size, r.offset) >= BULK_BYTES;
  }

  /**
   * A backfill build goes to a worker when its session depends on no other. A subagent (its
   * first build takes its parent's project and re-renders the parent) waits until the workers
   * are done, as does a fork or a subagent whose name does not say so (the worker sends it back
   * before it writes). A file that is gone (marking it touches a session another path may be
   * building) and a parent waiting to list a new subagent are the main thread's.
   */
  private laneOf(path: string): Lane {
    const r = this.files.get(path);
    if (path === INDEX_KEY || r === undefined || r.stat === null || this.relink.has(path) || this.checkpoints.has(path)) return 'main';
    return maybeSubagent(path) ? 'after' : 'pool';
  }

  /**
   * A new subagent's parent, or a subagent whose task its parent's build learned, is re-rendered
   * through the queue, forced, when workers run: it may be building in one right now, and one
   * session never builds in two places at once.
   */
  private relinkNow(path: string): boolean {
    if (!this.pool) return true;
    this.relink.add(path);
    this.scheduler.schedule(path, 'live');
    return false;
  }

  /** daemon.idle_timeout_ms and daemon.max_connections, the latter within the open-file limit. */
  private connectionLimits(): { idleTimeoutMs: number; maxConnections: number } {
    const d = this.config.options.daemon;
    const cap = connectionCap(d.max_connections);
    if (cap.lowered) this.log.warn({ configured: d.max_connections, max: cap.max }, `daemon.max_connections lowered from ${d.max_connections} to ${cap.max}: the open-file limit leaves no more (raise it with \`ulimit -n\` or LimitNOFILE=)`);
    return { idleTimeoutMs: d.idle_timeout_ms, maxConnections: cap.max };
  }

  /** Whether the daemon builds a transcript: under a watched folder, or built through its socket (a hook's, the CLI's), or a parent re-rendered. */
  private followed(path: string, roots: readonly string[] = this.rootsNow()): boolean {
    return this.external.has(path) || this.relink.has(path) || isUnderAny(path, roots);
  }

  /** The real paths of watch roots (a root that is a link is watched where it points). */
  private rootsNow(only?: readonly string[], existingOnly = true): string[] {
    return this.watcher
      .status()
      .filter((w) => (!existingOnly || w.exists) && (only === undefined || only.includes(w.path)))
      .map((w) => w.resolved);
  }

  private startTimers(): void {
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    if (this.indexTimer) clearInterval(this.indexTimer);
    this.rescanTimer = setInterval(() => void this.rescan(), this.config.options.watch.rescan_interval_s * 1000);
    this.rescanTimer.unref();
    this.indexTimer = setInterval(() => this.maybeFlushIndex(), this.config.options.daemon.index_interval_ms);
    this.indexTimer.unref();
    if (!this.guardTimer) {
      this.guardTimer = setInterval(() => void this.checkClaims(), GUARD_CHECK_MS);
      this.guardTimer.unref();
    }
  }

  /**
   * The lock file and the socket are files anyone's cleanup can delete. Checked every few
   * seconds (two stats and a read): a deleted lock is written again, so the next daemon started
   * is refused; a deleted socket is bound again, so `handoff status` finds this one. A lock
   * another live daemon wrote means it started while the file was missing (on a system without
   * the store guard): this daemon stops without writing anything more, leaving the store to it.
   */
  private async checkClaims(): Promise<void> {
    if (this.stopping) return;
    const lock = await this.lock.recheck();
    if (lock.state === 'taken') {
      this.yielded = new StoreLockedError(`another daemon (pid ${lock.holder.pid}, started ${lock.holder.started_at}) took the store lock ${this.lock.path} while this one ran (its lock file had been deleted); this one stopped so that the store has one writer`, {
        hint: `\`handoff status\` asks the daemon that runs now (pid ${lock.holder.pid})`,
        details: { pid: lock.holder.pid, lock: this.lock.path },
      });
      this.log.error({ holder_pid: lock.holder.pid, lock: this.lock.path }, this.yielded.message);
      await this.stop('another daemon took the store', { yieldStore: true });
      return;
    }
    if (lock.state === 'rewritten') this.log.warn({ lock: this.lock.path }, `${lock.why}; wrote it again (this daemon, pid ${process.pid}, still runs on the store)`);
    const writer = this.writer?.recheck();
    if (writer === 'rewritten') this.log.warn({ lock: this.writer?.path }, `the writer lock was deleted; wrote it again (this daemon, pid ${process.pid}, still writes the store)`);
    const sock = this.server.socketState();
    if (sock === 'missing') {
      try {
        await this.server.rebind();
        this.log.warn({ socket: this.config.socketPath }, `the control socket ${this.config.socketPath} was deleted; bound it again`);
      } catch (e) {
        if (this.repeats.note('socket-rebind', describeError(e)).log !== 'none') this.log.error({ err: describeError(e), socket: this.config.socketPath }, `the control socket was deleted and cannot be bound again: ${describeError(e)} (clients cannot reach this daemon)`);
      }
    } else if (sock === 'replaced' && this.repeats.note('socket-replaced', this.config.socketPath).log !== 'none') {
      this.log.error({ socket: this.config.socketPath }, `another file is at the control socket's path ${this.config.socketPath} now; clients reach that, not this daemon`);
    }
  }

  /**
   * A stop asked for while the daemon starts: a wait for the store's writer lock ends at once
   * (start rejects with an AbortError, and nothing was written); a start past that wait finishes,
   * then stops.
   */
  abortStart(): void {
    this.startAbort.abort();
  }

  /** The error the daemon stopped with, when it left the store to another daemon. */
  get exitError(): StoreLockedError | null {
    return this.yielded;
  }

  /** Temp files a killed daemon left in the store are removed before anything else runs. */
  private async sweep(): Promise<void> {
    let n = await sweepStrayTemps(this.config.root);
    const projects = join(this.config.root, 'projects');
    let residue = 0;
    for (const p of await listDir(projects)) {
      const pdir = join(projects, p);
      n += await sweepStrayTemps(pdir);
      for (const s of await listDir(pdir)) {
        const sdir = join(pdir, s);
        // One listing of the folder serves both (a file here, PROJECT.md, lists nothing).
        const names = await listDir(sdir);
        n += await sweepStrayTemps(sdir, names);
        // A first build killed before its manifest, of a transcript since renamed or gone: no
        // build of that name may come to clear what it appended (nothing of it is committed).
        if (names.length > 0 && !names.includes(FILES.manifest) && (await clearUncommitted(sdir, true).catch(() => false))) residue += 1;
      }
      await removeEmptyDir(pdir).catch(() => undefined);
    }
    if (n > 0) this.log.info({ count: n }, `removed ${n} temp file(s) left by an interrupted write`);
    if (residue > 0) this.log.info({ count: residue }, `cleared ${residue} session folder(s) a first build left without a manifest (nothing in them was committed)`);
    await this.sweepStatusFiles();
  }

  private async sweepStatusFiles(): Promise<void> {
    this.lastStatusSweep = Date.now();
    try {
      const n = await this.statusFiles.sweep();
      if (n > 0) this.log.debug({ count: n }, `removed ${n} status-line file(s) of quiet sessions`);
    } catch (e) {
      this.log.warn({ err: describeError(e) }, 'could not sweep the status-line files (carrying on)');
    }
  }

  /**
   * The line the installed shell status line prints for this session (docs/HOOKS.md). Written
   * after the build, outside the store's commit: a failure costs the status line, never a handoff.
   */
  private writeStatusLine(r: FileRecord, res: BuildResult): void {
    const e = this.engine.index.get(res.session);
    if (!e) return;
    const p = res.pressure;
    const subject = {
      key: e.uuid ?? e.id,
      harness: e.harness,
      topLevel: e.parent_session === null,
      activeMs: r.stat?.mtimeMs ?? 0,
      facts: { level: p.level, used: p.used, limit: p.limit, ratio: p.ratio, revision: res.revision, transferReady: e.transfer_ready },
    };
    this.statusFiles.update(subject).catch((err: unknown) => this.log.warn({ err: describeError(err), session: res.session }, 'could not write the status-line file (carrying on)'));
  }

  private record(path: string): FileRecord {
    let r = this.files.get(path);
    if (!r) {
      r = newRecord(path);
      this.files.set(path, r);
    }
    return r;
  }

  /**
   * Records a fresh stat of a transcript. One found for the first time by a first look at a
   * watched folder (the start-up scan, or the scan of a watched folder that appears later) but
   * older than the backfill window (SPEC: watch.backfill_days) is left alone until it changes:
   * `ignored`. Any other transcript seen for the first time showed up in a folder already watched
   * (moved in with its old time by `mv`, `cp -p`, `rsync -a`, or in a subfolder that appears) and
   * is built whatever its modification time (docs/CONFIG.md).
   */
  private see(path: string, st: FileStat | null, firstLook: boolean): { r: FileRecord; known: boolean; ignored: boolean } {
    const known = this.files.has(path);
    const r = this.record(path);
    r.stat = st;
    if (known || st === null || !firstLook || st.mtimeMs >= this.backfillSince()) return { r, known, ignored: false };
    r.ignored = { size: st.size, mtimeMs: st.mtimeMs };
    return { r, known, ignored: true };
  }

  private priorityOf(st: FileStat | null): Priority {
    return st && isLive(st.mtimeMs, this.liveWindowMs, Date.now()) ? 'live' : 'backfill';
  }

  private onHint(kind: string, path: string): void {
    if (!isTranscript(path)) {
      // A folder went (deleted or moved away): each transcript known below it is looked at.
      if (kind === 'unlink') for (const p of this.files.keys()) if (p.startsWith(path + sep)) this.onHint('unlink', p);
      return;
    }
    void (async () => {
      const st = await statFile(path);
      // chokidar reports every file of a folder it starts watching, old ones too.
      // Before the start-up scan has queued its work, an event is part of that first look.
      const { r, known, ignored } = this.see(path, st, !this.backfillQueued);
      if (ignored) return;
      const build = needsBuild(r);
      this.log.debug({ kind, path, size: st?.size ?? null, seen: r.seenSize, build }, 'watch event');
      if (st === null && kind !== 'unlink') return; // gone before we looked: the unlink event follows
      // A file being written now is polled for a while (chokidar drops quick successive changes);
      // the adds chokidar reports for every file when it starts are not "being written".
      if (kind === 'change' || (kind === 'add' && !known && this.backfillQueued)) this.heat(path);
      if (build && this.backfillQueued) this.scheduler.schedule(path, this.priorityOf(st));
    })().catch((e: unknown) => this.log.warn({ err: describeError(e), path }, 'could not handle a watch event'));
  }

  /** Marks a path as recently changed; the hot poll re-stats it until it is quiet. */
  private heat(path: string): void {
    this.hot.delete(path);
    this.hot.set(path, Date.now());
    // Bounded: the files agents are writing right now are few; the oldest fall out first.
    if (this.hot.size > HOT_MAX_FILES) this.hot.delete(this.hot.keys().next().value as string);
    if (this.hotTimer || this.stopping) return;
    this.hotTimer = setInterval(() => void this.pollHot(), HOT_POLL_MS);
    this.hotTimer.unref();
  }

  private async pollHot(): Promise<void> {
    const now = Date.now();
    const roots = this.rootsNow();
    for (const [path, at] of this.hot) {
      if (now - at > HOT_WINDOW_MS) {
        this.hot.delete(path);
        if (this.behind.has(path)) {
          this.checkpoints.add(path);
          this.scheduler.schedule(path, 'backfill');
        }
        continue;
      }
      const r = this.files.get(path);
      if (!r || !this.followed(path, roots)) {
        this.hot.delete(path);
        continue;
      }
      const st = await statFile(path);
      const moved = st?.size !== r.stat?.size || st?.mtimeMs !== r.stat?.mtimeMs;
      r.stat = st;
      if (moved) this.hot.set(path, now);
      if (st !== null && needsBuild(r)) this.scheduler.schedule(path, 'live');
    }
    if (this.hot.size === 0 && this.hotTimer) {
      clearInterval(this.hotTimer);
      this.hotTimer = null;
    }
  }

  private backfillSince(): number {
    const days = this.config.options.watch.backfill_days;
    return days === 0 ? 0 : this.startedAt.getTime() - days * 86_400_000;
  }

  private async startBackfill(): Promise<void> {
    const days = this.config.options.watch.backfill_days;
    const found = await this.scan(this.rootsNow());
    // Thousands of transcripts: every loop over them leaves the socket answered in between.
    const slice = new Slicer();
    const todo: FileStat[] = [];
    for (const st of found) {
      await slice.tick();
      const { r, ignored } = this.see(st.path, st, true);
      if (!ignored && needsBuild(r)) todo.push(st);
    }
    // Files the index knows under the watched folders whose transcript is gone are marked once;
    // sessions built from elsewhere (a one-shot `handoff build`) are not the daemon's to touch.
    const roots = this.rootsNow(undefined, false);
    for (const r of [...this.files.values()]) {
      await slice.tick();
      if (r.stat === null && isUnderAny(r.path, roots) && needsBuild(r)) todo.push({ path: r.path, size: 0, mtimeMs: 0, ctimeMs: 0, dev: 0, ino: 0 });
    }
    // A subagent whose parent committed after it, with no objective of its own: the parent's
    // build may have learned its task and queued it for a re-render that a stop emptied. It is
    // built again (engine.ts taskMissed), however old its transcript.
    const queued = new Set(todo.map((t) => t.path));
    for (const e of this.engine.index.all()) {
      await slice.tick();
      const path = e.source?.path;
      if (path === undefined || queued.has(path) || !isUnderAny(path, roots) || !taskMissed(this.engine, e)) continue;
      const st = await statFile(path);
      if (st !== null) todo.push(st);
    }
    todo.sort((a, b) => b.mtimeMs - a.mtimeMs);
    this.backfill.total = todo.length;
    this.backfill.running = todo.length > 0;
    this.backfill.started_at = new Date().toISOString();
    for (const st of todo) {
      await slice.tick();
      this.backfillKeys.add(st.path);
      this.scheduler.schedule(st.path, this.priorityOf(st));
    }
    this.backfillQueued = true;
    // Events that came in while the scan ran (a file created just then) are served now; one
    // older than the backfill window was marked ignored when it was seen.
    for (const r of [...this.files.values()]) {
      await slice.tick();
      if (r.stat !== null && !this.backfillKeys.has(r.path) && needsBuild(r)) this.scheduler.schedule(r.path, this.priorityOf(r.stat));
    }
    this.log.info({ files: found.length, backfill: todo.length, days }, `found ${found.length} transcript(s); ${todo.length} to build${days === 0 ? '' : ` (changed in the last ${days} days)`}`);
    if (todo.length === 0) this.backfill.finished_at = this.backfill.started_at;
  }

  /** Pending (no complete turn yet) and halted are not failures; error and unreadable are. */
  private noteBackfill(r: FileRecord, skipped = false): void {
    if (!this.backfillKeys.delete(r.path)) return;
    // A transcript the watch left before its turn came (a watched link re-pointed) is no longer the backfill's.
    if (skipped) this.backfill.total -= 1;
    else {
      this.backfill.done += 1;
      if (isFailed(r)) this.backfill.failed += 1;
      if (r.state === 'pending') this.backfill.pending += 1;
      const { done, total } = this.backfill;
      if (done === total || done % 100 === 0) this.log.info({ done, total }, `backfill ${done}/${total}`);
    }
    if (this.backfillKeys.size === 0) {
      this.backfill.running = false;
      this.backfill.finished_at = new Date().toISOString();
      const { failed, pending, total } = this.backfill;
      const notes = [failed ? `${failed} failed (\`handoff status\` says why)` : '', pending ? `${pending} pending (no complete turn yet)` : ''].filter(Boolean).join(', ');
      this.log.info({ total, failed, pending }, `backfill finished: ${total} transcript(s)${notes ? `, ${notes}` : ''}`);
    }
  }

  /** Full rescan: stats every transcript, schedules what moved, notices what vanished. */
  async rescan(): Promise<number> {
    if (this.stopping || !this.backfillQueued) return 0;
    try {
      await this.watcher.recheckPending();
      if (Date.now() - this.lastStatusSweep >= STATUS_SWEEP_MS) await this.sweepStatusFiles();
      const n = await this.scanAndSchedule(this.rootsNow(), null);
      // Once every folder can be read again (a folder still unreadable would only fail again).
      if (this.rewatchDue && this.unreadableDirs.size === 0) {
        this.rewatchDue = false;
        this.watcher.rewatch();
      }
      return n;
    } catch (e) {
      this.log.warn({ err: describeError(e) }, 'rescan failed (carrying on)');
      return 0;
    }
  }

  /**
   * A built session whose folder lost its manifest under the daemon (a cleanup deleted the store's
   * projects): built again from its transcript, so that its handoff is there again and INDEX.json
   * names no folder that is not; an append would do it too, but an ended session gets none.
   */
  private folderLost(r: FileRecord): boolean {
    if (r.dir === null || r.session === null || r.state === 'gone' || isFailed(r)) return false;
    const dir = isAbsolute(r.dir) ? r.dir : join(this.config.root, r.dir);
    return !existsSync(join(dir, 'manifest.json'));
  }

  /** `firstLook`: the scan of a watched folder that appeared, where the backfill window applies (see). */
  private async scanAndSchedule(roots: readonly string[], force: Priority | null, firstLook = false): Promise<number> {
    const found = await this.scan(roots);
    const slice = new Slicer();
    const seen = new Set<string>();
    let n = 0;
    for (const st of found) {
      await slice.tick();
      seen.add(st.path);
      // A folder restored or moved in gets the backfill window too.
      const { r, ignored } = this.see(st.path, st, firstLook);
      if (ignored) continue;
      if (needsBuild(r) || this.folderLost(r)) {
        this.scheduler.schedule(st.path, force ?? this.priorityOf(st));
        n += 1;
      }
    }
    for (const r of [...this.files.values()]) {
      await slice.tick();
      if (seen.has(r.path) || r.state === 'gone' || !isUnderAny(r.path, roots) || this.files.get(r.path) !== r) continue;
      // Not found by the scan: gone, or below a folder that cannot be listed now (said once, above), which is not gone.
      const st = await statOrDenied(r.path);
      if (st === 'denied') continue;
      r.stat = st;
      if (r.stat === null) {
        this.scheduler.schedule(r.path, 'live');
        n += 1;
      }
    }
    return n;
  }

  /** Builds one transcript (or marks it gone). Never throws: failures are states and events. */
  private async run(path: string, priority: Priority): Promise<void> {
    if (path === INDEX_KEY) {
      await this.flushIndexNow();
      return;
    }
    const r = this.record(path);
    if (r.retry) {
      clearTimeout(r.retry);
      r.retry = null;
    }
    const checkpoint = this.checkpoints.delete(path);
    const st = await statOrDenied(path);
    r.stat = st === 'denied' ? r.stat : st;
    try {
      // A folder above it this user may not enter: unreadable (with the folder's fix), not gone.
      if (st === 'denied') throw new SourceError(`${path}: permission denied: a folder above it cannot be entered`, { details: { file: path, errno: 'EACCES' }, hint: `let this user enter the folders above it (\`chmod u+rx ${shellWord(dirname(path))}\`); it is read as soon as it can be` });
      if (r.stat === null) return await this.gone(r);
      // A folder the watch left (a watched link re-pointed, a root dropped at a reload): queued
      // before, or still polled, its transcripts are no longer this daemon's to build.
      if (!this.followed(path)) {
        this.noteBackfill(r, true);
        return;
      }
      const before = r.pressure.level;
      const hadSession = r.session !== null;
      const force = this.relink.delete(path);
      const recheck = editedInPlace(r);
      // A live refresh may leave the state file behind; a backfill build or a checkpoint writes it.
      const state = checkpoint ? { checkpoint } : priority === 'live' ? { lazyState: true } : {};
      const res = await this.engine.build({ source: path, autoFinalize: this.config.options.daemon.finalize_on_red, ...(force ? { force } : {}), ...(recheck ? { recheck } : {}), ...(priority === 'backfill' ? { backfill: true } : {}), ...state });
      this.afterBuild(r, res, before, hadSession);
      await this.stamp(this.successorDirs(res, !hadSession || res.revision === 1));
    } catch (e) {
      this.onBuildError(r, e);
    } finally {
      this.noteBackfill(r);
      this.maybeFlushIndex();
    }
  }

  /**
   * run(), in a build worker: the worker writes the session's folder; the entries its build
   * changed are applied to the index before this sees the result. A worker that died, or a
   * session that turned out to depend on another, is built on the main lane instead.
   */
  private async runInPool(pool: BuildPool, path: string): Promise<'done' | 'after'> {
    const r = this.record(path);
    if (r.retry) {
      clearTimeout(r.retry);
      r.retry = null;
    }
    r.stat = await statFile(path);
    if (r.stat === null) return 'after';
    // A folder the watch left while this waited for a worker (a watched link re-pointed): as on the main lane, not built.
    if (!this.followed(path)) {
      this.noteBackfill(r, true);
      return 'done';
    }
    const before = r.pressure.level;
    const hadSession = r.session !== null;
    try {
      const out = await pool.run({ source: path, autoFinalize: this.config.options.daemon.finalize_on_red, backfill: true });
      if (out.kind === 'lost') this.log.warn({ path, why: out.why }, `${out.why} while building ${path}; building it again on the main thread`);
      if (out.kind !== 'built') return 'after';
      const res = out.result;
      // What the main thread's engine remembers of this session is older than the worker's commit.
      this.engine.forget(path);
      this.engine.forget(res.dir);
      this.log.debug({ session: res.session, ms: res.build_ms }, 'built in a worker');
      this.afterBuild(r, res, before, hadSession);
      // Subagents whose task this build learned: re-rendered on the main lane, forced.
      for (const p of res.dependents ?? []) this.relinkNow(p);
      // Stamping writes other sessions' folders: in the main lane, with no worker build running.
      const dirs = this.successorDirs(res, !hadSession || res.revision === 1);
      if (dirs.length > 0) void this.exclusive(() => this.stamp(dirs));
    } catch (e) {
      this.engine.forget(path);
      this.onBuildError(r, e);
    }
    this.noteBackfill(r);
    this.maybeFlushIndex();
    return 'done';
  }

  /**
   * The transcript is no longer there. If its session has moved on to another file (a Codex
   * rollout archived, a transcript moved), this path's row simply goes; otherwise the handoff
   * stays, re-rendered as gone.
   */
  private async gone(r: FileRecord): Promise<void> {
    if (isFailed(r)) this.recovered(r);
    if (r.dir && r.state !== 'gone') {
      // Another path of this session (a rollout archived elsewhere) may be building in a worker.
      const resume = await this.scheduler.pauseOffload();
      let marked: Awaited<ReturnType<Engine['markGone']>>;
      try {
        marked = await this.engine.markGone(r.dir, r.path);
      } finally {
        resume();
      }
      if (marked === 'moved') {
        this.files.delete(r.path);
        return;
      }
      if (marked) applyBuild(r, marked, new Date().toISOString());
      const e = r.session === null ? undefined : this.engine.index.get(r.session);
      await this.statusFiles.remove(e ? (e.uuid ?? e.id) : null).catch(() => undefined);
      // A rename is seen as the old name going before the new one is read: this may be either.
      this.log.info({ path: r.path, session: r.session }, `${r.path}: the transcript is no longer there (deleted, or moved: a move is followed once its new path is read); its handoff stays, its state gone until then`);
    }
    r.state = 'gone';
    delete r.error;
    if (r.session === null) this.files.delete(r.path);
  }

  /** A build or update a client asked for over the socket: status and subscribers see it too. */
  async noteExternal(res: BuildResult): Promise<void> {
    if (!res.path) return;
    const r = this.record(res.path);
    r.stat = await statFile(res.path);
    this.external.delete(res.path);
    this.external.add(res.path);
    if (this.external.size > 10_000) this.external.delete(this.external.values().next().value as string);
    const hadSession = r.session !== null;
    this.afterBuild(r, res, r.pressure.level, hadSession);
    // Not awaited: the client (a session-start hook on its time budget) has its answer already.
    const dirs = this.successorDirs(res, !hadSession || res.revision === 1);
    if (dirs.length > 0) void this.exclusive(() => this.stamp(dirs));
    if (r.stat) this.heat(res.path);
  }

  /**
   * The session that took a handoff over (recorded in to-session.json by the session-start hook)
   * is stamped onto that handoff's HANDOFF.md and payloads: after every build of it (a build
   * renders `pending`, the seal's value), and when a new session's first build shows that its
   * transcript has appeared (then the recent handoffs of its project that were offered are looked at).
   * Runs in the queue; a failure costs the stamp, never the build.
   */
  private successorDirs(res: BuildResult, first: boolean): string[] {
    const dirs = existsSync(join(res.dir, TO_SESSION_FILE)) ? [res.dir] : [];
    if (first) {
      const oldest = Date.now() - this.config.options.hooks.offer_max_age_h * 3_600_000;
      for (const e of this.engine.index.all()) {
        if (e.project !== res.project || e.id === res.session || e.parent_session !== null || (e.source?.mtime_ms ?? 0) < oldest) continue;
        if (existsSync(join(e.dir, TO_SESSION_FILE))) dirs.push(e.dir);
      }
    }
    return dirs;
  }

  private async stamp(dirs: readonly string[]): Promise<void> {
    for (const dir of dirs) {
      try {
        const taker = await stampSuccessor(dir);
        if (taker) this.log.info({ dir, to_session: taker.session }, `session ${taker.session} took over the handoff in ${dir}: recorded as its to_session`);
      } catch (e) {
        this.log.warn({ err: describeError(e), dir }, 'could not record the session that took the handoff over (carrying on)');
      }
    }
  }

  private afterBuild(r: FileRecord, res: BuildResult, before: string, hadSession: boolean): void {
    const at = new Date().toISOString();
    if (isFailed(r)) this.recovered(r);
    applyBuild(r, res, at);
    if (res.state_behind) this.behind.add(r.path);
    else this.behind.delete(r.path);
    // A transcript deleted and written again (or moved here) is live again.
    r.state = r.stat === null ? 'gone' : 'idle';
    this.dropMovedRows(r);
    this.writeStatusLine(r, res);
    if (res.reset) this.log.warn({ session: res.session, reason: res.reset }, `source reset: ${res.reset}; the old timeline was kept in history/`);
    if (res.history_skipped !== undefined) this.log.warn({ session: res.session, reason: res.history_skipped }, `${res.session}: ${res.history_skipped}`);
    if (res.oversized !== undefined) this.log.warn({ session: res.session, path: res.path, ...res.oversized }, `${res.path}: line ${res.oversized.line} (at byte ${res.oversized.offset}, ${res.oversized.bytes} bytes) is longer than capture.max_line_bytes and was skipped unread; fix: raise capture.max_line_bytes (docs/CONFIG.md), move the session's folder aside and build the transcript again`);
    if (!res.up_to_date) {
      this.emit('built', { session: res.session, project: res.project, dir: res.dir, revision: res.revision, turns: res.turns, new_turns: res.new_turns, pressure: r.pressure, build_ms: res.build_ms, at, reset: res.reset });
      this.log.debug({ session: res.session, rev: res.revision, new_turns: res.new_turns, ms: res.build_ms }, 'built');
    }
    if (hadSession && res.pressure.level !== before) this.emit('pressure', { session: res.session, from: before, to: res.pressure.level, ratio: res.pressure.ratio, at });
    if (res.new_compactions > 0) this.emit('compaction', { session: res.session, compactions: res.pressure.compactions, finalized: res.history?.file ?? null, at });
    if (res.history) this.log.info({ session: res.session, file: res.history.file, reason: res.history.reason }, `finalized ${res.session} into history/ (${res.history.reason})`);
    if (res.corrupt) this.halt(r, res.corrupt);
  }

  /** One session, one row: another path's row for the same session whose file is gone goes. */
  private dropMovedRows(r: FileRecord): void {
    if (r.dir === null) return;
    let rows = this.rowsByDir.get(r.dir);
    if (!rows) this.rowsByDir.set(r.dir, (rows = new Set()));
    rows.add(r.path);
    if (r.stat === null || rows.size === 1) return;
    for (const path of [...rows]) {
      const other = this.files.get(path);
      if (other === r) continue;
      if (!other || other.dir !== r.dir) rows.delete(path);
      else if (other.session === r.session && (other.stat === null || other.state === 'gone')) {
        this.files.delete(path);
        rows.delete(path);
        // Said, for the log said of the old path that it was no longer there.
        if (other.state === 'gone') this.log.info({ session: r.session, from: path, path: r.path }, `${r.session}: followed to ${r.path} (it was at ${path})`);
      }
    }
  }

  private halt(r: FileRecord, e: CorruptLineError): void {
    // Nothing past the corrupt line can be read until the file changes: do not retry before.
    noteSeen(r);
    const again = r.state === 'halted' && r.halted?.offset === e.offset;
    r.state = 'halted';
    r.halted = { file: e.file, line: e.line, offset: e.offset, fix: e.hint ?? '', message: e.message };
    if (again) return; // still stuck on the same line: said already
    this.emit('halted', { session: r.session, file: e.file, line: e.line, offset: e.offset, fix: e.hint ?? '', message: e.message, at: new Date().toISOString() });
    this.log.error({ session: r.session, file: e.file, line: e.line, offset: e.offset }, `${e.message} — this session is halted; the others carry on. fix: ${e.hint ?? ''}`);
  }

  private onBuildError(r: FileRecord, e: unknown): void {
    if (e instanceof CorruptLineError) return this.halt(r, e);
    if (e instanceof NoTurnsError) {
      // A transcript with no complete turn yet: wait for more bytes, quietly.
      if (isFailed(r)) this.recovered(r);
      r.state = 'pending';
      delete r.error;
      noteSeen(r);
      return;
    }
    const f = describeFailure(e, r.path, r.stat !== null);
    this.engine.forget(r.path);
    if (f === 'race') return; // deleted or replaced between the stat and the read: the next event retries
    this.fail(r, f);
  }

  /**
   * A failed build: status shows why and when it is tried again; it is retried with backoff
   * (1 s doubling to 60 s) and at once when the file changes. Said once, however often it repeats.
   */
  private fail(r: FileRecord, f: Failure): void {
    r.failures += 1;
    const wait = retryDelayMs(r.failures);
    r.state = f.state;
    r.error = { code: f.code, message: f.message, ...(f.fix ? { fix: f.fix } : {}), attempts: r.failures, retry_at: new Date(Date.now() + wait).toISOString() };
    noteSeen(r);
    r.retry = setTimeout(() => {
      r.retry = null;
      this.scheduler.schedule(r.path, 'live');
    }, wait);
    r.retry.unref();
    this.pushError(r.path, f.code, f.message, f.signature);
    const verdict = this.repeats.note(r.path, f.signature);
    if (verdict.log === 'none') return;
    const fields = { path: r.path, session: r.session, code: f.code, err: f.message, retry_ms: wait, ...(f.fix ? { fix: f.fix } : {}) };
    if (verdict.log === 'reminder') {
      this.log.error({ ...fields, repeats: verdict.repeats }, `still failing: ${f.message} (${verdict.repeats} more time(s) in the last ${Math.round(verdict.sinceMs / 60_000)} min; retrying every ${Math.round(wait / 1000)} s)`);
      return;
    }
    this.emit('error', { session: r.session, path: r.path, code: f.code, message: f.message, ...(f.fix ? { fix: f.fix } : {}), at: new Date().toISOString() });
    const what = f.state === 'unreadable' ? 'cannot read the transcript' : 'build failed';
    this.log.error(fields, `${what}: ${f.message}; retrying in ${Math.round(wait / 1000)} s and on its next change${f.fix ? `. fix: ${f.fix}` : ''}`);
  }

  private recovered(r: FileRecord): void {
    this.resolveErrors(r.path);
    const n = this.repeats.clear(r.path);
    if (n > 0) this.log.info({ path: r.path, session: r.session, failures: n }, `${r.path} is building again after ${n} failed attempt(s)`);
    r.failures = 0;
    delete r.error;
  }

  /**
   * The same error of one path again is counted on its entry (moved to the end, with the latest
   * message; an entry resolved before is open again). Past MAX_ERRORS_KEPT the oldest resolved
   * entries go first, then the oldest open ones but a folder's that cannot be listed (nothing else
   * in status says so); what went is counted once in `errors_dropped` until it comes back.
   */
  pushError(path: string | null, code: string, message: string, signature = `${code} ${message}`): void {
    const at = new Date().toISOString();
    this.droppedErrors.delete(errorKey(path, signature));
    const i = this.errors.findIndex((x) => x.path === path && this.errorSignatures.get(x) === signature);
    const prev = i === -1 ? null : (this.errors.splice(i, 1)[0] ?? null);
    const entry = { at, first_at: prev?.first_at ?? at, count: (prev?.count ?? 0) + 1, path, code, message, resolved_at: null };
    this.errorSignatures.set(entry, signature);
    this.errors.push(entry);
    for (const gone of evictErrors(this.errors, MAX_ERRORS_KEPT, (x) => x.path !== null && this.unreadableDirs.has(x.path))) {
      this.droppedErrors.add(errorKey(gone.path, this.errorSignatures.get(gone) ?? ''));
    }
  }

  /** What failed at this path (null: INDEX.json) works again: its entries are kept, marked resolved. */
  private resolveErrors(path: string | null): void {
    const at = new Date().toISOString();
    for (const e of this.errors) if (e.path === path && e.resolved_at === null) e.resolved_at = at;
    for (const k of this.droppedErrors) if (k.startsWith(errorKey(path, ''))) this.droppedErrors.delete(k);
  }

  emit<E extends EventName>(event: E, params: EventParams[E]): void {
    this.server.broadcast(event, params);
  }

  /** INDEX.json, PROJECT.md and links/: at most once per interval, and when the queue idles. */
  private maybeFlushIndex(): void {
    if (this.stopping || !this.engine.index.isDirty || Date.now() < this.indexRetryAt) return;
    const due = Date.now() - this.lastIndexFlush >= Math.max(this.config.options.daemon.index_interval_ms, INDEX_COST_FACTOR * this.indexFlushMs);
    if (due || this.scheduler.idle || this.scheduler.current === null) this.scheduler.schedule(INDEX_KEY, 'live');
  }

  /** Writes INDEX.json, PROJECT.md and links/ now. A failure backs off and is said once. */
  async flushIndexNow(): Promise<boolean> {
    this.lastIndexFlush = Date.now();
    try {
      await this.engine.index.flush({ enabled: this.config.options.linking.enabled, minScore: this.config.options.linking.min_overlap_score });
      this.indexFlushMs = Date.now() - this.lastIndexFlush;
    } catch (e) {
      this.indexFailures += 1;
      const wait = retryDelayMs(this.indexFailures);
      this.indexRetryAt = Date.now() + wait;
      const code = e instanceof HandoffError ? e.code : 'HANDOFF_ERR_INTERNAL';
      const message = e instanceof HandoffError ? e.message : describeError(e);
      const errno = e instanceof HandoffError ? e.details?.errno : undefined;
      const signature = `${code} ${typeof errno === 'string' ? errno : message}`;
      this.pushError(null, code, message, signature);
      const verdict = this.repeats.note(INDEX_KEY, signature);
      if (verdict.log !== 'none') {
        const times = verdict.log === 'reminder' ? ` (${verdict.repeats} more time(s) since the last report)` : '';
        this.log.error({ code, err: message, retry_ms: wait, ...(e instanceof HandoffError && e.hint ? { fix: e.hint } : {}) }, `could not write INDEX.json: ${message}${times}; retrying in ${Math.round(wait / 1000)} s`);
      }
      return false;
    }
    if (this.indexFailures > 0) {
      this.resolveErrors(null);
      this.log.info({ failures: this.repeats.clear(INDEX_KEY) }, `INDEX.json written again after ${this.indexFailures} failed attempt(s)`);
      this.indexFailures = 0;
      this.indexRetryAt = 0;
    }
    return true;
  }

  /** A change a client asked for is in INDEX.json before the client hears it is done. */
  async flushIndexAfterWrite(): Promise<void> {
    if (this.engine.index.isDirty) await this.flushIndexNow();
  }

  /** Runs a store write (a CLI command through the socket) in the single queue. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.scheduler.exclusive(fn);
  }

  /**
   * A build a client asked for over the socket (a hook's, the CLI's while the daemon runs). One
   * with a bulk read ahead (a transcript of hundreds of megabytes, read from its start or far
   * behind) runs in a build worker, ahead of the backfill there: on the main lane it would hold
   * every live session's refresh for seconds. Else, and when the worker hands it back (a subagent
   * or fork, a worker that died), on the main lane. INDEX.json is written before the answer.
   */
  async buildAsked(req: BuildRequest): Promise<BuildResult> {
    const pool = this.pool;
    if (pool !== null && (await this.bulkAsked(req.source))) {
      const out = await this.scheduler.offloadFor(req.source, () => pool.run(req));
      if (out.kind === 'built') {
        // What the main thread's engine remembers of this session is older than the worker's commit.
        this.engine.forget(req.source);
        this.engine.forget(out.result.dir);
        // Subagents whose task this build learned: re-rendered on the main lane, as after a backfill build in a worker.
        for (const p of out.result.dependents ?? []) this.relinkNow(p);
        await this.exclusiveFor(req.source, () => this.flushIndexAfterWrite());
        return out.result;
      }
      if (out.kind === 'lost') {
        if (this.stopping) throw new DaemonNotRunningError('build abandoned: the daemon is stopping', { hint: 'start it again (`handoff daemon`) and repeat the request' });
        this.log.warn({ path: req.source, why: out.why }, `${out.why} while building ${req.source}; building it again on the main thread`);
      }
    }
    return this.exclusiveFor(req.source, async () => {
      const r = await this.engine.build(req);
      await this.flushIndexAfterWrite();
      return r;
    });
  }

  /** BULK_BYTES or more of the transcript not yet read by the daemon (all of it when it never read it). */
  private async bulkAsked(path: string): Promise<boolean> {
    const st = await statFile(path);
    return st !== null && unreadBytes(st.size, this.files.get(path)?.offset ?? 0) >= BULK_BYTES;
  }

  /** A store write on one transcript: it waits for a build worker only when one builds that transcript. */
  exclusiveFor<T>(path: string, fn: () => Promise<T>): Promise<T> {
    return this.scheduler.exclusiveFor(path, fn);
  }

  /** Resolves when every watched file is read to its end and the queue is idle. */
  async flush(timeoutMs: number): Promise<{ rounds: number; files: number }> {
    const deadline = Date.now() + Math.min(timeoutMs, MAX_FLUSH_MS);
    // The socket opens before the watch and the backfill are set up: "everything read" means
    // nothing before they are.
    await Promise.race([this.started, sleep(Math.max(0, deadline - Date.now()))]);
    let rounds = 0;
    const slice = new Slicer();
    // A caller who waits for everything gets the failed transcripts tried again now, not at their next backoff.
    for (const r of [...this.files.values()]) {
      await slice.tick();
      if (isFailed(r)) this.scheduler.schedule(r.path, 'live');
    }
    for (;;) {
      if (this.stopping) throw new DaemonNotRunningError('flush abandoned: the daemon is stopping', { hint: 'start it again (`handoff daemon`) and repeat the request' });
      if (rounds > 0) await sleep(FLUSH_ROUND_MS);
      rounds += 1;
      await this.rescan();
      await Promise.race([this.scheduler.onIdle(), sleep(Math.max(0, deadline - Date.now()))]);
      const behind: FileRecord[] = [];
      const roots = this.rootsNow();
      for (const r of [...this.files.values()]) {
        await slice.tick();
        if (!caughtUp(r) && r.stat !== null && this.followed(r.path, roots)) behind.push(r);
      }
      if (behind.length === 0 && this.scheduler.idle) {
        await this.flushIndexNow();
        return { rounds, files: this.files.size };
      }
      if (Date.now() >= deadline) {
        throw new FlushTimeoutError(`flush did not finish within ${timeoutMs} ms: ${behind.length} transcript(s) are still being read`, {
          hint: 'a large backfill may still be running; `handoff status` shows its progress',
        });
      }
    }
  }

  /** What `status` answers. Thousands of rows: built in slices, the socket answered in between. */
  async status(): Promise<StatusResult> {
    const now = Date.now();
    const roots = this.watcher.status();
    const perRoot = roots.map(() => 0);
    const sessions: NonNullable<ReturnType<typeof view>>[] = [];
    const unknown: Record<string, Record<string, number>> = {};
    let files = 0;
    const slice = new Slicer();
    // One transcript reached by two paths (a hard link, nested or bind-mounted roots) is one session folder: one row.
    const byDir = new Map<string, SessionView>();
    for (const r of [...this.files.values()]) {
      await slice.tick();
      const v = view(r, this.liveWindowMs, now);
      const same = v === null || v.dir === '' ? undefined : byDir.get(v.dir);
      if (same !== undefined) (same.also_paths ??= []).push(r.path);
      else if (v !== null) {
        sessions.push(v);
        if (v.dir !== '') byDir.set(v.dir, v);
      }
      if (r.stat !== null) {
        files += 1;
        roots.forEach((w, i) => {
          if (r.path.startsWith(`${w.resolved}/`)) perRoot[i] = (perRoot[i] ?? 0) + 1;
        });
      }
      if (!r.harness) continue;
      for (const [t, n] of Object.entries(r.unknownTypes)) {
        const h = (unknown[r.harness] ??= {});
        h[t] = (h[t] ?? 0) + n;
      }
    }
    const newestFirst = await sortInSlices(sessions, (a, b) => ((a.updated ?? '') < (b.updated ?? '') ? 1 : (a.updated ?? '') > (b.updated ?? '') ? -1 : 0), slice);
    const byRoot = roots.map((w, i) => ({ ...w, files: perRoot[i] ?? 0 }));
    return {
      name: 'handoffd',
      version: packageVersion(),
      pid: process.pid,
      root: this.config.root,
      socket: this.config.socketPath,
      started_at: this.startedAt.toISOString(),
      uptime_s: Math.round((performance.now() - this.startedMono) / 1000),
      watch: byRoot,
      files,
      sessions: newestFirst,
      queue: { waiting: this.scheduler.waiting, running: this.scheduler.current === INDEX_KEY ? 'INDEX.json' : this.scheduler.current, live_waiting: this.scheduler.liveWaiting, in_workers: this.scheduler.workerKeys },
      backfill: { ...this.backfill },
      errors: this.errors.map((e) => ({ ...e })),
      errors_dropped: this.droppedErrors.size,
      unknown_types: unknown,
      memory: { rss_mb: mb(process.memoryUsage.rss()), heap_used_mb: mb(process.memoryUsage().heapUsed) },
      event_loop: { delay_max_ms: ms(this.loopDelay.max), delay_p99_ms: ms(this.loopDelay.percentile(99)) },
      connections: this.server.stats(),
    };
  }

  /**
   * SIGHUP: re-read the configuration. Watch paths, thresholds, debounce, intervals, the log
   * level and the request timeout take effect at once; a new store root needs a restart.
   */
  async reload(): Promise<void> {
    if (!this.opts.reload) return;
    try {
      const next = this.opts.reload();
      if (next.root !== this.config.root) this.log.warn({ root: next.root }, 'the store root changed in config; restart the daemon to move to it');
      this.config = next.root === this.config.root ? next : { ...next, root: this.config.root, socketPath: this.config.socketPath };
      // In the queue, so no build runs on the old engine; its index is saved before the new one loads it.
      await this.exclusive(async () => {
        await this.flushIndexNow();
        await this.pool?.close();
        this.engine = await this.openEngine(this.config);
        this.pool = this.makePool();
        this.scheduler.setOffload(this.offload());
      });
      this.scheduler.setDebounce(this.config.options.watch.debounce_ms);
      this.server.requestTimeoutMs = this.config.options.daemon.request_timeout_ms;
      this.server.setLimits(this.connectionLimits());
      if (!this.opts.logLevelFlag) this.log.level = this.config.options.daemon.log_level;
      this.startTimers();
      await this.watcher.setRoots(this.config.watchPaths);
      this.log.info({ watch: this.config.watchPaths }, 'configuration reloaded');
      await this.rescan();
    } catch (e) {
      this.log.error({ err: describeError(e) }, `configuration not reloaded: ${describeError(e)} (the previous one stays in force)`);
    }
  }

  /** Writes the state files that live builds left behind (stop(): nothing else builds by now). */
  private async checkpointAll(deadline: number): Promise<void> {
    for (const path of [...this.behind]) {
      if (Date.now() > deadline) return;
      try {
        const res = await this.engine.build({ source: path, checkpoint: true });
        if (!res.state_behind) this.behind.delete(path);
      } catch (e) {
        this.log.warn({ path, err: describeError(e) }, 'could not write the state of a session while stopping; its next build folds the bytes since it again');
      }
    }
  }

  /** Resolves when stop() has finished (for the CLI to exit). */
  stopped(): Promise<void> {
    return new Promise((resolve) => this.stopWaiters.push(resolve));
  }

  /** Idempotent: stop watching, finish the running build (bounded), write INDEX.json, close. */
  stop(reason: string, how: { yieldStore?: boolean } = {}): Promise<void> {
    this.stopping ??= (async () => {
      this.log.info({ reason }, `stopping (${reason})`);
      if (this.guardTimer) clearInterval(this.guardTimer);
      if (this.rescanTimer) clearInterval(this.rescanTimer);
      if (this.indexTimer) clearInterval(this.indexTimer);
      if (this.hotTimer) clearInterval(this.hotTimer);
      for (const r of this.files.values()) if (r.retry) clearTimeout(r.retry);
      const budget = this.config.options.daemon.shutdown_timeout_ms;
      // One budget for the whole stop: the running build's end and the states written after it.
      const deadline = Date.now() + budget;
      let drained = false;
      const results = await Promise.allSettled([
        this.watcher?.close(),
        Promise.race([this.scheduler?.stop().then(() => (drained = true)), sleep(budget)]),
      ]);
      for (const x of results) if (x.status === 'rejected') this.log.warn({ err: describeError(x.reason) }, 'while stopping');
      // State files left behind by live builds are written now, so the next start folds nothing
      // again; only once no build runs, and none is started after the budget (a state not
      // written by then is caught up by its session's next build).
      // Left to another daemon: nothing more is written (the running build has committed).
      if (drained && !how.yieldStore) await this.checkpointAll(deadline);
      // A build cut short in a worker is residue its next build cuts away (commit.ts).
      await this.pool?.close();
      if (!how.yieldStore) await this.flushIndexNow();
      await this.server?.close();
      this.writer?.release();
      this.lock?.release();
      this.guard?.close();
      this.loopDelay.disable();
      this.log.info({}, 'stopped');
      for (const w of this.stopWaiters.splice(0)) w();
    })();
    return this.stopping;
  }
}

const mb = (bytes: number): number => Math.round(bytes / 104857.6) / 10;
/** Nanoseconds of the loop-delay histogram to milliseconds (0 before the first sample). */
const ms = (ns: number): number => (Number.isFinite(ns) ? Math.round(ns / 1e5) / 10 : 0);


function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

export type { FileRecord };

