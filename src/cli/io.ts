import { readStdin } from '../hooks/input.js';
import { terminalSafe } from '../core/control-chars.js';

/** What a command may touch of the process: streams, environment, working folder, the clock. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly stdoutIsTTY: boolean;
  /** Width to fit tables to: the terminal's; when piped, COLUMNS or no limit (nothing is cut). */
  readonly columns: number;
  /** Colour only on a terminal and never with NO_COLOR. */
  readonly color: boolean;
  now(): Date;
  /** Resolves when the user interrupts (SIGINT) a long-running command such as `status --follow`. */
  readonly interrupted: Promise<void>;
  /** stdin as text, for hooks a harness runs (absent: no stdin, as for a command run in-process). */
  readStdin?(timeoutMs: number): Promise<string>;
  /** When the process started, on performance.now()'s clock: a hook's time budget counts from it. */
  readonly startedAtMs?: number;
}

export function processIo(): Io {
  // A reader that went away (`handoff status --json | head -1`) is the end of the output, not a
  // crash: what was to be printed goes nowhere, and the command ends as it would have.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
    });
  }
  const tty = process.stdout.isTTY === true;
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
  let interrupted: Promise<void> | null = null;
  const cols = Number(process.env.COLUMNS);
  // Whatever a command prints, no escape sequence but colour reaches the terminal (see terminalSafe).
  const write = (stream: NodeJS.WriteStream, t: string): void => void stream.write(terminalSafe(t.endsWith('\n') ? t : `${t}\n`));
  return {
    out: (t) => write(process.stdout, t),
    err: (t) => write(process.stderr, t),
    env: process.env,
    cwd: process.cwd(),
    stdoutIsTTY: tty,
    columns: tty ? (process.stdout.columns ?? 80) : Number.isInteger(cols) && cols > 0 ? cols : Number.POSITIVE_INFINITY,
    color: tty && !noColor && process.env.TERM !== 'dumb',
    now: () => new Date(),
    readStdin: (timeoutMs) => readStdin(process.stdin, timeoutMs),
    startedAtMs: 0,
    get interrupted() {
      interrupted ??= new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
      return interrupted;
    },
  };
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1, dim: 2 } as const;
export type Colour = keyof typeof CODES;

export function paint(io: Pick<Io, 'color'>, colour: Colour, text: string): string {
  return io.color ? `\u001b[${CODES[colour]}m${text}\u001b[0m` : text;
}
