import type { Findings } from './findings.js';
import { PRIORITY } from './findings.js';
import type { Handler, LiteralScanner } from './literals.js';

/**
 * Private key material: PEM blocks (`-----BEGIN … PRIVATE KEY-----` and its body, with or
 * without the END line), a body printed without its header (`tail key.pem`: a run of base64 lines
 * of key width, or base64 lines right before an END line), and PuTTY key files.
 *
 * A BEGIN line followed by no key body is a mention (code that parses keys, documentation) and
 * stays. Bodies are read line by line; a line is body when, without the quotes, commas and diff
 * markers around it, it is only base64.
 */

const PRIVATE_LABEL = /PRIVATE|SECRET|ENCRYPTED|Static key/;
const HEADER_LINE = /^[A-Za-z][A-Za-z-]{1,30}:\s/;
const BASE64_TOKEN = /^[A-Za-z0-9+/]+={0,2}$/;
/** Lines of a PEM (64), OpenSSH (70) or MIME (76) body. */
const MIN_WIDTH = 60;
const MAX_WIDTH = 80;
const MIN_HEADLESS_LINES = 3;
const MIN_BODY_CHARS = 16;
const MAX_BLOCK_LINES = 400;

/**
 * A line without the wrapping a program adds: indentation, quotes, commas, `+` of a diff, and
 * the brackets that close the JSON a key was written into (the last line of a body given as the
 * value of a `"password"` field ends `"}`, and `"}"}` when that JSON was itself a string).
 */
function core(line: string): string {
  return line.replace(WRAPPING, '');
}

/**
 * The line number a reader put before each line: Claude Code's Read (`     1→`, and `1<tab>`
 * since 2.1), `cat -n`, `nl -ba`, `grep -n` (`12:`, and `12-` for a context line). None of the
 * characters after the number is base64, so a body line never loses a character of its own.
 */
export const LINE_NUMBER = String.raw`\d{1,7}(?:\u2192|\t|[:-])`;
/*
 * Also what frames a line in other views: a diff's `-` (a key file deleted), a comment's `#` or
 * `//` (a key commented out), `bat`'s `   2   │ ` and `less -N`'s `      2 `, a psql grid's cell
 * (`     | …+`, the `+` that continues a cell's value on the next line).
 */
const WRAPPING = new RegExp(
  String.raw`^\s*(?:${LINE_NUMBER}|\d{1,7}[ \t]+[│|][ \t]?|\d{1,7}[ \t]+(?=[A-Za-z0-9+/]{16}))?[\s"'\`>+,│|]*(?:-(?!-)|#|\/\/)?\s*|[\s"'\`,;\\)\]}+│|]+$`,
  'g',
);

/**
 * What parts a body's lines when a key is given as a list of them on one line: a shell's arguments
 * (`printf '%s\n' '-----BEGIN …' 'MIIE…' 'k3Xq…'`), a JSON or Python list (`"MIIE…", "k3Xq…"`),
 * lines joined by a pipe or an HTML line break (`…|MIIE…|k3Xq…|`, `<pre>…<br>MIIE…<br>`).
 */
