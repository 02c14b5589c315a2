/**
 * A command written as an argument array, each word a quoted string: a Dockerfile's exec form
 * (`CMD ["redis-server", "--requirepass", "…"]`), Compose's and Kubernetes' `command:` lists,
 * `docker inspect`'s `"Args"`, an MCP server's `"args"`, `subprocess.run(["curl", "-u", "…"])`,
 * Go's `exec.Command("sshpass", "-p", "…")`, Node's `spawn('redis-cli', ['-a', '…'])`. The rules
 * for command lines read a flag and its value with a space between them; here a quote, a comma
 * and a quote stand between. Each such run of quoted words is read again as the command line it
 * is (its words joined by spaces), and what the rules find inside one word is removed from it.
 * Pure, linear in the text: each character is read once by the scan, and each run's words once more.
 */

/** One word of a run: where its text lies in the scanned text, and where it starts in the joined line. */
interface Word {
  start: number;
  end: number;
  at: number;
}

export interface ArgvRun {
  /** The words joined by single spaces: a command line. */
  line: string;
  words: Word[];
}

/**
 * A quoted flag next to another quoted word, a comma (Rust's `).arg(` or `).args([`, or blanks)
 * between: the only texts worth the scan (a run of Windows' `/x` flags alone is not looked for).
 */
const HINT = /["'](?:[ \t]*,[ \t\r\n]{0,40}\[?|\)\.args?\([ \t]*&?(?:vec!)?\[?|[ \t]+)[ \t\r\n]{0,40}["']-|["']-[^"'\n]{0,60}["'](?:[ \t]*,[ \t\r\n]{0,40}|\)\.args?\([ \t]*&?(?:vec!)?\[?[ \t]*|[ \t]+)["']/;
/** Rust's Command builder between two words: `").arg("`, `").args(["`, `").args(&["`, `").args(vec!["`. */
const ARG_CALL = /\)\.args?\([ \t]*&?(?:vec!)?\[?[ \t\r\n]{0,40}/y;
/** A word longer than this is no command-line argument: a run ends there. */
const WORD_MAX = 2048;
/** Runs longer than this are cut off: a command line of more words is a list of data. */
const RUN_WORDS = 64;

/** The runs of two or more quoted words, one of them a flag (`-x`, `--x`, Windows' `/x`), in `text`; and YAML's block lists of them. */
export function argvRuns(text: string): ArgvRun[] {
  return [...quotedRuns(text), ...yamlRuns(text), ...startInfoRuns(text)];
}

/**
 * .NET's ProcessStartInfo: the program in `FileName`, its arguments as one string in `Arguments`
 * (`FileName = "mysql", Arguments = "-u root -p…"`, in either order, an object initializer's or
 * two statements'). The program, then that string, are read as one command line.
 */
function startInfoRuns(text: string): ArgvRun[] {
  if (!text.includes('Arguments') || !text.includes('FileName')) return [];
  const out: ArgvRun[] = [];
  for (const re of [FILE_THEN_ARGS, ARGS_THEN_FILE]) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const file = re === FILE_THEN_ARGS ? 1 : 2;
      const [program, args] = [m.indices?.[file], m.indices?.[3 - file]];
      if (program === undefined || args === undefined) continue;
      const runs = new Runs();
      runs.add(program[0], text.slice(program[0], program[1]));
      runs.add(args[0], text.slice(args[0], args[1]));
      runs.close();
      out.push(...runs.out);
    }
  }
  return out;
}

/** `FileName = "…"` then `Arguments = "…"` within a statement or two (C#'s verbatim `@"…"` and interpolated `$"…"` too), and the other way round. */
const STRING = String.raw`(?:\$@|@\$|\$|@)?"((?:[^"\\\n]|\\.){1,2000})"`;
const FILE_THEN_ARGS = new RegExp(String.raw`FileName[ \t]*=[ \t]*${STRING}[^{}]{0,300}?Arguments[ \t]*=[ \t]*${STRING}`, 'dg');
const ARGS_THEN_FILE = new RegExp(String.raw`Arguments[ \t]*=[ \t]*${STRING}[^{}]{0,300}?FileName[ \t]*=[ \t]*${STRING}`, 'dg');

/**
 * A YAML block sequence of a command's words, one per line at one indentation (Kubernetes'
 * `args:`, Compose's `command:`): `- redis-server` / `- --requirepass` / `- <value>`. Each item
 * may be quoted; its words are read without the quotes.
 */
function yamlRuns(text: string): ArgvRun[] {
  // A flag as an item (`- --requirepass`, `- "-a"`), found by a plain search: most texts hold none.
  if (!text.includes('- -') && !text.includes('- "-') && !text.includes("- '-")) return [];
  const runs = new Runs();
  let indent = '';
  let at = 0;
  while (at <= text.length) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const m = YAML_ITEM.exec(text.slice(at, Math.min(end, at + WORD_MAX)));
    if (m === null || (runs.size > 0 && m[1] !== indent) || runs.size >= RUN_WORDS) runs.close();
    if (m !== null) {
      if (runs.size === 0) indent = m[1] as string;
      // The rest of the line, to a comment (` #`), without trailing blanks.
      const rest = m[2] as string;
      const hash = rest.indexOf(' #');
      const raw = (hash === -1 ? rest : rest.slice(0, hash)).trimEnd();
      const q = raw[0];
      const quoted = (q === '"' || q === "'") && raw.length >= 2 && raw.endsWith(q);
      const start = at + (m[1] as string).length + 2 + (quoted ? 1 : 0);
      runs.add(start, quoted ? raw.slice(1, -1) : raw);
    }
    at = end + 1;
  }
  runs.close();
  return runs.out;
}

