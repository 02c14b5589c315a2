/**
 * The text the rules read: every escape sequence (`\n`, `\t`, `\"`, `\/`, `\u00xx`, `\x41`) read
 * as the character it stands for, however deeply it is nested. Transcripts are JSON, tool inputs
 * are JSON inside JSON, and a credential at the start of a line follows the two characters `\n`:
 * in the decoded text it follows a line break, so boundaries, quotes and line rules work the same
 * at any depth. Rules find ranges in the decoded text; `source()` maps a range back to the input,
 * widening it to whole escape sequences, so the input is cut only where an escape starts or ends.
 *
 * HTML's references for quotes, `&`, `<` and `>` (`&quot;`, `&#34;`) are read the same way, a
 * shell's line continuation (a backslash ending a line) joins the two lines, and marks between two
 * characters a credential is made of (combining marks, invisible format characters, Markdown's emphasis
 * markers: MARK_CHARS) are read as not there.
 *
 * A run of backslashes before an escape letter counts as one escape whatever its length (`\\\\n`
 * is a line break escaped three times): the view is only read, never written, so a Windows path
 * read as a line break costs nothing but a boundary.
 */

export interface DecodedView {
  readonly text: string;
  /** The input range of decoded range [start, end). */
  source(start: number, end: number): [number, number];
}

const SIMPLE: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', b: ' ', f: ' ', v: ' ', '"': '"', "'": "'", '/': '/', '`': '`' };

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

function hexRun(text: string, from: number, n: number): boolean {
  if (from + n > text.length) return false;
  for (let k = from; k < from + n; k += 1) if (!isHex(text.charCodeAt(k))) return false;
  return true;
}

class EscapedView implements DecodedView {
  constructor(
    readonly text: string,
    /** Per escape: its index in the decoded text, and its input range. */
    private readonly at: readonly number[],
    private readonly from: readonly number[],
    private readonly to: readonly number[],
  ) {}

  /** The last escape at or before decoded index p, or -1. */
  private escapeAt(p: number): number {
    let lo = 0;
    let hi = this.at.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.at[mid] as number) <= p) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  private start(p: number): number {
    const k = this.escapeAt(p);
    if (k === -1) return p;
    const at = this.at[k] as number;
    return at === p ? (this.from[k] as number) : (this.to[k] as number) + (p - at - 1);
  }

  private end(p: number): number {
    if (p <= 0) return 0;
    const q = p - 1;
    const k = this.escapeAt(q);
    if (k === -1) return p;
    const at = this.at[k] as number;
    return at === q ? (this.to[k] as number) : (this.to[k] as number) + (q - at);
  }

  source(start: number, end: number): [number, number] {
    return [this.start(start), this.end(end)];
  }
}

const identity = (text: string): DecodedView => ({ text, source: (start, end) => [start, end] });

/**
 * HTML's character references for the characters that delimit a value: JSON in an HTML
 * attribute (`data-page="{&quot;apiKey&quot;:&quot;…&quot;}"`) is read with its quotes.
 */
const ENTITIES: Readonly<Record<string, string>> = { quot: '"', apos: "'", amp: '&', lt: '<', gt: '>', '#34': '"', '#39': "'", '#38': '&', '#x22': '"', '#x27': "'", '#x26': '&', '#X22': '"', '#X27': "'", '#X26': '&' };
const MAX_ENTITY = 6;

/** The character an entity at `i` (its `&`) stands for and where it ends, or null. */
function entityAt(input: string, i: number): [string, number] | null {
  for (let k = i + 2; k <= i + MAX_ENTITY && k < input.length; k += 1) {
    if (input.charCodeAt(k) !== 59) continue;
    let ch = ENTITIES[input.slice(i + 1, k)];
    if (ch === undefined) return null;
    // Encoded twice (`&amp;quot;`, an attribute escaped again): read through to the character.
    let end = k + 1;
    for (let depth = 0; ch === '&' && depth < 3; depth += 1) {
      const semi = input.indexOf(';', end);
      const inner = semi === -1 || semi - end > MAX_ENTITY ? undefined : ENTITIES[input.slice(end, semi)];
      if (inner === undefined) break;
      ch = inner;
      end = semi + 1;
    }
    return [ch, end];
  }
  return null;
}

/**
 * The view, read again while reading changes it: an escape written as an escape (`\u005cu0067hp_…`
 * is `\u0067hp_…` once read, `ghp_…` twice), or an entity whose `&` was escaped. At most three
 * readings; a text whose first reading holds no `\` or `&` is read once.
 */
