import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildProcess } from './cold-real.js';
import { generateCorpusStore, makeRepos } from './corpus-store.js';
import { summarise, table } from './cpuprofile-summary.js';
import { PROJECT } from './generate.js';

/**
 * Where a cold build's time goes, on the benchmark's corpus-distribution store:
 *
 *     npx tsc -p tsconfig.bench.json && node .bench/bench/cold-profile.js [out-dir]
 *
 * 1. `node --cpu-prof dist/cli.js build <every file>` into a fresh store, summarised by self and
 *    inclusive time (bench/cpuprofile-summary.ts);
 * 2. the same build under `strace -f -c` (syscall totals), and under `strace -f -y` on the calls
 *    that show per-session costs (files created, renames, fsyncs, directory scans, processes),
 *    counted per kind of file. Strace slows the build several times; the counts are what matter.
 *
 * HANDOFF_PROFILE_MIB sets the store's size (default 160, as the benchmark);
 * HANDOFF_PROFILE_STRACE_FILES how many of its files the strace runs build (default all).
 */

const MiB = 2 ** 20;
const OUT = process.argv[2] ?? '/tmp/handoff-cold-profile';
const CLI = join(PROJECT, 'dist', 'cli.js');

function fresh(dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A path as a kind: store files by their name in a session folder, the rest by where they live. */
function pathKind(p: string, store: string, data: string, repos: string): string {
  if (p.startsWith(`${store}/`)) {
    const parts = p.slice(store.length + 1).split('/');
    const name = (parts.at(-1) as string).replace(/\d{4,}/g, 'N').replace(/\.[0-9a-f]{6,}(\.|$)/g, '.X$1');
    if (parts[0] === 'projects' && parts.length >= 4) return `<session>/${parts.slice(3, -1).concat(name).join('/')}`;
    if (parts[0] === 'projects' && parts.length === 3 && !name.includes('.')) return '<session>';
    if (parts[0] === 'projects' && parts.length === 3) return `projects/<project>/${name}`;
    if (parts[0] === 'projects' && parts.length === 2) return 'projects/<project>';
    if (parts[0] === 'links') return `links/<project>.md${parts.at(-1)?.endsWith('.md') ? '' : '.N'}`;
    return parts.map((x) => x.replace(/\d{4,}/g, 'N')).join('/');
  }
  if (p === store) return '<store>';
  if (p.startsWith(`${data}/`)) return '<transcript or its folder>';
  if (p.startsWith(`${repos}/`)) return `<repository>/${p.slice(repos.length + 1).split('/').slice(1).join('/')}`;
  return '(elsewhere: modules, runtime)';
}

interface Counts {
  [call: string]: Record<string, number>;
}

function countStrace(file: string, store: string, data: string, repos: string): Counts {
  const out: Counts = {};
  const add = (call: string, kind: string): void => {
    const m = (out[call] ??= {});
    m[kind] = (m[kind] ?? 0) + 1;
  };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+|\?)/.exec(line);
    if (!m) continue;
    const [, call, args, ret] = m as unknown as [string, string, string, string];
    const paths = [...args.matchAll(/"([^"]*)"|<([^>]*)>/g)].map((x) => x[1] ?? x[2] ?? '');
    const failed = ret.startsWith('-');
    switch (call) {
      case 'execve': {
        if (failed) break; // a PATH lookup miss
        const argv = paths.slice(1).filter((a) => !['--no-pager', '-c', 'core.quotepath=off', 'color.ui=false'].includes(a));
        add('process started', argv[0] === 'git' ? argv.slice(0, 2).join(' ') : ((paths[0] ?? '?').split('/').at(-1) as string));
        break;
      }
      case 'openat':
        if (args.includes('O_CREAT')) add(failed ? 'openat O_CREAT (failed)' : 'openat O_CREAT', pathKind(paths.at(-1) ?? '', store, data, repos));
        else if (!failed) add('openat (read)', pathKind(paths.at(-1) ?? '', store, data, repos));
        break;
      case 'rename':
      case 'renameat':
      case 'renameat2':
        add('rename (to)', pathKind(paths.at(-1) ?? '', store, data, repos));
        break;
      case 'fsync':
      case 'fdatasync':
        add(call, pathKind(paths[0] ?? '', store, data, repos));
        break;
      case 'getdents64':
        // A scan ends with the call that returns 0.
        if (ret === '0') add('directory scans', pathKind(paths[0] ?? '', store, data, repos));
        break;
      case 'mkdir':
      case 'mkdirat':
        add(failed ? `${call} (exists)` : call, pathKind(paths.at(-1) ?? '', store, data, repos));
        break;
      case 'unlink':
      case 'unlinkat':
        add('unlink', pathKind(paths.at(-1) ?? '', store, data, repos));
        break;
      default:
        add(call, failed ? 'failed' : 'ok');
    }
  }
  return out;
}

