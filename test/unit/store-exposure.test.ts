import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeExposure } from '../../src/store/permissions.js';
import { tempDir } from '../helpers.js';

/**
 * A store root open to other users is reported with a fix. `chmod -R go-rwx` is the fix only for a
 * folder that holds nothing but the store: given `/`, a home folder or `/dev/null` as the root,
 * following it would break the system, so the fix then is a folder of the store's own.
 */

describe('the fix for a store open to other users', () => {
  it('closes a folder that holds only the store', () => {
    const root = join(tempDir('handoff-exposed-'), 'store');
    mkdirSync(join(root, 'projects'), { recursive: true });
    writeFileSync(join(root, 'INDEX.json'), '[]');
    chmodSync(root, 0o755);
    expect(storeExposure(root)?.fix).toBe(`chmod -R go-rwx ${root}`);
  });

  it('quotes a root with a space, so that the pasted command changes that folder only', () => {
    const root = join(tempDir('handoff-exposed-'), "my store's copy");
    mkdirSync(join(root, 'projects'), { recursive: true });
    writeFileSync(join(root, 'INDEX.json'), '[]');
    chmodSync(root, 0o755);
    expect(storeExposure(root)?.fix).toBe(`chmod -R go-rwx '${root.replace(/'/g, "'\\''")}'`);
  });

  it('never advises chmod -R on a folder that holds other files (a home folder, /)', () => {
    const root = tempDir('handoff-exposed-');
    writeFileSync(join(root, 'notes.txt'), 'mine');
    mkdirSync(join(root, 'projects'));
    chmodSync(root, 0o755);
    const fix = storeExposure(root)?.fix ?? '';
    expect(fix).toMatch(/^give the store a folder of its own/);
    expect(fix).not.toMatch(/chmod/);
  });

  it('never advises chmod -R on a root that is not a folder', () => {
    expect(storeExposure('/dev/null')?.fix ?? '').not.toMatch(/chmod/);
  });
});
