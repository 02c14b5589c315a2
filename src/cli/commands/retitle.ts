import { Redactor } from '../../core/redact.js';
import { EXIT, UsageError } from '../../errors.js';
import { bool } from '../args.js';
import type { Command } from '../command.js';
import { redactArg } from '../report.js';
import { loadConfig } from '../store.js';
import { updateSession } from '../update.js';

export const retitleCommand: Command = {
  name: 'retitle',
  maxArgs: 2,
  tooManyHint: 'put a title of several words in quotes: handoff retitle <id-prefix> "Fix the flaky upload test"',
  summary: "give a session a title; its folder takes the title's slug",
  usage: 'handoff retitle <id-prefix> <new-name> [--json]',
  example: 'handoff retitle 0d3a "fix the flaky upload test"',
  options: {},
  async run(io, args) {
    const [prefix, name] = args.positionals;
    if (prefix === undefined || name === undefined || name.trim() === '') throw new UsageError('handoff retitle: expected an id prefix and a new name', { hint: `usage: ${retitleCommand.usage}` });
    const title = redactArg(io, new Redactor(loadConfig(io, args).redactionPatterns), 'the new name', name) as string;
    const r = await updateSession(io, args, prefix, { title });
    if (bool(args, 'json')) io.out(JSON.stringify({ session: r.session, project: r.project, dir: r.dir, revision: r.revision }));
    else io.out(`retitled ${r.session} → ${r.dir} (rev ${r.revision})`);
    return EXIT.OK;
  },
};

export const renameCommand: Command = {
  name: 'rename',
  maxArgs: 2,
  tooManyHint: 'put a project name with spaces in quotes: handoff rename <id-prefix> "billing api"',
  summary: 'move a session under another project',
  usage: 'handoff rename <id-prefix> <project> [--json]',
  example: 'handoff rename 0d3a billing-service',
  options: {},
  async run(io, args) {
    const [prefix, project] = args.positionals;
    if (prefix === undefined || project === undefined || project.trim() === '') throw new UsageError('handoff rename: expected an id prefix and a project', { hint: `usage: ${renameCommand.usage}` });
    const to = redactArg(io, new Redactor(loadConfig(io, args).redactionPatterns), 'the project', project) as string;
    const r = await updateSession(io, args, prefix, { project: to });
    if (bool(args, 'json')) io.out(JSON.stringify({ session: r.session, project: r.project, dir: r.dir, revision: r.revision }));
    else io.out(`moved ${r.session} to project ${r.project} → ${r.dir} (rev ${r.revision})`);
    return EXIT.OK;
  },
};
