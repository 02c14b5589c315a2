import { HOOK_EVENTS, HOOK_OPTIONS, runHook } from '../../hooks/run.js';
import { str } from '../args.js';
import type { Command } from '../command.js';

/**
 * Listed for `handoff --help` and `handoff hook --help`; a harness's call is served by the CLI's
 * fast path (src/cli.ts), which loads only the hook's modules.
 */
export const hookCommand: Command = {
  name: 'hook',
  maxArgs: 1,
  summary: 'run by Claude Code or Codex: gives a session its handoff back after a compaction, and more',
  usage: `handoff hook ${HOOK_EVENTS.join('|')} [--harness claude|codex] [--root DIR]`,
  example: 'handoff hook session-start < input.json   # input.json: {"session_id":…,"transcript_path":…,"source":"compact"}',
  details: [
    'Reads the harness\'s JSON on stdin and prints exactly what the harness expects; always exits 0.',
    '  session-start  after a compaction (source compact): the session\'s handoff as additionalContext;',
    '                 a new or cleared session (startup, clear): the project\'s unclaimed handoff, offered',
    '  pre-compact    keeps a checkpoint of the handoff in history/ before the compaction',
    '  statusline     one line: context pressure, handoff revision, transfer-ready',
    '`handoff hooks install` wires them into Claude Code or Codex; docs/HOOKS.md says what each prints.',
  ].join('\n'),
  options: HOOK_OPTIONS,
  run(io, args) {
    const harness = str(args, 'harness');
    const root = str(args, 'root');
    return runHook([...args.positionals, ...(harness ? ['--harness', harness] : []), ...(root ? ['--root', root] : [])], io);
  },
};
