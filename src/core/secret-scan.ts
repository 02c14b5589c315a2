/**
 * A second, independent look for credentials, used by the quality gate over what the store is
 * about to hold. It shares no code and no patterns with the redactor on purpose: it splits text
 * into tokens and tests each against known credential shapes (prefix, length, alphabet), so a
 * mistake in one implementation is not repeated in the other.
 */

export interface SecretHit {
  kind: string;
  /** The first and last characters only: a finding must not become a leak. */
  preview: string;
  index: number;
}

interface Shape {
  kind: string;
  prefix: string;
  min: number;
  alphabet: RegExp;
}

const ALNUM = /^[A-Za-z0-9]+$/;
const ALNUM_ = /^[A-Za-z0-9_]+$/;
const ALNUM_DASH = /^[A-Za-z0-9_-]+$/;
const HEXISH = /^[A-Za-z0-9_]+$/;
const B64ISH = /^[A-Za-z0-9_.+/=-]+$/;

const shape = (kind: string, prefixes: readonly string[], min: number, alphabet: RegExp): Shape[] => prefixes.map((prefix) => ({ kind, prefix, min, alphabet }));

const SHAPES: readonly Shape[] = [
  ...shape('github_token', ['ghp_', 'gho_', 'ghs_', 'ghu_', 'ghr_'], 40, ALNUM_),
  ...shape('github_token', ['github_pat_'], 30, ALNUM_),
  ...shape('gitlab_token', ['glpat-', 'glptt-', 'gldt-', 'glrt-'], 26, ALNUM_DASH),
  ...shape('slack_token', ['xoxb-', 'xoxp-', 'xoxa-', 'xoxr-', 'xoxs-', 'xoxe-', 'xapp-'], 15, /^[A-Za-z0-9.-]+$/),
  ...shape('stripe_key', ['sk_live_', 'rk_live_', 'sk_test_', 'rk_test_', 'whsec_'], 24, ALNUM_),
  ...shape('npm_token', ['npm_'], 40, ALNUM_),
  ...shape('anthropic_key', ['sk-ant-'], 30, ALNUM_DASH),
  ...shape('openai_key', ['sk-proj-', 'sk-svcacct-', 'sk-admin-'], 30, ALNUM_DASH),
  ...shape('openai_key', ['sk-'], 40, ALNUM_DASH),
  ...shape('google_api_key', ['AIza'], 39, ALNUM_DASH),
  ...shape('google_oauth', ['GOCSPX-', 'ya29.'], 30, /^[A-Za-z0-9_.-]+$/),
  ...shape('aws_access_key_id', ['AKIA', 'ASIA'], 20, /^[A-Z0-9]+$/),
  ...shape('huggingface_token', ['hf_'], 37, ALNUM),
  ...shape('huggingface_token', ['hf_', 'api_org_'], 37, ALNUM_),
  ...shape('pypi_token', ['pypi-AgE'], 60, ALNUM_DASH),
  ...shape('digitalocean_token', ['dop_v1_', 'doo_v1_', 'dor_v1_'], 71, ALNUM_),
  ...shape('sendgrid_key', ['SG.'], 60, /^[A-Za-z0-9_.-]+$/),
  ...shape('shopify_token', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], 38, HEXISH),
  ...shape('databricks_token', ['dapi'], 36, /^[a-f0-9-]+$/),
  ...shape('vault_token', ['hvs.', 'hvb.'], 28, /^[A-Za-z0-9_.-]+$/),
  ...shape('sentry_token', ['sntrys_', 'sntryu_'], 50, B64ISH),
  ...shape('linear_key', ['lin_api_'], 48, ALNUM_),
  ...shape('postman_key', ['PMAK-'], 59, ALNUM_DASH),
  ...shape('age_secret_key', ['AGE-SECRET-KEY-1'], 74, /^[A-Z0-9-]+$/),
  ...shape('heroku_key', ['HRKU-'], 60, ALNUM_DASH),
  ...shape('doppler_token', ['dp.pt.', 'dp.st.'], 46, /^[A-Za-z0-9.]+$/),
  ...shape('swarm_join_token', ['SWMTKN-1-'], 85, /^[A-Za-z0-9-]+$/),
  ...shape('runpod_key', ['rpa_'], 44, ALNUM_),
];

