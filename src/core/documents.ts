/**
 * A file the user pointed at ("read doc.md, it is my take-home") is often the real specification:
 * its requirements, limits and deadlines outlive every later message. When the agent reads a file
 * that a user request names, the handoff keeps what it says, line by line, citing the file's own
 * line numbers and the transcript line of the read. Pure and bounded.
 */

export const DOC_LIMITS = { DOCS: 4, LINES: 60, LINE_CHARS: 200, CHARS: 4000 } as const;

export interface DocLine {
  /** The line number inside the file. */
  n: number;
  text: string;
}

export interface DocRead {
  path: string;
  /** The transcript line of the read's result. */
  line: number;
  /** The request that names the file. */
  requestLine: number;
  lines: DocLine[];
  /**
   * The file's lines the read returned, first and last, when the harness numbered them (Claude
   * Code's Read): `lines` keeps some of them, and a reader must not take its count for the file's.
   * Absent for an unnumbered read, and in states built before it was kept.
   */
  span?: { first: number; last: number };
}

const NUMBERED = /^\s*(\d{1,6})(?:\t|→)(.*)$/;

/** What the harness appends to a tool's output for the model (Claude Code: a note on malware after every read). */
const REMINDER = /<system-reminder>[\s\S]*?(?:<\/system-reminder>|$)/g;

/**
 * The lines of a Read result; Claude Code numbers them ("    12\ttext"), other readers may not.
 * The harness's reminders are not the file's, and blank lines do not decide whether it is numbered.
 */
export function readLines(output: string): DocLine[] {
  const raw = output.replace(REMINDER, '').trimEnd().split('\n', 5000);
  const numbered = raw.filter((x) => NUMBERED.test(x)).length;
  const filled = raw.filter((x) => x.trim().length > 0).length;
  if (numbered >= Math.max(1, filled / 2)) {
    const out: DocLine[] = [];
    for (const x of raw) {
      const m = NUMBERED.exec(x);
      if (m) out.push({ n: Number(m[1]), text: m[2] ?? '' });
    }
    return out;
  }
  return raw.map((text, i) => ({ n: i + 1, text }));
}

/** The first and last file line a numbered read returned; null when the output is not numbered. */
export function readSpan(output: string): { first: number; last: number } | null {
  const text = output.replace(REMINDER, '').trimEnd();
  let first: number | null = null;
  for (const x of text.split('\n', 20)) {
    const m = NUMBERED.exec(x);
    if (m) {
      first = Number(m[1]);
      break;
    }
  }
  if (first === null) return null;
  // The last numbered line, looked for among the last few (a harness may add a note after it).
  let end = text.length;
  for (let k = 0; k < 20 && end > 0; k += 1) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const m = NUMBERED.exec(text.slice(start, end));
    if (m) {
      const last = Number(m[1]);
      return last >= first ? { first, last } : null;
    }
    end = start - 1;
  }
  return null;
}

/** Lines that carry words: no blank lines, bare markup (`<aside>`, `---`) or lone symbols. */
export function contentLines(lines: readonly DocLine[]): DocLine[] {
  const out: DocLine[] = [];
  let chars = 0;
  for (const l of lines) {
    const t = l.text.trim();
    if (t.length === 0 || /^<\/?[\w-]+[^>]*>$/.test(t) || !/[\p{L}\p{N}]/u.test(t)) continue;
    const text = t.length <= DOC_LIMITS.LINE_CHARS ? t : `${t.slice(0, DOC_LIMITS.LINE_CHARS - 1)}…`;
    if (chars + text.length > DOC_LIMITS.CHARS || out.length >= DOC_LIMITS.LINES) break;
    chars += text.length;
    out.push({ n: l.n, text });
  }
  return out;
}

/** Headings, and lines that state a number, a rule or an emphasis: what a reader must not miss. */
const REQUIREMENT = /\d|\*\*|\b(?:must|should|never|always|required?|deadline|limit|do not|don't|only|red flags?)\b/i;

const LIST_ITEM = /^(?:[-*]|\d+\.)\s+/;

/** `strict`: headings and lines that state a number, a rule or an emphasis; otherwise also plain list items. */
export function requirementLines(lines: readonly DocLine[], strict = false): DocLine[] {
  return lines.filter((l) => /^#{1,6}\s/.test(l.text) || REQUIREMENT.test(l.text.replace(LIST_ITEM, '')) || (!strict && LIST_ITEM.test(l.text)));
}

const CONFIG_FILE = /\.(?:toml|cfg|ini|ya?ml|json[c5]?|properties|conf)$/i;
const CODE_FILE = /\.(?:py|[cm]?[jt]sx?|go|rs|rb|java|kts?|swift|c|cc|cpp|h|hpp|cs|php|sh|bash|zsh)$/i;
/** A config file's sections and the keys it sets (`[tool.setuptools]`, `py-modules = […]`, `name:`), not its list values. */
const CONFIG_KEY = /^(?:\[[^\]]+\]$|["']?[\w.-]+["']?\s*(?:=|:(?!:)))/;
/** A definition in code: what a reader looks for in a file it did not read. */
const DEFINITION = /^(?:(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:def|class|function|interface|type|fn|func|struct|enum|module)\s|if __name__\s*==)/;

/**
 * The passes a handoff takes a read file's lines in, most telling first: a config file's sections
 * and keys (a version number in a list of classifiers is not what the file sets: coderabbit's
 * `pyproject.toml` was shown by its classifiers, without the entry point the session was about),
 * a code file's definitions, then a document's headings and rules, then its list items.
 */
export function documentPasses(path: string, lines: readonly DocLine[]): DocLine[][] {
  const prose = [requirementLines(lines, true), requirementLines(lines, false)];
  if (CONFIG_FILE.test(path)) return [lines.filter((l) => CONFIG_KEY.test(l.text)), ...prose];
  if (CODE_FILE.test(path)) return [lines.filter((l) => DEFINITION.test(l.text)), ...prose];
  return prose;
}

/** The request that names `path` (its full path, or a file name with an extension), if any. */
export function namingRequest(path: string, requests: readonly { line: number; text: string }[]): number | null {
  const base = path.split(/[\\/]/).pop() ?? path;
  if (!/\.\w{1,8}$/.test(base) || base.length < 4) return null;
  const re = new RegExp(`(?<![\\w.-])${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'i');
  for (const r of requests) if (r.text.includes(path) || re.test(r.text)) return r.line;
  return null;
}
