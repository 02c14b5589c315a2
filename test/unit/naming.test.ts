import { describe, expect, it } from 'vitest';
import { isSafeDirName, sessionDirName, slugify } from '../../src/core/naming.js';

describe('session directory names', () => {
  it.each([
    ['5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f', '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f'],
    ['rollout-2026-02-23T12-54-34-019c', 'rollout-2026-02-23T12-54-34-019c'],
    ['../../etc/passwd', '.._.._etc_passwd'],
    ['..', '_..'],
    ['.', '_.'],
    ['a/b\\c d:e', 'a_b_c_d_e'],
    ['ünïcode', '_n_code'],
  ])('%j → %j', (id, dir) => {
    expect(sessionDirName(id)).toBe(dir);
    expect(isSafeDirName(sessionDirName(id))).toBe(true);
  });

  it('bounds the length of a directory name', () => {
    expect(sessionDirName('x'.repeat(1000))).toHaveLength(200);
  });
});

describe('project slugs', () => {
  it.each([
    ['claude-code-log', 'claude-code-log'],
    ['My App (v2)', 'my-app-v2'],
    ['Café Ünïcode', 'cafe-unicode'],
    ['..', 'unsorted'],
    ['', 'unsorted'],
    ['-Users-dain-workspace-x', 'users-dain-workspace-x'],
  ])('%j → %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });
});
