import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { copyFile, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import type { Io } from '../src/cli/io.js';
import { main } from '../src/cli.js';
import { STATE_FILE_RE } from '../src/store/layout.js';
import { decodeStateSync } from '../src/store/state-file.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURES = join(ROOT, 'test', 'fixtures');
export const CLI = join(ROOT, 'dist', 'cli.js');
export const CORPUS = resolve(ROOT, '..', 'shared', 'corpus');

const made: string[] = [];
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh temp folder, removed after the test file. */
export function tempDir(prefix = 'handoff-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

/** Copies a fixture into a folder (tests append to their own copies, never to fixtures). */
export async function copyFixture(name: string, dir: string, as?: string): Promise<string> {
  const to = join(dir, as ?? name);
  await copyFile(fixture(name), to);
  return to;
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Environment for a test: a private HOME and store, no colour, nothing inherited that matters. */
export function testEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const home = tempDir('handoff-home-');
  return { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1', ...extra };
}

/** Runs the CLI in this process with captured output. */
export async function runCli(args: readonly string[], opts: { env: NodeJS.ProcessEnv; cwd?: string; columns?: number }): Promise<CliResult> {
  let out = '';
  let err = '';
  const io: Io = {
    out: (t) => void (out += t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => void (err += t.endsWith('\n') ? t : `${t}\n`),
    env: opts.env,
    cwd: opts.cwd ?? opts.env.HOME ?? tmpdir(),
    stdoutIsTTY: false,
    columns: opts.columns ?? 120,
    color: false,
    now: () => new Date(),
    interrupted: new Promise(() => undefined),
  };
  const code = await main(args, io);
  return { code, out, err };
}

/** Runs the built CLI as a child process. */
export function spawnCli(args: readonly string[], opts: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<CliResult & { signal: NodeJS.Signals | null }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: opts.env, cwd: opts.cwd ?? opts.env.HOME, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code: code ?? -1, signal, out, err }));
  });
}

/** Polls until `cond` holds (or returns a value), failing with `what` after `timeoutMs`. */
export async function waitFor<T>(cond: () => T | Promise<T>, what: string, timeoutMs = 10_000, intervalMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Lets everything already due run (promise jobs, timers due now, I/O callbacks), a few rounds:
 * for a check that something has *not* happened, in place of a sleep a slow machine could outlast.
 * It waits for the event loop, not for the clock.
 */
export async function settled(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i += 1) {
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 0));
  }
}

/**
 * `count` strings, each of up to `maxParts - 1` pieces drawn from `parts`, the same for the same
 * seed (a linear congruential generator): generated inputs for comparing two implementations.
 */
export function seededStrings(count: number, seed: number, parts: readonly string[], maxParts: number): string[] {
  let x = seed;
  const next = (): number => (x = (x * 1103515245 + 12345) % 2147483648);
  const out: string[] = [];
  for (let k = 0; k < count; k += 1) {
    const n = next() % maxParts;
    let s = '';
    for (let i = 0; i < n; i += 1) s += parts[next() % parts.length];
    out.push(s);
  }
  return out;
}

export const corpusPresent = existsSync(CORPUS);

/** Every transcript of the shared corpus, read in place. */
export function corpusFiles(): string[] {
  if (!corpusPresent) return [];
  const out: string[] = [];
  for (const h of ['claude-code', 'codex']) {
    const dir = join(CORPUS, h);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.jsonl')) out.push(join(dir, f));
  }
  return out;
}

export async function readJson<T = Record<string, unknown>>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

export async function readLines(path: string): Promise<string[]> {
  const t = await readFile(path, 'utf8');
  return t.split('\n').filter((l) => l.length > 0);
}

/** A stored file's text: a compressed one (the carried state) as its contents, so scans read what it holds. */
export async function readStoredText(path: string): Promise<string> {
  const raw = await readFile(path);
  return (STATE_FILE_RE.test(basename(path)) ? decodeStateSync(path, raw) : raw).toString('utf8');
}

/** Every regular file below a folder, depth first. */
export async function everyFile(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await everyFile(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** A process's peak resident memory (VmHWM) in MB, or null where /proc does not say. */
export function peakRssMb(pid: number): number | null {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}
