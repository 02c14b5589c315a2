import { looksRandom, wordy } from './randomness.js';

/**
 * Which names say that their value is secret, and which values are literals rather than code.
 *
 * A name is split into words (`DB_PASSWORD`, `apiKey`, `x-api-key`, `Secret access key`) and
 * judged by its last words, so `password_length`, `token_type`, `tokenizer` and `max_tokens`
 * name no secret while `MYSQL_PWD` and `client_secret` do. A strong name (password, secret,
 * token, api key, private key, …) marks any literal value; a weak one (`ENCRYPTION_KEY`, `key`,
 * `credentials`, `auth`) only a value that looks generated.
 */

export type Strength = 'strong' | 'weak' | null;

const STRONG_WORDS = new Set([
  'password', 'passwd', 'passwort', 'pwd', 'pw', 'pass', 'passphrase', 'passcode', 'passkey', 'secret', 'token',
  'apikey', 'secretkey', 'accesskey', 'privatekey', 'authkey', 'authtoken', 'accesstoken', 'refreshtoken', 'clientsecret',
  'requirepass', 'masterauth', 'storepass', 'keypass', 'srcstorepass', 'deststorepass',
  // sssd's and nslcd's bind password (`ldap_default_authtok = …`); Devise's pepper.
  'authtok', 'pepper',
  // wpa_supplicant's pre-shared key; a private key as one word (`PRIVKEY`).
  'psk', 'privkey',
  // Lightning's macaroons (LND_MACAROON, `Grpc-Metadata-macaroon`) are bearer credentials.
  'macaroon',
]);
/**
 * One-word names ending in `pass` that hold a password (`SSHPASS`, which `sshpass -e` reads,
 * `DBPASS`, `SMTPPASS`): only these, as `pass` ends ordinary words (`bypass`, `compass`).
 */
const PASS_NAMES = new Set(['sshpass', 'dbpass', 'smtppass', 'mailpass', 'keystorepass', 'truststorepass', 'ftppass', 'ldappass', 'mysqlpass', 'pgpass', 'redispass', 'rootpass', 'adminpass', 'userpass', 'proxypass', 'vncpass', 'wifipass', 'bindpass', 'rootpw', 'bindpw', 'ldapbindpw', 'ldaprootpw',
  // offlineimap's `remotepass`, SQL Server setup's `SAPWD`.
  'remotepass', 'localpass', 'sapwd']);
/** `<word> key` pairs that name a secret key. */
const STRONG_KEY_PREFIX = new Set(['api', 'secret', 'access', 'private', 'auth', 'client', 'master', 'account', 'shared', 'signing', 'encryption', 'app']);
/** `<word> key` pairs that name something public or structural. */
// Not `primary` nor `storage`: Azure names its account keys so (`primaryKey`, `AZURE_STORAGE_KEY`),
// and as weak names they mark only a value that looks generated, never `id` or `app-theme`.
const NOT_SECRET_KEY_PREFIX = new Set(['public', 'publishable', 'foreign', 'sort', 'partition', 'hash', 'cache', 'idempotency', 'object', 'dict', 'map', 'row', 'unique', 'composite', 'lookup', 'registry', 'react', 'list', 'group', 'route', 'query', 'translation', 'i18n', 'field', 'column', 'table', 'index', 'env', 'config', 'setting', 'settings', 'state', 'local', 'session', 'redis', 'kv', 'sub', 'dedup', 'dedupe', 'short', 'license', 'ssh', 'gpg', 'pgp',
  // A WebSocket handshake's nonce (`Sec-WebSocket-Key`).
  'socket']);
