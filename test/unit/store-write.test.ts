import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreWriteError } from '../../src/errors.js';
import { ensureDir, writeAtomic } from '../../src/store/files.js';
import { STRAY_TEMP_RE } from '../../src/store/layout.js';
import { tempDir } from '../helpers.js';

describe('an atomic write of a store file', () => {
  it('replaces the file whole, with mode 0600 in a folder others may read, and leaves no temp file', async () => {
    const dir = tempDir('handoff-write-');
    chmodSync(dir, 0o755);
    const path = join(dir, 'HANDOFF.md');
    writeFileSync(path, 'old text that is longer than the new one\n', { mode: 0o644 });
    await writeAtomic(path, 'new\n');
    await writeAtomic(join(dir, 'manifest.json'), Buffer.from('{}\n'), 0o600, true);
    expect(readFileSync(path, 'utf8')).toBe('new\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).toBe('{}\n');
    expect(readdirSync(dir).sort()).toEqual(['HANDOFF.md', 'manifest.json']);
  });

  it('replaces a link in the file\'s place, leaving what it points to as it was (a store file)', async () => {
    const dir = tempDir('handoff-write-');
    writeFileSync(join(dir, 'real.md'), 'old\n');
    symlinkSync('real.md', join(dir, 'PROJECT.md'));
    await writeAtomic(join(dir, 'PROJECT.md'), 'new\n');
    expect(lstatSync(join(dir, 'PROJECT.md')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'PROJECT.md'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(dir, 'real.md'), 'utf8')).toBe('old\n');
  });

  it('writes through a link when asked to (a file outside the store, as write-file-atomic does)', async () => {
    const dir = tempDir('handoff-write-');
    writeFileSync(join(dir, 'real.md'), 'old\n');
    symlinkSync('real.md', join(dir, 'record.json'));
    await writeAtomic(join(dir, 'record.json'), 'new\n', undefined, true, true);
    expect(lstatSync(join(dir, 'record.json')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real.md'), 'utf8')).toBe('new\n');
  });

  it('fails with a store error naming the path, and leaves nothing behind', async () => {
    const dir = tempDir('handoff-write-');
    writeFileSync(join(dir, 'not-a-folder'), '');
    mkdirSync(join(dir, 'sub'));
    const path = join(dir, 'not-a-folder', 'HANDOFF.md');
    await expect(writeAtomic(path, 'x')).rejects.toThrow(StoreWriteError);
    await expect(writeAtomic(path, 'x')).rejects.toThrow(path);
    expect(readdirSync(dir).sort()).toEqual(['not-a-folder', 'sub']);
  });

  it('names its temp files so that the start-up sweep recognizes one a kill left', () => {
    expect(STRAY_TEMP_RE.test(`HANDOFF.md.${0xffffffff}`)).toBe(true);
    expect(STRAY_TEMP_RE.test('manifest.json.0')).toBe(true);
  });
});

describe('a store folder the file system refuses', () => {
  // A read-only file system needs a mount: root only, and only where mounts are allowed.
  const mountable = ((): string | null => {
    if (process.getuid?.() !== 0) return null;
    const dir = tempDir('handoff-ro-');
    return spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir]).status === 0 ? dir : null;
  })();
  if (mountable === null) console.warn('[store-write] no read-only mount here (not root, or mounts not allowed): the EROFS test is skipped');
  afterAll(() => {
    if (mountable !== null) spawnSync('umount', [mountable]);
  });

  it.skipIf(mountable === null)('says EROFS and its fix for a session folder, not the ENOENT of a recursive mkdir', async () => {
    const err = await ensureDir(join(mountable as string, 'projects', 'p', 's1')).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(StoreWriteError);
    expect((err as StoreWriteError).message).toMatch(/: EROFS \(/);
    expect((err as StoreWriteError).hint).toMatch(/read-only filesystem/);
  });
});
