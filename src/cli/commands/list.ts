import { EXIT, NotFoundError } from '../../errors.js';
import type { IndexEntry } from '../../store/index-file.js';
import { bool, str } from '../args.js';
import type { Command } from '../command.js';
import { ago, fitTable, pressureCell } from '../format.js';
import { loadConfig } from '../store.js';
import { openEngine } from '../../build/index.js';

export const listCommand: Command = {
  name: 'list',
  maxArgs: 0,
  summary: 'list the sessions of the store',
  usage: 'handoff list [--project P] [--json]',
  example: 'handoff list --project my-app',
  options: {
    project: { type: 'string', arg: 'P', description: 'only this project' },
  },
  async run(io, args) {
    const config = loadConfig(io, args);
    const engine = await openEngine(config);
    const project = str(args, 'project');
    const entries = engine.index
      .all()
      .filter((e) => project === undefined || e.project === project)
      .sort((a, b) => b.updated.localeCompare(a.updated));
    // SPEC §11: no handoffs is exit 4, for a listing too (--json still prints its empty list).
    if (bool(args, 'json')) {
      io.out(JSON.stringify(entries, null, 2));
      return entries.length === 0 ? EXIT.NOT_FOUND : EXIT.OK;
    }
    if (entries.length === 0) {
      if (project) throw new NotFoundError(`no sessions in project ${project} (${config.root})`, { hint: '`handoff list` shows every project and session' });
      throw new NotFoundError(`no handoffs yet in ${config.root}`, { hint: 'run `npm start` (the daemon) or `handoff build <transcript>`' });
    }
    const now = io.now();
    const rows = entries.map((e: IndexEntry) => [e.project, e.id, e.harness, String(e.turns), String(e.revisions), pressureCell(io, e.pressure), e.transfer_ready ? 'yes' : 'no', ago(e.updated, now)]);
    io.out(fitTable(['PROJECT', 'SESSION', 'HARNESS', 'TURNS', 'REV', 'PRESSURE', 'READY', 'UPDATED'], rows, io.columns, [1, 0]));
    return EXIT.OK;
  },
};
