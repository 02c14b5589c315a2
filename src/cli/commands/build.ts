import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { isExcluded, ownStore } from '../../watch/scan.js';
import type { BuildRequest, BuildResult } from '../../engine/index.js';
import { BuildPool, workerCount } from '../../engine/index.js';
import { tuneHeap } from '../../daemon/heap.js';
import type { WriterLock } from '../../daemon/writer-lock.js';
import { buildMany } from '../../engine/many.js';
import type { BuildParams } from '../../control/protocol.js';
import { Redactor, redactName } from '../../core/redact.js';
import { HARNESSES } from '../../core/types.js';
import type { Harness } from '../../core/types.js';
import { EXIT, HandoffError, UsageError } from '../../errors.js';
import { bool, str } from '../args.js';
import type { Command } from '../command.js';
import { printError, redactArg } from '../report.js';
import { daemonIfRunning } from '../daemon-link.js';
import { stampSuccessor } from '../../store/to-session.js';
import { storeExposure } from '../../store/permissions.js';
import { flushIndex, loadConfig, openWriter } from '../store.js';

export const buildCommand: Command = {
  name: 'build',
  summary: 'build or refresh the handoff of one or more transcripts (one-shot)',
  usage: 'handoff build <transcript…> [--session ID] [--project P] [--harness H] [--model M] [--objective T] [--allow-bad-lines] [--final] [--json]',
  example: 'handoff build ~/.claude/projects/-home-me-app/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl',
  details:
    'Reads only what is new since the last build (the watermark), appends the new turns, re-renders the handoff\n' +
    'and seals it. With nothing new it prints `handoff: up-to-date (…)` and writes nothing.',
  options: {
    session: { type: 'string', arg: 'ID', description: 'session id (default: the `session` field of the first line, else the file name)' },
    project: { type: 'string', arg: 'P', description: 'project to file the session under (default: inferred from its cwd)' },
    harness: { type: 'string', arg: 'H', description: `force a reader: ${HARNESSES.join(', ')} (default: detected from the lines)` },
    model: { type: 'string', arg: 'M', description: 'model id when the transcript records none' },
    objective: { type: 'string', arg: 'T', description: "the session's objective, instead of its first user request" },
    'allow-bad-lines': { type: 'boolean', description: 'count and skip lines that are not JSON instead of failing (exit 5)' },
    final: { type: 'boolean', description: 'take a last line without a newline as complete when it parses' },
  },
  async run(io, args) {
    const sources = args.positionals;
    if (sources.length === 0) throw new UsageError('handoff build: expected at least one transcript path', { hint: `usage: ${buildCommand.usage}` });
    const harness = str(args, 'harness');
    if (harness !== undefined && !HARNESSES.includes(harness as Harness)) {
      throw new UsageError(`handoff build: --harness must be one of ${HARNESSES.join(', ')}, found "${harness}"`, { hint: 'or leave it out to detect the harness from the lines' });
    }
    if (str(args, 'session') !== undefined && sources.length > 1) {
      throw new UsageError('handoff build: --session names one session, but several transcripts were given', { hint: 'build them one at a time' });
    }
    const config = loadConfig(io, args);
    const exposed = storeExposure(config.root);
    if (exposed) io.err(`handoff: warning: ${exposed.message}\n  fix: ${exposed.fix}`);
    // What the store keeps of the flags is redacted here already: raw values never cross the socket.
    const redactor = new Redactor(config.redactionPatterns);
    const objective = redactArg(io, redactor, '--objective', str(args, 'objective'));
    const project = redactArg(io, redactor, '--project', str(args, 'project'));
    const model = redactArg(io, redactor, '--model', str(args, 'model'));
    const session = mapDefined(str(args, 'session'), (s) => redactName(redactor, s));
    // A file of the store itself (a timeline, a handoff) is not a transcript: built, it would file
    // the store's own lines as a session of it (the daemon never watches the store either).
    const store = ownStore(config.root);
    for (const source of sources) {
      if (isExcluded(realOrSelf(resolve(io.cwd, source)), store)) {
        throw new UsageError(`handoff build: ${resolve(io.cwd, source)} is inside the store (${config.root}), not a transcript`, { hint: 'give the transcript the session was built from: `handoff list --json` shows each session\'s source path' });
      }
    }
    const daemon = await daemonIfRunning(config);
    const reqs: BuildRequest[] = sources.map((source) => ({
      source: resolve(io.cwd, source),
      session,
      project,
      harness: harness as Harness | undefined,
      model,
      objective,
      allowBadLines: bool(args, 'allow-bad-lines'),
      final: bool(args, 'final'),
    }));
    let exit: number = EXIT.OK;
    const fail = (e: unknown): void => {
      if (!(e instanceof HandoffError)) throw e;
      printError(io, e);
      if (exit === EXIT.OK) exit = e.exitCode;
    };
    let writer: WriterLock | null = null;
    try {
      if (daemon) {
        // While a daemon runs it is the store's only writer: the builds go through its queue.
        for (const [i, req] of reqs.entries()) {
          try {
            const r = (await daemon.call('build', toParams(req), 0)) as unknown as BuildResult;
            report(io, r, bool(args, 'json'), sources[i] as string);
            if (r.corrupt) throw r.corrupt;
          } catch (e) {
            fail(e);
          }
        }
        return exit;
      }
      // Many files are a backfill: the heap is held to what the daemon's is (daemon/heap.ts), so
      // the main thread and a build worker together stay within the cold build's memory budget.
      if (reqs.length > 1) tuneHeap();
      const opened = await openWriter(io, config, 'handoff build');
      writer = opened.writer;
      const engine = opened.engine;
      // Many files: the sessions that depend on no other are built side by side (daemon.backfill_workers).
      const workers = reqs.length > 1 ? Math.min(workerCount(config.options.daemon.backfill_workers), reqs.length - 1) : 0;
      const pool = workers > 0 ? new BuildPool(workers, config, engine.index, engine.claims, { depth: 2 }) : null;
      try {
        // A build of many files is a backfill: each repository's git evidence is captured once for it.
        const many = reqs.length > 1 ? reqs.map((r) => ({ ...r, backfill: true })) : reqs;
        await buildMany(engine, pool, many, async (i, o) => {
          try {
            if ('error' in o) throw o.error;
            const r = o.result;
            // A build renders `to_session: pending`; without a daemon to stamp it again, this command does.
            await stampSuccessor(r.dir);
            report(io, r, bool(args, 'json'), sources[i] as string);
            if (r.corrupt) throw r.corrupt;
          } catch (e) {
            fail(e);
          }
        });
      } finally {
        await pool?.close();
      }
      await flushIndex(config, engine.index);
    } finally {
      daemon?.close();
      writer?.release();
    }
    return exit;
  },
};

