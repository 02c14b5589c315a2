import { describe, expect, it } from 'vitest';
import type { Lane } from '../../src/engine/scheduler.js';
import { Scheduler } from '../../src/engine/scheduler.js';
import { settled, waitFor } from '../helpers.js';

/** The scheduler's two lanes: the main thread's queue and the build workers' (engine/scheduler.ts). */

interface Gate {
  open: () => void;
  done: Promise<void>;
}

function gate(): Gate {
  let open = (): void => undefined;
  const done = new Promise<void>((r) => (open = r));
  return { open, done };
}

/** Work that logs its start, waits for its gate to open, then logs its end (`<name>-end`). */
function held(log: string[], name: string): { gate: Gate; run: () => Promise<void> } {
  const g = gate();
  return {
    gate: g,
    run: async () => {
      log.push(name);
      await g.done;
      log.push(`${name}-end`);
    },
  };
}

function lanes(laneOf: (k: string) => Lane = () => 'pool', bulk?: (k: string) => boolean) {
  const log: string[] = [];
  const gates = new Map<string, Gate>();
  const hold = (k: string): Gate => {
    const g = gate();
    gates.set(k, g);
    return g;
  };
  const s = new Scheduler(
    async (k) => {
      log.push(`main:${k}`);
      await gates.get(k)?.done;
      log.push(`main-end:${k}`);
    },
    { debounceMs: 0 },
    {
      slots: 1,
      lane: laneOf,
      run: async (k) => {
        log.push(`pool:${k}`);
        await gates.get(k)?.done;
        log.push(`pool-end:${k}`);
        return k.startsWith('dep') ? 'after' : 'done';
      },
      ...(bulk ? { bulk } : {}),
    },
  );
  return { s, log, hold };
}

