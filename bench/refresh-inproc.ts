import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { resolveConfig } from '../src/config.js';
import { openEngine } from '../src/engine/index.js';
import type { Source } from './generate.js';
import { loadSources, rewrite, transcriptText } from './generate.js';
import { median } from './metrics.js';
import { rng } from './soak-core.js';

/**
 * What one refresh costs the engine itself, without a daemon, a watcher or a socket: one turn
 * appended to a large and to a small transcript, one build each, timed in wall and CPU
 * milliseconds (CPU time holds up better on a shared host), medians over the appends. With a
 * profile path, V8's profiler records the refreshes alone (not the first builds); summarize it
 * with cpuprofile-summary.js. Each refresh is a live build, as the daemon's (BuildRequest.lazyState);
 * HANDOFF_INPROC_EAGER=1 writes the state on every one, as before.
 *
 *     node .bench/bench/refresh-inproc.js [appends=100] [largeMiB=100] [small|large] [profile.cpuprofile]
 */

const appends = Number(process.argv[2] ?? 100);
const largeMiB = Number(process.argv[3] ?? 100);
const which = process.argv[4] === 'small' || process.argv[4] === 'large' ? [process.argv[4]] : ['small', 'large'];
const profilePath = process.argv[5];

const root = await mkdtemp(join(tmpdir(), 'handoff-bench-inproc-'));
try {
  const rand = rng(7);
  const { sources } = loadSources();
  // The transcript and the turns refresh.ts uses.
  const claude = sources.filter((s) => s.harness === 'claude' && s.lines.length > 100).sort((a, b) => b.lines.length - a.lines.length)[0] ?? (sources[0] as Source);
  const turns = claude.lines.filter((l) => l.includes('"type":"assistant"') && l.includes('"type":"text"') && l.length < 8000);
  const watch = join(root, 'watch', '-home-dev-bench');
  mkdirSync(watch, { recursive: true });
  const paths: Record<string, string> = { small: join(watch, '11111111-1111-4111-8111-111111111111.jsonl'), large: join(watch, '22222222-2222-4222-8222-222222222222.jsonl') };
  const sizes: Record<string, number> = { small: 1 << 20, large: largeMiB << 20 };
  const config = resolveConfig({ cwd: root, env: { HOME: join(root, 'home'), HANDOFFS_ROOT: join(root, 'store') } });
  const engine = await openEngine(config, { cacheSessions: config.options.daemon.cache_sessions });
  for (const w of which) {
    const p = paths[w] as string;
    writeFileSync(p, transcriptText(claude, sizes[w] as number, rand, basename(p, '.jsonl')));
    await engine.build({ source: p });
  }
  const profiler = profilePath ? new Session() : null;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
    await profiler.post('Profiler.start');
  }
  const wall: Record<string, number[]> = { small: [], large: [] };
  const cpu: Record<string, number[]> = { small: [], large: [] };
  for (let i = 0; i < appends; i += 1) {
    for (const w of which) {
      const p = paths[w] as string;
      appendFileSync(p, `${rewrite(turns[i % turns.length] as string, 'claude', basename(p, '.jsonl'), rand)}\n`);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      // As the daemon's live builds: the state file may be left behind (HANDOFF_INPROC_EAGER=1: never).
      const r = await engine.build({ source: p, lazyState: process.env.HANDOFF_INPROC_EAGER !== '1' });
      wall[w]?.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu[w]?.push((c.user + c.system) / 1000);
      if (r.up_to_date) throw new Error(`${p}: the appended turn was not built`);
    }
  }
  if (profiler && profilePath) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(profilePath, JSON.stringify(profile));
  }
  for (const w of which) console.log(`${w} (${sizes[w] as number >> 20} MiB): wall p50 ${median(wall[w] as number[]).toFixed(2)} ms, CPU p50 ${median(cpu[w] as number[]).toFixed(2)} ms (${appends} appends)`);
} finally {
  await rm(root, { recursive: true, force: true });
}
