import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { sha256Hex } from '../core/canonical.js';
import { sessionDirName } from '../core/naming.js';
import { listDir } from '../store/files.js';
import { indexEntry } from '../store/index-file.js';
import type { IndexStore } from '../store/index-store.js';
import type { Layout } from '../store/layout.js';
import type { Manifest } from '../store/manifest.js';
import type { Identity } from './identity.js';
import type { EngineMemory } from './memory.js';

/** Step 2 of a build: which folder of the store a transcript builds into. */

export interface Where {
  index: IndexStore;
  layout: Layout;
  memory: EngineMemory;
}

/**
 * The directory of a session the index knows. A session is keyed by its transcript's path: the
 * session that reads this very file comes first. Then the session with this id, when it reads
 * the same file (moved or archived: the file it read is gone, or has the same inode). Two
 * live files whose ids collide (`-a/same.jsonl`, `-b/same.jsonl`) are two sessions: the
 * newcomer's id gets a short hash of its path, as folder names do. `forced`: the id was
 * given (`--session`), and names the session whatever file it reads.
 */
export async function locate(w: Where, ident0: Identity, forced: boolean): Promise<{ ident: Identity; dir: string | undefined }> {
  const idx = w.index;
  const manifestOf = (dir: string): Promise<Manifest | null> => w.memory.manifestOf(dir);
  let ident = ident0;
  if (!forced) {
    const byPath = idx.byPath(ident.path);
    if (byPath && (await manifestOf(byPath.dir))?.session === byPath.id) return { ident: { ...ident, id: byPath.id }, dir: byPath.dir };
  }
  let byId = idx.get(ident.id);
  if (byId && !forced && !(await sameSource(byId.source?.path ?? null, ident))) {
    ident = collided(ident);
    byId = idx.get(ident.id);
  }
  if (byId) {
    if ((await manifestOf(byId.dir))?.session === byId.id) return { ident, dir: byId.dir };
    // Moved by a build that died before INDEX.json caught up: to its real project (same folder
    // name), or retitled (lifecycle.ts; its marker finishes the change).
    const moved = (await findInProjects(w, basename(byId.dir), byId.id)) ?? (await findAnywhere(w, byId.id));
    if (moved) {
      idx.upsert(indexEntry(moved.manifest, moved.dir, moved.manifest.objective));
      return { ident, dir: moved.dir };
    }
  }
  const byUuid = ident.uuid && !ident.subagentFile ? idx.byUuid(ident.uuid) : undefined;
  // The same native session under another id (built earlier with --session, say) — unless
  // that session reads a different file that still exists: then they are two sessions.
  if (byUuid && (await sameSource(byUuid.source?.path ?? null, ident)) && (await manifestOf(byUuid.dir))?.session === byUuid.id) return { ident, dir: byUuid.dir };
  return { ident, dir: undefined };
}

/** The folder named `dirName` in any project whose manifest is session `id`'s. */
async function findInProjects(w: Where, dirName: string, id: string): Promise<{ dir: string; manifest: Manifest } | undefined> {
  for (const project of await listDir(w.layout.projectsDir)) {
    const dir = w.layout.sessionDir(project, dirName);
    const manifest = await w.memory.manifestOf(dir);
    if (manifest?.session === id) return { dir, manifest };
  }
  return undefined;
}

/**
 * Where session `id` is when the index names a folder that no longer holds it (moved by a
 * command killed before INDEX.json caught up): the index entry follows it. Undefined when no
 * folder of the store holds it.
 */
export async function relocate(w: Where, id: string, dirName: string): Promise<string | undefined> {
  const found = (await findInProjects(w, dirName, id)) ?? (await findAnywhere(w, id));
  if (found) w.index.upsert(indexEntry(found.manifest, found.dir, found.manifest.objective));
  return found?.dir;
}

/**
 * The folder of any project whose manifest is session `id`'s: every manifest of the store is
 * read, so this is asked only when the index names a folder that is gone.
 */
async function findAnywhere(w: Where, id: string): Promise<{ dir: string; manifest: Manifest } | undefined> {
  for (const project of await listDir(w.layout.projectsDir)) {
    for (const name of await listDir(w.layout.projectDir(project))) {
      const dir = w.layout.sessionDir(project, name);
      const manifest = await w.memory.manifestOf(dir);
      if (manifest?.session === id) return { dir, manifest };
    }
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
export async function freeDirName(w: Where, project: string, id: string): Promise<{ name: string; committed: boolean }> {
  const base = sessionDirName(id);
  const tag = sha256Hex(id).slice(0, 8);
  const stem = base.slice(0, 200 - tag.length - 1 - 4);
  for (let n = 0; ; n += 1) {
    const name = n === 0 ? base : n === 1 ? `${stem}-${tag}` : `${stem}-${tag}-${n}`;
    if (name.toLowerCase() === 'project.md') continue;
    const m = await w.memory.manifestOf(w.layout.sessionDir(project, name));
    if (m === null || m.session === id) return { name, committed: m !== null };
  }
}

/** A live file whose id another live file's session already has: its id gets a short hash of its path. */
export function collided(ident: Identity): Identity {
  return { ...ident, id: `${ident.id}-${sha256Hex(ident.path).slice(0, 8)}` };
}

/**
 * Whether a session that reads `other` reads this very transcript (the same path or inode, or
 * `other` is gone). A file this user may not reach for now (a folder above it at mode 000) is not
 * gone: its session is its own, and a file of the same name elsewhere is another session (taken
 * for gone, it took the session over and the two transcripts were read as one).
 */
export async function sameSource(other: string | null, ident: Identity): Promise<boolean> {
  if (other === null || other === ident.path) return true;
  let a;
  try {
    a = await stat(other);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR'; // gone: this one continues it
  }
  try {
    const b = await stat(ident.path);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}
