import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { appendFile, chmod, cp, mkdir, rename, rm, stat, symlink, truncate, utimes, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { Socket } from 'node:net';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.js';
import type { RunningDaemon, SpawnOptions } from '../daemon-harness.js';
import { socketOf, spawnDaemon, startDaemon, UNPRIVILEGED } from '../daemon-harness.js';
import { processStart } from '../../src/daemon/lock.js';
import { guardName } from '../../src/daemon/store-guard.js';
import { CLI, copyFixture, peakRssMb, runCli, spawnCli, tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * The daemon under conditions a careless workspace or a careless client creates: symbolic-link
 * loops, a reused pid in the lock, idle and greedy connections, unreadable and vanishing
 * transcripts, a store others can read or nobody can write. Each test runs a real daemon child
 * process on a real socket.
 */

const running: RunningDaemon[] = [];
const children: ChildProcess[] = [];
const sockets: Socket[] = [];
/** Run after each test, once its daemons are stopped (what the temp folders' removal cannot do). */
const cleanups: (() => void)[] = [];
afterEach(async (ctx) => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of running.splice(0)) {
    if (ctx.task.result?.state === 'fail') console.log(`daemon log (pid ${d.child.pid}):\n${d.log()}`);
    if (d.child.exitCode === null && d.child.signalCode === null) await d.kill('SIGKILL');
  }
  for (const c of cleanups.splice(0)) c();
});

const userLine = (text: string): string => `${JSON.stringify({ role: 'user', content: text })}\n`;
const agentLine = (text: string): string => `${JSON.stringify({ role: 'assistant', content: text })}\n`;

async function setup(config?: Record<string, unknown>): Promise<{ env: NodeJS.ProcessEnv; root: string; watch: string }> {
  const root = tempDir('handoff-store-');
  const watch = tempDir('handoff-watch-');
  const env = testEnv({ HANDOFFS_ROOT: root });
  if (config) {
    await mkdir(join(env.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    await writeFile(join(env.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify(config));
  }
  return { env, root, watch };
}

async function start(env: NodeJS.ProcessEnv, root: string, args: string[], opts: SpawnOptions = {}): Promise<RunningDaemon> {
  const d = await startDaemon(env, root, args, opts);
  running.push(d);
  return d;
}

/** Peak resident memory of a process (Linux), in MB; null elsewhere. */

/** A daemon with one build worker, watching one session being worked on (built: 2 turns), and how many turns it has now. */
async function workedOn(): Promise<{ watch: string; ok: string; d: RunningDaemon; turns: () => Promise<number> }> {
  const { env, root, watch } = await setup({ daemon: { backfill_workers: 1, shutdown_timeout_ms: 2000 } });
  const ok = join(watch, 'ok.jsonl');
  await writeFile(ok, userLine('a session being worked on') + agentLine('on it'));
  const d = await start(env, root, ['--watch', watch]);
  await d.call('flush', { timeout_ms: 20_000 }, 25_000);
  const turns = async (): Promise<number> => (await d.call('status')).sessions.find((x) => x.id === 'ok')?.turns ?? -1;
  expect(await turns()).toBe(2);
  return { watch, ok, d, turns };
}

/** A raw connection that sends nothing and collects whatever comes back. */
/** `halfOpen`: the client never closes its side when the daemon closes its own (some clients do not). */
function idleConnection(socket: string, halfOpen = false): Promise<{ s: Socket; text: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ path: socket, allowHalfOpen: halfOpen });
    sockets.push(s);
    let text = '';
    s.on('data', (d) => (text += d.toString()));
    s.on('error', () => undefined);
    const closed = new Promise<void>((r) => s.on('close', () => r()));
    s.once('connect', () => resolve({ s, text: () => text, closed }));
    s.once('error', reject);
  });
}

/** A raw connection that asked `hello` and was answered: idle, and read. */
async function answeredConnection(socket: string): Promise<Awaited<ReturnType<typeof idleConnection>>> {
  const c = await idleConnection(socket);
  c.s.write('{"jsonrpc":"2.0","id":1,"method":"hello"}\n');
  await waitFor(() => c.text().includes('"result"'), 'the hello answer');
  return c;
}

const skipUnprivileged = UNPRIVILEGED === null;
if (skipUnprivileged) console.warn('[daemon-hostile] running as root without setpriv: the tests of unreadable files and read-only stores are skipped');