// `encrypt`: Consul's and Nomad's gossip encryption key (`encrypt = "…"`, `-encrypt=…`).
// `pin`, `pincode`: a PIN of digits only (numbers), or a value that looks generated (a GPIO pin is a small number, a version pin a version).
// `signing`: a webhook's signing secret named without the word secret (`STRIPE_WEBHOOK_SIGNING`);
// `keystore`: an Android keystore's file, in base64 (`ANDROID_KEYSTORE_BASE64`), holds its private key.
// `cred`: `LDAP_BIND_CRED`, `SMTP_CRED`. Not `hmac` alone: a digest (`"hmac": "5d41…"`, a test
// vector) is what it names as often as a key (the thirty-second stop's red team).
const WEAK_WORDS = new Set(['key', 'credential', 'credentials', 'creds', 'cred', 'auth', 'salt', 'encrypt', 'pin', 'pincode', 'signing', 'keystore']);
/** Words after the secret word that still name the secret itself. */
const QUALIFIERS = new Set([
  'value', 'val', 'b64', 'base64', 'encoded', 'hex', 'str', 'raw', 'plain', 'plaintext', 'enc', 'encrypted', 'hash', 'hashed', 'confirm', 'confirmation', 'again', 'repeat', 'new', 'old', 'current', 'text',
  // Which one of several: `DB_PASSWORD_PROD`, `GITHUB_TOKEN_RW`, `API_KEY_V2`, Rails' `SECRET_KEY_BASE`.
  'prod', 'production', 'staging', 'stage', 'stg', 'dev', 'development', 'test', 'testing', 'qa', 'uat', 'live', 'sandbox', 'local', 'rw', 'ro', 'readonly', 'readwrite', 'admin', 'root', 'primary', 'secondary', 'backup', 'main', 'base',
  // What it may do, or where it stands in: `HF_TOKEN_WRITE`, `NPM_TOKEN_PUBLISH`, `OPENAI_API_KEY_FALLBACK`.
  'write', 'read', 'publish', 'fallback', 'override', 'default', 'tmp', 'temp', 'ci',
  // Rotation, region, platform and deployment colour: `JWT_SECRET_NEXT`, `…_PREVIOUS`,
  // `ADYEN_API_KEY_EU`, `…_SECRET_KEY_IOS`, `DATABASE_PASSWORD_BLUE`, `SECRET_KEY_FALLBACKS`.
  'next', 'previous', 'prev', 'fallbacks', 'legacy', 'preprod', 'prd', 'eu', 'us', 'uk', 'apac', 'ios', 'android', 'web', 'mobile', 'blue', 'green',
  'au', 'sg', 'emea', 'canary', 'rotated', 'dr', 'macos',
]);
/** The plural of a secret word, read as the word: `SESSION_SECRETS`, `API_KEYS`, `ADMIN_TOKENS`, `bearerTokens`. */
const PLURAL_SECRETS: Readonly<Record<string, string>> = { secrets: 'secret', passwords: 'password', passphrases: 'passphrase', apikeys: 'apikey' };
/** Verbs before a plural secret word: an action on secrets (`--set-secrets`), not a list of them. */
const SECRETS_VERBS = new Set(['set', 'update', 'remove', 'rm', 'clear', 'list', 'get', 'mount', 'add', 'delete', 'create', 'load', 'sync', 'manage', 'rotate', 'scan', 'use', 'no', 'with', 'without', 'detect', 'find', 'redact', 'encrypt', 'decrypt', 'read', 'write', 'fetch', 'inject', 'import', 'export', 'show', 'has', 'all', 'num', 'max', 'count']);
/** Before `tokens`, the words that make it a list of credentials (`max_tokens`, `input_tokens` count words of a model). */
const TOKENS_OF = new Set(['admin', 'auth', 'bearer', 'access', 'refresh', 'api', 'session', 'bot', 'service', 'deploy', 'personal', 'secret', 'valid', 'allowed', 'webhook']);
/**
 * Shell variables whose names end in a secret word but hold none. The shell's `PWD` is not one:
 * its value is a path (kept as one), while `Pwd=…;` in a connection string is a password.
 */
const NOT_SECRET_NAMES = new Set(['oldpwd']);
/**
 * Secret words a name may end in with no separator before them (`PGPASSWORD`, `identitytoken`,
 * `WEBHOOKSECRET`): long enough not to end ordinary words. `pass` and `pwd` are not among them
 * (`bypass`, `compass`).
 */
const STRONG_SUFFIXES = ['password', 'passwd', 'passphrase', 'token', 'secret', 'apikey'];
/** Weak words a name may end in with no separator (Nextcloud's `passwordsalt`). */
const WEAK_SUFFIXES = ['salt'];

/** `DB_PASSWORD` → db password; `apiKey` → api key; `X-API-Key` → x api key. */
export function nameWords(name: string): string[] {
  const known = wordsOf.get(name);
  if (known) return known;
  const words = splitName(name);
  if (wordsOf.size >= MAX_JUDGED) wordsOf.clear();
  wordsOf.set(name, words);
  return words;
}

const wordsOf = new Map<string, string[]>();