const mapDefined = <T, U>(v: T | undefined, f: (x: T) => U): U | undefined => (v === undefined ? undefined : f(v));

function toParams(r: BuildRequest): BuildParams {
  const p: BuildParams = { path: r.source };
  if (r.session !== undefined) p.session = r.session;
  if (r.project !== undefined) p.project = r.project;
  if (r.harness !== undefined) p.harness = r.harness;
  if (r.model !== undefined) p.model = r.model;
  if (r.objective !== undefined) p.objective = r.objective;
  if (r.allowBadLines) p.allow_bad_lines = true;
  if (r.final) p.final = true;
  return p;
}

function report(io: Parameters<Command['run']>[0], r: BuildResult, json: boolean, source: string): void {
  if (r.pending_bytes > 0) {
    io.err(`handoff: ${source}: the last line (${r.pending_bytes} bytes) has no newline yet and was not read (--final takes it when it parses)`);
  }
  if (r.reset) io.err(`handoff: ${r.session}: source reset (${r.reset}); the old timeline was kept in history/ and the session rebuilt from byte 0`);
  if (r.history_skipped !== undefined) io.err(`handoff: ${r.session}: ${r.history_skipped}`);
  if (r.oversized !== undefined) io.err(`handoff: ${source}: line ${r.oversized.line} (at byte ${r.oversized.offset}, ${r.oversized.bytes} bytes)${r.oversized.count > 1 ? ` and ${r.oversized.count - 1} other line(s)` : ''} longer than capture.max_line_bytes skipped unread: its turn is not in the handoff (to read it: raise capture.max_line_bytes, docs/CONFIG.md, move the session's folder aside and build the transcript again)`);
  if (json) {
    const { session, project, dir, revision, watermark, turns, new_turns, up_to_date } = r;
    io.out(JSON.stringify({ session, project, dir, revision, watermark, turns, new_turns, up_to_date }));
    return;
  }
  if (r.up_to_date) io.out(`handoff: up-to-date (${r.session}, watermark ${r.watermark}, rev ${r.revision})`);
  else io.out(`built ${r.session} (${r.project}): rev ${r.revision}, +${r.new_turns} turns, ${r.turns} in all, watermark ${r.watermark} → ${r.dir}/HANDOFF.md`);
}

/** A path with its links resolved, or as given when it does not exist (yet). */
function realOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}
