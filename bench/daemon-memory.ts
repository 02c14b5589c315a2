import { execFile, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { createConnection } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callDaemon } from '../src/control/client.js';
import { cpuSeconds, median } from './metrics.js';

/**
 * The daemon's memory on the hostile workspace of test/integration/hostile-workspace.test.ts: a
 * watch root with symbolic-link loops, 5,000 small transcripts in 50 folders, a FIFO, an
 * unreadable file and one 70 MB line, 1,000 idle connections, a backfill to the end (`flush`)
 * and `verify --all` through the daemon. Prints, per run, the peak RSS (VmHWM) and the peak of
 * each phase, the daemon's CPU time and the load average; then the medians.
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node .bench/bench/daemon-memory.js [--runs 3] [-- node flags for the daemon]
 *
 * Runs as root go through setpriv (as the test does) so that the unreadable file stays unreadable.
 */

const PROJECT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const CLI = join(PROJECT, 'dist', 'cli.js');
const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const RUNS = Number(argv[argv.indexOf('--runs') + 1] ?? 3) || 3;
const NODE_FLAGS = dash === -1 ? [] : argv.slice(dash + 1);

function workspace(base: string): string {
  const watch = join(base, 'watch');
  mkdirSync(watch, { recursive: true });
  let seed = 1;
  const rand = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const word = (): string => Array.from({ length: 5 + Math.floor(rand() * 4) }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('');
  const vocabulary = Array.from({ length: 3000 }, word);
  const words = (): string => Array.from({ length: 8 }, () => vocabulary[Math.floor(rand() * vocabulary.length)]).join(' ');
  const line = (o: unknown): string => `${JSON.stringify(o)}\n`;
  symlinkSync('..', join(watch, 'up'));
  symlinkSync('.', join(watch, 'self'));
  for (let f = 0; f < 50; f += 1) {
    const dir = join(watch, `-home-dev-project-${f}`);
    mkdirSync(dir);
    symlinkSync('../..', join(dir, 'loop'));
    for (let i = 0; i < 100; i += 1) {
      const n = f * 100 + i;
      writeFileSync(join(dir, `s${n}.jsonl`), line({ role: 'user', content: `session ${n}: ${words()}` }) + line({ role: 'assistant', content: `done with ${n}` }));
    }
  }
  execFileSync('mkfifo', [join(watch, 'fifo.jsonl')]);
  const big = Buffer.alloc(70 << 20, 0x61);
  big.write('{"role":"tool","content":"', 0);
  big.write('"}\n', big.length - 3);
  writeFileSync(join(watch, 'huge.jsonl'), Buffer.concat([Buffer.from(line({ role: 'user', content: 'a request before 70 MB of tool output' })), big, Buffer.from(line({ role: 'assistant', content: 'and the answer after it' }))]));
  writeFileSync(join(watch, 'locked.jsonl'), line({ role: 'user', content: 'nobody may read this one' }));
  chmodSync(join(watch, 'locked.jsonl'), 0);
  return watch;
}

interface Run {
  peak_rss_mb: number;
  phases: Record<string, number>;
  cpu_s: number;
  backfill_s: number;
  verified: number;
  load: number;
}

const status = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};
const mb = (text: string, key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;

async function openIdle(socket: string, n: number): Promise<Socket[]> {
  const out: Socket[] = [];
  while (out.length < n) {
    await new Promise((r) => setTimeout(r, 100));
    out.push(...(await Promise.all(Array.from({ length: 50 }, () => new Promise<Socket>((resolve, reject) => {
      const s = createConnection(socket);
      s.on('error', () => undefined);
      s.once('connect', () => resolve(s));
      s.once('error', reject);
    })))));
  }
  return out;
}

async function once(watch: string): Promise<Run> {
  const home = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'handoff-memory-'));
  const root = join(home, 'store');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1', HANDOFFS_ROOT: root };
  mkdirSync(join(home, '.config', 'handoff'), { recursive: true });
  writeFileSync(join(home, '.config', 'handoff', 'handoff.config.json'), JSON.stringify({ daemon: { max_connections: 2000, idle_timeout_ms: 600_000 } }));
  const asRoot = process.getuid?.() === 0;
  const argv = [...(asRoot ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--'] : []), process.execPath, ...NODE_FLAGS, CLI, 'daemon', '--log-level', 'warn', '--watch', watch];
  const child = spawn(argv[0] as string, argv.slice(1), { env, cwd: home, stdio: 'ignore' });
  const pid = child.pid as number;
  const socket = join(root, '.handoffd', 'handoffd.sock');
  const phases: Record<string, number> = {};
  let phase = 'start';
  const sampler = setInterval(() => (phases[phase] = Math.max(phases[phase] ?? 0, mb(status(pid), 'VmRSS'))), 50);
  const t0 = Date.now();
  try {
    for (;;) {
      try {
        if ((await callDaemon(socket, 'hello')).pid === pid) break;
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 30));
    }
    phase = 'connections';
    const idle = await openIdle(socket, 1000);
    phase = 'backfill';
    await callDaemon(socket, 'flush', { timeout_ms: 280_000 }, 290_000);
    const backfill = (Date.now() - t0) / 1000;
    phase = 'verify';
    const out = await new Promise<string>((resolve) => execFile(process.execPath, [CLI, 'verify', '--all'], { env, maxBuffer: 1 << 28 }, (e, o) => resolve(e ? '' : o)));
    const run: Run = { peak_rss_mb: Math.round(mb(status(pid), 'VmHWM')), phases: {}, cpu_s: cpuSeconds(pid), backfill_s: Math.round(backfill), verified: out.split('\n').filter((l) => l.startsWith('PASS ')).length, load: loadavg()[0] ?? 0 };
    for (const [k, v] of Object.entries(phases)) run.phases[k] = Math.round(v);
    for (const s of idle) s.destroy();
    return run;
  } finally {
    clearInterval(sampler);
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
}

const base = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'handoff-memory-ws-'));
try {
  const watch = workspace(base);
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const r = await once(watch);
    runs.push(r);
    console.log(JSON.stringify(r));
  }
  const m = (f: (r: Run) => number): number => Math.round(median(runs.map(f)) * 10) / 10;
  console.log(`median of ${RUNS}: peak RSS ${m((r) => r.peak_rss_mb)} MB; CPU ${m((r) => r.cpu_s)} s; backfill ${m((r) => r.backfill_s)} s; load ${m((r) => r.load)}${NODE_FLAGS.length > 0 ? ` (node ${NODE_FLAGS.join(' ')})` : ''}`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
