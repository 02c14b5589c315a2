/**
 * Terminal control sequences in text that came from a transcript or a file name. An agent's
 * tool output (or a hostile file name) can hold an OSC 52 clipboard write, a window title, a
 * screen clear or a carriage return that overwrites what was printed before it: none of that may
 * reach a terminal or a Markdown line. Pure; a fast path leaves clean text untouched.
 */

// ESC-introduced sequences: CSI (ESC [ … final), OSC/DCS/SOS/PM/APC (ESC ] P X ^ _ … ST or BEL),
// and two-byte escapes (ESC + one character). Their 8-bit C1 forms are handled the same way.
// eslint-disable-next-line no-control-regex
const SEQUENCE = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c\n]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -~]?/g;
// Any C0 control but tab and newline, DEL, and C1; and the invisible format characters that
// can hide inside a word: a soft hyphen, a zero-width space, a word joiner, a byte-order mark
// (a credential split by one is no longer found whole), and the bidirectional overrides and
// isolates that make a terminal show text in another order than it is.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;
// eslint-disable-next-line no-control-regex
const CONTROL_G = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;
// eslint-disable-next-line no-control-regex
const ANY_CONTROL_G = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/** True when `text` holds any character stripControls would change. */
export function hasControls(text: string): boolean {
  return CONTROL.test(text);
}

/**
 * Multi-line text made safe for a terminal and Markdown: escape sequences removed, `\r\n` and
 * a lone `\r` become `\n`, every other control character but tab and newline removed.
 */
export function stripControls(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(SEQUENCE, '').replace(/\r\n?/g, '\n').replace(CONTROL_G, '');
}

/**
 * A single-line value (an id, a path, a title) made safe and kept distinguishable: every
 * control character, newline and tab included, and every invisible format character, is shown as
 * a visible escape (`\x1b`, `\n`, `\u202e`), so
 * two names that differ only in control characters still read differently.
 */
export function escapeControls(text: string): string {
  return text.replace(ANY_CONTROL_G, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    const code = c.charCodeAt(0);
    // A format character (a bidirectional override, a zero-width space) as `\u202e`: shown, it
    // would reorder or hide what a terminal prints (`evil\u202egnp.exe` shows as `evilexe.png`).
    return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}

const SEQUENCE_OR_CONTROL = new RegExp(`${SEQUENCE.source}|${CONTROL_G.source}`, 'g');
const INTRODUCERS = new Set(['\u001b', '\u009b', '\u0090', '\u0098', '\u009d', '\u009e', '\u009f']);
// SGR (colour) sequences the CLI itself writes, kept by terminalSafe.
// eslint-disable-next-line no-control-regex
const SGR = /^\u001b\[[0-9;]*m$/;

/**
 * The last line of defence of the CLI's own output: every escape sequence except colour (SGR,
 * which `paint` writes) is removed, and any other control character but tab and newline is shown
 * as a visible escape. Strings from transcripts and file names are cleaned before they are
 * formatted; this catches whatever a future formatter forgets.
 */
export function terminalSafe(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(SEQUENCE_OR_CONTROL, (m) => {
    if (m.length === 1 && !INTRODUCERS.has(m)) return escapeControls(m);
    return SGR.test(m) ? m : '';
  });
}
