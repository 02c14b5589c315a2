import type { Findings } from './findings.js';
import { PRIORITY } from './findings.js';
import type { Handler, LiteralScanner } from './literals.js';
import { isPlaceholder, nameStrength } from './names.js';
import { looksRandom } from './randomness.js';

/**
 * Secrets known by the record they stand in, not by a label beside them: a secret column of a
 * Markdown table or a psql grid, a browser cookie (Playwright's storageState, cookies.txt,
 * `document.cookie`), the values of a Kubernetes Secret, a `.pgpass` line, Terraform's
 * `random_password` in a state, and a Discord bot token (whose shape names it). Each rule starts
 * at a literal the record holds and reads a bounded stretch around it.
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

/** A cookie's value worth removing: generated-looking, or any real value of a session's cookie. */
function cookieSecret(name: string, value: string): boolean {
  if (isPlaceholder(value)) return false;
  return looksRandom(value, 16) || (SESSION_NAME.test(name) && value.length >= 12 && !/\s/.test(value));
}

// ---------------------------------------------------------------------------------------------
// Tables: `| User | Password |` over `|---|---|`, and psql's ` usename | passwd ` over `---+---`.

const MAX_TABLE_ROWS = 200;
const MAX_TABLE_COLUMNS = 40;
const TABLE_LABEL = /^[A-Za-z][A-Za-z0-9 _.-]{0,39}$/;
/** A table's rule under its header: cells of dashes (with Markdown's alignment colons), one per column. */
const RULE_CELL = /^[ \t]*:?-{3,}:?[ \t]*$/;
/** What a secret column holds when it holds no secret: a yes, a kind, a note. */
const NOT_A_VALUE = /^(?:yes|no|y|n|true|false|none|null|nil|n\/a|na|required|optional|hidden|masked|redacted|secret|string|text|unique|empty|unset|set|default|auto|random|generated|hashed|encrypted|bcrypt|argon2|sha256|md5|[-—–•✓✔✗✘x]+)$/i;

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

/** A rule line's cells, between pipes and pluses (a psql rule joins its dashes with `+`). */
function ruleCells(text: string, start: number, end: number, edges: Edges): string[] {
  let line = text.slice(start, end).trim();
  if (edges.start) line = line.slice(1);
  if (edges.end) line = line.slice(0, -1);
  return line.length > 4 * MAX_TABLE_COLUMNS * 16 ? [] : line.split(/[|+]/);
}

/**
 * A header's or a row's `n` cells. With outer pipes, the cells run from the line's first pipe and
 * each ends at a pipe: what stands before and after them is no cell (a JSON string's opening, the
 * rest of a JSON line after a table that ended inside a string). Without, the line is the cells,
 * exactly `n` of them. Empty when the line holds no such row.
 */
function rowCells(text: string, start: number, end: number, edges: Edges, n: number): Cell[] {
  let from = start;
  if (edges.start) {
    const p = text.indexOf('|', start);
    if (p === -1 || p >= end) return [];
    from = p + 1;
  }
  const out: Cell[] = [];
  for (let k = 0; k < n; k += 1) {
    const p = text.indexOf('|', from);
    if (p !== -1 && p < end) {
      out.push({ text: text.slice(from, p), at: from });
      from = p + 1;
    } else if (!edges.end && k === n - 1) {
      out.push({ text: text.slice(from, end), at: from });
      from = end;
    } else return [];
  }
  if (!edges.end) {
    // No outer pipes: a further pipe is a further cell, and this is no row of the table.
    const p = text.indexOf('|', from);
    if (p !== -1 && p < end) return [];
  }
  return out;
}

/**
 * A header's `n` cells, the last `n` of its line: a header ends its line (its rule is the next),
 * while what starts the line may be anything (the rest of a JSON line before the string the table
 * is in, with pipes of its own). Empty when the line does not end in them.
 */
function headerCells(text: string, start: number, end: number, edges: Edges, n: number): Cell[] {
  let to = end;
  while (to > start && /\s/.test(text[to - 1] as string)) to -= 1;
  if (edges.end) {
    if (text[to - 1] !== '|') return [];
    to -= 1;
  }
  const out: Cell[] = [];
  for (let k = 0; k < n; k += 1) {
    const p = text.lastIndexOf('|', to - 1);
    const last = k === n - 1;
    if (p >= start && (!last || edges.start)) {
      out.unshift({ text: text.slice(p + 1, to), at: p + 1 });
      to = p;
    } else if (last && !edges.start) {
      out.unshift({ text: text.slice(Math.max(start, p + 1), to), at: Math.max(start, p + 1) });
    } else return [];
  }
  return out;
}

