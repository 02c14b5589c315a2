import { createConnection } from 'node:net';
import { appendFile, lstat, mkdir, readdir, readFile, rename, stat, truncate, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyFixture, readJson, readLines, runCli, tempDir, testEnv, waitFor } from '../helpers.js';
import type { RunningDaemon } from '../daemon-harness.js';
import { socketOf, spawnDaemon, startDaemon } from '../daemon-harness.js';

const running: RunningDaemon[] = [];
afterEach(async (ctx) => {
  for (const d of running.splice(0)) {
    // A failing test shows what the daemon said.
    if (ctx.task.result?.state === 'fail') console.log(`daemon log (pid ${d.child.pid}):\n${d.log()}`);
    if (d.child.exitCode === null && d.child.signalCode === null) await d.kill('SIGKILL');
  }
});

async function setup(): Promise<{ env: NodeJS.ProcessEnv; root: string; watch: string }> {
  const root = tempDir('handoff-store-');
  const watch = tempDir('handoff-watch-');
  return { env: testEnv({ HANDOFFS_ROOT: root }), root, watch };
}

async function start(env: NodeJS.ProcessEnv, root: string, watch: string, more: string[] = []): Promise<RunningDaemon> {
  const d = await startDaemon(env, root, ['--watch', watch, ...more]);
  running.push(d);
  return d;
}

/** Sends raw bytes and collects what comes back until the server closes or `ms` pass. */
function raw(socket: string, payload: string | Buffer, opts: { end?: boolean; ms?: number } = {}): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const s = createConnection(socket);
    let text = '';
    let closed = false;
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ text, closed });
    }, opts.ms ?? 3000);
    s.on('data', (d) => (text += d.toString()));
    s.on('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve({ text, closed });
    });
    s.on('error', () => undefined);
    s.write(payload);
    if (opts.end) s.end();
  });
}

