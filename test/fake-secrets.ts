/**
 * Fake credentials of every kind SPEC §9 names, generated at run time from parts so that no
 * realistic-looking live credential is ever committed as a literal. A seeded generator keeps
 * them the same on every run (a failure replays) and random enough that a 12-character slice of
 * one cannot occur anywhere by chance.
 */

export interface FakeSecret {
  /** The `[REDACTED:<kind>]` tag the redactor is expected to use. */
  kind: string;
  /** The credential itself: it must not survive anywhere. */
  value: string;
  /** How it appears in text (an assignment, a header, a URL, ...). */
  text: string;
}

function generator(seed: number): (alphabet: string, n: number) => string {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (alphabet, n) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const B64URL = `${ALNUM}-_`;

const b64url = (s: string): string => Buffer.from(s).toString('base64url');

export function fakeSecrets(seed = 20260301): FakeSecret[] {
  const r = generator(seed);
  const keyBody = Array.from({ length: 6 }, () => r(`${ALNUM}+/`, 64)).join('\n');
  const pem = ['-----BEGIN ', 'RSA PRIVATE', ' KEY-----'].join('');
  const pemEnd = ['-----END ', 'RSA PRIVATE', ' KEY-----'].join('');
  const awsId = ['AK', 'IA', r(UPPER + DIGITS, 16)].join('');
  const awsSecret = r(`${ALNUM}/+`, 40);
  const ghp = ['gh', 'p_', r(ALNUM, 36)].join('');
  const ghPat = ['github', '_pat_', r(ALNUM, 22), '_', r(ALNUM, 59)].join('');
  const glpat = ['gl', 'pat-', r(`${ALNUM}_-`, 20)].join('');
  const slack = ['xo', 'xb-', r(DIGITS, 12), '-', r(DIGITS, 13), '-', r(ALNUM, 24)].join('');
  const stripe = ['sk', '_live_', r(ALNUM, 24)].join('');
  const npm = ['np', 'm_', r(ALNUM, 36)].join('');
  const openai = ['sk', '-proj-', r(B64URL, 48), 'T3Blbk', 'FJ', r(B64URL, 48)].join('');
  const anthropic = ['sk', '-ant-', 'api03-', r(B64URL, 93), 'AA'].join('');
  const google = ['AI', 'za', r(B64URL, 35)].join('');
  const jwt = [b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' })), b64url(JSON.stringify({ sub: r(ALNUM, 16), iat: 1767225600 })), r(B64URL, 43)].join('.');
  const bearer = r(`${ALNUM}._-`, 48);
  const urlPassword = r(ALNUM, 22);
  const dbPassword = r(ALNUM, 24);
  const apiKey = r(ALNUM, 32);
  return [
    { kind: 'private_key', value: keyBody, text: `${pem}\n${keyBody}\n${pemEnd}` },
    { kind: 'aws_access_key_id', value: awsId, text: `AWS_ACCESS_KEY_ID=${awsId}` },
    { kind: 'aws_secret_access_key', value: awsSecret, text: `AWS_SECRET_ACCESS_KEY=${awsSecret}` },
    { kind: 'github_token', value: ghp, text: `git clone https://github.com/acme/app.git # token ${ghp}` },
    { kind: 'github_token', value: ghPat, text: `GH_CLI_AUTH ${ghPat}` },
    { kind: 'gitlab_token', value: glpat, text: `gitlab token ${glpat}` },
    { kind: 'slack_token', value: slack, text: `slack bot ${slack}` },
    { kind: 'stripe_key', value: stripe, text: `stripe key ${stripe}` },
    { kind: 'npm_token', value: npm, text: `//registry.npmjs.org/:_authToken=${npm}` },
    { kind: 'openai_key', value: openai, text: `OPENAI key ${openai}` },
    { kind: 'anthropic_key', value: anthropic, text: `anthropic key ${anthropic}` },
    { kind: 'google_api_key', value: google, text: `maps key ${google}` },
    { kind: 'jwt', value: jwt, text: `session cookie ${jwt}` },
    { kind: 'bearer', value: bearer, text: `Authorization: Bearer ${bearer}` },
    { kind: 'url_password', value: urlPassword, text: `postgres://app:${urlPassword}@db.internal:5432/app` },
    { kind: 'secret_assignment', value: dbPassword, text: `DB_PASSWORD=${dbPassword}` },
    { kind: 'secret_assignment', value: apiKey, text: `"api_key": "${apiKey}"` },
  ];
}

/**
 * A distinctive 12-character piece from the middle of a secret (a partial leak is a leak). It is
 * taken within one line, so it survives JSON escaping of the line breaks around it.
 */
export function slice12(value: string): string {
  const line = value.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '');
  const start = Math.max(0, Math.floor(line.length / 2) - 6);
  return line.slice(start, start + 12);
}