/** A rule's edges: a pipe first and last, as `|---|---|` has (a psql rule has none). */
function ruleEdges(text: string, start: number, end: number): Edges {
  const line = text.slice(start, end).trim();
  return { start: line.startsWith('|'), end: line.endsWith('|') };
}

/** A name that fills a cell by itself, a pipe on one side at least (cheap to test before reading the line). */
function inPipeCell(text: string, start: number, end: number): boolean {
  const inCell = (c: number): boolean => c === 32 || c === 9 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46;
  let i = start - 1;
  while (i >= 0 && start - i < 40 && inCell(text.charCodeAt(i))) i -= 1;
  let j = end;
  while (j < text.length && j - end < 40 && inCell(text.charCodeAt(j))) j += 1;
  const before = i < 0 ? 10 : text.charCodeAt(i);
  const after = j >= text.length ? 10 : text.charCodeAt(j);
  const edge = (c: number): boolean => c === 124 || c === 10 || c === 13;
  return edge(before) && edge(after) && (before === 124 || after === 124);
}

/** A value in a secret column, as written (backquotes taken off): removed unless it is none. */
function tableSecret(strength: 'strong' | 'weak', value: string): boolean {
  if (value.length < 4 || /\s/.test(value) || NOT_A_VALUE.test(value) || isPlaceholder(value)) return false;
  // A bcrypt hash begins with `$2b$10$`, not a variable.
  if (/^\$2[aby]?\$\d\d\$/.test(value)) return true;
  if (value.startsWith('$') || value.startsWith('%')) return false;
  return strength === 'strong' ? /[^A-Za-z]/.test(value) || looksRandom(value, 12) : looksRandom(value, 12);
}

/**
 * A secret's name that fills a cell of a table's header (`| Email | Password |`, a psql grid's
 * `passwd`): that column's cells in the rows below, up to the first line that is no row of it.
 * A header is only a header over its rule (`|---|---|`, `----+----`): a row that names a field
 * `password` is not one. Returns the header line's end, or null when this is no such header.
 */
export function findPipeColumns(text: string, nameStart: number, nameEnd: number, found: Findings): number | null {
  if (nameStart < (found.readTo.get('table') ?? -1) || !inPipeCell(text, nameStart, nameEnd)) return null;
  const [start, end] = lineBounds(text, nameStart);
  // The line is read once, whichever of its names is met first.
  found.readTo.set('table', end);
  const ruleLine = nextLine(text, end);
  if (!ruleLine) return null;
  const edges = ruleEdges(text, ruleLine[0], ruleLine[1]);
  const rule = ruleCells(text, ruleLine[0], ruleLine[1], edges);
  if (rule.length < 2 || rule.length > MAX_TABLE_COLUMNS || !rule.every((c) => RULE_CELL.test(c))) return null;
  const header = headerCells(text, start, end, edges, rule.length);
  if (header.length === 0) return null;
  const columns = new Map<number, 'strong' | 'weak'>();
  header.forEach((c, i) => {
    const label = c.text.trim();
    const strength = TABLE_LABEL.test(label) ? nameStrength(label.replace(/\s+/g, '_')) : null;
    if (strength) columns.set(i, strength);
  });
  if (columns.size === 0) return end;
  let line = nextLine(text, ruleLine[1]);
  for (let rows = 0; line !== null && rows < MAX_TABLE_ROWS; rows += 1) {
    const row = rowCells(text, line[0], line[1], edges, header.length);
    if (row.length === 0) break;
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
    // More after the row's closing pipe (a JSON string closed there): the table ended with this row.
    if (edges.end && /\S/.test(text.slice(after + 1, line[1]))) break;
    line = nextLine(text, line[1]);
  }
  return end;
}

// ---------------------------------------------------------------------------------------------
// Cookies.

/** How far around a cookie's `domain` its object is looked for. */
const COOKIE_OBJECT_CHARS = 600;
const MEMBER = (key: string): RegExp => new RegExp(`(["']?)${key}\\1[ \\t]*:[ \\t]*(["'\`])([^"'\`\\n]{1,4096})\\2`, 'd');
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
  const name = NAME_MEMBER.exec(object);
  const value = VALUE_MEMBER.exec(object);
  const range = value?.indices?.[3];
  if (!name || !value || !range) return -1;
  if (cookieSecret(name[3] ?? '', value[3] ?? '')) found.add(open + range[0], open + range[1], 'cookie', PRIORITY.command);
  return -1;
};