describe('handoffd', () => {
  it('refreshes a handoff moments after its transcript grows, and picks up a folder created after start', async () => {
    const { env, root, watch } = await setup();
    const later = join(watch, 'later', 'sessions');
    const d = await start(env, root, watch, ['--watch', later]);
    const src = await copyFixture('claude-session.jsonl', watch, 'live.jsonl');
    await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'live' && s.turns === 15), 'the new session to be built');
    await appendFile(src, `${JSON.stringify({ type: 'user', sessionId: 's', cwd: '/home/dev/uploader', message: { role: 'user', content: 'one more thing: update the changelog' } })}\n`);
    await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'live' && s.turns === 16), 'the appended turn');
    await mkdir(later, { recursive: true });
    await copyFixture('codex-rollout.jsonl', later, 'rollout-x.jsonl');
    await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'rollout-x'), 'the folder created after start to be watched');
    const s = await d.call('status');
    expect(s.watch.map((w) => w.exists)).toEqual([true, true]);
    expect((await runCli(['verify', '--all'], { env })).code).toBe(0);
  });

  it('sees a transcript written into a folder the moment the folder is made, and one moved away with its folder, by watch events alone', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, watch);
    const fresh = join(watch, '-home-dev-fresh');
    await mkdir(fresh);
    await copyFixture('claude-session.jsonl', fresh, 'made-with-folder.jsonl');
    // The periodic rescan is a minute away: only events can make these happen within the wait.
    await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'made-with-folder' && s.turns === 15), 'the transcript of the new folder to be built');
    await rename(fresh, join(tempDir('handoff-away-'), 'moved'));
    await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'made-with-folder' && s.state === 'gone'), 'the transcript moved away with its folder to be gone');
  });

  it('refuses a second daemon on the same store (exit 7 naming the pid), survives a stale socket and never deletes a non-socket file', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, watch);
    const second = spawnDaemon(env, ['--watch', watch]);
    const r = await second.exited;
    expect(r.code).toBe(7);
    expect(second.log()).toContain(`pid ${d.child.pid}`);
    const sock = socketOf(root);
    expect((await lstat(sock)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, '.handoffd'))).mode & 0o777).toBe(0o700);
    await d.kill('SIGKILL');
    expect(existsSync(sock)).toBe(true); // left behind by the SIGKILL
    const d2 = await start(env, root, watch);
    expect((await d2.call('hello')).pid).toBe(d2.child.pid);
    await d2.kill('SIGTERM');
    await writeFile(sock, 'not a socket');
    const third = spawnDaemon(env, ['--watch', watch]);
    const t = await third.exited;
    expect(t.code).not.toBe(0);
    expect(third.log()).toMatch(/exists and is not a socket/);
    expect(await readFile(sock, 'utf8')).toBe('not a socket');
  });

  it('answers garbage, bad JSON-RPC, unknown methods, a 2 MiB line and half-open connections with an error or a close, and keeps answering status', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, watch);
    const sock = d.socket;
    const garbage = await raw(sock, 'hello there\n', { ms: 1000 });
    expect(JSON.parse(garbage.text.split('\n')[0] as string)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const notRpc = await raw(sock, '{"id":1,"method":"status"}\n', { ms: 1000 });
    expect(JSON.parse(notRpc.text.split('\n')[0] as string)).toMatchObject({ id: 1, error: { code: -32600 } });
    const unknown = await raw(sock, '{"jsonrpc":"2.0","id":"u","method":"rm -rf"}\n', { ms: 1000 });
    expect(JSON.parse(unknown.text.split('\n')[0] as string)).toMatchObject({ id: 'u', error: { code: -32601 } });
    // A notification (no id) is never answered, not even when its params are wrong.
    const quiet = await raw(sock, '{"jsonrpc":"2.0","method":"status","params":[1]}\n{"jsonrpc":"2.0","id":9,"method":"hello"}\n', { ms: 1000 });
    expect(quiet.text.trim().split('\n').map((l) => (JSON.parse(l) as { id: unknown }).id)).toEqual([9]);
    const badParams = await raw(sock, '{"jsonrpc":"2.0","id":2,"method":"session.get","params":{"id":7}}\n', { ms: 1000 });
    expect(JSON.parse(badParams.text.split('\n')[0] as string)).toMatchObject({ id: 2, error: { code: -32602 } });
    const huge = await raw(sock, Buffer.alloc(2 << 20, 0x61), { ms: 5000 });
    expect(huge.closed).toBe(true);
    expect(huge.text).toMatch(/larger than 1048576 bytes/);
    const halfOpen = await raw(sock, '{"jsonrpc":"2.0","id":3,"meth', { end: true, ms: 3000 });
    expect(halfOpen.closed).toBe(true);
    expect(halfOpen.text).toMatch(/incomplete request/);
    expect((await d.call('status')).pid).toBe(d.child.pid);
  });

  it('closes a connection whose request never finishes', async () => {
    const { env, root, watch } = await setup();
    await mkdir(join(env.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    await writeFile(join(env.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ daemon: { request_timeout_ms: 300 } }));
    const d = await startDaemon({ ...env }, root, ['--watch', watch]);
    running.push(d);
    const stalled = await raw(d.socket, '{"jsonrpc":"2.0","id":4,', { ms: 4000 });
    expect(stalled.closed).toBe(true);
    expect(stalled.text).toMatch(/not finished within 300 ms/);
    expect((await d.call('status')).pid).toBe(d.child.pid);
  });

  it('halts only the session with a corrupt line, resets a truncated one keeping history, and shows both in status', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, watch);
    const bad = join(watch, 'bad.jsonl');
    const firstLine = '{"role":"user","content":"first request, long enough"}\n';
    await writeFile(bad, firstLine);
    const good = await copyFixture('codex-rollout.jsonl', watch, 'good.jsonl');
    await waitFor(async () => (await d.call('status')).sessions.filter((s) => s.turns > 0).length === 2, 'both sessions built');
    const events: string[] = [];
    const { ControlClient } = await import('../../src/control/client.js');
    const sub = await ControlClient.connect(d.socket);
    sub.onNotification((e) => events.push(e));
    await sub.call('subscribe', {});
    await appendFile(bad, '{this is not json}\n{"role":"assistant","content":"after"}\n');
    await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'bad' && s.state === 'halted'), 'the bad session to halt');
    await appendFile(good, `${JSON.stringify({ timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'still here' }] } })}\n`);
    await waitFor(async () => (await d.call('status')).sessions.find((s) => s.id === 'good' && s.turns === 14), 'the good session to keep refreshing');
    const s = await d.call('status');
    const halted = s.sessions.find((x) => x.id === 'bad');
    expect(halted?.halted).toMatchObject({ file: bad, line: 2, offset: Buffer.byteLength(firstLine) });
    expect(halted?.halted?.fix).toMatch(/repair or delete that line/);
    await waitFor(() => events.includes('halted') && events.includes('built'), 'halted and built notifications');
    sub.close();
    // Truncation: the session is rebuilt from byte 0, the old timeline kept in history/.
    await truncate(good, 0);
    await writeFile(good, `${JSON.stringify({ timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a whole new conversation' }] } })}\n`);
    const dir = (await d.call('status')).sessions.find((x) => x.id === 'good')?.dir as string;
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'good' && x.turns === 1), 'the truncated session to reset');
    expect((await readdir(join(dir, 'history'))).some((f) => /-reset-r\d+\.timeline\.jsonl$/.test(f))).toBe(true);
    expect((await runCli(['verify', 'good'], { env })).code).toBe(0);
  });

  it('stops on SIGTERM within 5 s with exit 0, removing its socket and lock; `status` then exits 6', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, watch);
    const t0 = Date.now();
    const r = await d.kill('SIGTERM');
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(existsSync(socketOf(root))).toBe(false);
    expect(existsSync(join(root, '.handoffd', 'handoffd.lock'))).toBe(false);
    const s = await runCli(['status'], { env });
    expect(s.code).toBe(6);
    expect(s.err).toMatch(/no daemon is running/);
    expect(s.err).toMatch(/fix: start it with `handoff daemon`/);
  });

  it('routes CLI writes through the running daemon', async () => {
    const { env, root, watch } = await setup();
    const d = await start(env, root, watch);
    const elsewhere = await copyFixture('generic.jsonl', tempDir('handoff-work-'));
    const b = await runCli(['build', elsewhere, '--json'], { env });
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(b.out)).toMatchObject({ session: 'generic-demo', turns: 5 });
    expect((await d.call('status')).queue.running).toBeNull();
    expect(d.log()).not.toMatch(/HANDOFF_ERR/);
    // build {id}: the session's transcript on record, read again.
    await appendFile(elsewhere, `${JSON.stringify({ role: 'assistant', content: 'one more reply', seq: 9 })}\n`);
    expect(await d.call('build', { id: 'generic' })).toMatchObject({ session: 'generic-demo', turns: 6, new_turns: 1 });
    await expect(d.call('build', {})).rejects.toThrow(/give "path" \(a transcript\) or "id"/);
    const t = await runCli(['retitle', 'generic-demo', 'Design summary'], { env });
    expect(t.code, t.err).toBe(0);
    const entry = await waitFor(async () => (await readJson<{ id: string; dir: string }[]>(join(root, 'INDEX.json'))).find((e) => e.dir.endsWith('/design-summary')), 'INDEX.json to follow the retitle');
    const lines = await readLines(join(entry.dir, 'timeline.jsonl'));
    expect(lines).toHaveLength(6);
  });
});

