import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

/** Process and machine figures, read the way `ps` and `lsof` would. */

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    const t = execFileSync('ps', ['-o', 'time=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    const parts = t.split(/[:.-]/).map(Number);
    return parts.reduce((a, b) => a * 60 + b, 0);
  }
}

export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Math.round(Number(m?.[1] ?? 0) / 102.4) / 10;
  } catch {
    return Math.round(Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 102.4) / 10;
  }
}

export function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 0 ? ((s[m - 1] as number) + (s[m] as number)) / 2 : (s[m] as number);
}

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number;
}

export const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;

export function machine(): { cpu: string; cores: number; ram_gb: number; node: string; platform: string; kernel: string } {
  let kernel = '';
  try {
    kernel = execFileSync('uname', ['-sr'], { encoding: 'utf8' }).trim();
  } catch {
    kernel = process.platform;
  }
  return { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, ram_gb: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform}-${process.arch}`, kernel };
}
