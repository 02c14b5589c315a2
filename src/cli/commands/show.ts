import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stripControls } from '../../core/control-chars.js';
import { EXIT, NotFoundError } from '../../errors.js';
import type { IndexEntry } from '../../store/index-file.js';
import { FILES } from '../../store/layout.js';
import type { Parsed } from '../args.js';
import { bool } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { findSession, requirePrefix } from '../store.js';

/**
 * A file of the session. The daemon may move the folder between the lookup and the read (a
 * project refined from the transcript's cwd): looked up once more before giving up.
 */
async function readOf(io: Io, args: Parsed, prefix: string, first: IndexEntry, file: string): Promise<string> {
  let entry = first;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await readFile(join(entry.dir, file), 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EISDIR') throw new NotFoundError(`${entry.id}: ${join(entry.dir, file)} is a folder, not the session's file`, { hint: `\`handoff verify ${entry.id}\` says what is wrong with the session; move the folder aside and rebuild it with \`handoff build <transcript>\`` });
      if (code !== 'ENOENT') throw e;
      if (attempt > 0) {
        throw new NotFoundError(`${entry.id}: ${join(entry.dir, file)} is missing`, { hint: `\`handoff verify ${entry.id}\` says what is wrong with the session; rebuild it with \`handoff build <transcript>\`` });
      }
      entry = (await findSession(io, args, prefix)).entry;
    }
  }
}

export const showCommand: Command = {
  name: 'show',
  maxArgs: 1,
  summary: "print a session's HANDOFF.md (or its path)",
  usage: 'handoff show <id-prefix> [--path] [--json]',
  example: 'handoff show 0d3a --path',
  details: '--json prints HANDOFF.summary.json instead. Control sequences from transcripts are never printed.',
  options: {
    path: { type: 'boolean', description: 'print the path of HANDOFF.md instead of its contents' },
  },
  async run(io, args) {
    const prefix = requirePrefix(args, showCommand);
    const { entry: e } = await findSession(io, args, prefix);
    if (bool(args, 'path')) io.out(join(e.dir, FILES.handoff));
    else if (bool(args, 'json')) io.out((await readOf(io, args, prefix, e, FILES.summary)).trimEnd());
    else io.out(stripControls(await readOf(io, args, prefix, e, FILES.handoff)).trimEnd());
    return EXIT.OK;
  },
};
