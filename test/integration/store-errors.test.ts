import { execFileSync } from 'node:child_process';
import { appendFile, chmod, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { copyFixture, readLines, runCli, tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * A full disk or a read-only store never loses a turn: the failed build leaves the previous
 * manifest in force, the daemon reports it with the fix, retries, and catches up once the
 * store can be written again.
 */

const isRoot = process.getuid?.() === 0;

function tryMountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) {
    try {
      execFileSync('umount', [m], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
});

async function untilCaughtUp(d: RunningDaemon, id: string, turns: number): Promise<void> {
  await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === id && s.turns === turns && s.state !== 'error'), `${id} to reach ${turns} turns`, 20_000);
}

describe('store write failures', () => {
  const store = tempDir('handoff-small-');
  const mounted = isRoot && tryMountTmpfs(store, '512k');
  if (mounted) mounts.push(store);
  else console.warn('[store-errors] cannot mount a tmpfs here (needs root): the ENOSPC test is skipped');

  // Needs a real small filesystem: skipped (with the warning above) where tmpfs cannot be mounted.
  it.skipIf(!mounted)('reports ENOSPC with the fix, keeps the previous manifest and catches up when space returns', async () => {
    const root = join(store, 'handoffs');
    await mkdir(root);
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    const d = await startDaemon(env, root, ['--watch', watch]);
    try {
      const src = await copyFixture('claude-session.jsonl', watch, 'disk.jsonl');
      await untilCaughtUp(d, 'disk', 15);
      const filler = join(store, 'filler');
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4k', 'count=1024'], { stdio: 'ignore' });
      } catch {
        // dd stops at a full disk: that is the point
      }
      const turn = (n: number): string => `${JSON.stringify({ type: 'user', sessionId: 's', cwd: '/home/dev/uploader', message: { role: 'user', content: `message number ${n} ${'x'.repeat(2000)}` } })}\n`;
      await appendFile(src, turn(1) + turn(2));
      const failing = await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'disk' && s.state === 'error'), 'the write failure to show in status');
      expect(failing.error?.message).toMatch(/ENOSPC/);
      expect(failing.error?.fix).toMatch(/free disk space/);
      expect(failing.turns).toBe(15);
      await rm(filler);
      await untilCaughtUp(d, 'disk', 17);
      const lines = await readLines(join(failing.dir, 'timeline.jsonl'));
      expect(lines).toHaveLength(17);
      expect(new Set(lines.map((l) => (JSON.parse(l) as { seq: number }).seq)).size).toBe(17);
    } finally {
      await d.kill('SIGTERM');
    }
  });

  it.skipIf(!mounted)('never renames a file the disk took only part of into place', async () => {
    const root = join(store, 'partial');
    await mkdir(root);
    const env = testEnv({ HANDOFFS_ROOT: root });
    const work = tempDir('handoff-work-');
    const turn = (n: number): string => `${JSON.stringify({ type: 'user', uuid: `u${n}`, sessionId: 's', cwd: '/home/dev/uploader', message: { role: 'user', content: `request ${n}: ${'please change the report layout '.repeat(20)}` } })}\n`;
    const src = join(work, 'partial.jsonl');
    await appendFile(src, Array.from({ length: 60 }, (_, i) => turn(i)).join(''));
    expect((await runCli(['build', src], { env })).code).toBe(0);
    // The disk is filled but for a few blocks: fewer than the renders take, more than nothing,
    // so a write is taken in part before the next one fails.
    const filler = join(store, 'filler-partial');
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4k'], { stdio: 'ignore' });
    } catch {
      // dd stops at a full disk
    }
    execFileSync('truncate', ['-s', '-24K', filler]);
    await appendFile(src, turn(100));
    const second = await runCli(['build', src], { env });
    await rm(filler);
    const folder = join(root, 'projects', 'uploader');
    const dir = join(folder, (await readdir(folder, { withFileTypes: true })).find((d) => d.isDirectory())?.name ?? '');
    for (const name of ['HANDOFF.llm.json', 'HANDOFF.summary.json', 'manifest.json']) {
      const text = await readFile(join(dir, name), 'utf8');
      expect(() => JSON.parse(text), `${name} after a build that ${second.code === 0 ? 'succeeded' : 'failed'}`).not.toThrow();
    }
    expect(second.code === 0 || /ENOSPC/.test(second.err)).toBe(true);
    // With the space back, the session verifies and catches up.
    expect((await runCli(['build', src], { env })).code).toBe(0);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  // Root ignores file modes, so a read-only folder cannot be simulated for root: skipped there.
  it.skipIf(isRoot)('reports EACCES with the fix and retries until the folder is writable again', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const watch = tempDir('handoff-watch-');
    const d = await startDaemon(env, root, ['--watch', watch]);
    try {
      const src = await copyFixture('claude-session.jsonl', watch, 'perm.jsonl');
      await untilCaughtUp(d, 'perm', 15);
      const dir = (await d.call('status')).sessions.find((s) => s.id === 'perm')?.dir as string;
      await chmod(dir, 0o500);
      await appendFile(src, `${JSON.stringify({ type: 'user', sessionId: 's', message: { role: 'user', content: 'after the lock-down' } })}\n`);
      const failing = await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'perm' && s.state === 'error'), 'the permission failure');
      expect(failing.error?.fix).toMatch(/permissions/);
      await chmod(dir, 0o755);
      await untilCaughtUp(d, 'perm', 16);
    } finally {
      await d.kill('SIGTERM');
    }
  });
});

