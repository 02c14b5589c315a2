/**
 * Whether a value looks generated rather than written: the test behind the rules that have a
 * label but no format to go on (`ENCRYPTION_KEY=…`, "the secret is …", a credentials.csv row).
 * Generated keys mix letter cases and digits at random, so their characters change class often
 * and repeat rarely; words, identifiers, paths and version strings do neither.
 */

const enum Cls {
  Upper,
  Lower,
  Digit,
  Other,
}

function cls(c: number): Cls {
  if (c >= 65 && c <= 90) return Cls.Upper;
  if (c >= 97 && c <= 122) return Cls.Lower;
  if (c >= 48 && c <= 57) return Cls.Digit;
  return Cls.Other;
}

/** Shannon entropy in bits per character (counted in a reused table: this runs often). */
const counts = new Uint32Array(1 << 16);

export function entropy(v: string): number {
  for (let i = 0; i < v.length; i += 1) counts[v.charCodeAt(i)] = (counts[v.charCodeAt(i)] as number) + 1;
  let h = 0;
  for (let i = 0; i < v.length; i += 1) {
    const c = v.charCodeAt(i);
    const n = counts[c] as number;
    if (n === 0) continue;
    const p = n / v.length;
    h -= p * Math.log2(p);
    counts[c] = 0;
  }
  return h;
}

const MIN_CHARS = 16;

/** A UUID is an id far more often than a key; hex digests are fingerprints. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A UUID inside a longer value: `rollout-2026-02-23T12-54-34-<uuid>` (a Codex session), `<uuid>.agent-a4ca7529` (a subagent's). */
const UUID_IN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Subresource integrity and content digests name a hash, not a secret. */
const DIGEST = /^(?:sha(?:1|224|256|384|512)|md5)[-:~]/i;

/**
 * A chain of words and numbers (`setup-uv-1-x86_64-linux-0.7.13-f6c6…`, a path, a host name) is a
 * name even when a hash ends it: most of its pieces are lower-case words or plain numbers.
 */
function isWordChain(v: string): boolean {
  const pieces = v.split(/[-./_:]+/).filter((p) => p.length > 0);
  if (pieces.length < 3) return false;
  const wordy = pieces.filter((p) => /^(?:[a-z]{2,}|[A-Z][a-z]+|\d{1,4})$/.test(p)).length;
  return wordy * 2 >= pieces.length;
}

export function looksRandom(v: string, min = MIN_CHARS): boolean {
  if (v.length < min || v.length > 4096) return false;
  let upper = 0;
  let lower = 0;
  let digit = 0;
  let other = 0;
  let switches = 0;
  let prev: Cls | null = null;
  for (let i = 0; i < v.length; i += 1) {
    const c = cls(v.charCodeAt(i));
    if (c === Cls.Upper) upper += 1;
    else if (c === Cls.Lower) lower += 1;
    else if (c === Cls.Digit) digit += 1;
    else other += 1;
    if (prev !== null && c !== prev) switches += 1;
    prev = c;
  }
  const alnum = upper + lower + digit;
  if (alnum < v.length * 0.7) return false;
  // Only hex: long enough to be a key (32+) and not a run of one digit.
  if (upper === 0 && /^(?:0x)?[0-9a-f]+$/.test(v)) return v.length >= 32 && digit > 0 && lower > 0 && entropy(v) >= 3.2;
  const kinds = (upper > 0 ? 1 : 0) + (lower > 0 ? 1 : 0) + (digit > 0 ? 1 : 0);
  if (kinds < 2) return false;
  // camelCase words and ALL_CAPS_NAMES switch class a few times; random text every other character.
  if (switches / v.length < (kinds === 3 ? 0.25 : 0.35)) return false;
  if (digit === 0 && other === 0 && switches / v.length < 0.45) return false;
  // The cheap counts first; the patterns only for what passed them.
  if (UUID.test(v) || DIGEST.test(v) || (other > 0 && isWordChain(v))) return false;
  if (other > 0 && idAroundUuid(v, min)) return false;
  return entropy(v) >= Math.min(3.5, Math.log2(v.length) - 0.6);
}

/**
 * Lower-case letters and digits as a generator makes them (a Twitch OAuth token, a base36 key), of
 * 20 characters or more, for a value right after a strong name ("my oauth token is thxca4wp…"):
 * random such runs switch between letters and digits too seldom for looksRandom, in about a third
 * of them (the forty-third red team measured 31 to 42 %). Three digits or more, eight letters or
 * more, letters not as words have them (few vowels, or four consonants in a row), and as varied
 * as a random run.
 */
export function looksGeneratedLower(v: string): boolean {
  if (v.length < 20 || v.length > 128 || !/^[a-z0-9]+$/.test(v)) return false;
  const digits = v.replace(/[a-z]/g, '').length;
  if (digits < 3 || v.length - digits < 8 || /^[0-9a-f]+$/.test(v)) return false;
  // Words have vowels, about two letters in five, and seldom four consonants in a row; a random run
  // of a 36-letter alphabet has about one in five, and such runs often.
  const letters = v.replace(/[0-9]/g, '');
  const vowels = letters.replace(/[^aeiou]/g, '').length;
  return (vowels / letters.length < 0.3 || /[bcdfghjklmnpqrstvwxz]{4}/.test(letters)) && entropy(v) >= 3.6;
}

/**
 * One UUID with a name or a time around it is an id, as the UUID alone is: every piece left around
 * it is a lower-case word, a number, a time's `23T12` or lower-case hex that does not look
 * generated (`agent-a4ca7529859c158c2`). Two or more (a token made of UUIDs), or any other piece
 * (`Xk9fQ2mZp7`, `xk9fq2mzp7`), and the value is judged whole.
 */
function idAroundUuid(v: string, min: number): boolean {
  const found = v.match(UUID_IN);
  if (found === null || found.length !== 1) return false;
  const rest = v.replace(UUID_IN, ' ').split(/[\s.\-_:/]+/).filter((p) => p.length > 0);
  return rest.every((p) => ID_PIECE.test(p) && !looksRandom(p, Math.min(min, 12)));
}

const ID_PIECE = /^(?:[a-z]+|\d+|\d+T\d+|[0-9a-f]+)$/;

/**
 * An identifier or a path made of words (`OAuth2ClientCredentials`, `aVeryLongConstantName12`,
 * `deploy-key-rotation`): most of its pieces are words of three letters or more, short capitals
 * or small numbers. A generated value's pieces are not.
 */
export function wordy(w: string): boolean {
  const pieces = w
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)/g, '$1 $2')
    .replace(/(\d)([A-Za-z])/g, '$1 $2')
    .split(/[\s_./:-]+/)
    .filter((p) => p.length > 0);
  const words = pieces.filter((p) => /^[A-Za-z][a-z]{2,}$|^[A-Z]{2,8}$|^\d{1,4}$/.test(p)).length;
  return words * 4 >= pieces.length * 3;
}
