import type { FSWatcher as NodeWatcher } from 'node:fs';
import { existsSync, watch as fsWatch } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FromWatchThread, ToWatchThread } from './options.js';
import type { Excluded } from './scan.js';
import { folderId, isDirectory, NONE_EXCLUDED } from './scan.js';

/**
 * chokidar on the transcript folders, filtered to `.jsonl`. Its events are hints only: the
 * daemon answers each with a stat and a read from the session's cursor. A folder that does not
 * exist yet is awaited by watching its nearest existing ancestor, and joins the watch the moment
 * it appears — no restart.
 *
 * Symbolic links below a root are never followed: a link back up the tree (`up -> ..`,
 * `self -> .`) would otherwise be walked without end. A root that is itself a link is resolved
 * when it starts being watched, and watched (and scanned) at its real path; re-pointed, it is a
 * root replaced (checkRoot), watched anew where it points.
 */

export type HintKind = 'add' | 'change' | 'unlink';

export interface WatcherEvents {
  hint(kind: HintKind, path: string): void;
  rootAppeared(root: string): void;
  error(err: unknown, where: string): void;
}

export { chokidarOptions } from './options.js';

const THREAD_CLOSE_MS = 3000;
const THREAD_RESTART_MS = 1000;
const THREAD_YOUNG_MB = 4;

/**
 * The handle on chokidar's thread (chokidar-thread.ts): folders to add and drop, hints back. A
 * thread that dies is started again on the folders it watched; the periodic rescan covers the gap.
 */
class WatchThread {
  private worker: Worker;
  private closing = false;
  private readonly watched = new Set<string>();

  constructor(
    roots: readonly string[],
    private readonly on: WatcherEvents,
    private readonly onReady: () => void,
    private readonly exclude: Excluded,
  ) {
    for (const r of roots) this.watched.add(r);
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    // A small young generation: chokidar's first scan makes short-lived garbage in bursts, and
    // the thread's memory counts in the daemon's.
    const w = new Worker(new URL('./chokidar-thread.js', import.meta.url), { workerData: { roots: [...this.watched], exclude: this.exclude }, resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_MB } });
    w.on('message', (m: FromWatchThread) => {
      if (m.t === 'event') this.on.hint(m.kind, m.path);
      else if (m.t === 'ready') this.onReady();
      else if (m.t === 'error') this.on.error(new Error(m.message), 'chokidar');
    });
    w.on('error', (e) => this.on.error(e, 'the watch thread'));
    w.on('exit', (code) => {
      // A thread retired by restart() exits as asked: only the current one's end is news.
      if (this.closing || w !== this.worker) return;
      this.on.error(new Error(`the watch thread exited (code ${code}); starting it again`), 'the watch thread');
      setTimeout(() => {
        if (!this.closing) this.worker = this.spawn();
      }, THREAD_RESTART_MS).unref();
    });
    return w;
  }

  add(path: string): void {
    this.watched.add(path);
    this.post({ op: 'add', path });
  }

  /**
   * chokidar's unwatch of a folder leaves the inotify watches of the folders below it in place
   * (about one a folder: a watched link re-pointed ten times held the watches of ten trees, and
   * their files' events). A fresh thread on the folders still watched holds none of them; a
   * folder stops being watched rarely (it went, was replaced, or a reload dropped it), and the
   * periodic rescan covers the moment between the two threads.
   */
  unwatch(path: string): void {
    this.watched.delete(path);
    this.restart();
  }

  /** A fresh thread on the folders watched; the current one is asked to close (killed if it does not). */
  restart(): void {
    if (this.closing) return;
    const old = this.worker;
    this.worker = this.spawn();
    old.postMessage({ op: 'close' } satisfies ToWatchThread);
    setTimeout(() => void old.terminate(), THREAD_CLOSE_MS).unref();
  }

  private post(m: ToWatchThread): void {
    this.worker.postMessage(m);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const w = this.worker;
    const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    w.postMessage({ op: 'close' } satisfies ToWatchThread);
    const timer = setTimeout(() => void w.terminate(), THREAD_CLOSE_MS);
    await exited;
    clearTimeout(timer);
  }
}

