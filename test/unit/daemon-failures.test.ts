import { describe, expect, it } from 'vitest';
import { describeFailure, evictErrors } from '../../src/daemon/failures.js';

describe('a transcript whose read was denied between the stat and the open', () => {
  it('is unreadable, with the fix, not a bug in handoffd', () => {
    const e = Object.assign(new Error("EACCES: permission denied, open '/t/a.jsonl'"), { code: 'EACCES', path: '/t/a.jsonl' });
    expect(describeFailure(e, '/t/a.jsonl', true)).toMatchObject({ state: 'unreadable', code: 'HANDOFF_ERR_SOURCE', fix: 'let this user read it (`chmod u+r /t/a.jsonl`); it is read as soon as it can be' });
    // Denied elsewhere (the store, say): not the transcript's state, and no bug either: a mode to fix.
    const other = Object.assign(new Error("EACCES: permission denied, scandir '/store/projects'"), { code: 'EACCES', path: '/store/projects', syscall: 'scandir' });
    expect(describeFailure(other, '/t/a.jsonl', true)).toMatchObject({
      state: 'error',
      code: 'HANDOFF_ERR_PERMISSION',
      message: '/store/projects: permission denied (scandir) while building /t/a.jsonl',
      fix: expect.stringContaining("let the daemon's user read and write it (`ls -ld /store/projects`"),
    });
  });
});

describe('the errors status keeps', () => {
  const entry = (path: string, resolved = false) => ({ path, resolved_at: resolved ? '2026-12-03T10:00:00Z' : null });

  it('gives up the oldest resolved first, then the oldest still failing, never one it is told to keep', () => {
    const list = [entry('/folder'), entry('/a'), entry('/b', true), entry('/c'), entry('/d', true)];
    const gone = evictErrors(list, 2, (x) => x.path === '/folder');
    // Both resolved go first, then the oldest still failing but the folder kept.
    expect(list.map((x) => x.path)).toEqual(['/folder', '/c']);
    // Only those still failing are returned: they are what status can no longer show.
    expect(gone.map((x) => x.path)).toEqual(['/a']);
  });

  it('gives up nothing within its bound', () => {
    const list = [entry('/a'), entry('/b')];
    expect(evictErrors(list, 50, () => false)).toEqual([]);
    expect(list).toHaveLength(2);
  });
});
