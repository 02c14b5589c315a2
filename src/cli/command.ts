import type { OptionSpec, Parsed } from './args.js';
import type { Io } from './io.js';

/** One CLI command: its help text and its behaviour. Exit codes are numbers from EXIT. */
export interface Command {
  name: string;
  /** One line for `handoff --help`. */
  summary: string;
  usage: string;
  example: string;
  options: Record<string, OptionSpec>;
  /** The most arguments (besides options) it takes; more is a usage error. Absent: no limit. */
  maxArgs?: number;
  /** What to say when there are too many, if more than the usage line. */
  tooManyHint?: string;
  /** Longer help: what it does, in a few lines. */
  details?: string;
  run(io: Io, args: Parsed): Promise<number>;
}