/*
 * Each rule below gives the scan back at the next character (-1): what it read may hold a
 * credential another rule finds from a literal inside it (a JWT as a cookie's value).
 */

/**
 * A cookies.txt line (Netscape's format, what curl and yt-dlp read): domain, flag, path, secure,
 * expiry, name, value, tab-separated. Read from its flag (the first TRUE or FALSE) to its end.
 */
const COOKIES_TXT = /(?:TRUE|FALSE)\t[^\t\n]{0,1024}\t(?:TRUE|FALSE)\t\d{1,12}\t([^\t\n]{1,256})\t([^\t\n\r]{1,4096})\r?(?=\n|$)/dy;

const cookiesTxt: Handler = (text, at, found) => {
  if (text[at - 1] !== '\t') return -1;
  COOKIES_TXT.lastIndex = at;
  const m = COOKIES_TXT.exec(text);
  const r = m?.indices?.[2];
  if (m && r && cookieSecret(m[1] ?? '', m[2] ?? '')) found.add(r[0], r[1], 'cookie', PRIORITY.command);
  return -1;
};

const DOCUMENT_COOKIE = /document\.cookie[ \t]*(?:=(?!=)[ \t]*|\r?\n[ \t]*(?:[<>][ \t]*)?)(["'`])([^\n"'`]{1,4096})/dy;
const COOKIE_PAIR = /([A-Za-z0-9_.-]{1,64})=([^;,\s]{1,4096})/g;

/** `document.cookie = "name=value; …"`, and the string a console prints for `document.cookie`. */
const documentCookie: Handler = (text, at, found) => {
  DOCUMENT_COOKIE.lastIndex = at;
  const m = DOCUMENT_COOKIE.exec(text);
  const base = m?.indices?.[2]?.[0];
  if (!m || base === undefined) return -1;
  const pairs = m[2] ?? '';
  COOKIE_PAIR.lastIndex = 0;
  for (let p = COOKIE_PAIR.exec(pairs); p !== null; p = COOKIE_PAIR.exec(pairs)) {
    const name = p[1] ?? '';
    const value = p[2] ?? '';
    if (cookieSecret(name, value)) found.add(base + p.index + name.length + 1, base + p.index + p[0].length, 'cookie', PRIORITY.command);
  }
  return at + 1;
};

// ---------------------------------------------------------------------------------------------
// Kubernetes Secrets: every value of `data:` and `stringData:` (base64 or not, whatever its key).

/** How far from `kind: Secret` the rest of its document is read (a Secret is small). */
const SECRET_DOCUMENT_CHARS = 16_384;
const MAX_SECRET_KEYS = 200;

function indentOf(text: string, start: number, end: number): number {
  let i = start;
  while (i < end && text.charCodeAt(i) === 32) i += 1;
  return i - start;
}

/** The YAML document around `at`: from the `---` line before it (or the bound) to the next. */
function yamlDocument(text: string, at: number): [number, number] {
  const from = Math.max(0, at - SECRET_DOCUMENT_CHARS);
  const back = text.slice(from, at).lastIndexOf('\n---');
  const ahead = text.slice(at, Math.min(text.length, at + SECRET_DOCUMENT_CHARS)).indexOf('\n---');
  return [back === -1 ? from : from + back + 4, ahead === -1 ? Math.min(text.length, at + SECRET_DOCUMENT_CHARS) : at + ahead];
}

/** The `key: value` lines under a `data:` or `stringData:` line at the Secret's own indentation. */
function yamlSecretData(text: string, from: number, to: number, indent: number, found: Findings): void {
  let pos = from;
  while (pos < to) {
    const [start, end] = lineBounds(text, pos);
    const own = indentOf(text, start, end);
    const key = text.slice(start + own, end);
    if (own === indent && /^(?:data|stringData):[ \t]*\r?$/.test(key)) {
      let line = nextLine(text, end);
      for (let n = 0; line !== null && line[0] < to && n < MAX_SECRET_KEYS; n += 1) {
        const [s, e] = line;
        const ind = indentOf(text, s, e);
        if (ind <= indent && e > s + ind) break;
        const m = /^([^:\s#][^:\n]{0,252}):[ \t]+(\S[^\n]{0,8191}?)[ \t]*\r?$/d.exec(text.slice(s + ind, e));
        const v = m?.indices?.[2];
        const value = m?.[2] ?? '';
        if (v && !isPlaceholder(value) && !/^[|>][-+]?$/.test(value)) found.add(s + ind + v[0], s + ind + v[1], 'kubernetes_secret', PRIORITY.name);
        line = nextLine(text, e);
      }
    }
    pos = end + 1;
  }
}

const JSON_SECRET_DATA = /"(?:data|stringData)"[ \t]*:[ \t]*\{/g;
const JSON_MEMBER = /"((?:[^"\\\n]|\\.){1,253})"[ \t\r\n]*:[ \t\r\n]*"((?:[^"\\\n]|\\.){1,8192})"/y;

/** `"data": {"key": "value", …}` inside the JSON object a `"kind": "Secret"` belongs to. */
function jsonSecretData(text: string, from: number, to: number, found: Findings): void {
  const part = text.slice(from, to);
  JSON_SECRET_DATA.lastIndex = 0;
  for (let m = JSON_SECRET_DATA.exec(part); m !== null; m = JSON_SECRET_DATA.exec(part)) {
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

const YAML_KIND = /kind:[ \t]*Secret[ \t]*\r?(?=\n|$)/y;
const JSON_KIND = /"kind"[ \t]*:[ \t]*"Secret"/y;

/** `kind: Secret` alone on its line (YAML) or `"kind": "Secret"` (JSON): the Secret's document, read once. */
const kubernetesSecret: Handler = (text, at, found) => {
  const json = text[at] === '"';
  const re = json ? JSON_KIND : YAML_KIND;
  re.lastIndex = at;
  if (!re.test(text)) return -1;
  let start = at;
  while (start > 0 && at - start < 256 && text[start - 1] === ' ') start -= 1;
  if (!json && start > 0 && text[start - 1] !== '\n') return -1;
  if (at < (found.readTo.get('kubernetes') ?? -1)) return -1;
  const [from, to] = yamlDocument(text, at);
  found.readTo.set('kubernetes', to);
  if (json) jsonSecretData(text, from, to, found);
  else yamlSecretData(text, from, to, at - start, found);
  return -1;
};

// ---------------------------------------------------------------------------------------------
// `.pgpass`: `host:port:database:user:password`, on the line that names the file (an `echo … >
// ~/.pgpass`) and the lines after it (what `cat ~/.pgpass` printed).

const PGPASS_LINES = 20;
const PGPASS_ENTRY = /(?:^|[\s"'])([A-Za-z0-9.*-]{1,253}):(?:\d{1,5}|\*):[^:\s"']{1,63}:[^:\s"']{1,63}:([^\s"']{4,200})(?=$|[\s"'])/dg;
/** A host a `.pgpass` line may name: any (`*`), a name with a letter, or an IPv4 address. */
const PGPASS_HOST = /^(?:\*|.*[A-Za-z].*|\d{1,3}(?:\.\d{1,3}){3})$/;

function pgpassEntries(text: string, start: number, end: number, found: Findings): void {
  const line = text.slice(start, end);
  PGPASS_ENTRY.lastIndex = 0;
  for (let m = PGPASS_ENTRY.exec(line); m !== null; m = PGPASS_ENTRY.exec(line)) {
    const r = m.indices?.[2];
    if (r && PGPASS_HOST.test(m[1] ?? '') && !isPlaceholder(m[2] ?? '')) found.add(start + r[0], start + r[1], 'pgpass_password', PRIORITY.command);
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

// ---------------------------------------------------------------------------------------------
// Terraform's `random_password` in a state: its `result` and `bcrypt_hash`.

const TF_RESOURCE_CHARS = 4096;
const TF_SECRET = /"(result|bcrypt_hash)"[ \t]*:[ \t]*"((?:[^"\\\n]|\\.){1,1024})"/dg;

const randomPassword: Handler = (text, at, found) => {
  if (at < (found.readTo.get('terraform') ?? -1)) return -1;
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

export function registerRecords(scanner: LiteralScanner): void {
  scanner.add('domain', cookieObject);
  for (const s of ['TRUE', 'FALSE']) scanner.add(s, cookiesTxt);
  scanner.add('document.cookie', documentCookie, { boundary: false });
  scanner.add('kind:', kubernetesSecret);
  scanner.add('"kind"', kubernetesSecret, { boundary: false });
  scanner.add('pgpass', pgpass, { boundary: false, caseless: true });
  scanner.add('random_password', randomPassword, { boundary: false });
  for (const s of DISCORD_STARTS) scanner.add(s, discordToken);
}
