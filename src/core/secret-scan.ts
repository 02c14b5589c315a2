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

const SHAPES: readonly Shape[] = [
  { kind: 'github_token', prefix: 'ghp_', min: 40, alphabet: /^[A-Za-z0-9_]+$/ },
  { kind: 'github_token', prefix: 'gho_', min: 40, alphabet: /^[A-Za-z0-9_]+$/ },
  { kind: 'github_token', prefix: 'ghs_', min: 40, alphabet: /^[A-Za-z0-9_]+$/ },
  { kind: 'github_token', prefix: 'ghu_', min: 40, alphabet: /^[A-Za-z0-9_]+$/ },
  { kind: 'github_token', prefix: 'github_pat_', min: 30, alphabet: /^[A-Za-z0-9_]+$/ },
  { kind: 'gitlab_token', prefix: 'glpat-', min: 26, alphabet: /^[A-Za-z0-9_-]+$/ },
  { kind: 'slack_token', prefix: 'xoxb-', min: 15, alphabet: /^[A-Za-z0-9-]+$/ },
  { kind: 'slack_token', prefix: 'xoxp-', min: 15, alphabet: /^[A-Za-z0-9-]+$/ },
  { kind: 'stripe_key', prefix: 'sk_live_', min: 24, alphabet: /^[A-Za-z0-9_]+$/ },
  { kind: 'stripe_key', prefix: 'rk_live_', min: 24, alphabet: /^[A-Za-z0-9_]+$/ },
  { kind: 'npm_token', prefix: 'npm_', min: 40, alphabet: /^[A-Za-z0-9_]+$/ },
  { kind: 'anthropic_key', prefix: 'sk-ant-', min: 30, alphabet: /^[A-Za-z0-9_-]+$/ },
  { kind: 'openai_key', prefix: 'sk-proj-', min: 30, alphabet: /^[A-Za-z0-9_-]+$/ },
  { kind: 'openai_key', prefix: 'sk-', min: 40, alphabet: /^[A-Za-z0-9_-]+$/ },
  { kind: 'google_api_key', prefix: 'AIza', min: 39, alphabet: /^[A-Za-z0-9_-]+$/ },
  { kind: 'aws_access_key_id', prefix: 'AKIA', min: 20, alphabet: /^[A-Z0-9]+$/ },
  { kind: 'aws_access_key_id', prefix: 'ASIA', min: 20, alphabet: /^[A-Z0-9]+$/ },
];

const DELIMS = /[\s"'`()<>[\]{},;=|\\]+/;

function preview(tok: string): string {
  return tok.length <= 8 ? '*'.repeat(tok.length) : `${tok.slice(0, 4)}…${tok.slice(-2)}`;
}

/** Every shape above starts with one of these: text without any of them holds no hit. */
const PREFIXES = /gh[opsu]_|github_pat_|glpat-|xox[bp]-|[rs]k_live_|npm_|sk-|AIza|AKIA|ASIA|eyJ|-----BEGIN|:\/\//;

export function scanForSecrets(text: string): SecretHit[] {
  const hits: SecretHit[] = [];
  if (!PREFIXES.test(text)) return hits;
  if (text.includes('-----BEGIN') && /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    hits.push({ kind: 'private_key', preview: '-----BEGIN … PRIVATE KEY-----', index: text.indexOf('-----BEGIN') });
  }
  let index = 0;
  for (const tok of text.split(DELIMS)) {
    const at = text.indexOf(tok, index);
    index = at === -1 ? index : at + tok.length;
    if (tok.length < 15) continue;
    for (const s of SHAPES) {
      if (tok.startsWith(s.prefix) && tok.length >= s.min && s.alphabet.test(tok)) {
        hits.push({ kind: s.kind, preview: preview(tok), index: at });
        break;
      }
    }
    if (tok.startsWith('eyJ') && tok.split('.').length === 3 && tok.length > 40 && tok.split('.')[1]?.startsWith('eyJ')) {
      hits.push({ kind: 'jwt', preview: preview(tok), index: at });
    }
    const url = /^[a-z][a-z0-9+.-]*:\/\/([^:/@\s]+):([^@/\s]+)@/i.exec(tok);
    if (url && !url[2]?.startsWith('[REDACTED')) hits.push({ kind: 'url_password', preview: preview(tok), index: at });
  }
  return hits;
}
