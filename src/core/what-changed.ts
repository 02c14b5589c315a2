import { looksRandom, wordy } from './redaction/randomness.js';
import { cutBeforeRedaction } from './cut.js';
import { nameStrength } from './redaction/names.js';
import { sha256Hex } from './canonical.js';

/**
 * What a write put into a file, in a few words a successor can act on: the functions, classes and
 * constants it defines, the headings of a document, the first line of a docstring. Read from the
 * text the write carried (an Edit's new string, a Write's content, a patch's added lines), never
 * from the file on disk. Bounded, and linear in the text.
 */

export const WHAT_LIMITS = { ITEMS: 12, ITEM_CHARS: 100, SCAN_LINES: 2000 } as const;

/** The text is not redacted yet (ingest redacts every fact): a clip never splits a word a credential may be. */
const clip = cutBeforeRedaction;

/**
 * Markdown's emphasis and code marks taken out of a heading or a sentence: `*`, a backtick, and
 * an underscore that does not join two word characters (`GITHUB_TOKEN=ghp_…` keeps its own, or
 * neither the label nor the token would be found by the redactor after).
 */
export const unmark = (s: string): string => s.replace(/[*`]|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, '');

/** Definitions by language family; the first capture is the name, the second (optional) a value. */
const DEFINITIONS: readonly RegExp[] = [
  /^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/, // Python
  /^class\s+([A-Za-z_]\w*)/, // Python, JS, TS
  /^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)/, // JS, TS
  /^(?:export\s+)?(?:interface|type|enum)\s+([A-Za-z_$][\w$]*)/, // TS
  /^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+([A-Za-z_]\w*)/, // Rust
  /^(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait|mod)\s+([A-Za-z_]\w*)/, // Rust
  /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/, // Go
];
/** A module-level constant with a literal value: `MAX_RETRIES = 5`, `export const API_URL = "…"`. */
/** Constants say less than definitions: at most this many, so functions and classes are not crowded out. */
const MAX_CONSTANTS = 5;
const CONSTANT = /^(?:export\s+)?(?:const\s+|let\s+|pub\s+const\s+|static\s+)?([A-Z][A-Z0-9_]{2,})\s*(?::[^=]{1,40})?=\s*(.+)$/;
const EXPORTED_CONST = /^export\s+const\s+([A-Za-z_$][\w$]*)\s*(?::[^=]{1,60})?=/;
const HEADING = /^#{1,4}\s+(.+)$/;
const DOCSTRING = /^\s*(?:"""|''')\s*(.+?)(?:"""|''')?\s*$/;
const CODE_EXT = /\.(py|pyi|js|jsx|mjs|cjs|ts|tsx|mts|cts|rs|go|rb|java|kt|swift|c|cc|cpp|h|hpp|cs|php|scala|sh|sql)$/i;
const DOC_EXT = /\.(md|mdx|markdown|rst|txt|adoc)$/i;

/**
 * An item is read from the text before it is redacted, out of its context (a key body's line
 * without its BEGIN line, a table's first cell without its header): a word of it that looks
 * generated, or a run of base64 of key width, is left out (`…`). Names, headings and sentences
 * are made of words. (The harness reads the write before `sanitize` redacts each item alone:
 * reading it after would redact every write's whole content a second time.)
 */
function withoutKeys(item: string): string {
  return item.replace(/[^\s|«»()"'`,;]{16,}/g, (w) => (!wordy(w) && (looksRandom(w, 16) || /[A-Za-z0-9+/]{40,}/.test(w)) ? '…' : w));
}


/** The name an item of what a write defines starts with (`parse: Parse a line.` → `parse`; `OUT = "x"` → `OUT`). */
export const definitionName = (item: string): string => item.replace(/(?::| =).*$/s, '');

