import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { isSafeDirName } from '../core/naming.js';
import { AmbiguousPrefixError, NotFoundError } from '../errors.js';
import type { IndexEntry } from './index-file.js';
import { indexEntry, isInStore, readIndex, scanManifests, writeIndex, writeProjectFiles } from './index-file.js';
import type { Layout } from './layout.js';

/**
 * The store-wide index held in memory: lookups by id, native uuid and parent, and a flush that
 * rewrites INDEX.json and the PROJECT.md of every project that changed. The one-shot CLI flushes
 * after each command; the daemon at most once a second and when its queue goes idle.
 */
export class IndexStore {
  private readonly entries = new Map<string, IndexEntry>();
  /** Transcript path → session id: a session is keyed by the file it reads. */
  private readonly paths = new Map<string, string>();
  /** Parent session id → its subagents' ids (every build asks; a scan of all would be O(n) each). */
  private readonly children = new Map<string, Set<string>>();
  private readonly dirtyProjects = new Set<string>();
  private dirty = false;
  /** Told of every upsert and removal (the daemon passes them on to its build workers). */
  private readonly observers: ((e: IndexEntry | { removed: string }) => void)[] = [];

  private constructor(private readonly layout: Layout) {}

  /** An index held in memory only, from entries another thread sent (a build worker's snapshot). */
  static of(layout: Layout, entries: readonly IndexEntry[]): IndexStore {
    const store = new IndexStore(layout);
    for (const e of entries) store.put(e);
    return store;
  }

  observe(fn: (e: IndexEntry | { removed: string }) => void): void {
    this.observers.push(fn);
  }

  static async load(layout: Layout): Promise<IndexStore> {
    const store = new IndexStore(layout);
    const entries = await readIndex(layout);
    // An index written for the store's folder elsewhere (copied or moved) is rebuilt from this
    // store's own manifests: its paths lead to the original's folders, and a build would write there.
    // An entry's project is its folder's name: one edited to lead elsewhere (`../x`) is not kept.
    const valid = entries.filter((e) => e && typeof e.id === 'string' && typeof e.dir === 'string' && isInStore(layout, e.dir) && typeof e.project === 'string' && isSafeDirName(e.project) && e.project === basename(dirname(e.dir)));
    if (valid.length === entries.length && (valid.length > 0 || !existsSync(layout.projectsDir))) {
      for (const e of valid) store.put(e);
    } else {
      await store.rebuild();
    }
    return store;
  }

  /** Recomputes every entry from the manifests on disk. */
  async rebuild(): Promise<void> {
    this.entries.clear();
    this.paths.clear();
    this.children.clear();
    for (const { dir, manifest } of await scanManifests(this.layout)) {
      this.put(indexEntry(manifest, dir, manifest.objective ?? null));
      this.dirtyProjects.add(manifest.project);
    }
    this.dirty = true;
  }

  get(id: string): IndexEntry | undefined {
    return this.entries.get(id);
  }

  /** The session whose transcript on record is `path`. */
  byPath(path: string): IndexEntry | undefined {
    const id = this.paths.get(path);
    const e = id === undefined ? undefined : this.entries.get(id);
    return e?.source?.path === path ? e : undefined;
  }

  private put(e: IndexEntry): void {
    const prev = this.entries.get(e.id);
    if (prev) this.unlink(prev);
    this.entries.set(e.id, e);
    if (e.source) this.paths.set(e.source.path, e.id);
    if (e.parent_session !== null) {
      let set = this.children.get(e.parent_session);
      if (!set) this.children.set(e.parent_session, (set = new Set()));
      set.add(e.id);
    }
  }

  private unlink(prev: IndexEntry): void {
    if (prev.source && this.paths.get(prev.source.path) === prev.id) this.paths.delete(prev.source.path);
    if (prev.parent_session !== null) this.children.get(prev.parent_session)?.delete(prev.id);
  }

  byUuid(uuid: string): IndexEntry | undefined {
    for (const e of this.entries.values()) if (e.uuid === uuid && e.parent_session === null) return e;
    return undefined;
  }

  byDirName(name: string): IndexEntry | undefined {
    for (const e of this.entries.values()) if (basename(e.dir) === name) return e;
    return undefined;
  }

