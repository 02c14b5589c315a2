/**
 * The redactor every string passes before it reaches the store or the socket (SPEC §9).
 *
 * Linear time is a design rule, not a hope: every built-in pattern starts with a literal (so the
 * regex engine skips ahead with a fast string search) and uses only bounded or possessive-like
 * repetition that cannot backtrack over its own input. The two rules that have no literal
 * anchor — `NAME=value` pairs and base64 blobs — are hand-written scanners that visit each
 * character a bounded number of times. Patterns from config are checked for the constructs that
 * make a backtracking engine blow up (nested quantifiers, backreferences, lookaround) and refused.
 */

export interface RedactionPattern {
  name: string;
  pattern: string;
  flags?: string;
}

export interface RedactResult {
  text: string;
  count: number;
}

interface Rule {
  kind: string;
  re: RegExp;
  /** Which capture group holds the secret; 0 = the whole match. Text around it is kept. */
  group: number;
  /**
   * Literals every match contains. A text without any of them skips the rule: one fast
   * substring search instead of a regex pass (most text holds no credential at all).
   */
  needles?: readonly string[];
  /** The needles are lower case and matched against the lower-cased text. */
  caseless?: boolean;
}

const BUILTIN: readonly Rule[] = [
  { kind: 'github_token', re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/g, group: 0, needles: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'] },
  { kind: 'github_token', re: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g, group: 0, needles: ['github_pat_'] },
  { kind: 'gitlab_token', re: /\bglpat-[A-Za-z0-9_-]{20,255}/g, group: 0, needles: ['glpat-'] },
  { kind: 'slack_token', re: /\bxox[abposre]-[A-Za-z0-9-]{10,255}/g, group: 0, needles: ['xox'] },
  { kind: 'slack_webhook', re: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9_/-]{20,200}/g, group: 0, needles: ['hooks.slack.com'] },
  { kind: 'stripe_key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}\b/g, group: 0, needles: ['k_live_', 'k_test_'] },
  { kind: 'stripe_key', re: /\bwhsec_[A-Za-z0-9]{24,255}\b/g, group: 0, needles: ['whsec_'] },
  { kind: 'npm_token', re: /\bnpm_[A-Za-z0-9]{36}\b/g, group: 0, needles: ['npm_'] },
  { kind: 'anthropic_key', re: /\bsk-ant-[A-Za-z0-9]{2,12}-[A-Za-z0-9_-]{20,255}/g, group: 0, needles: ['sk-ant-'] },
  { kind: 'openai_key', re: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,255}/g, group: 0, needles: ['sk-'] },
  { kind: 'google_api_key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, group: 0, needles: ['AIza'] },
  { kind: 'aws_access_key_id', re: /\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[0-9A-Z]{16}\b/g, group: 0, needles: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AROA', 'AIDA'] },
  {
    kind: 'aws_secret_access_key',
    re: /aws_?secret_?(?:access_?)?key["']?\s{0,4}[:=]\s{0,4}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    group: 1,
    needles: ['secret'],
    caseless: true,
  },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,4096}/g, group: 0, needles: ['eyJ'] },
  { kind: 'bearer', re: /\b(?:Authorization|Proxy-Authorization)["']?\s{0,4}[:=]\s{0,4}["']?(?:Bearer|Basic|Token|token)\s{1,4}([A-Za-z0-9._~+/=-]{8,4096})/gi, group: 1, needles: ['authorization'], caseless: true },
  { kind: 'bearer', re: /\bBearer\s{1,4}([A-Za-z0-9._~+/-]{20,4096}=*)/g, group: 1, needles: ['Bearer'] },
  // scheme://user:password@host — only the password goes.
  { kind: 'url_password', re: /\b[a-zA-Z][a-zA-Z0-9+.-]{0,20}:\/\/[^\s:/@"'<>]{1,256}:([^\s@/"'<>]{1,256})@/g, group: 1, needles: ['://'] },
];

/** The word in a name that marks its value as secret. */
const SECRET_NAME = /secret|token|passw(?:or)?d|api_?key|apikey|private_?key|credentials?|client_?secret/gi;
const NAME_CHAR = /[A-Za-z0-9_.-]/;
const MAX_NAME_CHARS = 64;
const MAX_VALUE_CHARS = 4096;
/** Quotes escaped this many levels deep (JSON inside JSON inside JSON) are still recognised. */
const MAX_ESCAPES = 7;

const PRIVATE_KEY_BEGIN = /-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;
const PRIVATE_KEY_END = /-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;

const BASE64_MIN_CHARS = 512;

/**
 * Prefilters: one regex pass each over a text, so the common text that holds no credential at
 * all costs three scans instead of a pass per rule. Every literal that starts a case-sensitive
 * rule is in LITERAL_TRIGGER; every name a caseless rule or the pair scanner keys on is in
 * NAME_TRIGGER (a unit test checks every kind still gets through).
 */
const LITERAL_TRIGGER = /\b(?:gh[pousr]_|github_pat_|glpat-|xox[abposre]-|[sr]k_(?:live|test)_|whsec_|npm_|sk-|AIza|A(?:KIA|SIA|BIA|CCA|ROA|IDA)|eyJ)|hooks\.slack\.com|Bearer|:\/\/[^\s:/@"'<>]{1,256}:[^\s@/"'<>]{1,256}@/;
const NAME_TRIGGER = /secret|token|passw(?:or)?d|api_?key|apikey|private_?key|credential|authorization/i;

const tag = (kind: string): string => `[REDACTED:${kind}]`;

export class Redactor {
  private readonly custom: Rule[];

  constructor(patterns: readonly RedactionPattern[] = []) {
    this.custom = patterns.map((p) => {
      const problem = unsafePatternReason(p.pattern);
      if (problem) throw new Error(`redaction pattern "${p.name}" is not linear-time: ${problem}`);
      const flags = new Set((p.flags ?? '').split(''));
      flags.add('g');
      return { kind: p.name, re: new RegExp(p.pattern, [...flags].join('')), group: 0 };
    });
  }

  redact(input: string): RedactResult {
    if (input.length === 0) return { text: input, count: 0 };
    let text = input;
    let count = 0;
    const pk = redactPrivateKeys(text);
    text = pk.text;
    count += pk.count;
    const literals = LITERAL_TRIGGER.test(text);
    const names = NAME_TRIGGER.test(text);
    if (literals || names) {
      let lower: string | null = null;
      for (const rule of BUILTIN) {
        if (rule.caseless ? !names : !literals) continue;
        if (rule.needles) {
          const hay = rule.caseless ? (lower ??= text.toLowerCase()) : text;
          if (!containsAny(hay, rule.needles)) continue;
        }
        const r = applyRule(text, rule);
        if (r.count > 0) lower = null;
        text = r.text;
        count += r.count;
      }
    }
    if (names) {
      const pairs = redactPairs(text);
      text = pairs.text;
      count += pairs.count;
    }
    for (const rule of this.custom) {
      const r = applyRule(text, rule);
      text = r.text;
      count += r.count;
    }
    if (text.length >= BASE64_MIN_CHARS) text = collapseBase64(text);
    return { text, count };
  }
}

function containsAny(hay: string, needles: readonly string[]): boolean {
  for (const n of needles) if (hay.includes(n)) return true;
  return false;
}

function applyRule(text: string, rule: Rule): RedactResult {
  rule.re.lastIndex = 0;
  let count = 0;
  const out = text.replace(rule.re, (match: string, ...rest: unknown[]) => {
    if (match.includes('[REDACTED:')) return match;
    count += 1;
    if (rule.group === 0) return tag(rule.kind);
    const secret = rest[rule.group - 1];
    if (typeof secret !== 'string' || secret.length === 0) return match;
    const at = match.lastIndexOf(secret);
    return match.slice(0, at) + tag(rule.kind) + match.slice(at + secret.length);
  });
  return { text: out, count };
}

/** Whole PEM private key blocks; a block with no END line is cut to the end of the text. */
function redactPrivateKeys(text: string): RedactResult {
  if (!text.includes('PRIVATE KEY')) return { text, count: 0 };
  let out = '';
  let pos = 0;
  let count = 0;
  PRIVATE_KEY_BEGIN.lastIndex = 0;
  for (;;) {
    PRIVATE_KEY_BEGIN.lastIndex = pos;
    const begin = PRIVATE_KEY_BEGIN.exec(text);
    if (!begin) break;
    PRIVATE_KEY_END.lastIndex = begin.index + begin[0].length;
    const end = PRIVATE_KEY_END.exec(text);
    out += text.slice(pos, begin.index) + tag('private_key');
    count += 1;
    pos = end ? end.index + end[0].length : text.length;
  }
  return { text: out + text.slice(pos), count };
}

function isNameChar(c: string | undefined): boolean {
  return c !== undefined && NAME_CHAR.test(c);
}

/**
 * `NAME=value`, `NAME: value`, `"name": "value"` and `name = 'value'` where the name says
 * SECRET/TOKEN/PASSWORD/PASSWD/API_KEY/PRIVATE_KEY. A scanner rather than one regex: from each
 * keyword hit it walks left over the name (bounded), right to the separator and over the value.
 */
function redactPairs(text: string): RedactResult {
  SECRET_NAME.lastIndex = 0;
  let out = '';
  let pos = 0;
  let count = 0;
  for (let m = SECRET_NAME.exec(text); m !== null; m = SECRET_NAME.exec(text)) {
    const kwEnd = m.index + m[0].length;
    // Name: the identifier around the keyword.
    let nameStart = m.index;
    while (nameStart > pos && m.index - nameStart < MAX_NAME_CHARS && isNameChar(text[nameStart - 1])) nameStart -= 1;
    let nameEnd = kwEnd;
    while (nameEnd < text.length && nameEnd - kwEnd < MAX_NAME_CHARS && isNameChar(text[nameEnd])) nameEnd += 1;
    // Plural counters (max_tokens, input_tokens) are numbers about tokens, not tokens.
    if (/^s(?![A-Za-z])/i.test(text.slice(kwEnd, kwEnd + 2)) && /token$/i.test(m[0])) {
      SECRET_NAME.lastIndex = nameEnd;
      continue;
    }
    let i = nameEnd;
    const quotedName = text[nameStart - 1] === '"' || text[nameStart - 1] === "'";
    if (quotedName) i = afterQuote(text, i);
    let spaces = 0;
    while (i < text.length && (text[i] === ' ' || text[i] === '\t') && spaces < 4) (i += 1), (spaces += 1);
    const sep = text[i];
    if (sep !== '=' && sep !== ':') {
      SECRET_NAME.lastIndex = Math.max(nameEnd, kwEnd);
      continue;
    }
    i += 1;
    spaces = 0;
    while (i < text.length && (text[i] === ' ' || text[i] === '\t') && spaces < 4) (i += 1), (spaces += 1);
    const value = scanValue(text, i);
    const raw = value === null ? '' : text.slice(value.start, value.end);
    if (!value || !looksSecret(raw) || (!value.quoted && looksLikeCode(raw, text.slice(nameStart, nameEnd)))) {
      SECRET_NAME.lastIndex = Math.max(nameEnd, kwEnd);
      continue;
    }
    out += text.slice(pos, value.start) + tag('secret_assignment');
    count += 1;
    pos = value.end;
    SECRET_NAME.lastIndex = value.end;
  }
  return { text: count === 0 ? text : out + text.slice(pos), count };
}

/** Past a closing quote at `i`, escaped or not (`"`, `\"`, `\\\"`), else `i` itself. */
function afterQuote(text: string, i: number): number {
  let j = i;
  while (text[j] === '\\' && j - i < MAX_ESCAPES) j += 1;
  return text[j] === '"' || text[j] === "'" ? j + 1 : i;
}

function scanValue(text: string, start: number): { start: number; end: number; quoted: boolean } | null {
  let escapes = 0;
  while (text[start + escapes] === '\\' && escapes < MAX_ESCAPES) escapes += 1;
  const eq = text[start + escapes];
  if (escapes > 0 && (eq === '"' || eq === "'")) return scanEscapedValue(text, start, escapes);
  const q = text[start];
  if (q === '"' || q === "'") {
    let j = start + 1;
    while (j < text.length && j - start < MAX_VALUE_CHARS && text[j] !== q && text[j] !== '\n') {
      if (text[j] === '\\') j += 1;
      j += 1;
    }
    if (text[j] !== q) return null;
    return j > start + 1 ? { start: start + 1, end: j, quoted: true } : null;
  }
  let j = start;
  while (j < text.length && j - start < MAX_VALUE_CHARS && !/[\s"',;)}\]]/.test(text[j] as string)) j += 1;
  return j > start ? { start, end: j, quoted: false } : null;
}

/**
 * A value quoted inside a string that was itself JSON-encoded (a tool call's input, a patch):
 * `\"api_key\": \"value\"`. It ends at the same run of backslashes and the same quote.
 */
function scanEscapedValue(text: string, start: number, escapes: number): { start: number; end: number; quoted: boolean } | null {
  const close = `${'\\'.repeat(escapes)}${text[start + escapes] ?? ''}`;
  const from = start + escapes + 1;
  for (let j = from; j < text.length && j - from < MAX_VALUE_CHARS && text[j] !== '\n'; j += 1) {
    if (text.startsWith(close, j)) return j > from ? { start: from, end: j, quoted: true } : null;
  }
  return null;
}

/**
 * An unquoted value that is source code, not a literal: a reference to a variable named like the
 * key (`"token": token`, `api_key=self.api_key`) or an identifier opening a call, an index or a
 * type (`token_parts: List[str]`, `password = getpass(`, `secret=os.environ[`). Quoted values are
 * literals and never pass as code.
 */
function looksLikeCode(v: string, name: string): boolean {
  if (/^[A-Za-z_$][\w$.]*[[(<]/.test(v)) return true;
  const last = (s: string): string => s.slice(s.lastIndexOf('.') + 1).toLowerCase();
  return /^[A-Za-z_$][\w$.]*$/.test(v) && last(v) === last(name);
}

/** Values that are evidently not credentials: numbers, booleans, empty, placeholders, references. */
function looksSecret(v: string): boolean {
  if (v.length < 4) return false;
  if (/^(?:\d+(?:\.\d+)?|true|false|null|none|undefined|required|optional|string|number|boolean)$/i.test(v)) return false;
  // `<your key here>` is cut at its first space: an opening `<` with no `>` is a placeholder too.
  if (/^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>?|\*+|x+|\.\.\.|…)$/i.test(v)) return false;
  if (v.startsWith('[REDACTED:')) return false;
  return true;
}

function isB64(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
}

/** Sampling step: any run of BASE64_MIN_CHARS contains a sample when the step is no longer. */
const BASE64_STRIDE = 256;

/**
 * Long base64 runs (inline images, archives, keys) become a size note: never copied. Finding
 * them samples every BASE64_STRIDE-th character and measures the run around a sample only when
 * it lands on a base64 character: ordinary text costs a few steps per 256 characters.
 */
function collapseBase64(text: string): string {
  const n = text.length;
  let out = '';
  let pos = 0;
  let i = 0;
  while (i < n) {
    if (!isB64(text.charCodeAt(i))) {
      i += BASE64_STRIDE;
      continue;
    }
    let start = i;
    while (start > pos && isB64(text.charCodeAt(start - 1))) start -= 1;
    let end = i + 1;
    while (end < n && isB64(text.charCodeAt(end))) end += 1;
    if (end - start >= BASE64_MIN_CHARS && mixed(text, start, end)) {
      let stop = end;
      while (stop < n && text.charCodeAt(stop) === 61 && stop - end < 2) stop += 1;
      out += text.slice(pos, start) + `[base64: ${Math.max(1, Math.round(((stop - start) * 3) / 4 / 1024))} KB omitted]`;
      pos = stop;
      end = stop;
    }
    i = end + 1;
  }
  return pos === 0 ? text : out + text.slice(pos);
}

/** Base64 of binary data mixes upper case, lower case and digits; long words and hex do not. */
function mixed(text: string, start: number, end: number): boolean {
  let upper = false;
  let lower = false;
  let digit = false;
  for (let j = start; j < end && !(upper && lower && digit); j += 1) {
    const c = text.charCodeAt(j);
    if (c >= 65 && c <= 90) upper = true;
    else if (c >= 97 && c <= 122) lower = true;
    else if (c >= 48 && c <= 57) digit = true;
  }
  return upper && lower && digit;
}

/**
 * Why a user-supplied pattern could take more than linear time on a backtracking engine, or
 * null when it is acceptable: no backreferences, no lookaround, no quantified group that itself
 * contains a quantifier (the `(a+)+` family).
 */
export function unsafePatternReason(pattern: string): string | null {
  try {
    new RegExp(pattern);
  } catch (e) {
    return `it does not compile (${(e as Error).message})`;
  }
  if (/\\[1-9]|\\k</.test(pattern)) return 'it uses a backreference';
  if (/\(\?<?[=!]/.test(pattern)) return 'it uses lookaround';
  // Track, per open group, whether it contains a quantifier.
  const stack: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (c === '\\') {
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') stack.push(false);
    else if (c === ')') {
      const hadQuantifier = stack.pop() ?? false;
      const next = pattern[i + 1];
      const quantified = next === '*' || next === '+' || next === '?' || next === '{';
      if (hadQuantifier && quantified && next !== '?') return 'it repeats a group that already repeats (nested quantifier)';
      if (stack.length > 0 && (hadQuantifier || quantified)) stack[stack.length - 1] = true;
    } else if ((c === '*' || c === '+' || c === '{') && stack.length > 0) stack[stack.length - 1] = true;
  }
  return null;
}
