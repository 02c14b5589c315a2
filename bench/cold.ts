import { createReadStream, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openEngine } from '../src/engine/index.js';
import { resolveConfig } from '../src/config.js';

/** One-shot build of a whole store, and the parse floor it is measured against. */

/** The floor: read each file line by line and JSON.parse every line, nothing else. */
export async function parseFloorReadline(files: readonly string[]): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  for (const f of files) {
    const rl = createInterface({ input: createReadStream(f, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
    for await (const line of rl) {
      if (line.length > 0) {
        JSON.parse(line);
        n += 1;
      }
    }
  }
  if (n === 0) throw new Error('no lines parsed');
  return (performance.now() - t0) / 1000;
}

/** The whole-file floor, timed in wall and CPU seconds (CPU time holds up better on a busy host). */
export function parseFloorSplitCpu(files: readonly string[]): { seconds: number; cpuSeconds: number } {
  const c0 = process.cpuUsage();
  const seconds = parseFloorSplit(files);
  const c = process.cpuUsage(c0);
  return { seconds, cpuSeconds: (c.user + c.system) / 1e6 };
}

/** The same floor with a whole-file read and split, often faster than readline. */
export function parseFloorSplit(files: readonly string[]): number {
  const t0 = performance.now();
  for (const f of files) {
    for (const line of readFileSync(f, 'utf8').split('\n')) if (line.length > 0) JSON.parse(line);
  }
  return (performance.now() - t0) / 1000;
}

/** Builds every file into a fresh store with the product's engine; returns seconds. */
export async function coldBuild(files: readonly string[]): Promise<{ seconds: number; turns: number }> {
  const root = await mkdtemp(join(tmpdir(), 'handoff-bench-cold-'));
  try {
    const config = resolveConfig({ cwd: root, env: { HOME: root, HANDOFFS_ROOT: join(root, 'store') } });
    const engine = await openEngine(config);
    let turns = 0;
    const t0 = performance.now();
    for (const f of files) turns += (await engine.build({ source: f })).turns;
    await engine.index.flush({ enabled: config.options.linking.enabled, minScore: config.options.linking.min_overlap_score });
    return { seconds: (performance.now() - t0) / 1000, turns };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