export class TranscriptWatcher {
  private chokidar: WatchThread | null = null;
  private readonly pending = new Map<string, NodeWatcher | null>();
  private readonly active = new Set<string>();
  /** Each active root's real path, resolved once when it started being watched. */
  private readonly real = new Map<string, string>();
  /** Each active root's folder (device and inode) and the watch on the folder above it. */
  private readonly identity = new Map<string, string | null>();
  private readonly guards = new Map<string, NodeWatcher>();
  private closing: Promise<void> | null = null;

  constructor(
    private roots: readonly string[],
    private readonly on: WatcherEvents,
    /** Folders never watched inside a root: the store's own (its timelines are JSONL too). */
    private readonly exclude: Excluded = NONE_EXCLUDED,
  ) {}

  /**
   * Resolves once chokidar has scanned the folders that exist: from then on every change is
   * reported, so a scan made after start() misses nothing that happens after it.
   */
  async start(readyTimeoutMs = 120_000): Promise<void> {
    const existing: string[] = [];
    for (const r of this.roots) if (await isDirectory(r)) existing.push(r);
    for (const r of existing) this.real.set(r, await realPath(r));
    let ready: () => void = () => undefined;
    const isReady = new Promise<void>((resolve) => {
      ready = resolve;
      setTimeout(resolve, readyTimeoutMs).unref();
    });
    this.chokidar = new WatchThread([...new Set(existing.map((r) => this.resolved(r)))], this.on, () => ready(), this.exclude);
    for (const r of existing) {
      this.active.add(r);
      await this.guard(r);
    }
    for (const r of this.roots) if (!this.active.has(r)) this.awaitRoot(r);
    await isReady;
  }

  /** `resolved`: where a root that is a link points (the path itself otherwise). */
  status(): { path: string; exists: boolean; resolved: string }[] {
    return this.roots.map((path) => ({ path, exists: this.active.has(path), resolved: this.resolved(path) }));
  }

  private resolved(root: string): string {
    return this.real.get(root) ?? root;
  }

  private async activate(root: string): Promise<void> {
    this.real.set(root, await realPath(root));
    this.active.add(root);
    this.chokidar?.add(this.resolved(root));
    await this.guard(root);
  }

  private async deactivate(root: string): Promise<void> {
    this.active.delete(root);
    this.unguard(root);
    const real = this.resolved(root);
    this.real.delete(root);
    // Another root may resolve to the same folder.
    if (![...this.active].some((r) => this.resolved(r) === real)) this.chokidar?.unwatch(real);
  }

  /** SIGHUP: a new set of roots; roots no longer wanted stop being watched. */
  async setRoots(roots: readonly string[]): Promise<void> {
    const old = new Set(this.roots);
    this.roots = roots;
    for (const r of old) {
      if (roots.includes(r)) continue;
      if (this.active.has(r)) await this.deactivate(r);
      this.pending.get(r)?.close();
      this.pending.delete(r);
    }
    for (const r of roots) if (!old.has(r)) await this.track(r);
  }

  private async track(root: string): Promise<void> {
    if (this.closing) return;
    if (await isDirectory(root)) {
      if (!this.active.has(root)) await this.activate(root);
      return;
    }
    this.awaitRoot(root);
  }

  /** Watches the nearest existing ancestor of a missing root until the root appears. */
  private awaitRoot(root: string): void {
    let anc = dirname(root);
    while (!existsSync(anc) && dirname(anc) !== anc) anc = dirname(anc);
    const current = this.pending.get(root);
    if (current && (current as NodeWatcher & { ancestor?: string }).ancestor === anc) return;
    current?.close();
    let w: (NodeWatcher & { ancestor?: string }) | null = null;
    try {
      w = fsWatch(anc, { persistent: false }, () => void this.recheck(root));
      w.ancestor = anc;
      w.on('error', () => void this.recheck(root));
    } catch (e) {
      this.on.error(e, `watching ${anc} for ${root} to appear`);
    }
    this.pending.set(root, w);
    // The next level may have appeared while the watch was being set up: look once more.
    void this.recheck(root);
  }

