import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';

/** Argument parsing on node:util's parseArgs, with "did you mean" for every typo. */

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  description: string;
  /** Placeholder in help: --root DIR */
  arg?: string;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  root: { type: 'string', arg: 'DIR', description: 'use this store root (beats HANDOFFS_ROOT and config)' },
  json: { type: 'boolean', description: 'print JSON instead of text' },
  help: { type: 'boolean', short: 'h', description: 'show help for the command' },
};

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Damerau-free Levenshtein distance; small inputs only. */
export function distance(a: string, b: string): number {
  const dp = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) (dp[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const row = dp[i] as number[];
      const prev = dp[i - 1] as number[];
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return (dp[a.length] as number[])[b.length] as number;
}

export function closest(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = c.startsWith(word) && word.length >= 2 ? 0.5 : distance(word, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== null && bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : null;
}

export function parse(command: string, argv: readonly string[], options: Record<string, OptionSpec>): Parsed {
  const all = { ...GLOBAL_OPTIONS, ...options };
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, o] of Object.entries(all)) {
    config[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  }
  try {
    const r = parseArgs({ args: [...argv], options: config, allowPositionals: true, strict: true });
    return { values: r.values as Parsed['values'], positionals: r.positionals };
  } catch (e) {
    const msg = (e as Error).message;
    const m = /Unknown option '(-{1,2}[^']+)'/.exec(msg);
    if (m?.[1]) {
      const given = m[1].replace(/^-+/, '').split('=')[0] ?? '';
      const guess = closest(given, Object.keys(all));
      throw new UsageError(`handoff ${command}: unknown option ${m[1]}`, {
        hint: guess ? `did you mean --${guess}? (see \`handoff ${command} --help\`)` : `its options are ${Object.keys(all).map((o) => `--${o}`).join(', ')} (see \`handoff ${command} --help\`)`,
      });
    }
    throw new UsageError(`handoff ${command}: ${msg.replace(/\. To specify a positional argument.*$/, '')}`, { hint: `see \`handoff ${command} --help\`` });
  }
}

export function str(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function bool(p: Parsed, name: string): boolean {
  return p.values[name] === true;
}

export function list(p: Parsed, name: string): string[] {
  const v = p.values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}
