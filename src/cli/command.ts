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
  /** Longer help: what it does, in a few lines. */
  details?: string;
  run(io: Io, args: Parsed): Promise<number>;
}
