import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { stripControls } from '../core/control-chars.js';
import { safeSlug, sessionDirName } from '../core/naming.js';
import type { SessionState } from '../core/state.js';
import { UsageError } from '../errors.js';
import { moveDir, writeAtomic } from '../store/files.js';
import { indexEntry } from '../store/index-file.js';
import type { Manifest, UnsealedManifest } from '../store/manifest.js';
import { seal } from '../store/manifest.js';
import { AppendBuffer } from './append.js';
import type { Parts } from './commit.js';
import { commit, toolsBase } from './commit.js';
import { crashPoint } from './faults.js';
import type { LoadedSession } from './session.js';
import { CHANGE_MARKER } from './session.js';
import type { Base, BuildResult, Ctx, ReadResult, SessionChange } from './types.js';

/**
 * Changes to a session that its transcript does not make: retitle and rename move its folder
 * before the build that records them; a transcript that is gone re-renders what is committed.
 *
 * A move is two steps that no single rename makes atomic with the commit: the folder moves,
 * then the build commits the manifest that names it. A process killed between them (or a
 * commit refused by a full disk) would leave the folder under its new name with a manifest of
 * the old. So the change is first written into the folder as CHANGE_MARKER: wherever the folder
 * is found next (locate.ts looks in every project when the index points at a folder that is
 * gone), the build that loads it (session.ts) finds the marker and finishes the change, and the commit
 * removes it. Applying a change twice is applying it once.
 */

/** Moves and renames a session folder before the build that records the change. */
export async function applyChange(e: Parts, loaded: LoadedSession, change: SessionChange): Promise<{ dir: string; manifest: Manifest }> {
  const m = loaded.manifest;
  let target = loaded.dir;
  const patch: Partial<UnsealedManifest> = {};
  if (change.title !== undefined) {
    const title = stripControls(change.title).replace(/\s+/g, ' ');
    const slug = safeSlug(title, (t) => e.cleaner.text(t), sessionDirName(m.session));
    target = join(dirname(target), slug);
    if (slug !== m.dir_name) {
      patch.dir_name = slug;
      // Redacted as they go into the record: a folder named before names were redacted in the form
      // they take (SECURITY.md) is renamed by a retitle, and its old name must not stay behind here.
      patch.titled_from = [...m.titled_from, m.dir_name].map((n) => e.cleaner.text(n));
    }
    patch.title_override = title.trim();
  }
  if (change.project !== undefined) {
    const project = safeSlug(change.project, (t) => e.cleaner.text(t));
    if (project !== m.project) {
      target = e.deps.layout.sessionDir(project, basename(target));
      patch.prev_project = m.project;
      patch.project = project;
      patch.project_source = 'flag';
    }
  }
  if (target !== loaded.dir) {
    if (existsSync(target)) {
      throw new UsageError(`${target} already exists`, { hint: 'choose another name, or rename the session that holds it first' });
    }
    const marker: SessionChange = {};
    if (change.title !== undefined) marker.title = change.title;
    if (change.project !== undefined) marker.project = change.project;
    await writeAtomic(join(loaded.dir, CHANGE_MARKER), `${JSON.stringify(marker)}\n`);
    crashPoint('after-change-marker');
    await moveDir(loaded.dir, target);
    crashPoint('after-move');
    e.memory.forget(loaded.dir);
  }
  const { manifest_sha256: _s, ...rest } = m;
  const manifest = seal({ ...rest, ...patch });
  // The index follows the folder at once: INDEX.json written before the commit names a folder
  // that holds the session, and its marker finishes the change.
  if (target !== loaded.dir) e.deps.index.upsert(indexEntry(manifest, target, m.objective));
  return { dir: target, manifest };
}

/** A new revision of a session whose transcript is gone: nothing read, the committed state re-rendered. */
export async function commitGone(e: Parts, ctx: Ctx, base: Base, state: SessionState): Promise<BuildResult> {
  const m = base.manifest;
  const src = m.sources[0];
  const read: ReadResult = { offset: src?.offset ?? 0, lines: src?.lines ?? 0, size: src?.size ?? 0, mtimeMs: src?.mtime_ms ?? 0, pendingBytes: 0, newTurns: 0, corrupt: null, head: m.timeline_head, rawSha: m.raw_sha256, hash: createHash('sha256') };
  const append = new AppendBuffer(base.dir);
  const tools = await toolsBase(e.deps, base.dir, m);
  return commit(e, ctx, base, state, createHash('sha256'), tools, append, read, null);
}