const ITEMS = /(?:["'],?\s*["']|<br\s*\/?>|\||\s+)/i;

function isBodyLine(c: string): boolean {
  if (c.length === 0) return false;
  let chars = 0;
  for (const t of c.split(ITEMS)) {
    // A separator at an end (`…<br>` before the END line) leaves nothing there.
    if (t.length === 0) continue;
    if (!BASE64_TOKEN.test(t) || t.length < 4) return false;
    chars += t.length;
  }
  return chars >= MIN_BODY_CHARS || /=$/.test(c);
}

function isMixed(c: string): boolean {
  return /[A-Z]/.test(c) && /[a-z]/.test(c) && /[0-9]/.test(c);
}

interface Line {
  start: number;
  end: number;
}

function nextLine(text: string, from: number): Line | null {
  if (from > text.length) return null;
  const nl = text.indexOf('\n', from);
  return { start: from, end: nl === -1 ? text.length : nl };
}

/** From a BEGIN marker: the end of its body (and END line), or null when no body follows. */
function blockEnd(text: string, markerEnd: number): number | null {
  let last = -1;
  let bodyChars = 0;
  // The rest of the BEGIN line may hold the body (a key flattened to one line).
  let line: Line | null = { start: markerEnd, end: text.indexOf('\n', markerEnd) === -1 ? text.length : text.indexOf('\n', markerEnd) };
  for (let n = 0; line !== null && n < MAX_BLOCK_LINES; n += 1) {
    const raw = text.slice(line.start, line.end);
    const endAt = raw.indexOf('-----END ');
    const c = core(endAt === -1 ? raw : raw.slice(0, endAt));
    if (isBodyLine(c)) {
      bodyChars += c.length;
      last = line.start + (endAt === -1 ? line.end - line.start : endAt);
    } else if (!(c.length === 0 || (n < 4 && HEADER_LINE.test(c)))) break;
    if (endAt !== -1) {
      END_AT.lastIndex = line.start + endAt;
      const e = END_AT.exec(text);
      return bodyChars >= MIN_BODY_CHARS && e ? e.index + e[0].length : null;
    }
    line = nextLine(text, line.end + 1);
  }
  return bodyChars >= MIN_BODY_CHARS ? last : null;
}

const BEGIN_AT = /-----BEGIN ([A-Za-z0-9 ]{0,40})-----/y;
const END_AT = /-----END ([A-Za-z0-9 ]{0,40})-----/y;

const pemBlock: Handler = (text, at, found) => {
  BEGIN_AT.lastIndex = at;
  const m = BEGIN_AT.exec(text);
  if (!m || !PRIVATE_LABEL.test(m[1] ?? '')) return -1;
  const end = blockEnd(text, at + m[0].length);
  if (end === null) return -1;
  found.add(at, end, 'private_key', PRIORITY.key);
  return end;
};

/** The base64 lines right before an END line of a private key (`tail -n 3 key.pem`). */
const bodyBeforeEnd: Handler = (text, at, found) => {
  END_AT.lastIndex = at;
  const m = END_AT.exec(text);
  if (!m || !PRIVATE_LABEL.test(m[1] ?? '')) return -1;
  let lineStart = at;
  while (lineStart > 0 && text.charCodeAt(lineStart - 1) !== 10) lineStart -= 1;
  if (core(text.slice(lineStart, at)).length > 0) return -1; // END inside a line: a mention
  let start = at;
  let chars = 0;
  for (let n = 0; lineStart > 0 && n < MAX_BLOCK_LINES; n += 1) {
    const prevEnd = lineStart - 1;
    const prevStart = text.lastIndexOf('\n', prevEnd - 1) + 1;
    const c = core(text.slice(prevStart, prevEnd));
    if (!isBodyLine(c)) break;
    chars += c.length;
    start = prevStart;
    lineStart = prevStart;
  }
  if (chars < MIN_BODY_CHARS) return -1;
  found.add(start, at + m[0].length, 'private_key', PRIORITY.key);
  return at + m[0].length;
};

const PUTTY = /Private-Lines:[ \t]*(\d{1,3})/y;

const puttyKey: Handler = (text, at, found) => {
  PUTTY.lastIndex = at;
  const m = PUTTY.exec(text);
  if (!m) return -1;
  let end = at + m[0].length;
  for (let n = 0; n < Number(m[1]); n += 1) {
    const line = nextLine(text, end + 1);
    if (!line || !isBodyLine(core(text.slice(line.start, line.end)))) break;
    end = line.end;
  }
  found.add(at, end, 'private_key', PRIORITY.key);
  return end;
};

/** A certificate's or public key's BEGIN line: the body under it is no secret. */
function afterPublicMarker(text: string, lineStart: number): boolean {
  // An OpenPGP armor puts its headers (`Version: GnuPG v2`) and a blank line between the two.
  for (let n = 0, end = lineStart; n < ARMOR_LINES_BEFORE_BODY && end > 0; n += 1) {
    const prevStart = text.lastIndexOf('\n', end - 2) + 1;
    const prev = core(text.slice(prevStart, end - 1));
    // Also a signature in a commit object (`gpgsig -----BEGIN PGP SIGNATURE-----`), RFC 4716's
    // public key (`---- BEGIN SSH2 PUBLIC KEY ----`), and age's ciphertext, which is no key.
    if (/^(?:gpgsig )?-{4,5} ?BEGIN [A-Z0-9 ]{0,40}? ?-{4,5}$/.test(prev)) return !PRIVATE_LABEL.test(prev.replace('AGE ENCRYPTED FILE', ''));
    if (prev !== '' && !ARMOR_HEADER.test(prev)) return false;
    end = prevStart;
  }
  return false;
}

/** An OpenPGP armor's header line, and how many such lines (and the blank one) may come before its body. */
const ARMOR_HEADER = /^(?:Version|Comment|Hash|Charset|MessageID): [^\n]{0,200}$/;
const ARMOR_LINES_BEFORE_BODY = 6;

/** Four characters across the line are base64: prose and code fail this at once. */
function sampledBase64(text: string, pos: number, width: number): boolean {
  for (let k = 1; k <= 4; k += 1) {
    const c = text.charCodeAt(pos + Math.floor((width * k) / 5));
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47)) return false;
  }
  return true;
}

