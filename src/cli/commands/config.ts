import type { Command } from '../command.js';
import { bool } from '../args.js';
import { EXIT } from '../../errors.js';
import { Redactor, redactJsonText } from '../../core/redact.js';
import { loadConfig } from '../store.js';

export const configCommand: Command = {
  name: 'config',
  maxArgs: 0,
  summary: 'show where the store lives, which rule chose it, and the options in force',
  usage: 'handoff config [--json]',
  example: 'handoff config',
  options: {},
  async run(io, args) {
    const c = loadConfig(io, args);
    const linking = c.options.linking.enabled ? 'enabled' : 'disabled';
    if (bool(args, 'json')) {
      // Read as every answer of the daemon is: a literal secret written as a redaction pattern
      // (to have it removed) is removed here too.
      const redactor = new Redactor(c.redactionPatterns);
      io.out(
        redactJsonText(redactor, JSON.stringify(
          {
            root: c.root,
            source: c.source,
            file: c.file,
            schema: c.schema,
            project: c.projectName,
            linking,
            socket: c.socketPath,
            watch: c.watchPaths,
            options: c.options,
          },
          null,
          2,
        )),
      );
      return EXIT.OK;
    }
    io.out(
      [
        `root=${c.root}`,
        `source=${c.source}`,
        `file=${c.file ?? 'none'}`,
        `schema=${c.schema}`,
        `project=${c.projectName ?? 'auto-detected'}`,
        `linking=${linking}`,
        `socket=${c.socketPath}`,
        `watch=${c.watchPaths.join(',')}`,
      ].join('\n'),
    );
    return EXIT.OK;
  },
};
