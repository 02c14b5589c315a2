import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT } from './generate.js';

/**
 * Reads a V8 .cpuprofile (`node --cpu-prof`) and ranks functions by self time and by inclusive
 * time (a function counted once per sample however deep it recurses), with the project's
 * functions named as in the sources (dist/x.js → src/x.ts).
 *
 *     node .bench/bench/cpuprofile-summary.js <file.cpuprofile> [top]
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Row {
  fn: string;
  ms: number;
  share: number;
}

export interface Summary {
  totalMs: number;
  self: Row[];
  inclusive: Row[];
  /** Self time per source file (or per group: node internals, dependencies, GC, …). */
  byFile: Row[];
}

/** Where a frame's code lives, as a reader of the project would name it. */
export function fileOf(url: string): string {
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return 'node:internal';
  let path = url;
  try {
    path = url.startsWith('file:') ? fileURLToPath(url) : url;
  } catch {
    return url;
  }
  const nm = path.lastIndexOf('/node_modules/');
  if (nm !== -1) return `dep:${path.slice(nm + 14).split('/').slice(0, path.slice(nm + 14).startsWith('@') ? 2 : 1).join('/')}`;
  const rel = relative(PROJECT, path);
  if (rel.startsWith('dist/')) return `src/${rel.slice(5).replace(/\.js$/, '.ts')}`;
  if (rel.startsWith('.bench/')) return rel.slice(7).replace(/\.js$/, '.ts');
  return rel.startsWith('..') ? path : rel;
}

function keyOf(f: CallFrame): string {
  const file = fileOf(f.url);
  const name = f.functionName || '(anonymous)';
  if (file === '(native)') return name.startsWith('(') ? name : `(native) ${name}`;
  if (file.startsWith('src/')) return `${file}:${name}`;
  return `${file} ${name}`;
}

export function summarise(profile: CpuProfile, top = 40): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const self = new Map<string, number>();
  const files = new Map<string, number>();
  const incl = new Map<string, number>();
  // Post-order: a node's total is its self time plus its children's; a function's inclusive time
  // sums the totals of its outermost frames only (recursion is not counted twice).
  const onStack = new Map<string, number>();
  const visit = (id: number): number => {
    const n = byId.get(id) as ProfileNode;
    const key = keyOf(n.callFrame);
    const s = selfUs.get(id) ?? 0;
    self.set(key, (self.get(key) ?? 0) + s);
    const file = n.callFrame.url === '' && key.startsWith('(') ? key : fileOf(n.callFrame.url);
    files.set(file, (files.get(file) ?? 0) + s);
    onStack.set(key, (onStack.get(key) ?? 0) + 1);
    let t = s;
    for (const c of n.children ?? []) t += visit(c);
    onStack.set(key, (onStack.get(key) as number) - 1);
    if (onStack.get(key) === 0) incl.set(key, (incl.get(key) ?? 0) + t);
    return t;
  };
  visit(profile.nodes[0]?.id as number);
  const rows = (m: Map<string, number>): Row[] =>
    [...m]
      .map(([fn, us]) => ({ fn, ms: Math.round(us / 1000), share: Math.round((1000 * us) / total) / 10 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top);
  return { totalMs: Math.round(total / 1000), self: rows(self), inclusive: rows(incl), byFile: rows(files) };
}

export function table(rows: readonly Row[]): string {
  return ['| function | ms | share |', '|---|---|---|', ...rows.map((r) => `| \`${r.fn}\` | ${r.ms} | ${r.share} % |`)].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node .bench/bench/cpuprofile-summary.js <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  const s = summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(process.argv[3] ?? 40));
  process.stdout.write(`total ${s.totalMs} ms sampled\n\n## self time by file\n\n${table(s.byFile)}\n\n## self time\n\n${table(s.self)}\n\n## inclusive time\n\n${table(s.inclusive)}\n`);
}
