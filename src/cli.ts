#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bool, closest, parse } from './cli/args.js';
import type { Io } from './cli/io.js';
import { processIo } from './cli/io.js';
import { EXIT, HandoffError, UsageError, accessFix, describeError, resourceFix } from './errors.js';
import { holdNursery } from './daemon/heap.js';
import { packageVersion } from './paths.js';

/**
 * argv → command. The only place that turns an error into an exit code: commands throw
 * HandoffErrors (each carries its code) or return EXIT values; anything else is a bug, reported
 * as such with exit 1.
 */
export async function main(argv: readonly string[], rawIo: Io): Promise<number> {
  const report = await loadReport(rawIo);
  if (typeof report === 'number') return report;
  const { printError, safeText } = report;
  const io = redactingIo(rawIo, safeText);
  const [first, ...rest] = argv;
  // A build of many files is a backfill: its nursery is held small from the start (daemon/heap.ts;
  // V8 grows it to 8 MB while the modules load).
  if (first === 'build' && rest.filter((a) => !a.startsWith('-')).length > 1) holdNursery();
  // A hook runs on every compaction and status-line refresh: it loads only its own modules.
  if (first === 'hook' && !rest.includes('--help') && !rest.includes('-h')) return (await import('./hooks/run.js')).runHook(rest, io);
  const { COMMANDS, findCommand } = await import('./cli/registry.js');
  const { commandHelp, mainHelp } = await import('./cli/help.js');
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? rest[0] : undefined;
    const c = topic ? findCommand(topic) : undefined;
    // With no command at all the help is a diagnostic: stderr, exit 2.
    if (first === undefined) io.err(mainHelp(packageVersion()));
    else io.out(c ? commandHelp(c) : mainHelp(packageVersion()));
    return first === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (first === '--version' || first === '-V') {
    io.out(packageVersion());
    return EXIT.OK;
  }
  try {
    const command = findCommand(first);
    if (!command) {
      if (first.startsWith('-')) {
        throw new UsageError(`expected a command first, found the option "${first}"`, { hint: 'options go after the command, e.g. `handoff list --root DIR`; `handoff --help` lists every command' });
      }
      const guess = closest(first, COMMANDS.map((c) => c.name));
      throw new UsageError(`unknown command "${first}"`, { hint: guess ? `did you mean \`handoff ${guess}\`? (\`handoff --help\` lists every command)` : '`handoff --help` lists every command' });
    }
    const args = parse(command.name, rest, command.options);
    if (bool(args, 'help')) {
      io.out(commandHelp(command));
      return EXIT.OK;
    }
    if (command.maxArgs !== undefined && args.positionals.length > command.maxArgs) {
      const extra = args.positionals.slice(command.maxArgs).map((a) => JSON.stringify(a)).join(' ');
      const want = command.maxArgs === 0 ? 'no arguments' : `at most ${command.maxArgs} argument${command.maxArgs === 1 ? '' : 's'}`;
      throw new UsageError(`handoff ${command.name}: expected ${want}, found ${args.positionals.length} (extra: ${extra})`, { hint: command.tooManyHint ?? `usage: ${command.usage}` });
    }
    return await command.run(io, args);
  } catch (e) {
    if (e instanceof HandoffError) {
      printError(io, e);
      return e.exitCode;
    }
    // The machine out of a resource (`ulimit -n 32`: node cannot even load a command's module) is no bug of handoffd's.
    const short = resourceFix(e);
    if (short !== null) {
      io.err(`handoff: ${safeText(describeError(e))}`);
      io.err(`  fix: ${short} and run the command again`);
      return EXIT.FAILED;
    }
    // A file this user may not use, or one where a folder should be (`<root>/.handoffd` a plain file).
    const access = accessFix(e);
    if (access !== null) {
      io.err(`handoff: ${safeText(describeError(e))}`);
      io.err(`  fix: ${access}, then run the command again`);
      return EXIT.FAILED;
    }
    io.err(`handoff: internal error: ${safeText(describeError(e))}`);
    if (e instanceof Error && e.stack && io.env.HANDOFF_DEBUG) io.err(safeText(e.stack));
    io.err('  this is a bug in handoffd; rerun with HANDOFF_DEBUG=1 for the stack trace and report it');
    return EXIT.FAILED;
  }
}

type Report = typeof import('./cli/report.js');

/**
 * The redactor every line printed passes, and the error printer, loaded first and on their own.
 * They are most of the modules a command loads: imported statically, a machine out of file
 * descriptors (`ulimit -n 32`) failed while node loaded them, before any handler ran, and printed
 * node's stack. Said here with the fix instead, with no text of the error's own (the redactor
 * that would clean it is what could not be loaded).
 */
async function loadReport(io: Io): Promise<Report | number> {
  try {
    return await import('./cli/report.js');
  } catch (e) {
    const fix = resourceFix(e);
    if (fix === null) throw e;
    io.err(`handoff: ${String((e as { code?: unknown }).code)}: could not load its own modules`);
    io.err(`  fix: ${fix} and run the command again`);
    return EXIT.FAILED;
  }
}

/**
 * Everything a command prints passes the built-in redactor: a transcript path named after a
 * token (which the store keeps, to read the file by it), an argument echoed in a message.
 * What the store holds is redacted already; this is the last line before a terminal.
 */
function redactingIo(io: Io, safeText: Report['safeText']): Io {
  return Object.create(io, {
    out: { value: (t: string) => io.out(safeText(t)) },
    err: { value: (t: string) => io.err(safeText(t)) },
  }) as Io;
}

function isEntry(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

/**
 * A harness waits for a hook's process to end, not just for its answer: work given up at the time
 * budget (a daemon call's fallback, still reading the store) must not keep it waiting. Once the
 * answer is written out, a hook ends. (Work that writes is never given up: see hooks/run.ts.)
 */
function endHook(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

if (isEntry()) {
  const argv = process.argv.slice(2);
  main(argv, processIo()).then(
    (code) => {
      process.exitCode = code;
      if (argv[0] === 'hook') endHook(code);
    },
    async (e: unknown) => {
      const fix = resourceFix(e);
      // The error's text passes the redactor when it can be loaded; else only its code is said.
      const said = await import('./cli/report.js').then(
        (r) => r.safeText(describeError(e)),
        () => String((e as { code?: unknown } | null)?.code ?? 'an error'),
      );
      process.stderr.write(fix === null ? `handoff: internal error: ${said}\n` : `handoff: ${said}\n  fix: ${fix} and run the command again\n`);
      process.exitCode = EXIT.FAILED;
    },
  );
}
