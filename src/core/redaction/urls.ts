import type { Findings } from './findings.js';
import { PRIORITY } from './findings.js';
import type { Handler, LiteralScanner } from './literals.js';
import { isPlaceholder, nameStrength } from './names.js';
import { looksRandom } from './randomness.js';

/**
 * Credentials inside URLs: the password of `scheme://user:password@host` and `scheme://:password@`
 * (redis), a key used as the user name (a Sentry DSN's `https://<key>@o1.ingest.sentry.io/1`, a
 * token in `https://<token>@github.com`), signed-URL signatures (`sig=`, `X-Amz-Signature=`), and
 * keys in a query under names no list knows.
 * The user info is read from `://` to the last `@` before the host's end, so a password holding
 * an unescaped `@` goes whole.
 */

const MAX_SCHEME_CHARS = 32;
const MAX_USERINFO_CHARS = 512;

/**
 * Characters a userinfo run may hold: not whitespace / ? # ". A password holds what its generator
 * draws from: AWS Secrets Manager's (an RDS master password) `' ( ) [ ] { } < > \``, and a shell's
 * `'\''` for an apostrophe inside single quotes; those are taken only in a `user:password` before
 * a host (isOddChar).
 */
function isUserinfoChar(c: number): boolean {
  return c > 32 && c !== 47 && c !== 63 && c !== 35 && c !== 34;
}

/** ' ( ) < > [ \ ] ` { }: legal in a password as people write one, rare in a URL's userinfo otherwise. */
function isOddChar(c: number): boolean {
  return c === 39 || c === 40 || c === 41 || c === 60 || c === 62 || c === 91 || c === 92 || c === 93 || c === 96 || c === 123 || c === 125;
}

/**
 * Where a URL's userinfo ends (its `@`), -1 when it has none. Up to the first odd character
 * (isOddChar) the last `@` is it, as a URL has it; past one, an `@` counts only when no `@` came
 * before the odd character, the odd character follows the `user:` colon, and a host follows the
 * `@` (`https://deploy:Harb0r'\''s-Gate!2026@git.example.com`, `postgres://app:Xk9(mQ2]vL@db…`).
 */
function userinfoEnd(text: string, from: number, end: number): number {
  let at = -1;
  let beforeOdd = -1;
  let odd = -1;
  for (let i = from; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 64) {
      at = i;
      if (odd === -1) beforeOdd = i;
    } else if (odd === -1 && isOddChar(c)) odd = i;
  }
  if (odd === -1 || beforeOdd !== -1 || at === -1) return odd === -1 ? at : beforeOdd;
  const colon = text.indexOf(':', from);
  const host = text.charCodeAt(at + 1);
  const hostLike = (host >= 48 && host <= 57) || (host >= 65 && host <= 90) || (host >= 97 && host <= 122) || host === 91;
  return colon !== -1 && colon < odd && hostLike ? at : -1;
}

