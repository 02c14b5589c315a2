import type { Findings } from './findings.js';
import type { LiteralScanner } from './literals.js';
import { looksRandom } from './randomness.js';

/**
 * Credentials written in an encoding: percent-encoded in a URL's query or a proxy setting
 * (`next=https%3A%2F%2Fadmin%3A…%40grafana…`, `payload=%7B%22password%22%3A%22…`), and base64
 * (a Kubernetes Secret's `data`, `base64 -w0 .env`, `echo -n "user:$PASS" | base64`, an SMTP
 * `AUTH LOGIN` exchange). The rules read text as written; here such a run is decoded and read
 * again by them (`rescan`). What they find in a percent-encoded run is cut from the run where it
 * was encoded; a base64 run that decodes to a credential, or to printable text holding a word that
 * looks generated, is cut whole.
 *
 * Pure and linear: each character is read once by the scans, and each candidate run once more
 * when decoded. Base64 of data (a hash, an image, a nonce) decodes to bytes that are not text:
 * the chance that twelve random bytes are all printable is under one in a hundred thousand, so
 * ids and digests are passed over before any rule reads them.
 */

export interface EncodedSpan {
  start: number;
  end: number;
  kind: string;
}

type Rescan = (decoded: string) => readonly { start: number; end: number; kind: string }[];

/** A run shorter than this encodes fewer than 12 bytes (a password of letters alone is longer). */
const B64_MIN = 16;
/** Longer runs are data: the collapse of long base64 (base64.ts) replaces them anyway. */
const B64_MAX = 4096;
/** A percent-encoded run longer than a URL is data (an encoded document), not read. */
const PERCENT_MAX = 8192;
/** Shortest generated-looking word in decoded text (`Qw8Lm3Xz7Rt`). */
const DECODED_RANDOM_MIN = 10;

/**
 * Base64 runs are decoded only in a text that speaks of base64 or of a secret (`base64 -d`,
 * `b64decode`, `atob`, SMTP's `AUTH LOGIN`, IMAP's `AUTHENTICATE`, `kubectl get secret`, a
 * `Basic ` value, `…_ENCODED`, EC2's `UserData`, a ConfigMap's `binaryData`, `.dockerconfigjson`,
 * `openssl enc -d`), or that holds base64 of JSON (`eyJ…`): reading every run of every
 * text cost the redactor a quarter of its speed, and a credential encoded with no such word near
 * it is left to the rules that read it decoded. The scanner's one pass finds these words.
 */
const BASE64_WORDS = ['base64', 'Base64', 'BASE64', 'b64', 'B64', 'atob', 'secret', 'Secret', 'SECRET', 'AUTH ', 'AUTHENTICATE', 'Basic ', 'BASIC_', 'ENCODED', 'Encoded', 'encoded', 'UserData', 'userData', 'binaryData', 'dockerconfigjson', 'enc -d',
  // Base64 of JSON (`{"` encodes so): a Docker config, a service account, an OAuth state, ECR's login password.
  'eyJ'];

/**
 * Registered before every other rule: the first handler to take a hit ends the walk there, and
 * this one never takes it. Each word as it is written (a rule's literal found as written is
 * walked before any found in any case).
 */
export function registerEncoded(scanner: LiteralScanner): void {
  const hint = (_text: string, _at: number, found: Findings): number => {
    found.base64Hint = true;
    return -1;
  };
  for (const w of BASE64_WORDS) scanner.add(w, hint, { boundary: false });
}

/** `base64`: the text's base64 runs too (the scan found a word that makes them worth decoding). */
export function encodedSpans(text: string, base64: boolean, rescan: Rescan): EncodedSpan[] {
  const out: EncodedSpan[] = [];
  if (base64 && text.length >= B64_MIN) base64Runs(text, rescan, out);
  if (text.includes('%')) percentRuns(text, rescan, out);
  return out;
}

/**
 * Each ASCII character's class for a base64 run: 0 none, 1 upper case, 2 lower case, 3 digit, `+`
 * or `/`, and base64url's `-` and `_` (Buffer's decoder reads both alphabets).
 */
const B64_CLASS = new Uint8Array(128);
for (let c = 65; c <= 90; c += 1) B64_CLASS[c] = 1;
for (let c = 97; c <= 122; c += 1) B64_CLASS[c] = 2;
for (let c = 48; c <= 57; c += 1) B64_CLASS[c] = 3;
for (const c of [43, 47, 45, 95]) B64_CLASS[c] = 3;

/** A character that joins a run to something around it (padding beyond two, a percent escape, a backslash escape): the run is part of something longer. */
function joins(c: number): boolean {
  return (c < 128 && B64_CLASS[c] !== 0) || c === 61 || c === 37 || c === 92;
}