/** Separators, and escape sequences read as separators: `\nghp_…` holds the token `ghp_…`. */
const DELIMS = /(?:\\+(?:[nrtbfv"'/`]|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2})|[\s"'`()<>[\]{},;=|\\])+/;

function preview(tok: string): string {
  return tok.length <= 8 ? '*'.repeat(tok.length) : `${tok.slice(0, 4)}…${tok.slice(-2)}`;
}

/** Every shape above starts with one of these: text without any of them holds no hit. */
const PREFIXES = /gh[opsur]_|github_pat_|gl(?:pat|ptt|dt|rt)-|xox[bparse]-|xapp-|[rs]k_(?:live|test)_|whsec_|npm_|sk-|AIza|GOCSPX-|ya29\.|AKIA|ASIA|eyJ|-----BEGIN|:\/\/|hf_|api_org_|pypi-|do[opr]_v1_|SG\.|shp(?:at|ca|pa|ss)_|dapi|hv[sb]\.|sntry[su]_|lin_api_|PMAK-|AGE-SECRET-KEY|HRKU-|dp\.[ps]t\.|SWMTKN-1-|rpa_/;

/**
 * Tokens never hold whitespace and every shape is found within one line, so a text's hits are
 * those of the lines that hold a prefix: a long text (a HANDOFF.md of tens of kilobytes, scanned
 * on every refresh) is tokenised only where a prefix is, not whole. The hits are the same, in the
 * same order, with the same indexes, as a scan of the whole text.
 */
const LINE_LOCAL_CHARS = 4096;
const PREFIX_AT = new RegExp(PREFIXES.source, 'g');

export function scanForSecrets(text: string): SecretHit[] {
  if (text.length <= LINE_LOCAL_CHARS) return scanWhole(text);
  const hits: SecretHit[] = [];
  if (!PREFIXES.test(text)) return hits;
  privateKey(text, hits);
  PREFIX_AT.lastIndex = 0;
  for (let m = PREFIX_AT.exec(text); m !== null; m = PREFIX_AT.exec(text)) {
    const start = text.lastIndexOf('\n', m.index) + 1;
    const nl = text.indexOf('\n', m.index);
    const end = nl === -1 ? text.length : nl;
    scanTokens(text.slice(start, end), start, hits);
    PREFIX_AT.lastIndex = end;
  }
  return hits;
}

/** The text tokenised at once: for short texts, and the reference the line-local scan is tested against. */
export function scanWhole(text: string): SecretHit[] {
  const hits: SecretHit[] = [];
  if (!PREFIXES.test(text)) return hits;
  privateKey(text, hits);
  scanTokens(text, 0, hits);
  return hits;
}

function privateKey(text: string, hits: SecretHit[]): void {
  if (text.includes('-----BEGIN') && /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    hits.push({ kind: 'private_key', preview: '-----BEGIN … PRIVATE KEY-----', index: text.indexOf('-----BEGIN') });
  }
}

/** What a token holds that a reader would not see: a key with one of these inside is still the key. */
const UNSEEN_MARKS = /[\u00ad\u0300-\u036f\u200b-\u200f\u2060-\u2064\ufe00-\ufe0f\ufeff]/g;

/**
 * A token with what a reader would not see taken out; U+FFFD only between parts that each hold a
 * letter and a digit (or are a few characters), as a key's do: between words or numbers it stands
 * for lost punctuation (`ASIA\ufffdPACIFIC\ufffdSALES`), and the token keeps it.
 */
function joined(raw: string): string {
  const seen = raw.replace(UNSEEN_MARKS, '');
  if (!seen.includes('\ufffd')) return seen;
  const parts = seen.split('\ufffd');
  const keyish = (p: string): boolean => p.length < 4 || (/[A-Za-z]/.test(p) && /[0-9]/.test(p));
  return parts.every(keyish) && parts.join('').length >= 16 ? parts.join('') : seen;
}

function scanTokens(text: string, offset: number, hits: SecretHit[]): void {
  let index = 0;
  for (const raw of text.split(DELIMS)) {
    const at = text.indexOf(raw, index);
    index = at === -1 ? index : at + raw.length;
    const tok = joined(raw);
    if (tok.length < 15) continue;
    const where = at === -1 ? -1 : at + offset;
    for (const s of SHAPES) {
      if (tok.startsWith(s.prefix) && tok.length >= s.min && s.alphabet.test(tok)) {
        hits.push({ kind: s.kind, preview: preview(tok), index: where });
        break;
      }
    }
    if (tok.startsWith('eyJ') && tok.split('.').length === 3 && tok.length > 40 && tok.split('.')[1]?.startsWith('eyJ')) {
      hits.push({ kind: 'jwt', preview: preview(tok), index: where });
    }
    const url = /^[a-z][a-z0-9+.-]*:\/\/([^:/@\s]*):([^@/\s]+)@/i.exec(tok);
    if (url && !url[2]?.startsWith('[REDACTED')) hits.push({ kind: 'url_password', preview: preview(tok), index: where });
  }
}
