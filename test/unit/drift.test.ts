import { describe, expect, it } from 'vitest';
import { compareGit } from '../../src/core/drift.js';
import type { GitEvidence } from '../../src/core/evidence.js';
import { gitUnavailable } from '../../src/core/evidence.js';

const ok = (over: Partial<GitEvidence> = {}): GitEvidence => ({
  status: 'ok',
  reason: null,
  cwd: '/w/app',
  top: '/w/app',
  branch: 'main',
  head: 'a'.repeat(40),
  dirty: false,
  changed: [],
  untracked: [],
  changed_total: 0,
  untracked_total: 0,
  diffstat: null,
  captured_at: '2026-03-01T09:00:00.000Z',
  ...over,
});
const notRepo = gitUnavailable('not-a-repo', '/w/app is not inside a git work tree', '/w/app', null);
const gone = gitUnavailable('cwd-gone', 'the recorded cwd /w/app does not exist on this machine', '/w/app', null);
const timeout = gitUnavailable('timeout', 'git status timed out after 5000 ms', '/w/app', null);
const noCwd = gitUnavailable('no-cwd', 'the transcript records no working directory', null, null);

describe('repository drift', () => {
  it.each([
    ['nothing moved', ok(), ok(), 'none', []],
    ['a dirty tree still dirty with other files', ok({ dirty: true, changed_total: 1 }), ok({ dirty: true, changed_total: 5, untracked_total: 2 }), 'none', []],
    ['another branch', ok(), ok({ branch: 'feature' }), 'drift', ['branch']],
    ['a detached HEAD', ok(), ok({ branch: null }), 'drift', ['branch']],
    ['a new commit', ok(), ok({ head: 'b'.repeat(40) }), 'drift', ['head']],
    ['clean turned dirty', ok(), ok({ dirty: true, untracked_total: 1 }), 'drift', ['dirty']],
    ['dirty turned clean', ok({ dirty: true, changed_total: 2 }), ok(), 'drift', ['dirty']],
    ['another repository', ok(), ok({ top: '/w/other' }), 'drift', ['repository']],
    ['no repository any more', ok(), notRepo, 'drift', ['repository']],
    ['a repository where there was none', notRepo, ok(), 'drift', ['repository']],
    ['the folder gone', ok(), gone, 'drift', ['cwd']],
    ['no repository, then or now', notRepo, notRepo, 'none', []],
    ['git unusable now', ok(), timeout, 'unknown', []],
    ['nothing recorded to compare', noCwd, ok(), 'unknown', []],
  ] as const)('%s → %s', (_name, recorded, now, status, fields) => {
    const r = compareGit(recorded, now);
    expect(r.status).toBe(status);
    expect(r.items.map((i) => i.field)).toEqual(fields);
    expect(r.summary.length).toBeGreaterThan(10);
  });

  it('names what each side said', () => {
    const r = compareGit(ok({ dirty: false }), ok({ branch: null, dirty: true, changed_total: 1, untracked_total: 2 }));
    expect(r.items).toEqual([
      { field: 'branch', recorded: 'main', now: 'detached HEAD' },
      { field: 'dirty', recorded: 'clean', now: 'dirty (1 changed, 2 untracked)' },
    ]);
  });
});