function countsMarkdown(c: Counts, sessions: number): string {
  const rows: string[] = ['| call | on | count | per session |', '|---|---|---|---|'];
  for (const [call, kinds] of Object.entries(c).sort()) {
    for (const [kind, n] of Object.entries(kinds).sort((a, b) => b[1] - a[1])) rows.push(`| ${call} | \`${kind}\` | ${n} | ${Math.round((100 * n) / sessions) / 100} |`);
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npx tsc -p tsconfig.build.json first');
  fresh(OUT);
  const bytes = Number(process.env.HANDOFF_PROFILE_MIB ?? 160) * MiB;
  const data = join(OUT, 'data');
  const repos = makeRepos(join(OUT, 'repos'), 40);
  const g = await generateCorpusStore(data, { totalBytes: bytes, seed: 42, repos });
  const report: string[] = [`store: ${g.files.length} files, ${(g.bytes / MiB).toFixed(1)} MiB, from ${g.from}; recorded folders → ${repos.length} git repositories`];
  process.stderr.write(`${report[0]}\n`);

  const prof = fresh(join(OUT, 'cpuprof'));
  const run = await buildProcess(CLI, g.files, join(OUT, 'home'), join(OUT, 'store-prof'), ['--cpu-prof', `--cpu-prof-dir=${prof}`]);
  report.push(`profiled build: ${run.seconds.toFixed(1)} s wall, ${run.cpuSeconds.toFixed(1)} s CPU, peak ${run.peakRssMb} MB`);
  process.stderr.write(`${report.at(-1)}\n`);
  const file = join(prof, readdirSync(prof).find((f) => f.endsWith('.cpuprofile')) as string);
  const s = summarise(JSON.parse(readFileSync(file, 'utf8')), 45);
  report.push(`\ntotal sampled: ${s.totalMs} ms (${file})\n\n### self time by file\n\n${table(s.byFile)}\n\n### self time\n\n${table(s.self)}\n\n### inclusive time\n\n${table(s.inclusive)}`);

  const hasStrace = spawnSync('strace', ['-V']).status === 0;
  if (!hasStrace) report.push('\nstrace is not installed: no syscall counts.');
  else {
    const n = Number(process.env.HANDOFF_PROFILE_STRACE_FILES ?? g.files.length);
    const files = g.files.slice(0, n);
    const env = { PATH: process.env.PATH, HOME: join(OUT, 'home'), XDG_CONFIG_HOME: join(OUT, 'home', '.config'), XDG_CACHE_HOME: join(OUT, 'home', '.cache'), NODE_ENV: 'production' };
    const storeC = join(OUT, 'store-c');
    const t0 = performance.now();
    execFileSync('strace', ['-f', '-c', '-o', join(OUT, 'strace-c.txt'), process.execPath, CLI, 'build', ...files], { env: { ...env, HANDOFFS_ROOT: storeC }, stdio: 'ignore' });
    report.push(`\n### strace -f -c (${files.length} files, ${((performance.now() - t0) / 1000).toFixed(1)} s under strace)\n\n\`\`\`\n${readFileSync(join(OUT, 'strace-c.txt'), 'utf8').split('\n').slice(0, 30).join('\n')}\n\`\`\``);
    const storeY = join(OUT, 'store-y');
    const calls = 'execve,openat,rename,renameat,renameat2,fsync,fdatasync,getdents64,mkdir,mkdirat,unlink,unlinkat';
    execFileSync('strace', ['-f', '-y', '-s', '300', '-e', `trace=${calls}`, '-o', join(OUT, 'strace-y.txt'), process.execPath, CLI, 'build', ...files], { env: { ...env, HANDOFFS_ROOT: storeY }, stdio: 'ignore' });
    report.push(`\n### per-session calls (strace -f -y, ${files.length} sessions)\n\n${countsMarkdown(countStrace(join(OUT, 'strace-y.txt'), storeY, data, join(OUT, 'repos')), files.length)}`);
  }
  writeFileSync(join(OUT, 'summary.md'), `${report.join('\n')}\n`);
  process.stdout.write(`${report.join('\n')}\n\nwritten to ${join(OUT, 'summary.md')}\n`);
}

await main();