export function decodedView(input: string): DecodedView {
  let view = ANY_MARK.test(input) && MARKS_IN_TOKEN.test(input) ? markView(input) : identity(input);
  const first = decodeOnce(view.text);
  if (first.text !== view.text) view = view.text === input ? first : compose(view, first);
  for (let depth = 0; depth < 2 && view.text !== input && (view.text.includes('\\') || view.text.includes('&')); depth += 1) {
    const next = decodeOnce(view.text);
    if (next.text === view.text) break;
    view = compose(view, next);
  }
  // Escaped colours read as marks: read through where they split a token.
  if (view.text !== input && view.text.includes(SPLIT_MARK) && MARKS_IN_TOKEN.test(view.text)) view = compose(view, markView(view.text));
  return view;
}

/** A view of a view: its text is the inner's, its ranges map back through both. */
function compose(outer: DecodedView, inner: DecodedView): DecodedView {
  return { text: inner.text, source: (start, end) => outer.source(...inner.source(start, end)) };
}

/**
 * A view built escape by escape, left to right: each replaces input range [from, to) with one
 * character. `pos` is where the input not yet copied starts.
 */
class ViewBuilder {
  private readonly parts: string[] = [];
  private readonly at: number[] = [];
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  private decodedLength = 0;
  pos = 0;

  constructor(private readonly input: string) {}

  add(from: number, to: number, ch: string): void {
    this.parts.push(this.input.slice(this.pos, from), ch);
    this.decodedLength += from - this.pos;
    this.at.push(this.decodedLength);
    this.from.push(from);
    this.to.push(to);
    this.decodedLength += 1;
    this.pos = to;
  }

  view(): DecodedView {
    if (this.at.length === 0) return identity(this.input);
    this.parts.push(this.input.slice(this.pos));
    return new EscapedView(this.parts.join(''), this.at, this.from, this.to);
  }
}

/**
 * What is read as not there between two characters a credential is made of: combining marks (U+0300–U+036F);
 * invisible format characters the control filter keeps because a script needs them (the zero-width
 * non-joiner and joiner, the left-to-right and right-to-left marks, the Arabic letter mark,
 * invisible operators, variation selectors, the Mongolian vowel separator, Hangul fillers, tag
 * characters); and Markdown's emphasis and code markers (`*`, a backtick), which a reader, and the
 * handoff's own text, drop (`**AKIA**Q3EG…` is a key to whoever reads it bold). Not `__`: it means
 * something in names (Bundler's `BUNDLE_GEMS__EXAMPLE__COM` is the host `gems.example.com`).
 */
const MARK_CHARS = '\u0300-\u036f\u200c-\u200f\u061c\u2061-\u2064\u180e\u3164\u115f\u1160\uffa0\ufe00-\ufe0f\ufffd*`';
const TOKEN_CHARS = 'A-Za-z0-9_\\-.+/=';
/** Any mark (a quick scan), then a run of them between two characters a credential is made of: the only texts a mark view changes. */
const ANY_MARK = new RegExp(`[${MARK_CHARS}]|\udb40`);
const MARKS_IN_TOKEN = new RegExp(`[${TOKEN_CHARS}](?:[${MARK_CHARS}]|\udb40[\udc00-\udc7f])+[${TOKEN_CHARS}]`);
const MARK_RUN = new RegExp(`(?:[${MARK_CHARS}]|\udb40[\udc00-\udc7f])+`, 'g');
/** A character a credential is made of: an ASCII letter or digit, or `-`, `_`, `.`, `+`, `/`, `=`. */
const isTokenChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95 || c === 46 || c === 43 || c === 47 || c === 61;

/**
 * Marks (MARK_CHARS) between two characters a credential is made of are read as not there: a key's characters
 * with an accent put on one (`d\u0301api8c4e…`), a zero-width joiner or a right-to-left mark put
 * between two, or a bold marker, are the key to whoever strips them, as a slug, a terminal or a
 * Markdown reader does. So is U+FFFD, which an invalid byte, a cut multibyte sequence or a lone
 * surrogate put in a token becomes when the line is decoded: the rest of the key is all there. A run of marks and the character after it are one escape that reads as
 * that character.
 */
/** A letter and a digit both: what a key's characters hold, and a word's or a number's do not. */
const MIXED = (t: string): boolean => /[A-Za-z]/.test(t) && /[0-9]/.test(t);

/**
 * Whether U+FFFD at [i, end) joins two parts of one key: the token characters on each side, each
 * holding a letter and a digit, or too short to say (a few characters at a key's end). A byte that
 * replaced punctuation between words or numbers (`ASIA\ufffdPACIFIC\ufffdSALES\ufffd2024`, en dashes of a
 * Windows-1252 file) joins nothing: read through, it made an AWS key's shape.
 */
function keyAcross(input: string, i: number, end: number): boolean {
  let a = i;
  while (a > 0 && i - a < 64 && isTokenChar(input.charCodeAt(a - 1))) a -= 1;
  let b = end;
  while (b < input.length && b - end < 64 && isTokenChar(input.charCodeAt(b))) b += 1;
  const left = input.slice(a, i);
  const right = input.slice(end, b);
  return (MIXED(left) || left.length < 4) && (MIXED(right) || right.length < 4) && MIXED(left + right) && left.length + right.length >= 16;
}

