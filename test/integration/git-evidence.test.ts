import { execFileSync } from 'node:child_process';
import { watch } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BACKFILL_REUSE_MS, discover, GitProbe, readHead } from '../../src/git/evidence.js';
import { tempDir, waitFor } from '../helpers.js';

/** Repository evidence (SPEC §7) from real temporary repositories. */

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

async function repo(): Promise<string> {
  const dir = join(tempDir('handoff-git-'), 'repo');
  await mkdir(join(dir, 'src'), { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
  await writeFile(join(dir, 'README.md'), '# r\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'first');
  return dir;
}

const probe = (): GitProbe => new GitProbe({ enabled: true, timeoutMs: 10_000 });

describe('repository evidence', () => {
  it('records a clean work tree: top level, branch, HEAD, not dirty', async () => {
    const dir = await repo();
    const ev = await probe().capture(join(dir, 'src'));
    expect(ev).toMatchObject({ status: 'ok', top: dir, branch: 'main', head: git(dir, 'rev-parse', 'HEAD'), dirty: false, changed: [], untracked: [] });
  });

  it('records changed and untracked paths and a diff summary when dirty', async () => {
    const dir = await repo();
    await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 2;\n');
    await writeFile(join(dir, 'notes.txt'), 'new\n');
    const ev = await probe().capture(dir);
    expect(ev).toMatchObject({ status: 'ok', dirty: true, changed: ['src/a.ts'], untracked: ['notes.txt'], changed_total: 1, untracked_total: 1 });
    expect(ev.diffstat).toMatch(/src\/a\.ts \| 2 \+-/);
  });

  it('records a detached HEAD as a null branch, never a guess', async () => {
    const dir = await repo();
    git(dir, 'checkout', '-q', '--detach');
    const ev = await probe().capture(dir);
    expect(ev).toMatchObject({ status: 'ok', branch: null, head: git(dir, 'rev-parse', 'HEAD'), dirty: false });
  });

  it('says why when there is no repository or the cwd is gone, with null branch, HEAD and dirty', async () => {
    const plain = tempDir('handoff-plain-');
    const none = await probe().capture(plain);
    expect(none).toMatchObject({ status: 'not-a-repo', branch: null, head: null, dirty: null });
    expect(none.reason).toMatch(/is not inside a git work tree/);
    const dir = await repo();
    const p = probe();
    expect((await p.capture(dir)).status).toBe('ok');
    await rm(dir, { recursive: true, force: true });
    const gone = await p.capture(dir);
    expect(gone).toMatchObject({ status: 'cwd-gone', branch: null, head: null, dirty: null });
    expect(gone.reason).toMatch(/does not exist on this machine/);
    // A published transcript's redacted folder is said to be one, not a folder that went away.
    const redacted = await p.capture('/redacted/path/59b923df4d');
    expect(redacted).toMatchObject({ status: 'cwd-gone' });
    expect(redacted.reason).toBe("the recorded cwd /redacted/path/59b923df4d is a placeholder (the transcript's publisher redacted it)");
    expect(await probe().capture(null)).toMatchObject({ status: 'no-cwd', dirty: null });
  });

  it('reuses a capture while HEAD and the index are unchanged, and notices a commit', async () => {
    const dir = await repo();
    const p = probe();
    const first = await p.capture(dir);
    expect(await p.capture(dir)).toBe(first);
    await writeFile(join(dir, 'b.ts'), 'b\n');
    git(dir, 'add', 'b.ts');
    git(dir, 'commit', '-qm', 'second');
    const after = await p.capture(dir);
    expect(after.head).not.toBe(first.head);
  });

  it('never takes .git/index.lock, even where plain git status would refresh the index', async () => {
    const dir = await repo();
    const seen: string[] = [];
    const w = watch(join(dir, '.git'), (_e, name) => {
      if (name) seen.push(String(name));
    });
    try {
      // Stale stat data in the index: git status wants to write the index back.
      const stale = async (): Promise<void> => {
        const t = new Date(Date.now() + 5000);
        await utimes(join(dir, 'src', 'a.ts'), t, t);
        await utimes(join(dir, 'README.md'), t, t);
      };
      await stale();
      git(dir, 'status', '--porcelain');
      await new Promise((r) => setTimeout(r, 200));
      // Shows this test can fail: git on its own does take the lock here.
      expect(seen).toContain('index.lock');
      seen.length = 0;
      await stale();
      const ev = await probe().capture(dir);
      expect(ev.status).toBe('ok');
      await new Promise((r) => setTimeout(r, 200));
      expect(seen).not.toContain('index.lock');
    } finally {
      w.close();
    }
  });

  it('reads the branch and HEAD from the files as git reports them: loose, packed, detached, unborn, linked work tree', async () => {
    const dir = await repo();
    const gitDir = join(dir, '.git');
    const asGit = (cwd: string): { branch: string | null; head: string | null } => {
      let branch: string | null = null;
      let head: string | null = null;
      try {
        branch = git(cwd, 'symbolic-ref', '-q', '--short', 'HEAD');
      } catch {
        branch = null;
      }
      try {
        head = git(cwd, 'rev-parse', '--verify', '-q', 'HEAD');
      } catch {
        head = null;
      }
      return { branch, head };
    };
    git(dir, 'checkout', '-q', '-b', 'feature/deep');
    expect(await readHead(gitDir)).toEqual(asGit(dir));
    git(dir, 'pack-refs', '--all');
    expect(await readHead(gitDir)).toEqual(asGit(dir));
    git(dir, 'checkout', '-q', '--detach');
    expect(await readHead(gitDir)).toEqual({ branch: null, head: git(dir, 'rev-parse', 'HEAD') });
    git(dir, 'checkout', '-q', '--orphan', 'fresh');
    expect(await readHead(gitDir)).toEqual({ branch: 'fresh', head: null });
    expect(asGit(dir)).toEqual({ branch: 'fresh', head: null });
    const wt = join(tempDir('handoff-wt-'), 'wt');
    git(dir, 'worktree', 'add', '-q', '-b', 'side', wt, 'main');
    const wtGitDir = git(wt, 'rev-parse', '--absolute-git-dir');
    expect(await readHead(wtGitDir)).toEqual(asGit(wt));
    expect((await readHead(wtGitDir))?.branch).toBe('side');
    // A symbolic ref to a symbolic ref is not decided by the files: git is asked.
    await writeFile(join(gitDir, 'HEAD'), 'ref: refs/heads/alias\n');
    await writeFile(join(gitDir, 'refs', 'heads', 'alias'), 'ref: refs/heads/main\n');
    expect(await readHead(gitDir)).toBeNull();
  });

  it('shares a capture among folders of one repository, each with its own cwd', async () => {
    const dir = await repo();
    const p = probe();
    const a = await p.capture(dir);
    const b = await p.capture(join(dir, 'src'));
    expect(b).toEqual({ ...a, cwd: join(dir, 'src') });
    expect(b.captured_at).toBe(a.captured_at);
  });

  it('reuses a capture for 15 s, and for a backfill up to BACKFILL_REUSE_MS, while HEAD and the index are unchanged', async () => {
    const dir = await repo();
    let t = Date.parse('2026-06-01T10:00:00.000Z');
    const p = new GitProbe({ enabled: true, timeoutMs: 10_000 }, () => new Date(t));
    const first = await p.capture(dir);
    t += 60_000;
    const backfill = await p.capture(dir, BACKFILL_REUSE_MS);
    expect(backfill).toBe(first);
    const live = await p.capture(dir);
    expect(live).not.toBe(first);
    expect(live.captured_at).toBe('2026-06-01T10:01:00.000Z');
    t += BACKFILL_REUSE_MS;
    expect((await p.capture(dir, BACKFILL_REUSE_MS)).captured_at).toBe('2026-06-01T10:06:00.000Z');
  });

  it('finds a folder\'s work tree and git dir from its files where git rev-parse would, and leaves the odd cases to git', async () => {
    const dir = await repo();
    const asGit = (cwd: string): { top: string; gitDir: string } => {
      const [top, gitDir] = git(cwd, 'rev-parse', '--show-toplevel', '--absolute-git-dir').split('\n');
      return { top: top as string, gitDir: gitDir as string };
    };
    expect(await discover(dir)).toEqual(asGit(dir));
    expect(await discover(join(dir, 'src'))).toEqual(asGit(join(dir, 'src')));
    const wt = join(tempDir('handoff-wt-'), 'wt');
    git(dir, 'worktree', 'add', '-q', '-b', 'side', wt, 'main');
    await mkdir(join(wt, 'deep', 'er'), { recursive: true });
    expect(await discover(join(wt, 'deep', 'er'))).toEqual(asGit(join(wt, 'deep', 'er')));
    // A path through a symbolic link: git names the real one.
    const link = join(tempDir('handoff-link-'), 'via');
    await symlink(join(dir, 'src'), link);
    expect(await discover(link)).toEqual(asGit(link));
    expect(await discover(tempDir('handoff-plain-'))).toBeNull();
    expect(await discover(join(dir, '.git', 'refs'))).toBe('ask-git');
  });

  it("runs no command a repository's own config names: fsmonitor, clean filters, external diff, textconv", async () => {
    const dir = await repo();
    const marks = tempDir('handoff-pwned-');
    const mark = (what: string): string => `touch ${join(marks, what)}; false`;
    git(dir, 'config', 'core.fsmonitor', mark('fsmonitor'));
    git(dir, 'config', 'filter.evil.clean', mark('clean'));
    git(dir, 'config', 'filter.evil.required', 'true');
    git(dir, 'config', 'diff.external', mark('external'));
    git(dir, 'config', 'diff.evil.textconv', mark('textconv'));
    await writeFile(join(dir, '.gitattributes'), '*.ts filter=evil diff=evil\n');
    // A changed file whose stat no longer matches the index: git must read it, through the filter.
    await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 3;\n');
    const ev = await probe().capture(dir);
    expect(ev).toMatchObject({ status: 'ok', dirty: true });
    expect(ev.changed).toContain('src/a.ts');
    expect(ev.diffstat).toMatch(/src\/a\.ts/);
    expect((await readdir(marks)).sort()).toEqual([]);
    // A filter added to the config later is emptied too.
    git(dir, 'config', 'filter.later.clean', mark('later'));
    await writeFile(join(dir, '.gitattributes'), '*.ts filter=later\n');
    await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 4;\n');
    await probe().capture(dir);
    expect(await readdir(marks)).toEqual([]);
  });

  it("is not asked at all where a filter's name cannot be passed back to git (not UTF-8), and says why", async () => {
    const dir = await repo();
    const marks = tempDir('handoff-pwned-');
    await writeFile(join(dir, '.gitattributes'), Buffer.concat([Buffer.from('*.ts filter='), Buffer.from([0xff]), Buffer.from('\n')]));
    await appendFile(join(dir, '.git', 'config'), Buffer.concat([Buffer.from('[filter "'), Buffer.from([0xff]), Buffer.from(`"]\n\tclean = touch ${join(marks, 'clean')}; cat\n`)]));
    await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 5;\n');
    const ev = await probe().capture(dir);
    expect(ev).toMatchObject({ status: 'error', dirty: null });
    expect(ev.reason).toMatch(/defines a filter git cannot be told to leave out/);
    expect(await readdir(marks)).toEqual([]);
  });

  it("runs no filter a work tree's own config (config.worktree) defines", async () => {
    const dir = await repo();
    const marks = tempDir('handoff-pwned-');
    git(dir, 'config', 'extensions.worktreeConfig', 'true');
    git(dir, 'config', '--worktree', 'filter.wt.clean', `touch ${join(marks, 'worktree')}; cat`);
    await writeFile(join(dir, '.gitattributes'), '*.ts filter=wt\n');
    await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 6;\n');
    const ev = await probe().capture(dir);
    expect(ev.status).toBe('ok');
    expect(await readdir(marks)).toEqual([]);
  });

  it('asks a repository git failed in no more for a minute: its sessions do not each wait out the timeout', async () => {
    const dir = await repo();
    const fifo = join(dir, '.git', 'hang');
    execFileSync('mkfifo', [fifo]);
    git(dir, 'config', 'include.path', fifo);
    const p = new GitProbe({ enabled: true, timeoutMs: 300 });
    const first = await p.capture(dir);
    expect(first.status).toMatch(/^(error|timeout)$/);
    // Mended, but still within the minute: the failure stands, not asked again.
    await rm(fifo);
    git(dir, 'config', '--unset', 'include.path');
    const again = await p.capture(dir);
    expect(again.status).toBe(first.status);
    expect(again.captured_at).toBe(first.captured_at);
    expect((await probe().capture(dir)).status).toBe('ok');
  });

  it('kills what a timed-out git started too (a version manager\'s shim that runs git as its child)', async () => {
    const dir = await repo();
    const bin = tempDir('handoff-shim-');
    const pidFile = join(bin, 'child.pid');
    await writeFile(join(bin, 'git'), `#!/bin/sh\nsleep 300 &\necho $! > '${pidFile}'\nwait\n`, { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved ?? ''}`;
    let ev;
    try {
      ev = await new GitProbe({ enabled: true, timeoutMs: 500 }).capture(dir);
    } finally {
      process.env.PATH = saved;
    }
    expect(ev.status).toBe('timeout');
    const child = Number((await readFile(pidFile, 'utf8')).trim());
    await waitFor(() => !alive(child), 'the shim\'s child to be killed with it', 5000);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