/** Runs of full-width base64 lines with no header at all. */
function headlessBodies(text: string, found: Findings): void {
  let runStart = -1;
  let runEnd = -1;
  let lines = 0;
  let publicRun = false;
  const close = (): void => {
    if (lines >= MIN_HEADLESS_LINES && !publicRun) found.add(runStart, runEnd, 'private_key', PRIORITY.key);
    runStart = -1;
    lines = 0;
    publicRun = false;
  };
  for (let pos = 0; pos <= text.length; ) {
    const nl = text.indexOf('\n', pos);
    const end = nl === -1 ? text.length : nl;
    const width = end - pos;
    let body = false;
    if (width >= MIN_WIDTH - 4 && width <= MAX_WIDTH + 12 && sampledBase64(text, pos, width)) {
      const c = core(text.slice(pos, end));
      body = c.length >= MIN_WIDTH && c.length <= MAX_WIDTH && BASE64_TOKEN.test(c) && isMixed(c);
    }
    if (body) {
      if (runStart === -1) {
        runStart = pos;
        publicRun = afterPublicMarker(text, pos);
      }
      runEnd = end;
      lines += 1;
    } else if (runStart !== -1) {
      // The last, shorter line of a body belongs to it.
      const c = core(text.slice(pos, end));
      if (lines >= MIN_HEADLESS_LINES && c.length > 0 && c.length < MIN_WIDTH && BASE64_TOKEN.test(c)) runEnd = end;
      close();
    }
    if (nl === -1) break;
    pos = nl + 1;
  }
  if (runStart !== -1) close();
}

/**
 * A PEM private key given base64-encoded whole: kubeconfig's `client-key-data:`, a Kubernetes
 * Secret's `data:`, an environment variable (`LS0tLS1CRUdJTi` is `-----BEGIN` encoded). The
 * run is removed when its decoded head names a private key; a certificate stays.
 */
const ENCODED_PEM_RUN = /[A-Za-z0-9+/]{0,16384}={0,2}/y;

const encodedPem: Handler = (text, at, found) => {
  ENCODED_PEM_RUN.lastIndex = at;
  const m = ENCODED_PEM_RUN.exec(text);
  if (!m || m[0].length < 64) return -1;
  const head = Buffer.from(m[0].slice(0, 80), 'base64').toString('latin1');
  const label = /^-----BEGIN ([A-Z0-9 ]{0,40})-----/.exec(head);
  if (!label || !PRIVATE_LABEL.test(label[1] ?? '')) return -1;
  found.add(at, at + m[0].length, 'private_key', PRIORITY.key);
  return at + m[0].length;
};

