import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { round } from './metrics.js';

/**
 * The whole `handoff build` process over a store shaped like a real one, timed from spawn to exit
 * with its peak memory, and what it leaves on disk. Also the peer (ccusage) when it can be run.
 */

export interface ProcessRun {
  seconds: number;
  /** user + system CPU seconds (from /usr/bin/time; NaN without it). */
  cpuSeconds: number;
  /** Peak resident set of the build process (max RSS from /usr/bin/time, else VmHWM polled). */
  peakRssMb: number;
  how: string;
}

const TIME = '/usr/bin/time';

function childEnv(home: string, store: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), HANDOFFS_ROOT: store, NODE_ENV: 'production', ...extra };
}

/** Runs `argv` as a child, timing it and taking its peak RSS; rejects on a non-zero exit. */
export function timedProcess(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<ProcessRun> {
  const withTime = existsSync(TIME);
  const cmd = withTime ? TIME : (argv[0] as string);
  const args = withTime ? ['-v', ...argv] : argv.slice(1);
  mkdirSync(cwd, { recursive: true });
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    let hwm = 0;
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-20_000)));
    // Without /usr/bin/time: the kernel's high-water mark, read until the process is gone.
    const poll = withTime
      ? null
      : setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            hwm = Math.max(hwm, Number(m?.[1] ?? 0));
          } catch {
            /* exited between two polls */
          }
        }, 20);
    child.on('error', reject);
    child.on('exit', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      if (poll) clearInterval(poll);
      if (code !== 0) return reject(new Error(`${argv.slice(0, 3).join(' ')} … exited ${code}: ${err.slice(-2000)}`));
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      const kb = withTime ? Number(m?.[1] ?? 0) : hwm;
      const cpu = (label: string): number => Number(new RegExp(`${label} time \\(seconds\\): ([\\d.]+)`).exec(err)?.[1] ?? Number.NaN);
      resolve({ seconds, cpuSeconds: withTime ? cpu('User') + cpu('System') : Number.NaN, peakRssMb: round(kb / 1024, 1), how: withTime ? '/usr/bin/time -v' : '/proc VmHWM polled every 20 ms' });
    });
  });
}

/** `node dist/cli.js build <every file>` into a fresh store, as one process. */
export function buildProcess(cli: string, files: readonly string[], home: string, store: string, nodeFlags: readonly string[] = []): Promise<ProcessRun> {
  return timedProcess([process.execPath, ...nodeFlags, cli, 'build', ...files], childEnv(home, store), home);
}

/** Where a peer that re-reads every Claude transcript can be found: CCUSAGE_BIN, else npx's cache. */
export function findPeer(): { argv: string[]; version: string } | { reason: string } {
  const bin = process.env.CCUSAGE_BIN;
  const tries: string[][] = bin ? [[process.execPath, bin]] : [['npx', '--no-install', 'ccusage']];
  for (const argv of tries) {
    try {
      const version = execFileSync(argv[0] as string, [...argv.slice(1), '--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (/^\d+\.\d+/.test(version)) return { argv, version };
    } catch {
      /* not installed */
    }
  }
  return { reason: bin ? `CCUSAGE_BIN=${bin} did not run` : 'ccusage is not installed (set CCUSAGE_BIN to its dist/index.js)' };
}

/** `ccusage session --json --offline` over the Claude share of the store (it reads no Codex). */
export function peerProcess(argv: readonly string[], claudeDir: string, home: string): Promise<ProcessRun> {
  return timedProcess([...argv, 'session', '--json', '--offline'], { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: claudeDir }, home);
}

export interface StoreSize {
  /** Blocks in use (du -sk), in bytes. */
  du_bytes: number;
  /** Sum of the files' sizes. */
  apparent_bytes: number;
  files: number;
  sessions: number;
  /** Bytes per kind of file (a session's files by name, the store's own files by name). */
  breakdown: Array<{ file: string; bytes: number; files: number }>;
}

/** A file's kind: its name inside a session folder with revision numbers folded. */
function kindOf(rel: string): string {
  const parts = rel.split(sep);
  const name = (parts.at(-1) as string).replace(/\d{4,}/g, 'N');
  if (parts[0] === 'projects' && parts.length >= 4) return parts.length > 4 ? `<session>/${parts.slice(3, -1).join('/')}/${name}` : `<session>/${name}`;
  if (parts[0] === 'projects' && parts.length > 1) return `projects/<project>/${name}`;
  if (parts[0] === 'links') return 'links/<project>.md';
  return rel.replace(/\d{4,}/g, 'N');
}

export function storeSize(store: string): StoreSize {
  const kinds = new Map<string, { bytes: number; files: number }>();
  let apparent = 0;
  let files = 0;
  const sessions = new Set<string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const rel = relative(store, p);
        const size = statSync(p).size;
        const k = kindOf(rel);
        const acc = kinds.get(k) ?? { bytes: 0, files: 0 };
        acc.bytes += size;
        acc.files += 1;
        kinds.set(k, acc);
        apparent += size;
        files += 1;
        const parts = rel.split(sep);
        if (parts[0] === 'projects' && parts.length >= 4) sessions.add(parts.slice(0, 3).join('/'));
      }
    }
  };
  walk(store);
  const du = Number(execFileSync('du', ['-sk', store], { encoding: 'utf8' }).split('\t')[0]) * 1024;
  const breakdown = [...kinds].map(([file, v]) => ({ file, ...v })).sort((a, b) => b.bytes - a.bytes);
  return { du_bytes: du, apparent_bytes: apparent, files, sessions: sessions.size, breakdown };
}
