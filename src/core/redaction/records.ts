import type { Findings } from './findings.js';
import { PRIORITY } from './findings.js';
import type { Handler, LiteralScanner } from './literals.js';
import { isKeyword, isPlaceholder, nameStrength } from './names.js';
import { looksRandom } from './randomness.js';

/**
 * Secrets known by the record they stand in, not by a label beside them: a secret column of a
 * Markdown table or a psql grid, a browser cookie (Playwright's storageState, cookies.txt,
 * `document.cookie`), the values of a Kubernetes Secret, a `.pgpass` line, Terraform's
 * `random_password` in a state, and a Discord bot token (whose shape names it). Each rule starts
 * at a literal the record holds and reads a bounded stretch around it, once (`Findings.readTo`),
 * and gives the scan back at the next character: what it read may hold a credential another rule
 * finds from a literal inside it (a JWT as a cookie's value).
 */

/** The line around `at`, looked for no further than MAX_LINE_CHARS each way (texts can be one 1 MB line). */
const MAX_LINE_CHARS = 4096;

export function lineBounds(text: string, at: number): [number, number] {
  let start = at;
  while (start > 0 && at - start < MAX_LINE_CHARS && text.charCodeAt(start - 1) !== 10) start -= 1;
  let end = at;
  while (end < text.length && end - at < MAX_LINE_CHARS && text.charCodeAt(end) !== 10) end += 1;
  return [start, end];
}

/** The line after the one that ends at `end` (its bounds), or null at the text's end. */
function nextLine(text: string, end: number): [number, number] | null {
  if (end >= text.length) return null;
  return lineBounds(text, end + 1);
}

/** Cookies whose name says they hold a login, looked for whatever their value looks like. */
const SESSION_NAME = /sess|sid|auth|token|jwt|remember|login|csrf|xsrf|secret|identity|credential/i;

/** A generated run inside a value that has words around it (`_|WARNING:-DO-NOT-SHARE-THIS…|_7F3A9C…`). */
const TOKEN_RUN = /[A-Za-z0-9+/=_-]{24,4096}/g;

/**
 * A cookie's value worth removing: generated-looking, or holding a generated run, or under a
 * session's name and not plain (a redirect's path, a provider's name stay).
 */
