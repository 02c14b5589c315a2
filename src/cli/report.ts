import { stripControls } from '../core/control-chars.js';
import { Redactor } from '../core/redact.js';
import type { HandoffError } from '../errors.js';
import type { Io } from './io.js';
import { paint } from './io.js';

/**
 * Prints an error the way every command does: the message, then the fix. A message that names
 * its command already (`handoff verify: expected …`) is not prefixed a second time. A message may
 * quote a file name: it is printed, never obeyed. Errors quote what they were given (a path, an
 * argument, a line of config): the built-in redactor runs over every message before it reaches the
 * terminal.
 */
const TERMINAL = new Redactor();

export function safeText(text: string): string {
  return TERMINAL.redact(text).text;
}

export function printError(io: Io, e: HandoffError): void {
  const message = safeText(stripControls(e.message));
  io.err(/^handoff[\s:]/.test(message) ? `${paint(io, 'red', 'handoff')}${message.slice('handoff'.length)}` : `${paint(io, 'red', 'handoff:')} ${message}`);
  if (e.hint) io.err(`  fix: ${safeText(stripControls(e.hint))}`);
}

/**
 * A value given on the command line that the store will keep (an objective, a note, a title):
 * redacted like transcript text before it goes anywhere, the daemon's socket included, and the
 * user told how many credentials it held.
 */
export function redactArg(io: Io, redactor: Redactor, what: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const r = redactor.redact(value);
  if (r.count > 0) io.err(`handoff: ${r.count} credential(s) in ${what} were redacted before writing`);
  return r.text;
}