function base64Runs(text: string, rescan: Rescan, out: EncodedSpan[]): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const start = i;
    // Which classes the run holds, as bits: 2 upper, 4 lower, 8 digit or sign.
    let seen = 0;
    for (let c = text.charCodeAt(i); c < 128 && B64_CLASS[c] !== 0; c = text.charCodeAt(i)) {
      seen |= 1 << (B64_CLASS[c] as number);
      i += 1;
    }
    if (i - start < B64_MIN - 2) {
      i += 1;
      continue;
    }
    const runEnd = i;
    let end = i;
    while (end < n && end - runEnd < 2 && text.charCodeAt(end) === 61) end += 1;
    const len = end - start;
    i = end + 1;
    // Mixed case, and a digit, a sign or padding: a long word or a name in camel case has none.
    // Unpadded (base64url in a URL or a JWT-like blob) a length of one more than a multiple of four is no base64.
    if (len < B64_MIN || len > B64_MAX || len % 4 === 1 || (len % 4 !== 0 && end > runEnd) || (seen & 6) !== 6 || ((seen & 8) === 0 && end === runEnd)) continue;
    // zsh marks output with no final line break by a `%` (`kubectl … -o go-template=…` then `==%`).
    const zshMark = text.charCodeAt(end) === 37 && (end + 1 === n || text.charCodeAt(end + 1) === 10 || text.charCodeAt(end + 1) === 34);
    // A value after `=` (`state=eyJ…`, `ENV_FILE=…`) stands alone; after a word's character it is part of the word.
    if ((start > 0 && joins(text.charCodeAt(start - 1)) && text.charCodeAt(start - 1) !== 61) || (end < n && joins(text.charCodeAt(end)) && !zshMark)) continue;
    const decoded = printable(Buffer.from(text.slice(start, end), 'base64'));
    if (decoded === null) continue;
    if (rescan(decoded).length > 0 || generatedWord(decoded)) out.push({ start, end, kind: 'base64_credential' });
  }
}

/**
 * The bytes as text when every one is printable ASCII, a line's spacing or a NUL (SASL PLAIN's
 * separator: `\0user\0password`, read as a space), and there are enough of them.
 */
function printable(bytes: Buffer): string | null {
  if (bytes.length < 10) return null;
  for (const b of bytes) if (!((b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d || b === 0)) return null;
  return bytes.toString('latin1').replace(/\0/g, ' ');
}

/** Why encode a word that looks generated, but to hand it over as a credential (`user:Kx9…`, a password alone). */
function generatedWord(decoded: string): boolean {
  for (const piece of decoded.split(/[\s:=,;"'{}()[\]<>|@/]+/)) if (looksRandom(piece, DECODED_RANDOM_MIN)) return true;
  return false;
}

/**
 * Percent escapes of the characters that make a credential's syntax: `"`, `&`, `/`, `:`, `=`, `?`,
 * `@`, `{`; of `%` itself (encoded twice); of a space (`Bearer%20…`) and of `_` in a parameter's
 * name (`api%5Fkey=`).
 */
function structural(code: number): boolean {
  return code === 0x20 || code === 0x5f || code === 0x22 || code === 0x25 || code === 0x26 || code === 0x2f || code === 0x3a || code === 0x3d || code === 0x3f || code === 0x40 || code === 0x7b;
}

function hex(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** `text[start, end)` with its percent escapes decoded, and for each decoded character (and the end) where it starts in `text`. */
function decodeRun(text: string, start: number, end: number, query: boolean): { decoded: string; origin: number[] } {
  let decoded = '';
  const origin: number[] = [];
  for (let j = start; j < end; j += 1) {
    origin.push(j);
    const hi = text.charCodeAt(j) === 37 && j + 2 < end ? hex(text.charCodeAt(j + 1)) : -1;
    const lo = hi >= 0 ? hex(text.charCodeAt(j + 2)) : -1;
    if (lo >= 0) {
      decoded += String.fromCharCode((hi << 4) | lo);
      j += 2;
    } else decoded += query && text[j] === '+' ? ' ' : text[j];
  }
  origin.push(end);
  return { decoded, origin };
}

/** Ends a percent-encoded run: space, a quote, a bracket that closes a link. */
function endsRun(c: number): boolean {
  return c <= 32 || c === 34 || c === 39 || c === 96 || c === 60 || c === 62 || c === 41 || c === 93;
}

function percentRuns(text: string, rescan: Rescan, out: EncodedSpan[]): void {
  let from = 0;
  // The end of the last run read: a run's start is looked for back to there, no further.
  let floor = 0;
  for (let at = text.indexOf('%', from); at !== -1 && at + 2 < text.length; at = text.indexOf('%', from)) {
    const hi = hex(text.charCodeAt(at + 1));
    const lo = hex(text.charCodeAt(at + 2));
    if (hi < 0 || lo < 0 || !structural((hi << 4) | lo)) {
      from = at + 1;
      continue;
    }
    let start = at;
    while (start > floor && !endsRun(text.charCodeAt(start - 1))) start -= 1;
    let end = at;
    while (end < text.length && !endsRun(text.charCodeAt(end))) end += 1;
    from = end;
    floor = end;
    if (end - start > PERCENT_MAX) continue;
    // The run decoded, and where each of its characters came from; in a query a `+` is a space.
    // Encoded twice (`%253D`, a URL inside a URL's parameter): decoded once more.
    const query = /[?&=]/.test(text.slice(start, end));
    const once = decodeRun(text, start, end, query);
    const twice = /%(?:2[26Ff]|3[AaDdFf]|40|7[Bb])/.test(once.decoded) ? decodeRun(once.decoded, 0, once.decoded.length, query) : null;
    const decoded = twice === null ? once.decoded : twice.decoded;
    const origin = twice === null ? once.origin : twice.origin.map((k) => once.origin[k] as number);
    for (const s of rescan(decoded)) out.push({ start: origin[s.start] as number, end: origin[Math.min(s.end, origin.length - 1)] as number, kind: s.kind });
  }
}