/** The notable things `text` (the new content of `path`) defines, in order, at most ITEMS. */
export function whatChanged(path: string, text: string): string[] {
  const out: string[] = [];
  const add = (s: string): void => {
    const item = clip(withoutKeys(s.replace(/\s+/g, ' ').trim()), WHAT_LIMITS.ITEM_CHARS);
    if (item.length > 0 && !out.includes(item)) out.push(item);
  };
  const lines = text.split('\n', WHAT_LIMITS.SCAN_LINES);
  const doc = DOC_EXT.test(path);
  let constants = 0;
  const code = CODE_EXT.test(path);
  // A document still holding placeholders is not finished: say so first.
  const holes = doc ? placeholders(lines) : [];
  if (holes.length > 0) add(`placeholders ${holes.map((h) => `«${h}»`).join(' ')}`);
  // A dependency list is what it pins: each requirement line.
  if (REQUIREMENTS.test(path)) {
    for (const l of lines) if (out.length < WHAT_LIMITS.ITEMS && /^[A-Za-z0-9][\w.-]*\s*(?:[<>=!~]=?|\[|$)/.test(l.trim())) add(l.trim());
    return out;
  }
  let paragraph = false;
  let headings = 0;
  for (let i = 0; i < lines.length && out.length < WHAT_LIMITS.ITEMS; i += 1) {
    const raw = lines[i] as string;
    const line = raw.trimEnd();
    if (doc || (!code && HEADING.test(line))) {
      const h = HEADING.exec(line);
      if (h?.[1] !== undefined) {
        add(unmark(h[1]));
        headings += 1;
      } else if (doc && !paragraph && headings === 1 && /^[\p{L}*_`]/u.test(line.trim())) {
        // The first paragraph under the first heading says what the document is.
        paragraph = true;
        add(`«${unmark(line.trim())}»`);
      }
      continue;
    }
    // Only top-level (or one indent deep, for methods) definitions say what a file is about.
    if (/^\s{5,}/.test(raw)) continue;
    const t = line.trim();
    let named = false;
    for (const re of DEFINITIONS) {
      const m = re.exec(t);
      if (m?.[1] === undefined) continue;
      const docLine = DOCSTRING.exec(lines[i + 1] ?? '')?.[1];
      add(docLine === undefined ? m[1] : `${m[1]}: ${docLine}`);
      named = true;
      break;
    }
    if (named || /^\s/.test(raw)) continue;
    const c = CONSTANT.exec(t);
    if (c?.[1] !== undefined && constants < MAX_CONSTANTS) {
      let value = (c[2] ?? '').trim();
      // A collection opened on this line: its first entries say what it holds.
      if (/^[[{(]$/.test(value)) value = `${value} ${lines.slice(i + 1, i + 4).map((x) => x.trim()).filter((x) => x.length > 0).join(' ')} …`;
      // A secret's name says what the write defines; its value is the write's own (and the line
      // rewritten here, `NAME = value`, no longer reads as the .env line the redactor knows).
      add(nameStrength(c[1]) === null ? `${c[1]} = ${value}` : c[1]);
      constants += 1;
      continue;
    }
    const e = EXPORTED_CONST.exec(t);
    if (e?.[1] !== undefined) add(e[1]);
  }
  return out;
}

/** Placeholders left to fill: `<TBD>`, `<DISCUSSION_START>`, `TBD`, `TODO`, `XXX`. */
const PLACEHOLDER = /<(?:TBD|TODO|[A-Z][A-Z0-9]*_[A-Z0-9_]+)>|\bTBD\b|\bTODO\b|\bXXX\b/;
const REQUIREMENTS = /(?:^|[\\/])requirements[\w.-]*\.(?:txt|in)$|(?:^|[\\/])constraints\.txt$/i;

/**
 * The lines that hold a placeholder (they say what is missing: `End: <TBD>`), at most three. Of a
 * table's row, its first cell and the cells that hold one: the others may be a credentials
 * table's values, which the row without its header no longer shows to be.
 */
function placeholders(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const l of lines) {
    const row = l.trim();
    // A row: its first cell (what the row is about) and the cells that hold a placeholder.
    const cells = row.split('|').map((c) => c.trim()).filter((c) => c.length > 0);
    const kept = row.startsWith('|') ? cells.filter((c, i) => i === 0 || PLACEHOLDER.test(c)) : [row];
    const t = kept.join(' | ').replace(/^[-*|>\s`]+|[|`\s]+$/g, '');
    if (PLACEHOLDER.test(t) && !out.includes(t) && out.length < 3) out.push(clip(t, 70));
  }
  return out;
}

/** Files and their added and removed lines in an apply_patch envelope (`*** Update File: p` then `+line`, `-line`). */
export function patchSides(patch: string): Map<string, { added: string[]; removed: string[] }> {
  const out = new Map<string, { added: string[]; removed: string[] }>();
  let file: { added: string[]; removed: string[] } | null = null;
  for (const line of patch.split('\n')) {
    const h = /^\*\*\* (?:Add|Update) File: (.+)$/.exec(line) ?? /^\*\*\* Move to: (.+)$/.exec(line);
    if (h?.[1] !== undefined) {
      const name = h[1].trim();
      file = out.get(name) ?? { added: [], removed: [] };
      out.set(name, file);
      continue;
    }
    if (/^\*\*\* (?:Delete File|End Patch)/.test(line)) file = null;
    else if (file !== null && line.startsWith('+')) file.added.push(line.slice(1));
    else if (file !== null && line.startsWith('-')) file.removed.push(line.slice(1));
  }
  return out;
}

/** Files and their added lines in an apply_patch envelope, as one text each (files that add none are left out). */
export function patchAdditions(patch: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, s] of patchSides(patch)) if (s.added.length > 0) out.set(name, `${s.added.join('\n')}\n`);
  return out;
}

/** How much of a write's text is read for the texts a program prints (printedTexts). */
export const PRINTED_LIMITS = { MIN: 20, MAX: 300, REMOVED: 40, ADDED: 60, SCAN_LINES: 4000 } as const;

/** A line of code, not of text a program prints: an assignment, a call, a block, a comment, a keyword. */
const CODE_LINE = /[=;{}<>]|\w\(|^(?:#|\/\/|\/\*|\*|--|(?:if|for|while|def|return|import|from|else|elif|try|except|class|function|const|let|var|pub|fn|use|mod|async|await|export)\b)/;

/** Three words or more, one of them of letters: a message, never a credential (which holds no space). */
const PROSE = /^(?=.*\p{L}{3})\S+\s+\S+\s+\S/u;

const QUOTED = /"((?:[^"\\\n]|\\.){20,300})"|'((?:[^'\\\n]|\\.){20,300})'/g;

/**
 * The texts a line of code or prose may print whole: the string literals of 20 characters or more
 * it holds (`print("  Converts CodeRabbit reviews …")` prints «Converts CodeRabbit reviews …»),
 * else the line itself (a help text, a template). Trimmed; each once.
 */
export function printedTexts(text: string): string[] {
  const out = new Set<string>();
  let n = 0;
  for (const raw of text.split('\n')) {
    if ((n += 1) > PRINTED_LIMITS.SCAN_LINES) break;
    const line = raw.trim();
    if (line.length < PRINTED_LIMITS.MIN) continue;
    let quoted = false;
    QUOTED.lastIndex = 0;
    for (const m of line.matchAll(QUOTED)) {
      quoted = true;
      const s = (m[1] ?? m[2] ?? '').trim();
      if (s.length >= PRINTED_LIMITS.MIN && PROSE.test(s) && !/[{}]|%[sd]/.test(s)) out.add(s);
    }
    if (!quoted && line.length <= PRINTED_LIMITS.MAX && PROSE.test(line) && !/["'`]/.test(line) && !CODE_LINE.test(line)) out.add(line);
  }
  return [...out];
}

/**
 * A printed text's digest: what the state keeps of it (never the text: a literal taken from its
 * label is a value the redactor could not tell). Its length first, so that an output's lines of
 * other lengths are never hashed (ledger.ts noteStaleOutput).
 */
export const printedDigest = (text: string): string => `${text.length}:${sha256Hex(text).slice(0, 16)}`;

/**
 * What an edit took out that a program could print (`removed`: digests of the texts of the old
 * text the new one no longer holds) and what it put in (`added`), each bounded. A later run that
 * still prints a removed text ran code older than the edit (coderabbit at 152: the banner its
 * edit at 129 removed).
 */
export function printedChange(oldText: string, newText: string): { removed: string[]; added: string[] } {
  const now = printedTexts(newText);
  const kept = new Set(now);
  const removed = printedTexts(oldText).filter((s) => !kept.has(s)).slice(0, PRINTED_LIMITS.REMOVED);
  return { removed: removed.map(printedDigest), added: now.slice(0, PRINTED_LIMITS.ADDED).map(printedDigest) };
}