/** A name's words: camelCase, snake_case and kebab-case split, in lower case. */
export function splitName(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** Names repeat (`input_tokens`, `apiKey`): a judgement of one is kept, up to a bound. */
const MAX_JUDGED = 4096;

function remembered<T>(judgeOf: (name: string) => T): (name: string) => T {
  const known = new Map<string, T>();
  return (name) => {
    if (known.has(name)) return known.get(name) as T;
    const v = judgeOf(name);
    if (known.size >= MAX_JUDGED) known.clear();
    known.set(name, v);
    return v;
  };
}

export const nameStrength: (name: string) => Strength = remembered((name) => judge(name));

/** A name's words without the qualifiers after its last word of meaning (`DB_PASSWORD_PROD` → db password). */
function meaningWords(name: string): string[] {
  const words = [...nameWords(name)];
  while (words.length > 1 && (QUALIFIERS.has(words[words.length - 1] as string) || /^v?\d+$/.test(words[words.length - 1] as string))) words.pop();
  // A secret word written as two (`pass_phrase` in an OCI config, `pass_word`): one word.
  const pair = `${words[words.length - 2] ?? ''} ${words[words.length - 1] ?? ''}`;
  if (pair === 'pass phrase' || pair === 'pass word') words.splice(-2, 2, pair.replace(' ', ''));
  // A numbered secret word (`key1`, `key2` of an Azure key listing, `password2`) is that word.
  const last = words[words.length - 1];
  const stem = last === undefined ? undefined : /^([a-z]+)\d{1,2}$/.exec(last)?.[1];
  if (stem !== undefined && (STRONG_WORDS.has(stem) || WEAK_WORDS.has(stem))) words[words.length - 1] = stem;
  return words;
}

/**
 * A name of a list of secrets (`SESSION_SECRETS`, `VALID_API_KEYS`, `ADMIN_TOKENS`,
 * `SECRET_KEY_FALLBACKS`, `signing_secrets`): each item of its value is one.
 */
export const namesSecretList: (name: string) => boolean = remembered((name) => judgeList(name));

function judgeList(name: string): boolean {
  // Every list name holds a plural word, and so an `s` (`…_SECRETS`, `apiKeys`, `…_FALLBACKS`).
  if (!/s/i.test(name)) return false;
  const words = [...nameWords(name)];
  let i = words.length - 1;
  // `SECRET_KEY_FALLBACKS`: a plural qualifier after a secret's name.
  if (words[i] === 'fallbacks') return judge(name) === 'strong';
  while (i > 0 && QUALIFIERS.has(words[i] as string)) i -= 1;
  const w = words[i];
  const prior = words[i - 1];
  // After a verb it names an action on secrets, not a list of them (`--set-secrets`, `list_secrets`).
  if (w === undefined || (prior !== undefined && SECRETS_VERBS.has(prior))) return false;
  // Only what a list of credentials is called: `SESSION_SECRETS`, `VALID_API_KEYS`, `ADMIN_TOKENS`
  // (not `accountKeys`, a Solana transaction's public addresses). The plural never makes a single
  // value secret: `secrets: inherit` and `imagePullSecrets:` are a workflow's and a pod's words.
  const one = PLURAL_SECRETS[w] ?? (w === 'tokens' && prior !== undefined && TOKENS_OF.has(prior) ? 'token' : w === 'keys' && prior !== undefined && LIST_KEY_PREFIX.has(prior) ? 'key' : undefined);
  if (one === undefined) return false;
  words[i] = one;
  return judge(words.join('_')) === 'strong';
}

/** Before `keys`, the words of a list of secret keys (`API_KEYS`, `APP_PREVIOUS_KEYS`). */
const LIST_KEY_PREFIX = new Set(['api', 'secret', 'access', 'private', 'auth', 'client', 'master', 'signing', 'encryption', 'app', 'previous']);

/**
 * A name of a password, which a person may have made up (`password`, `DB_PASSWORD`, `dbPassword`,
 * `ADMIN_PASSPHRASE_PROD`): after it, in prose, a table or a config line, a word with a digit and a
 * symbol or both cases is taken for one, though nothing about it looks generated.
 */
export function namesPassword(name: string): boolean {
  if (NOT_SECRET_NAMES.has(name.toLowerCase())) return false;
  const last = meaningWords(name).at(-1);
  // `pw` is no English word: "the admin pw is …" names a password as surely as the whole word.
  return last === 'password' || last === 'passwd' || last === 'passphrase' || last === 'pw';
}

export function namesPin(name: string): boolean {
  const words = meaningWords(name);
  const last = words.at(-1);
  return last === 'pin' || last === 'pincode' || (last === 'code' && words.at(-2) === 'pin');
}

function judge(name: string): Strength {
  if (NOT_SECRET_NAMES.has(name.toLowerCase())) return null;
  const words = meaningWords(name);
  const last = words[words.length - 1];
  if (last === undefined) return null;
  const before = words[words.length - 2];
  // A page's or a sync's cursor (`nextPageToken`, `NextToken`, `--starting-token`,
  // `NextContinuationToken`, `nextSyncToken`), and .NET's `PublicKeyToken` (the hash of an
  // assembly's public key, in every csproj): no secret. Not in an environment variable's name
  // (`FB_PAGE_TOKEN` is a Facebook page's access token).
  if (last === 'token' && before !== undefined && !/^[A-Z0-9_]+$/.test(name) && (CURSOR_WORDS.has(before) || (before === 'key' && words[words.length - 3] === 'public'))) return null;
  // A chart's `existingSecret` (`existing_secret_name`) names a Kubernetes Secret: no value.
  if (words.includes('existing') && words.length > 1) return null;
  if (STRONG_WORDS.has(last) || PASS_NAMES.has(last)) return 'strong';
  // A personal access token (`GITHUB_PAT`, `AZURE_DEVOPS_EXT_PAT`); `pat` alone is a name too often.
  if (last === 'pat' && (words.length > 1 || name === 'PAT')) return 'strong';
  if (STRONG_SUFFIXES.some((w) => last.length > w.length + 1 && last.endsWith(w))) return 'strong';
  if (WEAK_SUFFIXES.some((w) => last.length > w.length + 3 && last.endsWith(w))) return 'weak';
  const prev = words[words.length - 2];
  if (prev === 'pin' && last === 'code') return 'weak';
  // A Google service account's `private_key_id`: which key signs, not for anyone's eyes either.
  if (last === 'id' && prev === 'key' && words[words.length - 3] === 'private') return 'weak';
  // Yarn's `npmAuthIdent` (user:password).
  if (prev === 'auth' && last === 'ident') return 'strong';
  // AWS Secrets Manager's `SecretString` and `SecretBinary` hold the secret itself; so do a secret's
  // data or content (EC2's `PasswordData`, Terraform's `secret_data`, netsh's `Key Content`).
  if (prev === 'secret' && (last === 'string' || last === 'binary')) return 'strong';
  if ((last === 'data' || last === 'content') && prev !== undefined && (STRONG_WORDS.has(prev) || (prev === 'key' && words.length === 2))) return 'strong';
  // A one-time password's or a wallet's seed (`OTP_SEED`, `TOTP_SEED`, `WALLET_SEED`) and a
  // recovery phrase (`SEED_PHRASE`, `WALLET_MNEMONIC`) give whoever reads them the account: not a
  // random generator's seed (`RANDOM_SEED`, `--seed`) nor an instruction's mnemonic.
  if (last === 'seed' && prev !== undefined && SEED_OF.has(prev)) return 'strong';
  if ((last === 'phrase' && (prev === 'seed' || prev === 'recovery' || prev === 'mnemonic')) || (last === 'mnemonic' && prev !== undefined && (SEED_OF.has(prev) || prev === 'recovery' || prev === 'seed'))) return 'strong';
  if (last === 'key') {
    if (prev !== undefined && STRONG_KEY_PREFIX.has(prev)) return 'strong';
    if (prev !== undefined && NOT_SECRET_KEY_PREFIX.has(prev)) return null;
    return 'weak';
  }
  return WEAK_WORDS.has(last) ? 'weak' : null;
}

/** Before `seed`, the words of a seed that is a secret: a one-time password's or a wallet's. */
const SEED_OF = new Set(['otp', 'totp', 'hotp', 'mfa', '2fa', 'wallet', 'bip39']);

/** The word before `token` in the name of a cursor through pages or changes. */
const CURSOR_WORDS = new Set(['next', 'page', 'starting', 'start', 'continuation', 'sync', 'resume', 'paging', 'pagination', 'cursor', 'prev', 'previous', 'more', 'delta']);

/**
 * A word of code or of a schema (`true`, `none`, `string`, `redacted`), a scope a workflow grants
 * (`id-token: write`), or a state a message reports (`token: expired`, `password: missing`): no
 * value a secret has.
 */
export const isKeyword = (v: string): boolean => KEYWORDS.test(v);

const KEYWORDS = /^(?:true|false|null|nil|none|undefined|yes|no|on|off|required|optional|string|number|boolean|bool|str|int|integer|float|bytes|any|object|void|self|this|new|await|async|function|lambda|def|return|if|else|not|and|or|in|is|of|typeof|instanceof|secretstr|text|varchar|char|uuid|date|datetime|json|password|secret|token|hidden|masked|redacted|example|placeholder|changeme|todo|tbd|read|write|expired|invalid|missing|revoked|valid|unset|empty|absent|unknown|disabled|enabled|present|provided|pending|rotated|ok|latest)$/i;

/** Values that stand for a secret kept elsewhere, or for none at all. */
export function isPlaceholder(v: string): boolean {
  if (v.length === 0) return true;
  if (v.startsWith('[REDACTED:')) return true;
  // A `$` then a generated-looking word is a password that starts with `$` (`password: $Xq8Lm3Wz9Rk`),
  // not a variable: a variable is named (`$DB_PASSWORD`, `$dbPassword`).
  if (/^\$[A-Za-z0-9]{10,}$/.test(v) && looksRandom(v.slice(1), 10)) return false;
  // A wrapper around a generated word is a password that begins and ends with a symbol
  // (`@Xq8Lm3Wz9Rk@`, `<k9Tq2Wz7Lp4R>`), not a reference: a reference wraps a name.
  const wrapped = /^[<!%@`]([\s\S]{4,80})[>!%@`]$/.exec(v)?.[1];
  if (wrapped !== undefined && looksRandom(wrapped, 10)) return false;
  // `<your-password>` closes: a value that only starts with `<` (a generated password) is none;
  // a backquoted command (`` `cat ~/.pw` ``) closes too.
  if (/^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\(.*|`[^`]*`|%[A-Za-z_][A-Za-z0-9_]*%|%\(?\w*\)?s|\{\{.*\}\}|\{\d*\}|<[^<>]{0,80}>|\[[^\]]*\]|\*+|x{3,}|X{3,}|\.{3}|…|\?+|-+|_+)$/.test(v)) return true;
  // What a local model server takes for a key it does not check (Ollama, LM Studio, vLLM's `EMPTY`).
  if (/^(?:ollama|lm-studio|lmstudio|empty|not-needed|no-key|nokey|sk-no-key-required|none|null|dummy)$/i.test(v)) return true;
  // Masked (`gho_****`), templated, or an instruction to fill it in (`replace-me`, `your_token_here`).
  // A password prompt's echo of what was typed (`Password: ········`) is a mask too.
  // A template reference is one that closes around a name (`${DB_PASSWORD}`, `{{ vault_pw }}`,
  // `#{db.password}`): `#{` or `${` inside a generated password (`e^vTe~]nNgW&7#{!9Qx`) is none.
  // (A value read up to the brace, `${API_KEY:?missing`, is one too.)
  if (/^\$\{[A-Za-z_][\w.-]{0,80}(?::?[-?+=][^}]{0,80})?$/.test(v)) return true;
  if (/\*{3}|[•·●∙]{3}|\$\{[A-Za-z_][\w.-]{0,80}(?::?[-?+=][^}]{0,80})?\}|\{\{[^{}]{1,120}\}\}|#\{[A-Za-z_][\w.]{0,80}\}|%\(\w+\)s/.test(v)) return true;
  // An empty string, quoted (`password: ""` in a Secret's stringData).
  if (v === '""' || v === "''") return true;
  // Where openssl is told to read it (`-pass stdin`, `-passin env:PW`, `file:…`, `fd:3`): no value.
  if (/^(?:stdin|fd:\d{1,3}|env:[A-Za-z_]\w*|file:\S+)$/.test(v)) return true;
  // A mask in words (`**REDACTED**`, `**hidden**`), a token's type around `x`s (`ExponentPushToken[xxxxxxxx]`).
  if (/^\*{1,3}[A-Za-z_ -]{3,24}\*{1,3}$/.test(v) || /^[A-Za-z]{2,30}\[(?:x{6,}|X{6,})\]$/.test(v)) return true;
  // A documentation example (`AKIAIOSFODNN7EXAMPLE`, `wJalr…EXAMPLEKEY`), a token's prefix then `x`s (`ghp_xxxx…`).
  if (/EXAMPLE(?:KEY)?$/.test(v) || /^[A-Za-z]{2,12}[_-](?:[a-z]{2,8}[_-])?(?:x{8,}|X{8,})$/.test(v)) return true;
  // cmd.exe's delayed expansion (`!API_TOKEN!`), a DB-API placeholder (`%(password)s`), Azure Data
  // Factory's expression (`@{variables('apiToken')}`), a masked or elided key (`sk-...a1B2`, `base64:...`).
  if (/^![A-Za-z_]\w*!$|^%\(\w+(?:\)s)?$|^@\{.*\}$/.test(v) || (v.length <= 24 && /\.\.\.|…/.test(v))) return true;
  // A reference to where the secret is kept: Vault, 1Password, AWS Secrets Manager and Parameter Store.
  if (/^(?:vault:|op:\/\/|arn:aws:(?:secretsmanager|ssm):|secretsmanager:|ssm:\/)/.test(v)) return true;
  // …and the references of config systems: Azure App Service's Key Vault reference, Symfony's
  // `%env(DB_PASSWORD)%`, Grafana's `$__file{…}`, opencode's `{env:X}`, PowerShell's `$env:X`,
  // Maven's resource filter `@db.password@`, a release pipeline's token `__DB_PASSWORD__`.
  if (/^@Microsoft\.KeyVault\(|^%env\([^)]{1,120}\)%$|^\$__(?:file|env|vault)\{|^\{(?:env|file):[^}]{1,200}\}$|^\$env:[A-Za-z_]\w*$|^@[A-Za-z_][\w.-]{0,80}@$|^__[A-Z][A-Z0-9_]{1,80}__$/.test(v)) return true;
  // …and those of a proxy's, a deployment's and a workflow's config: LiteLLM's `os.environ/X`,
  // helmfile's and vals' `ref+vault://…`, a single-brace substitution (`'{MQTT_PASSWORD}'`),
  // Azure Logic Apps' and Data Factory's expressions (`@parameters('apiKey')`), Ansible's own mask.
  if (/^os\.environ\/[A-Za-z_]\w{0,80}$|^ref\+[a-z0-9]{2,20}:\/\/|^\{[A-Z][A-Z0-9_]{2,80}\}$|^@(?:parameters|variables|appsetting|pipeline|activity|body|triggerBody|outputs|linkedService|dataset|item|json|string|concat|coalesce)\(.{0,200}\)$|^VALUE_SPECIFIED_IN_NO_LOG_PARAMETER$/.test(v)) return true;
  // A secret's name and version in Secret Manager (`gcloud run deploy --set-secrets=DB_PASS=db-pass:latest`).
  // A name of words joined by `-` or `_` (not `admin:1234`, a user and a password).
  if (/^[a-z][a-z0-9]*[-_][a-z0-9_-]{0,250}:(?:latest|\d{1,6})$/.test(v)) return true;
  // BuildKit's secret mount (`--secret id=npmrc,src=…`): the id names the mount, its value is elsewhere.
  if (/^id=[\w.-]{1,64}$/.test(v)) return true;
  // Stripe's documented test tokens (`tok_visa`, `pm_card_mastercard`, `tok_chargeDeclined`): words, never a generated id.
  if (/^(?:tok|pm_card)_[a-z][A-Za-z_]{2,40}$/.test(v)) return true;
  // Validation rules (Laravel's `required|string|min:8|confirmed`, `required,min=8`), not a value.
  if (RULE_LIST.test(v) && RULE_WORD.test(v)) return true;
  // The name of a secret kept elsewhere (a Kubernetes Secret `shop-db-credentials`, `db-password`).
  if (/^[a-z]+(?:[-_.][a-z0-9]+)*[-_.](?:credentials|creds|secrets?|tokens?|keys?|passwords?|certs?|tls)$/.test(v)) return true;
  if (/^(?:replace|your|change|enter|insert|put|paste|fill)[-_ ]|^(?:changeme|change_me|placeholder|example|redacted|none|tobemodified|foobared)$|[-_](?:here|goes_here)$/i.test(v)) return true;
  return isPlaceholderWords(v);
}

const RULE_LIST = /^[a-z_]+(?:[:=][\w.-]{0,20})?(?:[|,][a-z_]+(?:[:=][\w.,-]{0,20})?){1,12}$/;
const RULE_WORD = /(?:^|[|,])(?:required|nullable|optional|confirmed|sometimes|omitempty|string|email|min|max|alpha_num|regex)(?:[:=|,]|$)/;

/** Words that make a value a stand-in when it is made of words only: `local-demo`, `my_test_secret`. */
const PLACEHOLDER_WORDS = new Set(['demo', 'example', 'sample', 'dummy', 'test', 'testing', 'fake', 'local', 'dev', 'development', 'changeme', 'change', 'replace', 'placeholder', 'your', 'my', 'here', 'secret', 'password', 'token', 'key', 'todo', 'default', 'insecure', 'unsafe', 'foo', 'bar', 'baz', 'xxx']);

function isPlaceholderWords(v: string): boolean {
  const words = v.split(/[-_. ]+/);
  // A test fixture's number at the end (`test-api-key-123`) keeps it words.
  const last = words.length > 2 && /^\d{1,4}$/.test(words[words.length - 1] as string) ? words.slice(0, -1) : words;
  return last.every((w) => /^[a-z]+$/.test(w)) && last.some((w) => PLACEHOLDER_WORDS.has(w));
}

export interface ValueContext {
  /** The name, as written (for `token=token`). */
  name: string;
  /** `=` with no space around it, an UPPER_CASE name or a command-line flag: shell and .env. */
  envStyle: boolean;
  /** The separator: `=`, `:` or ' ' (a flag and its value). */
  sep: string;
  /** Spaces around the separator. */
  spaced: boolean;
  /** Nothing but spaces or a comment follows the value on its line. */
  lineFinal: boolean;
  /** The character right after the value. */
  next: string;
  quoted: boolean;
}

/**
 * A blockchain address or public key (base58, 32 to 44 characters) is public; a key named only
 * weakly (`trading_key`, `mint_key`) with such a value is one. Secret keys in base58 are twice as long.
 */
export const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
/** Names of what a chain makes public: a mint, a wallet, a program, a pool, an account's address. */
export const CHAIN_NAME = /mint|wallet|program|pool|market|trading|pubkey|public|address|account|owner|authority|vault|sol|chain|nft|coin/i;

const IDENT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
const GRAPHQL_SCALAR = /^(?:ID|Int|Float|Boolean|String|Upload|DateTime|Date|JSON|URL|Email)$/;
/** A call (Elixir's and Ruby's `System.fetch_env!(…)`, `valid?(…)` too), an index, a generic, a path or a pointer's member. */
const CALL = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:[!?]?\(|\[|<|::|->)/;
/** A PowerShell command that asks for or reads the value (`$env:DB_PASSWORD = Read-Host -AsSecureString`). */
const CMDLET = /^(?:Read|Get|ConvertTo|ConvertFrom|Import|Invoke|New)-[A-Z][A-Za-z]{2,40}$/;

/**
 * Whether an unquoted value is source code: a call, an index, a member, a type, a keyword, a
 * variable passed under its own name, or an identifier where only code would put one. In shell
 * and .env syntax a bare word is a literal, so there only calls and references count as code.
 */
export function looksLikeCode(value: string, ctx: ValueContext): boolean {
  // TypeScript's non-null assertion and optional chaining (`process.env.API_KEY!`,
  // `session?.access_token`) and a GraphQL type (`password: String!`, `[ID!]!`) are code too.
  // A letter, a dot and a generated-looking rest is a token (Vault's `s.…` and `b.…`), not a member.
  if (/^[a-z]\.[A-Za-z0-9_-]{20,}$/.test(value) && looksRandom(value.slice(2), 16)) return false;
  let v = value;
  if (!ctx.envStyle) {
    v = v.replace(/\?\./g, '.');
    const bare = v.replace(/^\[|!$|!?\]!?$/g, '');
    if (bare !== v && (bare.includes('.') || KEYWORDS.test(bare) || GRAPHQL_SCALAR.test(bare))) v = bare;
  }
  if (CALL.test(v) && !ctx.envStyle) return true;
  if (CMDLET.test(v)) return true;
  if (!IDENT.test(v)) return false;
  if (KEYWORDS.test(v)) return true;
  const lower = v.toLowerCase();
  const words = nameWords(ctx.name);
  if (lower === ctx.name.toLowerCase().replace(/^-+/, '') || words.includes(lower) || lower.endsWith(`.${words[words.length - 1] ?? ''}`)) return true;
  // A member (`self.token`) in code, a host name in .env; a literal on a configuration file's line.
  if (v.includes('.')) return !ctx.envStyle && !configLiteral(v, ctx);
  if (ctx.envStyle) return false;
  const digits = /\d/.test(v);
  if (ctx.sep === '=' && !ctx.spaced && (ctx.next === ',' || ctx.next === ')')) return !digits;
  if (ctx.sep === '=' && ctx.spaced) return !digits;
  if (ctx.sep === ':' && !ctx.lineFinal) return !digits;
  // A line-final `name: Value` is YAML unless it reads as a type or a variable.
  if (!digits && (/[a-z][A-Z]/.test(v) || /^[A-Z][a-z]/.test(v) || v.includes('_'))) return true;
  return false;
}

/** What a member access starts from: an object, a module, a namespace, a letter. */
const CODE_ROOT = /^(?:self|this|cls|super|process|os|sys|env|environ|config|conf|cfg|settings|options|opts|args|argv|params|props|ctx|context|req|request|res|app|window|global|globalThis|secrets?|vault|credentials?|creds|import|module|exports|System|Environment|[A-Za-z_$])$/i;

/**
 * A dotted value with a digit that ends its line after `name: ` or `name=` (no space) is what a
 * YAML or a properties file holds (`POSTGRES_PASSWORD: s3cr3t.Kx9vQ`,
 * `spring.datasource.password=Wq7.mN4pLz8`), unless it starts from what code reads members of
 * (`settings.`, `self.`, `process.`) or ends with the name's own word (`config.db2.password`).
 * Code puts such a member mid-line (`f(password: cfg.pw2, …)`) or after a spaced `=`.
 */
function configLiteral(v: string, ctx: ValueContext): boolean {
  if (ctx.quoted || !ctx.lineFinal || !/\d/.test(v)) return false;
  if (ctx.sep !== ':' && !(ctx.sep === '=' && !ctx.spaced)) return false;
  return !CODE_ROOT.test(v.slice(0, v.indexOf('.')));
}

/** Quoted text that reads as a sentence (a message, a label, a prompt) rather than a key. */
function isProse(v: string): boolean {
  const words = v.split(/\s+/);
  if (words.length === 1) return false;
  // A passphrase of generated groups (`"Vq8 Lm3X z7Rt Kw2"`, fastlane match's): every word mixes letters and digits.
  if (words.every((w) => PASS_GROUP.test(w) && /\d/.test(w) && /[A-Za-z]/.test(w))) return false;
  return words.length >= 3 || /[.:?!]$/.test(v);
}

const PASS_GROUP = /^[A-Za-z0-9]{3,10}$/;

/** An identifier that itself names a secret (`--secret dbPassword`, `key: API_TOKEN`): the name of one, not its value. */
const NAMES_A_SECRET = /^[A-Za-z][A-Za-z_]*(?:passw(?:or)?d|token|secret|api_?key|apikey|credentials?)$/i;
const VERSION = /^(?:[\^~]|[<>]=?|=)?[ \t]*v?\d{1,4}(?:\.\d{1,6}){1,3}(?:-[\w.]{1,30})?(?:\+[\w.]{1,30})?$|^[a-z][\w.-]{0,80}:v?\d{1,4}(?:\.\d{1,6}){1,3}(?:[-.][\w]{1,20})*$/i;
/** The word "password" or "token" as a form labels its field, in the languages interfaces are translated into most. */
const UI_LABELS = new Set(['password', 'passwort', 'kennwort', 'contraseña', 'contrasena', 'senha', 'parola', 'wachtwoord', 'hasło', 'haslo', 'пароль', '密码', '密碼', 'パスワード', '비밀번호', 'lösenord', 'losenord', 'adgangskode', 'passord', 'salasana', 'jelszó', 'şifre', 'sifre', 'heslo', 'token', 'jeton', 'secret', 'api key', 'apikey', 'api-key', 'api-schlüssel', 'schlüssel', 'clé api', 'clave api', 'chiave api', 'geheimnis']);

/** A value that is the name's own words (`secretKey: 'Secret key'`, `API_TOKEN: "API token"`): a label. */
function sameWords(v: string, name: string): boolean {
  const norm = (x: string): string => x.toLowerCase().replace(/[^a-z]/g, '');
  return /^[A-Za-z][A-Za-z _-]{2,40}$/.test(v) && norm(v) === norm(name);
}

/** Why a value of a secret-naming name was kept (audits and the false-positive measure read it). */
export type KeptBecause = 'placeholder' | 'number' | 'url' | 'path' | 'prose' | 'code' | 'keyword' | 'public address' | 'not generated';

/** Null when `v`, the value of a secret-naming name, is a credential to remove; else why it is not. */
export function keptBecause(v: string, strength: Exclude<Strength, null>, ctx: ValueContext): KeptBecause | null {
  // In shell and .env syntax a value starting with a bracket is a literal too (a generated password may).
  // An escaped reference (`PASSWORD=\$DB_PASS` inside double quotes) is one still.
  if (!ctx.quoted && ((ctx.envStyle ? /^\\\$/ : /^[(){}[\]<>&|\\=:,;]/).test(v) || looksLikeCode(v, ctx))) return 'code';
  if (!ctx.quoted && NAMES_A_SECRET.test(v) && !/\d/.test(v)) return 'code';
  // This tool's own error codes (`could not build /etc/passwd: HANDOFF_ERR_SOCKET: …`).
  if (/^HANDOFF_ERR_[A-Z_]{2,40}:?$/.test(v)) return 'code';
  // A Prisma field's type (`resetToken   String?`, `apiKeys String[]`).
  if (!ctx.quoted && /^(?:String|Int|BigInt|Float|Decimal|Boolean|DateTime|Json|Bytes)(?:\?|\[\])?$/.test(v)) return 'code';
  // git's `user.signingKey`: a GPG key's id (16 or 40 hex digits), which names a key and is no key.
  if (/^signingkey$/i.test(ctx.name) && /^(?=[0-9A-F]*[A-F])(?:[0-9A-F]{16}|[0-9A-F]{40})!?$/.test(v)) return 'code';
  if (v.length < 4 || v.length > 4096 || isPlaceholder(v)) return 'placeholder';
  // A version or a range (`"jsonwebtoken": "^9.0.2"`, `tiktoken = "^0.7.0"`), an artifact and its version (`jjwt-api:0.12.5`).
  if (VERSION.test(v)) return 'number';
  // A date or a time (`gh secret list`'s «NPM_TOKEN<TAB>2026-02-01T10:00:00Z»: when it was updated).
  if (/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) return 'number';
  // A form's label under the field's own name, in any language (`"password": "Passwort"`).
  if (UI_LABELS.has(v.toLowerCase()) || (ctx.quoted && sameWords(v, ctx.name))) return 'prose';
  // A file under a project's folders (Jest's ` PASS  src/auth/token.test.ts`).
  if (/^[\w.-]+(?:\/[\w.-]+)+\.[A-Za-z]{1,5}$/.test(v) && !looksRandom(v)) return 'path';
  // A PIN (`SIM_PIN=482913`, `admin_pin: 83920174`): four digits or more under a name that ends in one.
  if (/^\d{4,12}$/.test(v) && namesPin(ctx.name)) return null;
  // A number, unless a strong name holds eight digits or more of five different ones: a password
  // of digits, not a port, a count or a test vector (`0808…08`).
  if (/^[+-]?(?:\d+(?:\.\d+)?|0x[0-9a-f]{1,8})$/i.test(v) && !(strength === 'strong' && /^\d{8,}$/.test(v) && new Set(v).size >= 5)) return 'number';
  if (/^(?:https?|file):\/\//i.test(v)) return 'url'; // a URL's own credentials have their rule
  // A path, of one folder too (`PWD=/app` in a container's environment), unless it looks generated.
  if (/^(?:~|\.{1,2})?\/[\w.-]+(?:\/[\w./-]*)?$/.test(v) && !looksRandom(v)) return 'path';
  // A passphrase of words in an assignment or after a flag (`KEYSTORE_PASSPHRASE="marble uBA8 …"`,
  // `gpg --passphrase 'tundra velvet …'`): no sentence, under a password's own name.
  if (ctx.quoted && isProse(v) && !(ctx.envStyle && namesPassword(ctx.name) && !/[.!?:]$/.test(v) && v.length <= 120)) return 'prose';
  if (strength === 'weak') {
    // Only under a name of the chain's own (a random key of 32 letters and digits has no `0`,
    // `O`, `I` or `l` about one time in eight, and is base58-shaped by chance).
    if (BASE58_ADDRESS.test(v) && CHAIN_NAME.test(ctx.name)) return 'public address';
    return looksRandom(v.replace(/^base64:/, ''), 12) && !wordy(v) ? null : 'not generated';
  }
  if (ctx.quoted) return null;
  // A state or a word of a schema, as a sentence ends it (`Password: Required. Must be …`).
  return KEYWORDS.test(v.replace(/[.,;!]$/, '')) ? 'keyword' : null;
}
