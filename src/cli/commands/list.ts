import { escapeControls } from '../../core/control-chars.js';
import { EXIT, NotFoundError } from '../../errors.js';
import { uniquePrefixes } from '../../store/index-store.js';
import { bool, str } from '../args.js';
import type { Command } from '../command.js';
import { ago, fitTable, idColumn, pressureCell, TITLE_MIN_WIDTH } from '../format.js';
import { listSessions } from '../store.js';

export const listCommand: Command = {
  name: 'list',
  maxArgs: 0,
  summary: 'list the sessions of the store',
  usage: 'handoff list [--project P] [--json]',
  example: 'handoff list --project my-app',
  details: 'Each id is shown at least as far as it takes to name its session alone (what `handoff show` takes).\nPiped, nothing is cut (set COLUMNS to fit a width).',
  options: {
    project: { type: 'string', arg: 'P', description: 'only this project' },
  },
  async run(io, args) {
    const { config, entries: all } = await listSessions(io, args);
    const project = str(args, 'project');
    const entries = all.filter((e) => project === undefined || e.project === project).sort((a, b) => b.updated.localeCompare(a.updated));
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
    const ids = idColumn(
      entries.map((e) => e.id),
      uniquePrefixes(all, entries.map((e) => e.id)),
    );
    const rows = entries.map((e, i) => [escapeControls(e.project), ids.cells[i] ?? '', escapeControls(e.title ?? ''), e.harness, String(e.turns), String(e.revisions), pressureCell(io, e.pressure), e.transfer_ready ? 'yes' : 'no', ago(e.updated, now)]);
    io.out(fitTable(['PROJECT', 'SESSION', 'TITLE', 'HARNESS', 'TURNS', 'REV', 'PRESSURE', 'READY', 'UPDATED'], rows, io.columns, [2, 0, 1], [undefined, ids.minWidth, TITLE_MIN_WIDTH]));
    return EXIT.OK;
  },
};
