import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, tempDir, testEnv } from '../helpers.js';

/** The CLI on a machine out of a resource: said as such, with the fix, never as a bug of handoffd's. */

describe('the CLI under a tiny open-file limit', () => {
  it.skipIf(process.platform === 'win32')('says the limit was reached and how to raise it, not "internal error"', () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    // 32 descriptors: node starts, but cannot open every module a command needs.
    const r = spawnSync('sh', ['-c', `ulimit -n 32 && exec "${process.execPath}" "${CLI}" status`], { env, encoding: 'utf8', timeout: 30_000 });
    const err = r.stderr;
    expect(err, err).toContain('EMFILE');
    expect(err).toContain('fix: this process reached its open-file limit: raise it (`ulimit -n 1024`, or LimitNOFILE= in a service unit)');
    expect(err).not.toContain('internal error');
    expect(err).not.toContain('bug in handoffd');
    expect(r.status).toBe(1);
  });
});
