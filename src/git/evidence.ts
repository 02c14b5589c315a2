import { spawn } from 'node:child_process';
import { lstat, realpath, stat } from 'node:fs/promises';
import { readSmallFile } from '../store/files.js';
import { dirname, join, resolve as resolvePath, sep } from 'node:path';
import type { GitEvidence } from '../core/evidence.js';
import { GIT_LIST_LIMIT, gitUnavailable } from '../core/evidence.js';
import { headEnd } from '../core/cut.js';

/**
 * Repository evidence (SPEC §7), captured in the session's recorded cwd at build time. git runs
 * with GIT_OPTIONAL_LOCKS=0 (never taking the index lock an agent may need), no pager, no
 * prompt, a timeout, one command at a time. A capture belongs to a repository (its top level),
 * so sessions in different folders of one repository share it; it is reused while HEAD and the
 * index are unchanged and it is younger than REUSE_MAX_AGE_MS (working-tree edits do not touch the
 * index). The branch and HEAD are read from the repository's files, as git itself stores them;
 * git is asked only where those files do not decide (a symbolic ref to a symbolic ref, a ref
 * backend other than files): a backfill of many sessions pays two git processes per repository,
 * not four per session.
 */

const DIFFSTAT_MAX_CHARS = 4000;
const REUSE_MAX_AGE_MS = 15_000;
/**
 * A backfill builds sessions that are not live: what the repository looks like now is what
 * their handoffs can say (with the time it was captured), and a capture a few minutes old says
 * it as well, while HEAD and the index are unchanged. A backfill of hundreds of sessions over a
 * few dozen repositories then runs git a few times per repository, not per session.
 */
export const BACKFILL_REUSE_MS = 300_000;
const MAX_BUFFER = 8 << 20;

export interface GitOptions {
  enabled: boolean;
  timeoutMs: number;
}

interface Run {
  ok: boolean;
  stdout: string;
  code: number | string | null;
  timedOut: boolean;
  missing: boolean;
}

/**
 * What a repository's own config may not make git run: git reads `.git/config`, and a repository
 * that came from elsewhere (an archive, another user's folder) can name a command there that
 * `git status` and `git diff` run — a file-system monitor hook, a diff program, a text
 * conversion. The evidence is asked for in folders a transcript names, so none of it runs: no
 * fsmonitor, no external diff or textconv (diffArgs), no recursion into submodules (each with a
 * config of its own), and the clean filters the repository's own config defines are emptied
 * (filterArgs). The user's global and system config stay in force (git-lfs's filter is theirs).
 */
// `protocol.allow=never`: a partial clone's `git diff` fetches a missing blob from its promisor
// remote, running the repository's `core.sshCommand` or `uploadpack`; no transport is allowed.
const SAFE_CONFIG = ['-c', 'core.fsmonitor=false', '-c', 'protocol.allow=never'];
/** More filter drivers than this in a repository's own config, and its status is not asked (each costs four arguments). */
const MAX_FILTERS = 64;
/** A repository's config read as text at most this long (one larger is asked about instead). */
const CONFIG_BYTES = 4 << 20;

/**
 * Runs git in a process group of its own (its own session, without a terminal): at the timeout
 * the whole group is killed, so nothing git started (a helper, a hook, a hung read of what a
 * config names) outlives it.
 */
