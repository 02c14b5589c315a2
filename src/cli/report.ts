import type { HandoffError } from '../errors.js';
import type { Io } from './io.js';
import { paint } from './io.js';

/** Prints an error the way every command does: the message, then the fix. */
export function printError(io: Io, e: HandoffError): void {
  io.err(`${paint(io, 'red', 'handoff:')} ${e.message}`);
  if (e.hint) io.err(`  fix: ${e.hint}`);
}