  private async recheck(root: string): Promise<void> {
    if (this.closing || !this.pending.has(root)) return;
    const exists = await isDirectory(root);
    // Another check may have settled it while this one waited for the stat.
    if (this.closing || !this.pending.has(root) || this.active.has(root)) return;
    if (exists) {
      this.pending.get(root)?.close();
      this.pending.delete(root);
      await this.activate(root);
      this.on.rootAppeared(root);
    } else {
      // A deeper ancestor may exist now: re-arm closer to the root.
      this.awaitRoot(root);
    }
  }

  /**
   * A watch follows a folder, not its name: once a root is deleted (a tool resetting its folder,
   * a restore from a backup) its watch reports nothing, even when a folder of that name is made
   * again. The folder above each root is watched for that name (one more inotify watch per
   * root), and a root that went or was replaced (another inode) is watched anew at once, or
   * awaited; the periodic rescan checks the same.
   */
  private async guard(root: string): Promise<void> {
    this.identity.set(root, await folderIdentity(root));
    if (this.guards.has(root)) return;
    const name = basename(root);
    try {
      // A `rename` naming the root is its deletion, creation or move: it is watched anew whatever
      // its inode says, as ext4 gives a folder made right after one was deleted (`rm -r x && mkdir
      // x`) the same inode number, and the inode alone took the new folder for the old one (its
      // dead watch kept). The birth time would tell them apart, but where there is none libuv
      // gives the change time, which every file added changes.
      const w = fsWatch(dirname(root), { persistent: false }, (event, f) => {
        if (f === null || f === name) void this.checkRoot(root, event === 'rename');
      });
      w.on('error', () => void this.checkRoot(root));
      this.guards.set(root, w);
    } catch {
      // The folder above cannot be watched: the periodic rescan checks the root.
    }
  }

  private unguard(root: string): void {
    this.guards.get(root)?.close();
    this.guards.delete(root);
    this.identity.delete(root);
  }

  /** `replaced`: an event said the root itself was made, deleted or moved, whatever its inode says now. */
  private async checkRoot(root: string, replaced = false): Promise<void> {
    if (this.closing || !this.active.has(root)) return;
    const now = await folderIdentity(root);
    if (this.closing || !this.active.has(root) || (!replaced && now === this.identity.get(root))) return;
    await this.deactivate(root);
    if (now === null) this.awaitRoot(root);
    else {
      await this.activate(root);
      this.on.rootAppeared(root);
    }
  }

  /**
   * The watches made anew: chokidar drops its watch of a folder it could not read for a moment (a
   * mode flipped to 000 and back) and of the folders below, and never makes it again; the scan
   * that finds such a folder readable again asks for this.
   */
  rewatch(): void {
    this.chokidar?.restart();
  }

  /** Called by the periodic rescan: catches a root whose appearance no event reported. */
  async recheckPending(): Promise<void> {
    for (const r of [...this.pending.keys()]) await this.recheck(r);
    for (const r of [...this.active]) await this.checkRoot(r);
  }

  /** Idempotent: the same promise every time. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const w of this.pending.values()) w?.close();
      this.pending.clear();
      for (const w of this.guards.values()) w.close();
      this.guards.clear();
      await this.chokidar?.close();
    })();
    return this.closing;
  }
}

async function realPath(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

/** A folder's device and inode, or null when it is not a folder (or not there). */
async function folderIdentity(path: string): Promise<string | null> {
  try {
    const st = await stat(path);
    return st.isDirectory() ? folderId(st) : null;
  } catch {
    return null;
  }
}