function git(args: readonly string[], cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    const chunks: Buffer[] = [];
    let bytes = 0;
    const child = spawn('git', ['--no-pager', '--no-optional-locks', '-c', 'core.quotepath=off', '-c', 'color.ui=false', ...SAFE_CONFIG, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
      windowsHide: true,
      detached: process.platform !== 'win32',
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat', PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    });
    const done = (r: Omit<Run, 'stdout'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, stdout: Buffer.concat(chunks).toString('utf8') });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    timer.unref();
    child.stdout.on('data', (d: Buffer) => {
      bytes += d.length;
      if (bytes > MAX_BUFFER) {
        killGroup(child.pid);
        return done({ ok: false, code: 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER', timedOut: false, missing: false });
      }
      chunks.push(d);
    });
    child.once('error', (e: NodeJS.ErrnoException) => done({ ok: false, code: e.code ?? null, timedOut: false, missing: e.code === 'ENOENT' }));
    child.once('close', (code) => done(code === 0 && !timedOut ? { ok: true, code: 0, timedOut: false, missing: false } : { ok: false, code: code ?? null, timedOut, missing: false }));
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Parses `git status --porcelain=v1 -z`. */
export function parsePorcelain(out: string): { changed: string[]; untracked: string[] } {
  const changed: string[] = [];
  const untracked: string[] = [];
  const parts = out.split('\0');
  for (let i = 0; i < parts.length; i += 1) {
    const entry = parts[i];
    if (!entry || entry.length < 4) continue;
    const xy = entry.slice(0, 2);
    const path = entry.slice(3);
    if (xy === '??') untracked.push(path);
    else if (xy !== '!!') {
      changed.push(path);
      if (xy[0] === 'R' || xy[0] === 'C') i += 1; // the rename source follows
    }
  }
  return { changed, untracked };
}

interface Cached {
  key: string;
  at: number;
  evidence: GitEvidence;
}

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * What `git symbolic-ref --short HEAD` and `git rev-parse --verify HEAD` would say, read from the
 * files of the files ref backend: HEAD, the ref it names (in the git dir, then in the common dir
 * of a linked work tree), then packed-refs. Null where the files do not decide (a ref backend
 * other than files, a symbolic ref to a symbolic ref, a ref outside refs/heads, anything odd):
 * the caller asks git then. An unborn branch (no ref anywhere) has no HEAD, as git says.
 */
export async function readHead(gitDir: string): Promise<{ branch: string | null; head: string | null } | null> {
  const text = (path: string): Promise<string | null> => readSmallFile(path).catch(() => null);
  const raw = await text(join(gitDir, 'HEAD'));
  if (raw === null) return null;
  const head = raw.trim();
  if (SHA.test(head)) return { branch: null, head };
  const m = /^ref: (refs\/heads\/[^\s]+)$/.exec(head);
  if (!m?.[1] || m[1].includes('..')) return null;
  const ref = m[1];
  const common = (await text(join(gitDir, 'commondir')))?.trim();
  const commonDir = common ? resolvePath(gitDir, common) : gitDir;
  if ((await text(join(commonDir, 'reftable', 'tables.list'))) !== null) return null;
  const branch = ref.slice('refs/heads/'.length);
  for (const dir of commonDir === gitDir ? [gitDir] : [gitDir, commonDir]) {
    const loose = (await text(join(dir, ref)))?.trim();
    if (loose === undefined) continue;
    return SHA.test(loose) ? { branch, head: loose } : null;
  }
  const packed = await text(join(commonDir, 'packed-refs'));
  if (packed !== null) {
    for (const line of packed.split('\n')) {
      const sp = line.indexOf(' ');
      if (sp > 0 && line.slice(sp + 1).trimEnd() === ref) {
        const sha = line.slice(0, sp);
        return SHA.test(sha) ? { branch, head: sha } : null;
      }
    }
  }
  return { branch, head: null };
}

/** Variables that change how git finds a repository: with any of them set, git is asked. */
const DISCOVERY_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_CEILING_DIRECTORIES', 'GIT_DISCOVERY_ACROSS_FILESYSTEM', 'GIT_COMMON_DIR'];

/**
 * The work tree and git dir of a folder, found as git discovers them: the first `.git` from the
 * folder (its real path) up — a folder holding HEAD, or a file `gitdir: <path>` (a linked work
 * tree, a submodule). Null when there is none up to the root; 'ask-git' where the files do not
 * decide (a discovery variable is set, a `.git` of another shape). Running no process, it saves
 * one `git rev-parse` per folder.
 */
export async function discover(cwd: string): Promise<{ top: string; gitDir: string } | null | 'ask-git'> {
  if (DISCOVERY_ENV.some((k) => process.env[k] !== undefined)) return 'ask-git';
  let dir: string;
  try {
    dir = await realpath(cwd);
  } catch {
    return 'ask-git';
  }
  const start = dir;
  for (;;) {
    const dotGit = join(dir, '.git');
    const st = await lstat(dotGit).catch(() => null);
    if (st?.isDirectory()) {
      // A folder inside the git dir itself is not in a work tree: git says so.
      if (start === dotGit || start.startsWith(`${dotGit}${sep}`)) return 'ask-git';
      return (await stat(join(dotGit, 'HEAD')).catch(() => null))?.isFile() === true ? { top: dir, gitDir: dotGit } : 'ask-git';
    }
    if (st?.isFile()) {
      const m = /^gitdir: (.+)$/m.exec(await readSmallFile(dotGit).catch(() => ''));
      if (!m?.[1]) return 'ask-git';
      const gitDir = await realpath(resolvePath(dir, m[1].trim())).catch(() => null);
      return gitDir === null ? 'ask-git' : { top: dir, gitDir };
    }
    if (st !== null) return 'ask-git';
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** A folder found not to be a repository is not asked again for this long. */
const NOT_A_REPO_TTL_MS = 60_000;
/** A repository git timed out in or refused is not asked again for this long. */
const FAILED_TTL_MS = 60_000;

export class GitProbe {
  private readonly cache = new Map<string, Cached>();
  private readonly gitDirs = new Map<string, { top: string; gitDir: string }>();
  private readonly notRepos = new Map<string, number>();
  private readonly filters = new Map<string, string[]>();
  private readonly failed = new Map<string, { at: number; evidence: GitEvidence }>();

  constructor(
    private readonly opts: GitOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Identity of HEAD and the index, read from files without running git. */
  private async stateKey(gitDir: string): Promise<string | null> {
    try {
      const head = (await readSmallFile(join(gitDir, 'HEAD'))).trim();
      let ref = '';
      const m = /^ref: (.+)$/.exec(head);
      if (m?.[1]) {
        const refStat = await stat(join(gitDir, m[1])).catch(() => null);
        const packed = await stat(join(gitDir, 'packed-refs')).catch(() => null);
        ref = `${refStat?.mtimeMs ?? 0}:${refStat?.size ?? 0}:${packed?.mtimeMs ?? 0}`;
      }
      const idx = await stat(join(gitDir, 'index')).catch(() => null);
      return `${head}|${ref}|${idx?.mtimeMs ?? 0}:${idx?.size ?? 0}`;
    } catch {
      return null;
    }
  }

  /**
   * `reuseMs` bounds the age of a capture that is reused (REUSE_MAX_AGE_MS unless given): a
   * backfill of sessions that ended long ago may reuse one for longer (BACKFILL_REUSE_MS).
   */
  async capture(cwd: string | null, reuseMs = REUSE_MAX_AGE_MS): Promise<GitEvidence> {
    const at = this.now().toISOString();
    if (!this.opts.enabled) return gitUnavailable('disabled', 'git evidence is disabled in config (git.enabled = false)', cwd, at);
    if (cwd === null) return gitUnavailable('no-cwd', 'the transcript records no working directory', null, at);
    try {
      if (!(await stat(cwd)).isDirectory()) return gitUnavailable('cwd-gone', `the recorded cwd ${cwd} is not a folder`, cwd, at);
    } catch {
      // A transcript may come from another machine (or be published with its paths redacted): the
      // folder is not here, which says nothing of whether it ever was.
      const placeholder = /^\/redacted(?:\/|$)|\[REDACTED/i.test(cwd);
      return gitUnavailable('cwd-gone', placeholder ? `the recorded cwd ${cwd} is a placeholder (the transcript's publisher redacted it)` : `the recorded cwd ${cwd} does not exist on this machine`, cwd, at);
    }
    const loc = await this.locate(cwd);
    if (loc === 'git-missing') return gitUnavailable('git-missing', 'git is not installed or not on PATH', cwd, at);
    if (loc === 'timeout') return gitUnavailable('timeout', `git rev-parse timed out after ${this.opts.timeoutMs} ms`, cwd, at);
    if (loc === 'not-a-repo') return gitUnavailable('not-a-repo', `${cwd} is not inside a git work tree`, cwd, at);
    const key = await this.stateKey(loc.gitDir);
    const hit = this.cache.get(loc.top);
    if (hit && key !== null && hit.key === key && this.now().getTime() - hit.at < reuseMs) return hit.evidence.cwd === cwd ? hit.evidence : { ...hit.evidence, cwd };
    // A repository git timed out in, or refused, is not asked again for a while: each build of its
    // sessions would wait out the timeout again, and every other session's refresh behind it.
    const failed = this.failed.get(loc.top);
    // Said as it was found, at the time it was (`captured_at`): git was not run again.
    if (failed !== undefined && this.now().getTime() - failed.at < FAILED_TTL_MS) return { ...failed.evidence, cwd };
    const ev = await this.run(cwd, loc, at);
    if (key !== null && ev.status === 'ok') this.cache.set(loc.top, { key, at: this.now().getTime(), evidence: ev });
    if (ev.status === 'timeout' || ev.status === 'error') {
      if (this.failed.size >= 256) this.failed.clear();
      this.failed.set(loc.top, { at: this.now().getTime(), evidence: ev });
    } else this.failed.delete(loc.top);
    return ev;
  }

  /** Branch and HEAD from the repository's files, or from git where the files do not decide. */
  private async headOf(cwd: string, gitDir: string): Promise<{ branch: string | null; head: string | null }> {
    const read = await readHead(gitDir);
    if (read !== null) return read;
    const t = this.opts.timeoutMs;
    const branch = await git(['symbolic-ref', '-q', '--short', 'HEAD'], cwd, t);
    const head = await git(['rev-parse', '--verify', '-q', 'HEAD'], cwd, t);
    return { branch: branch.ok ? branch.stdout.trim() : null, head: head.ok ? head.stdout.trim() : null };
  }

  private async run(cwd: string, loc: { top: string; gitDir: string }, at: string): Promise<GitEvidence> {
    const t = this.opts.timeoutMs;
    const top = loc.top;
    const { branch, head } = await this.headOf(cwd, loc.gitDir);
    const filters = await this.filterArgs(cwd, loc.gitDir);
    if (filters === null) return gitUnavailable('error', "the repository's own config defines a filter git cannot be told to leave out (its name is not UTF-8, holds `=`, or there are hundreds): git is not run there", cwd, at);
    const status = await git([...filters, 'status', '--porcelain=v1', '-z', '--untracked-files=normal', '--ignore-submodules=all'], cwd, t);
    if (status.missing) return gitUnavailable('git-missing', 'git is not installed or not on PATH', cwd, at);
    if (status.timedOut) return gitUnavailable('timeout', `git status timed out after ${t} ms`, cwd, at);
    if (!status.ok) return gitUnavailable('error', `git status failed (${String(status.code)})`, cwd, at);
    const { changed, untracked } = parsePorcelain(status.stdout);
    let diffstat: string | null = null;
    if (head !== null && changed.length > 0) {
      // Names whole (git cuts a long one to `...` and its tail, which may be part of a credential
      // without the prefix its rule starts from); the stat is cut below where it splits no run.
      const d = await git([...filters, 'diff', '--stat=4096,4000', '--no-ext-diff', '--no-textconv', '--ignore-submodules=all', 'HEAD'], cwd, t);
      if (d.ok && d.stdout.trim().length > 0) {
        const s = d.stdout.trimEnd();
        diffstat = s.length > DIFFSTAT_MAX_CHARS ? `${s.slice(0, headEnd(s, DIFFSTAT_MAX_CHARS))}\n… (truncated)` : s;
      }
    }
    return {
      status: 'ok',
      reason: null,
      cwd,
      top,
      branch,
      head,
      dirty: changed.length + untracked.length > 0,
      changed: changed.slice(0, GIT_LIST_LIMIT),
      untracked: untracked.slice(0, GIT_LIST_LIMIT),
      changed_total: changed.length,
      untracked_total: untracked.length,
      diffstat,
      captured_at: at,
    };
  }

  /**
   * `-c filter.<driver>.clean=` (and smudge, process, required=false) for each filter driver the
   * repository's own config defines: an empty command is no filter. The config is read as text
   * first, and git asked for the drivers (includes followed) only when it names a filter or an
   * include: most repositories cost no process. Remembered per repository while the capture is.
   */
  private async filterArgs(cwd: string, gitDir: string): Promise<string[] | null> {
    const common = await readSmallFile(join(gitDir, 'commondir')).then(
      (d) => resolvePath(gitDir, d.trim()),
      () => gitDir,
    );
    // The shared config and the work tree's own (`extensions.worktreeConfig`), of this work tree and the main one.
    const files = [...new Set([gitDir, common])].flatMap((d) => [join(d, 'config'), join(d, 'config.worktree')]);
    // A config changed since is read again: a filter added later is emptied too.
    const key = (await Promise.all(files.map((f) => stat(f).then((st) => `${f}:${st.mtimeMs}:${st.size}`, () => `${f}:-`)))).join('|');
    const known = this.filters.get(key);
    if (known !== undefined) return known;
    // A file that is not there holds no filter (a linked work tree's own folder has no config);
    // one that cannot be read is asked about.
    const texts = await Promise.all(files.map((f) => readSmallFile(f, CONFIG_BYTES).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? '' : null))));
    let names: string[] = [];
    if (texts.some((t) => t === null || /\[\s*(?:filter|include)/i.test(t))) {
      // Every scope but the user's and the system's: the repository's, its work tree's, what they include.
      const r = await git(['config', '--show-scope', '--includes', '--name-only', '--get-regexp', '^filter\\.'], cwd, this.opts.timeoutMs);
      if (!r.ok && r.code !== 1) return null; // 1: no filter is defined
      names = [
        ...new Set(
          r.stdout
            .split('\n')
            .map((l) => /^(\w+)\tfilter\.(.+)\.[^.]+$/.exec(l.trim()))
            .filter((m): m is RegExpExecArray => m !== null && m[1] !== 'global' && m[1] !== 'system')
            .map((m) => m[2] as string),
        ),
      ];
    }
    // A name git could not be told back (not UTF-8, which an argument of Node's cannot carry; a
    // `=` or a line break, which end a `-c` key), or more than a config of one's own would hold:
    // git is not run at all.
    if (names.length > MAX_FILTERS || names.some((n) => !/^[\w.+@/ -]{1,200}$/.test(n))) return null;
    const args = names.flatMap((n) => ['-c', `filter.${n}.clean=`, '-c', `filter.${n}.smudge=`, '-c', `filter.${n}.process=`, '-c', `filter.${n}.required=false`]);
    // A config that includes others is asked about every time: what it includes may change unseen.
    if (texts.some((t) => t !== null && /\[\s*include/i.test(t))) return args;
    if (this.filters.size >= 256) this.filters.clear();
    this.filters.set(key, args);
    return args;
  }

  /** The git top-level of a folder, or null (for project inference). */
  async topLevel(cwd: string): Promise<string | null> {
    if (!this.opts.enabled) return null;
    if (!this.gitDirs.has(cwd)) {
      try {
        if (!(await stat(cwd)).isDirectory()) return null;
      } catch {
        return null;
      }
    }
    const loc = await this.locate(cwd);
    return typeof loc === 'string' ? null : loc.top;
  }

  /**
   * Where a folder's repository lives (found once per folder: its `.git` looked for from the
   * folder up, as git discovers it, else `git rev-parse`; a folder found not to be inside one is
   * not asked again for NOT_A_REPO_TTL_MS), or why that cannot be told.
   */
  private async locate(cwd: string): Promise<{ top: string; gitDir: string } | 'not-a-repo' | 'git-missing' | 'timeout'> {
    const known = this.gitDirs.get(cwd);
    if (known) return known;
    const seen = this.notRepos.get(cwd);
    if (seen !== undefined && this.now().getTime() - seen < NOT_A_REPO_TTL_MS) return 'not-a-repo';
    const found = await discover(cwd);
    if (found === null) {
      this.notRepos.set(cwd, this.now().getTime());
      return 'not-a-repo';
    }
    if (found !== 'ask-git') {
      this.gitDirs.set(cwd, found);
      return found;
    }
    const r = await git(['rev-parse', '--show-toplevel', '--absolute-git-dir'], cwd, this.opts.timeoutMs);
    if (r.missing) return 'git-missing';
    if (r.timedOut) return 'timeout';
    if (!r.ok) {
      this.notRepos.set(cwd, this.now().getTime());
      return 'not-a-repo';
    }
    const [top, gitDir] = r.stdout.trim().split('\n');
    if (!top || !gitDir) return 'not-a-repo';
    const loc = { top, gitDir };
    this.gitDirs.set(cwd, loc);
    return loc;
  }
}
