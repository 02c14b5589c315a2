import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { PressureLevel } from '../core/pressure.js';
import type { Harness } from '../core/types.js';
import { escapeControls } from '../core/control-chars.js';
import { Slicer, sortInSlices } from '../slice.js';
import { ensureDir, listDir, readText, removeEmptyDir, removeFile, writeAtomic, writeAtomicLarge } from './files.js';
import type { Layout } from './layout.js';
import { FILES, RESERVED_ROOT_NAMES } from './layout.js';
import type { Manifest } from './manifest.js';
import { readManifest } from './manifest.js';
import { wellFormed } from '../core/cut.js';

/**
 * Store-wide files (SPEC §5): INDEX.json, each project's PROJECT.md, and links/. They are
 * derived from the manifests and rewritten atomically; losing them loses nothing (a scan of the
 * manifests rebuilds them).
 */

export interface IndexEntry {
  id: string;
  uuid: string | null;
  chain_id: string;
  project: string;
  harness: Harness;
  turns: number;
  revisions: number;
  updated: string;
  manifest_sha256: string;
  pressure: PressureLevel;
  transfer_ready: boolean;
  source_state: 'present' | 'gone';
  /** Beyond SPEC §5's list: where the session lives and what it reads, for tools and the daemon. */
  title: string | null;
  dir: string;
  parent_session: string | null;
  objective: string | null;
  source: { path: string; offset: number; size: number; dev: number; ino: number; mtime_ms: number } | null;
}

/**
 * Whether an entry's folder is one of this store's. INDEX.json names each folder by its absolute
 * path, so in a store copied or moved elsewhere its entries lead to the original's folders (or
 * nowhere): a reader takes the same folder in this store (`inThisStore`), a writer rebuilds the
 * index from this store's manifests (IndexStore.load).
 */
export function isInStore(layout: Layout, dir: string): boolean {
  return dirname(dirname(dir)) === layout.projectsDir;
}

export function inThisStore(layout: Layout, e: IndexEntry): IndexEntry {
  return isInStore(layout, e.dir) ? e : { ...e, dir: layout.sessionDir(basename(dirname(e.dir)), basename(e.dir)) };
}

/**
 * INDEX.json keeps an objective's first 1,200 characters (what PROJECT.md's line and links/' keywords
 * read): one index holds every session's, and the handoff keeps the brief whole.
 */
const INDEX_OBJECTIVE_CHARS = 1200;

export function indexEntry(m: Manifest, dir: string, objective: string | null): IndexEntry {
  const s = m.sources[0];
  return {
    id: m.session,
    uuid: m.uuid,
    chain_id: m.chain_id,
    project: m.project,
    harness: m.harness,
    turns: m.turn_count,
    revisions: m.revisions,
    updated: m.updated_at,
    manifest_sha256: m.manifest_sha256,
    pressure: m.context.level,
    transfer_ready: m.quality.transfer_ready,
    source_state: m.source_state,
    title: m.title ?? null,
    dir,
    parent_session: m.parent_session,
    // Well formed: a cut upstream (the state's objective) may have left half a surrogate pair, which JSON writes as an escape jq refuses.
    objective: objective === null ? null : wellFormed(objective.length <= INDEX_OBJECTIVE_CHARS ? objective : `${objective.slice(0, INDEX_OBJECTIVE_CHARS - 1)}…`),
    source: s ? { path: s.path, offset: s.offset, size: s.size, dev: s.dev, ino: s.ino, mtime_ms: s.mtime_ms } : null,
  };
}

export async function readIndex(layout: Layout): Promise<IndexEntry[]> {
  const raw = await readText(layout.index);
  if (raw === null) return [];
  try {
    const data = JSON.parse(raw) as unknown;
    return Array.isArray(data) ? (data as IndexEntry[]) : [];
  } catch {
    return []; // derived data: a damaged index is rebuilt from the manifests
  }
}

// Code-unit order, not localeCompare: the same order on every machine, and 5,000 entries sort in
// a few milliseconds instead of tens (the index is rewritten while the socket waits).
const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const byProjectThenId = (a: IndexEntry, b: IndexEntry): number => (a.project === b.project ? byString(a.id, b.id) : byString(a.project, b.project));

