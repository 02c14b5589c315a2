import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { createConnection } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon, UNPRIVILEGED } from '../daemon-harness.js';
import { peakRssMb, ROOT, runCli, tempDir, testEnv } from '../helpers.js';

/**
 * Everything at once, as a careless machine has it: a watch root holding a symbolic-link loop,
 * 5,000 transcripts, a FIFO, an unreadable file and a 70 MB line, while 1,000 clients hold idle
 * connections. Throughout, a probe in a process of its own asks `hello` every 50 ms: every answer
 * comes within 100 ms and 99 % within 25 ms; the daemon's peak memory stays under 270 MB; every
 * readable transcript is built, and `verify --all` passes.
 *
 * The latency asserted is what the daemon took: the probe's wall-clock time less the time the
 * daemon's event-loop thread and the probe's thread spent ready but waiting for a core (their
 * run-queue waits, from /proc/<pid>/schedstat). On a 2-core host that other work keeps at a load
 * of 8 or more, those waits alone reach 100 ms, whatever the daemon does. Both figures are
 * printed, with the load average.
 *
 * The store and the transcripts live on tmpfs (/dev/shm) where there is one: this measures the
 * daemon, not the disk (5,000 fsynced manifests cost 10-60 s on a shared host's ext4).
 */

const TRANSCRIPTS = 5000;
const FOLDERS = 50;
const IDLE_CLIENTS = 1000;
const HELLO_BUDGET_MS = 100;
/**
 * The issue asked for 300 MB. The daemon peaked at 168-192 MB here when this budget was set (runs
 * on a 2-core host at a load of 2.3 to 9; docs/PERFORMANCE.md, "Daemon memory"), at 272-313 MB
 * before the fixes recorded there. Since then the redactor's rules have grown severalfold: on
 * 2026-12-04 the code at 7e7ed36 peaked at 222-235 MB (5 runs), the code of that evening at
 * 223-240 MB in 11 of 12 runs and at 259 MB in one, so 240 failed a full run now and then. 270
 * stays under the 300, still fails on the daemon as it was before those fixes, and leaves
 * the collector's timing on a loaded host its spread.
 */
const RSS_BUDGET_MB = 270;
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

function percentile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * q)] ?? 0;
}

const p99 = (xs: readonly number[]): number => percentile(xs, 0.99);


interface Sample {
  /** Since the probe started, ms. */
  at: number;
  /** From the request to its answer, as the probe's clock saw it. */
  wall: number;
  /**
   * Of that, the time the daemon's event-loop thread and the probe's own thread spent ready to
   * run but waiting for a core (their run-queue waits in /proc/<pid>/schedstat; 0 where there is
   * no such file): time the host gave to other work.
   */
  queued: number;
}

/** What the daemon itself took to answer: the wall-clock time less the waits for a core. */
const own = (x: Sample): number => Math.max(0, x.wall - x.queued);

/**
 * Asks `hello` every PROBE_EVERY_MS on one connection, from a process of its own: what it
 * measures is the daemon, not this test's own busy moments (creating 1,000 connections).
 */
function probe(socket: string, daemonPid: number): { stop: () => Promise<Sample[]>; slow: () => string } {
  const script = `
    import { readFileSync } from 'node:fs';
    import { ControlClient } from ${JSON.stringify(join(ROOT, 'dist', 'control', 'client.js'))};
    const waited = (pid) => { try { return Number(readFileSync('/proc/' + pid + '/schedstat', 'utf8').split(' ')[1]) / 1e6; } catch { return 0; } };
    const queued = () => waited(${daemonPid}) + waited(process.pid);
    const c = await ControlClient.connect(${JSON.stringify(socket)});
    const t00 = Date.now();
    let stop = false;
    process.stdin.on('end', () => (stop = true)).resume();
    while (!stop) {
      const q0 = queued();
      const t0 = performance.now();
      try { await c.call('hello', undefined, 10000); } catch { console.log(JSON.stringify([Date.now() - t00, 1e9, 0])); break; }
      const wall = performance.now() - t0;
      console.log(JSON.stringify([Date.now() - t00, wall, queued() - q0]));
      await new Promise((r) => setTimeout(r, ${PROBE_EVERY_MS}));
    }
    c.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const samples = (): Sample[] =>
    out
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => {
        const [at, wall, queued] = JSON.parse(l) as [number, number, number];
        return { at, wall, queued };
      });
  return {
    slow: () =>
      samples()
        .filter((x) => x.wall > HELLO_BUDGET_MS / 2)
        .map((x) => `${(x.at / 1000).toFixed(1)} s: ${x.wall.toFixed(0)} ms (${x.queued.toFixed(0)} ms waiting for a core)`)
        .join(', '),
    stop: async () => {
      child.stdin.end();
      await exited;
      return samples();
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
    const p = probe(d.socket, d.child.pid as number);
    try {
      const idle = await openIdle(d.socket, IDLE_CLIENTS);
      const flushed = await d.call('flush', { timeout_ms: 280_000 }, 290_000);
      const built = Date.now();
      const s = await d.call('status');
      const verify = await runCli(['verify', '--all'], { env });
      const samples = await p.stop();
      const rss = peakRssMb(d.child.pid as number);
      const after = await d.call('status');
      const held = after.connections.open;
      const loop = after.event_loop;
      for (const c of idle) c.destroy();

      const wall = samples.map((x) => x.wall);
      const daemon = samples.map(own);
      const f = (xs: readonly number[]): string => `p50 ${percentile(xs, 0.5).toFixed(1)} ms, p99 ${p99(xs).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;
      console.log(
        `[hostile-workspace] built ${s.sessions.length} sessions in ${((built - started) / 1000).toFixed(1)} s (flush rounds ${flushed.rounds}); verify --all ${((Date.now() - built) / 1000).toFixed(1)} s; ` +
          `hello: ${samples.length} probes, wall clock ${f(wall)}; less the waits for a core ${f(daemon)} (over ${HELLO_BUDGET_MS / 2} ms: ${p.slow() || 'none'}); ` +
          `daemon event loop late by at most ${loop.delay_max_ms} ms (p99 ${loop.delay_p99_ms} ms); peak RSS ${rss?.toFixed(0) ?? '?'} MB; ${held} connections held; ` +
          `host load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${availableParallelism()} cores`,
      );

      expect(held).toBeGreaterThanOrEqual(IDLE_CLIENTS);
      // What the daemon took, its own work and pauses included, every time; what the probe's clock
      // saw besides is time the host gave to other work (printed above, with the load average).
      expect(samples.length).toBeGreaterThan(100);
      expect(Math.max(...daemon)).toBeLessThan(HELLO_BUDGET_MS);
      expect(p99(daemon)).toBeLessThan(HELLO_BUDGET_MS / 4);
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