function cookieSecret(name: string, value: string): boolean {
  if (isPlaceholder(value)) return false;
  if (looksRandom(value, 16)) return true;
  if (SESSION_NAME.test(name) && value.length >= 12 && !/\s/.test(value) && looksRandom(value, 10)) return true;
  TOKEN_RUN.lastIndex = 0;
  for (let m = TOKEN_RUN.exec(value); m !== null; m = TOKEN_RUN.exec(value)) if (looksRandom(m[0], 20)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Tables: `| User | Password |` over `|---|---|`, psql's ` usename | passwd ` over `---+---`, and
// MySQL's grid (`| user | password |` between `+------+----------+` lines).

/** Rows read at most (each once: a table of any length costs its length). */
const MAX_TABLE_ROWS = 20_000;
const MAX_TABLE_COLUMNS = 40;
const TABLE_LABEL = /^[A-Za-z][A-Za-z0-9 _.-]{0,39}$/;
/** A table's rule under its header: cells of dashes (with Markdown's alignment colons), one per column. */
const RULE_CELL = /^[ \t]*:?-+:?[ \t]*$/;
/**
 * What a reader put before a line: a line number (Claude Code's Read `     3→`, `cat -n`'s tab),
 * then a diff's `+` or a quote's `>` before a table's pipe.
 */
// The Read tool's and `cat -n`'s only: keys.ts's LINE_NUMBER also takes `grep -n`'s `12:` and `12-`,
// which would read a YAML value such as `2024-01-01` as a prefix.
const READ_LINE_NUMBER = String.raw`\d{1,7}(?:\u2192|\t)`;
const LINE_PREFIX = new RegExp(String.raw`[ \t]*(?:${READ_LINE_NUMBER})?(?:[+>](?=[ \t]*\|)[ \t]*)?`, 'y');
/** What a secret column holds when it holds no secret, beside the keywords of names.ts: a yes, a kind, a note. */
const NOT_A_VALUE = /^(?:y|n|n\/a|na|unique|empty|unset|set|default|auto|random|generated|hashed|encrypted|bcrypt|argon2|sha256|md5|1password|[-—–•✓✔✗✘x]+)$/i;
/**
 * What a secret column may hold that names or points at a secret, or is no secret at all: a
 * number, a ratio or a time; a path, a dotfile, a URL, a secret store's reference; a colour; a
 * CSS variable; a key chord; OAuth's `scope:part`.
 */
const NOT_A_SECRET = /^(?:[\d.,/:%+-]+|(?:\.{0,2}\/|~\/|[A-Za-z]:\\|\.[A-Za-z]).*|[a-z][a-z0-9+.-]*:\/\/.*|(?:vault|env|op|ssm|secretsmanager|keychain|keyring|file|k8s|gcp|aws|azure|kv):.*|#[0-9a-f]{3,8}|--.*|(?:ctrl|cmd|alt|shift|option|meta|super|win)\+.*|[a-z]+:[a-z_.]+)$/i;
/** A password hash by its scheme: bcrypt, sha-crypt, yescrypt, scrypt, argon2, PBKDF2. */
const HASH = /^\$(?:2[abxy]?|1|5|6|7|y|gy|scrypt|argon2(?:id|i|d)|pbkdf2[-\w]{0,12})\$/;

interface Cell {
  text: string;
  /** Where the cell's text starts in the whole text. */
  at: number;
}

/** Whether a table's lines have pipes at their edges (Markdown's outer pipes), as its rule has. */
interface Edges {
  start: boolean;
  end: boolean;
}

/** Where a line's own text starts, past what a reader put before it (LINE_PREFIX). */
function bodyStart(text: string, start: number, end: number): number {
  LINE_PREFIX.lastIndex = start;
  const m = LINE_PREFIX.exec(text);
  return m === null ? start : Math.min(end, start + m[0].length);
}

/** A cell separator: a pipe not escaped (`\|` is a pipe inside a Markdown cell). */
function pipeAt(text: string, from: number, end: number): number {
  for (let p = text.indexOf('|', from); p !== -1 && p < end; p = text.indexOf('|', p + 1)) if (text[p - 1] !== '\\') return p;
  return -1;
}

function lastPipe(text: string, from: number, start: number): number {
  for (let p = text.lastIndexOf('|', from); p >= start; p = text.lastIndexOf('|', p - 1)) if (text[p - 1] !== '\\') return p;
  return -1;
}

/** A rule line's edges and cells (`|---|:--:|`, `----+----`, `+----+----+`), or null when it is none. */
function ruleOf(text: string, start: number, end: number): { edges: Edges; cells: number } | null {
  const line = text.slice(bodyStart(text, start, end), end).trim();
  if (line.length < 3 || line.length > 8 * 1024) return null;
  const edges = { start: line[0] === '|' || line[0] === '+', end: line.endsWith('|') || line.endsWith('+') };
  const inner = line.slice(edges.start ? 1 : 0, edges.end ? -1 : undefined).split(/[|+]/);
  if (inner.length < 2 || inner.length > MAX_TABLE_COLUMNS || !inner.every((c) => RULE_CELL.test(c))) return null;
  return { edges, cells: inner.length };
}

/**
 * A row's `n` cells from the start of its line. With outer pipes, the cells run from the line's
 * first pipe and each ends at a pipe: what stands after them is no cell (the rest of a JSON line
 * after a table that ended inside a string), or further cells. Without, the line is the cells,
 * exactly `n` of them. Empty when the line holds no such row.
 */
function rowCells(text: string, start: number, end: number, edges: Edges, n: number): Cell[] {
  let from = bodyStart(text, start, end);
  if (edges.start) {
    if (text[from] !== '|') return [];
    from += 1;
  }
  const out: Cell[] = [];
  for (let k = 0; k < n; k += 1) {
    const p = pipeAt(text, from, end);
    if (p !== -1) {
      out.push({ text: text.slice(from, p), at: from });
      from = p + 1;
    } else if (!edges.end && k === n - 1) {
      out.push({ text: text.slice(from, end), at: from });
      from = end;
    } else return [];
  }
  // No outer pipes: a further pipe is a further cell, and this is no row of the table.
  if (!edges.end && pipeAt(text, from, end) !== -1) return [];
  return out;
}

/**
 * A header's `n` cells, the last `n` of its line: a header ends its line (its rule is the next),
 * while what starts the line may be anything (the rest of a JSON line before the string the table
 * is in, with pipes of its own). Empty when the line does not end in them.
 */
function headerCells(text: string, start: number, end: number, edges: Edges, n: number): Cell[] {
  const from = bodyStart(text, start, end);
  let to = end;
  while (to > from && /\s/.test(text[to - 1] as string)) to -= 1;
  if (edges.end) {
    if (text[to - 1] !== '|') return [];
    to -= 1;
  }
  const out: Cell[] = [];
  for (let k = 0; k < n; k += 1) {
    const p = lastPipe(text, to - 1, from);
    const last = k === n - 1;
    if (p >= from && (!last || edges.start)) {
      out.unshift({ text: text.slice(p + 1, to), at: p + 1 });
      to = p;
    } else if (last && !edges.start) {
      const at = Math.max(from, p + 1);
      out.unshift({ text: text.slice(at, to), at });
    } else return [];
  }
  return out;
}

/** A name that fills a cell by itself, a pipe on one side at least (cheap to test before reading the line). */
function inPipeCell(text: string, start: number, end: number): boolean {
  // Letters, digits, spaces, `_.-`, and what a label is wrapped in: emphasis, backquotes, a note in brackets.
  const inCell = (c: number): boolean => c === 32 || c === 9 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46 || c === 42 || c === 96 || c === 40 || c === 41;
  let i = start - 1;
  while (i >= 0 && start - i < 40 && inCell(text.charCodeAt(i))) i -= 1;
  let j = end;
  while (j < text.length && j - end < 40 && inCell(text.charCodeAt(j))) j += 1;
  const before = i < 0 ? 10 : text.charCodeAt(i);
  const after = j >= text.length ? 10 : text.charCodeAt(j);
  const edge = (c: number): boolean => c === 124 || c === 10 || c === 13;
  return edge(before) && edge(after) && (before === 124 || after === 124);
}

/**
 * A column's label as a name: emphasis and backquotes taken off, a note in brackets left out
 * (`**Password (dev only)**` → `Password`), and how strong it says the column is. A bare `Pass`
 * is a test's verdict (`| Pass | Fail |`); a bare `Token`, `Key` or `Secret` names a lexer's
 * token, a key chord, a secret's name as often as a value: a column so named holds a secret only
 * where the value looks generated.
 */
function columnStrength(cell: string): 'strong' | 'weak' | null {
  const label = cell
    .replace(/[*_`]/g, ' ')
    .replace(/\([^)]{0,40}\)/g, ' ')
    .trim()
    .replace(/\s+/g, ' ');
  if (!TABLE_LABEL.test(label)) return null;
  const lower = label.toLowerCase();
  if (lower === 'pass' || lower === 'passed' || lower === 'passes') return null;
  const strength = nameStrength(label.replace(/ /g, '_'));
  return strength === 'strong' && /^(?:tokens?|keys?|secrets?)$/.test(lower) ? 'weak' : strength;
}

/** A value in a secret column, as written (backquotes taken off): removed unless it is none. */
function tableSecret(strength: 'strong' | 'weak', value: string): boolean {
  if (value.length < 4 || /\s/.test(value)) return false;
  if (HASH.test(value)) return true;
  if (isKeyword(value) || NOT_A_VALUE.test(value) || NOT_A_SECRET.test(value) || isPlaceholder(value)) return false;
  return strength === 'strong' ? /[A-Za-z]/.test(value) && (/[^A-Za-z]/.test(value) || looksRandom(value, 12)) : looksRandom(value, 16);
}

/**
 * A secret's name that fills a cell of a table's header (`| Email | Password |`, a psql grid's
 * `passwd`): that column's cells in the rows below, to the table's end. A header is only a header
 * over its rule (`|---|---|`, `----+----`, `+----+----+`): a row that names a field `password` is
 * not one. A row that does not fit (a cell more or less) is passed over; the table ends at a line
 * that is no row, or at a row after which its line goes on (a table that ended inside a JSON
 * string). Returns the header line's end, or null when this is no such header.
 */
export function findPipeColumns(text: string, nameStart: number, nameEnd: number, found: Findings): number | null {
  if (nameStart < (found.readTo.get('table') ?? -1) || !inPipeCell(text, nameStart, nameEnd)) return null;
  const [start, end] = lineBounds(text, nameStart);
  // The line is read once, whichever of its names is met first.
  found.readTo.set('table', end);
  const ruleLine = nextLine(text, end);
  if (!ruleLine) return null;
  const rule = ruleOf(text, ruleLine[0], ruleLine[1]);
  if (rule === null) return null;
  const { edges } = rule;
  const header = headerCells(text, start, end, edges, rule.cells);
  if (header.length === 0) return null;
  const columns = new Map<number, 'strong' | 'weak'>();
  header.forEach((c, i) => {
    const strength = columnStrength(c.text);
    if (strength) columns.set(i, strength);
  });
  if (columns.size === 0) return end;
  // A grid of one key and its value (`| API Secret | <generated> |` between `+----+` lines) is no
  // header: a column is never named by a generated run. Read as the label and value it is.
  for (const i of columns.keys()) {
    const next = header[i + 1]?.text.trim();
    if (next !== undefined && looksRandom(next, 12)) return null;
  }
  let line = nextLine(text, ruleLine[1]);
  for (let rows = 0; line !== null && rows < MAX_TABLE_ROWS; rows += 1) {
    const [s, e] = line;
    const row = rowCells(text, s, e, edges, header.length);
    if (row.length === 0) {
      // A row of the table that does not fit is passed over; a line that is no row ends it.
      const body = bodyStart(text, s, e);
      if (edges.start ? text[body] !== '|' : pipeAt(text, body, e) === -1) break;
      found.readTo.set('table', e);
      line = nextLine(text, e);
      continue;
    }
    for (const [i, strength] of columns) {
      const cell = row[i] as Cell;
      const lead = cell.text.length - cell.text.trimStart().length;
      let value = cell.text.trim();
      let at = cell.at + lead;
      if (value.length > 2 && value.startsWith('`') && value.endsWith('`')) {
        value = value.slice(1, -1);
        at += 1;
      }
      if (tableSecret(strength, value)) found.add(at, at + value.length, 'secret_assignment', PRIORITY.name);
    }
    const last = row[row.length - 1] as Cell;
    const after = last.at + last.text.length;
    found.readTo.set('table', after);
    // More after the row's closing pipe that is no further cell (a JSON string closed there): the table ended with this row.
    const rest = text.slice(after + 1, e).trim();
    if (edges.end && rest !== '' && !rest.endsWith('|')) break;
    line = nextLine(text, e);
  }
  return end;
}

// ---------------------------------------------------------------------------------------------
// Cookies.

/** How far around a cookie's `domain` its object is looked for. */
const COOKIE_OBJECT_CHARS = 600;
/**
 * `key: "value"` in any quotes, a value holding escaped quotes too; a value that is itself a quoted
 * string (`"\"2|1:0|…\""`, as Tornado writes `_xsrf`) reads `""2|1:0|…""` in the decoded view.
 */
const MEMBER = (key: string): RegExp => new RegExp(`(["']?)${key}\\1[ \\t]*:[ \\t]*(["'\`])\\2?((?:\\\\.|(?!\\2)[^\\\\\\n]){1,4096})\\2`, 'd');
/** A member only a cookie has: a DNS record or a form field has a name, a value and a domain too. */
const COOKIE_ONLY = /["']?(?:path|expires|expirationDate|httpOnly|secure|sameSite|hostOnly|storeId)["']?[ \t]*:/;
const NAME_MEMBER = MEMBER('name');
const VALUE_MEMBER = MEMBER('value');

/** A cookie object (`{name, value, domain, …}`): its value, found from its `domain` member. */
const cookieObject: Handler = (text, at, found) => {
  const after = text.charCodeAt(at + 6);
  // `domain` as a member's key: `domain:`, `"domain":`, `'domain':`.
  if (!(after === 58 || after === 34 || after === 39 || after === 32)) return -1;
  const read = found.readTo.get('cookie') ?? -1;
  if (at < read) return -1;
  let open = at;
  while (open > read && at - open < COOKIE_OBJECT_CHARS && text[open] !== '{' && text[open] !== '}') open -= 1;
  let close = at;
  while (close < text.length && close - at < COOKIE_OBJECT_CHARS && text[close] !== '}' && text[close] !== '{') close += 1;
  found.readTo.set('cookie', close);
  if (text[open] !== '{' || text[close] !== '}') return -1;
  const object = text.slice(open, close);
  if (!COOKIE_ONLY.test(object)) return -1;
  const name = NAME_MEMBER.exec(object);
  const value = VALUE_MEMBER.exec(object);
  const range = value?.indices?.[3];
  if (!name || !value || !range) return -1;
  if (cookieSecret(name[3] ?? '', value[3] ?? '')) found.add(open + range[0], open + range[1], 'cookie', PRIORITY.command);
  return -1;
};

/**
 * A cookies.txt line (Netscape's format, what curl and yt-dlp read): domain, flag, path, secure,
 * expiry, name, value, tab-separated. Read from its flag (the first TRUE or FALSE) to its end.
 */
const COOKIES_TXT = /(?:TRUE|FALSE)\t[^\t\n]{0,1024}\t(?:TRUE|FALSE)\t-?\d{1,12}(?:\.\d{1,9})?\t([^\t\n]{1,256})\t([^\t\n\r]{1,4096})\r?(?=\n|$)/dy;

const cookiesTxt: Handler = (text, at, found) => {
  if (text[at - 1] !== '\t') return -1;
  COOKIES_TXT.lastIndex = at;
  const m = COOKIES_TXT.exec(text);
  const r = m?.indices?.[2];
  if (m && r && cookieSecret(m[1] ?? '', m[2] ?? '')) found.add(r[0], r[1], 'cookie', PRIORITY.command);
  return -1;
};

/**
 * A header as written, as a member of JSON (devtools' copy as fetch: `"cookie": "…"`), or as a
 * HAR record (`"name": "Cookie", "value": "…"`).
 */
const COOKIE_HEADER = /(?:Set-)?Cookie(?:["']?[ \t]*:|["'][ \t]*,[ \t\r\n]{0,40}["']value["'][ \t]*:)[ \t]*["']?([^\n'"]{1,4096})/dyi;
const COOKIE_PAIR = /([A-Za-z0-9_.-]{1,64})=([^;,\s]{1,4096})/g;

/** The values of `name=value; …` pairs (a header's, `document.cookie`'s) that `base` is the start of. */
function cookiePairs(pairs: string, base: number, found: Findings): void {
  COOKIE_PAIR.lastIndex = 0;
  for (let p = COOKIE_PAIR.exec(pairs); p !== null; p = COOKIE_PAIR.exec(pairs)) {
    const name = p[1] ?? '';
    const value = p[2] ?? '';
    if (cookieSecret(name, value)) found.add(base + p.index + name.length + 1, base + p.index + p[0].length, 'cookie', PRIORITY.command);
  }
}

/** A rule that reads `name=value; …` pairs: the group of its (sticky) pattern that holds them. */
function pairsAfter(re: RegExp, group: number): Handler {
  return (text, at, found) => {
    re.lastIndex = at;
    const m = re.exec(text);
    const base = m?.indices?.[group]?.[0];
    if (!m || base === undefined) return -1;
    cookiePairs(m[group] ?? '', base, found);
    return at + 1;
  };
}

/** `Cookie:` and `Set-Cookie:` headers, in any case. */
const cookieHeader = pairsAfter(COOKIE_HEADER, 1);
/** `document.cookie = "name=value; …"` (or `+=`), and the string a console prints for `document.cookie`. */
const documentCookie = pairsAfter(/document\.cookie[ \t]*(?:\+?=(?!=)[ \t]*|\r?\n[ \t]*(?:[<>][ \t]*)?)(["'`])([^\n"'`]{1,4096})/dy, 2);

// ---------------------------------------------------------------------------------------------
// Kubernetes Secrets: every value of `data:` and `stringData:` (base64 or not, whatever its key).

/** How far from `kind: Secret` the rest of its object is read (a Secret is small). */
const SECRET_DOCUMENT_CHARS = 16_384;
const MAX_SECRET_KEYS = 200;
/** What a reader put before a YAML line: a line number (`     7→`, `cat -n`), a diff's `+`. */
const YAML_PREFIX = new RegExp(String.raw`(?:[ \t]*${READ_LINE_NUMBER})?\+?`, 'y');

/** A YAML line's indentation and where its key starts, past a reader's prefix and a list item's `- `. */
export function yamlLine(text: string, start: number, end: number): { indent: number; key: number } {
  YAML_PREFIX.lastIndex = start;
  const m = YAML_PREFIX.exec(text);
  const body = m === null ? start : Math.min(end, start + m[0].length);
  let i = body;
  while (i < end && (text[i] === ' ' || (text[i] === '-' && text[i + 1] === ' '))) i += 1;
  return { indent: i - body, key: i };
}

/**
 * The YAML object a `kind: Secret` at `indent` belongs to: from the line after the nearest one
 * before it that starts another object (`---`, `==> file <==` as `head` prints, an `apiVersion:`
 * or `kind:` of the same indentation, or a line less indented), to the next such line.
 */
function yamlObject(text: string, at: number, indent: number): [number, number] {
  const floor = Math.max(0, at - SECRET_DOCUMENT_CHARS);
  const ceiling = Math.min(text.length, at + SECRET_DOCUMENT_CHARS);
  const starts = (s: number, e: number, self: boolean): boolean => {
    const line = text.slice(s, e);
    if (/^(?:---|==> )/.test(line.trimStart())) return true;
    const { indent: ind, key } = yamlLine(text, s, e);
    if (key >= e) return false;
    if (ind < indent) return true;
    return ind === indent && !self && /^(?:apiVersion|kind):/.test(text.slice(key, key + 11));
  };
  const [ls, le] = lineBounds(text, at);
  let from = ls;
  for (let s = ls; s > floor; ) {
    const [ps, pe] = lineBounds(text, s - 1);
    if (starts(ps, pe, false)) {
      // An `apiVersion:` of the same object begins it; another object's line ends the search.
      const { indent: ind, key } = yamlLine(text, ps, pe);
      if (ind === indent && text.startsWith('apiVersion:', key)) from = ps;
      break;
    }
    from = ps;
    s = ps;
  }
  let to = le;
  for (let e = le; e < ceiling; ) {
    const [ns, ne] = lineBounds(text, e + 1);
    if (ns >= ceiling || starts(ns, ne, false)) break;
    to = ne;
    e = ne;
  }
  return [from, to];
}

/** The `key: value` lines under a `data:` or `stringData:` line at the Secret's own indentation. */
function yamlSecretData(text: string, from: number, to: number, indent: number, found: Findings): void {
  let pos = from;
  while (pos < to) {
    const [start, end] = lineBounds(text, pos);
    const { indent: own, key } = yamlLine(text, start, end);
    if (own === indent && /^(?:data|stringData):[ \t]*(?:#.*)?\r?$/.test(text.slice(key, end))) {
      let line = nextLine(text, end);
      for (let n = 0; line !== null && line[0] < to && n < MAX_SECRET_KEYS; n += 1) {
        const [s, e] = line;
        const { indent: ind, key: k } = yamlLine(text, s, e);
        if (k >= e || text.slice(k, e).trim() === '') {
          line = nextLine(text, e);
          continue;
        }
        if (ind <= indent) break;
        // `key: value`, read by hand: a pattern with a lazy value before trailing spaces is quadratic on a long line.
        const colon = text.indexOf(': ', k);
        if (colon !== -1 && colon < e && text[k] !== '#') {
          let vs = colon + 2;
          while (vs < e && (text[vs] === ' ' || text[vs] === '\t')) vs += 1;
          let ve = e;
          while (ve > vs && /\s/.test(text[ve - 1] as string)) ve -= 1;
          const value = text.slice(vs, ve);
          if (value !== '' && !isPlaceholder(value) && !/^[|>][-+]?$/.test(value)) found.add(vs, ve, 'kubernetes_secret', PRIORITY.name);
        }
        line = nextLine(text, e);
      }
    }
    pos = end + 1;
  }
}

/**
 * The JSON object around `at`: from its `{` to its `}`, braces inside strings not counted, within
 * SECRET_DOCUMENT_CHARS either way; null when it is not closed there.
 */
function jsonObject(text: string, at: number): [number, number] | null {
  const floor = Math.max(0, at - SECRET_DOCUMENT_CHARS);
  const ceiling = Math.min(text.length, at + SECRET_DOCUMENT_CHARS);
  const quoted = (i: number): boolean => {
    let n = 0;
    while (i - 1 - n >= 0 && text[i - 1 - n] === '\\') n += 1;
    return n % 2 === 0;
  };
  let depth = 0;
  let inString = false;
  let open = -1;
  for (let i = at - 1; i >= floor; i -= 1) {
    const c = text[i];
    if (c === '"' && quoted(i)) inString = !inString;
    else if (!inString && c === '}') depth += 1;
    else if (!inString && c === '{') {
      if (depth === 0) {
        open = i;
        break;
      }
      depth -= 1;
    }
  }
  if (open === -1) return null;
  depth = 0;
  inString = false;
  for (let i = open + 1; i < ceiling; i += 1) {
    const c = text[i];
    if (c === '"' && quoted(i)) inString = !inString;
    else if (!inString && c === '{') depth += 1;
    else if (!inString && c === '}') {
      if (depth === 0) return [open, i + 1];
      depth -= 1;
    }
  }
  return null;
}

const JSON_SECRET_DATA = /"(?:data|stringData)"[ \t\r\n]*:[ \t\r\n]*\{/g;
const JSON_MEMBER = /"((?:[^"\\\n]|\\.){1,253})"[ \t\r\n]*:[ \t\r\n]*"((?:[^"\\\n]|\\.){1,8192})"/y;

/** `"data": {"key": "value", …}` of the JSON object `"kind": "Secret"` is a member of (not of an object inside it). */
function jsonSecretData(text: string, from: number, to: number, found: Findings): void {
  const part = text.slice(from, to);
  JSON_SECRET_DATA.lastIndex = 0;
  for (let m = JSON_SECRET_DATA.exec(part); m !== null; m = JSON_SECRET_DATA.exec(part)) {
    // A member of this object, not of one inside it: the braces before it balance.
    const before = part.slice(1, m.index).replace(/"(?:[^"\\]|\\.)*"/g, '""');
    if ((before.match(/\{/g)?.length ?? 0) !== (before.match(/\}/g)?.length ?? 0)) continue;
    let pos = m.index + m[0].length;
    for (let n = 0; n < MAX_SECRET_KEYS; n += 1) {
      while (pos < part.length && /[\s,]/.test(part[pos] as string)) pos += 1;
      JSON_MEMBER.lastIndex = pos;
      const mm = JSON_MEMBER.exec(part);
      if (!mm) break;
      const value = mm[2] ?? '';
      const vEnd = pos + mm[0].length - 1;
      if (!isPlaceholder(value)) found.add(from + vEnd - value.length, from + vEnd, 'kubernetes_secret', PRIORITY.name);
      pos += mm[0].length;
    }
  }
}

const YAML_KIND = /kind:[ \t]*(["']?)Secret\1[ \t]*(?:#[^\n]{0,200})?\r?(?=\n|$)/y;
const JSON_KIND = /"kind"[ \t]*:[ \t]*"Secret"/y;

/** `kind: Secret` alone on its line (YAML, quoted or not, a comment after it) or `"kind": "Secret"` (JSON): the Secret's object, read once. */
const kubernetesSecret: Handler = (text, at, found) => {
  const json = text[at] === '"';
  const re = json ? JSON_KIND : YAML_KIND;
  re.lastIndex = at;
  if (!re.test(text)) return -1;
  if (at < (found.readTo.get('kubernetes') ?? -1)) return -1;
  if (json) {
    const object = jsonObject(text, at);
    if (object === null) return -1;
    found.readTo.set('kubernetes', object[1]);
    jsonSecretData(text, object[0], object[1], found);
    return -1;
  }
  const [start, end] = lineBounds(text, at);
  const { indent, key } = yamlLine(text, start, end);
  if (key !== at) return -1;
  const [from, to] = yamlObject(text, at, indent);
  found.readTo.set('kubernetes', to);
  yamlSecretData(text, from, to, indent, found);
  return -1;
};

// ---------------------------------------------------------------------------------------------
// `.pgpass`: `host:port:database:user:password`, on the line that names the file (an `echo … >
// ~/.pgpass`) and the lines after it (what `cat ~/.pgpass` printed).

const PGPASS_LINES = 20;
const PGPASS_ENTRY = /(?:^|[\s"'])([A-Za-z0-9_.*-]{1,253}):(?:\d{1,5}|\*):[^:\s"']{1,63}:[^:\s"']{1,63}:([^\s"']{4,200})(?=$|[\s"'])/dg;
/** A host a `.pgpass` line may name: any (`*`), a name with a letter, or an IPv4 address. */
const PGPASS_HOST = /^(?:\*|.*[A-Za-z].*|\d{1,3}(?:\.\d{1,3}){3})$/;

function pgpassEntries(text: string, start: number, end: number, found: Findings): void {
  const line = text.slice(start, end);
  PGPASS_ENTRY.lastIndex = 0;
  for (let m = PGPASS_ENTRY.exec(line); m !== null; m = PGPASS_ENTRY.exec(line)) {
    const r = m.indices?.[2];
    const pw = m[2] ?? '';
    // A password, not a word with hyphens (`web:8080:http:nginx:running-healthy` is a status line).
    if (r && PGPASS_HOST.test(m[1] ?? '') && !isPlaceholder(pw) && (/[^A-Za-z-]/.test(pw) || looksRandom(pw, 12))) found.add(start + r[0], start + r[1], 'pgpass_password', PRIORITY.command);
  }
}

const pgpass: Handler = (text, at, found) => {
  if (at < (found.readTo.get('pgpass') ?? -1)) return -1;
  let line: [number, number] | null = lineBounds(text, at);
  pgpassEntries(text, line[0], line[1], found);
  let end = line[1];
  for (let n = 0; n < PGPASS_LINES; n += 1) {
    line = nextLine(text, line[1]);
    if (line === null) break;
    pgpassEntries(text, line[0], line[1], found);
    end = line[1];
  }
  found.readTo.set('pgpass', end);
  return -1;
};

/**
 * A `.pgpass` line on its own, where nothing names the file: what `cat ~/.pgpass` printed is a
 * tool result of its own, the name in the call. Found by PostgreSQL's port (`:5432:`, `:5433:`)
 * or a port of `*`, and taken only when the line is that entry and nothing else (a Read's line
 * number before it allowed): a log or compiler line has words and spaces around its colons.
 */
const PGPASS_WHOLE_LINE = new RegExp(String.raw`^([ \t]*(?:${READ_LINE_NUMBER})?[ \t]*)[A-Za-z0-9_.*-]{1,253}:(?:\d{1,5}|\*):[^:\s"']{1,63}:[^:\s"']{1,63}:[^\s"']{4,200}[ \t]*$`);

const pgpassLine: Handler = (text, at, found) => {
  if (at < (found.readTo.get('pgpass') ?? -1)) return -1;
  const [start, end] = lineBounds(text, at);
  // The entry is read from where it starts (past its prefix): after a Read's `1→` no space precedes the host.
  const prefix = PGPASS_WHOLE_LINE.exec(text.slice(start, end))?.[1];
  if (prefix !== undefined) pgpassEntries(text, start + prefix.length, end, found);
  return -1;
};

// ---------------------------------------------------------------------------------------------
// Terraform's `random_password` in a state: its `result` and `bcrypt_hash`.

const TF_RESOURCE_CHARS = 4096;
const TF_SECRET = /"(result|bcrypt_hash)"[ \t]*:[ \t]*"((?:[^"\\\n]|\\.){1,1024})"/dg;

/** `"type": "random_password"` as a state writes it (not the word in prose, nor HCL's `resource "random_password"`). */
const TF_TYPE = /"type"[ \t]*:[ \t]*"$/;

const randomPassword: Handler = (text, at, found) => {
  if (at < (found.readTo.get('terraform') ?? -1) || !TF_TYPE.test(text.slice(Math.max(0, at - 24), at))) return -1;
  let part = text.slice(at, Math.min(text.length, at + TF_RESOURCE_CHARS));
  // The resource ends where the next one's type begins.
  const next = part.indexOf('"type"');
  if (next !== -1) part = part.slice(0, next);
  found.readTo.set('terraform', at + part.length);
  TF_SECRET.lastIndex = 0;
  for (let m = TF_SECRET.exec(part); m !== null; m = TF_SECRET.exec(part)) {
    const r = m.indices?.[2];
    if (r) found.add(at + r[0], at + r[1], 'terraform_password', PRIORITY.name);
  }
  return -1;
};

// ---------------------------------------------------------------------------------------------
// Discord bot tokens: the base64 of the bot's id (a snowflake of 17 to 20 digits), a stamp, an HMAC.

/** Base64 of a first digit 1 to 9 (`1` → `MT`, … `9` → `OT`): where a bot's id starts. */
const DISCORD_STARTS = ['MT', 'Mj', 'Mz', 'ND', 'NT', 'Nj', 'Nz', 'OD', 'OT'];
const DISCORD = /[MNO][A-Za-z0-9]{22,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/y;

const discordToken: Handler = (text, at, found) => {
  DISCORD.lastIndex = at;
  const m = DISCORD.exec(text);
  if (!m) return -1;
  const id = Buffer.from(m[0].slice(0, m[0].indexOf('.')), 'base64').toString('latin1');
  if (!/^\d{17,20}$/.test(id)) return -1;
  found.add(at, at + m[0].length, 'discord_token', PRIORITY.provider);
  return at + m[0].length;
};

// ---------------------------------------------------------------------------------------------
// SQL's INSERT: a password given by its column's place (`INSERT INTO users (email, password)
// VALUES ('a@b.c', '…'), (…)`). The columns that name a secret strongly (`password`, `api_secret`;
// not `password_hash`) are read in each row of values; a hash (`$2b$…`), a placeholder or a call is none.

const INSERT_HEAD = /INSERT[ \t]+INTO[ \t]+[\w."`[\]]{1,120}[ \t]*\(([^()\n]{1,800})\)[ \t\r\n]*VALUES[ \t\r\n]*/iy;
const MAX_INSERT_ROWS = 1000;

/** The items of one row of values from `(` at `i`: each a quoted literal's inner range, or null for anything else. */
function valuesRow(text: string, i: number): { items: ([number, number] | null)[]; end: number } | null {
  if (text[i] !== '(') return null;
  const items: ([number, number] | null)[] = [];
  let j = i + 1;
  for (;;) {
    while (text[j] === ' ' || text[j] === '\t' || text[j] === '\n' || text[j] === '\r') j += 1;
    const q = text[j];
    if (q === "'" || (q === 'N' && text[j + 1] === "'")) {
      const open = q === 'N' ? j + 1 : j;
      let k = open + 1;
      while (k < text.length && k - open < 4096 && !(text[k] === "'" && text[k + 1] !== "'")) k += text[k] === "'" ? 2 : 1;
      if (text[k] !== "'") return null;
      items.push([open + 1, k]);
      j = k + 1;
    } else {
      // Anything else, to the comma or parenthesis that ends it (a call's own parentheses nested).
      let depth = 0;
      const start = j;
      while (j < text.length && j - start < 4096 && text[j] !== '\n' && !(depth === 0 && (text[j] === ',' || text[j] === ')'))) {
        if (text[j] === '(') depth += 1;
        else if (text[j] === ')') depth -= 1;
        else if (text[j] === "'") j = text.indexOf("'", j + 1) === -1 ? text.length : text.indexOf("'", j + 1);
        j += 1;
      }
      items.push(null);
    }
    while (text[j] === ' ' || text[j] === '\t') j += 1;
    if (text[j] === ',') {
      j += 1;
      continue;
    }
    return text[j] === ')' ? { items, end: j + 1 } : null;
  }
}

const sqlInsert: Handler = (text, at, found) => {
  INSERT_HEAD.lastIndex = at;
  const m = INSERT_HEAD.exec(text);
  if (m === null) return -1;
  const columns = (m[1] as string).split(',').map((c) => c.trim().replace(/^["`[]|["`\]]$/g, ''));
  const secret = columns.flatMap((c, i) => (nameStrength(c) === 'strong' ? [i] : []));
  if (secret.length === 0) return at + m[0].length;
  let i = at + m[0].length;
  for (let rows = 0; rows < MAX_INSERT_ROWS; rows += 1) {
    const row = valuesRow(text, i);
    if (row === null || row.items.length !== columns.length) break;
    for (const c of secret) {
      const r = row.items[c];
      if (!r) continue;
      const v = text.slice(r[0], r[1]);
      if (v.length >= 4 && !isPlaceholder(v) && !HASH.test(v)) found.add(r[0], r[1], 'secret_assignment', PRIORITY.name);
    }
    i = row.end;
    while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i += 1;
    if (text[i] !== ',') break;
    i += 1;
    while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i += 1;
  }
  return i;
};

export function registerRecords(scanner: LiteralScanner): void {
  for (const s of ['Cookie', 'cookie', 'COOKIE', 'Set-Cookie', 'set-cookie']) scanner.add(s, cookieHeader);
  scanner.add('domain', cookieObject);
  for (const s of ['TRUE', 'FALSE']) scanner.add(s, cookiesTxt);
  scanner.add('document.cookie', documentCookie, { boundary: false });
  scanner.add('kind:', kubernetesSecret);
  scanner.add('"kind"', kubernetesSecret, { boundary: false });
  scanner.add('pgpass', pgpass, { boundary: false, caseless: true });
  for (const s of [':5432:', ':5433:', ':*:']) scanner.add(s, pgpassLine, { boundary: false });
  scanner.add('random_password', randomPassword, { boundary: false });
  for (const s of ['INSERT INTO', 'insert into', 'Insert into']) scanner.add(s, sqlInsert);
  for (const s of DISCORD_STARTS) scanner.add(s, discordToken);
}