/**
 * INDEX.json, the same text as `JSON.stringify(sorted, null, 2)`, laid out entry by entry in
 * slices (the socket is answered in between) and encoded slice by slice; the megabytes are then
 * written, flushed and renamed into place off the event loop. Thousands of entries take tens of
 * milliseconds to lay out and, on a busy disk, far longer to flush.
 */
export async function writeIndex(layout: Layout, entries: IndexEntry[]): Promise<void> {
  if (entries.length === 0) return writeAtomicLarge(layout.index, '[]\n');
  const slice = new Slicer();
  const sorted = await sortInSlices(entries, byProjectThenId, slice);
  const chunks: Buffer[] = [];
  let text = '[\n';
  for (let i = 0; i < sorted.length; i += 1) {
    text += `${i > 0 ? ',\n' : ''}  ${JSON.stringify(sorted[i], null, 2).replace(/\n/g, '\n  ')}`;
    if (slice.due) {
      chunks.push(Buffer.from(text));
      text = '';
      await slice.pause();
    }
  }
  chunks.push(Buffer.from(`${text}\n]\n`));
  await writeAtomicLarge(layout.index, Buffer.concat(chunks));
}

/** Every session directory of the store, found by its manifest. */
export async function scanManifests(layout: Layout): Promise<{ dir: string; manifest: Manifest }[]> {
  const out: { dir: string; manifest: Manifest }[] = [];
  for (const project of await listDir(layout.projectsDir)) {
    const pdir = layout.projectDir(project);
    for (const name of await listDir(pdir)) {
      if (name === 'PROJECT.md') continue;
      const dir = join(pdir, name);
      try {
        const m = await readManifest(dir);
        if (m) out.push({ dir, manifest: m });
      } catch {
        // An unreadable manifest is verify's business, not the index's.
      }
    }
  }
  return out;
}

// Every value on a PROJECT.md or links/ line is one line with no control character in it: an id
// made from a file name with a newline in it cannot forge a line of its own.

const objectiveLine = (o: string | null): string => escapeControls((o ?? '').replace(/\s+/g, ' ').trim().slice(0, 80));
const idOf = (e: IndexEntry): string => escapeControls(e.id);

export function renderProjectMd(project: string, entries: readonly IndexEntry[]): string {
  const lines = [`# Project: ${project}`, '', '## Sessions', ''];
  for (const e of [...entries].sort((a, b) => byString(a.id, b.id))) {
    lines.push(`- session ${idOf(e)} (turns=${e.turns}, rev=${e.revisions}) :: ${objectiveLine(e.objective)}`);
  }
  return `${lines.join('\n')}\n`;
}

const STOP_WORDS = new Set(
  'about above after again against also because been before being below between both could does doing down during each from further have having here into itself just more most once only other over same should some such than that their them then there these they this those through under until very what when where which while will with would your yours please make sure need want like file files code using used uses'.split(' '),
);

export function keywords(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[a-z]{4,}/g) ?? []) if (!STOP_WORDS.has(w)) out.add(w);
  return out;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const w of a) if (b.has(w)) inter += 1;
  return inter / (a.size + b.size - inter);
}

/**
 * An entry's keywords, found once per entry: a store of thousands of sessions is walked at every
 * flush, and finding them all again made a few megabytes of sets each time, most of them for
 * entries that had not changed. An entry is replaced when its session is built again, so the
 * cache holds no more than the index does.
 */
const KEYWORDS = new WeakMap<IndexEntry, Set<string>>();

function keywordsOf(e: IndexEntry): Set<string> {
  let words = KEYWORDS.get(e);
  if (words === undefined) {
    words = keywords(e.objective ?? '');
    KEYWORDS.set(e, words);
  }
  return words;
}

/**
 * links/<other>.md: for each session whose objective shares enough keywords with another
 * project's sessions, a line in that project's link file. Deterministic: sorted, recomputed.
 */
