import { stripControls } from '../core/control-chars.js';
import type { HandoffError } from '../errors.js';
import type { Io } from './io.js';
import { paint } from './io.js';

/**
 * Prints an error the way every command does: the message, then the fix. A message that names
 * its command already (`handoff verify: expected …`) is not prefixed a second time. A message
 * may quote a file name: it is printed, never obeyed.
 */
export function printError(io: Io, e: HandoffError): void {
  const message = stripControls(e.message);
  io.err(/^handoff[\s:]/.test(message) ? `${paint(io, 'red', 'handoff')}${message.slice('handoff'.length)}` : `${paint(io, 'red', 'handoff:')} ${message}`);
  if (e.hint) io.err(`  fix: ${stripControls(e.hint)}`);
}
