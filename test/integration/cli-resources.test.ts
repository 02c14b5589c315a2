import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNPRIVILEGED } from '../daemon-harness.js';
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

describe('a store whose files another user took, or a file where its folder should be', () => {
  it('says which path and how to fix it when `.handoffd` is a plain file, and read-only commands still read the store', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    writeFileSync(join(root, '.handoffd'), 'left by a script\n');
    const d = spawnSync(process.execPath, [CLI, 'daemon', '--watch', tempDir('handoff-watch-')], { env, encoding: 'utf8', timeout: 30_000 });
    expect(d.stderr).toContain(`fix: a file stands where a folder is expected at ${join(root, '.handoffd')}: move that file aside`);
    expect(d.stderr).not.toContain('internal error');
    expect(d.status).toBe(1);
    // No daemon can listen under a file: `list` reads the store itself (none built yet: exit 4).
    const l = spawnSync(process.execPath, [CLI, 'list'], { env, encoding: 'utf8', timeout: 30_000 });
    expect(l.stderr).toContain('no handoffs yet');
    expect(l.status).toBe(4);
  });

  it.skipIf(UNPRIVILEGED === null || process.platform === 'win32')('says so when the daemon may not read INDEX.json (a `sudo handoff build` made it root-only)', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    writeFileSync(join(root, 'INDEX.json'), '[]\n', { mode: 0o000 });
    const d = spawnSync((UNPRIVILEGED as readonly string[])[0] ?? process.execPath, [...(UNPRIVILEGED as readonly string[]).slice(1), process.execPath, CLI, 'daemon', '--watch', tempDir('handoff-watch-')], { env, encoding: 'utf8', timeout: 30_000 });
    expect(d.stderr).toContain('EACCES');
    expect(d.stderr).toContain(`fix: this user may not use ${join(root, 'INDEX.json')}:`);
    expect(d.stderr).toContain('sudo chown -R "$(id -un)"');
    expect(d.stderr).not.toContain('internal error');
    expect(d.status).toBe(1);
  });
});