/** A hex line of `openssl … -text`: `    23:4d:d0:…:3c:`. */
const HEX_LINE = /^[ \t]{2,8}[0-9a-f]{2}(?::[0-9a-f]{2}){0,20}:?[ \t]*$/;
const TEXT_KEY_LINES = 64;

/**
 * `openssl ec|rsa|pkey -text` prints a private key's numbers as hex lines under their names
 * (`priv:`, `privateExponent:`, `prime1:`, …): those lines, up to the next name.
 */
const textKey: Handler = (text, at, found) => {
  const eol = text.indexOf('\n', at);
  if (eol === -1 || text.slice(at, eol).trim().replace(/^\w+:/, '').trim() !== '') return -1;
  let pos = eol + 1;
  let end = -1;
  for (let n = 0; n < TEXT_KEY_LINES && pos < text.length; n += 1) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl === -1 ? text.length : nl;
    if (!HEX_LINE.test(text.slice(pos, lineEnd))) break;
    end = lineEnd;
    pos = lineEnd + 1;
  }
  if (end === -1) return -1;
  found.add(eol + 1, end, 'private_key', PRIORITY.key);
  return end;
};

/** How far a JSON Web Key's object is read around its `"kty"` (an RSA-4096 key's members take about 3.3 KB). */
const JWK_CHARS = 8192;
const JWK_HITS = 64;
const JWK_PRIVATE = /"(?:d|p|q|dp|dq|qi|k)"[ \t\r\n]*:[ \t\r\n]*"([A-Za-z0-9_-]{16,2048})"/dg;

/**
 * A JSON Web Key's private members (`d`, and RSA's `p`, `q`, `dp`, `dq`, `qi`; a symmetric key's
 * `k`): found from its `"kty"`, in the object around it (certbot's account `private_key.json`, a
 * JWKS file). The public members (`n`, `e`, `x`, `y`) stay.
 */
const jwkPrivate: Handler = (text, at, found) => {
  // Each hit reads up to twice JWK_CHARS: a text is read around its first JWK_HITS only (a JWKS
  // file holds a few keys), so that one made of `"kty"` costs linear time.
  const seen = found.readTo.get('jwk') ?? 0;
  if (seen >= JWK_HITS) return -1;
  found.readTo.set('jwk', seen + 1);
  const from = Math.max(0, at - JWK_CHARS);
  const back = text.slice(from, at).lastIndexOf('{');
  const open = back === -1 ? -1 : from + back;
  if (open === -1 || text.slice(open, at).includes('}')) return -1;
  const ahead = text.slice(at, at + JWK_CHARS).indexOf('}');
  if (ahead === -1) return -1;
  const close = at + ahead;
  const object = text.slice(open, close);
  let hit = false;
  JWK_PRIVATE.lastIndex = 0;
  for (let m = JWK_PRIVATE.exec(object); m !== null; m = JWK_PRIVATE.exec(object)) {
    const r = m.indices?.[1];
    if (r === undefined) continue;
    found.add(open + r[0], open + r[1], 'private_key', PRIORITY.key);
    hit = true;
  }
  return hit ? close : -1;
};

export function registerKeyMarkers(scanner: LiteralScanner): void {
  scanner.add('"kty"', jwkPrivate);
  for (const name of ['priv:', 'privateExponent:', 'prime1:', 'prime2:', 'exponent1:', 'exponent2:', 'coefficient:']) scanner.add(name, textKey);
  scanner.add('LS0tLS1CRUdJTi', encodedPem);
  scanner.add('-----BEGIN ', pemBlock, { boundary: false });
  scanner.add('-----END ', bodyBeforeEnd, { boundary: false });
  scanner.add('Private-Lines:', puttyKey);
}

/** Key bodies printed with no marker at all: a line pass of its own (no literal to start from). */
export function findHeadlessKeys(text: string, found: Findings): void {
  if (text.length >= MIN_WIDTH * MIN_HEADLESS_LINES) headlessBodies(text, found);
}
