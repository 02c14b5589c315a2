import type { Findings } from './findings.js';
import type { Handler, LiteralScanner } from './literals.js';
import { PRIORITY } from './findings.js';
import { LINE_NUMBER } from './keys.js';
import type { Strength, ValueContext } from './names.js';
import { BASE58_ADDRESS, CHAIN_NAME, isPlaceholder, keptBecause, nameWords, namesPassword, namesPin, namesSecretList, nameStrength } from './names.js';
import { entropy, looksGeneratedLower, looksRandom, UUID } from './randomness.js';
import { findPipeColumns, lineBounds, yamlLine } from './records.js';

/**
 * Secrets known by their label: `NAME=value`, `name: value`, `"name": "value"`, `--flag value`,
 * `<password>…</password>`, a credentials.csv row under its header, and a generated-looking value
 * within a few words after a label in prose ("the AWS secret key is …"). A scanner rather than
 * one pattern: from each hit of a secret word it walks over the name (bounded), judges the name by
 * its words, then reads the separator and the value. Each character is visited a bounded number
 * of times, and the scan moves past every name it judged.
 */

const MAX_NAME_CHARS = 64;
/** Longer than any credential a label stands before (keys and tokens have rules of their own). */
const MAX_VALUE_CHARS = 512;
/** Spaces around a separator: aligned config files pad names to a column (`password      = …`). */
const MAX_SPACES = 24;
/** A label and its value in prose: at most this far apart, and this many words. */
const LABEL_WINDOW_CHARS = 80;
const LABEL_WINDOW_TOKENS = 6;
/** Past a word that is no small link, a strong label's generated-looking value may be this many words on. */
const LABEL_WINDOW_TOKENS_FAR = 9;
const MAX_CSV_COLUMNS = 40;
const LINKING = new Set([
  'is', 'was', 'are', 'were', 'be', 'of', 'for', 'the', 'a', 'an', 'my', 'your', 'our', 'their', 'this', 'that', 'new', 'set', 'to', 'value', 'key', 'secret', 'token', 'id', 'access', 'here', 'its', 'as', 'with', 'using', 'use', 'now', 'string',
  // Which one it is: "the password for prod is …", "API token for staging: …".
  'on', 'in', 'at', 'prod', 'production', 'staging', 'stage', 'dev', 'test', 'local', 'live', 'server', 'database', 'db', 'account', 'user', 'admin', 'root',
  // What it is to become: "the REDIS_PASSWORD should be …", "will be", "must be", "becomes".
  'should', 'will', 'must', 'shall', 'can', 'becomes', 'stays', 'remains', 'still',
  // A key's permission between its name and its value: Azure's key listings as a table (`key1  FULL  …`).
  'full', 'read',
  // What became of it, and what a tool says of a wrong one: "the admin password has been set to …",
  // "was rotated to …", "should stay …", "wrong password, it is …", "use this password instead: …",
  // "Incorrect API key provided: …", "API key not valid: …", "token expired: …", "key mismatch,
  // expected …", "valid API key not found (got …)".
  'has', 'have', 'had', 'been', 'changed', 'updated', 'rotated', 'reset', 'into', 'stay', 'it', 'instead', 'provided', 'not', 'valid', 'invalid', 'expired', 'mismatch', 'expected', 'found', 'got', 'missing',
  // What it is now, and what it opens: "the DB password (currently …)", "It's now …", "pw for the vpn is …".
  'currently', 's', 'vpn', 'wifi', 'router', 'vm', 'box', 'machine', 'cluster', 'redis', 'postgres', 'mysql', 'mongo', 'grafana', 'jenkins', 'console', 'portal', 'dashboard',
  // The same links in the languages a team writes its notes in, around an English name ("Der API
  // Token ist …", "Le token GitHub est …", "El password de staging es …", "Das DB password lautet …").
  'ist', 'lautet', 'für', 'fur', 'von', 'vom', 'der', 'die', 'das', 'des', 'den', 'est', 'sont', 'pour', 'le', 'la', 'les', 'de', 'du', 'es', 'son', 'el', 'los', 'para', 'del', 'é', 'è', 'per', 'il', 'lo', 'är', 'er', 'jest', 'dla', 'je', 'voor', 'het', 'van', 'github', 'gitlab', 'aws', 'api', 'npm', 'pypi', 'slack', 'stripe',
]);
const MAX_CSV_ROWS = 200;

function isNameChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
}

/** Characters that end an unquoted value. */
function isStop(c: number): boolean {
  // whitespace " ' ` , ; ) } ] & < > |
  return c <= 32 || c === 34 || c === 39 || c === 96 || c === 44 || c === 59 || c === 41 || c === 125 || c === 93 || c === 38 || c === 60 || c === 62 || c === 124;
}

const isQuote = (c: string | undefined): c is string => c === '"' || c === "'" || c === '`';

/** `private key`, `secret access key`: the word before a bare `key` in prose belongs to the name. */
const PHRASE_HEAD = /(?:^|[^A-Za-z0-9])((?:secret[ \t]+)?(?:private|secret|api|access|auth|client|signing|encryption|master|account))[ \t]+$/i;

function countSpaces(text: string, i: number): number {
  let n = 0;
  // A no-break space too (a value pasted from a wiki page: `"password":\u00a0"…"`).
  while (n < MAX_SPACES && (text[i + n] === ' ' || text[i + n] === '\t' || text[i + n] === '\u00a0')) n += 1;
  return n;
}

interface Name {
  start: number;
  end: number;
  /** As written, without a flag's leading dashes. */
  text: string;
  strength: Exclude<Strength, null>;
  flag: boolean;
  /** Names a list of secrets (`SESSION_SECRETS`, `API_KEYS`): only its items that look generated are judged. */
  list?: true;
}

/** The words a secret's name contains, found in any letter case, inside names too (`dbPassword`). */
const KEYWORDS = ['pass', 'pw', 'secret', 'token', 'key', 'cred', 'auth', 'salt', 'pat', 'psk', 'macaroon', 'encrypt', 'pepper', 'pin', 'signing'];

/**
 * How a secret word may go on in lower case and still be one (`password`, `credentials`); any
 * other lower-case letter makes another word (`author`, `tokens`, `keyboard`, `passed`), which
 * is skipped before the name is even read.
 */
const isNameLetter = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

const GOES_ON: Readonly<Record<string, readonly string[]>> = {
  // A Wi-Fi passkey (the forty-third stop's second red team); not `passkeys`' list, nor WebAuthn's own word (a passkey holds no value to print).
  pass: ['word', 'wd', 'wort', 'phrase', 'code', 'key'],
  pw: ['d'],
  secret: [],
  token: [],
  key: ['pass', 'store'],
  cred: ['ential', 's'],
  // sssd's `ldap_default_authtok`.
  auth: ['token', 'key', 'tok'],
  salt: [],
  pat: [],
  psk: [],
  macaroon: [],
  // Consul's gossip key (`encrypt = "…"`); not `encrypted`, `encryption`.
  encrypt: [],
  // A password hasher's secret (Devise's `config.pepper`); not `peppered`.
  pepper: [],
  // A PIN (`SIM_PIN`, `pinCode`); not `ping`, `pinned`, `spinner`'s.
  pin: ['code'],
  signing: [],
};

/** Before `tokens`, the words of a list of credentials (`ADMIN_TOKENS`, `bearerTokens`); `max_tokens` and `input_tokens` count a model's words. */
const TOKENS_LIST = /(?:admin|auth|bearer|access|api|session|bot|service|deploy|refresh|personal|valid|allowed|webhook)[_-]?$/i;

function endsWord(text: string, at: number, word: string): boolean {
  const c = text.charCodeAt(at + word.length);
  if (!(c >= 97 && c <= 122)) return true;
  // A plural that ends there: a list of secrets (`signing_secrets`, `api_keys`, `bearerTokens`; names.ts).
  if (c === 115 && !isNameLetter(text.charCodeAt(at + word.length + 1)) && (word === 'secret' || word === 'key' || (word === 'token' && TOKENS_LIST.test(text.slice(Math.max(0, at - 9), at))))) return true;
  return (GOES_ON[word] ?? []).some((rest) => text.startsWith(rest, at + word.length) || text.slice(at + word.length, at + word.length + rest.length).toLowerCase() === rest);
}

/** The handler of one secret word (the scanner found it at `at`, in any letter case). */
const atKeyword = (word: string): Handler => (text, at, found) => {
  // No name here: the scan goes on at the next character, not past the word, which may end in a
  // provider's prefix glued to it (`stepsk-ant-…`: `psk` is a word of KEYWORDS, `sk-ant-` starts
  // inside it; the forty-first red team's token glued to a log's word).
  if (!endsWord(text, at, word)) return -1;
  const name = readName(text, at, word.length);
  if (!name) return -1;
  // A secret's name that says its value is encoded (`ANTHROPIC_KEY_ENCODED`, `GCP_SA_KEY_B64`): the
  // scan goes on after the name, past the word that would have asked for base64 to be decoded.
  if (!found.base64Hint && ENCODED_NAME.test(name.text)) found.base64Hint = true;
  // A name with a separator and a value was judged by that value; only a bare label looks further.
  if (findPair(text, name, found) === null) findNamedValue(text, name, found) ?? findPipeColumns(text, name.start, name.end, found) ?? findCsvColumns(text, name, found) ?? findLabelledValue(text, name, found);
  // The scan goes on right after the name: a value may hold a provider's own token.
  return name.end;
};

