import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT } from '../../errors.js';
import { FILES } from '../../store/layout.js';
import { bool } from '../args.js';
import type { Command } from '../command.js';
import { openSession } from '../store.js';

export const showCommand: Command = {
  name: 'show',
  maxArgs: 1,
  summary: "print a session's HANDOFF.md (or its path)",
  usage: 'handoff show <id-prefix> [--path] [--json]',
  example: 'handoff show 0d3a --path',
  details: '--json prints HANDOFF.summary.json instead.',
  options: {
    path: { type: 'boolean', description: 'print the path of HANDOFF.md instead of its contents' },
  },
  async run(io, args) {
    const { entry: e } = await openSession(io, args, showCommand);
    if (bool(args, 'path')) io.out(join(e.dir, FILES.handoff));
    else if (bool(args, 'json')) io.out((await readFile(join(e.dir, FILES.summary), 'utf8')).trimEnd());
    else io.out((await readFile(join(e.dir, FILES.handoff), 'utf8')).trimEnd());
    return EXIT.OK;
  },
};
