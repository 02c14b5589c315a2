import type { Engine } from './engine.js';
import { maybeSubagent } from './identity.js';
import type { BuildPool } from './pool.js';
import type { BuildRequest, BuildResult } from './types.js';
import { DependentSession } from './types.js';

/**
 * A one-shot build of many transcripts (`handoff build a b c …`) on every core it may use: first
 * the sessions that depend on no other, side by side on the main thread and in the workers;
 * then, one at a time in the order given, those that do (subagents re-render their parent, forks
 * take their origin's chain) and any a worker could not finish. What each build yields is
 * handed to `each` as it finishes.
 */

export type ManyOutcome = { result: BuildResult } | { error: unknown };

export async function buildMany(engine: Engine, pool: BuildPool | null, reqs: readonly BuildRequest[], each: (i: number, o: ManyOutcome) => Promise<void>): Promise<void> {
  const later: number[] = [];
  const first: number[] = [];
  const seen = new Set<string>();
  reqs.forEach((r, i) => {
    // A file named twice builds twice, one after the other.
    const alone = pool !== null && r.session === undefined && !maybeSubagent(r.source) && !seen.has(r.source);
    seen.add(r.source);
    (alone ? first : later).push(i);
  });
  let next = 0;
  const take = (): number | undefined => (next < first.length ? first[next++] : undefined);
  const onMain = async (): Promise<void> => {
    for (let i = take(); i !== undefined; i = take()) {
      const req = reqs[i] as BuildRequest;
      try {
        await each(i, { result: await engine.build({ ...req, independentOnly: true }) });
      } catch (e) {
        if (e instanceof DependentSession) later.push(i);
        else await each(i, { error: e });
      }
    }
  };
  const inWorker = async (p: BuildPool): Promise<void> => {
    for (let i = take(); i !== undefined; i = take()) {
      const req = reqs[i] as BuildRequest;
      let out;
      try {
        out = await p.run(req);
      } catch (e) {
        await each(i, { error: e });
        continue;
      }
      if (out.kind !== 'built') {
        later.push(i);
        continue;
      }
      engine.forget(req.source);
      engine.forget(out.result.dir);
      await each(i, { result: out.result });
    }
  };
  // Two builds a worker at a time (pool.ts `depth`): one building, one waiting there.
  if (pool) await Promise.all([onMain(), ...Array.from({ length: pool.size * 2 }, () => inWorker(pool))]);
  for (const i of later.sort((a, b) => a - b)) {
    try {
      await each(i, { result: await engine.build(reqs[i] as BuildRequest) });
    } catch (e) {
      await each(i, { error: e });
    }
  }
}