const PARAMS = ['sig', 'signature', 'Signature', 'X-Amz-Signature', 'X-Amz-Security-Token', 'X-Amz-Credential', 'X-Goog-Signature', 'X-Goog-Credential', 'x-goog-signature', 'x-goog-credential', 'x-amz-signature', 'x-amz-security-token', 'x-amz-credential'];
const PARAM_VALUE = /[^&\s"'#<>`]{16,4096}/y;

/** The passwords a host takes beside a token given as the user name: none of them is a secret. */
const TOKEN_AS_USER = /^(?:x-oauth-basic|x-access-token|x-token-auth|oauth2|token|x)$/i;

/** Azure DevOps' hosts, after a URL's `@`: `dev.azure.com`, `<org>.visualstudio.com`. */
const AZURE_DEVOPS_HOST = /^(?:dev\.azure\.com|[A-Za-z0-9-]{1,63}\.visualstudio\.com|ssh\.dev\.azure\.com)(?![A-Za-z0-9.-])/;

const userinfo: Handler = (text, p, found) => {
  let s = p;
  while (s > 0 && p - s < MAX_SCHEME_CHARS && /[A-Za-z0-9+.-]/.test(text[s - 1] as string)) s -= 1;
  // A scheme starts with a letter: `+postgres://` is a diff line's `+` before one.
  while (s < p && !/[A-Za-z]/.test(text[s] as string)) s += 1;
  if (s === p) return -1;
  // SQL Server's JDBC URL gives its properties after `;` (`jdbc:sqlserver://h:1433;database=x;user=a@b`):
  // no userinfo; a `password=` property has its own rule.
  if (/sqlserver$/i.test(text.slice(s, p))) return -1;
  const from = p + 3;
  let end = from;
  while (end < text.length && end - from < MAX_USERINFO_CHARS && isUserinfoChar(text.charCodeAt(end))) end += 1;
  const at = userinfoEnd(text, from, end);
  if (at <= from) return -1;
  const info = text.slice(from, at);
  const colon = info.indexOf(':');
  if (colon !== -1) {
    const password = info.slice(colon + 1);
    const user = info.slice(0, colon);
    // A token given as the user, with no password or one the host ignores (GitHub's
    // `https://<token>:x-oauth-basic@github.com/`, `https://<token>:@gitea…`): the user is the secret.
    if ((password.length === 0 || TOKEN_AS_USER.test(password)) && looksRandom(user, 20)) {
      found.add(from, from + colon, 'url_credential', PRIORITY.url);
      return p + 3;
    }
    if (password.length === 0 || isPlaceholder(password)) return -1;
    found.add(from + colon + 1, at, 'url_password', PRIORITY.url);
  } else if (/^[0-9a-f]{32}$/.test(info)) {
    found.add(from, at, 'sentry_dsn', PRIORITY.url);
  } else if (/^[a-z2-7]{52}$/.test(info) && AZURE_DEVOPS_HOST.test(text.slice(at + 1, at + 1 + 80))) {
    // Azure DevOps' personal access token of 52 base32 characters as the user (its 84-character
    // form looks generated): lower-case letters and digits, which the generated-looking test can miss.
    found.add(from, at, 'url_credential', PRIORITY.url);
  } else if (looksRandom(info, 20)) {
    found.add(from, at, 'url_credential', PRIORITY.url);
  } else return -1;
  return p + 3;
};

function signature(name: string): Handler {
  return (text, at, found) => {
    const before = text[at - 1];
    if (before !== '?' && before !== '&') return name === 'Signature' ? sigV4Header(text, at, found) : -1;
    PARAM_VALUE.lastIndex = at + name.length + 1;
    const m = PARAM_VALUE.exec(text);
    if (!m) return -1;
    found.add(m.index, m.index + m[0].length, 'url_signature', PRIORITY.url);
    return m.index + m[0].length;
  };
}

/**
 * AWS Signature Version 4 in an `Authorization` header (`AWS4-HMAC-SHA256 Credential=…,
 * SignedHeaders=…, Signature=<64 hex>`, curl's `-v` and botocore's debug log print it): the
 * signature authorises that request for minutes.
 */
function sigV4Header(text: string, at: number, found: Findings): number {
  const before = text[at - 1];
  if (before !== ' ' && before !== ',') return -1;
  if (!SIGV4_BEFORE.test(text.slice(Math.max(0, at - 400), at))) return -1;
  SIGV4_VALUE.lastIndex = at + 'Signature='.length;
  const m = SIGV4_VALUE.exec(text);
  if (!m) return -1;
  found.add(m.index, m.index + m[0].length, 'url_signature', PRIORITY.url);
  return m.index + m[0].length;
}

const SIGV4_BEFORE = /AWS4-HMAC-SHA256[^\n]*$/;
const SIGV4_VALUE = /[0-9a-f]{64}(?![0-9a-f])/y;

/** How far back from its `key=` a query parameter's name is read (`subscription-key`, `hapikey`). */
const MAX_PARAM_NAME_CHARS = 40;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const QUERY_KEY_VALUE = /[^&\s"'#<>`]{16,512}/y;

/**
 * A key given in a URL's query under a name no list knows: a parameter ending in `key` (HubSpot's
 * `hapikey`, `devkey`, `userkey`) or OpenWeatherMap's `appid`, whose value looks generated. The
 * names' own rules read `api_key=`, `key=` and `token=`; this reads only what follows `?` or `&`.
 */
const queryKey: Handler = (text, at, found) => {
  const eq = text.indexOf('=', at);
  let s = at;
  while (s > 0 && at - s < MAX_PARAM_NAME_CHARS && /[A-Za-z0-9_-]/.test(text[s - 1] as string)) s -= 1;
  const before = text[s - 1];
  if (before !== '?' && before !== '&') return -1;
  // A name the names' rules judge (`api_key`, `subscription-key`) is theirs.
  if (nameStrength(text.slice(s, eq)) !== null) return -1;
  QUERY_KEY_VALUE.lastIndex = eq + 1;
  const m = QUERY_KEY_VALUE.exec(text);
  if (!m || isPlaceholder(m[0])) return -1;
  // HubSpot's keys are UUIDs, which look too regular for `looksRandom`: under an API key's name they go too.
  const uuid = UUID.test(m[0]) && /api[-_]?key$|app[-_]?(?:id|key)$/i.test(text.slice(s, eq));
  if (!uuid && !looksRandom(m[0].replace(/%[0-9A-Fa-f]{2}/g, ''), 16)) return -1;
  found.add(m.index, m.index + m[0].length, 'url_query_key', PRIORITY.url);
  return m.index + m[0].length;
};

/**
 * An Azure Functions key in the query (`…/api/HttpTrigger?code=<key>`): 24 characters or more
 * that look generated. An OAuth redirect's code of that length is taken too: a credential while it lives.
 */
const functionCode: Handler = (text, at, found) => {
  const before = text[at - 1];
  if (before !== '?' && before !== '&') return -1;
  FUNCTION_CODE.lastIndex = at + 5;
  const m = FUNCTION_CODE.exec(text);
  if (!m || !looksRandom(m[0].replace(/%[0-9A-Fa-f]{2}/g, ''), 20)) return -1;
  found.add(m.index, m.index + m[0].length, 'url_query_key', PRIORITY.url);
  return m.index + m[0].length;
};
const FUNCTION_CODE = /[A-Za-z0-9_/+=%-]{24,200}(?![A-Za-z0-9_/+=%-])/y;

/**
 * Deploy and build hooks whose URL is the secret: whoever has it deploys. Netlify's
 * `api.netlify.com/build_hooks/<id>`, Vercel's `…/integrations/deploy/prj_…/<token>`, Render's
 * `api.render.com/deploy/srv-…?key=<key>`.
 */
const HOOKS: readonly (readonly [string, RegExp, ((value: string) => boolean)?])[] = [
  ['api.netlify.com/build_hooks/', /[0-9a-f]{24}(?![0-9a-f])/y],
  ['api.vercel.com/v1/integrations/deploy/', /prj_[A-Za-z0-9]{10,40}\/([A-Za-z0-9]{6,40})(?![A-Za-z0-9])/y],
  ['api.render.com/deploy/', /srv-[a-z0-9]{10,40}\?key=([A-Za-z0-9_-]{6,80})(?![A-Za-z0-9_-])/y],
  // MCP servers whose URL is their key (Zapier's, Pipedream's), Rocket.Chat's and Webex's incoming hooks.
  ['mcp.zapier.com/api/mcp/s/', /[A-Za-z0-9_=-]{20,200}(?![A-Za-z0-9_=-])/y],
  ['mcp.pipedream.net/', /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])/y],
  ['/hooks/', /[0-9a-f]{24}\/([A-Za-z0-9]{30,80})(?![A-Za-z0-9])/y],
  ['webexapis.com/v1/webhooks/incoming/', /[A-Za-z0-9_=-]{40,200}(?![A-Za-z0-9_=-])/y],
  // Heartbeat URLs: whoever has one reports the job as run (or as failed). Healthchecks.io's
  // `hc-ping.com/<uuid>` (or `/<ping key>/<slug>`), Cronitor's telemetry key, Better Stack's and
  // Uptime Kuma's push tokens.
  ['hc-ping.com/', /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])|[A-Za-z0-9_-]{22}(?=\/)/y],
  ['cronitor.link/p/', /[0-9a-f]{32}(?![0-9a-f])/y],
  // (Only a random token: `/api/push/notifications` is a route.)
  ['/api/v1/heartbeat/', /[A-Za-z0-9]{20,40}(?![A-Za-z0-9])/y, (v) => looksRandom(v, 20)],
  ['/api/push/', /[A-Za-z0-9]{10,40}(?![A-Za-z0-9])/y, (v) => looksRandom(v, 10)],
];

function deployHook(prefix: string, body: RegExp, check?: (value: string) => boolean): Handler {
  return (text, at, found) => {
    body.lastIndex = at + prefix.length;
    const m = body.exec(text);
    if (!m) return -1;
    const value = m[1] ?? m[0];
    if (check !== undefined && !check(value)) return -1;
    const start = m.index + m[0].length - value.length;
    found.add(start, start + value.length, 'deploy_hook', PRIORITY.url);
    return m.index + m[0].length;
  };
}

export function registerUrls(scanner: LiteralScanner): void {
  scanner.add('code=', functionCode, { boundary: false });
  for (const [prefix, body, check] of HOOKS) scanner.add(prefix, deployHook(prefix, body, check), { boundary: false });
  scanner.add('://', userinfo, { boundary: false });
  for (const name of PARAMS) scanner.add(`${name}=`, signature(name), { boundary: false });
  scanner.add('key=', queryKey, { boundary: false, caseless: true });
  scanner.add('appid=', queryKey, { boundary: true, caseless: true });
}
