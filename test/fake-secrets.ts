/**
 * Fake credentials of every kind docs/SECURITY.md promises to remove, generated at run time from
 * parts so that no realistic-looking live credential is ever committed as a literal. A seeded
 * generator keeps them the same on every run (a failure replays) and random enough that a
 * 16-character run of one cannot occur anywhere by chance.
 */

export interface FakeSecret {
  /** What the case is, for test names. */
  name: string;
  /** The `[REDACTED:<kind>]` tag the redactor is expected to use. */
  kind: string;
  /** The credential itself: no part of it may survive anywhere. */
  value: string;
  /** How it appears in text (an assignment, a header, a URL, a command, a printout, ...). */
  text: string;
  /** Further credentials the same text holds (a credentials.csv row holds a password too). */
  others?: string[];
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
const HEX = '0123456789abcdef';
const ALNUM = UPPER + LOWER + DIGITS;
const B64URL = `${ALNUM}-_`;
const B64 = `${ALNUM}+/`;

const b64url = (s: string): string => Buffer.from(s).toString('base64url');
/** Joins parts, so that no prefix of a real credential format stands whole in this file. */
const j = (...parts: string[]): string => parts.join('');

/** A random value with every character class (letter cases, digits): what a generated secret looks like. */
function mixedValue(r: (a: string, n: number) => string, n: number, alphabet = ALNUM): string {
  return `${r(UPPER, 1)}${r(LOWER, 1)}${r(DIGITS, 1)}${r(alphabet, n - 3)}`;
}

export function fakeSecrets(seed = 20260301): FakeSecret[] {
  const r = generator(seed);
  const pemBody = Array.from({ length: 6 }, () => r(B64, 64)).join('\n');
  const pem = (label: string, body: string): string => [j('-----BEGIN ', label, ' KEY-----'), body, j('-----END ', label, ' KEY-----')].join('\n');
  const tailBody = [...Array.from({ length: 8 }, () => r(B64, 64)), `${r(B64, 40)}==`].join('\n');
  const awsId = j('AK', 'IA', r(UPPER + DIGITS, 16));
  const awsSecret = mixedValue(r, 40, B64);
  const awsSecret2 = mixedValue(r, 40, B64);
  const awsSecret3 = mixedValue(r, 40, B64);
  const csvId = j('AK', 'IA', r(UPPER + DIGITS, 16));
  const csvSecret = mixedValue(r, 40, B64);
  const csvPassword = `${mixedValue(r, 14)}!`;
  const jwt = [b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' })), b64url(JSON.stringify({ sub: r(ALNUM, 16), iat: 1767225600 })), r(B64URL, 43)].join('.');
  const webhookSecret = r(ALNUM, 24);
  const sentryKey = r(HEX, 32);
  const wallet = `0x${r(HEX, 64)}`;
  const appKey = `base64:${Buffer.from(r(ALNUM, 32)).toString('base64')}`;
  const azureKey = `${Buffer.from(r(ALNUM, 64)).toString('base64')}`;
  const redisPw = mixedValue(r, 20);
  const urlPw = mixedValue(r, 22);
  const curlPw = mixedValue(r, 18);
  const signature = mixedValue(r, 43, B64URL);
  const cookie = mixedValue(r, 32);
  const t = (name: string, kind: string, value: string, text: string, others?: string[]): FakeSecret => ({ name, kind, value, text, ...(others ? { others } : {}) });
  const v = {
    ghp: j('gh', 'p_', r(ALNUM, 36)),
    ghPat: j('github', '_pat_', r(ALNUM, 22), '_', r(ALNUM, 59)),
    glpat: j('gl', 'pat-', r(`${ALNUM}_-`, 20)),
    xoxb: j('xo', 'xb-', r(DIGITS, 12), '-', r(DIGITS, 13), '-', r(ALNUM, 24)),
    xapp: j('xa', 'pp-1-', r(UPPER + DIGITS, 11), '-', r(DIGITS, 13), '-', r(HEX, 64)),
    stripe: j('sk', '_live_', r(ALNUM, 24)),
    npm: j('np', 'm_', r(ALNUM, 36)),
    openai: j('sk', '-proj-', r(B64URL, 48), 'T3Blbk', 'FJ', r(B64URL, 48)),
    openaiLegacy: j('sk', '-', r(ALNUM, 20), 'T3Blbk', 'FJ', r(ALNUM, 20)),
    anthropic: j('sk', '-ant-', 'api03-', r(B64URL, 93), 'AA'),
    google: j('AI', 'za', r(B64URL, 35)),
    gcpOauth: j('GOC', 'SPX-', r(B64URL, 28)),
    hf: j('h', 'f_', r(UPPER + LOWER, 34)),
    pypi: j('py', 'pi-AgEIcHlwaS5vcmc', r(B64URL, 120)),
    digitalocean: j('do', 'p_v1_', r(HEX, 64)),
    sendgrid: j('S', 'G.', r(B64URL, 22), '.', r(B64URL, 43)),
    twilio: j('S', 'K', r(HEX, 32)),
    shopify: j('sh', 'pat_', r(HEX, 32)),
    databricks: j('da', 'pi', r(HEX, 32)),
    heroku: j('HR', 'KU-AA', r(B64URL, 58)),
    vault: j('hv', 's.', r(B64URL, 90)),
    sentryUser: j('sn', 'tryu_', r(HEX, 64)),
    linear: j('lin', '_api_', r(ALNUM, 40)),
    age: j('AGE-SECRET', '-KEY-1', r(UPPER + DIGITS, 58)),
    doppler: j('dp', '.pt.', r(ALNUM, 43)),
    grafana: j('gl', 'sa_', r(ALNUM, 32), '_', r(HEX, 8)),
    postman: j('PM', 'AK-', r(HEX, 24), '-', r(HEX, 34)),
    azureAd: j(r(ALNUM, 3), r(DIGITS, 1), 'Q~', r(`${ALNUM}_~.-`, 31)),
    telegram: j(r(DIGITS, 10), ':AA', r(B64URL, 33)),
    mailgun: j('ke', 'y-', r(HEX, 32)),
    atlassian: j('ATA', 'TT3', r(`${ALNUM}_=-`, 180)),
    bearer: r(`${ALNUM}._-`, 48),
    dbPass: mixedValue(r, 24),
    dbPw: mixedValue(r, 20),
    mysqlPwd: mixedValue(r, 20),
    encryption: mixedValue(r, 44, B64),
    mysqlP: mixedValue(r, 16),
    sshpass: mixedValue(r, 16),
    flagPw: mixedValue(r, 18),
    dockerPw: mixedValue(r, 20),
    apiKey: mixedValue(r, 32),
    codeLiteral: mixedValue(r, 24),
    iniPw: mixedValue(r, 18),
    yamlPw: mixedValue(r, 18),
    labelled: mixedValue(r, 32),
  };
  // Secrets known by the record they stand in (src/core/redaction/records.ts).
  const k8sValue = Buffer.from(`postgres://app:${mixedValue(r, 16)}@db:5432/app`).toString('base64');
  const pgpassPw = mixedValue(r, 18);
  const tfResult = mixedValue(r, 24);
  const discordId = `1${r(DIGITS, 18)}`;
  const discord = [Buffer.from(discordId).toString('base64').replace(/=+$/, ''), r(B64URL, 6), r(B64URL, 38)].join('.');
  const tablePw = mixedValue(r, 22);
  const storageCookie = mixedValue(r, 28);
  return [
    t('a PEM private key', 'private_key', pemBody, pem('RSA PRIVATE', pemBody)),
    t('a private key body printed without its BEGIN line (tail key.pem)', 'private_key', tailBody, `$ tail key.pem\n${tailBody}\n${j('-----END ', 'PRIVATE', ' KEY-----')}`),
    t('an AWS access key id', 'aws_access_key_id', awsId, `AWS_ACCESS_KEY_ID=${awsId}`),
    t('an AWS secret key in an env line', 'aws_secret_access_key', awsSecret, `AWS_SECRET_ACCESS_KEY=${awsSecret}`),
    t('an AWS secret key in prose', 'labelled_secret', awsSecret2, `my AWS secret key is ${awsSecret2} for the deploy user`),
    t('an AWS secret key given to aws configure', 'labelled_secret', awsSecret3, `aws configure set aws_secret_access_key ${awsSecret3}`),
    t('a printed credentials.csv', 'aws_secret_access_key', csvSecret, `User name,Password,Access key ID,Secret access key,Console login link\ndeploy,${csvPassword},${csvId},${csvSecret},https://123456789012.signin.aws.amazon.com/console`, [csvPassword, csvId]),
    t('a GitHub classic token', 'github_token', v.ghp, v.ghp),
    t('a GitHub fine-grained token', 'github_token', v.ghPat, v.ghPat),
    t('a GitLab token', 'gitlab_token', v.glpat, v.glpat),
    t('a Slack bot token', 'slack_token', v.xoxb, v.xoxb),
    t('a Slack app token', 'slack_token', v.xapp, v.xapp),
    t('a Slack webhook', 'slack_webhook', webhookSecret, `https://hooks.slack.com/services/T0${r(UPPER + DIGITS, 8)}/B0${r(UPPER + DIGITS, 8)}/${webhookSecret}`),
    t('a Stripe live key', 'stripe_key', v.stripe, v.stripe),
    t('an npm token', 'npm_token', v.npm, `//registry.npmjs.org/:_authToken=${v.npm}`),
    t('an OpenAI project key', 'openai_key', v.openai, v.openai),
    t('a legacy OpenAI key', 'openai_key', v.openaiLegacy, v.openaiLegacy),
    t('an Anthropic key', 'anthropic_key', v.anthropic, v.anthropic),
    t('a Google API key', 'google_api_key', v.google, v.google),
    t('a Google OAuth client secret', 'google_oauth', v.gcpOauth, v.gcpOauth),
    t('a JWT', 'jwt', jwt, jwt),
    t('a Hugging Face token', 'huggingface_token', v.hf, v.hf),
    t('a PyPI token', 'pypi_token', v.pypi, v.pypi),
    t('a DigitalOcean token', 'digitalocean_token', v.digitalocean, v.digitalocean),
    t('a bare SendGrid key', 'sendgrid_key', v.sendgrid, v.sendgrid),
    t('a Twilio API key', 'twilio_key', v.twilio, v.twilio),
    t('a Shopify token', 'shopify_token', v.shopify, v.shopify),
    t('a Databricks token', 'databricks_token', v.databricks, v.databricks),
    t('a Heroku key', 'heroku_key', v.heroku, v.heroku),
    t('a Vault token', 'vault_token', v.vault, v.vault),
    t('a Sentry user token', 'sentry_token', v.sentryUser, v.sentryUser),
    t('a Linear key', 'linear_key', v.linear, v.linear),
    t('an age secret key', 'age_secret_key', v.age, v.age),
    t('a Doppler token', 'doppler_token', v.doppler, v.doppler),
    t('a Grafana service account token', 'grafana_token', v.grafana, v.grafana),
    t('a Postman key', 'postman_key', v.postman, v.postman),
    t('an Azure AD client secret', 'azure_client_secret', v.azureAd, v.azureAd),
    t('a Telegram bot token', 'telegram_token', v.telegram, v.telegram),
    t('a Mailgun key', 'mailgun_key', v.mailgun, v.mailgun),
    t('an Atlassian token', 'atlassian_token', v.atlassian, v.atlassian),
    t('a bearer token', 'bearer', v.bearer, `Authorization: Bearer ${v.bearer}`),
    t('a password in a URL', 'url_password', urlPw, `postgres://app:${urlPw}@db.internal:5432/app`),
    t('a password-only URL', 'url_password', redisPw, `redis://:${redisPw}@cache.internal:6379/0`),
    t('a Sentry DSN', 'sentry_dsn', sentryKey, `SENTRY_DSN=https://${sentryKey}@o4507.ingest.sentry.io/4508`),
    t('a signed URL', 'url_signature', signature, `https://acct.blob.core.windows.net/c/b.bin?sv=2024-01-01&sp=r&sig=${signature}`),
    t('DB_PASS=', 'secret_assignment', v.dbPass, `DB_PASS=${v.dbPass}`),
    t('DB_PW=', 'secret_assignment', v.dbPw, `DB_PW=${v.dbPw}`),
    t('MYSQL_PWD=', 'secret_assignment', v.mysqlPwd, `MYSQL_PWD=${v.mysqlPwd}`),
    t('ENCRYPTION_KEY=', 'secret_assignment', v.encryption, `ENCRYPTION_KEY=${v.encryption}`),
    t('APP_KEY=base64:', 'secret_assignment', appKey, `APP_KEY=${appKey}`),
    t('an Azure storage connection string', 'secret_assignment', azureKey, `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${azureKey};EndpointSuffix=core.windows.net`),
    t('a JSON field', 'secret_assignment', v.apiKey, `"api_key": "${v.apiKey}"`),
    t('a string literal in code', 'secret_assignment', v.codeLiteral, `const token = "${v.codeLiteral}";`),
    t('an .ini line', 'secret_assignment', v.iniPw, `password = ${v.iniPw}`),
    t('a YAML line', 'secret_assignment', v.yamlPw, `  password: ${v.yamlPw}`),
    t('a wallet private key', 'secret_assignment', wallet, `wallet private key: ${wallet}`),
    t('a generated value after a label in prose', 'labelled_secret', v.labelled, `The new deploy token is ${v.labelled}, rotate it monthly.`),
    t('mysql -p', 'command_password', v.mysqlP, `mysql -h db.internal -u root -p${v.mysqlP} app < dump.sql`),
    t('sshpass -p', 'command_password', v.sshpass, `sshpass -p '${v.sshpass}' ssh deploy@10.0.0.5`),
    t('--password', 'secret_assignment', v.flagPw, `psql-backup --host db --password ${v.flagPw} --out /tmp/x`),
    t('curl -u', 'basic_auth', curlPw, `curl -fsS -u admin:${curlPw} https://ci.internal/api/json`),
    t('echo into docker login --password-stdin', 'command_password', v.dockerPw, `echo '${v.dockerPw}' | docker login ghcr.io -u deploy --password-stdin`),
    t('a cookie header', 'cookie', cookie, `Cookie: theme=dark; session_id=${cookie}`),
    t("a cookie in Playwright's storageState", 'cookie', storageCookie, `{"cookies":[{"name":"sessionid","value":"${storageCookie}","domain":".example.com","path":"/","httpOnly":true}]}`),
    t('a Kubernetes Secret', 'kubernetes_secret', k8sValue, `apiVersion: v1\ndata:\n  DATABASE_URL: ${k8sValue}\nkind: Secret\nmetadata:\n  name: app-env`),
    t('a .pgpass line', 'pgpass_password', pgpassPw, `echo "db.internal:5432:app:deploy:${pgpassPw}" > ~/.pgpass`),
    t("Terraform's random_password", 'terraform_password', tfResult, `{"type": "random_password", "instances": [{"attributes": {"length": 24, "result": "${tfResult}"}}]}`),
    t('a Discord bot token', 'discord_token', discord, `the bot starts with ${discord} now`),
    t('a password column of a Markdown table', 'secret_assignment', tablePw, `| Email | Password |\n|---|---|\n| ops@example.com | ${tablePw} |`),
  ];
}

/** Every credential of a fake, its own value first. */
export function valuesOf(s: FakeSecret): string[] {
  return [s.value, ...(s.others ?? [])];
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

/** Run length of the leak search: any run this long of a credential (or all of a shorter one). */
export const RUN = 16;

/** Every RUN-character run of a value, in its raw and its JSON-escaped form. */
export function runsOf(value: string): string[] {
  const out = new Set<string>();
  for (const form of [value, JSON.stringify(value).slice(1, -1)]) {
    if (form.length <= RUN) out.add(form);
    else for (let i = 0; i + RUN <= form.length; i += 1) out.add(form.slice(i, i + RUN));
  }
  return [...out];
}

/**
 * Where any credential of `secrets` shows in `text`, whole or as a RUN-character run of its raw
 * or JSON-escaped form: one pass over the text with a window, not one search per run.
 */
export function leaksOf(text: string, secrets: readonly FakeSecret[], where: string): string[] {
  const runs = new Map<string, string>();
  for (const s of secrets) for (const v of valuesOf(s)) for (const run of runsOf(v)) runs.set(run, s.name);
  const found = new Set<string>();
  const short = [...runs.keys()].filter((k) => k.length < RUN);
  for (const k of short) if (text.includes(k)) found.add(`${runs.get(k) ?? ''} in ${where}`);
  for (let i = 0; i + RUN <= text.length; i += 1) {
    const name = runs.get(text.slice(i, i + RUN));
    if (name !== undefined) found.add(`${name} in ${where}`);
  }
  return [...found];
}
