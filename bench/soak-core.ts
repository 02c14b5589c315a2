import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ControlClient } from '../src/control/client.js';

/**
 * The crash soak: writers append transcripts into watched folders in random pieces (often cut
 * mid-line) while the daemon is killed with SIGKILL at random moments, now and then stopped
 * with SIGTERM, and restarted. At the end, after `flush`, every session's timeline is compared
 * with what was written: turns lost and turns duplicated must both be 0.
 *
 * Shared by `npm run soak` (bench/soak.ts) and a short test (test/integration/crash-soak.test.ts).
 */

export interface SoakFile {
  /** File name inside the watched folder. */
  name: string;
  /** Everything that will have been written when the soak ends. */
  bytes: Buffer;
}

export interface SoakOptions {
  cli: string;
  env: NodeJS.ProcessEnv;
  root: string;
  watch: string;
  files: SoakFile[];
  /** Kill at least this many times; writing stretches until then. */
  minKills: number;
  /** Writing is spread over this long; the daemon is killed at random moments meanwhile. */
  seconds: number;
  /** One restart in this many uses SIGTERM instead of SIGKILL (0 = never). */
  sigtermEvery: number;
  seed: number;
  /**
   * What a one-shot build of `path` yields: its timeline ([seq, class, text] per turn) and its
   * handoff as handoffFacts reads it.
   */
  expected: (path: string) => Promise<{ turns: [number, string, string][]; handoff: unknown }>;
  log?: (msg: string) => void;
}

export interface SoakResult {
  lines: number;
  files: number;
  kills: number;
  sigterms: number;
  lost: number;
  dup: number;
  mismatched: number;
  /** Sessions whose handoff (handoffFacts) differs from the one-shot build's. */
  handoffs_differ: number;
  seconds: number;
  details: { file: string; expected: number; got: number; lost: number; dup: number; mismatched: number; handoff_same: boolean; handoff_diff?: string[] }[];
}

/**
 * What HANDOFF.llm.json says about a session, without what differs between two stores that
 * built the same bytes (when and where it was built, the repository's state, a random chain id):
 * a session built across kills and restarts, its state caught up from the transcript
 * (FORMAT.md, "A state left behind"), must say exactly what a one-shot build says.
 */
export async function handoffFacts(dir: string): Promise<Record<string, unknown>> {
  const llm = JSON.parse(await readFile(join(dir, 'HANDOFF.llm.json'), 'utf8')) as Record<string, unknown>;
  const { generated_at: _g, provenance: _p, artifacts: _a, git: _git, chain_id: _c, ...rest } = llm;
  return rest;
}

/** The top-level members of two handoffs that differ. */
function differences(a: unknown, b: unknown): string[] {
  const x = (a ?? {}) as Record<string, unknown>;
  const y = (b ?? {}) as Record<string, unknown>;
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]));
}

/** mulberry32: a small seeded generator, so a failing run can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}


class DaemonProc {
  child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  log = '';

  constructor(
    private readonly opts: SoakOptions,
    private readonly socket: string,
  ) {}

  async start(): Promise<void> {
    const child = spawn(process.execPath, [this.opts.cli, 'daemon', '--watch', this.opts.watch, '--log-level', 'warn'], { env: this.opts.env, cwd: this.opts.env.HOME, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d: Buffer) => (this.log = (this.log + d.toString()).slice(-20_000)));
    child.stderr?.on('data', (d: Buffer) => (this.log = (this.log + d.toString()).slice(-20_000)));
    this.exited = new Promise((r) => child.on('exit', () => r()));
    this.child = child;
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the daemon exited while starting (code ${child.exitCode}):\n${this.log}`);
      try {
        const c = await ControlClient.connect(this.socket, 500);
        const hello = await c.call('hello', undefined, 2000);
        c.close();
        if (hello.pid === child.pid) return;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) throw new Error(`the daemon did not come up within 20 s:\n${this.log}`);
      await sleep(20);
    }
  }

  async stop(signal: NodeJS.Signals): Promise<void> {
    this.child?.kill(signal);
    await this.exited;
    if (signal === 'SIGTERM' && this.child?.exitCode !== 0) throw new Error(`SIGTERM: the daemon exited with ${this.child?.exitCode}:\n${this.log}`);
  }
}

/** Splits a buffer into random pieces, most of them ending mid-line. */
export function pieces(bytes: Buffer, rand: () => number, maxPiece: number): Buffer[] {
  const out: Buffer[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const n = 1 + Math.floor(rand() * maxPiece);
    out.push(bytes.subarray(pos, Math.min(bytes.length, pos + n)));
    pos += n;
  }
  return out;
}

