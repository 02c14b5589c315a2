import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BuildResult, SessionChange } from '../engine/index.js';
import { NotFoundError } from '../errors.js';
import type { Handlers } from '../control/server.js';
import type { EventName } from '../control/protocol.js';
import { EVENT_NAMES, optionalBool, optionalNumber, optionalString, ParamError, PROTOCOL_VERSION, requireString } from '../control/protocol.js';
import type { Harness } from '../core/types.js';
import { HARNESSES } from '../core/types.js';
import type { Daemon } from '../daemon.js';
import type { IndexEntry } from '../store/index-file.js';
import { FILES } from '../store/layout.js';
import { verifySession, verifyTargets } from '../store/verify.js';
import { packageVersion } from '../paths.js';
import { sortInSlices } from '../slice.js';

/**
 * The control socket's methods (SPEC §10), one handler each. Anything that writes the store
 * runs through the daemon's single queue, so a CLI command never races a build.
 */

const DEFAULT_FLUSH_MS = 60_000;

/** A BuildResult as it travels: plain JSON, the corrupt-line error raised separately. */
export function wireResult(r: BuildResult): Record<string, unknown> {
  const { corrupt: _c, ...rest } = r;
  return rest as unknown as Record<string, unknown>;
}

async function noted(d: Daemon, r: BuildResult): Promise<Record<string, unknown>> {
  await d.noteExternal(r);
  return wireResult(r);
}

/**
 * A write a client asked for, in the build queue, with INDEX.json rewritten before the answer:
 * a `handoff show` or `verify` run right after `retitle` never finds the folder half-moved.
 */
function written(d: Daemon, fn: () => Promise<BuildResult>): Promise<BuildResult> {
  return d.exclusive(async () => {
    const r = await fn();
    await d.flushIndexAfterWrite();
    return r;
  });
}

function sourceOf(e: IndexEntry): string {
  const path = e.source?.path;
  if (!path) throw new ParamError(`invalid params: session ${e.id} has no transcript on record; give "path"`);
  return path;
}

export function makeHandlers(d: Daemon): Handlers {
  const entry = (params: unknown) => d.engine.index.resolve(requireString(params, 'id'), d.config.root);
  /**
   * A write to one session, queued: the prefix names the session now (an ambiguous or unknown one
   * is answered at once), and its folder is looked up when the write runs, so a write queued
   * behind a retitle or rename of the same session follows it, and never acts on a folder another
   * session was given in between.
   */
  const update = (params: unknown, change: SessionChange): Promise<BuildResult> => {
    const id = entry(params).id;
    return written(d, () => {
      const now = d.engine.index.get(id);
      if (now === undefined) throw new NotFoundError(`session ${id} is no longer in the store`, { hint: 'run `handoff list` to see the sessions of this store' });
      return d.engine.update(now.dir, change);
    });
  };
  return {
    hello: async () => ({ name: 'handoffd', version: packageVersion(), protocol: PROTOCOL_VERSION, pid: process.pid, root: d.config.root }),
    status: () => d.status(),
    'sessions.list': async (params) => {
      const project = optionalString(params, 'project');
      return d.engine.index.all().filter((e) => project === undefined || e.project === project);
    },
    'session.get': async (params) => {
      const e = entry(params);
      // A damaged session is still found (verify says what is wrong with it): no summary then.
      const summary = await readFile(join(e.dir, FILES.summary), 'utf8').then((t) => JSON.parse(t) as unknown, () => null);
      return { session: e, summary };
    },
    verify: async (params) => {
      const all = optionalBool(params, 'all') === true;
      const source = optionalBool(params, 'source') === true;
      const listed = all ? await sortInSlices(d.engine.index.all(), (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) : [entry(params)];
      // One at a time: a store of thousands of sessions must not open them all at once.
      return d.exclusive(async () => {
        // Looked up again when its turn comes: a retitle or rename queued before it moved the folder
        // (verify of the folder it left said "manifest.json is missing", restore from a backup).
        const current = listed.map((e) => d.engine.index.get(e.id) ?? e);
        const targets = all ? await verifyTargets(d.engine.layout, current) : current;
        const reports = [];
        for (const t of targets) reports.push(await verifySession(t.dir, { source, turns: (m, on) => d.engine.turnsOf(m, on) }, t.id));
        return reports;
      });
    },
    build: async (params) => {
      // {path}, or {id} of a session in the store: its transcript on record is read again.
      const given = optionalString(params, 'path');
      if (given === undefined && optionalString(params, 'id') === undefined) throw new ParamError('invalid params: give "path" (a transcript) or "id" (a session of the store)');
      const path = given ?? sourceOf(entry(params));
      const harness = optionalString(params, 'harness');
      if (harness !== undefined && !HARNESSES.includes(harness as Harness)) throw new ParamError(`invalid params: "harness" must be one of ${HARNESSES.join(', ')}`);
      // A build of one transcript waits for a worker only when that worker builds this transcript.
      const r = await d.buildAsked({
        source: path,
        session: optionalString(params, 'session'),
        project: optionalString(params, 'project'),
        harness: harness as Harness | undefined,
        model: optionalString(params, 'model'),
        objective: optionalString(params, 'objective'),
        allowBadLines: optionalBool(params, 'allow_bad_lines'),
        final: optionalBool(params, 'final'),
      });
      await d.noteExternal(r);
      if (r.corrupt) throw r.corrupt;
      return wireResult(r);
    },
    'session.update': async (params) => {
      const title = optionalString(params, 'title');
      const project = optionalString(params, 'project');
      if (title === undefined && project === undefined) throw new ParamError('invalid params: give "title" or "project"');
      return noted(d, await update(params, { title, project }));
    },
    finalize: async (params) => noted(d, await update(params, { history: { kind: 'finalize', reason: 'requested' } })),
    checkpoint: async (params) => {
      const note = optionalString(params, 'note');
      return noted(d, await update(params, { history: { kind: 'checkpoint', reason: 'requested', note } }));
    },
    flush: async (params) => {
      const started = Date.now();
      const r = await d.flush(optionalNumber(params, 'timeout_ms') ?? DEFAULT_FLUSH_MS);
      return { ok: true as const, rounds: r.rounds, files: r.files, ms: Date.now() - started };
    },
    subscribe: async (params, conn) => {
      const raw = (params as { events?: unknown } | undefined)?.events;
      let events: EventName[] = [...EVENT_NAMES];
      if (raw !== undefined) {
        if (!Array.isArray(raw) || raw.some((e) => !EVENT_NAMES.includes(e as EventName))) {
          throw new ParamError(`invalid params: "events" must be a list drawn from ${EVENT_NAMES.join(', ')}`);
        }
        events = raw as EventName[];
      }
      conn.subscribe(events);
      return { ok: true as const, events };
    },
    shutdown: async () => {
      setImmediate(() => void d.stop('shutdown requested over the socket'));
      return { ok: true as const };
    },
  };
}
