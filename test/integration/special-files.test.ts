import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DigestCache } from '../../src/engine/digests.js';
import { hashPrefix } from '../../src/store/files.js';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { runCli, tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * A path that is a FIFO or a device when it is opened: opening a FIFO for reading waits for a
 * writer (forever, on the thread that opened it), and /dev/zero never ends. A file checked by a
 * stat can be swapped for one before it is opened. Nothing may hang or grow without bound on it.
 */

const running: RunningDaemon[] = [];
afterEach(async (ctx) => {
  for (const d of running.splice(0)) {
    if (ctx.task.result?.state === 'fail') console.log(`daemon log (pid ${d.child.pid}):\n${d.log()}`);
    if (d.child.exitCode === null && d.child.signalCode === null) await d.kill('SIGKILL');
  }
});

const userLine = (text: string): string => `${JSON.stringify({ type: 'user', sessionId: 's', cwd: '/nonexistent/special', message: { role: 'user', content: text } })}\n`;

describe('a config file that is a FIFO or a device', () => {
  it.each(['fifo', 'zero'])('is refused at once, naming the file and the fix (%s)', async (kind) => {
    const dir = tempDir('handoff-evil-');
    const file = join(dir, 'handoff.config.json');
    if (kind === 'fifo') execFileSync('mkfifo', [file]);
    else await symlink('/dev/zero', file);
    const t0 = Date.now();
    const r = await runCli(['config'], { env: testEnv({ HANDOFFS_ROOT: join(dir, 'store') }), cwd: dir });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(`${file}: cannot read config: not a regular file`);
    expect(r.err).toMatch(/fix: make it a JSON file of your options/);
  });

  it('given to a running daemon by SIGHUP, leaves it answering with the configuration it had', async () => {
    const root = tempDir('handoff-store-');
    const watch = tempDir('handoff-watch-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const dir = join(env.XDG_CONFIG_HOME as string, 'handoff');
    const file = join(dir, 'handoff.config.json');
    await mkdir(dir, { recursive: true });
    await writeFile(file, '{}');
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    await rename(file, join(dir, 'was.json'));
    execFileSync('mkfifo', [file]);
    d.child.kill('SIGHUP');
    await waitFor(() => /cannot read config: not a regular file/.test(d.log()), 'the reload to fail');
    await writeFile(join(watch, 'after.jsonl'), userLine('a session after the failed reload'));
    await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'after' && s.turns === 1), 'the daemon to build on');
  });
});

describe('a transcript swapped for a FIFO while it is read', () => {
  it('is not opened by the running digest or the prefix hash: both answer at once', async () => {
    const dir = tempDir('handoff-work-');
    const path = join(dir, 'live.jsonl');
    await writeFile(path, userLine('first'));
    const digests = new DigestCache();
    const h = await hashPrefix(path, 10);
    digests.remember('k', h, 10, h.copy().digest('hex'), path);
    await appendFile(path, userLine('second'));
    await rename(path, join(dir, 'aside.jsonl'));
    execFileSync('mkfifo', [path]);
    await expect(digests.resume('k', path, 10, h.copy().digest('hex'))).rejects.toThrow(/not a regular file/);
    await expect(hashPrefix(path, 10)).rejects.toThrow(/not a regular file/);
  });
});
