import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StatusSubject } from '../../src/daemon/status-files.js';
import { STALE_MS, StatusFiles } from '../../src/daemon/status-files.js';
import { tempDir } from '../helpers.js';

/** The per-session files the shell status line reads, written into a real temp folder. */

const subject = (over: Partial<StatusSubject> = {}): StatusSubject => ({
  key: '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f',
  harness: 'claude',
  topLevel: true,
  activeMs: Date.now(),
  facts: { level: 'orange', used: 116_000, limit: 200_000, ratio: 0.58, revision: 42, transferReady: true },
  ...over,
});

describe('status-line files', () => {
  it('hold the coloured line, then the plain one, private to the user', async () => {
    const dir = join(tempDir(), 'status');
    expect(await new StatusFiles(dir).update(subject())).toBe(true);
    const file = join(dir, '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f');
    const [coloured, plain, end] = readFileSync(file, 'utf8').split('\n');
    expect(plain).toBe('handoff · ctx 58% orange 116k/200k · rev 42 · ready');
    expect(coloured).toContain('\u001b[38;5;208mctx 58% orange 116k/200k\u001b[0m');
    expect(end).toBe('');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('are rewritten only when the line changes', async () => {
    const dir = join(tempDir(), 'status');
    const files = new StatusFiles(dir);
    await files.update(subject());
    const ino = statSync(join(dir, subject().key as string)).ino;
    expect(await files.update(subject())).toBe(false);
    expect(statSync(join(dir, subject().key as string)).ino).toBe(ino);
    expect(await files.update(subject({ facts: { ...subject().facts, revision: 43 } }))).toBe(true);
  });

  it('are written for live top-level Claude Code sessions with a plain id only', async () => {
    const dir = join(tempDir(), 'status');
    const files = new StatusFiles(dir);
    for (const s of [subject({ harness: 'codex' }), subject({ topLevel: false }), subject({ key: '../escape' }), subject({ key: 'a/b' }), subject({ key: null }), subject({ key: 'x'.repeat(129) }), subject({ activeMs: Date.now() - STALE_MS - 1000 })]) {
      expect(await files.update(s)).toBe(false);
    }
    expect(readdirSync(join(dir, '..'))).not.toContain('escape');
  });

  it('of quiet sessions, and temp files, are swept; a gone session\'s file is removed', async () => {
    const dir = join(tempDir(), 'status');
    const files = new StatusFiles(dir);
    await files.update(subject());
    await files.update(subject({ key: 'old-session' }));
    const old = (Date.now() - STALE_MS - 60_000) / 1000;
    utimesSync(join(dir, 'old-session'), old, old);
    writeFileSync(join(dir, 'x.12345'), 'half');
    expect(await files.sweep()).toBe(2);
    expect(readdirSync(dir)).toEqual([subject().key]);
    await files.remove(subject().key);
    expect(readdirSync(dir)).toEqual([]);
    // Swept, so written again when the session wakes up.
    expect(await files.update(subject({ key: 'old-session' }))).toBe(true);
  });
});