const ENCODED_NAME = /b64|base64|encoded/i;

/** How far before its `?"="` a question may name the secret. */
const QUESTION_CHARS = 200;

/**
 * Claude Code's answer to a question that names the secret before other words (`"Which
 * password should the seeded admin account use?"="…"`; one whose name ends it is read as a
 * name and its value): the question is the quoted string that ends at the hit, on its line; its
 * first secret-naming word is the name, and the answer is judged as that name's value.
 */
const atAnswer: Handler = (text, at, found) => {
  let open = at - 1;
  const first = Math.max(0, at - QUESTION_CHARS);
  while (open >= first && text[open] !== '"' && text[open] !== '\n') open -= 1;
  if (open < first || text[open] !== '"') return at + 4;
  const question = text.slice(open + 1, at).toLowerCase();
  for (const k of KEYWORDS) {
    if (k === 'pat') continue; // only in capitals, as a name (registerNames)
    for (let i = question.indexOf(k); i !== -1; i = question.indexOf(k, i + 1)) {
      const hit = open + 1 + i;
      if (hit > 0 && /[a-z0-9]/i.test(text[hit - 1] as string)) continue;
      if (!endsWord(text, hit, k)) continue;
      const name = readName(text, hit, k.length);
      if (name === null || name.end >= at) continue;
      const v = readValue(text, at + 3, '=');
      if (v === null) return at + 4;
      judged(name, v.start, v.runEnd ?? v.end, text.slice(v.start, v.end), contextOf(text, name, v, '=', false), found);
      return at + 4;
    }
  }
  return at + 4;
};

export function registerNames(scanner: LiteralScanner): void {
  scanner.add('?"="', atAnswer);
  for (const k of KEYWORDS) {
    // `pat` starts `path`, `pattern` and `patch` everywhere: a personal access token is named in
    // capitals (`GITHUB_PAT`), and only that is looked for.
    if (k === 'pat') scanner.add('PAT', atKeyword(k), { boundary: false });
    else scanner.add(k, atKeyword(k), { boundary: false, caseless: true });
  }
}

const REDACTED_TAG = '[REDACTED:';

/** The start of a PEM marker up to a word of its label. */
const PEM_MARKER_BEFORE = /-----(?:BEGIN|END) (?:[A-Z0-9]{1,12} ){0,4}$/;

