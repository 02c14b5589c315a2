import { sha256Hex } from './canonical.js';
import { Memo } from './memo.js';
import { unsafePatternReason } from './pattern-safety.js';
import { argvSpans } from './redaction/argv.js';
import { BASE64_MIN_CHARS, collapseBase64 } from './redaction/base64.js';
import { registerCommands } from './redaction/commands.js';
import { encodedSpans, registerEncoded } from './redaction/encoded.js';
import type { Kept, Span } from './redaction/findings.js';
import { applySpans, Findings, inputSpans, PRIORITY } from './redaction/findings.js';
import { findHeadlessKeys, registerKeyMarkers } from './redaction/keys.js';
import { findForeignLabelled, registerLanguages } from './redaction/languages.js';
import { LiteralScanner } from './redaction/literals.js';
import { registerNames } from './redaction/pairs.js';
import { registerProviders } from './redaction/providers.js';
import { registerRecords } from './redaction/records.js';
import { registerUrls } from './redaction/urls.js';
import { decodedView } from './redaction/view.js';
import { printedSecrets } from './redaction/printed.js';

/**
 * The redactor every string passes before it reaches the store, the socket, the log or the
 * terminal (SPEC §9; docs/SECURITY.md says what it removes and what it does not).
 *
 * It reads a decoded view of the text (every JSON and shell escape read as the character it
 * stands for, at any depth of nesting), so a credential after `\n` or inside JSON inside JSON is
 * found as if it stood at the start of a line; the ranges it finds are cut from the text as
 * given, widened to whole escape sequences. Detectors, by priority where they overlap: provider
 * credentials by prefix, key material, credentials in URLs, command-line and header passwords,
 * values known by their label, then the patterns from config.
 *
 * Linear time is a design rule, not a hope: every built-in pattern starts at a literal (one pass
 * of the literal scanner finds them all) and uses only bounded repetition that cannot backtrack
 * over its own input; the rules with no literal anchor (labels, key bodies without markers) are
 * hand-written scanners that visit each character a bounded number of times. Patterns from
 * config are checked for the constructs that make a backtracking engine blow up (nested
 * quantifiers, backreferences, lookaround) and refused.
 */

export interface RedactionPattern {
  name: string;
  pattern: string;
  flags?: string;
}

export type { Kept, Span as Finding } from './redaction/findings.js';

export interface RedactResult {
  text: string;
  count: number;
  /**
   * The secret words of what was removed (`STRIPE_WEBHOOK_SECRET=` then a word the redactor may
   * not know alone, in prose): a later text may repeat them bare, and the session remembers them to
   * mask them there (src/core/ingest.ts).
   */
  bare?: readonly string[];
}

/** Every rule that starts from a literal: providers, key markers, URLs, commands, headers and names. */
const LITERALS = new LiteralScanner();
registerEncoded(LITERALS);
registerProviders(LITERALS);
registerKeyMarkers(LITERALS);
registerUrls(LITERALS);
registerLanguages(LITERALS);
registerCommands(LITERALS);
registerNames(LITERALS);
registerRecords(LITERALS);

interface CustomRule {
  kind: string;
  re: RegExp;
}

/**
 * Short texts repeat: every line names its kind, its tool, its call id, and a session's few tool
 * names and kinds come back thousands of times. Their results are remembered (the redactor is a
 * pure function of its rules and the text). A long text comes back right after itself or not at
 * all (a tool's output is both a turn and its result's fact; Codex writes an agent's message as
 * a response item and again as an event): only the last one is remembered.
 */
const MEMO_MAX_CHARS = 96;
const MEMO_ENTRIES = 4096;

export class Redactor {
  private readonly custom: CustomRule[];
  private readonly memo = new Memo<RedactResult>(MEMO_ENTRIES);
  private lastLong = '';
  private lastLongResult: RedactResult = { text: '', count: 0 };

  constructor(patterns: readonly RedactionPattern[] = []) {
    this.custom = patterns.map((p) => {
      const problem = unsafePatternReason(p.pattern, p.flags);
      if (problem) throw new Error(`redaction pattern "${p.name}" cannot be used: ${problem}`);
      const flags = new Set((p.flags ?? '').split(''));
      flags.add('g');
      return { kind: p.name, re: new RegExp(p.pattern, [...flags].join('')) };
    });
  }

  redact(input: string): RedactResult {
    if (input.length === 0) return { text: input, count: 0 };
    if (input.length > MEMO_MAX_CHARS) {
      if (input === this.lastLong) return this.lastLongResult;
      const r = Object.freeze(this.redactNow(input));
      this.lastLong = input;
      this.lastLongResult = r;
      return r;
    }
    return this.memo.get(input, (t) => Object.freeze(this.redactNow(t)));
  }