  childrenOf(id: string): IndexEntry[] {
    return [...(this.children.get(id) ?? [])]
      .map((c) => this.entries.get(c))
      .filter((e): e is IndexEntry => e !== undefined && e.parent_session === id)
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  all(): IndexEntry[] {
    return [...this.entries.values()];
  }

  get size(): number {
    return this.entries.size;
  }

  upsert(e: IndexEntry): void {
    const prev = this.entries.get(e.id);
    if (prev && prev.project !== e.project) this.dirtyProjects.add(prev.project);
    this.put(e);
    this.dirtyProjects.add(e.project);
    this.dirty = true;
    for (const fn of this.observers) fn(e);
  }

  remove(id: string): void {
    const prev = this.entries.get(id);
    if (!prev) return;
    this.entries.delete(id);
    this.unlink(prev);
    this.dirtyProjects.add(prev.project);
    this.dirty = true;
    for (const fn of this.observers) fn({ removed: id });
  }

  get isDirty(): boolean {
    return this.dirty;
  }

  async flush(linking: { enabled: boolean; minScore: number }): Promise<void> {
    if (!this.dirty) return;
    const projects = new Set(this.dirtyProjects);
    this.dirty = false;
    this.dirtyProjects.clear();
    try {
      await writeIndex(this.layout, this.all());
      await writeProjectFiles(this.layout, this.all(), projects, linking);
    } catch (e) {
      this.dirty = true;
      for (const p of projects) this.dirtyProjects.add(p);
      throw e;
    }
  }

  /**
   * The session an id prefix names. An exact id wins; otherwise the prefix must match exactly
   * one session id, native uuid or folder name.
   */
  resolve(prefix: string, root: string): IndexEntry {
    return resolveIn(this.all(), prefix, root);
  }

  /** The project folder a session dir sits in (for moves). */
  static projectOfDir(dir: string): string {
    return basename(dirname(dir));
  }
}

/** IndexStore.resolve over a list of entries (the daemon's, read over the socket). */
export function resolveIn(all: readonly IndexEntry[], prefix: string, root: string): IndexEntry {
  if (all.length === 0) {
    throw new NotFoundError(`no handoffs in ${root}`, { hint: 'build one with `handoff build <transcript>`, or start the daemon with `handoff daemon`' });
  }
  const exact = all.find((e) => e.id === prefix);
  if (exact) return exact;
  const matches = all.filter((e) => e.id.startsWith(prefix) || (e.uuid ?? '').startsWith(prefix) || basename(e.dir).startsWith(prefix));
  if (matches.length === 1) return matches[0] as IndexEntry;
  if (matches.length === 0) throw new NotFoundError(`no session matches "${prefix}" in ${root}`, { hint: '`handoff list` shows every session id' });
  const shown = matches
    .slice(0, 8)
    .map((e) => `${e.project}/${e.id}`)
    .join(', ');
  throw new AmbiguousPrefixError(`"${prefix}" matches ${matches.length} sessions: ${shown}${matches.length > 8 ? ', …' : ''}`, { hint: 'give more characters of the session id' });
}

/**
 * The shortest prefix of each id that names its session alone (as `resolveIn` reads a prefix:
 * against every id, native uuid and folder name), like git's short hashes: never shorter than
 * `min` characters, the whole id when nothing shorter is unique. A key that starts with a prefix
 * shares it as a common prefix, and in sorted order the nearest other session's key on each
 * side shares the longest: two neighbours per id, not a comparison with every session.
 */
export function uniquePrefixes(all: readonly IndexEntry[], ids: readonly string[] = all.map((e) => e.id), min = 8): Map<string, string> {
  const keys: { key: string; owner: string }[] = [];
  for (const e of all) for (const k of new Set([e.id, e.uuid ?? '', basename(e.dir)])) if (k.length > 0) keys.push({ key: k, owner: e.id });
  keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const out = new Map<string, string>();
  for (const id of ids) {
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((keys[mid] as { key: string }).key < id) lo = mid + 1;
      else hi = mid;
    }
    let shared = 0;
    for (const step of [-1, 1]) {
      for (let j = step < 0 ? lo - 1 : lo; j >= 0 && j < keys.length; j += step) {
        const k = keys[j] as { key: string; owner: string };
        if (k.owner === id) continue;
        shared = Math.max(shared, commonPrefix(id, k.key));
        break;
      }
    }
    out.set(id, id.slice(0, Math.min(id.length, Math.max(min, shared + 1))));
  }
  return out;
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a.charCodeAt(n) === b.charCodeAt(n)) n += 1;
  return n;
}