const ARN_BEFORE = /(?:^|[\s"'=[(,])arn:[\w-]+:[\w-]*:[^\s"']*:$/;

function readName(text: string, hit: number, hitLength: number): Name | null {
  let start = hit;
  while (start > 0 && hit - start < MAX_NAME_CHARS && isNameChar(text.charCodeAt(start - 1))) start -= 1;
  let end = hit + hitLength;
  while (end < text.length && end - hit < MAX_NAME_CHARS && isNameChar(text.charCodeAt(end))) end += 1;
  // A sentence's full stop or dash is not part of the name.
  while (end > hit + hitLength && (text[end - 1] === '.' || text[end - 1] === '-')) end -= 1;
  let raw = text.slice(start, end);
  const dashes = raw.length - raw.replace(/^-+/, '').length;
  const flag = dashes > 0 && dashes <= 2 && (start === 0 || /[\s'"=]/.test(text[start - 1] as string));
  raw = raw.slice(dashes);
  let label = raw;
  if (/^key/i.test(raw) || /^access[ _-]?key/i.test(raw)) {
    const head = PHRASE_HEAD.exec(text.slice(Math.max(0, start - 32), start));
    if (head?.[1]) label = `${head[1]} ${raw}`;
  }
  // The redactor's own mark (`[REDACTED:github_token]`, met again when a text is redacted a second
  // time, as the CLI does to what the daemon answers): a kind, not a label of what follows it.
  if (start >= REDACTED_TAG.length && text[end] === ']' && text.startsWith(REDACTED_TAG, start - REDACTED_TAG.length)) return null;
  // A PEM marker's word (`-----BEGIN PUBLIC KEY-----`, `'…PRIVATE KEY-----', '…'`, a key given as a
  // list of its lines): its body is a key's or a certificate's, which keys.ts judges by the label.
  if (text.startsWith('-----', end) && PEM_MARKER_BEFORE.test(text.slice(Math.max(0, start - 48), start))) return null;
  // A segment of an ARN (`arn:aws:secretsmanager:…:secret:prod/db-Ab12Cd`) names a resource, not a value.
  if (start > 0 && text[start - 1] === ':' && ARN_BEFORE.test(text.slice(Math.max(0, start - 160), start))) return null;
  const judgedAs = nameStrength(label.replace(/\s+/g, '_'));
  // A list of secrets (`SESSION_SECRETS`), not a flag that acts on secrets (`--set-secrets`).
  const list = !flag && namesSecretList(raw);
  const strength = judgedAs ?? (list ? 'strong' : null);
  return strength === null ? null : { start: start + dashes, end, text: raw, strength, flag, ...(list ? { list: true as const } : {}) };
}

/** Reads the separator after a name; returns where the value starts, or null. */
function separator(text: string, name: Name): { at: number; sep: string; spaced: boolean } | null {
  // A shell's parameter expansion (`${API_TOKEN:?set it first}`, `${TOKEN:-}`) gives no value,
  // nor does a DB-API placeholder (`%(password)s`).
  if (text[name.start - 1] === '{' && text[name.start - 2] === '$') return null;
  if (text[name.start - 1] === '(' && text[name.start - 2] === '%' && text[name.end] === ')') return null;
  let i = name.end;
  const open = text[name.start - 1];
  if (isQuote(open) && text[name.end] === open) {
    i += 1;
    // redis-cli's HGETALL: a field and its value on numbered lines (`3) "api_token"`, `4) "…"`).
    if (open === '"' && /(?:^|\n)[ \t]*\d{1,5}\) $/.test(text.slice(Math.max(0, name.start - 12), name.start - 1))) {
      const next = /^[ \t]*\r?\n[ \t]*\d{1,5}\) (?=")/.exec(text.slice(i, i + 16));
      if (next !== null) return { at: i + next[0].length, sep: ':', spaced: true };
    }
    // A subscript: `os.environ["API_TOKEN"] = …`, `$config['db_password'] = …`.
    if (text[i] === ']' && text[name.start - 2] === '[') i += 1;
    // A call that names then gives it: PHP's `define('DB_PASSWORD', '…')`, `getenv("DB_PASSWORD", "…")`.
    const comma = /^[ \t]*,[ \t]*(?=["'])/.exec(text.slice(i, i + 16));
    if (comma !== null && text[name.start - 2] === '(') return { at: i + comma[0].length, sep: '=', spaced: true };
    // Rust's default for a variable that is not set: `env::var("API_KEY").unwrap_or("…".to_string())`.
    // Python's and JavaScript's: `os.environ.get('SLACK_TOKEN') or '…'`, `getenv("KEY") || "…"`.
    const fallback = text[i] === ')' && text[name.start - 2] === '(' ? /^\)[ \t]*(?:\.unwrap_or\([ \t]*|[ \t]+or[ \t]+|[ \t]*(?:\|\||\?\?)[ \t]*)(?=["'])/.exec(text.slice(i, i + 32)) : null;
    if (fallback !== null) return { at: i + fallback[0].length, sep: '=', spaced: true };
    // Terraform's variable with a default: `variable "db_password" {` … `default = "…"`, within its block.
    if (/variable[ \t]+$/.test(text.slice(Math.max(0, name.start - 16), name.start - 1))) {
      const block = TF_DEFAULT.exec(text.slice(i, i + 400));
      if (block !== null) return { at: i + block[0].length, sep: '=', spaced: true };
    }
  } else if (open === '<' && text[i] === '>') {
    // Windows' unattend.xml keeps the value in a child element: `<AdministratorPassword>` `<Value>…</Value>`.
    const child = VALUE_CHILD.exec(text.slice(i, i + 160));
    return { at: i + (child === null ? 1 : child[0].length), sep: '>', spaced: false };
  }
  // A label's element, then the value's: a plist's `<key>API_TOKEN</key>` `<string>…</string>`,
  // HTML's `<dt>Client secret</dt><dd>…</dd>` and `<th>Password</th><td>…</td>`.
  else if (open === '>' || open === ' ') {
    const pair = ELEMENT_PAIR.exec(text.slice(i, i + 160));
    if (pair !== null) return { at: i + pair[0].length, sep: '>', spaced: false };
  }
  // PHP's print_r: `[password] => …`.
  else if (open === '[' && text[i] === ']') i += 1;
  // A typed declaration: `const API_TOKEN: string = …` (TypeScript), `var password string = …` (Go).
  const typed = TYPED.exec(text.slice(i, i + 72));
  if (typed !== null) i += typed[0].length - 1;
  // Claude Code's answer to its own question: `"What is the staging DB password?"="…"`.
  if (text.startsWith('?"="', i)) return { at: i + 3, sep: '=', spaced: false };
  const before = countSpaces(text, i);
  i += before;
  let sep: string;
  const c = text[i];
  // make's conditional assignment: `DB_PASSWORD ?= …` (`:=`, `::=` and `+=` read as `:` and `=`);
  // JavaScript's `??=` and `||=`, Ruby's `||=` (a default when the variable is unset).
  if (c === '?' && text[i + 1] === '=') {
    sep = '=';
    i += 2;
  } else if ((c === '?' && text[i + 1] === '?' && text[i + 2] === '=') || (c === '|' && text[i + 1] === '|' && text[i + 2] === '=')) {
    sep = '=';
    i += 3;
  } else if (c === '=') {
    if (text[i + 1] === '=' || text[i + 1] === '~') return null;
    sep = '=';
    i += text[i + 1] === '>' ? 2 : 1;
  } else if (c === ':') {
    if (text[i + 1] === ':' || (text[i + 1] === '/' && text[i + 2] === '/')) return null;
    sep = ':';
    i += text[i + 1] === '=' ? 2 : 1;
    // A YAML list of one value on the next line (a VCR cassette's headers: `x-api-key:` `- …`).
    const item = /^[ \t]*\r?\n[ \t]*- (?=\S)/.exec(text.slice(i, i + 48));
    if (item !== null && /^[ \t]*\r?\n[ \t]*- [^\n]+(?:\r?\n(?![ \t]*- )|$)/.test(text.slice(i, i + 600))) return { at: i + item[0].length, sep, spaced: true };
    // Go's printed header map: `map[… X-Api-Key:[…] …]`, the value in brackets.
    if (text[i] === '[' && /map\[[^\n]{0,400}$/.test(text.slice(Math.max(0, name.start - 400), name.start))) {
      const found = text.slice(i + 1, i + 1 + MAX_VALUE_CHARS).indexOf(']');
      if (found > 0 && !/\s/.test(text.slice(i + 1, i + 1 + found))) return { at: i + 1, sep: ':', spaced: true };
    }
    // Markdown's emphasis closing after the colon: `**Password:** …`, `__Token:__ …`, `*Key:* …`.
    const marks = EMPHASIS_CLOSE.exec(text.slice(i, i + 3));
    if (marks !== null) i += marks[0].length;
    // YAML's anchor or tag before the value: `password: &pw "…"`, `password: !!str 2024…`.
    const yaml = YAML_PROPERTY.exec(text.slice(i, i + 48));
    if (yaml !== null) i += yaml[0].length;
    // Go's header literal: `http.Header{"X-Api-Key": []string{"…"}}`.
    const slice = /^[ \t]*\[\][A-Za-z]{1,10}\{[ \t]*(?=["`])/.exec(text.slice(i, i + 24));
    if (slice !== null) return { at: i + slice[0].length, sep, spaced: true };
    // Terraform's `output -json`: `"db_password": {"sensitive": true, "type": "string", "value": "…"}`;
    // DynamoDB's and Firestore's typed values (`{"S": "…"}`, `{"stringValue": "…"}`); Codex's
    // answer to its own question (`"db_pw": {"answers": ["…"]}`).
    const wrapped = WRAPPED_VALUE.exec(text.slice(i, i + 200));
    if (wrapped !== null) return { at: i + wrapped[0].length, sep, spaced: true };
  } else if (isQuote(open) && /^\s+value\s*=/.test(text.slice(i - before, i - before + 16))) {
    // <add key="ClearTextPassword" value="…" />
    sep = '=';
    i = text.indexOf('=', i) + 1;
  } else if (before > 0 && name.flag) {
    return { at: i, sep: ' ', spaced: true };
  } else if ((before >= 2 || text[i - 1] === '\t') && columns(text, name, i)) {
    // A two-column listing, the name first on its line and one value last (`pulumi config`'s
    // `infra:dbPassword        …`, `KEY  VALUE` tables, a tab between them: `aws ssm
    // get-parameters-by-path … --output text`'s `/prod/mail/smtp_password<TAB>…`).
    return { at: i, sep: ' ', spaced: true };
  } else if (before > 0 && /^(?:requirepass|masterauth)$/i.test(name.text)) {
    return { at: i, sep: ' ', spaced: true };
  } else if (before > 0 && isQuote(c) && /#[ \t]*define[ \t]+$/.test(text.slice(Math.max(0, name.start - 16), name.start))) {
    // C's `#define WIFI_PASSWORD "…"` (firmware, an Arduino sketch): a quoted literal after the name.
    return { at: i, sep: '=', spaced: true };
  } else return null;
  // PHP's var_dump gives the value on the next line, after its type: `["password"]=>\n  string(24) "…"`.
  const dumped = sep === '=' && text[i - 1] === '>' ? VAR_DUMP.exec(text.slice(i, i + 40)) : null;
  if (dumped !== null) return { at: i + dumped[0].length, sep, spaced: true };
  const after = countSpaces(text, i);
  return { at: i + after, sep, spaced: before + after > 0 };
}

/** The rest of a Terraform variable's block up to its `default = ` (no closing brace before it). */
const TF_DEFAULT = /^[ \t]*\{[^}]{0,360}?\bdefault[ \t]*=[ \t]*(?=["'])/;
/** The name starts its line (after indentation or a `namespace:`) and one word follows it to the line's end. */
function columns(text: string, name: Name, at: number): boolean {
  // Looked for near the name only: a text of one long line has many names and no line start.
  const from = Math.max(0, name.start - 64);
  const nl = text.slice(from, name.start).lastIndexOf('\n');
  if (nl === -1 && from > 0) return false;
  if (!/^[ \t]*(?:[\w.-]{1,40}:|(?:\/[\w.-]{1,40}){1,6}\/)?$/.test(text.slice(nl === -1 ? 0 : from + nl + 1, name.start))) return false;
  let j = at;
  while (j < text.length && j - at <= MAX_VALUE_CHARS && text.charCodeAt(j) > 32) j += 1;
  if (j === at) return false;
  while (j < text.length && (text[j] === ' ' || text[j] === '\t' || text[j] === '\r')) j += 1;
  return j >= text.length || text[j] === '\n';
}

// KeePass's XML export writes its pairs as `<Key>Password</Key>` `<Value ProtectInMemory="True">…`.
const ELEMENT_PAIR = /^[ \t]*:?[ \t]*<\/(?:key|dt|th|td|label|b|strong)>[ \t\r\n]*(?:<\/tr>[ \t\r\n]*<tr[^>\n]{0,40}>[ \t\r\n]*)?<(?:string|dd|td|data|code|span|value)(?:[ \t][^>\n]{0,80})?>/i;
const VALUE_CHILD = /^>[ \t]*\r?\n[ \t\r\n]{0,40}<Value(?:[ \t][^>\n]{0,80})?>/;
const VAR_DUMP = /^[ \t]*\r?\n[ \t]*string\(\d{1,7}\)[ \t]*/;
const EMPHASIS_CLOSE = /^[*_]{1,2}(?=[ \t])/;
const YAML_PROPERTY = /^[ \t]+(?:&[\w-]{1,40}|!!?[\w/-]{0,40})(?=[ \t])/;
const WRAPPED_VALUE = /^[ \t]*\{[ \t\r\n]*(?:"(?:sensitive|type)"[ \t]*:[ \t]*(?:true|false|"[^"\n]{0,40}"|\[[^\]\n]{0,80}\])[ \t]*,[ \t\r\n]*){0,3}(?:"(?:value|S|stringValue)"[ \t]*:[ \t]*|"answers"[ \t]*:[ \t]*\[[ \t\r\n]*)/;

/**
 * The type between a name and its `=`: `: string`, `: Record<string, string> | null`, ` string`
 * (Go). The `=` itself is left to read (the match ends on it); `==` and `=>` are no assignment.
 */
const TYPED = /^(?::[ \t]*|[ \t]+)&?(?:'static[ \t]+)?[A-Za-z_][\w.]{0,40}(?:<[^<>=\n]{0,40}>)?(?:\[\])?(?:[ \t]*\|[ \t]*[A-Za-z_][\w.]{0,20})*(?:[ \t]+|(?<=[>\]]))=(?![=>~])/;

interface Value {
  start: number;
  end: number;
  quoted: boolean;
  /** Where a value longer than MAX_VALUE_CHARS ends (its first MAX_VALUE_CHARS are judged, all of it removed). */
  runEnd?: number;
}

const CONVERSION = /^(?:\[\]byte|String::from|Buffer\.from|bytes)\((?=["'])/;

/** How far a long value's run is followed (a session token of 1,000 characters ends well before). */
const MAX_RUN_CHARS = 1 << 16;

/**
 * After a closing quote, a character that goes on the value: the view reads `\"` as `"`, so a
 * password holding a quote (`"Zx8\"qLm…"`) seems to end at it; `"abc"def` is one word in a shell
 * too. What ends a value, or joins code (`"a" + b`, `"a".$b`), does not.
 */
function goesOn(c: string | undefined): boolean {
  return c !== undefined && !/[\s,;:)\]}>.+&|=]/.test(c);
}

function readValue(text: string, at: number, sep: string): Value | null {
  let j = at;
  if (sep === '>') {
    // `<password><![CDATA[…]]></password>`.
    if (text.startsWith('<![CDATA[', j)) {
      const at = text.slice(j + 9, j + 9 + MAX_VALUE_CHARS).indexOf(']]>');
      return at > 0 ? { start: j + 9, end: j + 9 + at, quoted: true } : null;
    }
    // The element's closing tag ends it: the view reads `&lt;` in a value as `<` (`Mv3&lt;Hq8…`).
    const tag = text.indexOf('<', j);
    const end = text.indexOf('</', j);
    const close = end > tag && /^<(?:[A-Za-z][\w:.-]{0,40}[\s/>]|[!?])/.test(text.slice(tag, tag + 44)) ? tag : end;
    return close > j && close - j <= MAX_VALUE_CHARS && !text.slice(j, close).includes('\n') ? { start: j, end: close, quoted: true } : null;
  }
  // A literal in a conversion: Go's []byte("…"), Rust's String::from("…"), Node's Buffer.from("…").
  const conversion = CONVERSION.exec(text.slice(j, j + 16));
  if (conversion !== null) j += conversion[0].length;
  // Python's b"…", r"…", u"…", f"…" string prefixes; C#'s verbatim @"…"; Rust's raw r#"…"#.
  const formatted = text[j] === 'f' || text[j] === 'F';
  if (/[bBrRuUfF@]/.test(text[j] ?? '') && isQuote(text[j + 1])) j += 1;
  else if (text.startsWith('r#"', j)) j += 2;
  // An ODBC connection string's braced value: `Pwd={…};`, a `}` inside it written `}}` (JDBC's SQL Server driver too).
  if (text[j] === '{' && sep === '=') {
    let close = -1;
    for (let k = j + 1; k < text.length && k - j <= MAX_VALUE_CHARS; k += 1) {
      if (text[k] !== '}') continue;
      if (text[k + 1] === '}') {
        k += 1;
        continue;
      }
      close = k;
      break;
    }
    const after = text[close + 1];
    if (close > j + 1 && (after === ';' || after === '"' || after === "'" || after === undefined) && !text.slice(j, close).includes('\n')) {
      return { start: j + 1, end: close, quoted: !/^[A-Za-z_$][\w$.]*$/.test(text.slice(j + 1, close)) };
    }
  }
  const q = text[j];
  if (isQuote(q)) {
    let k = j + 1;
    for (;;) {
      while (k < text.length && k - j <= MAX_VALUE_CHARS && text[k] !== q && text[k] !== '\n') k += text[k] === '\\' ? 2 : 1;
      // A quote inside the value (escaped in the text the view decoded): the value goes on, to a
      // quote of the same line.
      // A doubled quote then a stop (`"$TOKEN""}` where escaped JSON ends) closes the value and then the string around it.
      const closesTwice = text[k + 1] === q && !goesOn(text[k + 2]);
      const rest = text[k] === q && goesOn(text[k + 1]) && !closesTwice ? text.slice(k + 1, j + MAX_VALUE_CHARS + 1) : '';
      const next = rest.indexOf(q);
      if (next === -1 || rest.slice(0, next).includes('\n')) break;
      k += 1;
    }
    // An f-string that interpolates (`f"{prefix}{suffix}"`) is code, not a literal.
    if (text[k] === q && formatted && text.slice(j + 1, k).includes('{')) return null;
    if (text[k] === q) return { start: j + 1, end: k, quoted: true };
    j += 1; // no closing quote on this line: the value is what follows, up to a stop
  }
  let k = j;
  while (k < text.length && k - j < MAX_VALUE_CHARS && !isStop(text.charCodeAt(k))) k += 1;
  if (k <= j) return null;
  if (k - j < MAX_VALUE_CHARS) return { start: j, end: restOfLine(text, j, k, sep), quoted: false };
  // A value longer than is judged (an AWS session token, a JWT): removed to the end of its run.
  let run = k;
  while (run < text.length && run - j < MAX_RUN_CHARS && !isStop(text.charCodeAt(run))) run += 1;
  return { start: j, end: k, quoted: false, runEnd: run };
}

/**
 * Where an unquoted value that stopped at `k` ends when the rest of its line is the value still:
 * a `;` then more of it with no space to the line's end (`DB_PASSWORD=Xv8;Lm3=Wz9Rk` in a .env
 * file), or a passphrase of generated groups (`password: Vq8 Lm3X z7Rt`), each group letters and
 * digits both.
 */
function restOfLine(text: string, j: number, k: number, sep: string): number {
  const c = text[k];
  if ((c !== ';' || sep !== '=') && c !== ' ') return k;
  // The line ends at a line break, or at the quote that closes the JSON string holding it.
  let e = k;
  while (e < text.length && e - j < MAX_VALUE_CHARS && text[e] !== '\n' && text[e] !== '"') e += 1;
  if (text[e] === '"' && !JSON_STRING_END.test(text.slice(e + 1, e + 8))) return k;
  while (e > k && (text[e - 1] === ' ' || text[e - 1] === '\r' || text[e - 1] === '\t')) e -= 1;
  const rest = text.slice(k, e);
  if (c === ';') return rest.length > 1 && !/[\s"'`]/.test(rest) ? e : k;
  const words = text.slice(j, e).split(' ');
  return words.length <= 6 && words.every((w) => /^[A-Za-z0-9]{3,10}$/.test(w) && /\d/.test(w) && /[A-Za-z]/.test(w)) ? e : k;
}

/**
 * A shell word quoted whole around an assignment (`env "DB_PASSWORD=Harb0r's-Gate!2026" npm test`,
 * `'API_KEY=…'`): the value goes to the word's closing quote, the other quote inside it, a `\`
 * escaping the next character. Null when the name's word is not so.
 */
function wrappedValue(text: string, name: Name, at: number, sep: string): Value | null {
  const q = text[name.start - 1];
  if ((q !== '"' && q !== "'") || sep !== '=' || at !== name.end + 1 || isQuote(text[at])) return null;
  let k = at;
  while (k < text.length && k - at < MAX_VALUE_CHARS && text[k] !== q && text[k] !== '\n') k += q === '"' && text[k] === '\\' ? 2 : 1;
  // `"PASSWORD=\$DB_PASS"`: a `$` kept from the shell, a reference as written.
  if (text[k] !== q || k <= at || text.startsWith('\\$', at)) return null;
  // A command line in a string (package.json's `"db:seed": "PGPASSWORD=… psql -h …"`, a task's
  // command): the assignment's value is its first word, and the command follows it.
  const space = text.slice(at, k).search(/[ \t]/);
  return space > 0 && /^[ \t]+[\w./-]/.test(text.slice(at + space, k)) ? { start: at, end: at + space, quoted: false } : { start: at, end: k, quoted: true };
}

/** A backquoted word closed on its line, with no space and no `$` inside: a literal, not a command or a template. */
function backquotedLiteral(text: string, at: number): boolean {
  const close = text.indexOf('`', at + 1);
  if (close === -1 || close - at > MAX_VALUE_CHARS) return false;
  return !/[\s$]/.test(text.slice(at + 1, close));
}

/** What a value read at `v` is judged with: its separator, where it stands on its line and what follows it. */
function contextOf(text: string, name: Name, v: Value, sep: string, spaced: boolean, envStyle = false): ValueContext {
  const after = v.quoted ? v.end + 1 : v.end;
  return { name: name.text, envStyle, sep, spaced, lineFinal: lineFinal(text, after), next: text[after] ?? '', quoted: v.quoted };
}

/** The end of the value it redacted; 0 when the name has a value that is no secret; null when it has none. */
function findPair(text: string, name: Name, found: Findings): number | null {
  // Go's test verdicts (`--- PASS: TestLogin/rejects_bad_password (0.01s)`, `PASS: TestX`) name a
  // test, not a password (the twenty-fifth red team: every subtest with a slash lost its name).
  if (name.text === 'PASS' && (text.slice(Math.max(0, name.start - 4), name.start) === '--- ' || /^:[ \t]+(?:Test|Benchmark|Example|Fuzz)/.test(text.slice(name.end, name.end + 14)))) return 0;
  if (name.list === true) {
    // A list of secrets: only its items that look generated go, whatever the form (a plural name
    // never makes one plain word a secret: `secrets: inherit`). A YAML list below the name first.
    const below = /^["']?[ \t]*:[ \t]*(?=\r?\n|\\n)/.exec(text.slice(name.end, name.end + 12));
    const end = below === null ? null : listItems(text, name.end + below[0].length, ':', found);
    if (end !== null) return end;
    const s = separator(text, name);
    return s === null ? null : (listItems(text, s.at, s.sep, found) ?? 0);
  }
  const s = separator(text, name);
  if (!s) return null;
  if (s.sep === ':') {
    BLOCK_INDICATOR.lastIndex = s.at;
    if (BLOCK_INDICATOR.test(text)) return blockScalar(text, name, s.at, found);
  }
  // A shell's command substitution (`` AUTH_TOKEN=`cat /run/secrets/token` ``) is no literal, nor a
  // template that interpolates; a backquoted word with neither (a JavaScript template literal,
  // ``const API_KEY = `…`;``, a Go raw string) is read as any quoted value.
  if (text[s.at] === '`' && s.sep === '=' && !backquotedLiteral(text, s.at)) return 0;
  const diff = wordDiff(text, s.at);
  if (diff !== null) return diffValues(text, name, s, diff, found);
  const v = wrappedValue(text, name, s.at, s.sep) ?? readValue(text, s.at, s.sep);
  if (!v) return s.sep === ':' ? valueBelow(text, name, s.at, found) : null;
  const value = text.slice(v.start, v.end);
  if (s.sep === ' ' && value.startsWith('-')) return 0;
  const envStyle = (s.sep === '=' && !s.spaced && (/^[A-Z][A-Z0-9_]*$/.test(name.text) || name.flag)) || s.sep === ' ';
  const ctx = contextOf(text, name, v, s.sep, s.spaced, envStyle);
  const end = v.runEnd ?? v.end;
  if (judged(name, v.start, end, value, ctx, found, /aws.?secret/i.test(name.text) ? 'aws_secret_access_key' : 'secret_assignment')) return end;
  return userThenPassword(text, name, v.start, v.quoted ? end + 1 : end, found) ?? 0;
}

/**
 * The items of a list of secrets, each one: a JSON or Python array of strings (quoted in an
 * environment line too: `ADMIN_SECRETS='["…", "…"]'`), a YAML list below the name, or a line's
 * value, its items separated by commas or semicolons (`SESSION_SECRETS=a,b`; Deno's
 * `token@host;…`; one item alone too). Only items that look generated and are made of a
 * credential's characters go. Null for an array that holds more than strings, and for no list
 * below the name.
 */
function listItems(text: string, at: number, sep: string, found: Findings): number | null {
  let p = at;
  while (p < text.length && (text[p] === ' ' || text[p] === '\t')) p += 1;
  const quote: string = text[p] === "'" || text[p] === '"' ? (text[p] as string) : '';
  // A credential's characters only: a type (`ApiKey[]`, `Vec<String>`) or an expression is none.
  const item = (v: string): boolean => v.length >= 8 && /^[A-Za-z0-9_+/=.~-]+$/.test(v) && !isPlaceholder(v) && looksRandom(v, 8);
  const open = text[p + quote.length] === '[' ? p + quote.length : text[p] === '[' ? p : -1;
  if (open !== -1) {
    const close = text.indexOf(']', open);
    if (close === -1 || close - open > 4000) return null;
    // An array of strings only: objects inside (an API's listing of keys by id) are records, read by their own names.
    if (/[{:]/.test(text.slice(open, close).replace(/(["'])(?:(?!\1)[^\n\\]|\\.)*\1/g, '""'))) return null;
    let any = false;
    for (const m of text.slice(open, close).matchAll(/\\?(["'])([^"'\n\\]{4,400})\\?\1/g)) {
      const v = m[2] as string;
      if (!item(v)) continue;
      const start = open + (m.index as number) + (m[0].length - v.length - (m[0].endsWith('\\"') || m[0].endsWith("\\'") ? 2 : 1));
      found.add(start, start + v.length, 'secret_assignment', PRIORITY.name);
      any = true;
    }
    return any ? close : null;
  }
  if (sep === ':' && (text[p] === '\n' || text[p] === '\r' || text.startsWith('\\n', p))) {
    // A YAML list below: `- item` lines, in a text or in a JSON string's escaped newlines.
    const re = /(?:\r?\n|\\n)[ \t]*-[ \t]+["']?([^\s"'#\\]{8,400})["']?[ \t]*(?=\r?\n|\\n|$|")/y;
    re.lastIndex = p;
    let end: number | null = null;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const v = m[1] as string;
      const start = m.index + m[0].indexOf(v);
      if (item(v)) found.add(start, start + v.length, 'secret_assignment', PRIORITY.name);
      end = start + v.length;
    }
    return end;
  }
  // One line's value: to its end, or to the quote that closes it.
  const from = p + quote.length;
  let stop = from;
  while (stop < text.length && text[stop] !== '\n' && text[stop] !== '\r' && (quote === '' ? text[stop] !== ' ' && text[stop] !== '"' : text[stop] !== quote)) stop += 1;
  const value = text.slice(from, stop);
  let q = from;
  for (const part of value.split(/([,;])/)) {
    if (part !== ',' && part !== ';') {
      // Deno's `token@host`: the token is before the `@`.
      const v = part.includes('@') ? (part.split('@')[0] as string) : part;
      const lead = part.length - part.trimStart().length;
      if (item(v.trim())) found.add(q + lead, q + lead + v.trim().length, 'secret_assignment', PRIORITY.name);
    }
    q += part.length;
  }
  return stop;
}

/**
 * A strong name's label that ends its line, and its value alone on a line below (a blank line or
 * two between): a program's first start (`Your admin password:`, then the password), each line
 * perhaps after `docker compose`'s service name (`api-1  | `). Only a word that looks generated:
 * under a label so, YAML nests keys and lists, and prose goes on in sentences. Null when not so.
 */
function valueBelow(text: string, name: Name, at: number, found: Findings): number | null {
  if (name.strength !== 'strong' || (text[at] !== '\n' && text[at] !== '\r')) return null;
  let p = text.indexOf('\n', at) + 1;
  for (let lines = 0; p > 0 && lines < 3; lines += 1) {
    const e = text.indexOf('\n', p);
    const end = e === -1 ? text.length : e;
    const line = LINE_BELOW.exec(text.slice(p, Math.min(end, p + 300)));
    if (line === null) return null;
    const word = line.indices?.[1];
    // The quote that closes the JSON string holding the text ends its last line.
    const rest = line.input.slice(line[0].length);
    if (rest.startsWith('"') && !JSON_STRING_END.test(rest.slice(1, 8))) return null;
    if (word === undefined) {
      if (rest.length > 0) return null;
      p = end + 1;
      continue;
    }
    const value = line[1] as string;
    if (!(looksRandom(value, 12) || /^[0-9a-f]{32,}$/.test(value))) return null;
    found.add(p + word[0], p + word[1], 'labelled_secret', PRIORITY.name);
    return p + word[1];
  }
  return null;
}

/** Hex of an id's length: a commit (7 to 40), a digest (64), a job's or a request's id (32). */
const HEX_ID = /^[0-9a-f]{7,64}$/i;
/** The word an id's hex follows: `commit …`, `job id …`, `sha256:…`, `digest: …`, `fixed in …` (a commit: the forty-third red team's «The token refresh race was fixed in <sha>»). */
const HEX_ID_BEFORE = /(?:\b(?:commit|sha1?|revision|rev|digest|etag|checksum|hash|id)\b[ \t]*[:#]?[ \t]*|\b(?:fixed|landed|merged|reverted|introduced|broken|regressed|resolved|addressed|shipped|released|added|removed|changed)[ \t]+(?:in|by|at)[ \t]+|\b(?:request|trace|span|event|correlation|job)[ \t]+|\bfingerprint(?: is)?:?[ \t]+|\bsha(?:1|256|512):)$/i;
/** gpg's "using RSA key <id>": a key's id or fingerprint, right after the label, and no key. */
const GPG_KEY_ID_BEFORE = /\b(?:RSA|DSA|ECDSA|EdDSA|ed25519|cv25519|ELG) key[ \t]+$/i;

/** A line below a label: a service's name from `docker compose` perhaps, then one word or nothing, to the line's end or a JSON string's closing quote. */
const LINE_BELOW = /^(?:[\w.-]{1,40}[ \t]+\|)?[ \t]*(?:([^\s|"'`]{12,200})[ \t\r]*)?(?=$|")/d;

/** A user named before a `Pass` label, on its line. */
const USER_BEFORE = /\b(?:user(?:name)?|login|admin|email|account)\b[^\n]{0,40}$/i;

/** `creds: admin / …`: a user name, then the password after a slash or a colon. */
const USER_SEPARATOR = /^[ \t]{0,4}[/:][ \t]{0,4}/;
/** `credentials: admin:…`: the user name and the password read as one value. */
const USER_COLON = /^[\w.@+-]{1,64}:(?=[^\s/])/;

/**
 * Under a name of credentials, a value that is a user name followed by ` / ` or `:` and a password
 * a person made (`creds: admin / Kestrel-42!dev`, `credentials: admin:Kestrel-42!dev`): the
 * password. Null when not so.
 */
function userThenPassword(text: string, name: Name, start: number, after: number, found: Findings): number | null {
  const last = nameWords(name.text).at(-1);
  if (last !== 'creds' && last !== 'credentials' && last !== 'credential') return null;
  const joined = USER_COLON.exec(text.slice(start, start + 66));
  const sep = joined === null ? USER_SEPARATOR.exec(text.slice(after, after + 12)) : null;
  if (joined === null && sep === null) return null;
  const pos = joined !== null ? start + joined[0].length : after + (sep as RegExpExecArray)[0].length;
  const end = humanPassword(text, pos);
  if (end <= pos) return null;
  found.add(pos, end, 'labelled_secret', PRIORITY.name);
  return end;
}

/**
 * `git diff --word-diff` writes a changed value as `[-old-]{+new+}` after its unchanged name
 * (`password = [-"Old…"-]{+"New…"+}`): each side, its quotes taken off, is a value of the name.
 * Null when the value is not written so.
 */
function wordDiff(text: string, at: number): Value[] | null {
  const parts: Value[] = [];
  let p = at;
  for (const [open, close] of [['[-', '-]'], ['{+', '+}']] as const) {
    if (!text.startsWith(open, p)) continue;
    const end = text.indexOf(close, p + 2);
    if (end === -1 || end - p > MAX_VALUE_CHARS || text.slice(p + 2, end).includes('\n')) return parts.length > 0 ? parts : null;
    const q = text[p + 2];
    const quoted = isQuote(q) && end - p >= 4 && text[end - 1] === q;
    parts.push(quoted ? { start: p + 3, end: end - 1, quoted } : { start: p + 2, end, quoted });
    p = end + 2;
  }
  return parts.length > 0 ? parts : null;
}

function diffValues(text: string, name: Name, s: { sep: string; spaced: boolean }, parts: readonly Value[], found: Findings): number {
  let last = 0;
  for (const v of parts) {
    const after = v.quoted ? v.end + 1 : v.end;
    const ctx: ValueContext = { name: name.text, envStyle: s.sep === '=' && !s.spaced && /^[A-Z][A-Z0-9_]*$/.test(name.text), sep: s.sep, spaced: s.spaced, lineFinal: lineFinal(text, after + 2), next: '', quoted: v.quoted };
    if (judged(name, v.start, v.end, text.slice(v.start, v.end), ctx, found)) last = v.end;
  }
  return last;
}

/** YAML's block scalar indicator (literal or folded, with a chomping and an indentation digit), ending its line. */
/** A JSON member's string opened before the name on its line, no quote after it: `{"output":"`. */
const JSON_STRING_OPEN = /^[^\n]*"[ \t]*:[ \t]*"(?=[^"]*$)/;
const BLOCK_INDICATOR = /[|>](?:[-+][1-9]?|[1-9][-+]?)?[ \t]*(?:#[^\n]{0,200})?\r?(?:\n|$)/y;
const BLOCK_LINES = 64;

/**
 * `password: |-` with the value on the lines below, indented deeper than the name: those lines,
 * judged as one value (each line's text removed, its indentation kept). Returns where the scan
 * goes on.
 */
function blockScalar(text: string, name: Name, from: number, found: Findings): number {
  const [lineOpen, lineEnd] = lineBounds(text, name.start);
  // The first line of a JSON string's text (`{"output":"     5→  ssh_password: >-\n…`) starts after its opening quote.
  const opened = JSON_STRING_OPEN.exec(text.slice(lineOpen, name.start));
  const lineStart = lineOpen + (opened === null ? 0 : opened[0].length);
  // Indentation past what a reader put before a line (a line number, a diff's `+`; grep's
  // `path:12:` and `path-13-`, when the name's line has one: then each line below has it too).
  const grep = grepPrefix(text, lineStart, lineEnd);
  const lineOf = (s: number, e: number): { indent: number; key: number } | null => {
    if (grep === null) return yamlLine(text, s, e);
    const g = grepPrefix(text, s, e);
    return g === null || g.path !== grep.path ? null : yamlLine(text, g.end, e);
  };
  const { indent } = yamlLine(text, grep === null ? lineStart : grep.end, lineEnd);
  const parts: [number, number][] = [];
  let pos = text.indexOf('\n', from);
  for (let n = 0; pos !== -1 && n < BLOCK_LINES; n += 1) {
    const [s, e] = lineBounds(text, pos + 1);
    const at = lineOf(s, e);
    if (at === null) break;
    const { indent: ind, key: i } = at;
    const blank = i >= e || text.slice(i, e).trim() === '';
    if (!blank && ind <= indent) break;
    if (!blank) parts.push([i, e - (text[e - 1] === '\r' ? 1 : 0)]);
    pos = e < text.length ? e : -1;
  }
  const lines = parts.map(([s, e]) => text.slice(s, e));
  const value = lines.join('\n');
  // A secret's lines are words of their own (a token, base64); a line of words is a description or a script.
  if (value.length < 4 || isPlaceholder(value) || lines.some((l) => /\s/.test(l.trim())) || (name.strength !== 'strong' && !looksRandom(value, 16))) return from;
  for (const [s, e] of parts) found.add(s, e, 'secret_assignment', PRIORITY.name);
  return parts.length > 0 ? (parts[parts.length - 1] as [number, number])[1] : from;
}

/** grep's prefix of a line (`-n`, `-A`/`-B`/`-C`): a path (with several files), the line's number, `:` on a match and `-` on context. */
const GREP_PREFIX = /(?:([^\s:]{1,200}?)[:-])?\d{1,7}[:-](?=[ \t])/y;

function grepPrefix(text: string, start: number, end: number): { path: string; end: number } | null {
  GREP_PREFIX.lastIndex = start;
  const m = GREP_PREFIX.exec(text);
  return m === null || start + m[0].length > end ? null : { path: m[1] ?? '', end: start + m[0].length };
}

/** A value of a secret-naming name, judged: removed (true), or kept with the reason (audits read it). */
function judged(name: Name, start: number, end: number, value: string, ctx: ValueContext, found: Findings, kind = 'secret_assignment'): boolean {
  const because = keptBecause(value, name.strength, ctx);
  if (because !== null) {
    found.kept?.push({ at: name.start, start, end, name: name.text, because });
    return false;
  }
  found.add(start, end, kind, PRIORITY.name);
  return true;
}

/**
 * Nothing but spaces, or a comment, follows on the line. The quote that closes a JSON string is
 * the end of the last line of the text it holds (`{"output":"smtp_password: hvqz…"}`, a Codex
 * call's arguments, a tool result printed as JSON): after it come only `}`, `]`, `,` and a next
 * key, or the end.
 */
function lineFinal(text: string, at: number): boolean {
  let i = at;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i += 1;
  if (text[i] === '"') return JSON_STRING_END.test(text.slice(i + 1, i + 8));
  return i >= text.length || text[i] === '\n' || text[i] === '#' || text.startsWith('//', i);
}

/** What follows a JSON string's closing quote in a JSON document: a closing bracket, or a comma and the next key or item. */
const JSON_STRING_END = /^(?:[ \t]*(?:[}\]]|,[ \t\r\n]*["{[\d]|$)|$)/;

/** `name: DB_PASSWORD` (or `"name": "DB_PASSWORD"`, `key=…`): the label is itself a field's value. */
/** A `name`/`key` field that holds the name, up to where the name starts (a parameter's path may lead it). */
const NAME_FIELD_TAIL = String.raw`(?:name|key|keyName|KeyName|key_name|Name|Key|NAME|KEY|label|ParameterKey)["']?[ \t]{0,4}[:=][ \t]{0,4}["']?(?:\/?[\w.-]{1,40}\/){0,4}$`;
const NAME_FIELD = new RegExp(`(?:^|[^A-Za-z0-9_])${NAME_FIELD_TAIL}`);
/** How far before a name NAME_FIELD looks: far enough for a parameter's path (`"/prod/db/password"`). */
const NAME_FIELD_LOOKBACK = 200;
/** …and the value it names comes in a `value` field of the same record, close after it. */
const VALUE_FIELD = new RegExp(
  String.raw`^["']?[ \t]*[,;]?[ \t\r]{0,40}(?:\n(?:[ \t]{0,12}${LINE_NUMBER}|[+ ]|[^\s]{1,120}?[-:]\d{1,7}[-:])?)?[ \t]{0,40}(?:"[A-Za-z]{1,20}"[ \t]{0,4}:[ \t]{0,4}(?:"[^"\n]{0,40}"|[\w.-]{1,20}|\{[^{}\n]{0,40}\}|\[[^[\]\n]{0,40}\])[ \t]{0,4},[ \t\r\n]{0,40}){0,3}-?[ \t]*["']?(?:value|Value|VALUE|ParameterValue)["']?[ \t]{0,4}[:=][ \t]{0,4}`,
);
/*
 * The next line may carry what a reader put before it: a line number (Claude Code's Read, `cat
 * -n`, `grep -n`), a diff's `+`, or `grep -A`'s `file-15-`; up to three other fields of the
 * record may come between (`aws ssm get-parameter`: `"Name": "/prod/db/password", "Type":
 * "SecureString", "Value": "…"`).
 */
const NAMED_VALUE_WINDOW = 200;

/**
 * Environment lists name a variable in one field and give its value in the next: Kubernetes and
 * Compose `env:` (`- name: DB_PASSWORD` / `value: …`), GitHub Actions, Terraform, JSON
 * `{"name": "API_KEY", "value": "…"}`. The value is judged as if it followed the name.
 */
function findNamedValue(text: string, name: Name, found: Findings): number | null {
  const before = text.slice(Math.max(0, name.start - NAME_FIELD_LOOKBACK), name.start);
  if (!NAME_FIELD.test(before)) return null;
  const after = text.slice(name.end, name.end + NAMED_VALUE_WINDOW);
  // The value as the element's text: Hibernate's `<property name="hibernate.connection.password">…</property>`.
  const element = /^["'][ \t]*>/.exec(after);
  if (element !== null) {
    const v = readValue(text, name.end + element[0].length, '>');
    if (v === null) return 0;
    const ctx: ValueContext = { name: name.text, envStyle: false, sep: '>', spaced: false, lineFinal: false, next: '<', quoted: true };
    return judged(name, v.start, v.end, text.slice(v.start, v.end), ctx, found) ? v.end : 0;
  }
  const m = VALUE_FIELD.exec(after);
  if (!m) return valueBefore(name, before, found);
  const v = readValue(text, name.end + m[0].length, ':');
  if (!v) return 0;
  const value = text.slice(v.start, v.end);
  const end = v.runEnd ?? v.end;
  return judged(name, v.start, end, value, contextOf(text, name, v, ':', true), found) ? end : 0;
}

/** The record the other way round: `{"value": "…", "name": "DB_PASSWORD"}`, `<property value="…" name="…"/>`. */
const VALUE_FIRST = new RegExp(
  `(?:^|[^A-Za-z0-9_])(?:value|Value|VALUE)["']?[ \\t]{0,4}[:=][ \\t]{0,4}(?:"([^"\\n]{4,512})"|'([^'\\n]{4,512})')[ \\t]*[,;]?[ \\t\\r\\n]{0,40}(?:["'][A-Za-z]{1,20}["'][ \\t]{0,4}:[ \\t]{0,4}(?:"[^"\\n]{0,40}"|'[^'\\n]{0,40}'|[\\w.-]{1,20})[ \\t]*,[ \\t\\r\\n]{0,40}){0,2}["']?${NAME_FIELD_TAIL}`,
  'd',
);

function valueBefore(name: Name, before: string, found: Findings): number | null {
  const m = VALUE_FIRST.exec(before);
  const g = m?.[1] === undefined ? 2 : 1;
  const range = m?.indices?.[g];
  if (!m || !range) return null;
  const base = name.start - before.length;
  const ctx: ValueContext = { name: name.text, envStyle: false, sep: ':', spaced: true, lineFinal: false, next: '', quoted: true };
  judged(name, base + range[0], base + range[1], m[g] as string, ctx, found);
  return 0;
}

const TOKEN_WORD = /^(?:token|secret|key|apikey)$/;

/** A Go struct tag's key and its opening quote (`validate:"`, `binding:"`). */
const STRUCT_TAG = /^[a-z][\w-]{0,30}:"/;

/**
 * A generated-looking value among the first few words after a label on its line: "the secret
 * is …", `aws configure set aws_secret_access_key …`, "wallet private key 0x…".
 */
function findLabelledValue(text: string, name: Name, found: Findings): number | null {
  // A folder of a path (`/tmp/private-key/01ab…/HANDOFF.md`) labels nothing; nor does a function's
  // name (`generate_password(length=20)`).
  if (text[name.end] === '/' || text[name.start - 1] === '/' || text[name.end] === '(') return null;
  // A variable's name (`${REDIS_PASSWORD}`) refers to the value; a word of a URL's query
  // (`q=reset+postgres+password+when+locked+out%3F`, `password%3D+in%3Afile`) is a search's text,
  // read decoded by encoded.ts.
  if ((text[name.start - 1] === '{' && text[name.start - 2] === '$' && text[name.end] === '}') || text[name.end] === '+' || (text[name.end] === '%' && /^%[0-9A-Fa-f]{2}/.test(text.slice(name.end, name.end + 3)))) return null;
  let pos = name.end;
  const limit = Math.min(text.length, name.end + LABEL_WINDOW_CHARS);
  // Whether only small words stood between the label and here ("the secret is …"). Past another
  // word, a strong label still takes a generated-looking value on its line ("API key created: …",
  // "new token (it will not be shown again): …"), and a person's password right after a `:` or
  // `=` that closes the label's phrase ("Password for admin@acme.io: …", "DB password (staging) = …").
  let linked = true;
  /** The words past the small links: a chain's word among them (`Token Mint: …`) makes a base58 value its address. */
  const between: string[] = [];
  const tokenName = name.strength === 'strong' && TOKEN_WORD.test(nameWords(name.text).at(-1) ?? '');
  for (let n = 0; n < (name.strength === 'strong' ? LABEL_WINDOW_TOKENS_FAR : LABEL_WINDOW_TOKENS); n += 1) {
    while (pos < limit && !isTokenChar(text.charCodeAt(pos))) {
      if (text.charCodeAt(pos) === 10) return null;
      pos += 1;
    }
    if (pos >= limit) return null;
    const closed = !linked && /[:=][ \t]{0,4}["']?$/.test(text.slice(Math.max(name.end, pos - 6), pos));
    // A variable (`$API_BASE/status`) is a reference, not a value; a Go struct tag's next key
    // (`json:"password" validate:"required,min=8"`) is the field's rules.
    if (text[pos - 1] === '$' || STRUCT_TAG.test(text.slice(pos, pos + 40))) return null;
    let end = pos;
    while (end < text.length && end - pos < MAX_VALUE_CHARS && isTokenChar(text.charCodeAt(end))) end += 1;
    // A sentence's full stop or dash after a value is not part of it; base64 padding is.
    let stop = end;
    while (stop > pos && (text[stop - 1] === '.' || text[stop - 1] === '-')) stop -= 1;
    const v = text.slice(pos, stop);
    // A dash between a label and its value is punctuation ("password for the admin account - …"),
    // and so is a lone `=` ("DB password (staging) = …"); `==` compares.
    if ((v === '' && stop === pos && end > pos) || v === '=') {
      pos = end;
      continue;
    }
    // A call (`Encoding.UTF8.GetBytes(…)`) is code, whatever its name looks like; a log's next
    // field (`password length=24;`) is another key's value.
    if (text[end] === '(' || (/^[a-z][a-z_]{1,30}=/.test(v) && (text[pos - 1] === ' ' || text[pos - 1] === '\t'))) return null;
    // A token that is a UUID (Railway's, Heroku's API keys, npm's of old) after a token's or key's own
    // name, with only small words or a closing `:` between (a request's id further on is none).
    if (looksRandom(v, name.strength === 'strong' ? 16 : 20) || (tokenName && (linked || closed) && UUID.test(v)) || (linked && name.strength === 'strong' && looksGeneratedLower(v))) {
      if (!linked && BASE58_ADDRESS.test(v) && between.some((w) => CHAIN_NAME.test(w))) return null;
      // Hex that a word right before it names as an id, further on in the sentence than the label's
      // own words ("the token refresh bug was fixed in commit 901ef91…", "job id d4b7…",
      // "image is sha256:de6b…"): a commit, a digest, a job's id, not the secret the label named.
      if (!linked && HEX_ID.test(v) && HEX_ID_BEFORE.test(text.slice(Math.max(0, pos - 24), pos))) return null;
      // gpg prints a key's id in capitals.
      if (/^(?=[0-9A-F]*[A-F])(?:[0-9A-F]{16}|[0-9A-F]{40})$/.test(v) && GPG_KEY_ID_BEFORE.test(text.slice(Math.max(0, pos - 16), pos))) return null;
      found.add(pos, stop, 'labelled_secret', PRIORITY.name);
      return stop;
    }
    const near = linked && n < LABEL_WINDOW_TOKENS;
    // A password a person made ("the staging DB password is Summer2024!", "the DB_PASSWORD is …",
    // `| DB_PASSWORD | Kestrel-42!dev |`, `ENV POSTGRES_PASSWORD Summer2024!db`): after a
    // password's own name, a word of letters and digits with a symbol or both cases, to the next space.
    // `Pass` as a label after a user on its line ("user admin, Pass …"); the word `pass` of a
    // sentence, and a verdict (`PASS <id>`, `Pass checkout-v2.test`), are none.
    // A passphrase quoted after a password's name ("the restic repo password is "staple Horse
    // battery-68""): the quoted words, when they hold a digit or a capital and make no sentence.
    const q = text[pos - 1];
    if (linked && (q === '"' || q === "'") && namesPassword(name.text)) {
      const close = text.indexOf(q, pos);
      const quoted = close === -1 ? '' : text.slice(pos, close);
      if (close - pos <= 80 && !quoted.includes('\n') && /\s/.test(quoted) && /\d|.[A-Z]/.test(quoted) && !/[.!?:,]$/.test(quoted) && !isPlaceholder(quoted) && quoted.split(/\s+/).length <= 8) {
        found.add(pos, close, 'labelled_secret', PRIORITY.name);
        return close;
      }
    }
    // A PIN after its name ("the yubikey PIN is 698331"): four to twelve digits, not a year; Apple's
    // app-specific password (four groups of four letters) after a password's name.
    const pin = namesPin(name.text) && /^\d{4,12}$/.test(v) && !/^(?:19|20)\d\d$/.test(v);
    if ((linked || closed) && (pin || (name.strength === 'strong' && /^[a-z]{4}(?:-[a-z]{4}){3}$/.test(v)))) {
      found.add(pos, stop, 'labelled_secret', PRIORITY.name);
      return stop;
    }
    // A generated value rich in symbols right after a strong name ("the webhook signing secret is
    // x#^wqG!$J:tR…", "started with the master key iSjh=C5nZ[uqm~…"): the word up to the next space,
    // which the token characters above end at its first symbol.
    if (linked && name.strength === 'strong') {
      const sym = generatedSymbols(text, pos);
      if (sym > pos) {
        found.add(pos, sym, 'labelled_secret', PRIORITY.name);
        return sym;
      }
    }
    if ((near || closed) && (namesPassword(name.text) || (/^(?:Pass|pass)$/.test(name.text) && USER_BEFORE.test(text.slice(Math.max(0, name.start - 60), name.start))))) {
      const human = humanPassword(text, pos);
      if (human > pos) {
        found.add(pos, human, 'labelled_secret', PRIORITY.name);
        return human;
      }
    }
    // Only small words may stand between a label and its value ("the secret is …"); a word of
    // letters beyond ASCII ("für", "é") is read whole for it.
    const word = /^[\p{L}\p{M}]+/u.exec(text.slice(pos, pos + 24))?.[0] ?? v;
    if (!LINKING.has(word.toLowerCase())) {
      // Only a word goes on: an operator (`password == "…"`) compares, it does not label.
      if (name.strength !== 'strong' || closed || !/^[\p{L}\p{M}]/u.test(word)) return null;
      linked = false;
      between.push(word);
    }
    pos = Math.max(end, pos + word.length);
  }
  return null;
}

/** Characters of a value in prose: base64, base64url, hex, `0x…`. */

/**
 * The end of a password a person made that starts at `pos`, or `pos`: the word up to the next
 * space (a sentence's closing mark and quotes left out), 8 to 64 characters, with a letter and a
 * digit, and a symbol or both cases. An identifier (`UserPassword_Input`, `getPassword2`), a
 * reference (`$PW`, `%PW%`, `{{pw}}`), a path or a URL is not one.
 */
function humanPassword(text: string, pos: number): number {
  let end = pos;
  while (end < text.length && end - pos <= 64 && text.charCodeAt(end) > 32) end += 1;
  while (end > pos && /[.,;:?)\]}"'`*]/.test(text[end - 1] as string)) end -= 1;
  const v = text.slice(pos, end);
  if (v.length < 8 || v.length > 64) return pos;
  if (!/[A-Za-z]/.test(v) || !/\d/.test(v)) return pos;
  const symbol = /[^A-Za-z0-9]/.test(v);
  if (!symbol && !(/[a-z]/.test(v) && /[A-Z]/.test(v))) return pos;
  if (/^[\w]+$/.test(v) && (v.includes('_') || /^[a-z]+[A-Z]/.test(v))) return pos;
  // …nor a command-line flag (`--max-warnings=0`).
  if (/^[$%{<-]|[/\\]|^https?:/i.test(v) || /\(\)?$/.test(v)) return pos;
  // Where a password is kept, named in prose ("the staging password is in 1Password").
  if (/^1Password$/i.test(v)) return pos;
  return end;
}

/**
 * The end of a generated value rich in symbols that starts at `pos` (a password manager's, `pwgen
 * -sy`, Terraform's `random_password`), or `pos`: the word up to the next space (a sentence's
 * closing mark left out), 16 to 128 characters, with both cases, a digit and three symbols or more
 * other than `-_./` (code's punctuation and a path's), as varied as a random run. Code (`a[i]=b(c)`,
 * `x.y?.z`), a reference, a path or a URL is not one: none holds three such symbols among that mix
 * of classes with so few repeats.
 */
function generatedSymbols(text: string, pos: number): number {
  let end = pos;
  while (end < text.length && end - pos <= 128 && text.charCodeAt(end) > 32) end += 1;
  while (end > pos && /[.,;?)\]"'`]/.test(text[end - 1] as string)) end -= 1;
  const v = text.slice(pos, end);
  if (v.length < 16 || v.length > 128 || /^[$%{<`]|:\/\/|[/\\]/.test(v)) return pos;
  if (!/[a-z]/.test(v) || !/[A-Z]/.test(v) || !/\d/.test(v)) return pos;
  const symbols = v.replace(/[A-Za-z0-9\-_./]/g, '');
  if (symbols.length < 3 || new Set(symbols).size < 3) return pos;
  return entropy(v) >= Math.min(4.2, Math.log2(v.length) - 0.3) ? end : pos;
}

function isTokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 61 || c === 95 || c === 46 || c === 126 || c === 45;
}

const CELL_LABEL = /^[A-Za-z][A-Za-z0-9 _.-]{0,39}$/;
const FIRST_LABEL = /[A-Za-z][A-Za-z0-9 _.-]{0,39}$/;

/**
 * A CSV header naming a secret column (AWS's credentials.csv): that column of the rows below.
 * The header is the run of short labels that ends its line (a prompt may precede it on the same
 * line); a row is the line below, read for as many cells as the header has.
 */
function findCsvColumns(text: string, name: Name, found: Findings): number | null {
  // A name on a header line read already (its other labels): nothing more to do.
  if (name.start < (found.readTo.get('csv') ?? -1)) return name.end;
  // Commas, or tabs (a password manager's TSV export, `psql -A -F $'\t'`).
  const sep = isCell(text, name, ',') ? ',' : isCell(text, name, '\t') ? '\t' : null;
  if (sep === null) return null;
  const [start, end] = lineBounds(text, name.start);
  const labels = headerLabels(text.slice(start, end), sep);
  if (labels === null) return null;
  const columns = new Map<number, Exclude<Strength, null>>();
  labels.forEach((label, i) => {
    const strength = nameStrength(label.replace(/\s+/g, '_'));
    if (strength) columns.set(i, strength);
  });
  if (columns.size === 0) return null;
  found.readTo.set('csv', end);
  let pos = end + 1;
  for (let rows = 0; pos < text.length && rows < MAX_CSV_ROWS; rows += 1) {
    // A row is read up to MAX_LINE_CHARS (lineBounds): reading the rest of a text of one long line
    // for every header-like run on it took time in the square of its length.
    const [, rowEnd] = lineBounds(text, pos);
    const row = text.slice(pos, rowEnd).split(sep);
    if (row.length < labels.length || (row[0] ?? '').trim() === '') break;
    let at = pos;
    row.slice(0, labels.length).forEach((cell, i) => {
      const strength = columns.get(i);
      const lead = cell.length - cell.trimStart().length;
      const value = cell.trim().replace(/^"(.*)"$/, '$1');
      const quote = cell.trim().startsWith('"') && value.length === cell.trim().length - 2 ? 1 : 0;
      if (strength && value.length >= 4 && !isPlaceholder(value) && (strength === 'strong' || looksRandom(value, 12))) {
        found.add(at + lead + quote, at + lead + quote + value.length, 'secret_assignment', PRIORITY.name);
      }
      at += cell.length + 1;
    });
    // A row cut at MAX_LINE_CHARS: what follows on its line is no row.
    if (rowEnd < text.length && text.charCodeAt(rowEnd) !== 10) break;
    pos = rowEnd + 1;
  }
  return end;
}

/** The labels of the header that ends this line, at least two; null when it does not end in one. */
function headerLabels(line: string, sep: string): string[] | null {
  const cells = line.split(sep);
  if (cells.length < 2) return null;
  const labels: string[] = [];
  for (let i = cells.length - 1; i >= 0 && labels.length < MAX_CSV_COLUMNS; i -= 1) {
    const cell = (cells[i] as string).trim().replace(/^"|"$/g, '');
    if (CELL_LABEL.test(cell)) {
      labels.unshift(cell);
      continue;
    }
    // The first label may share its cell with text before it; a line of code does not end in labels.
    const head = FIRST_LABEL.exec(cells[i] as string)?.[0].trim();
    if (head) labels.unshift(head);
    break;
  }
  return labels.length >= 2 ? labels : null;
}

/** A name that fills a cell by itself, cells parted by `sep` (cheap to test before reading the line). */
function isCell(text: string, name: Name, sep: ',' | '\t'): boolean {
  const s = sep.charCodeAt(0);
  const inCell = (c: number): boolean => c === 32 || (c === 9 && s !== 9) || c === 34 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  let i = name.start - 1;
  while (i >= 0 && name.start - i < 40 && inCell(text.charCodeAt(i))) i -= 1;
  let j = name.end;
  while (j < text.length && j - name.end < 40 && inCell(text.charCodeAt(j))) j += 1;
  const before = i < 0 ? 10 : text.charCodeAt(i);
  const after = j >= text.length ? 10 : text.charCodeAt(j);
  const edge = (c: number): boolean => c === s || c === 10 || c === 13;
  return edge(before) && edge(after) && (before === s || after === s);
}
