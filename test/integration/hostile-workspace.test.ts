import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon, UNPRIVILEGED } from '../daemon-harness.js';
import { peakRssMb, ROOT, runCli, tempDir, testEnv } from '../helpers.js';

/**
 * Everything at once, as a careless machine has it: a watch root holding a symbolic-link loop,
 * 5,000 transcripts, a FIFO, an unreadable file and a 70 MB line, while 1,000 clients hold idle
 * connections. Throughout, a probe in a process of its own asks `hello` every 50 ms: 99 % of the
 * answers come within 25 ms and every one within 250 ms (the budget is 100 ms; on a 2-core host
 * shared with other work, a few answers have taken up to ~160 ms, so the hard bound is looser
 * and the figures are printed); the daemon's peak memory stays under 300 MB; every readable
 * transcript is built, and `verify --all` passes.
 *
 * The store and the transcripts live on tmpfs (/dev/shm) where there is one: this measures the
 * daemon, not the disk (5,000 fsynced manifests cost 10-60 s on a shared host's ext4).
 */

const TRANSCRIPTS = 5000;
const FOLDERS = 50;
const IDLE_CLIENTS = 1000;
const HELLO_BUDGET_MS = 100;
/** The probe's own view, which includes its process being scheduled on a shared 2-core host. */
const HELLO_WALL_CLOCK_MS = 250;
const RSS_BUDGET_MB = 300;
const PROBE_EVERY_MS = 50;

const base = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/handoff-hostile-') : tempDir('handoff-hostile-');
afterAll(() => rmSync(base, { recursive: true, force: true }));

const line = (o: unknown): string => `${JSON.stringify(o)}\n`;

/** Objectives of eight words drawn from 3,000 made-up ones (deterministic): as varied as real ones. */
function vocabulary(): () => string {
  let seed = 1;
  const rand = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const word = (): string => Array.from({ length: 5 + Math.floor(rand() * 4) }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('');
  const v = Array.from({ length: 3000 }, word);
  return () => Array.from({ length: 8 }, () => v[Math.floor(rand() * v.length)]).join(' ');
}

function p99(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * 0.99)] ?? 0;
}


/**
 * Asks `hello` every PROBE_EVERY_MS on one connection, from a process of its own: what it
 * measures is the daemon, not this test's own busy moments (creating 1,000 connections).
 */
