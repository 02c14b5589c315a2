import { join } from 'node:path';
import type { HistoryRequest } from '../../engine/history.js';
import { Redactor } from '../../core/redact.js';
import { EXIT } from '../../errors.js';
import { FILES } from '../../store/layout.js';
import { bool, str } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import type { Parsed } from '../args.js';
import { redactArg } from '../report.js';
import { loadConfig, requirePrefix } from '../store.js';
import { updateSession } from '../update.js';

/**
 * finalize and checkpoint (SPEC §4, §11): re-render the session (reading any new transcript
 * bytes) and write an immutable copy into history/ in the same commit — through the daemon's
 * queue when one runs. A history file is never overwritten: a second copy in the same second
 * gets a counter in its name.
 */

async function writeHistory(io: Io, args: Parsed, name: 'finalize' | 'checkpoint', usage: string): Promise<number> {
  const prefix = requirePrefix(args, { name, usage });
  const request: HistoryRequest = { kind: name, reason: 'requested' };
  const note = redactArg(io, new Redactor(loadConfig(io, args).redactionPatterns), '--note', str(args, 'note'));
  if (note !== undefined) request.note = note;
  const r = await updateSession(io, args, prefix, { history: request });
  if (!r.history) throw new Error(`the update of ${r.session} wrote no history entry`);
  const file = join(r.dir, FILES.history, r.history.file);
  if (bool(args, 'json')) {
    io.out(JSON.stringify({ session: r.session, project: r.project, dir: r.dir, revision: r.revision, kind: r.history.kind, history_file: file }));
  } else {
    io.out(`${name === 'finalize' ? 'finalized' : 'checkpointed'} ${r.session} (rev ${r.revision}) → ${file}`);
  }
  return EXIT.OK;
}

export const finalizeCommand: Command = {
  name: 'finalize',
  maxArgs: 1,
  summary: 'refresh a handoff and keep an immutable copy of it in history/',
  usage: 'handoff finalize <id-prefix> [--json]',
  example: 'handoff finalize 0d3a',
  details: 'Reads any new transcript lines, re-renders HANDOFF.md and copies it to history/<UTC stamp>-<session>.md\nin the same commit. History files are read-only and never overwritten or deleted.',
  options: {},
  run: (io, args) => writeHistory(io, args, 'finalize', finalizeCommand.usage),
};

export const checkpointCommand: Command = {
  name: 'checkpoint',
  maxArgs: 1,
  summary: 'refresh a handoff and keep a checkpoint copy (with an optional note) in history/',
  usage: 'handoff checkpoint <id-prefix> [--note T] [--json]',
  example: 'handoff checkpoint 0d3a --note "before the schema migration"',
  details: 'Like finalize, but the copy is named …-checkpoint.md and opens with the time, revision and note.',
  options: {
    note: { type: 'string', arg: 'T', description: 'a line saying why (redacted like transcript text)' },
  },
  run: (io, args) => writeHistory(io, args, 'checkpoint', checkpointCommand.usage),
};