/** A block sequence's item: its indentation, and what follows `- ` (no pattern here can backtrack: the item is cut in code). */
const YAML_ITEM = /^([ \t]*)- (?=[^\s#])([^\r\n]*)/;

function quotedRuns(text: string): ArgvRun[] {
  // A quoted flag (`"-` or `'-`) first, found by a plain search: most texts hold none.
  if ((!text.includes('"-') && !text.includes("'-")) || !HINT.test(text)) return [];
  const runs = new Runs();
  let i = 0;
  while (i < text.length) {
    const q = text[i];
    if (q !== '"' && q !== "'") {
      i += 1;
      continue;
    }
    const end = wordEnd(text, i + 1, q);
    if (end === -1) {
      runs.close();
      i += 1;
      continue;
    }
    runs.add(i + 1, text.slice(i + 1, end));
    // The next word follows after a comma (and, for a program given apart from its arguments, an opening bracket).
    const next = gapEnd(text, end + 1);
    if (next === -1 || runs.size >= RUN_WORDS) {
      // A lone quoted text may have paired the wrong quotes (`"CMD ["redis-server", …`): its closing
      // quote is tried as an opening one. Each quote opens at most one word, so the scan stays linear.
      const alone = runs.size === 1;
      runs.close();
      i = alone ? end : end + 1;
      continue;
    }
    i = next;
  }
  runs.close();
  return runs.out;
}

/** A command-line flag: `-x`, `--x`, Windows' `/x`. */
const FLAG = /^(?:--?[A-Za-z]|\/[A-Za-z]{1,3}$)/;

/** The words of the run being read, and the runs read so far: those of two or more words, one of them a flag. */
class Runs {
  readonly out: ArgvRun[] = [];
  private words: Word[] = [];
  private flag = false;
  private line = '';

  get size(): number {
    return this.words.length;
  }

  /** The word whose text starts at `start` in the scanned text. */
  add(start: number, word: string): void {
    if (this.words.length > 0) this.line += ' ';
    this.words.push({ start, end: start + word.length, at: this.line.length });
    this.line += word;
    if ((word[0] === '-' || word[0] === '/') && FLAG.test(word)) this.flag = true;
  }

  close(): void {
    if (this.words.length >= 2 && this.flag) this.out.push({ line: this.line, words: this.words });
    this.words = [];
    this.flag = false;
    this.line = '';
  }
}

const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * After a word's closing quote at `from - 1`: the index of the next word's opening quote when a
 * comma (and a bracket), Rust's `).arg(` or `).args([`, or blanks on the same line (Rust's `{:?}`
 * of a command, Redis MONITOR's log: `"redis-cli" "-a" "…"`) lead to it, else -1.
 */
function gapEnd(text: string, from: number): number {
  let j = from;
  while (j - from < 40 && isBlank(text[j])) j += 1;
  const quote = (k: number): number => (text[k] === '"' || text[k] === "'" ? k : -1);
  if (j > from && text[j] !== ',') return quote(j);
  if (text[j] === ')') {
    ARG_CALL.lastIndex = j;
    return ARG_CALL.test(text) ? quote(ARG_CALL.lastIndex) : -1;
  }
  if (text[j] !== ',') return -1;
  j += 1;
  let k = j;
  while (k - j < 40 && isSpace(text[k])) k += 1;
  if (text[k] === '[') {
    k += 1;
    const b = k;
    while (k - b < 40 && isSpace(text[k])) k += 1;
  }
  return text[k] === '"' || text[k] === "'" ? k : -1;
}

/** The index of the quote that closes a word opened just before `from`, on the same line; -1 when there is none within WORD_MAX. */
function wordEnd(text: string, from: number, q: string): number {
  const stop = Math.min(text.length, from + WORD_MAX);
  for (let j = from; j < stop; j += 1) {
    const c = text[j];
    if (c === '\\') {
      j += 1;
      continue;
    }
    if (c === q) return j;
    if (c === '\n') return -1;
  }
  return -1;
}

/**
 * The ranges of `text` to remove: each range `find` reports in a run's line that lies within one
 * word, moved to where that word is in `text`.
 */
export function argvSpans(text: string, find: (line: string) => readonly { start: number; end: number; kind: string }[]): { start: number; end: number; kind: string }[] {
  const out: { start: number; end: number; kind: string }[] = [];
  for (const run of argvRuns(text)) {
    for (const s of find(run.line)) {
      const w = run.words.find((x) => s.start >= x.at && s.start < x.at + (x.end - x.start));
      if (w === undefined) continue;
      const start = w.start + (s.start - w.at);
      const end = Math.min(w.end, w.start + (s.end - w.at));
      if (end > start) out.push({ start, end, kind: s.kind });
    }
  }
  return out;
}