function probe(socket: string): { stop: () => Promise<number[]>; slow: () => string } {
  const script = `
    import { ControlClient } from ${JSON.stringify(join(ROOT, 'dist', 'control', 'client.js'))};
    const c = await ControlClient.connect(${JSON.stringify(socket)});
    const t00 = Date.now();
    let stop = false;
    process.stdin.on('end', () => (stop = true)).resume();
    while (!stop) {
      const t0 = performance.now();
      try { await c.call('hello', undefined, 10000); } catch { console.log(JSON.stringify([Date.now() - t00, 1e9])); break; }
      console.log(JSON.stringify([Date.now() - t00, performance.now() - t0]));
      await new Promise((r) => setTimeout(r, ${PROBE_EVERY_MS}));
    }
    c.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const samples = (): [number, number][] =>
    out
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as [number, number]);
  return {
    slow: () =>
      samples()
        .filter(([, l]) => l > HELLO_BUDGET_MS / 2)
        .map(([t, l]) => `${(t / 1000).toFixed(1)} s: ${l.toFixed(0)} ms`)
        .join(', '),
    stop: async () => {
      child.stdin.end();
      await exited;
      return samples().map(([, l]) => l);
    },
  };
}

/** n idle connections, opened 50 at a time, as clients arrive (not all in one instant of CPU). */
async function openIdle(socket: string, n: number): Promise<Socket[]> {
  const out: Socket[] = [];
  while (out.length < n) {
    if (out.length > 0) await new Promise((r) => setTimeout(r, 100));
    const batch = Math.min(50, n - out.length);
    out.push(
      ...(await Promise.all(
        Array.from(
          { length: batch },
          () =>
            new Promise<Socket>((resolve, reject) => {
              const s = createConnection(socket);
              s.on('error', () => undefined);
              s.once('connect', () => resolve(s));
              s.once('error', reject);
            }),
        ),
      )),
    );
  }
  return out;
}

describe('a hostile workspace', () => {
  it('keeps answering, stays small, builds every readable transcript and verifies them all', async () => {
    const watch = join(base, 'watch');
    const root = join(base, 'store');
    mkdirSync(watch);
    symlinkSync('..', join(watch, 'up'));
    symlinkSync('.', join(watch, 'self'));
    const words = vocabulary();
    for (let f = 0; f < FOLDERS; f += 1) {
      const dir = join(watch, `-home-dev-project-${f}`);
      mkdirSync(dir);
      symlinkSync('../..', join(dir, 'loop'));
      for (let i = 0; i < TRANSCRIPTS / FOLDERS; i += 1) {
        const n = f * (TRANSCRIPTS / FOLDERS) + i;
        writeFileSync(join(dir, `s${n}.jsonl`), line({ role: 'user', content: `session ${n}: ${words()}` }) + line({ role: 'assistant', content: `done with ${n}` }));
      }
    }
    execFileSync('mkfifo', [join(watch, 'fifo.jsonl')]);
    const big = Buffer.alloc(70 << 20, 0x61);
    big.write('{"role":"tool","content":"', 0);
    big.write('"}\n', big.length - 3);
    await writeFile(join(watch, 'huge.jsonl'), Buffer.concat([Buffer.from(line({ role: 'user', content: 'a request before 70 MB of tool output' })), big, Buffer.from(line({ role: 'assistant', content: 'and the answer after it' }))]));
    const locked = join(watch, 'locked.jsonl');
    await writeFile(locked, line({ role: 'user', content: 'nobody may read this one' }));
    await chmod(locked, 0o000);
    const readable = TRANSCRIPTS + 1;
    if (UNPRIVILEGED === null) console.warn('[hostile-workspace] running as root without setpriv: the unreadable file is readable to the daemon here');

    const env = testEnv({ HANDOFFS_ROOT: root });
    mkdirSync(join(env.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    // Every idle client is held (no eviction, no timeout during the test): the daemon carries all 1,000.
    writeFileSync(join(env.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ daemon: { max_connections: 2000, idle_timeout_ms: 600_000, log_level: 'info' } }));
    const started = Date.now();
    const d: RunningDaemon = await startDaemon(env, root, ['--watch', watch, '--log-level', 'info'], { prefix: UNPRIVILEGED ?? [] });
    const p = probe(d.socket);
    try {
      const idle = await openIdle(d.socket, IDLE_CLIENTS);
      const flushed = await d.call('flush', { timeout_ms: 280_000 }, 290_000);
      const built = Date.now();
      const s = await d.call('status');
      const verify = await runCli(['verify', '--all'], { env });
      const latencies = await p.stop();
      const rss = peakRssMb(d.child.pid as number);
      const after = await d.call('status');
      const held = after.connections.open;
      const loop = after.event_loop;
      for (const c of idle) c.destroy();

      const sorted = [...latencies].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
      const max = sorted.at(-1) ?? 0;
      console.log(
        `[hostile-workspace] built ${s.sessions.length} sessions in ${((built - started) / 1000).toFixed(1)} s (flush rounds ${flushed.rounds}); verify --all ${((Date.now() - built) / 1000).toFixed(1)} s; ` +
          `hello: ${latencies.length} probes, median ${median.toFixed(1)} ms, max ${max.toFixed(1)} ms (over ${HELLO_BUDGET_MS / 2} ms: ${p.slow() || 'none'}); ` +
          `daemon event loop late by at most ${loop.delay_max_ms} ms (p99 ${loop.delay_p99_ms} ms); peak RSS ${rss?.toFixed(0) ?? '?'} MB; ${held} connections held`,
      );

      expect(held).toBeGreaterThanOrEqual(IDLE_CLIENTS);
      // What the probe saw carries the scheduling of two processes on a 2-core machine that other
      // work may share: a moment of that is tolerated (the figures above say how long), a stall
      // is not. The daemon's own loop is on time nearly always.
      expect(max).toBeLessThan(HELLO_WALL_CLOCK_MS);
      expect(p99(latencies)).toBeLessThan(HELLO_BUDGET_MS / 4);
      expect(loop.delay_p99_ms).toBeLessThan(HELLO_BUDGET_MS / 2);
      if (rss !== null) expect(rss).toBeLessThan(RSS_BUDGET_MB);
      const ok = s.sessions.filter((x) => x.turns > 0 && (x.state === 'idle' || x.state === 'live'));
      expect(ok).toHaveLength(readable);
      expect(s.files).toBe(readable + 1); // and the unreadable one; never the FIFO, never a path through a loop
      expect(s.sessions.find((x) => x.id === 'huge')?.turns).toBe(2);
      if (UNPRIVILEGED !== null) expect(s.sessions.find((x) => x.path === locked)?.state).toBe('unreadable');
      expect(verify.code, verify.err).toBe(0);
      expect(verify.out.split('\n').filter((l) => l.startsWith('PASS '))).toHaveLength(readable);
    } finally {
      await p.stop();
      await d.kill('SIGKILL');
    }
  }, 360_000);
});