  private redactNow(input: string): RedactResult {
    const spans = this.find(input);
    const text = spans.length === 0 ? input : applySpans(input, spans);
    const out: RedactResult = { text: text.length >= BASE64_MIN_CHARS ? collapseBase64(text) : text, count: spans.length };
    let bare: string[] | undefined;
    // Every secret word of what was removed: one the redactor knows alone is redacted again before
    // any mask is looked for, so remembering it too costs nothing but its digest.
    for (const s of spans) for (const w of printedSecrets(input.slice(s.start, s.end))) (bare ??= []).push(w);
    return bare === undefined ? out : { ...out, bare };
  }

  /** Where the credentials in `input` are, and of which kind (what `redact` replaces). */
  find(input: string): Span[] {
    return this.audit(input, false).found;
  }

  /**
   * `find`, and also the values that stood after a secret-naming label but were kept, with the
   * reason (code, a placeholder, ...), all in input coordinates: what the false-positive measure
   * of `npm run bench` and the classified corpus sample read.
   */
  audit(input: string, withKept = true): { found: Span[]; kept: Kept[] } {
    return this.scanText(input, withKept, true);
  }

  /**
   * `argv`: also read the argument arrays in the text as the command lines they are, and its
   * percent-encoded and base64 runs decoded (not within one of them).
   */
  private scanText(input: string, withKept: boolean, argv: boolean): { found: Span[]; kept: Kept[] } {
    const view = decodedView(input);
    const text = view.text;
    const found = new Findings(text, withKept);
    LITERALS.scan(text, found);
    findHeadlessKeys(text, found);
    findForeignLabelled(text, found);
    if (argv) for (const s of argvSpans(text, (line) => this.scanText(line, false, false).found)) found.add(s.start, s.end, s.kind, PRIORITY.command);
    // Decoded text is read once, not decoded again (base64 within base64 is data); a rule that
    // read the text as written names what it found.
    if (argv) for (const s of encodedSpans(text, found.base64Hint, (decoded) => this.scanText(decoded, false, false).found)) found.add(s.start, s.end, s.kind, PRIORITY.custom);
    for (const rule of this.custom) {
      rule.re.lastIndex = 0;
      for (let m = rule.re.exec(text); m !== null; m = rule.re.exec(text)) {
        if (m[0].length === 0) {
          rule.re.lastIndex += 1;
          continue;
        }
        found.add(m.index, m.index + m[0].length, rule.kind, PRIORITY.custom);
      }
    }
    const kept = (found.kept ?? []).map((k) => {
      const [start, end] = view.source(k.start, k.end);
      return { ...k, at: view.source(k.at, k.at + 1)[0], start, end };
    });
    return { found: found.size === 0 ? [] : inputSpans(view, found), kept };
  }

  /** A copy of a JSON-like value with every string in it redacted (socket answers, log records). */
  redactValue<T>(value: T): T {
    return redactDeep(this, value, 0) as T;
  }
}

/**
 * Text that is one JSON document (a log record, a socket message), redacted and still the same
 * JSON. A tag never holds a quote or a backslash, so cutting a credential out of the encoded text
 * keeps it valid; should a range ever cross the document's own syntax, the document is parsed,
 * redacted value by value, and encoded again.
 */
export function redactJsonText(r: Redactor, text: string): string {
  const out = r.redact(text);
  if (out.count === 0) return out.text;
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  try {
    JSON.parse(out.text);
    return out.text;
  } catch {
    try {
      return `${JSON.stringify(r.redactValue(JSON.parse(body)))}${body === text ? '' : '\n'}`;
    } catch {
      return out.text;
    }
  }
}

/**
 * A name that becomes an id or a folder (a transcript's file name, a `session` field): redacted,
 * then told apart from other redacted names by a short hash of the original, so transcripts
 * named after two different tokens stay two sessions. The hash (32 bits of SHA-256) reveals
 * nothing usable about the credential.
 */
export function redactName(r: Redactor, name: string): string {
  const out = r.redact(name);
  return out.count === 0 ? name : `${out.text}-${sha256Hex(name).slice(0, 8)}`;
}

const MAX_DEPTH = 64;

function redactDeep(r: Redactor, v: unknown, depth: number): unknown {
  if (typeof v === 'string') return r.redact(v).text;
  if (v === null || typeof v !== 'object') return v;
  // Deeper than any record of ours: not shown, rather than shown unread.
  if (depth > MAX_DEPTH) return '[nested too deep to show]';
  if (Array.isArray(v)) return v.map((x) => redactDeep(r, x, depth + 1));
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return redactDeep(r, toJSON.call(v), depth + 1);
  if (v instanceof Error) {
    const plain: Record<string, unknown> = { type: v.name, message: r.redact(v.message).text };
    if (v.stack) plain.stack = r.redact(v.stack).text;
    for (const [k, x] of Object.entries(v)) plain[k] = redactDeep(r, x, depth + 1);
    return plain;
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[r.redact(k).text] = redactDeep(r, x, depth + 1);
  return out;
}

export { unsafePatternReason };
