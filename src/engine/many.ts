import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Engine } from './engine.js';
import { maybeSubagent, peek } from './identity.js';
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
  const dependents = new Set<string>();
  const noteDependents = (r: BuildResult): void => {
    for (const p of r.dependents ?? []) dependents.add(p);
  };
  const seen = new Set<string>();
  reqs.forEach((r, i) => {
    // A file named twice builds twice, one after the other.
    const alone = pool !== null && r.session === undefined && !maybeSubagent(r.source) && !seen.has(r.source);
    seen.add(r.source);
    (alone ? first : later).push(i);
  });
  const groups = await byFolder(reqs, first);
  let next = 0;
  const takeGroup = (): number[] | undefined => (next < groups.length ? groups[next++] : undefined);
  // Each thread takes a whole working folder at a time: its repository is asked for git evidence
  // once, by one thread, and not once by each.
  const drain = async (build: (i: number) => Promise<void>): Promise<void> => {
    for (let g = takeGroup(); g !== undefined; g = takeGroup()) for (const i of g) await build(i);
  };
  const onMain = (): Promise<void> =>
    drain(async (i) => {
      const req = reqs[i] as BuildRequest;
      try {
        const result = await engine.build({ ...req, independentOnly: true });
        noteDependents(result);
        await each(i, { result });
      } catch (e) {
        if (e instanceof DependentSession) later.push(i);
        else await each(i, { error: e });
      }
    });
  const inWorker = (p: BuildPool): Promise<void> =>
    drain(async (i) => {
      const req = reqs[i] as BuildRequest;
      let out;
      try {
        out = await p.run(req);
      } catch (e) {
        await each(i, { error: e });
        return;
      }
      if (out.kind !== 'built') {
        later.push(i);
        return;
      }
      engine.forget(req.source);
      engine.forget(out.result.dir);
      noteDependents(out.result);
      await each(i, { result: out.result });
    });
  // Two builds a worker at a time (pool.ts `depth`): one building, one waiting there.
  if (pool) await Promise.all([onMain(), ...Array.from({ length: pool.size * 2 }, () => inWorker(pool))]);
  for (const i of later.sort((a, b) => a - b)) {
    try {
      await each(i, { result: await engine.build(reqs[i] as BuildRequest) });
    } catch (e) {
      await each(i, { error: e });
    }
  }
  // Subagents whose task a first-pass build learned, not built since: re-rendered, forced.
  const builtLater = new Set(later.map((i) => (reqs[i] as BuildRequest).source));
  for (const path of dependents) {
    if (builtLater.has(path)) continue;
    try {
      await engine.build({ source: path, force: true });
    } catch {
      // The subagent's own problems surface in its own builds.
    }
  }
}

/**
 * The requests by the working folder their transcript records (its first lines'; else the folder
 * the transcript is in), the folders with the most bytes first, so that the last folders taken are
 * small ones and no thread is left building a large one alone. A Claude Code project folder is one
 * working folder already; Codex files its sessions by date, each day's of many folders, and a
 * thread given a day would ask each of their repositories for git evidence that another thread
 * asks again.
 */
const PEEKS_AT_ONCE = 16;

export async function byFolder(reqs: readonly BuildRequest[], which: readonly number[]): Promise<number[][]> {
  const groups = new Map<string, { items: number[]; bytes: number }>();
  const sized: { i: number; bytes: number; key: string }[] = [];
  // A few files open at a time: `handoff build` may be given thousands.
  for (let at = 0; at < which.length; at += PEEKS_AT_ONCE) {
    const batch = which.slice(at, at + PEEKS_AT_ONCE).map(async (i) => {
      const source = (reqs[i] as BuildRequest).source;
      const bytes = await stat(source).then(
        (s) => s.size,
        () => 0,
      );
      const cwd = bytes === 0 ? null : (await peek(source).catch(() => null))?.cwd;
      return { i, bytes, key: cwd ? `cwd:${cwd}` : `dir:${dirname(source)}` };
    });
    sized.push(...(await Promise.all(batch)));
  }
  // In the order given, whatever order the reads finished in.
  for (const { i, bytes, key } of sized) {
    const g = groups.get(key) ?? { items: [], bytes: 0 };
    g.items.push(i);
    g.bytes += bytes;
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => b.bytes - a.bytes).map((g) => g.items.sort((x, y) => x - y));
}