function markView(input: string): DecodedView {
  const out = new ViewBuilder(input);
  MARK_RUN.lastIndex = 0;
  for (let m = MARK_RUN.exec(input); m !== null; m = MARK_RUN.exec(input)) {
    const i = m.index;
    const end = i + m[0].length;
    const after = input[end];
    if (i === 0 || after === undefined || !isTokenChar(input.charCodeAt(i - 1)) || !isTokenChar(after.charCodeAt(0))) continue;
    if (m[0].includes('\ufffd') && !keyAcross(input, i, end)) continue;
    out.add(i, end + 1, after);
    MARK_RUN.lastIndex = end + 1;
  }
  return out.view();
}

/** A terminal control sequence after its ESC: `[`, parameters, a final letter (colours, cursor moves). */
const CSI = /^\[[0-9;?]{0,16}[A-Za-z]/;
/** What an escaped control sequence reads as: a mark (MARK_CHARS), not there between two characters of a token. */
const SPLIT_MARK = '\u200c';

/** Where the spaces and tabs from k end. */
function afterIndent(input: string, k: number): number {
  let i = k;
  while (input[i] === ' ' || input[i] === '\t') i += 1;
  return i;
}

/**
 * A run of `run` backslashes before `n` that is a backslash and a line break escaped once or more:
 * `\\` `\n` is three, each level of escaping doubles it (6, 12). A run of 1, 2, 4 or 8 is a line
 * break alone.
 */
function continuedAt(run: number): boolean {
  return run === 3 || run === 6 || run === 12;
}

function decodeOnce(input: string): DecodedView {
  let bs = input.indexOf('\\');
  let amp = input.indexOf('&');
  if (bs === -1 && amp === -1) return identity(input);
  const out = new ViewBuilder(input);
  while (bs !== -1 || amp !== -1) {
    const i = bs === -1 ? amp : amp === -1 ? bs : Math.min(bs, amp);
    let ch: string | undefined;
    let end: number;
    if (i === amp) {
      const e = entityAt(input, i);
      if (e === null) {
        amp = input.indexOf('&', i + 1);
        continue;
      }
      [ch, end] = e;
    } else {
      let j = i;
      while (input.charCodeAt(j) === 92) j += 1;
      const c = input[j];
      end = j + 1;
      if (c === 'n' && continuedAt(j - i)) {
        // The same continuation escaped (`\\\n` in a JSON string: a backslash, then a line
        // break; 6 and 12 backslashes a level or two deeper): read as the one below reads it.
        ch = '\n';
        const k = afterIndent(input, j + 1);
        const next = input[k];
        if (next !== undefined && next !== '\\' && next !== '&' && next !== '\n' && next !== '\r') {
          ch = next;
          end = k + 1;
        }
      } else if (c !== undefined && SIMPLE[c] !== undefined) ch = SIMPLE[c];
      else if (c === 'u' && hexRun(input, j + 1, 4)) {
        ch = String.fromCharCode(Number.parseInt(input.slice(j + 1, j + 5), 16));
        end = j + 5;
      } else if (c === 'x' && hexRun(input, j + 1, 2)) {
        ch = String.fromCharCode(Number.parseInt(input.slice(j + 1, j + 3), 16));
        end = j + 3;
      } else if (j === i + 1 && (c === '\n' || (c === '\r' && input[j + 1] === '\n'))) {
        // A shell's line continuation (`export DB_PASSWORD=\⏎  'Kx9…'`, `--password \⏎ '…'`): the
        // command is one line, and so is the view. The escape is read as the next line's first
        // character after its indent, so a name and its value meet as the shell joins them.
        const k = afterIndent(input, c === '\r' ? j + 2 : j + 1);
        const next = input[k];
        if (next !== undefined && next !== '\\' && next !== '&' && next !== '\n' && next !== '\r') {
          ch = next;
          end = k + 1;
        }
      }
      // A terminal colour written as an escape (`\u001b[31m` in a JSON string: a log line, a
      // tool's output kept as JSON): read as a mark, so a key the colours split (`ghp_` red, then
      // the rest) is whole again once marks are read (decodedView), as the control filter makes
      // it in plain text.
      if (ch === '\u001b') {
        const csi = CSI.exec(input.slice(end, end + 24));
        if (csi !== null) {
          ch = SPLIT_MARK;
          end += csi[0].length;
        }
      }
      if (ch === undefined) {
        // Not an escape: the backslashes stay as they are.
        bs = input.indexOf('\\', j);
        continue;
      }
    }
    out.add(i, end, ch);
    if (bs !== -1 && bs < end) bs = input.indexOf('\\', end);
    if (amp !== -1 && amp < end) amp = input.indexOf('&', end);
  }
  return out.view();
}
