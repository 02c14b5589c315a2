import { statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chokidarOptions, hintOf } from '../../src/watch/options.js';
import { folderId, scanRoots } from '../../src/watch/scan.js';
import { tempDir } from '../helpers.js';

const folder = join('/home', 'dev', '.claude', 'projects', '-home-dev-app');
const dirStats = { isDirectory: () => true };
const fileStats = { isDirectory: () => false };

describe('the watch thread', () => {
  it('has chokidar watch folders only: a transcript gets no watch of its own', () => {
    const { ignored } = chokidarOptions();
    expect(ignored(folder, dirStats)).toBe(false);
    expect(ignored(join(folder, 's.jsonl'), fileStats)).toBe(true);
    expect(ignored(join(folder, 'notes.txt'), fileStats)).toBe(true);
    // Not stat-ed yet: chokidar asks again with the stats.
    expect(ignored(join(folder, 's.jsonl'))).toBe(false);
  });

  it("turns a folder's raw events about a transcript into hints", () => {
    expect(hintOf('change', 's.jsonl', { watchedPath: folder })).toEqual({ kind: 'change', path: join(folder, 's.jsonl') });
    expect(hintOf('rename', 's.jsonl', { watchedPath: folder })).toEqual({ kind: 'rename', path: join(folder, 's.jsonl') });
  });

  it('ignores events about anything but a transcript, and events that name no file', () => {
    expect(hintOf('change', 'notes.txt', { watchedPath: folder })).toBeNull();
    expect(hintOf('rename', null, { watchedPath: folder })).toBeNull();
    expect(hintOf('change', '', { watchedPath: folder })).toBeNull();
    expect(hintOf('change', 's.jsonl', {})).toBeNull();
  });
});

describe('the store, never read as transcripts', () => {
  it('is left out of a scan by its device and inode too, whatever path reaches it (a bind mount)', async () => {
    const watch = tempDir('handoff-watch-');
    const store = join(watch, 'mnt', 'handoffs');
    await mkdir(join(store, 'projects', 'p', 's'), { recursive: true });
    await writeFile(join(store, 'projects', 'p', 's', 'timeline.jsonl'), '{}\n');
    await mkdir(join(watch, 'proj'), { recursive: true });
    await writeFile(join(watch, 'proj', 'a.jsonl'), '{}\n');
    const all = await scanRoots([watch]);
    expect(all.map((f) => f.path).sort()).toEqual([join(store, 'projects', 'p', 's', 'timeline.jsonl'), join(watch, 'proj', 'a.jsonl')].sort());
    // Named by another path (as a bind mount names it), known by its device and inode.
    const byId = await scanRoots([watch], { paths: ['/elsewhere/handoffs'], ids: [folderId(statSync(store))] });
    expect(byId.map((f) => f.path)).toEqual([join(watch, 'proj', 'a.jsonl')]);
    const ignored = chokidarOptions({ paths: [], ids: [folderId(statSync(store))] }).ignored;
    expect(ignored(store, statSync(store))).toBe(true);
    expect(ignored(join(watch, 'proj'), statSync(join(watch, 'proj')))).toBe(false);
  });
});