describe('the daemon in a hostile workspace', () => {
  it('does not follow symbolic links below a watch root (a loop builds nothing twice), and resolves a root that is a link once', async () => {
    const { env, root } = await setup();
    const real = tempDir('handoff-watch-');
    await mkdir(join(real, 'deep', 'er'), { recursive: true });
    await symlink('..', join(real, 'up'));
    await symlink('.', join(real, 'self'));
    await symlink('../..', join(real, 'deep', 'er', 'back'));
    await writeFile(join(real, 'deep', 'a.jsonl'), userLine('the only transcript in this folder, however it is reached') + agentLine('ok'));
    // A link to a transcript is not followed either.
    await symlink(join(real, 'deep', 'a.jsonl'), join(real, 'alias.jsonl'));
    const link = join(tempDir('handoff-link-'), 'watched');
    await symlink(real, link);
    const d = await start(env, root, ['--watch', link]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const s = await d.call('status');
    expect(s.watch).toEqual([{ path: link, exists: true, resolved: realpathSync(real), files: 1 }]);
    expect(s.files).toBe(1);
    expect(s.sessions.map((x) => x.path)).toEqual([join(realpathSync(real), 'deep', 'a.jsonl')]);
    await appendFile(join(real, 'deep', 'a.jsonl'), agentLine('and one more reply'));
    await waitFor(async () => (await d.call('status')).sessions[0]?.turns === 3, 'the append to be seen through the linked root');
    expect((await d.call('status')).sessions).toHaveLength(1);
    expect(peakRssMb(d.child.pid as number) ?? 0).toBeLessThan(250);
  });

  it.skipIf(process.platform !== 'linux')('follows a watched link re-pointed to another folder, holding no watch of the folders it pointed at before', async () => {
    const { env, root } = await setup({ watch: { rescan_interval_s: 1 } });
    const base = tempDir('handoff-repoint-');
    for (const t of ['a', 'b', 'c']) {
      for (let i = 0; i < 10; i += 1) {
        await mkdir(join(base, t, `project-${i}`), { recursive: true });
        await writeFile(join(base, t, `project-${i}`, `${t}${i}.jsonl`), userLine(`session ${i} of folder ${t}`) + agentLine('ok'));
      }
    }
    const link = join(base, 'watched');
    await symlink(join(base, 'a'), link);
    const d = await start(env, root, ['--watch', link]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    // The daemon's inotify watches, over its descriptors (one may close between the listing and its read).
    const watchesOf = (fd: string): number => {
      try {
        return readFileSync(`/proc/${d.child.pid}/fdinfo/${fd}`, 'utf8').match(/^inotify /gm)?.length ?? 0;
      } catch {
        return 0;
      }
    };
    const inotify = (): number => readdirSync(`/proc/${d.child.pid}/fdinfo`).reduce((n, fd) => n + watchesOf(fd), 0);
    const first = inotify();
    expect(first).toBeGreaterThanOrEqual(11); // the root and its ten folders
    for (const t of ['b', 'c', 'a', 'b']) {
      await rm(link);
      await symlink(join(base, t), link);
      await waitFor(async () => (await d.call('status')).watch[0]?.resolved === realpathSync(join(base, t)), `the link followed to ${t}`);
      await waitFor(async () => inotify() <= first, `the watches of the folder left behind dropped (${inotify()} now, ${first} at first)`);
    }
    // An append where the link points is built; one in a folder it left is not, though its files
    // were seen moments ago (the poll of recently changed files follows the watch too).
    await appendFile(join(base, 'b', 'project-3', 'b3.jsonl'), agentLine('a reply where the link points now'));
    await appendFile(join(base, 'c', 'project-3', 'c3.jsonl'), agentLine('a reply in a folder the link left'));
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.path.endsWith('b3.jsonl'))?.turns === 3, 'the append where the link points');
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    // (Built while the link pointed there, or not at all if it moved on first: never its append.)
    expect((await d.call('status')).sessions.find((x) => x.path.endsWith('c3.jsonl'))?.turns ?? 2).toBe(2);
    expect(inotify()).toBeLessThanOrEqual(first);
    expect(d.log()).not.toMatch(/the watch thread exited/);
  });

  it('takes over a lock whose pid now belongs to another process, by the process start time or, without one, by the dead socket', async () => {
    const { env, root, watch } = await setup();
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(other);
    const lock = join(root, '.handoffd', 'handoffd.lock');
    await mkdir(join(root, '.handoffd'), { recursive: true, mode: 0o700 });
    const old = new Date(Date.now() - 3600_000).toISOString();
    await writeFile(lock, JSON.stringify({ pid: other.pid, pid_start: '1', started_at: old, socket: socketOf(root), version: '0.1.0' }));
    const d = await start(env, root, ['--watch', watch]);
    expect(d.log()).toMatch(/took over the lock of a daemon that is gone \(pid \d+ now belongs to another process/);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: d.child.pid });
    await d.kill('SIGKILL');
    // A lock written without a start time (an older version): its dead socket says it is stale.
    await writeFile(lock, JSON.stringify({ pid: other.pid, started_at: old, socket: socketOf(root), version: '0.1.0' }));
    const d2 = await start(env, root, ['--watch', watch]);
    expect(d2.log()).toMatch(/took over the lock .*nothing answers on its socket/);
    expect((await runCli(['status', '--json'], { env })).code).toBe(0);
  });

  it('says in its log which transcript it cannot build because its file name is not UTF-8, and builds the rest', async () => {
    const { env, root, watch } = await setup({ watch: { rescan_interval_s: 1 } });
    const bad = Buffer.concat([Buffer.from(`${watch}/latin1-`), Buffer.from([0xe9, 0xff]), Buffer.from('.jsonl')]);
    await writeFile(bad, userLine('A request in a file whose name is Latin-1.') + agentLine('Answered.'));
    await copyFixture('claude-session.jsonl', watch, 'fine.jsonl');
    const d = await start(env, root, ['--watch', watch]);
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'fine' && x.turns === 15), 'the other transcript to be built');
    await waitFor(() => /latin1-\uFFFD\uFFFD\.jsonl: not built: its file name is not valid UTF-8/.test(d.log()), 'the log to name the file');
    // Once, not at every rescan (one a second here).
    const since = Date.now();
    await waitFor(() => Date.now() - since > 2500, 'two rescans');
    expect(d.log().match(/is not valid UTF-8/g)).toHaveLength(1);
  });

  it('says which transcript names are on a FIFO or a link, until a regular file is there again, and lists a hard-linked session once', async () => {
    const { env, root, watch } = await setup({ watch: { rescan_interval_s: 1 } });
    spawnSync('mkfifo', [join(watch, 'piped.jsonl')]);
    // A session id inside the transcript (Claude Code's) files both names in one session folder.
    await copyFixture('claude-session.jsonl', watch, 'a.jsonl');
    await symlink(join(watch, 'a.jsonl'), join(watch, 'alias.jsonl'));
    spawnSync('ln', [join(watch, 'a.jsonl'), join(watch, 'hard.jsonl')]);
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const open = async (): Promise<string[]> => (await d.call('status')).errors.filter((e) => e.resolved_at === null).map((e) => `${e.code} ${e.message}`);
    await waitFor(async () => (await open()).length === 2, 'both names to be said');
    expect((await open()).sort()).toEqual([
      `HANDOFF_ERR_SOURCE ${join(watch, 'alias.jsonl')}: not built: it is a symbolic link, and links below a watched folder are not followed (so a link loop is harmless and nothing is built twice); watch the folder it points to, or build it with \`handoff build ${join(watch, 'alias.jsonl')}\``,
      `HANDOFF_ERR_SOURCE ${join(watch, 'piped.jsonl')}: not built: it is a FIFO, not a regular file, and only regular files are read (a FIFO could block the daemon or never end); put the transcript itself there`,
    ]);
    // One session folder, one row: the hard link's path is beside it.
    const rows = (await d.call('status')).sessions;
    expect(rows, JSON.stringify(rows)).toHaveLength(1);
    expect([rows[0]?.path, ...(rows[0]?.also_paths ?? [])].sort()).toEqual([join(watch, 'a.jsonl'), join(watch, 'hard.jsonl')]);
    // Said once, not at every rescan; resolved when the FIFO becomes a transcript.
    const since = Date.now();
    await waitFor(() => Date.now() - since > 2500, 'two rescans');
    expect(d.log().match(/piped\.jsonl: not built: it is a FIFO/g)).toHaveLength(1);
    await rm(join(watch, 'piped.jsonl'));
    await writeFile(join(watch, 'piped.jsonl'), userLine('a transcript where the FIFO was') + agentLine('ok'));
    await waitFor(async () => (await open()).length === 1, 'the FIFO\'s error to be resolved');
    await waitFor(async () => (await d.call('status')).sessions.some((x) => x.path === join(watch, 'piped.jsonl') && x.turns === 2), 'the new transcript to be built');
  });

  it('closes a connection idle for daemon.idle_timeout_ms, but never a subscriber', async () => {
    const { env, root, watch } = await setup({ daemon: { idle_timeout_ms: 300 } });
    const d = await start(env, root, ['--watch', watch]);
    const idle = await idleConnection(d.socket);
    const sub = await ControlClient.connect(d.socket);
    await sub.call('subscribe', {});
    let subClosed = false;
    sub.onClose(() => (subClosed = true));
    await idle.closed;
    expect(JSON.parse(idle.text().trim())).toMatchObject({ id: null, error: { code: -32002, message: expect.stringMatching(/closed after 300 ms without a request/) } });
    await new Promise((r) => setTimeout(r, 800));
    expect(subClosed).toBe(false);
    expect((await d.call('status')).connections.closed_idle).toBeGreaterThanOrEqual(1);
    sub.close();
  });

  it('holds at most daemon.max_connections: idle ones make room, so a client with a question always gets in', async () => {
    const { env, root, watch } = await setup({ daemon: { max_connections: 4 } });
    const d = await start(env, root, ['--watch', watch]);
    const idle: Awaited<ReturnType<typeof idleConnection>>[] = [];
    for (let i = 0; i < 12; i += 1) idle.push(await answeredConnection(d.socket));
    expect((await d.call('hello')).pid).toBe(d.child.pid);
    const s = await d.call('status');
    expect(s.connections.open).toBeLessThanOrEqual(4);
    expect(s.connections.max).toBe(4);
    expect(s.connections.closed_idle).toBeGreaterThanOrEqual(9);
    await waitFor(() => idle.filter((c) => c.s.destroyed || c.text().includes('-32002')).length >= 9, 'the idle connections to be closed');
    expect(idle.find((c) => c.text().includes('-32002'))?.text()).toMatch(/closed to make room: the daemon holds at most 4 connections/);
  });

  it('never closes a connection it has not read yet to make room (its request may wait in the socket), and the CLI tries again', async () => {
    const { env, root, watch } = await setup({ daemon: { max_connections: 4 } });
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const since = Date.now();
    const held: Awaited<ReturnType<typeof idleConnection>>[] = [];
    for (let i = 0; i < 4; i += 1) held.push(await idleConnection(d.socket));
    // The daemon refuses the fifth when it connects, before any request: a request written after
    // the refusal can meet the closed socket (EPIPE) and the client then drops the refusal it had
    // not read yet (seen once on a loaded host). The refusal is what is checked.
    const late = await idleConnection(d.socket);
    await late.closed;
    expect(late.text()).toMatch(/"code":-32003.*all 4 are busy answering requests or have just connected/);
    expect(held.filter((c) => c.text().length > 0 || c.s.destroyed)).toHaveLength(0);
    // `handoff status` is turned away too while they are new, connects again, and gets in once one may make room.
    const st = await runCli(['status', '--json'], { env });
    expect(st.code, st.err).toBe(0);
    expect(Date.now() - since).toBeGreaterThanOrEqual(1000);
    expect(held.filter((c) => c.text().includes('idle the longest'))).toHaveLength(1);
  });

  it('gives a closed connection\'s descriptor back once its last answer is sent, though the client never closes its side', async () => {
    const { env, root, watch } = await setup({ daemon: { max_connections: 4 } });
    const d = await start(env, root, ['--watch', watch]);
    const fds = (): number => readdirSync(`/proc/${d.child.pid}/fd`).length;
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const before = fds();
    const crowd: Awaited<ReturnType<typeof idleConnection>>[] = [];
    for (let i = 0; i < 40; i += 1) crowd.push(await idleConnection(d.socket, true));
    // Turned away (-32003) while the held ones are new, closed to make room (-32002) once they are not.
    await waitFor(() => crowd.filter((c) => /-3200[23]/.test(c.text())).length >= 36, 'the crowd to be told it was turned away or closed to make room');
    // 4 held, the rest given back: not kept until each client ends its side (these never do) or a timer fires (1 s).
    await waitFor(() => fds() <= before + 4 + 2, `the closed connections' descriptors to be given back (${fds()} open, ${before} before)`, 600);
  });

  it('starts and builds beside a chain of folders longer than the system can name', async () => {
    const { env, root, watch } = await setup();
    await copyFixture('claude-session.jsonl', watch, 'beside.jsonl');
    // 17 names of 250 bytes: past PATH_MAX (4,096) wherever the temp folder is; chokidar stalled before `ready` on it.
    // No call can name such a path: a child process makes each level from its parent, moving into it.
    const names = Array.from({ length: 17 }, (_, i) => `L${String(i + 10)}${'x'.repeat(247)}`);
    const walk = (make: boolean): void => {
      const script = make
        ? `const fs = require('node:fs'); fs.mkdirSync('b'); process.chdir('b'); for (const n of ${JSON.stringify(names)}) { fs.mkdirSync(n); process.chdir(n); }`
        : `const fs = require('node:fs'); const n = ${JSON.stringify(names)}; process.chdir('b'); for (const x of n) process.chdir(x); for (let i = n.length - 1; i >= 0; i -= 1) { process.chdir('..'); fs.rmdirSync(n[i]); } process.chdir('..'); fs.rmdirSync('b');`;
      const r = spawnSync(process.execPath, ['-e', script], { cwd: watch, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    };
    walk(true);
    // The temp folder's removal cannot name the chain either: it goes first, whatever the test's outcome.
    cleanups.push(() => walk(false));
    const d = await start(env, root, ['--watch', watch]);
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'beside' && x.turns === 15), 'the transcript beside the chain to be built');
    expect(d.log()).not.toMatch(/ENAMETOOLONG/);
  });

  it.skipIf(availableParallelism() < 2)('refreshes a session being worked on ahead of a burst of new transcripts, whose first builds go to the worker', async () => {
    const { env, root, watch } = await setup({ daemon: { backfill_workers: 1 } });
    const ok = join(watch, 'ok.jsonl');
    await writeFile(ok, userLine('a session being worked on') + agentLine('on it'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const burst = join(watch, 'burst');
    await mkdir(burst);
    const lines = Array.from({ length: 40 }, (_, i) => userLine(`step ${i} of a session copied in`) + agentLine(`done ${i}`)).join('');
    for (let i = 0; i < 200; i += 1) await writeFile(join(burst, `n${i}.jsonl`), lines);
    await waitFor(
      async () => {
        const q = (await d.call('status')).queue;
        return (q.running ?? '').startsWith(burst) || q.in_workers.some((k) => k.startsWith(burst));
      },
      'the burst to be built',
      15_000,
    );
    await appendFile(ok, userLine('one more request') + agentLine('done'));
    const s = await waitFor(
      async () => {
        const st = await d.call('status');
        return st.sessions.find((x) => x.id === 'ok')?.turns === 4 ? st : undefined;
      },
      'the live session to refresh',
      20_000,
    );
    // Refreshed while most of the burst still waited: behind it, it would have come after them.
    expect(s.sessions.filter((x) => x.id.startsWith('n')).length).toBeLessThan(100);
  });

  it('does not keep a transcript dated far in the future live for good', async () => {
    const { env, root, watch } = await setup({ watch: { live_window_s: 5 } });
    const file = join(watch, 'future.jsonl');
    await writeFile(file, userLine('a session copied from a machine whose clock ran ahead') + agentLine('ok'));
    await utimes(file, new Date('2100-01-01T00:00:00Z'), new Date('2100-01-01T00:00:00Z'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const row = (await d.call('status')).sessions.find((x) => x.id === 'future');
    expect(row?.turns).toBe(2);
    expect(row?.state).toBe('idle');
  });

  it('stops cleanly on SIGXCPU (a CPU time limit reached), saying why, and leaves no socket or lock', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, ['--watch', watch]);
    d.child.kill('SIGXCPU');
    const exit = await new Promise<number | null>((r) => d.child.once('exit', (code) => r(code)));
    expect(exit).toBe(0);
    expect(d.log()).toMatch(/SIGXCPU: the CPU time limit \(ulimit -t, LimitCPU=\) was reached; stopping/);
    expect(d.log()).toMatch(/"msg":"stopped"/);
    expect(existsSync(d.socket)).toBe(false);
  });

  it('opens no inspector on SIGUSR1, and outlives the signals that would end it without a word', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, ['--watch', watch]);
    for (const signal of ['SIGUSR1', 'SIGUSR2', 'SIGALRM', 'SIGPWR', 'SIGVTALRM', 'SIGSYS'] as const) {
      d.child.kill(signal);
      await waitFor(() => d.log().includes(`${signal} received and ignored`), `the daemon to say it ignored ${signal}`);
    }
    expect((await d.call('hello')).pid).toBe(d.child.pid);
    expect(d.log()).not.toMatch(/Debugger listening/);
    // Node opens its inspector from a thread of its own: given the time it takes, it would have.
    const since = Date.now();
    await waitFor(() => Date.now() - since > 500, 'half a second');
    expect(d.log()).not.toMatch(/Debugger listening|inspector/i);
  });

  it('lets a client in when every held connection stalled half-way through a request line', async () => {
    const { env, root, watch } = await setup({ daemon: { max_connections: 4 } });
    const d = await start(env, root, ['--watch', watch]);
    const stalled: Awaited<ReturnType<typeof idleConnection>>[] = [];
    for (let i = 0; i < 4; i += 1) {
      const c = await idleConnection(d.socket);
      c.s.write('{"jsonrpc":"2.0","id":1,"method":"sta');
      stalled.push(c);
    }
    // A connection counts as stalled once a second has passed without a byte from it.
    const since = Date.now();
    await waitFor(() => Date.now() - since > 1200, 'the held connections to stall');
    expect((await d.call('status')).connections.max).toBe(4);
    await waitFor(() => stalled.some((c) => c.text().includes('stalled half-way through a request line')), 'a stalled connection to be closed, saying why');
    expect(stalled.filter((c) => c.text().includes('idle the longest'))).toHaveLength(0);
  });

  it('keeps building with 300 idle clients and only 128 descriptors', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, ['--watch', watch], { prefix: ['sh', '-c', 'ulimit -n 128 && exec "$@"', 'sh'] });
    expect(d.log()).toMatch(/daemon.max_connections lowered from 128 to 32/);
    for (let i = 0; i < 300; i += 1) await idleConnection(d.socket).catch(() => undefined);
    await copyFixture('claude-session.jsonl', watch, 'crowded.jsonl');
    const built = await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'crowded' && x.turns === 15), 'the transcript to be built among 300 idle clients', 20_000);
    expect(built.state).not.toBe('error');
    expect(d.log()).not.toMatch(/EMFILE/);
    expect((await d.call('status')).connections.open).toBeLessThanOrEqual(32);
  });

  it('stops reading a connection whose answers are not read: 2,000 pipelined requests do not grow memory', async () => {
    const { env, root, watch } = await setup();
    for (let i = 0; i < 40; i += 1) await writeFile(join(watch, `s${i}.jsonl`), userLine(`session ${i} wants the flaky upload test fixed for good`) + agentLine('on it'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 30_000 }, 35_000);
    const one = Buffer.byteLength(JSON.stringify(await d.call('status')));
    const before = (await d.call('status')).memory.rss_mb;
    const greedy = await idleConnection(d.socket);
    greedy.s.pause(); // never reads
    greedy.s.write('{"jsonrpc":"2.0","id":1,"method":"status"}\n'.repeat(2000));
    await waitFor(async () => (await d.call('status')).connections.paused >= 1, 'the greedy connection to be paused');
    await new Promise((r) => setTimeout(r, 500));
    const s = await d.call('status');
    // At most the high-water mark plus the answers in flight wait in the daemon (2,000 would be ~200 times that).
    expect(s.connections.pending_output_bytes).toBeLessThan((1 << 20) + 9 * one);
    expect(s.memory.rss_mb - before).toBeLessThan(100);
    expect((await d.call('hello')).pid).toBe(d.child.pid);
  });

  it.skipIf(skipUnprivileged)('says unreadable (not live, not gone) for a transcript it may not read, and builds it once it may, without waiting for its backoff', async () => {
    const { env, root, watch } = await setup();
    const locked = join(watch, 'locked.jsonl');
    await writeFile(locked, userLine('a transcript whose mode forbids reading it') + agentLine('ok'));
    await chmod(locked, 0o000);
    const d = await start(env, root, ['--watch', watch], { prefix: UNPRIVILEGED ?? [] });
    const row = await waitFor(async () => (await d.call('status')).sessions.find((x) => x.path === locked && x.state === 'unreadable'), 'the unreadable state');
    expect(row.error).toMatchObject({ code: 'HANDOFF_ERR_SOURCE', message: expect.stringMatching(/permission denied/), fix: expect.stringMatching(/chmod u\+r/) });
    expect(row.error?.retry_at).not.toBeNull();
    const text = await runCli(['status'], { env, columns: 200 });
    expect(text.out).toMatch(/unreadable/);
    await chmod(locked, 0o644);
    const w = await runCli(['status', '--wait', '--json'], { env });
    expect(w.code, w.err).toBe(0);
    const after = (JSON.parse(w.out) as { sessions: { path: string; state: string; turns: number; error?: unknown }[] }).sessions.find((x) => x.path === locked);
    expect(after).toMatchObject({ state: expect.stringMatching(/^(live|idle)$/), turns: 2 });
    expect(after?.error).toBeUndefined();
  });

  it.skipIf(skipUnprivileged)('never builds a session afresh in its folder when its manifest cannot be read (a `sudo handoff build` left it root-only): the build fails, says why, and nothing is appended twice', async () => {
    const { env, root, watch } = await setup();
    const file = join(watch, 'a.jsonl');
    await writeFile(file, userLine('the first request of a session whose manifest a sudo build took') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch], { prefix: UNPRIVILEGED ?? [] });
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const dir = (await d.call('status')).sessions[0]?.dir as string;
    const timeline = (): string[] => readFileSync(join(dir, 'timeline.jsonl'), 'utf8').trim().split('\n');
    expect(timeline()).toHaveLength(2);
    // Stopped, then started with the manifest unreadable: nothing of it is in memory.
    await d.kill('SIGTERM');
    await chmod(join(dir, 'manifest.json'), 0o000);
    await appendFile(file, userLine('a request while the manifest cannot be read'));
    const d2 = await start(env, root, ['--watch', watch], { prefix: UNPRIVILEGED ?? [] });
    const row = await waitFor(async () => (await d2.call('status')).sessions.find((x) => x.path === file && x.error !== undefined), 'the build to fail and say why');
    expect(row.error?.message).toMatch(/cannot read .*manifest\.json: EACCES/);
    expect(row.error?.fix).toMatch(/permissions/);
    expect(timeline()).toHaveLength(2);
    // Readable again: the session goes on from where its manifest says, every turn once.
    await chmod(join(dir, 'manifest.json'), 0o600);
    await appendFile(file, agentLine('answered once the manifest could be read'));
    await waitFor(async () => (await d2.call('status')).sessions.find((x) => x.path === file)?.turns === 4, 'the session to catch up');
    const seqs = timeline().map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(seqs).toEqual([0, 1, 2, 3]);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('sets a manifest over 2 GiB aside as damaged and rebuilds the session from its transcript, every turn once', async () => {
    const { env, root, watch } = await setup();
    const file = join(watch, 'a.jsonl');
    await writeFile(file, userLine('a session whose manifest becomes a 3 GB sparse file') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const dir = (await d.call('status')).sessions[0]?.dir as string;
    await truncate(join(dir, 'manifest.json'), 3 * 2 ** 30);
    await appendFile(file, userLine('a request after the manifest grew'));
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.path === file)?.turns === 3, 'the session rebuilt');
    const seqs = readFileSync(join(dir, 'timeline.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(seqs).toEqual([0, 1, 2]);
    expect(readdirSync(join(dir, 'history')).some((f) => f.endsWith('-damaged.manifest.json'))).toBe(true);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it.skipIf(skipUnprivileged)('says once which watched folder it may not list, with the fix, and builds its transcripts and marks the error resolved once it may', async () => {
    const { env, root, watch } = await setup({ watch: { rescan_interval_s: 1 } });
    const locked = join(watch, 'project one');
    await mkdir(locked);
    const inside = join(locked, 'inside.jsonl');
    await writeFile(inside, userLine('a transcript in a folder whose mode forbids listing it') + agentLine('ok'));
    await writeFile(join(watch, 'open.jsonl'), userLine('a transcript beside it, read as usual') + agentLine('ok'));
    await chmod(locked, 0o000);
    const d = await start(env, root, ['--watch', watch], { prefix: UNPRIVILEGED ?? [] });
    const error = await waitFor(async () => (await d.call('status')).errors.find((e) => e.path === locked), 'the unreadable folder among the errors');
    expect(error).toMatchObject({ code: 'HANDOFF_ERR_SOURCE', message: expect.stringContaining(`cannot be listed (permission denied)`) });
    expect(error.message).toContain(`chmod u+rx '${locked}'`);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    expect((await d.call('status')).sessions.map((x) => x.path)).toEqual([join(watch, 'open.jsonl')]);
    const text = await runCli(['status'], { env, columns: 200 });
    expect(text.out).toMatch(/project one: .*cannot be listed/);
    // Every flush rescans, as the timer does: each meets the folder again, and it is said once, counted once.
    for (let i = 0; i < 3; i += 1) await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    expect(d.log().split(`this folder cannot be listed`).length - 1).toBe(1);
    expect((await d.call('status')).errors.filter((e) => e.path === locked)).toHaveLength(1);
    await chmod(locked, 0o755);
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.path === inside && x.turns === 2), 'the transcript in the folder, built once it can be listed');
    await waitFor(async () => (await d.call('status')).errors.some((e) => e.path === locked && e.resolved_at !== null), 'the error resolved');
    expect(d.log()).toMatch(/project one: the folder can be listed again/);
  });

  it.skipIf(skipUnprivileged)('keeps two transcripts of the same name apart while the folder of the first cannot be entered', async () => {
    const { env, root, watch } = await setup({ watch: { rescan_interval_s: 1 } });
    await mkdir(join(watch, 'a'));
    await mkdir(join(watch, 'b'));
    const first = join(watch, 'a', 'x.jsonl');
    const second = join(watch, 'b', 'x.jsonl');
    await writeFile(first, userLine('the first session, in folder a') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch], { prefix: UNPRIVILEGED ?? [] });
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.path === first && x.turns === 2), 'the first session built');
    await chmod(join(watch, 'a'), 0o000);
    await writeFile(second, userLine('another session in folder b, whose file has the same name') + agentLine('ok') + agentLine('and more'));
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.path === second && x.turns === 3), 'the second session built');
    await chmod(join(watch, 'a'), 0o755);
    await appendFile(first, agentLine('the first session goes on'));
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.path === first && x.turns === 3), 'the append to the first built');
    const sessions = (await d.call('status')).sessions;
    // Two sessions, each of its own file: the second took nothing over, and no reset was logged.
    expect(sessions.map((x) => [x.path, x.turns]).sort()).toEqual([[first, 3], [second, 3]]);
    expect(new Set(sessions.map((x) => x.id)).size).toBe(2);
    expect(d.log()).not.toMatch(/source reset/);
  });

  it.skipIf(skipUnprivileged)('does not call a transcript gone while a folder above it cannot be entered, and builds what was appended once it can', async () => {
    const { env, root, watch } = await setup({ watch: { rescan_interval_s: 1 } });
    const folder = join(watch, 'project');
    await mkdir(folder);
    const inside = join(folder, 'inside.jsonl');
    await writeFile(inside, userLine('a transcript whose folder loses its mode for a while') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch], { prefix: UNPRIVILEGED ?? [] });
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    await chmod(folder, 0o000);
    for (let i = 0; i < 3; i += 1) await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const row = (await d.call('status')).sessions.find((x) => x.path === inside);
    expect(row?.state).not.toBe('gone');
    expect(d.log()).not.toContain(`${inside}: the transcript is no longer there`);
    await chmod(folder, 0o755);
    await appendFile(inside, agentLine('and a reply written while it could not be read'));
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.path === inside && x.turns === 3 && x.state !== 'gone'), 'the append, built');
  });

  it('shows a deleted transcript as gone, and one written again or moved as live, under one row', async () => {
    const { env, root, watch } = await setup();
    const sessions = join(watch, 'sessions', '2026', '11', '30');
    const archived = join(watch, 'archived_sessions');
    await mkdir(sessions, { recursive: true });
    await mkdir(archived);
    const rollout = await copyFixture('codex-rollout.jsonl', sessions, 'rollout-2026-11-30T10-00-00-abc.jsonl');
    const plain = join(watch, 'plain.jsonl');
    await writeFile(plain, userLine('a session that is deleted and written again') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    await rm(plain);
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.path === plain && x.state === 'gone'), 'the deleted transcript to show as gone');
    await writeFile(plain, userLine('written again after it was deleted, a new conversation') + agentLine('ok'));
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.path === plain && x.state !== 'gone' && x.state !== 'pending'), 'the transcript written again to be live');
    const moved = join(archived, 'rollout-2026-11-30T10-00-00-abc.jsonl');
    await rename(rollout, moved);
    await waitFor(async () => {
      const rows = (await d.call('status')).sessions.filter((x) => x.id === 'rollout-2026-11-30T10-00-00-abc');
      return rows.length === 1 && rows[0]?.path === moved && rows[0].state !== 'gone';
    }, 'one live row for the archived rollout');
    await d.call('flush', { timeout_ms: 10_000 }, 15_000);
    const s = await d.call('status');
    expect(s.sessions.filter((x) => x.id.startsWith('rollout-'))).toHaveLength(1);
    expect(s.sessions.filter((x) => x.path === plain)).toHaveLength(1);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
    // The log never calls a deleted file moved, nor leaves a move said only as a file no longer there.
    expect(d.log()).toContain(`${plain}: the transcript is no longer there (deleted, or moved`);
    if (d.log().includes(`${rollout}: the transcript is no longer there`)) expect(d.log()).toContain(`followed to ${moved} (it was at ${rollout})`);
    expect(d.log()).not.toContain('transcript deleted;');
  });

  it.skipIf(skipUnprivileged)('says a store write error once with a count, not twice a second, and tells when it clears (status then shows it resolved)', async () => {
    const { env, root, watch } = await setup();
    const src = join(watch, 'w.jsonl');
    await writeFile(src, userLine('a session whose store turns read-only for a while') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch], { prefix: UNPRIVILEGED ?? [] });
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const dir = (await d.call('status')).sessions[0]?.dir as string;
    await chmod(dir, 0o500);
    await chmod(root, 0o500);
    await appendFile(src, agentLine('written while the store is read-only'));
    await waitFor(async () => ((await d.call('status')).sessions[0]?.error?.attempts ?? 0) >= 3, 'three failed attempts', 20_000);
    await chmod(dir, 0o700);
    await chmod(root, 0o700);
    await waitFor(async () => (await d.call('status')).sessions[0]?.turns === 3, 'the session to catch up', 20_000);
    const log = d.log();
    expect(log).not.toMatch(/HANDOFF_ERR_STORE_WRITE: HANDOFF_ERR_STORE_WRITE/);
    expect(log.split('\n').filter((l) => l.includes('"msg":"build failed:'))).toHaveLength(1);
    expect(log).toMatch(/is building again after [3-9]\d* failed attempt/);
    const entry = (await d.call('status')).errors.find((e) => e.path === src);
    expect(entry?.count).toBeGreaterThanOrEqual(3);
    // Built again: the entry stays as history, resolved, and `status` no longer shows it as an error.
    expect(entry?.resolved_at).toEqual(expect.any(String));
    const text = await runCli(['status'], { env });
    expect(text.out).not.toMatch(/^\s+error /m);
    expect(text.out).toMatch(/1 error since start resolved \(the path builds again, or is gone\): the log has each/);
  });

  it('creates the store private (files 0600, folders 0700) inside a folder others can read, and says so with the fix', async () => {
    const { env, root, watch } = await setup();
    await chmod(root, 0o755);
    await mkdir(join(root, 'projects'), { mode: 0o755 });
    await chmod(join(root, 'projects'), 0o755);
    await writeFile(join(watch, 'p.jsonl'), userLine('a session that quotes private things') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    expect(d.log()).toMatch(new RegExp(`open to other users \\(mode 755\\).*fix: chmod -R go-rwx ${root}`));
    const dir = (await d.call('status')).sessions[0]?.dir as string;
    for (const f of ['manifest.json', 'HANDOFF.md', 'timeline.jsonl', 'TOOLS.md', 'HANDOFF.llm.json', 'HANDOFF.summary.json']) expect(((await stat(join(dir, f))).mode & 0o777).toString(8), f).toBe('600');
    expect(((await stat(dir)).mode & 0o777).toString(8)).toBe('700');
    expect(((await stat(join(dir, '..'))).mode & 0o777).toString(8)).toBe('700');
    expect(((await stat(join(root, 'INDEX.json'))).mode & 0o777).toString(8)).toBe('600');
    await d.kill('SIGTERM');
    const b = await runCli(['build', join(watch, 'p.jsonl')], { env });
    expect(b.err).toMatch(/open to other users \(mode 755\)[^]*fix: chmod -R go-rwx/);
  });

  it('exits 6 from `status --follow`, saying so, when the daemon stops or is killed', async () => {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const { env, root, watch } = await setup();
      const d = await start(env, root, ['--watch', watch]);
      const follow = spawn(process.execPath, [CLI, 'status', '--follow'], { env, cwd: env.HOME, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(follow);
      let err = '';
      follow.stderr.on('data', (b: Buffer) => (err += b.toString()));
      const exited = new Promise<number | null>((r) => follow.on('exit', (code) => r(code)));
      await waitFor(() => err.includes('following refreshes'), 'status --follow to subscribe');
      await d.kill(signal);
      expect(await exited, signal).toBe(6);
      expect(err).toMatch(new RegExp(`the daemon \\(pid ${d.child.pid}\\) went away`));
      expect(err).toMatch(/fix: /);
    }
  });

  it('counts empty and unfinished transcripts as pending, not failed, in the backfill', async () => {
    const { env, root, watch } = await setup();
    await writeFile(join(watch, 'good.jsonl'), userLine('a complete session with a real request in it') + agentLine('ok'));
    await writeFile(join(watch, 'empty.jsonl'), '');
    await writeFile(join(watch, 'unfinished.jsonl'), '{"role":"user","content":"still being writ');
    const old = Date.now() / 1000 - 60;
    for (const f of ['good', 'empty', 'unfinished']) await utimes(join(watch, `${f}.jsonl`), old, old);
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const s = await d.call('status');
    expect(s.backfill).toMatchObject({ total: 3, done: 3, failed: 0, pending: 2 });
    expect(s.errors).toEqual([]);
    const text = await runCli(['status'], { env });
    expect(text.out).toMatch(/backfill done: 3 transcripts \(2 pending: no complete turn yet\)/);
    expect(text.out).not.toMatch(/failed/);
    // Nothing was made for the two that have no turn yet.
    const projects = readdirSync(join(root, 'projects'));
    expect(projects).toHaveLength(1);
    expect(readdirSync(join(root, 'projects', projects[0] as string)).sort()).toEqual(['PROJECT.md', 'good']);
  });

  it('refuses a second daemon on the same store, saying so plainly (its lock file is there)', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, ['--watch', watch]);
    const second = spawnDaemon(env, ['--watch', watch]);
    children.push(second.child);
    const r = await second.exited;
    expect(r.code, second.log()).toBe(7);
    expect(second.log()).toMatch(new RegExp(`another daemon \\(pid ${d.child.pid}[,)]`));
    expect(second.log()).not.toContain('lock file is gone');
    expect(existsSync(join(root, '.handoffd', 'handoffd.lock'))).toBe(true);
  });

  it.skipIf(availableParallelism() < 2)('reads a transcript of gigabytes in a worker, live or not: the other sessions refresh meanwhile, and a stop does not wait for it', async () => {
    const { watch, ok, d, turns } = await workedOn();
    // 4 GiB without a newline (a sparse file): its read takes many seconds whatever the lane.
    const huge = join(watch, 'huge.jsonl');
    await writeFile(huge, '');
    await truncate(huge, 4 * 2 ** 30);
    await waitFor(async () => (await d.call('status')).queue.running === huge, 'the huge transcript to be read', 15_000);
    await appendFile(ok, userLine('one more request') + agentLine('done'));
    // On the main lane it would hold this refresh until the whole file was read.
    await waitFor(async () => (await turns()) === 4, 'the other session to refresh while the huge one is read', 5_000);
    expect((await d.call('status')).queue.in_workers).toContain(huge);
    const t0 = Date.now();
    await d.kill('SIGTERM');
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it.skipIf(availableParallelism() < 2)('builds a transcript of gigabytes a client asks for (a hook\'s build) in a worker: the watched sessions refresh meanwhile', async () => {
    const { ok, d, turns } = await workedOn();
    // Outside the watch, as a session-start hook's transcript may be: 4 GiB without a newline (sparse).
    const away = tempDir('handoff-away-');
    const huge = join(away, 'huge.jsonl');
    await writeFile(huge, '');
    await truncate(huge, 4 * 2 ** 30);
    const asked = d.call('build', { path: huge }, 120_000).catch((e: unknown) => e);
    await appendFile(ok, userLine('one more request') + agentLine('done'));
    // On the main lane it would hold this refresh until the whole file was read.
    await waitFor(async () => (await turns()) === 4, 'the watched session to refresh while the asked build reads', 5_000);
    expect((await d.call('status')).queue.in_workers).toContain(huge);
    const t0 = Date.now();
    await d.kill('SIGTERM');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(await asked).toBeInstanceOf(Error);
  });

  it('builds again a session whose folder a cleanup deleted, though its transcript did not change', async () => {
    const { env, root, watch } = await setup();
    await writeFile(join(watch, 'ended.jsonl'), userLine('a session that ended: nothing will be appended to it') + agentLine('done'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const dir = (await d.call('status')).sessions.find((x) => x.id === 'ended')?.dir;
    expect(dir).toBeTruthy();
    await rm(join(root, 'projects'), { recursive: true });
    await rm(join(root, 'INDEX.json'), { force: true });
    // A flush rescans, as the timer does every minute.
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    await waitFor(() => existsSync(join(dir as string, 'HANDOFF.md')), 'the session to be built again', 15_000);
    const v = await runCli(['verify', '--all'], { env });
    expect(v.code, v.out + v.err).toBe(0);
  });

  it('binds its socket again once its folder is back, after a first try failed while a file stood there', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, ['--watch', watch]);
    // The store's root replaced by a file for a moment (a backup tool, a mistaken `>`): back to back, so no check falls between.
    rmSync(root, { recursive: true });
    writeFileSync(root, 'not a folder\n');
    await waitFor(() => /cannot be bound again/.test(d.log()), 'the first bind again to fail');
    const mark = d.log().length;
    rmSync(root);
    mkdirSync(root, { mode: 0o700 });
    await waitFor(() => /was deleted; bound it again/.test(d.log().slice(mark)), 'the socket to be bound again once its folder is back', 15_000);
    const s = await runCli(['status', '--json'], { env });
    expect(s.code, s.err).toBe(0);
    expect(JSON.parse(s.out).pid).toBe(d.child.pid);
  });

  it('writes its lock again and binds its socket again when a cleanup deletes them, and a daemon started meanwhile is refused', async () => {
    const { env, root, watch } = await setup();
    await writeFile(join(watch, 'a.jsonl'), userLine('a session the daemon keeps while its files are deleted') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const lock = join(root, '.handoffd', 'handoffd.lock');
    await rm(lock);
    await rm(socketOf(root));
    // Both files gone: on Linux the store guard (no file) still refuses a second daemon.
    if (process.platform === 'linux') {
      const second = spawnDaemon(env, ['--watch', watch]);
      children.push(second.child);
      const r = await second.exited;
      expect(r.code, second.log()).toBe(7);
      expect(second.log()).toContain(`another daemon (pid ${d.child.pid}) runs on the store ${root}, though its lock file is gone`);
    }
    await waitFor(() => existsSync(lock) && existsSync(socketOf(root)), 'the lock and the socket to be made again', 15_000);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: d.child.pid });
    const s = await runCli(['status', '--json'], { env });
    expect(s.code, s.err).toBe(0);
    expect(JSON.parse(s.out).pid).toBe(d.child.pid);
    expect(d.log()).toMatch(/the lock file was deleted; wrote it again/);
    expect(d.log()).toMatch(/the control socket .* was deleted; bound it again/);
    // Still at work: a new turn is built.
    await appendFile(join(watch, 'a.jsonl'), userLine('one more request after the cleanup'));
    await waitFor(async () => (await runCli(['show', 'a', '--json'], { env })).out.includes('one more request after the cleanup'), 'the new turn to be built', 15_000);
    // And a daemon started now is refused by the lock file, naming this one.
    const third = spawnDaemon(env, ['--watch', watch]);
    children.push(third.child);
    expect((await third.exited).code).toBe(7);
    expect(third.log()).toContain(`pid ${d.child.pid}`);
  });

  it('stops without writing more when another live daemon took its lock while the file was gone, and exits 7 naming it', async () => {
    const { env, root, watch } = await setup();
    await writeFile(join(watch, 'a.jsonl'), userLine('a session two daemons must not write at once') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    // What a daemon that started while the lock was missing writes (where no store guard stopped it).
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(other);
    await waitFor(() => processStart(other.pid as number) !== null, 'the other process to start');
    const lock = join(root, '.handoffd', 'handoffd.lock');
    const theirs = JSON.stringify({ pid: other.pid, pid_start: processStart(other.pid as number), started_at: new Date().toISOString(), socket: socketOf(root), version: '0.1.0' });
    await writeFile(lock, theirs);
    const index = join(root, 'INDEX.json');
    const indexBefore = (await stat(index)).mtimeMs;
    const r = await d.exited;
    expect(r.code, d.log()).toBe(7);
    expect(d.log()).toContain(`another daemon (pid ${other.pid}`);
    expect(d.log()).toMatch(/this one stopped so that the store has one writer/);
    // The other daemon's lock is left as it is, and nothing more was written.
    expect(readFileSync(lock, 'utf8')).toBe(theirs);
    expect((await stat(index)).mtimeMs).toBe(indexBefore);
  });

  it('is not kept from starting by a process of another kind holding the store guard\'s name', async () => {
    if (process.platform !== 'linux') return;
    const { env, root, watch } = await setup();
    await mkdir(root, { recursive: true });
    const squatter = createServer((s) => s.end('{"pid":1,"pid_start":"1"}\n'));
    await new Promise<void>((resolve) => squatter.listen(guardName(root), resolve));
    try {
      const d = await start(env, root, ['--watch', watch]);
      expect(d.log()).toMatch(/the store guard's name is held by a process that is not a handoffd of this user \(pid 1 (belongs to another user|did not start when it says)\); relying on the lock file alone/);
    } finally {
      squatter.close();
    }
  });

  it('never reads its own store as transcripts when a watch folder holds it', async () => {
    const watch = tempDir('handoff-watch-');
    const root = join(watch, '.handoffs');
    const env = testEnv({ HANDOFFS_ROOT: root });
    await mkdir(join(watch, 'proj'), { recursive: true });
    await writeFile(join(watch, 'proj', 'a.jsonl'), userLine('the only real session in this folder') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    expect(d.log()).toContain(`the store ${root} lies inside the watched folder ${watch}: it is left out of the watch`);
    // Live: appends to the real session, and the store's own writes, make no new sessions.
    for (let i = 0; i < 3; i += 1) await appendFile(join(watch, 'proj', 'a.jsonl'), userLine(`request number ${i} appended live`));
    await waitFor(async () => (await runCli(['show', 'a', '--json'], { env })).out.includes('request number 2 appended live'), 'the appends to be built', 15_000);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const s = await d.call('status');
    expect(s.sessions.map((x) => x.id)).toEqual(['a']);
    expect(readdirSync(join(root, 'projects'))).toHaveLength(1);
  });

  it('loses no turn when a session folder is restored from a backup while it runs', async () => {
    const { env, root, watch } = await setup();
    const file = join(watch, 'a.jsonl');
    await writeFile(file, userLine('the first request of a session that gets backed up') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const dir = join(root, 'projects', readdirSync(join(root, 'projects'))[0] as string, 'a');
    const backup = tempDir('handoff-backup-');
    await cp(dir, backup, { recursive: true });
    for (let i = 0; i < 3; i += 1) {
      await appendFile(file, userLine(`request ${i} made after the backup`));
      await waitFor(async () => (await runCli(['show', 'a', '--json'], { env })).out.includes(`request ${i} made after the backup`), `request ${i} to be built`, 15_000);
    }
    // The backup comes back (an rsync, a Time Machine restore), then the session goes on.
    await rm(dir, { recursive: true });
    await cp(backup, dir, { recursive: true });
    await appendFile(file, userLine('a request after the restore'));
    await waitFor(async () => (await runCli(['show', 'a', '--json'], { env })).out.includes('a request after the restore'), 'the last request to be built', 15_000);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const lines = readFileSync(join(dir, 'timeline.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { text: string }).text).filter((t) => t.startsWith('request ') || t.startsWith('a request'))).toEqual(['request 0 made after the backup', 'request 1 made after the backup', 'request 2 made after the backup', 'a request after the restore']);
    const v = await runCli(['verify', '--all'], { env });
    expect(v.code, `${v.out}${v.err}`).toBe(0);
  });

  it('verifies a session where it is when its turn comes, not where it was when asked: a rename queued before it moved the folder', async () => {
    const { env, root, watch } = await setup();
    await writeFile(join(watch, 'q.jsonl'), userLine('a session renamed while it is verified') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    for (let n = 0; n < 4; n += 1) {
      // Sent together: the rename is queued first; the verify names the session as it is now.
      const [moved, reports] = await Promise.all([d.call('session.update', n % 2 === 0 ? { id: 'q', project: `p${n}` } : { id: 'q', title: `q ${n}` }), d.call('verify', { id: 'q' })]);
      expect(moved).toBeTruthy();
      expect((reports as { ok: boolean; failures: string[] }[]).map((r) => [r.ok, r.failures[0] ?? ''])).toEqual([[true, '']]);
    }
  });

  const FAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';
  if (!existsSync(FAKETIME)) console.warn('[daemon-hostile] libfaketime is not installed (Debian: faketime): the wall-clock jump test is skipped');
  it.skipIf(!existsSync(FAKETIME))('counts its uptime on a clock that never jumps: the wall clock set back 3 days (NTP, a VM resumed) leaves it true', async () => {
    const { env, root, watch } = await setup();
    const clock = join(tempDir('handoff-clock-'), 'faketime');
    writeFileSync(clock, '+0\n');
    const d = await start({ ...env, LD_PRELOAD: FAKETIME, FAKETIME_TIMESTAMP_FILE: clock, FAKETIME_CACHE_DURATION: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1' }, root, ['--watch', watch]);
    writeFileSync(clock, '-3d\n');
    await waitFor(async () => (await d.call('status')).uptime_s >= 2, 'two seconds of uptime');
    const s = await d.call('status');
    expect(s.uptime_s).toBeGreaterThanOrEqual(2);
    expect(s.uptime_s).toBeLessThan(600);
  });

  it('ends every command with an error when the daemon is stopped and answers nothing', async () => {
    const { env, root, watch } = await setup();
    await writeFile(join(watch, 'a.jsonl'), userLine('a session of a daemon that is about to be stopped') + agentLine('ok'));
    const d = await start(env, root, ['--watch', watch]);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    d.child.kill('SIGSTOP');
    try {
      // Exit 7 (a daemon holds the store), not 1: `verify` exiting 1 would read as damage found.
      for (const args of [['list'], ['status', '--wait'], ['verify', '--all']]) {
        const t0 = Date.now();
        const r = await Promise.race([spawnCli(args, { env }), new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000))]);
        expect(r, `${args.join(' ')} still running after 20 s`).not.toBeNull();
        expect(r?.code, `${args.join(' ')}: ${r?.err}`).toBe(7);
        expect(r?.err).toContain(`the daemon (pid ${d.child.pid}) holds the store`);
        expect(r?.err).toContain('did not answer within 5 s');
        expect(r?.err).toContain(`kill -CONT ${d.child.pid}`);
        expect(Date.now() - t0).toBeLessThan(15_000);
      }
    } finally {
      d.child.kill('SIGCONT');
    }
  }, 120_000);

  it("finds the daemon by the store's lock when its socket is in another runtime folder (a service's XDG_RUNTIME_DIR), and never writes beside it", async () => {
    const { env, watch } = await setup();
    await writeFile(join(watch, 'a.jsonl'), userLine('a session of a daemon run as a service') + agentLine('ok'));
    const serviceEnv = { ...env, XDG_RUNTIME_DIR: tempDir('handoff-xdg-') };
    const d = spawnDaemon(serviceEnv, ['--watch', watch]);
    children.push(d.child);
    await waitFor(() => d.log().includes('is running'), 'the daemon to start', 15_000);
    // A command from cron or sudo: no XDG_RUNTIME_DIR, so it looks for the socket in the store.
    const s = await runCli(['status', '--json', '--wait'], { env });
    expect(s.code, s.err).toBe(0);
    expect(JSON.parse(s.out).pid).toBe(d.child.pid);
    const c = await runCli(['checkpoint', 'a', '--json'], { env });
    expect(c.code, c.err).toBe(0);
    await appendFile(join(watch, 'a.jsonl'), userLine('one more request after the checkpoint'));
    await waitFor(async () => (await runCli(['show', 'a', '--json'], { env })).out.includes('one more request after the checkpoint'), 'the append to be built', 15_000);
    expect((await runCli(['verify', '--all', '--source'], { env })).code).toBe(0);
    // Stopped (SIGSTOP) it is still the lock's holder: a write is refused, not made beside it.
    d.child.kill('SIGSTOP');
    try {
      const b = await spawnCli(['build', join(watch, 'a.jsonl')], { env });
      expect(b.code).not.toBe(0);
    } finally {
      d.child.kill('SIGCONT');
    }
  }, 60_000);
});
