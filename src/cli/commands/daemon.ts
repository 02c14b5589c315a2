import type { ResolvedConfig } from '../../config.js';
import { Redactor, redactJsonText } from '../../core/redact.js';
import { Daemon } from '../../daemon.js';
import { tuneHeap } from '../../daemon/heap.js';
import { EXIT, UsageError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { bool, str } from '../args.js';
import type { Command } from '../command.js';
import { loadConfig } from '../store.js';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Signals the daemon takes and ignores, saying so (docs/SECURITY.md, "The daemon's process"). */
const IGNORED_SIGNALS: readonly NodeJS.Signals[] = ['SIGUSR1', 'SIGUSR2', 'SIGALRM', 'SIGPWR', 'SIGVTALRM', 'SIGSYS'];

export const daemonCommand: Command = {
  name: 'daemon',
  maxArgs: 0,
  summary: 'run handoffd in the foreground: watch transcripts and keep every handoff current',
  usage: 'handoff daemon [--watch DIR]… [--pretty] [--log-level L]',
  example: 'handoff daemon --watch ~/.claude/projects --pretty',
  details:
    'Watches every Claude Code projects folder and Codex sessions folder (or the --watch folders, or\n' +
    'watch.paths in config), backfills what changed while it was not running, and refreshes a session\'s\n' +
    'handoff moments after its transcript grows. Stop it with Ctrl-C or SIGTERM; SIGHUP reloads the config.\n' +
    'It never forks: run it under systemd or launchd (`handoff service install`) to keep it up.',
  options: {
    watch: { type: 'string', multiple: true, arg: 'DIR', description: 'watch this folder instead of the defaults (repeatable)' },
    pretty: { type: 'boolean', description: 'human-readable logs (the default on a terminal)' },
    'log-level': { type: 'string', arg: 'L', description: `log level: ${LEVELS.join(', ')} (default info, or daemon.log_level)` },
  },
  async run(io, args) {
    const level = str(args, 'log-level');
    if (level !== undefined && !LEVELS.includes(level)) throw new UsageError(`handoff daemon: --log-level must be one of ${LEVELS.join(', ')}, found "${level}"`, { hint: 'for example --log-level debug' });
    const config = loadConfig(io, args, true);
    tuneHeap();
    // The log is redacted with the configuration's patterns too, also after a reload.
    let redactor = new Redactor(config.redactionPatterns);
    const log = createLogger({ level: level ?? config.options.daemon.log_level, pretty: bool(args, 'pretty') || io.stdoutIsTTY, redact: (line) => redactJsonText(redactor, line) });
    const reload = (): ResolvedConfig => {
      const next = loadConfig(io, args, true);
      redactor = new Redactor(next.redactionPatterns);
      return next;
    };
    const daemon = new Daemon({ config, log, reload, logLevelFlag: level });
    // Signals are taken before start: one that arrives while it starts still stops it cleanly.
    const started = daemon.start();
    const stop = (signal: string) => () => {
      daemon.abortStart();
      void started.then(() => daemon.stop(signal), () => undefined);
    };
    // `on`, not `once`: the listener must still be there when the signal's other listeners run.
    // write-file-atomic (INDEX.json) has signal-exit listen while it writes, and signal-exit sends
    // a signal again when it finds no listener but its own: the daemon ended there and then, its
    // stop never run (the state files live builds left behind stayed behind). A signal repeated
    // asks for the same stop (stop() is idempotent), but a second Ctrl-C a moment after the first
    // is a person who will not wait: the daemon exits at once (the store is crash-safe; what a
    // build had under way is read again at the next start).
    let interruptedAt: number | null = null;
    process.on('SIGTERM', stop('SIGTERM'));
    process.on('SIGINT', () => {
      const now = Date.now();
      if (interruptedAt !== null && now - interruptedAt >= 1000) {
        log.warn({ signal: 'SIGINT' }, 'second SIGINT: exiting now, without waiting for the stop (builds under way are redone at the next start)');
        process.exit(130);
      }
      interruptedAt ??= now;
      stop('SIGINT')();
    });
    // The kernel's warning at a CPU time limit (`ulimit -t`, a service's LimitCPU=): a kill follows
    // at the hard limit, so the daemon stops cleanly now, saying why, instead of dying without a word.
    // (Said once: the kernel repeats it every CPU second past the limit.)
    let xcpu = false;
    process.on('SIGXCPU', () => {
      if (!xcpu) log.error({ signal: 'SIGXCPU' }, 'SIGXCPU: the CPU time limit (ulimit -t, LimitCPU=) was reached; stopping before the system ends the daemon (raise or remove the limit)');
      xcpu = true;
      stop('SIGXCPU')();
    });
    process.on('SIGHUP', () => void started.then(() => daemon.reload(), () => undefined));
    // SIGUSR1 would open Node's inspector on 127.0.0.1:9229, where any local user may run code in
    // the daemon (the socket's mode is its only access control): a listener of its own keeps it
    // shut. Signals whose default is to end the process without a word (nodemon's SIGUSR2, a stray
    // SIGALRM, SIGPWR, SIGVTALRM, or SIGSYS) are logged and carried on; SIGPROF and SIGTRAP are
    // left to profilers and debuggers started on purpose.
    for (const signal of IGNORED_SIGNALS) process.on(signal, () => log.warn({ signal }, `${signal} received and ignored (SIGTERM or SIGINT stops the daemon, SIGHUP reloads its configuration)`));
    process.on('unhandledRejection', (e) => log.error({ err: String(e) }, 'unhandled rejection (carrying on)'));
    try {
      await started;
    } catch (e) {
      // Stopped while it waited for a one-shot command to finish writing: nothing was started.
      if ((e as Error).name === 'AbortError') {
        log.info({}, 'stopped before it started (it was waiting for the store\'s writer lock)');
        return EXIT.OK;
      }
      throw e;
    }
    await daemon.stopped();
    // Another daemon took the store while this one ran: the error says which (exit 7).
    if (daemon.exitError) throw daemon.exitError;
    return EXIT.OK;
  },
};
