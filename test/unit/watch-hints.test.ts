import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chokidarOptions, hintOf } from '../../src/watch/options.js';

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