describe('the build queue with workers', () => {
  it('runs a build a client asked for in the worker lane once the main lane is done with that key, and builds the key once more after it when it changed meanwhile', async () => {
    const { s, log, hold } = lanes(() => 'main');
    const a = hold('a');
    s.schedule('a', 'live');
    await waitFor(() => log.includes('main:a'), 'the main lane to build a');
    const asked = gate();
    const done = s.offloadFor('a', async () => {
      log.push('asked:a');
      await asked.done;
      log.push('asked-end:a');
      return 7;
    });
    // Waits for the main lane's build of the same key.
    await settled();
    expect(log).not.toContain('asked:a');
    a.open();
    await waitFor(() => log.includes('asked:a'), 'the asked build to start');
    expect(s.workerKeys).toEqual(['a']);
    // A change meanwhile is built after it, never beside it; other keys go on.
    s.schedule('a', 'live');
    s.schedule('b', 'live');
    await waitFor(() => log.includes('main-end:b'), 'another key to build meanwhile');
    expect(log.filter((l) => l === 'main:a')).toHaveLength(1);
    asked.open();
    expect(await done).toBe(7);
    await s.onIdle();
    expect(log.filter((l) => l.endsWith(':a'))).toEqual(['main:a', 'main-end:a', 'asked:a', 'asked-end:a', 'main:a', 'main-end:a']);
  });

  it('takes a build of the key already queued out of its lane while a client\'s build of it runs, and queues it again after', async () => {
    const { s, log, hold } = lanes(() => 'main');
    const first = hold('first');
    s.schedule('first', 'live');
    await waitFor(() => log.includes('main:first'), 'the main lane to be busy');
    s.schedule('a', 'backfill');
    const asked = gate();
    const done = s.offloadFor('a', async () => {
      log.push('asked:a');
      await asked.done;
      log.push('asked-end:a');
    });
    await waitFor(() => log.includes('asked:a'), 'the asked build to start');
    first.open();
    await waitFor(() => log.includes('main-end:first'), 'the main lane to go on');
    await settled();
    expect(log).not.toContain('main:a');
    asked.open();
    await done;
    await s.onIdle();
    expect(log.filter((l) => l.endsWith(':a'))).toEqual(['asked:a', 'asked-end:a', 'main:a', 'main-end:a']);
  });

  it('builds a live change with a bulk read ahead in the worker, and other live changes on the main lane meanwhile', async () => {
    const { s, log, hold } = lanes(undefined, (k) => k.startsWith('huge'));
    const huge = hold('huge');
    s.schedule('huge', 'live');
    await waitFor(() => log.includes('pool:huge'), 'the bulk build to start in the worker');
    s.schedule('small', 'live');
    await waitFor(() => log.includes('main-end:small'), 'the live build');
    expect(log).not.toContain('pool-end:huge');
    huge.open();
    await s.onIdle();
    expect(log.filter((l) => l.endsWith('huge'))).toEqual(['pool:huge', 'pool-end:huge']);
  });

  it('keeps a bulk build waiting for the worker there when it is raised to live; a short one moves to the main lane', async () => {
    const { s, log, hold } = lanes(undefined, (k) => k.startsWith('huge'));
    const first = hold('first');
    s.schedule('first', 'backfill');
    s.schedule('huge', 'backfill');
    await waitFor(() => log.includes('pool:first'), 'the first backfill build');
    s.schedule('huge', 'live');
    await settled();
    expect(log).toEqual(['pool:first']);
    first.open();
    await s.onIdle();
    expect(log).toEqual(['pool:first', 'pool-end:first', 'pool:huge', 'pool-end:huge']);
  });

  it('puts a bulk build raised to live ahead of the backfill waiting for the worker', async () => {
    const { s, log, hold } = lanes(undefined, (k) => k.startsWith('huge'));
    const first = hold('first');
    for (const k of ['first', 'b1', 'b2', 'huge']) s.schedule(k, 'backfill');
    await waitFor(() => log.includes('pool:first'), 'the first backfill build');
    s.schedule('huge', 'live');
    first.open();
    await s.onIdle();
    expect(log.filter((l) => l.startsWith('pool:'))).toEqual(['pool:first', 'pool:huge', 'pool:b1', 'pool:b2']);
  });

  it('builds a live bulk read on the main lane when its session cannot go to a worker', async () => {
    const { s, log } = lanes((k) => (k.startsWith('huge-agent') ? 'after' : 'pool'), () => true);
    s.schedule('huge-agent', 'live');
    await s.onIdle();
    expect(log).toEqual(['main:huge-agent', 'main-end:huge-agent']);
  });

  it('builds a live change on the main lane while a backfill build holds the worker', async () => {
    const { s, log, hold } = lanes();
    const big = hold('big');
    s.schedule('big', 'backfill');
    await waitFor(() => log.includes('pool:big'), 'the backfill build to start');
    expect(s.workerKeys).toEqual(['big']);
    s.schedule('live', 'live');
    await waitFor(() => log.includes('main-end:live'), 'the live build');
    expect(log).not.toContain('pool-end:big');
    big.open();
    await s.onIdle();
  });

  it('never builds one key in both lanes: a change while a worker builds it is built once more after', async () => {
    const { s, log, hold } = lanes();
    const a = hold('a');
    s.schedule('a', 'backfill');
    await waitFor(() => log.includes('pool:a'), 'the backfill build to start');
    s.schedule('a', 'live');
    await settled();
    expect(log).toEqual(['pool:a']);
    a.open();
    await s.onIdle();
    expect(log).toEqual(['pool:a', 'pool-end:a', 'main:a', 'main-end:a']);
  });

  it('moves a waiting backfill build raised to live onto the main lane, ahead of the workers', async () => {
    const { s, log, hold } = lanes();
    const first = hold('first');
    s.schedule('first', 'backfill');
    s.schedule('second', 'backfill');
    await waitFor(() => log.includes('pool:first'), 'the first backfill build');
    s.schedule('second', 'live');
    await waitFor(() => log.includes('main-end:second'), 'the raised build');
    first.open();
    await s.onIdle();
    expect(log.filter((l) => l.endsWith('second'))).toEqual(['main:second', 'main-end:second']);
  });

  it('runs exclusive work only when no worker build runs, and starts none meanwhile', async () => {
    const { s, log, hold } = lanes();
    const a = hold('a');
    s.schedule('a', 'backfill');
    s.schedule('b', 'backfill');
    await waitFor(() => log.includes('pool:a'), 'the backfill build');
    const work = held(log, 'exclusive');
    const x = s.exclusive(work.run);
    await settled();
    expect(log).not.toContain('exclusive');
    a.open();
    await waitFor(() => log.includes('exclusive'), 'the exclusive work');
    await settled();
    expect(log).not.toContain('pool:b');
    work.gate.open();
    await x;
    await s.onIdle();
    expect(log).toEqual(['pool:a', 'pool-end:a', 'exclusive', 'exclusive-end', 'pool:b', 'pool-end:b']);
  });

  it('lets work on one transcript wait only for a worker building that transcript, and keeps the workers off it meanwhile', async () => {
    const { s, log, hold } = lanes();
    const a = hold('a');
    s.schedule('a', 'backfill');
    s.schedule('b', 'backfill');
    await waitFor(() => log.includes('pool:a'), 'the backfill build');
    // `other` is not in a worker: it runs now, beside the build of `a`.
    await s.exclusiveFor('other', async () => void log.push('socket:other'));
    expect(log).toEqual(['pool:a', 'socket:other']);
    // `b` waits in the worker lane; claimed by the main lane, no worker starts it until the claim ends.
    const claim = held(log, 'socket:b');
    const onB = s.exclusiveFor('b', claim.run);
    await waitFor(() => log.includes('socket:b'), 'the claim of b');
    a.open();
    await waitFor(() => log.includes('pool-end:a'), 'the build of a');
    await settled();
    expect(log).not.toContain('pool:b');
    claim.gate.open();
    await onB;
    await s.onIdle();
    expect(log).toEqual(['pool:a', 'socket:other', 'socket:b', 'pool-end:a', 'socket:b-end', 'pool:b', 'pool-end:b']);
  });

  it('builds dependent sessions on the main lane after the worker lane has emptied', async () => {
    const { s, log, hold } = lanes((k) => (k.startsWith('sub') ? 'after' : 'pool'));
    const a = hold('a');
    s.schedule('a', 'backfill');
    s.schedule('sub', 'backfill');
    s.schedule('dep', 'backfill');
    s.schedule('b', 'backfill');
    await waitFor(() => log.includes('pool:a'), 'the backfill build');
    await settled();
    expect(log).toEqual(['pool:a']);
    a.open();
    await s.onIdle();
    // `dep` was sent back by its worker: it too waits for the others.
    expect(log).toEqual(['pool:a', 'pool-end:a', 'pool:dep', 'pool-end:dep', 'pool:b', 'pool-end:b', 'main:sub', 'main-end:sub', 'main:dep', 'main-end:dep']);
  });
});