export async function runSoak(opts: SoakOptions): Promise<SoakResult> {
  const started = Date.now();
  const rand = rng(opts.seed);
  const log = opts.log ?? (() => undefined);
  await mkdir(opts.watch, { recursive: true });
  const socket = join(opts.root, '.handoffd', 'handoffd.sock');
  const daemon = new DaemonProc(opts, socket);
  await daemon.start();
  try {
    return await soak(opts, daemon, socket, rand, started, log);
  } finally {
    if (daemon.child && daemon.child.exitCode === null && daemon.child.signalCode === null) await daemon.stop('SIGKILL').catch(() => undefined);
  }
}

async function soak(opts: SoakOptions, daemon: DaemonProc, socket: string, rand: () => number, started: number, log: (m: string) => void): Promise<SoakResult> {

  const queues = opts.files.map((f) => ({ path: join(opts.watch, f.name), rest: pieces(f.bytes, rand, 4096) }));
  for (const q of queues) {
    await mkdir(join(q.path, '..'), { recursive: true });
    await writeFile(q.path, '');
  }
  let kills = 0;
  let sigterms = 0;
  let writing = true;

  // Kills land at random moments, often enough to reach minKills well within the writing time.
  const meanGapMs = Math.max(200, (opts.seconds * 1000) / (opts.minKills * 1.6));
  const killer = (async () => {
    while (writing || kills < opts.minKills) {
      await sleep(Math.floor(meanGapMs * (0.3 + 1.4 * rand())));
      const term = opts.sigtermEvery > 0 && (kills + sigterms) % opts.sigtermEvery === opts.sigtermEvery - 1;
      await daemon.stop(term ? 'SIGTERM' : 'SIGKILL');
      if (term) sigterms += 1;
      else kills += 1;
      log(`${term ? 'SIGTERM' : 'SIGKILL'} #${term ? sigterms : kills}`);
      await daemon.start();
    }
  })();

  // Rounds (one piece to every file) are spread evenly over the writing time.
  const deadline = started + opts.seconds * 1000;
  let rounds = Math.max(...queues.map((q) => q.rest.length));
  while (queues.some((q) => q.rest.length > 0)) {
    for (const q of queues) {
      const piece = q.rest.shift();
      if (piece) await appendFile(q.path, piece);
    }
    rounds -= 1;
    await sleep(Math.max(0, (deadline - Date.now()) / Math.max(1, rounds)));
  }
  writing = false;
  await killer;

  const c = await ControlClient.connect(socket);
  await c.call('flush', { timeout_ms: 120_000 }, 130_000);
  const status = await c.call('status');
  c.close();

  const byPath = new Map(status.sessions.map((s) => [s.path, s]));
  const result: SoakResult = { lines: 0, files: opts.files.length, kills, sigterms, lost: 0, dup: 0, mismatched: 0, handoffs_differ: 0, seconds: 0, details: [] };
  for (const q of queues) {
    const expected = await opts.expected(q.path);
    result.lines += (await readFile(q.path, 'utf8')).split('\n').length - 1;
    const s = byPath.get(q.path);
    const got: [number, string, string][] = s ? await readTimeline(join(s.dir, 'timeline.jsonl')) : [];
    const d = compare(expected.turns, got);
    result.lost += d.lost;
    result.dup += d.dup;
    result.mismatched += d.mismatched;
    const diff = s ? differences(expected.handoff, await handoffFacts(s.dir)) : ['(no session)'];
    if (diff.length > 0) result.handoffs_differ += 1;
    result.details.push({ file: q.path, expected: expected.turns.length, got: got.length, ...d, handoff_same: diff.length === 0, ...(diff.length > 0 ? { handoff_diff: diff } : {}) });
  }
  await daemon.stop('SIGTERM');
  result.seconds = Math.round((Date.now() - started) / 100) / 10;
  return result;
}

async function readTimeline(path: string): Promise<[number, string, string][]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => {
      const t = JSON.parse(l) as { seq: number; class: string; text: string };
      return [t.seq, t.class, t.text];
    });
}

/** Turns lost (expected, never written), duplicated (written twice) and changed. */
export function compare(expected: [number, string, string][], got: [number, string, string][]): { lost: number; dup: number; mismatched: number } {
  const want = new Map(expected.map((t) => [t[0], t]));
  const seen = new Map<number, number>();
  let mismatched = 0;
  for (const t of got) {
    seen.set(t[0], (seen.get(t[0]) ?? 0) + 1);
    const w = want.get(t[0]);
    if (w && (w[1] !== t[1] || w[2] !== t[2])) mismatched += 1;
  }
  let lost = 0;
  for (const seq of want.keys()) if (!seen.has(seq)) lost += 1;
  let dup = 0;
  for (const [seq, n] of seen) dup += want.has(seq) ? n - 1 : n;
  return { lost, dup, mismatched };
}