export async function computeLinks(entries: readonly IndexEntry[], minScore: number): Promise<Map<string, string[]>> {
  const slice = new Slicer();
  const words = new Map<IndexEntry, Set<string>>();
  for (const e of entries) {
    await slice.tick();
    words.set(e, keywordsOf(e));
  }
  const byProject = new Map<string, Set<string>>();
  for (const e of entries) {
    await slice.tick();
    const set = byProject.get(e.project) ?? new Set<string>();
    for (const w of words.get(e) ?? []) set.add(w);
    byProject.set(e.project, set);
  }
  const projects = [...byProject.entries()].filter(([, w]) => w.size >= 3).sort(([a], [b]) => byString(a, b));
  const links = new Map<string, string[]>();
  for (const e of await sortInSlices(entries, (a, b) => byString(a.id, b.id), slice)) {
    // Thousands of sessions times every project: the socket is answered in between.
    await slice.tick();
    const mine = words.get(e) ?? new Set<string>();
    if (mine.size < 3) continue;
    for (const [other, theirs] of projects) {
      if (other === e.project) continue;
      // Jaccard is at most the smaller set's size over the larger's: most pairs end here.
      if (Math.min(mine.size, theirs.size) / Math.max(mine.size, theirs.size) < minScore) continue;
      const score = jaccard(mine, theirs);
      if (score < minScore) continue;
      const shared = [...mine].filter((w) => theirs.has(w)).sort().slice(0, 8);
      const list = links.get(other) ?? [];
      list.push(`- ${e.project}/${idOf(e)} (score ${score.toFixed(3)}): shared keywords ${shared.join(', ')}`);
      links.set(other, list);
    }
  }
  return links;
}

/**
 * Rewrites PROJECT.md for the given projects, and links/ when linking is on. A project left
 * with no session (all renamed or moved away) loses its PROJECT.md, and its folder when that
 * leaves it empty.
 */
export async function writeProjectFiles(layout: Layout, entries: readonly IndexEntry[], projects: ReadonlySet<string> | null, linking: { enabled: boolean; minScore: number }): Promise<void> {
  const slice = new Slicer();
  const byProject = new Map<string, IndexEntry[]>();
  for (const e of entries) {
    const list = byProject.get(e.project);
    if (list) list.push(e);
    else byProject.set(e.project, [e]);
  }
  for (const p of projects ?? []) if (!byProject.has(p) && existsSync(layout.projectDir(p))) byProject.set(p, []);
  for (const [project, list] of byProject) {
    if (projects && !projects.has(project)) continue;
    await slice.tick();
    const path = layout.projectMd(project);
    if (list.length === 0) {
      await removeFile(path);
      await removeEmptyDir(layout.projectDir(project));
      continue;
    }
    const text = renderProjectMd(project, list);
    if ((await readText(path)) !== text) await writeAtomic(path, text);
  }
  if (!linking.enabled) return;
  const links = await computeLinks(entries, linking.minScore);
  if (links.size > 0) await ensureDir(layout.linksDir);
  const existing = new Set((await listDir(layout.linksDir)).filter((n) => n.endsWith('.md')));
  for (const [other, lines] of links) {
    const path = layout.linkFile(other);
    existing.delete(`${other}.md`);
    const text = `# Links: ${other}\n\nSessions of other projects whose objectives overlap with ${other}'s.\n\n${lines.join('\n')}\n`;
    if ((await readText(path)) !== text) await writeAtomic(path, text);
  }
  for (const stale of existing) await removeFile(join(layout.linksDir, stale));
}

/** Legacy layout: session folders directly under the root move to projects/<project>/. */
export async function migrateLegacy(layout: Layout, move: (from: string, to: string) => Promise<void>): Promise<string[]> {
  const moved: string[] = [];
  for (const name of await listDir(layout.root)) {
    if (RESERVED_ROOT_NAMES.has(name) || name.startsWith('.')) continue;
    const dir = join(layout.root, name);
    let m: Manifest | null = null;
    try {
      m = await readManifest(dir);
    } catch {
      continue;
    }
    if (!m) continue;
    const to = layout.sessionDir(m.project || 'unsorted', name);
    await move(dir, to);
    moved.push(to);
  }
  return moved;
}

export { FILES };
