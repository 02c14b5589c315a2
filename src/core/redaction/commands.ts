import { PRIORITY } from './findings.js';
import type { Handler, LiteralScanner } from './literals.js';
import { isKeyword, isPlaceholder } from './names.js';
import { looksRandom, wordy } from './randomness.js';

/**
 * Passwords given to commands and HTTP headers: `mysql -p…`, `sshpass -p …`, `curl -u user:pass`,
 * `docker login -p …`, `echo 'pw' | docker login --password-stdin`, `openssl … pass:…`,
 * `Authorization: Bearer …` (a `Cookie:` header is records.ts's, with the other cookies). Each rule starts at its command or header name (found
 * by the literal scanner) and reads at most a bounded stretch of the same line from there.
 */

interface CommandRule {
  kind: string;
  /** The words the rule starts with. */
  starts: readonly string[];
  /** Sticky, with indices (`d`); every capture group that matched holds a secret. */
  re: RegExp;
  /** A further test of a value, where the rule's shape alone would also take code. */
  check?: (value: string) => boolean;
}

/** What `docker compose` prints before each line of a service's log (`jenkins  | `, `api-1  | `), or nothing. */
const COMPOSE_PREFIX = '(?:[\\w.-]{1,40}[ \\t]+\\|)?';
/** A password argument: quoted, or a bare word. */
const ARG = `(?:'([^'\\n]{1,200})'|"([^"\\n]{1,200})"|([^\\s'"\`;&|-][^\\s'"\`;&|]{0,200}))`;
/** The rest of a command line up to a flag (bounded and lazy: a bounded number of tries per start). */
const REST = '[^\\n|;&]{0,300}?[ \\t]';
const WORD_END = '(?![A-Za-z0-9_-])';

/** A quoted literal argument of a call (Python's b'…' too), captured: a password or a key. */
const QARG = `b?(?:'([^'\\n]{4,200})'|"([^"\\n]{4,200})"|\`([^\`$\\s]{4,200})\`)`;
/** An argument before it: no comma, bracket or line end. */
const PARG = `[ \\t]*[^,()\\n]{1,160}?`;
const COMMA = `[ \\t]*,[ \\t]*`;

/** One member of an Azure Functions key object: its name, and its value captured. */
const FUNCTION_KEY = `[ \\t\\r\\n]*"[^"\\n]{1,80}"[ \\t]*:[ \\t]*"([A-Za-z0-9_/+=-]{20,200})"`;

const rule = (kind: string, starts: readonly string[], source: string, flags = 'dy', check?: (value: string) => boolean): CommandRule => ({ kind, starts, re: new RegExp(source, flags), ...(check ? { check } : {}) });
/** Any of the words, each as written (a call's `.`, `(` and `$` too). */
const either = (words: readonly string[]): string => `(?:${words.map((w) => w.replace(/[.()[\]$*+?]/g, (c) => `\\${c}`)).join('|')})`;

const MYSQL = ['mysql', 'mysqldump', 'mysqladmin', 'mysqlimport', 'mysqlcheck', 'mysqlshow', 'mysqlsh', 'mariadb', 'mariadb-dump', 'mariadb-admin'];
const MONGO = ['mongo', 'mongosh', 'mongodump', 'mongorestore', 'mongoexport', 'mongoimport', 'mongostat', 'mongotop'];
const LDAP = ['ldapsearch', 'ldapadd', 'ldapmodify', 'ldapdelete', 'ldappasswd', 'ldapwhoami', 'ldapcompare', 'ldapmodrdn'];
const REGISTRY = ['docker', 'podman', 'nerdctl', 'buildah', 'skopeo', 'helm', 'crane', 'oras', 'regctl'];
const AUTHORIZATION = ['Authorization', 'authorization', 'AUTHORIZATION', 'Proxy-Authorization', 'proxy-authorization'];
/** Commands that read a secret's value from their standard input. */
const STDIN_SECRET = `(?:gcloud[ \\t]+secrets[ \\t]+(?:create|versions[ \\t]+add)|wrangler[ \\t]+secret[ \\t]+put|vercel[ \\t]+env[ \\t]+add|az[ \\t]+devops[ \\t]+login|fly(?:ctl)?[ \\t]+secrets[ \\t]+import|gh[ \\t]+secret[ \\t]+set|firebase[ \\t]+functions:secrets:set|supabase[ \\t]+secrets[ \\t]+set|kubectl[ \\t]+create[ \\t]+secret)${WORD_END}`;

/**
 * Commands that read a password from a pipe: Kerberos' kinit, `su`, `passwd` (asked twice), Docker's
 * secrets; and the flags that tell gpg, openssl and sshfs to read theirs there (the pipe's rule
 * already spans the command line up to them).
 */
const STDIN_PASSWORD = `(?:kinit|su|passwd|docker[ \\t]+secret[ \\t]+create|cryptsetup|restic|borg|ansible-vault|ssh-add|smbpasswd|vncpasswd|keepassxc-cli|pass[ \\t]+insert|(?:elasticsearch|opensearch|kibana|logstash)-keystore[ \\t]+add|--passphrase-(?:fd[ \\t=]+0|file[ \\t=]+/dev/stdin)|-pass(?:in|out)?[ \\t]+stdin|password_stdin)${WORD_END}`;
/** An argument before the one captured: quoted (it may hold commas: an LDAP DN), or a bare word. */
const AARG = `[ \\t]*(?:"[^"\\n]{0,200}"|'[^'\\n]{0,200}'|[^,()'"\\n]{1,160}?(?:\\([^()\\n]{0,80}\\))?)`;
/** Calls that take a password or key at a known place: the words they start with, and the arguments before it. */
const PLACED: readonly (readonly [readonly string[], number, string?])[] = [
  // Go's SMTP (identity, user, password, host); Python's pymysql/MySQLdb and ftplib, Perl's DBI (host or DSN, user, password).
  [['smtp.PlainAuth('], 2],
  // A PHP stack trace prints the arguments: `PDO->__construct('mysql:host=…', 'shop', '…', Array)`.
  [['PDO->__construct('], 2],
  [['pymysql.connect(', 'MySQLdb.connect(', 'FTP(', 'FTP_TLS(', 'DBI->connect(', 'ldap_bind('], 2],
  // LDAP binds (DN, password), Apache HttpClient's credentials, MongoDB's shell, basic auth in Go.
  [['simple_bind_s(', 'simple_bind(', 'UsernamePasswordCredentials(', 'changeUserPassword(', 'SetBasicAuth(', '.auth('], 1],
  // Django's superuser (name, email, password); Algolia (app id, key).
  [['create_superuser(', 'create_user('], 2],
  [['algoliasearch(', 'SearchClient.create('], 1],
  // A password hashed in code: Laravel, bcrypt, PHP, Django.
  // Not Jinja's filter (`{{ '…' | password_hash('sha512') }}`), whose argument is the algorithm: the password is before it (below).
  [['Hash::make(', 'bcrypt(', 'bcrypt.hash(', 'bcrypt.hashSync(', 'password_hash(', 'make_password(', 'generate_password_hash('], 0, '\\|[ \\t]{0,4}'],
  // A builder's password, and a password mask set from a literal: Java's `.password("…")` (HikariCP, Spring's DataSourceBuilder).
  [['.password(', '.setPassword('], 0, 'keytar'],
  // keytar's store (service, account, password).
  [['keytar.setPassword('], 2],
  // A key or token handed to an SDK's constructor or builder, or to a signing call, as a literal:
  // Google's option, Azure's and OpenAI's credentials, HTTP clients' bearer tokens, HMAC and JWT keys.
  [['WithAPIKey(', 'AzureKeyCredential(', 'ApiKeyCredential(', 'AzureSasCredential(', '.apiKey(', '.withApiKey(', 'SetAuthToken(', '.setAuthToken(', 'withToken(', 'bearer_auth(', '.bearerAuth(', 'Algorithm.HMAC256(', 'Algorithm.HMAC384(', 'Algorithm.HMAC512(', 'hmacShaKeyFor(', 'SecretKeySpec(', 'EncodingKey::from_secret(', 'DecodingKey::from_secret(', 'SecretStr(', 'Fernet(', 'ethers.Wallet(', 'new Wallet(', 'hmac.new(', 'SignedString(', '->withApiKey(', 'new_from_slice(', 'Account.from_key(', 'privateKeyToAccount(', 'Ably.Realtime(', 'Ably.Rest(', 'URLSafeTimedSerializer(', 'URLSafeSerializer(', 'TimestampSigner('], 0],
  [['withBasicAuth('], 1],
  // An SDK's key or token set from a literal (the forty-third stop's second red team): Mollie's
  // `setApiKey`, Google's and others' `setAccessToken`, `setToken`, `setApiToken`, `setSecret`; a
  // builder's `.withCredentials(user, password)`.
  [['.setApiKey(', '.setAccessToken(', '.setToken(', '.setApiToken(', '.setSecret(', '.setSecretKey(', '.setBearerToken('], 0],
  [['.withCredentials('], 1],
  // Checkout.com's SDK (its secret key), Weaviate's API key, RestSharp's basic authenticator (Mailjet's key and secret).
  [['new Checkout(', 'Auth.api_key('], 0],
  [['HttpBasicAuthenticator('], 1],
  // SDK clients given their key first: Cohere's, Exa's; MinIO's (endpoint, access key, secret key) and Go's static credentials (id, secret).
  [['cohere.ClientV2(', 'cohere.Client(', 'cohere.AsyncClient(', 'Exa('], 0],
  [['Minio(', 'minio.New('], 2],
  [['credentials.NewStaticV4(', 'credentials.NewStaticCredentials(', 'Twilio::REST::Client.new('], 1],
  // (account or name, key); (payload, key); (algorithm, key, data).
  [['StorageSharedKeyCredential(', 'AzureNamedKeyCredential(', 'jwt.sign(', 'jwt.encode(', 'JWT.encode(', 'JWT::encode(', 'OpenSSL::HMAC.hexdigest(', 'OpenSSL::HMAC.digest('], 1],
  [['hash_hmac('], 2],
  // A user and a password by position: aiohttp's, httpx's, Neo4j's BasicAuth; RabbitMQ's pika; MQTT's paho;
  // JavaMail; OkHttp; NATS; Cassandra's provider; python-ldap's bind; PHP clients; Twilio's JavaScript client.
  [['BasicAuth(', 'PlainCredentials(', 'username_pw_set(', 'PasswordAuthentication(', 'Credentials.basic(', 'UserInfo(', 'PlainTextAuthProvider(', '.bind_s(', '.bind(', '->setAuth(', 'Twilio(', 'twilio('], 1],
  // PHP's FTP login (connection, user, password); MongoDB's Java credential (user, database, password).
  [['ftp_login(', 'createCredential('], 2],
  // urllib's password manager (realm, URL, user, password); Ruby's Net::SMTP.start (host, port, helo, user, password).
  [['.add_password('], 3],
  [['Net::SMTP.start('], 4],
  // MailKit's Authenticate (user, password); JavaMail's transport.connect (host, user, password).
  [['.Authenticate(', '.AuthenticateAsync('], 1],
  [['transport.connect('], 2],
  // A cipher's or MAC's key as a literal: Python's cryptography and PyCryptodome, Dart's encrypt,
  // Swift's CryptoKit; CryptoJS (data, key), Node's cipher (algorithm, key, iv), Go's HMAC (hash, key),
  // PHP's openssl (data, method, key), PBKDF2 (hash, password).
  [['AESGCM(', 'AESCCM(', 'AESSIV(', 'AESOCB3(', 'ChaCha20Poly1305(', 'AES.new(', 'ChaCha20.new(', 'Key.fromUtf8(', 'Key.fromBase64(', 'SymmetricKey(data: Data('], 0],
  [['CryptoJS.AES.encrypt(', 'CryptoJS.AES.decrypt(', 'CryptoJS.HmacSHA256(', 'CryptoJS.HmacSHA512(', 'CryptoJS.HmacSHA1(', 'CryptoJS.TripleDES.encrypt(', 'createCipheriv(', 'createDecipheriv(', 'hmac.New(', 'pbkdf2_hmac(', 'pbkdf2Sync(', 'crypto.pbkdf2('], 1],
  [['openssl_encrypt(', 'openssl_decrypt('], 2],
  // An SDK's or an HTTP client's credential by position: .NET's bearer header, Spring's login token,
  // yagmail and MicroPython's Wi-Fi (user or SSID, password), JWT verification (token, key), CDK's and
  // Pulumi's secret from a literal, gomail's dialer (host, port, user, password), LWP's and sbt's
  // credentials (realm and host first), Faraday's authorization, tweepy's OAuth 1 handler.
  [['AuthenticationHeaderValue(', 'UsernamePasswordAuthenticationToken(', 'yagmail.SMTP(', 'wlan.connect(', 'jwt.verify(', 'jwt.decode(', 'OAuthHandler('], 1],
  [['SecretValue.unsafePlainText(', 'SecretValue.plainText(', 'pulumi.secret(', 'Output.secret(', "authorization, 'Bearer',", 'authorization, "Bearer",'], 0],
  [['NewDialer(', '->credentials(', 'Credentials('], 3],
  [['authorization, :basic,'], 1],
  // A password hashed with a literal: Python's bcrypt and passlib (`sha512_crypt.hash('…')`), Node's bcryptjs.
  [['bcrypt.hashpw(', 'hashSync(', '_crypt.hash(', 'argon2.hash(', 'pbkdf2_sha256.hash(', 'PasswordHasher().hash('], 0],
];
/** `notAfter`: a name the call must not follow (keytar's `setPassword` takes the password third, not first). */
const placed = (starts: readonly string[], before: number, notAfter?: string): CommandRule =>
  // The literal may come wrapped as bytes (Go's `[]byte("…")`, Node's `Buffer.from('…')`, `new TextEncoder().encode('…')`).
  rule('call_secret', starts, `${notAfter === undefined ? '' : `(?<!${notAfter})`}${either(starts)}${`${AARG}[ \\t]*,`.repeat(before)}[ \\t]*(?:\\[\\]byte\\(|Buffer\\.from\\(|new TextEncoder\\(\\)\\.encode\\(|bytes\\.fromhex\\(|(?:base64\\.)?b64decode\\(|Convert\\.FromBase64String\\(|Encoding\\.\\w{1,10}\\.GetBytes\\(|hex\\.DecodeString\\()?${QARG}`, 'dy', (v) => !isKeyword(v) && !/^\d+$/.test(v));

/** A line a command printed that is a secret: a word with a letter and a digit, or generated-looking. */
const printedSecret = (v: string): boolean => (/\d/.test(v) && /[A-Za-z]/.test(v)) || looksRandom(v, 8);

/**
 * What PRINTS_GENERATED's commands print that is a secret: 48 hex digits or more (a commit's 40
 * are none), or, but for a host's name, a word that looks generated or a long mix of letters and digits.
 */
const generatedPrint = (v: string): boolean => {
  if (/^[0-9a-f]+$/i.test(v)) return v.length >= 48;
  // A host (`…rds.amazonaws.com`, `ec2-3-210-14-88.compute-1.amazonaws.com:12700`) is none.
  if (/\.[a-z]{2,}(?::\d{1,5})?$/i.test(v)) return false;
  return looksRandom(v, 12) || (v.length >= 24 && /\d/.test(v) && /[A-Za-z]/.test(v));
};

/** Commands whose output is a secret (PRINTS_SECRET's rule), by a word of their line. */
const PRINTS_SECRET = ['openssl rand', 'rails secret', 'key:generate', 'token_urlsafe', 'token_hex', 'base64 -d', 'base64 --decode', 'base64 -D', 'initial-password', 'initialAdminPassword', 'admin.password', 'secrets versions access', 'get-secret-value', 'keyvault secret show', 'secrets get', 'op read', 'op item get', 'gopass show -o', 'gopass -o', 'gopass show --password', '-field=', 'output -raw', 'nonsensitive(', '/run/secrets/', 'master.key', 'vault_pass', 'vault-pass', 'pwgen',
];
/**
 * Commands whose next line may be one secret, or a value that is none (`heroku config:get REGION`
 * prints `us-east-1`): only a word that looks generated goes. Keychains and password stores
 * (`security find-generic-password -w`, `pass show x`), and tools that print a decrypted or a
 * generated secret.
 */
const PRINTS_GENERATED = ['find-generic-password', 'find-internet-password', 'pass show', 'secret-tool lookup', 'bw get password', 'lpass show --password', 'chamber read', 'view-secret', 'secret get', 'sops -d --extract', 'sops --decrypt --extract', 'config:get', 'gh auth token', 'rake secret', 'phx.gen.secret', 'get_random_secret_key', 'preauthkeys create', '/dev/urandom', '--show-secrets'];

/** A password piped once, or twice on two lines, real or written `\\n` (`printf 'pw\\npw\\n' | passwd`, which asks it again). */
const TWICE = `(?:'([^'\\n]{1,200}?)(?:(?:\\n|\\\\n)([^'\\n]{1,200}?))?(?:\\n|\\\\n)?'|"([^"\\n]{1,200}?)(?:(?:\\n|\\\\n)([^"\\n]{1,200}?))?(?:\\n|\\\\n)?"|([^\\s'"\`;&|-][^\\s'"\`;&|]{0,200}))`;

/** The word a command of `words` prints alone on its next line (a blank line between allowed), when `check` takes it; never a URL or a path. */
const printsBelow = (words: readonly string[], check: (v: string) => boolean): CommandRule =>
  rule('command_password', words, `${either(words)}[^\\n]{0,300}\\r?\\n(?:[ \\t]*\\r?\\n)?[ \\t]*["']?([^\\s"'\`<>]{8,400}?)["']?[ \\t]*(?=\\r?\\n|$|["'\\\\])`, 'dy', (v) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(v) && !v.startsWith('/') && check(v));

const RULES: readonly CommandRule[] = [
  ...PLACED.map(([starts, before, notAfter]) => placed(starts, before, notAfter)),
  // `require('bcrypt').hash('…', 12)`.
  rule('call_secret', ["bcrypt').hash", 'bcrypt").hash'], `bcrypt['"]\\)\\.hash(?:Sync)?\\([ \\t]*${QARG}`),
  // A literal written into a file whose name says it holds a secret: `printf '%s' '…' > ~/.vault-token`,
  // `echo '…' > /run/secrets/db_password`.
  // Not PHP's `->` (`echo $user->resetPasswordToken()`: the forty-third red team's), which is no redirect.
  rule('command_password', ['echo', 'printf'], `(?:echo|printf)[ \\t]+(?:-[a-zA-Z]{1,3}[ \\t]+){0,3}(?:(?:'%s(?:\\n|\\\\n)?'|"%s(?:\\n|\\\\n)?"|%s)[ \\t]+)?${ARG}[ \\t]*(?:(?<!-)>>?|\\|[ \\t]*(?:sudo[ \\t]+)?tee(?:[ \\t]+-a)?)[ \\t]*[^\\s;|&]{0,200}?(?:token|secret|passw(?:or)?d|vault[_-]?pass|credential|api[_-]?key|(?<=[/._-])(?:pw|pass|key|auth)(?![a-z0-9]))[^\\s;|&]{0,100}`, 'dyi'),
  // An expect script's answer to a password prompt: `expect "assword:"` then `send "…\\r"`.
  rule('command_password', ['expect'], `expect[ \\t]+(?:-[a-z]+[ \\t]+)?["'{][^"'}\\n]{0,40}(?:assword|assphrase|PIN)[^"'}\\n]{0,20}["'}][ \\t]*\\r?\\n[ \\t]*send[ \\t]+(?:--[ \\t]+)?"([^"\\n]{1,200}?)(?:\\\\r|\\\\n|\\r)?"`),
  // tweepy's OAuth 1 handler: the consumer key, then its secret, the access token and its secret.
  rule('call_secret', ['OAuth1UserHandler('], `OAuth1UserHandler\\(${AARG}${COMMA}${QARG}(?:${COMMA}${QARG}(?:${COMMA}${QARG})?)?`),
  // Elasticsearch's API key as a pair (`api_key=("id", "secret")`).
  rule('call_secret', ['api_key'], `api_key[ \\t]*=[ \\t]*\\([ \\t]*(?:"[^"\\n]{1,100}"|'[^'\\n]{1,100}')${COMMA}${QARG}`),
  // Signing keys as a list: Koa's `app.keys = ['…', '…']`, cookie-session's `keys: [...]`, Strapi's `APP_KEYS=a,b,c`.
  rule('call_secret', ['app.keys'], `app\\.keys[ \\t]*=[ \\t]*(?:new[ \\t]+\\w{1,40}\\()?\\[([^\\]\\n]{10,800})\\]`, 'dy', (v) => /['"][^'"\s]{12,}['"]/.test(v)),
  rule('call_secret', ['keys'], `(?<=(?:cookieSession|cookie-session|session)\\([^)]{0,300}?)keys[ \\t]*:[ \\t]*\\[([^\\]\\n]{10,800})\\]`, 'dy', (v) => /['"][^'"\s]{12,}['"]/.test(v)),
  rule('secret_assignment', ['APP_KEYS'], `APP_KEYS["']?[ \\t]*[=:][ \\t]*["']?([A-Za-z0-9+/=_-]{12,200}(?:,[A-Za-z0-9+/=_-]{12,200}){0,15})`, 'dy', (v) => !v.split(',').some((k) => /^tobemodified\d*$/i.test(k) || isPlaceholder(k))),
  // LiveKit's key map (`keys:` then `APIxxxxxxxx: <secret>`, `--keys "APIxxx: secret"`): the id, then the secret.
  rule('secret_assignment', ['API'], `API[A-Za-z0-9]{8,16}["']?[ \\t]*:[ \\t]*["']?([A-Za-z0-9]{30,64})(?![A-Za-z0-9])`, 'dy', (v) => looksRandom(v, 30)),
  // .NET's cipher key set from a literal: `aes.Key = Convert.FromBase64String("…")`.
  rule('call_secret', ['.Key ', '.Key='], `\\.Key[ \\t]*=[ \\t]*(?:Convert\\.FromBase64String|Encoding\\.\\w{1,10}\\.GetBytes)\\([ \\t]*${QARG}`),
  // ASP.NET's signing key from a literal: `new SymmetricSecurityKey(Encoding.UTF8.GetBytes("…"))`.
  rule('call_secret', ['SymmetricSecurityKey('], `SymmetricSecurityKey\\([ \\t]*(?:Encoding\\.\\w{1,10}\\.GetBytes\\([ \\t]*)?${QARG}`),
  // A session cookie set in code or a test: `res.cookie('connect.sid', '…')`, `setCookie('connect.sid=…; Path=/')`.
  rule('cookie', ['.cookie('], `\\.cookie\\([ \\t]*['"][^'"\\n]{1,64}['"]${COMMA}${QARG}`, 'dy', (v) => looksRandom(v.replace(/%[0-9A-Fa-f]{2}/g, ''), 16)),
  rule('cookie', ['setCookie('], `setCookie\\([ \\t]*['"][^'"=;\\n]{1,64}=([^;'"\\s]{16,4096})`, 'dy', (v) => looksRandom(v.replace(/%[0-9A-Fa-f]{2}/g, ''), 16)),
  // A key-value store given a secret under a path that names one: etcd, Consul.
  rule('command_password', ['etcdctl', 'consul'], `(?:etcdctl(?:[ \\t]+--?[\\w-]+(?:=[^\\s]+)?)*[ \\t]+put|consul[ \\t]+kv[ \\t]+put)[ \\t]+(?:-[\\w-]+(?:=[^\\s]+)?[ \\t]+)*['"]?[^\\s'"]{0,200}?(?:token|secret|passw(?:or)?d|api[_-]?key|credential)[^\\s'"]{0,100}['"]?[ \\t]+${ARG}`, 'dyi'),
  // SNMP's community string (`snmpwalk -v2c -c …`) and v3's passphrases (`-A …`, `-X …`).
  rule('command_password', ['snmpwalk', 'snmpget', 'snmpset', 'snmpbulkwalk', 'snmpbulkget', 'snmptable', 'snmptrap'], `snmp(?:walk|get|set|bulkwalk|bulkget|table|trap)${WORD_END}${REST}-[cAX][ \\t]?${ARG}`),
  // SMTP AUTH LOGIN's answer to `334 UGFzc3dvcmQ6` ("Password:"), and AUTH PLAIN's base64 of user and password.
  rule('basic_auth', ['UGFzc3dvcmQ6'], `UGFzc3dvcmQ6[^\\n]{0,40}\\n[^\\n]{0,8}?(?:~>|C:|>)?[ \\t]*([A-Za-z0-9+/]{4,400}={0,2})`),
  rule('basic_auth', ['AUTH PLAIN '], `AUTH PLAIN[ \\t]+([A-Za-z0-9+/]{8,400}={0,2})`),
  // A cookie made in PowerShell (devtools' copy as PowerShell): `New-Object System.Net.Cookie("sessionid", "…", "/", …)`.
  rule('cookie', ['Net.Cookie('], `Net\\.Cookie\\([ \\t]*['"][^'"\\n]{1,64}['"]${COMMA}${QARG}`, 'dy', (v) => looksRandom(v, 16)),
  // Bundler's credentials for a gem host in the environment or config: `BUNDLE_GEMS__CONTRIBSYS__COM: "user:password"`.
  rule('command_password', ['BUNDLE_'], `BUNDLE_[A-Z0-9_]{0,80}__[A-Z0-9_]{1,40}["']?[ \\t]*[:=][ \\t]*["']?([^\\s:'"]{1,100}:[^\\s'"]{4,200})`),
  // Git's prompt for a password over HTTPS, answered in what the user pasted.
  rule('command_password', ["Password for '"], `Password for '[^'\\n]{1,200}':[ \\t]*([^\\s]{4,200})`),
  // GitHub's repository secrets and variables set from the command line (a variable named as a secret).
  rule('command_password', ['gh secret', 'gh variable'], `gh[ \\t]+secret[ \\t]+set${REST}(?:--body|-b)[ \\t=]+${ARG}`),
  rule('command_password', ['gh variable'], `gh[ \\t]+variable[ \\t]+set[ \\t]+[A-Za-z0-9_]{0,60}(?:TOKEN|SECRET|PASSWORD|PASSWD|KEY|PASS|PWD|CRED)[A-Za-z0-9_]{0,40}${REST}(?:--body|-b)[ \\t=]+${ARG}`, 'dyi'),
  // Jinja's default for an unset secret: `{{ lookup('env', 'DB_PASSWORD') | default('…') }}`.
  rule('call_secret', ['lookup('], `lookup\\([^)\\n]{0,80}(?:TOKEN|SECRET|PASSWORD|PASSWD|KEY|PASS|PWD)[^)\\n]{0,40}\\)[ \\t]*\\|[ \\t]*default\\([ \\t]*${QARG}`, 'dyi'),
  // AWS SSM's SecureString in a table or text output: the value after its type, whatever the parameter's name.
  rule('secret_assignment', ['SecureString'], `SecureString(?:[ \\t]*\\|[ \\t]*|\\t[ \\t]*|[ \\t]{2,})([^\\s|"]{4,4096})`),
  // …and in its JSON (`aws ssm get-parameter --with-decryption`): `"Type": "SecureString", "Value": "…"`.
  rule('secret_assignment', ['SecureString'], `SecureString"[ \\t]*,[ \\t\\r\\n]*"Value"[ \\t]*:[ \\t]*"((?:[^"\\\\\\n]|\\\\.){1,4096})"`),
  // Azure Key Vault's secret as `az keyvault secret show` prints it: the `value` of the object whose `id` is a vault's secret.
  rule('secret_assignment', ['.vault.azure.net/secrets/'], `\\.vault\\.azure\\.net/secrets/[^"\\s]{1,300}"(?:[^{}]|\\{\\s*\\}){0,400}?"value"[ \\t]*:[ \\t]*"((?:[^"\\\\\\n]|\\\\.){1,4096})"`),
  // IMAP's `a1 LOGIN user password`; Postfix's sasl_passwd `[smtp.host]:587 user:password`.
  // Not SQL's `CREATE ROLE app LOGIN PASSWORD '…'` or `CREATE LOGIN app WITH PASSWORD = …` (the SQL rules below).
  rule('command_password', [' LOGIN '], ` LOGIN[ \\t]+(?!(?:PASSWORD|WITH)[ \\t])(?:"[^"\\n]{1,100}"|[^\\s"]{1,100})[ \\t]+(?!(?:WITH|PASSWORD)(?![\\w]))(?:"([^"\\n]{4,200})"|([^\\s"]{4,200}))`),
  rule('command_password', [']:587 ', ']:25 ', ']:465 ', ']:2525 ', ']:submission '], `\\]:\\w{2,10}[ \\t]+[^\\s:]{1,100}:([^\\s]{4,200})`),
  // Redis ACL passwords: `user worker on >…` (users.acl, redis.conf), `ACL SETUSER metrics on '>…'`.
  rule('command_password', ['user ', 'SETUSER ', 'setuser '], `(?:user|SETUSER|setuser)[ \\t]+[\\w.@-]{1,64}(?:[ \\t]+['"]?(?:on|off|reset|resetkeys|resetchannels|resetpass|nopass|allkeys|allchannels|allcommands|nocommands|~[^\\s'"]{1,100}|%[RW]{1,2}~[^\\s'"]{1,100}|&[^\\s'"]{1,100}|[+-]@?[^\\s'"]{1,100}|<[^\\s'"]{1,200})['"]?){0,12}[ \\t]+['"]?>([^\\s'"]{1,200})`),
  // A call given a PDO DSN, then the user and the password (`new PDO(…)`, and every frame of a PHP
  // stack trace that passes them on: `Connector->createPdoConnection('mysql:host=…', 'shop', '…', Array)`).
  rule('call_secret', ["('mysql:", "('pgsql:", "('sqlsrv:", "('oci:", "('odbc:", "('dblib:", '("mysql:', '("pgsql:', '("sqlsrv:'], `\\(['"](?:mysql|pgsql|sqlsrv|oci|odbc|dblib):[^'"\\n]{0,200}['"]${COMMA}${AARG}${COMMA}${QARG}`),
  // paramiko's connect(host, port, user, password).
  rule('call_secret', ['.connect('], `\\.connect\\(${AARG}${COMMA}\\d{1,5}${COMMA}${AARG}${COMMA}${QARG}`),
  // Gorilla's cookie store key, Twilio's client (account SID, auth token).
  rule('call_secret', ['NewCookieStore('], `NewCookieStore\\([ \\t]*\\[\\]byte\\(${QARG}`),
  rule('call_secret', ['Client('], `Client\\([ \\t]*['"]AC[0-9a-f]{32}['"]${COMMA}${QARG}`),
  // Basic authentication: Ruby's `basic_auth 'u', 'pw'`, PHP's CURLOPT_USERPWD 'u:pw', Guzzle's `'auth' => ['u', 'pw']`.
  rule('basic_auth', ['basic_auth'], `basic_auth[ \\t(]+(?:"[^"\\n]{1,100}"|'[^'\\n]{1,100}')${COMMA}(?:Some\\([ \\t]*)?${QARG}`),
  // A password typed into a form a test drives, whose field the locator names (Selenium, Playwright, Cypress, WebdriverIO).
  rule('command_password', ['.send_keys(', '.sendKeys(', '.fill(', '.type(', '.setValue(', '.pressSequentially('], `(?<=(?:password|passwd|pwd|passphrase)[^\\n;]{0,60})\\.(?:send_keys|sendKeys|fill|type|setValue|pressSequentially)\\([ \\t]*${QARG}`, 'dyi'),
  // Java's char[] password from a literal: `keyStore.load(in, "…".toCharArray())`, `PBEKeySpec("…".toCharArray())`.
  rule('command_password', ['.toCharArray()'], `(?<=(?:password|passwd|pwd|secret|load|createCredential|PasswordAuthentication|PBEKeySpec|PasswordProtection)[^\\n;]{0,80}?"([^"\\n]{4,200})")\\.toCharArray\\(\\)`, 'dyi'),
  // minisign's and signify's secret keys: a comment line, then the key in base64.
  rule('private_key', ['untrusted comment:'], `untrusted comment:[^\\n]{0,80}secret key[^\\n]{0,40}\\r?\\n([A-Za-z0-9+/]{40,400}={0,2})`, 'dyi'),
  // Helm's default for a secret's value: `{{ .Values.db.password | default "…" }}`.
  rule('call_secret', ['| default ', '|default '], `(?<=(?:password|passwd|secret|token|key)[\\w.]{0,40}[ \\t]*)\\|[ \\t]*default[ \\t]+${QARG}`, 'dyi'),
  rule('basic_auth', ['CURLOPT_USERPWD'], `CURLOPT_USERPWD['"]?[ \\t]*(?:,|=>)[ \\t]*['"][^'":\\s]{1,100}:([^'"\\s]{4,200})['"]`, 'dy', (v) => !isPlaceholder(v)),
  rule('basic_auth', ["'auth'", '"auth"'], `['"]auth['"][ \\t]*=>[ \\t]*\\[[ \\t]*(?:"[^"\\n]{1,100}"|'[^'\\n]{1,100}')${COMMA}${QARG}`),
  // Composer's credentials: `composer config [-g] [--auth] http-basic.<host> <user> <password>`, `bearer.<host> <token>`, auth.json's bearer.
  rule('command_password', ['composer'], `composer[ \\t]+config[ \\t]+(?:-{1,2}[a-z-]{1,12}[ \\t]+){0,3}(?:http-basic\\.[^\\s]{1,100}[ \\t]+[^\\s]{1,100}|bearer\\.[^\\s]{1,100}|gitlab-token\\.[^\\s]{1,100})[ \\t]+${ARG}`),
  rule('bearer', ['"bearer"'], `"bearer"[ \\t]*:[ \\t]*\\{[ \\t\\r\\n]*"[^"\\n]{1,100}"[ \\t]*:[ \\t]*"([^"\\n]{8,400})"`),
  // Out-of-band management and warehouses: ipmitool -P, racadm -p, db2 … using, vsql -w, hdbsql -p, rdesktop -p, ncftp -p.
  rule('command_password', ['ipmitool'], `ipmitool${WORD_END}${REST}-P[ \\t]?${ARG}`),
  rule('command_password', ['racadm', 'hdbsql', 'rdesktop', 'ncftp', 'ncftpput', 'ncftpget'], `(?:racadm|hdbsql|rdesktop|ncftp(?:put|get)?)${WORD_END}${REST}-p[ \\t]?${ARG}`),
  rule('command_password', ['vsql'], `vsql${WORD_END}${REST}-w[ \\t]?${ARG}`),
  rule('command_password', ['db2'], `db2${WORD_END}[^\\n|;&]{0,200}?[ \\t]using[ \\t]+${ARG}`, 'dyi'),
  // Password hashers given the password: slappasswd -s, doveadm pw -p, wpa_passphrase <ssid> <passphrase>.
  rule('command_password', ['slappasswd'], `slappasswd${WORD_END}${REST}-s[ \\t]?${ARG}`),
  rule('command_password', ['doveadm'], `doveadm[ \\t]+pw${WORD_END}${REST}-p[ \\t]?${ARG}`),
  rule('command_password', ['wpa_passphrase'], `wpa_passphrase[ \\t]+(?:"[^"\\n]{1,64}"|'[^'\\n]{1,64}'|[^\\s'"]{1,64})[ \\t]+${ARG}`),
  // Wi-Fi keys: NetworkManager (`nmcli … wifi-sec.psk …`, `password …` of `nmcli dev wifi connect`), wpa_cli, a QR code's string.
  rule('command_password', ['wifi-sec.psk', '802-11-wireless-security.psk'], `(?:wifi-sec|802-11-wireless-security)\\.psk[ \t]+${ARG}`),
  rule('command_password', ['wpa_cli'], `wpa_cli${REST}(?:psk|password|sae_password)[ \t]+(?:'"([^"'\n]{4,200})"'|${ARG})`),
  rule('command_password', ['WIFI:'], `WIFI:(?:[TSHI]:[^;\n]{0,100};){0,4}P:((?:\\;|[^;\n]){4,200});`),
  // Network gear and routers' configs: Cisco's `enable secret …`, `username … secret|password …`, SNMP communities; keepalived.
  rule('command_password', ['enable secret', 'enable password'], `enable[ \t]+(?:secret|password)[ \t]+(?:[0-9][ \t]+)?${ARG}`),
  rule('command_password', ['username '], `username[ \t]+[^\\s]{1,64}(?:[ \t]+privilege[ \t]+\\d{1,2})?[ \t]+(?:secret|password)[ \t]+(?:[0-9][ \t]+)?${ARG}`),
  rule('command_password', ['snmp-server community'], `snmp-server[ \t]+community[ \t]+${ARG}`),
  rule('command_password', ['auth_pass'], `auth_pass[ \t]+${ARG}`),
  // Tools given a password on their command line: hydra -p, sqlmap --auth-cred, restic/borg's password command.
  rule('command_password', ['hydra'], `hydra${WORD_END}${REST}-p[ \t]?${ARG}`),
  rule('command_password', ['--auth-cred'], `--auth-cred[ \t=]+(?:"[^":\n]{1,100}:([^"\n]{4,200})"|'[^':\n]{1,100}:([^'\n]{4,200})'|[^\\s:'"]{1,100}:([^\\s'"]{4,200}))`),
  rule('command_password', ['--password-command', 'BORG_PASSCOMMAND', 'RESTIC_PASSWORD_COMMAND', '--passcommand'], `(?:--password-command|--passcommand|BORG_PASSCOMMAND|RESTIC_PASSWORD_COMMAND)[ \t=]+["']?(?:echo|printf)[ \t]+(?:-n[ \t]+)?(?:'([^'\n]{4,200})'|"([^"\n]{4,200})"|([^\\s'"]{4,200}))`),
  // openssl's raw key and IV in hex: `openssl enc -K <hex> -iv <hex>`.
  rule('command_password', ['openssl'], `openssl[ \t]+(?:enc|aes-\\d+-\\w+)${REST}-K[ \t]+([0-9A-Fa-f]{32,128})`),
  // PowerShell's environment: `Set-Item -Path Env:API_TOKEN -Value "…"`, `$env:API_TOKEN = "…"` is an assignment's.
  rule('command_password', ['Set-Item', 'New-Item', 'Set-Content'], `(?:Set-Item|New-Item|Set-Content)[ \t]+(?:-Path[ \t]+)?['"]?Env:[A-Za-z0-9_]{0,60}(?:TOKEN|SECRET|PASSWORD|PASSWD|KEY|PASS|PWD|CRED)[A-Za-z0-9_]{0,40}['"]?[ \t]+-Value[ \t]+${ARG}`, 'dyi'),
  // `printf 'API_TOKEN=%s\n' '…' >> .env`: the format names the secret the argument fills.
  rule('command_password', ['printf'], `printf[ \t]+['"][A-Za-z0-9_]{0,60}(?:TOKEN|SECRET|PASSWORD|PASSWD|KEY|PASS|PWD)[A-Za-z0-9_]{0,40}=%s(?:\\\\n|\n)?['"][ \t]+${ARG}`, 'dyi'),
  // npm's auth token set with a space (`npm config set //registry.npmjs.org/:_authToken …`).
  // Only as npm writes it (after the registry's `:`, or as a word of its own): `hashed_password = …`,
  // `self._password = password` and `this._authToken = null` are code.
  rule('command_password', ['_authToken ', '_auth ', '_password '], `(?<![\\w$.])_(?:authToken|auth|password)[ \\t]+(?![=:])${ARG}`),
  // `microk8s join <host>:25000/<token>/<cluster hash>`: the token lets a node join the cluster.
  rule('command_password', ['microk8s'], `microk8s[ \t]+join[ \t]+[^\\s/]{1,100}/([0-9A-Za-z]{32})`),
  // Laravel's `php artisan key:generate` output: `Application key [base64:…] set successfully.`
  rule('secret_assignment', ['Application key ['], `Application key \\[(base64:[A-Za-z0-9+/]{20,200}={0,2})\\]`),
  // An FTP client's trace (`curl -v ftp://…`): `> PASS …`; GitHub Actions' `::add-mask::…`, which names a secret by its value.
  rule('command_password', ['> PASS '], `> PASS ([^\\s]{1,200})`),
  rule('command_password', ['::add-mask::'], `::add-mask::([^\\s$'"][^\\s'"]{3,400})`),
  // Expo's EAS: `eas secret:create --name … --value …`, `eas env:create … --value …`.
  rule('command_password', ['eas'], `eas[ \\t]+(?:secret|env):create${REST}--value[ \\t=]+${ARG}`),
  // Vault's AppRole secret id, Consul's ACL SecretID: UUIDs under their names.
  rule('secret_assignment', ['secret_id', 'SecretID'], `(?:secret_id|SecretID)["']?[ \\t]*[:=]?[ \\t]*["']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`),
  // Hardhat's accounts: `accounts: ["0x<private key>"]`.
  rule('private_key', ['accounts'], `accounts["']?[ \\t]*:[ \\t]*\\[[ \\t\\r\\n]*["'](0x[0-9a-fA-F]{64})["'](?:[ \\t\\r\\n]*,[ \\t\\r\\n]*["'](0x[0-9a-fA-F]{64})["'])?`),
  // Neo4j's `ALTER CURRENT USER SET PASSWORD FROM '…' TO '…'`.
  rule('command_password', ['SET PASSWORD FROM'], `SET PASSWORD FROM[ \\t]+${QARG}[ \\t]+TO[ \\t]+${QARG}`, 'dyi'),
  // mysql -pSECRET (with a space, -p asks for the password instead).
  // The flag and its password quoted as one word (`"-pHarb0r's-Gate!2026"`): to that word's closing quote.
  rule('command_password', MYSQL, `${either(MYSQL)}${WORD_END}${REST}(?:"-p([^"\\n]{1,200})"|'-p([^'\\n]{1,200})'|['"]?-p(?:'([^'\\n]{1,200})'|"([^"\\n]{1,200})"|([^\\s'"\`;&|-][^\\s'"\`;&|]{0,200})))`),
  // mysqlsh root:pw@host, mysqlsh --uri root:pw@host (a URI with a scheme is the URL rule's).
  rule('command_password', ['mysqlsh'], `mysqlsh${WORD_END}${REST}(?:--uri[ \\t=]+)?['"]?[A-Za-z0-9_.%-]{1,64}:([^\\s@'"/]{1,200})@`),
  // MySQL Shell's own connect: `shell.connect('user:pw@host')`, `\connect user:pw@host`.
  rule('command_password', ['shell.connect(', '\\connect'], `(?:shell\\.connect\\(|\\\\connect)[ \\t]*['"]?(?:mysqlx?://)?[A-Za-z0-9_.%-]{1,64}:([^\\s@'"/]{1,200})@`),
  rule('command_password', ['sshpass'], `sshpass${WORD_END}${REST}-p[ \\t]?${ARG}`),
  rule('command_password', ['redis-cli', 'valkey-cli', 'keydb-cli', 'redis-benchmark', 'valkey-benchmark'], `(?:redis|valkey|keydb)-(?:cli|benchmark)${WORD_END}${REST}['"]?-a['"]?[ \\t]+${ARG}`),
  // unrar's and rar's password glued to -p (`unrar x -pPW archive.rar`), Mosquitto's password file entry (`mosquitto_passwd -b file user pw`).
  rule('command_password', ['unrar', 'rar'], `(?:unrar|rar)${WORD_END}${REST}-p([^\\s'"\`;&|-][^\\s'"\`;&|]{0,200})`),
  // A password given by flag to an admin tool: OpenLDAP's new password (`ldappasswd … -s NEW`),
  // Perforce (`p4 -P`), Elasticsearch's file realm (`elasticsearch-users useradd u -p`), Gitea's
  // admin (`gitea admin user change-password -p`, `create --password`), Pi-hole's web password,
  // rar's header password (`-hpPW`), qpdf's user and owner passwords, ApacheBench's basic auth.
  rule('command_password', ['ldappasswd'], `ldappasswd${WORD_END}${REST}-s[ \\t]+${ARG}`),
  rule('command_password', ['p4 '], `(?<![\\w./-])p4[ \\t]+(?:-[a-zA-Z][ \\t]+[^\\s-][^\\s]{0,100}[ \\t]+){0,4}-P[ \\t]+${ARG}`),
  rule('command_password', ['elasticsearch-users', 'opensearch-users'], `(?:elasticsearch|opensearch)-users${WORD_END}${REST}-p[ \\t]+${ARG}`),
  rule('command_password', ['gitea', 'forgejo'], `(?:gitea|forgejo)[ \\t]+admin[ \\t]+user${REST}(?:-p|--password)[ \\t=]+${ARG}`),
  rule('command_password', ['pihole'], `pihole[ \\t]+(?:-a[ \\t]+-p|setpassword)[ \\t]+${ARG}`),
  rule('command_password', ['rar'], `(?<![\\w./-])rar${WORD_END}${REST}-hp([^\\s'"\`;&|-][^\\s'"\`;&|]{0,200})`),
  rule('command_password', ['qpdf'], `qpdf${WORD_END}${REST}--encrypt[ \\t]+${ARG}[ \\t]+${ARG}`),
  rule('basic_auth', ['ab '], `(?<![\\w./-])ab${WORD_END}${REST}-[AP][ \\t]+[^\\s:'"]{1,100}:([^\\s'"]{1,200})`),
  // HTTPie's bearer token (`http -A bearer -a TOKEN …`).
  rule('command_password', ['http ', 'https '], `(?<![\\w./-])https?${WORD_END}${REST}(?:-A|--auth-type)[ \\t=]+bearer[ \\t]+(?:-a|--auth)[ \\t=]+${ARG}`),
  // NuGet's stored API key (`nuget setapikey KEY -Source …`), NetBird's setup key.
  rule('command_password', ['setapikey'], `setapikey[ \\t]+${ARG}`, 'dyi'),
  rule('command_password', ['netbird'], `netbird[ \\t]+up${REST}(?:--setup-key|-k)[ \\t=]+${ARG}`),
  // smbclient's password after the share (`smbclient //nas/backups PW -U dev`).
  rule('command_password', ['smbclient'], `smbclient[ \\t]+(?:-[a-zA-Z][ \\t]+[^\\s]{1,100}[ \\t]+)*['"]?//[^\\s'"]{1,200}['"]?[ \\t]+(?!-)${ARG}`),
  // Ansible Vault's encrypt_string: the value comes before its name (`encrypt_string 'PW' --name 'db_password'`).
  rule('command_password', ['encrypt_string'], `encrypt_string[ \\t]+(?:--?[\\w-]+(?:[ \\t=]+[^\\s-][^\\s]{0,200})?[ \\t]+)*?(?!-)${ARG}`),
  // sudo reading the password from a here-string (`sudo -S cmd <<< 'PW'`).
  rule('command_password', ['sudo'], `sudo[ \\t]+(?:-[a-zA-Z]+[ \\t]+)*-[a-zA-Z]*S${WORD_END}[^\\n|;&<]{0,300}<<<[ \\t]*${ARG}`),
  rule('command_password', ['mosquitto_passwd'], `mosquitto_passwd${WORD_END}${REST}-b[ \\t]+[^\\s;&|]{1,200}[ \\t]+[^\\s;&|]{1,100}[ \\t]+${ARG}`),
  // A key given as a UUID after a bare --key (Smithery's MCP servers: `--key 75162c6a-…`).
  rule('command_password', ['--key'], `--key[ \\t=]+['"]?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![0-9a-f-])`, 'dyi'),
  // Honeycomb's key header; a password manager's session (`export BW_SESSION=…`, `OP_SESSION_<account>=…`);
  // Neo4j's `NEO4J_AUTH=neo4j/<password>`; a Java session id in a URL (`;jsessionid=…`): whoever has it is logged in.
  rule('bearer', ['X-Honeycomb-Team', 'x-honeycomb-team'], `X-Honeycomb-Team["']?[ \\t]*[:=][ \\t]*["']?([A-Za-z0-9]{22,64})(?![A-Za-z0-9])`, 'dyi'),
  rule('secret_assignment', ['BW_SESSION', 'OP_SESSION_'], `(?:BW_SESSION|OP_SESSION_[A-Za-z0-9_]{0,64})["']?[ \\t]*[=:][ \\t]*["']?([A-Za-z0-9+/_-]{20,200}={0,2})`),
  rule('command_password', ['NEO4J_AUTH'], `NEO4J_AUTH["']?[ \\t]*[=:][ \\t]*["']?[^/\\s'"]{1,64}/([^\\s'"]{1,200})`),
  rule('session_id', [';jsessionid='], `;jsessionid=([A-Za-z0-9._-]{16,128})`, 'dyi'),
  // Bitwarden Secrets Manager's access token (`bws … -t 0.<uuid>.<secret>:<key>`), OpenWrt's UCI `option key '…'` (Wi-Fi, VPN).
  rule('command_password', ['bws'], `bws${WORD_END}${REST}(?:-t|--access-token)[ \\t=]+${ARG}`),
  rule('command_password', ['option key', 'option password'], `option[ \\t]+(?:key|password)[ \\t]+${ARG}`),
  // A NATS nkey seed (`S` + its kind, 58 characters of base32): under a .creds file's armor, or after `--nkey`.
  rule('nats_seed', ['NKEY SEED-----'], `NKEY SEED-----[ \\t]*\\r?\\n[ \\t]*(S[A-Z][A-Z2-7]{56})(?![A-Za-z0-9])`),
  rule('nats_seed', ['--nkey'], `--nkey[ \\t=]+['"]?(S[A-Z][A-Z2-7]{56})(?![A-Za-z0-9])`),
  // strongSwan's and Libreswan's pre-shared key (`%any 203.0.113.5 : PSK "…"`).
  rule('command_password', [': PSK', ':PSK'], `:[ \\t]?PSK[ \\t]+${ARG}`),
  // macOS keychains (`security unlock-keychain -p …`, `create-keychain -p`, `import … -P`), Windows
  // code signing and certificate stores (`signtool … /p …`, `certutil -p …`), .NET's dev certificate.
  rule('command_password', ['security'], `security[ \\t]+(?:unlock-keychain|create-keychain|set-keychain-password|import|export)${WORD_END}${REST}-[pP][ \\t]+${ARG}`),
  rule('command_password', ['signtool', 'certutil'], `(?:signtool|certutil)(?:\\.exe)?${WORD_END}${REST}[/-]p[ \\t]+${ARG}`, 'dyi'),
  rule('command_password', ['dotnet'], `dotnet[ \\t]+dev-certs${WORD_END}${REST}(?:-p|--password)[ \\t=]+${ARG}`),
  // etcd's `--user root:pw`, Bitwarden's `bw unlock <password>` / `bw login <email> <password>`.
  rule('command_password', ['etcdctl'], `etcdctl${WORD_END}${REST}--user[ \\t=]+['"]?[^\\s:'"]{1,100}:([^\\s'"]{1,200})`),
  rule('command_password', ['bw'], `bw[ \\t]+(?:unlock|login[ \\t]+[^\\s@]{1,64}@[^\\s]{1,100})[ \\t]+(?!-)${ARG}`),
  rule('command_password', MONGO, `${either(MONGO)}${WORD_END}${REST}-p[ \\t]?${ARG}`),
  rule('command_password', ['sqlcmd', 'bcp', 'osql'], `(?:sqlcmd|bcp|osql)${WORD_END}${REST}-P[ \\t]?${ARG}`),
  rule('command_password', LDAP, `${either(LDAP)}${WORD_END}${REST}-w[ \\t]?${ARG}`),
  rule('command_password', REGISTRY, `${either(REGISTRY)}[ \\t]+(?:registry[ \\t]+|auth[ \\t]+)?login${WORD_END}${REST}(?:-p|--password)[ \\t=]+${ARG}`),
  // OpenLDAP's slapd.conf and nslcd.conf: `rootpw <password>`, `bindpw <password>`, one space apart.
  rule('command_password', ['rootpw', 'bindpw'], `(?<![\\w-])(?:rootpw|bindpw)[ \\t]+(?![=:{])${ARG}`, 'dyi'),
  // A user and password under a name of basic or HTTP auth (Flower's `FLOWER_BASIC_AUTH=user:pw`, `--basic_auth=…`, Compose's `BASIC_AUTH: …`).
  rule('basic_auth', ['basic_auth', 'BASIC_AUTH', 'http_auth', 'HTTP_AUTH'], `(?:basic|http)_auth["']?[ \\t]*(?:=|:[ \\t])[ \\t]*\\\\?["']?[^\\s:'"\\\\,]{1,100}:([^\\s'"\\\\,]{4,200})`, 'dyi'),
  // nginx's header set on the proxied request.
  rule('basic_auth', ['proxy_set_header'], `proxy_set_header[ \\t]+(?:Proxy-)?Authorization[ \\t]+["']?(?:Basic|Bearer|Token)[ \\t]+([A-Za-z0-9+/._~-]{8,4096}={0,2})`, 'dyi'),
  // A secret piped into a command that stores it (`echo … | netlify env:set NAME`, `printf '%s' … | podman secret create n -`).
  rule('command_password', ['echo', 'printf'], `(?:echo|printf)[ \\t]+(?:-[a-zA-Z]{1,3}[ \\t]+){0,3}(?:(?:'%s(?:\\n|\\\\n)?'|"%s(?:\\n|\\\\n)?"|%s)[ \\t]+)?${ARG}[ \\t]*\\|[ \\t]*(?:sudo[ \\t]+)?(?:npx[ \\t]+)?(?:netlify[ \\t]+env:set|(?:podman|docker)[ \\t]+secret[ \\t]+create|secret-tool[ \\t]+store|op[ \\t]+item[ \\t]+create|vercel[ \\t]+env[ \\t]+add|wrangler[ \\t]+secret[ \\t]+put)`, 'dyi'),
  // … or given it as a here-string, or through a process substitution in place of a password file.
  rule('command_password', ['secret-tool', 'op item'], `(?:secret-tool[ \\t]+store|op[ \\t]+item[ \\t]+create)[^\\n|;&]{0,300}?<<<[ \\t]*${ARG}`),
  rule('command_password', ['<(echo', '<(printf'], `(?<=(?:pass(?:word)?[-_]?(?:file|command)|passfile|secret[-_]?file|key[-_]?file|token[-_]?file)[ \\t=]{1,3})<\\((?:echo|printf)[ \\t]+(?:-[a-zA-Z]{1,3}[ \\t]+)?(?:'%s'[ \\t]+)?${ARG}[ \\t]*\\)`),
  // Jinja's default for a secret-named variable (`{{ vault_db_password | default('…') }}`).
  rule('secret_assignment', ['default('], `(?<=\\{\\{[^}\\n]{0,120}(?:passw(?:or)?d|secret|token|api_?key|credential)[^}\\n|]{0,60}\\|[ \\t]*)default\\([ \\t]*${QARG}`, 'dyi'),
  // Postfix's static SASL map (`smtp_sasl_password_maps = static:user:password`).
  rule('command_password', ['static:'], `(?<=password_maps[ \\t]*=[ \\t]*)static:[^\\s:'"]{1,100}:([^\\s'"]{4,200})`),
  // firebase/php-jwt's key, told by the algorithm after it (`new Key('…', 'HS256')`).
  rule('call_secret', ['new Key('], `new Key\\([ \\t]*${QARG}[ \\t]*,[ \\t]*['"](?:HS|RS|ES|PS)\\d{3}['"]`),
  // A secret-named variable given a literal through an encoder or a field's default (jose's
  // `const secret = new TextEncoder().encode('…')`, pydantic's `api_key: str = Field(default="…")`),
  // or an environment variable's fallback (`Optional.ofNullable(System.getenv("API_KEY")).orElse("…")`).
  rule('call_secret', ['new TextEncoder().encode('], `(?<=(?:secret|key|token|passw(?:or)?d)\\w{0,30}[ \\t]*=[ \\t]*)new TextEncoder\\(\\)\\.encode\\([ \\t]*${QARG}`, 'dyi'),
  rule('call_secret', ['Field('], `(?<=(?:secret|api_?key|token|passw(?:or)?d)\\w{0,30}[ \\t]*:[ \\t]*(?:str|SecretStr|Optional\\[str\\]|str[ \\t]*\\|[ \\t]*None)[ \\t]*=[ \\t]*)Field\\((?:[^()\\n]{0,80}?,)?[ \\t]*default[ \\t]*=[ \\t]*${QARG}`, 'dyi'),
  rule('call_secret', ['getenv(', 'getOrDefault('], `(?:getenv\\([ \\t]*"[^"\\n]{0,60}(?:SECRET|TOKEN|KEY|PASSWORD|PASS)[^"\\n]{0,20}"[ \\t]*\\)\\)?[ \\t]*\\.orElse|getOrDefault\\([ \\t]*"[^"\\n]{0,60}(?:SECRET|TOKEN|KEY|PASSWORD|PASS)[^"\\n]{0,20}"[ \\t]*,)\\(?[ \\t]*${QARG}`),
  // WordPress's wp-config.php (`define( 'AUTH_KEY',         '…' );`, as WP-CLI and the sample align it).
  rule('secret_assignment', ['define('], `define\\([ \\t]*['"][A-Z0-9_]{0,60}(?:KEY|SALT|PASSWORD|PASS|SECRET|TOKEN)[A-Z0-9_]{0,20}['"][ \\t]*,[ \\t]*${QARG}`, 'dy', (v) => !/^put your unique phrase here$/i.test(v)),
  rule('command_password', ['zip', 'unzip'], `(?:zip|unzip)${WORD_END}${REST}-P[ \\t]?${ARG}`),
  rule('command_password', ['7z', '7za', '7zr'], `7z[ar]?${WORD_END}${REST}-p([^\\s'"\`;&|]{1,200})`),
  rule('command_password', ['smbclient', 'rpcclient', 'smbmap'], `(?:smbclient|rpcclient|smbmap)${WORD_END}${REST}(?:-U[ \\t]?|--user(?:name)?[ \\t=])['"]?[^\\s%'"]{1,100}%([^\\s'"]{1,200})`),
  rule('command_password', ['-pass'], `-pass(?:in|out|word)?[ \\t]+pass:([^\\s'"\`]{1,200})`),
  // echo 'pw' | a command that reads a secret on its standard input (printf may give its format first).
  rule('command_password', ['echo', 'printf'], `(?:echo|printf)[ \\t]+(?:-[a-zA-Z]{1,3}[ \\t]+){0,3}(?:(?:'%s(?:\\n|\\\\n)?'|"%s(?:\\n|\\\\n)?"|%s)[ \\t]+)?${TWICE}[ \\t]*\\|[^\\n]{0,200}?(?:-stdin${WORD_END}|--with-token${WORD_END}|sudo[ \\t]+(?:-[a-zA-Z]+[ \\t]+)*-[a-zA-Z]*S${WORD_END}|passwd[ \\t]+--stdin|chpasswd${WORD_END}|${STDIN_SECRET}|${STDIN_PASSWORD})`),
  // The same from a here-string or a process substitution: `--with-token <<< T`, `< <(echo T)`.
  rule('command_password', ['--with-token', '--password-stdin'], `(?:--with-token|--password-stdin)[ \\t]*(?:<<<[ \\t]*|<[ \\t]*<\\([ \\t]*(?:echo|printf)[ \\t]+(?:-[a-zA-Z]{1,3}[ \\t]+){0,2})${ARG}`),
  // A secret's value given to the command that stores it the same way: `gh secret set X < <(echo V)`, `<<< V`.
  rule('command_password', ['gh', 'gcloud', 'wrangler', 'vercel', 'az', 'fly', 'flyctl', 'firebase', 'supabase', 'kubectl'], `${STDIN_SECRET}[^\\n<]{0,160}(?:<<<[ \\t]*|<[ \\t]*<\\([ \\t]*(?:echo|printf)[ \\t]+(?:-[a-zA-Z]{1,3}[ \\t]+){0,2})${ARG}`),
  rule('command_password', ['openssl'], `openssl${WORD_END}${REST}-k[ \\t]+${ARG}`),
  // A password made into Basic credentials: `echo -n 'user:pw' | base64`, PowerShell's `GetBytes("user:pw")`.
  rule('basic_auth', ['echo', 'printf'], `(?:echo|printf)[ \\t]+(?:-[a-zA-Z]{1,3}[ \\t]+){0,2}(?:'%s'[ \\t]+|"%s"[ \\t]+)?(?:'[^':\\s]{1,100}:([^'\\n]{1,200})'|"[^":\\s$]{1,100}:([^"\\n$]{1,200})")[ \\t]*\\|[ \\t]*(?:base64|openssl[ \\t]+(?:base64|enc[ \\t]+-base64))${WORD_END}`),
  rule('basic_auth', ['GetBytes('], `GetBytes\\([ \\t]*(?:'[^':\\s]{1,100}:([^'\\n]{1,200})'|"[^":\\s$]{1,100}:([^"\\n$]{1,200})")[ \\t]*\\)`),
  // Apple's altool (`-p <app-specific password>`, not `@keychain:…`); MinIO's `mc admin user add ALIAS USER PASSWORD`.
  rule('command_password', ['altool'], `altool${WORD_END}${REST}(?:-p|--password)[ \\t=]+${ARG}`, 'dy', (v) => !v.startsWith('@')),
  rule('command_password', ['mc admin'], `mc[ \\t]+admin[ \\t]+user[ \\t]+add[ \\t]+[^\\s;|&]{1,100}[ \\t]+[^\\s;|&]{1,100}[ \\t]+${ARG}`),
  // A passphrase handed on a here-string to a command that reads it on its standard input:
  // `gpg --passphrase-fd 0 … <<< "…"`, `sshfs -o password_stdin … <<< …`, `openssl … -pass stdin <<< …`.
  rule('command_password', ['gpg', 'gpg2', 'sshfs', 'openssl', 'vncpasswd', 'smbpasswd'], `(?:gpg2?[^\\n<|]{0,300}?--passphrase-(?:fd[ \\t=]+0|file[ \\t=]+/dev/stdin)|sshfs[^\\n<|]{0,300}?password_stdin|openssl[^\\n<|]{0,300}?-pass(?:in|out)?[ \\t]+stdin|vncpasswd[^\\n<|]{0,100}?-f|smbpasswd[^\\n<|]{0,100}?-s)[^\\n<|]{0,200}<<<[ \\t]*${ARG}`),
  rule('bearer', ['curl'], `curl${WORD_END}${REST}--oauth2-bearer[ \\t=]+${ARG}`),
  // PowerShell: ConvertTo-SecureString "…" -AsPlainText (the password in the clear, to be made a secure string).
  // Its switches may come first (`ConvertTo-SecureString -AsPlainText "…" -Force`: the forty-third stop's second red team).
  rule('command_password', ['ConvertTo-SecureString', 'convertto-securestring'], `ConvertTo-SecureString[ \\t]+(?:-(?:AsPlainText|Force)[ \\t]+)*(?:-String[ \\t]+)?(?:'([^'\\n]{1,200})'|"([^"\\n]{1,200})")`, 'dyi'),
  rule('basic_auth', ['curl'], `curl${WORD_END}(?:[^\\n|;&]|\\\\\\n){0,400}?[ \\t](?:-u[ \\t]?|--user[ \\t=]|-U[ \\t]?|--proxy-user[ \\t=])(?:'[^':\\n]{0,100}:([^'\\n]{1,200})'|"[^":\\n]{0,100}:([^"\\n]{1,200})"|[^\\s:'"]{0,100}:([^\\s'"\`;&|]{1,200}))`),
  rule('bearer', AUTHORIZATION, `(?:Proxy-)?Authorization["']?[ \\t]*[:=][ \\t]*["']?(?:Bearer|Token|Bot|ApiKey|Api-Key|Api-Token|SSWS|Digest|Splunk|GenieKey|Key|sso-key|token|bearer|NTLM|Negotiate|LOW|OAuth|SharedKey|DeepL-Auth-Key|Klaviyo-API-Key|Zoho-oauthtoken|GoogleLogin)[ \\t]+([A-Za-z0-9._~+/=:-]{8,4096})`, 'dyi'),
  // Basic credentials written as they are, not base64-encoded (`Authorization: Basic deploy:pw`): the password.
  rule('basic_auth', AUTHORIZATION, `(?:Proxy-)?Authorization["']?[ \\t]*[:=][ \\t]*["'\`]?Basic[ \\t]+(?!<)[^\\s:'"\`]{1,100}:([^\\s'"\`]{1,200})`, 'dyi'),
  rule('basic_auth', AUTHORIZATION, `(?:Proxy-)?Authorization["']?[ \\t]*[:=][ \\t]*["'\`]?Basic[ \\t]+([A-Za-z0-9+/]{8,4096}={0,2})`, 'dyi'),
  // A header named in one string and given in the next: OkHttp's `.addHeader("Authorization", "Basic …")`, `headers.set('Authorization', 'Bearer …')`.
  rule('bearer', AUTHORIZATION, `(?:Proxy-)?Authorization["'][ \\t]*,[ \\t]*["'](?:Bearer|Token|Basic|Bot|ApiKey|Api-Key|SSWS|Digest|Key|sso-key)[ \\t]+([A-Za-z0-9._~+/=:-]{8,4096})`, 'dyi'),
  // An API key as the user of Basic auth, with no password (`curl -u KEY:`, requests' `auth=("KEY", "")`, Go's `SetBasicAuth(KEY, "")`).
  rule('basic_auth', ['-u ', '--user '], `(?:-u|--user)[ \\t]+["']?([A-Za-z0-9_+/.-]{16,400}):["']?(?=[ \\t"'}\\\\]|$|\\r?\\n)`, 'dy', (v) => looksRandom(v, 16) || looksRandom(v.slice(v.lastIndexOf('_') + 1), 16) || /^[0-9a-f]{32,}$/.test(v)),
  rule('basic_auth', ['auth=(', 'auth = (', 'SetBasicAuth('], `(?:auth[ \\t]*=[ \\t]*\\(|SetBasicAuth\\()[ \\t]*["']([^"'\\s]{16,200})["'][ \\t]*,[ \\t]*["'][^"'\\n]{0,2}["'][ \\t]*\\)`, 'dy', (v) => looksRandom(v, 16) || /^[0-9a-f]{32,}$/.test(v)),
  // A TOTP seed (base32) handed to a generator, or to oathtool: every code it makes follows from it.
  // (RFC 6238's and every tutorial's example seed `JBSWY3DPEHPK3PXP` is none.)
  rule('totp_seed', ['pyotp.TOTP(', 'pyotp.HOTP(', 'authenticator.generate(', 'authenticator.check(', 'authenticator.verify(', 'totp.generate('], `(?:pyotp\\.[TH]OTP|authenticator\\.(?:generate|check|verify)|totp\\.generate)\\([ \\t]*(?:[^,()\\n]{1,80},[ \\t]*)?["']([A-Z2-7]{16,128}=*)["']`, 'dy', (v) => v !== 'JBSWY3DPEHPK3PXP'),
  rule('totp_seed', ['oathtool'], `oathtool\\b[^\\n]{0,80}?(?:-b|--base32)\\b[^\\n]{0,40}?[ \\t]["']?([A-Z2-7]{16,128}=*)["']?(?=[ \\t"'\\\\]|$|\\r?\\n)`, 'dy', (v) => v !== 'JBSWY3DPEHPK3PXP'),
  rule('bearer', ['Bearer'], `Bearer[ \\t]+([A-Za-z0-9._~+/-]{20,4096}=*)`),
  // A header that holds the key itself, with no scheme: `Authorization: sk_…`, `Authorization: <key>`.
  rule('bearer', AUTHORIZATION, `(?:Proxy-)?Authorization["']?[ \\t]*[:=][ \\t]*["']?(?!(?:Bearer|Basic|Token|Bot|ApiKey|Api-Key|Api-Token|SSWS|Digest|Splunk|GenieKey|Key|Negotiate|NTLM|AWS4-HMAC-SHA256|LOW|OAuth|SharedKey|DeepL-Auth-Key|Klaviyo-API-Key|Zoho-oauthtoken|GoogleLogin)\\b)([A-Za-z0-9._~+/=:-]{20,4096})`, 'dyi', (v) => looksRandom(v, 20) || looksRandom(v.slice(Math.max(v.lastIndexOf(':'), v.lastIndexOf('.')) + 1), 20)),
  rule('command_password', ['az'], `az[ \\t]+login${WORD_END}${REST}-p[ \\t]+${ARG}`),
  rule('command_password', ['twine'], `twine${WORD_END}${REST}-p[ \\t]+${ARG}`),
  // Publishing and sign-in tools that take a token or a password as a flag's value.
  rule('command_password', ['vsce'], `vsce${WORD_END}${REST}(?:-p|--pat)[ \\t=]+${ARG}`),
  rule('command_password', ['expo', 'eas'], `(?:expo|eas)[ \\t]+login${WORD_END}${REST}(?:-p|--password)[ \\t=]+${ARG}`),
  rule('command_password', ['nuget'], `nuget[ \\t]+(?:push|delete)${WORD_END}${REST}(?:-k|--api-key)[ \\t=]+${ARG}`),
  // Upload and sign-in tokens that are UUIDs, which nothing else would tell from an id.
  rule('command_password', ['codecov'], `codecov${WORD_END}${REST}(?:-t|--token)[ \\t=]+${ARG}`),
  rule('command_password', ['snyk'], `snyk[ \\t]+auth[ \\t]+${ARG}`),
  rule('command_password', ['doctl'], `doctl[ \\t]+auth[ \\t]+init${WORD_END}${REST}(?:-t|--access-token)[ \\t=]+${ARG}`),
  // macOS's keychain: `security add-generic-password -a me -s svc -w 'pw'` (or add-internet-password).
  rule('command_password', ['security'], `security[ \\t]+add-(?:generic|internet)-password${WORD_END}${REST}-w[ \\t]+${ARG}`),
  // Bundler's credentials for a gem source: `bundle config set --global gems.example.com user:token`.
  rule('command_password', ['bundle'], `bundle[ \\t]+config[ \\t]+(?:set[ \\t]+)?(?:--(?:global|local)[ \\t]+)?[A-Za-z0-9.-]+\\.[A-Za-z]{2,}[ \\t]+['"]?[^\\s:'"]{1,100}:([^\\s'"]{1,200})`),
  // The old passphrase (-P) and the new one (-N) of `ssh-keygen -p`: one command may give both.
  rule('command_password', ['ssh-keygen'], `ssh-keygen${WORD_END}${REST}-[NP][ \\t]?${ARG}(?:${REST}-[NP][ \\t]?${ARG})?`),
  // keytool's new store or key password (`-storepasswd -new …`, `-keypasswd -new …`).
  rule('command_password', ['keytool'], `keytool${WORD_END}${REST}-new[ \\t]+${ARG}`),
  rule('command_password', ['lftp'], `lftp${WORD_END}${REST}-u[ \\t]+['"]?[^\\s,'"]{1,100},([^\\s'"]{1,200})`),
  // sqlplus user/password@database
  rule('command_password', ['sqlplus', 'clpplus'], `(?:sqlplus|clpplus)[ \\t]+(?:-[A-Za-z]{1,10}[ \\t]+){0,3}['"]?[A-Za-z0-9_$#.]{1,64}/([^@\\s'"/]{1,200})@`),
  // Oracle's other tools take the same `user/password@database` (sqlldr and others as `userid=`).
  // `userid=user/password` with no database after it (the local instance): `imp userid=system/PW file=…`.
  rule('command_password', ['userid'], `(?<=(?:expdp|impdp|sqlldr|exp|imp)[ \\t][^\\n|;&]{0,200}?)userid[ \\t]*=[ \\t]*['"]?[A-Za-z0-9_$#.]{1,64}/([^@\\s'"/]{1,200})`, 'dyi'),
  rule('command_password', ['expdp', 'impdp', 'rman', 'sqlldr', 'exp', 'imp', 'dgmgrl'], `(?:expdp|impdp|rman|sqlldr|exp|imp|dgmgrl)[ \\t]+(?:(?:userid|target)[ \\t]*=[ \\t]*)?['"]?[A-Za-z0-9_$#.]{1,64}/([^@\\s'"/]{1,200})@`),
  // vault login TOKEN (a token older than the hvs. prefix has no rule of its own).
  // A token, not the next word of a sentence ("explain vault login flow"): a digit, a token's prefix, or generated-looking.
  rule('command_password', ['vault'], `vault[ \\t]+login(?:[ \\t]+-[^\\s]{1,100})*[ \\t]+(?![-\\w]+=)${ARG}`, 'dy', (v) => /\d/.test(v) || /^(?:hv[sbr]|[sbr])\./.test(v) || looksRandom(v, 12)),
  // Remote shells and desktops: psexec -p, evil-winrm -p, xfreerdp /p:, mosquitto_pub -P.
  rule('command_password', ['psexec', 'PsExec', 'evil-winrm', 'wmiexec', 'smbexec', 'crackmapexec', 'netexec', 'nxc'], `(?:psexec|evil-winrm|wmiexec|smbexec|crackmapexec|netexec|nxc)(?:\\.exe|\\.py)?${WORD_END}${REST}(?:-p|--password)[ \\t=]+${ARG}`, 'dyi'),
  rule('command_password', ['xfreerdp', 'wlfreerdp', 'sdl-freerdp'], `(?:xfreerdp|wlfreerdp|sdl-freerdp)${WORD_END}${REST}[/-]p:${ARG}`),
  rule('command_password', ['mosquitto_pub', 'mosquitto_sub', 'mosquitto_rr'], `mosquitto_(?:pub|sub|rr)${WORD_END}${REST}(?:-P|--pw)[ \\t]+${ARG}`),
  rule('command_password', ['dotnet', 'nuget'], `(?:dotnet[ \\t]+nuget|nuget)[ \\t]+(?:add|update)[ \\t]+source${WORD_END}${REST}(?:-p|--password|-Password)[ \\t]+${ARG}`),
  // rabbitmqctl add_user USER PASSWORD (and change_password), net user USER PASSWORD /add.
  rule('command_password', ['rabbitmqctl'], `rabbitmqctl(?:\\.bat)?[ \\t]+(?:-[^\\s]{1,40}[ \\t]+){0,4}(?:add_user|change_password)[ \\t]+['"]?[^\\s'"]{1,100}['"]?[ \\t]+${ARG}`),
  rule('command_password', ['net'], `net[ \\t]+user[ \\t]+(?:"[^"\\n]{1,100}"|[^\\s/"]{1,100})[ \\t]+(?![/*])${ARG}`, 'dyi'),
  // redis AUTH USER PASSWORD (AUTH PASSWORD alone is a label the names rule reads).
  rule('command_password', ['AUTH'], `AUTH[ \\t]+[A-Za-z0-9_.-]{1,64}[ \\t]+${ARG}(?=[ \\t]*(?:$|\\n|["'\\\\]))`, 'dy', (v) => /\d/.test(v) || looksRandom(v, 12)),
  // SQL: CREATE/ALTER USER … IDENTIFIED BY 'pw' (MySQL, MariaDB; Oracle unquoted), IDENTIFIED WITH plugin BY 'pw'.
  // In lower case only a quoted password: "identified by its unique id" is prose.
  rule('command_password', ['IDENTIFIED'], `IDENTIFIED[ \\t]+(?:WITH[ \\t]+['"]?\\w{1,64}['"]?[ \\t]+)?BY[ \\t]+(?:PASSWORD[ \\t]+)?${ARG}`),
  rule('command_password', ['identified'], `identified[ \\t]+(?:with[ \\t]+['"]?\\w{1,64}['"]?[ \\t]+)?by[ \\t]+(?:password[ \\t]+)?(?:'([^'\\n]{1,200})'|"([^"\\n]{1,200})")`),
  // poetry config http-basic.REPO USER PASSWORD, poetry config pypi-token.REPO TOKEN, cargo login TOKEN.
  rule('command_password', ['poetry'], `poetry[ \\t]+config[ \\t]+(?:--[a-z-]{1,20}[ \\t]+)*(?:http-basic\\.[^\\s]{1,100}[ \\t]+['"]?[^\\s'"]{1,100}['"]?|pypi-token\\.[^\\s]{1,100})[ \\t]+${ARG}`),
  rule('command_password', ['cargo'], `cargo[ \\t]+login(?:[ \\t]+--[a-z-]{1,20}(?:[ \\t=][^\\s-][^\\s]{0,100})?)*[ \\t]+${ARG}`),
  // Python's requests: HTTPBasicAuth('user', 'pw'), HTTPDigestAuth(…), auth=('user', 'pw').
  rule('basic_auth', ['HTTPBasicAuth', 'HTTPDigestAuth', 'HTTPProxyAuth'], `HTTP(?:Basic|Digest|Proxy)Auth\\([ \\t]*(?:'[^'\\n]{0,100}'|"[^"\\n]{0,100}")[ \\t]*,[ \\t]*(?:'([^'\\n]{1,200})'|"([^"\\n]{1,200})")`),
  rule('basic_auth', ['auth='], `auth=[ \\t]*\\([ \\t]*(?:'[^'\\n]{0,100}'|"[^"\\n]{0,100}")[ \\t]*,[ \\t]*(?:'([^'\\n]{1,200})'|"([^"\\n]{1,200})")[ \\t]*\\)`),
  // gh secret set NAME --body VALUE (or -b VALUE): the value of a repository's secret.
  rule('command_password', ['gh'], `gh[ \\t]+secret[ \\t]+set${WORD_END}${REST}(?:-b[ \\t]?|--body[ \\t=])${ARG}`),
  // Vault's unseal keys, as `vault operator init` prints them and `vault operator unseal` takes them.
  rule('vault_unseal_key', ['Unseal Key '], `Unseal Key \\d{1,2}:[ \\t]*([A-Za-z0-9+/]{40,50}={0,2})`),
  // With auto-unseal, `vault operator init` prints recovery keys instead.
  rule('vault_unseal_key', ['Recovery Key '], `Recovery Key \\d{1,2}:[ \\t]*([A-Za-z0-9+/]{40,50}={0,2})`),
  rule('vault_unseal_key', ['vault'], `vault[ \\t]+operator[ \\t]+unseal[ \\t]+(?:-[\\w-]+(?:=\\S+)?[ \\t]+)*${ARG}`),
  // Weights & Biases: wandb login KEY (40 hex digits).
  rule('command_password', ['wandb'], `wandb[ \\t]+login[ \\t]+(?:--?[\\w-]+[ \\t]+)*([0-9a-f]{40})(?![0-9a-f])`),
  // Password flags of more database and cluster CLIs: oc login, cqlsh, cypher-shell, rabbitmqadmin, influx, az's database servers.
  rule('command_password', ['oc', 'cqlsh', 'cypher-shell', 'rabbitmqadmin', 'influx'], `(?:oc[ \\t]+login|cqlsh|cypher-shell|rabbitmqadmin|influx[ \\t]+(?:setup|auth|user|v1))${WORD_END}${REST}(?:-p|--password)[ \\t=]+${ARG}`),
  rule('command_password', ['az'], `az[ \\t]+(?:sql|postgres|mysql|cosmosdb|vm)[ \\t]${REST}(?:-p|--admin-password)[ \\t=]+${ARG}`),
  // Windows: net use … /user:NAME PASSWORD, schtasks … /rp PASSWORD.
  // Not an option after the name (`/persistent:yes`): the password is a word of its own.
  rule('command_password', ['net', 'NET'], `net[ \\t]+use${WORD_END}${REST}/user:[^\\s]{1,120}[ \\t]+(?!/)${ARG}`, 'dyi'),
  rule('command_password', ['schtasks', 'SCHTASKS'], `schtasks${WORD_END}${REST}/rp[ \\t]+${ARG}`, 'dyi'),
  // openssl passwd [options] PASSWORD: the password to hash, in the clear.
  rule('command_password', ['openssl'], `openssl[ \\t]+passwd(?:[ \\t]+-(?:1|5|6|apr1|crypt|aixmd5|noverify|quiet|table|reverse)|[ \\t]+-salt[ \\t]+\\S+)*[ \\t]+${ARG}`),
  // Oracle: jdbc:oracle:thin:user/password@…, sqlcl/sqlplus 'user/password@//host…'.
  rule('url_password', ['jdbc:oracle:'], `jdbc:oracle:(?:thin|oci):[\\w.$-]{1,64}/([^@\\s'"\`]{1,200})@`),
  rule('command_password', ['sqlcl'], `sqlcl${WORD_END}${REST}['"]?[\\w.$-]{1,64}/([^@\\s'"\`]{1,200})@`),
  // curl -b / --cookie NAME=VALUE: a session's cookie (its value when it looks generated).
  rule('cookie', ['curl'], `curl${WORD_END}${REST}(?:-b|--cookie)[ \\t=]+['"]?[A-Za-z0-9_.-]{1,64}=([^\\s;'"]{16,4096})`, 'dy', (v) => looksRandom(v, 16)),
  // A secret store's value given on the command line: AWS SSM, Azure Key Vault.
  rule('command_password', ['aws'], `aws[ \\t]+ssm[ \\t]+put-parameter${WORD_END}${REST}--value[ \\t=]+${ARG}`),
  rule('command_password', ['az'], `az[ \\t]+keyvault[ \\t]+secret[ \\t]+set${WORD_END}${REST}--value[ \\t=]+${ARG}`),
  // HTTPie and xh: -a user:password (curl's -u has its rule).
  rule('basic_auth', ['http ', 'https ', 'xh ', 'xhs '], `(?:https?|xhs?)[ \\t]${REST}?(?:-a|--auth)[ \\t=]+['"]?[^\\s:'"]{1,100}:([^\\s'"]{1,200})`),
  // A YubiKey's PIN, PUK and management key on ykman's and yubihsm-shell's command lines.
  rule('command_password', ['ykman '], `ykman${WORD_END}${REST}(?:-P|--pin|-p|--puk|-n|--new-pin|--new-puk|-m|--management-key)[ \\t=]+${ARG}`, 'dy', (v) => !isPlaceholder(v)),
  rule('command_password', ['yubihsm-shell'], `yubihsm-shell${WORD_END}${REST}(?:-p|--password)[ \\t=]+${ARG}`, 'dy', (v) => !isPlaceholder(v)),
  // Windows' registry: `reg add KEY /v DEEPL_API_KEY /t REG_SZ /d …`, under a value whose name says secret.
  rule('command_password', ['reg add', 'REG ADD'], `(?:reg|REG)[ \\t]+(?:add|ADD)[^\\n]{0,300}?[ \\t]/[vV][ \\t]+"?[\\w-]{0,60}(?:[Kk][Ee][Yy]|[Tt][Oo][Kk][Ee][Nn]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd]|PWD)[\\w-]{0,20}"?(?:[ \\t]+/[tT][ \\t]+\\S+)?[ \\t]+/[dD][ \\t]+${ARG}`, 'dy', (v) => !isPlaceholder(v)),
  // What a prompt for a secret echoed: CircleCI's `context store-secret`.
  rule('command_password', ['Enter secret value'], `Enter secret value(?: and press enter)?:[ \\t]*([^\\s]{6,400})`),
  // `aws sts assume-role … --output text`: the CREDENTIALS row's key id, expiry, secret key and session token.
  rule('aws_session_token', ['CREDENTIALS'], `CREDENTIALS\\t[A-Z0-9]{16,128}\\t[^\\t\\n]{10,40}\\t[A-Za-z0-9/+=]{30,64}\\t([A-Za-z0-9/+=]{100,4096})`),
  // MinIO's client: mc alias set NAME URL ACCESS_KEY SECRET_KEY; both keys (a MinIO access key is
  // chosen by whoever set the server up, often a password itself).
  rule('command_password', ['mc '], `mc[ \\t]+(?:alias[ \\t]+set|config[ \\t]+host[ \\t]+add)[ \\t]+[^\\s]{1,100}[ \\t]+[^\\s]{1,300}[ \\t]+${ARG}[ \\t]+${ARG}`, 'dy', (v) => !isPlaceholder(v)),
  // Passwords and keys passed to a call by position (a quoted literal; a variable is not one).
  rule('call_secret', ['.login('], `\\.login\\(${PARG}${COMMA}${QARG}[ \\t]*[,)]`),
  // A bot's login by token alone (discord.js's client.login('…')): a generated-looking literal.
  rule('call_secret', ['.login('], `\\.login\\([ \\t]*${QARG}[ \\t]*\\)`, 'dy', (v) => looksRandom(v, 20)),
  rule('call_secret', ['getConnection('], `getConnection\\(${PARG}${COMMA}${PARG}${COMMA}${QARG}`),
  rule('call_secret', ['new PDO(', 'new mysqli(', 'mysqli_connect(', 'new Sequelize('], `(?:new[ \\t]+(?:PDO|mysqli|Sequelize)|mysqli_connect)\\(${PARG}${COMMA}${PARG}${COMMA}${QARG}`),
  // A Wi-Fi password given to an ESP32/ESP8266 sketch: `WiFi.begin("ssid", "…")`, `WiFi.softAP(…)`, `wifiMulti.addAP(…)`.
  rule('call_secret', ['WiFi.begin(', '.softAP(', '.addAP('], `(?:WiFi\\.begin|\\.softAP|\\.addAP)\\(${PARG}${COMMA}${QARG}`, 'dy', (v) => !isKeyword(v)),
  rule('call_secret', ['NetworkCredential('], `NetworkCredential\\(${PARG}${COMMA}${QARG}`),
  rule('call_secret', ['set_password('], `set_password\\(${PARG}${COMMA}${PARG}${COMMA}${QARG}`),
  rule('call_secret', ['jwt.sign(', 'jwt.encode('], `jwt\\.(?:sign|encode)\\((?:[ \\t]*\\{[^{}\\n]{0,300}\\}[ \\t]*|${PARG})${COMMA}${QARG}`),
  rule('call_secret', ['createHmac('], `createHmac\\([ \\t]*(?:'[^'\\n]{1,20}'|"[^"\\n]{1,20}")${COMMA}${QARG}`),
  rule('call_secret', ['hmac.new(', 'cookieParser('], `(?:hmac\\.new|cookieParser)\\([ \\t]*${QARG}`),
  // Azure Functions' keys (`az functionapp keys list`): the members of `functionKeys`, `systemKeys`
  // and `hostKeys` are keys whatever their names (`"default": "…"`); up to four of them.
  rule('azure_function_key', ['functionKeys', 'systemKeys', 'hostKeys'], `(?:function|system|host)Keys["']?[ \\t]*:[ \\t]*\\{${FUNCTION_KEY}(?:[ \\t\\r\\n]*,${FUNCTION_KEY})?(?:[ \\t\\r\\n]*,${FUNCTION_KEY})?(?:[ \\t\\r\\n]*,${FUNCTION_KEY})?`, 'dy', (v) => looksRandom(v, 20)),
  // A user and password encoded for Basic authentication: `btoa('user:pw')`, `b64encode(b'user:pw')`.
  rule('basic_auth', ['btoa(', 'b64encode('], `(?:btoa|b64encode)\\([ \\t]*b?['"][^'":\\s]{1,100}:([^'"\\s]{4,200})['"]`, 'dy', (v) => !isPlaceholder(v)),
  // A secret's command-line option given a literal default: argparse's and click's
  // `add_argument('--api-key', default='…')`, `@click.option('--token', default='…')`.
  rule('call_secret', ['add_argument(', 'click.option('], `(?:add_argument|click\\.option)\\([ \\t]*['"]-{1,2}[\\w-]*(?:key|token|secret|password|passwd|pass|pwd)['"][^)\\n]{0,200}?[ \\t,]default[ \\t]*=[ \\t]*${QARG}`, 'dyi', (v) => !isPlaceholder(v) && !isKeyword(v) && !/^\\d+$/.test(v)),
  // Redis MONITOR's log (and a Rust `{:?}` of argv) quotes every word: `"AUTH" "pw"`, `"AUTH" "user" "pw"`;
  // redis-cli's prompt: `127.0.0.1:6379> AUTH pw`.
  rule('command_password', ['"AUTH"', '"auth"'], `"(?:AUTH|auth)"[ \\t]+(?:"(?:\\\\.|[^"\\\\\\n]){1,100}"[ \\t]+)?"((?:\\\\.|[^"\\\\\\n]){1,200})"`),
  rule('command_password', ['> AUTH ', '> auth ', '>AUTH ', '>auth '], `(?<=[0-9a-z\\]]:\\d{1,5}(?:\\[\\d{1,2}\\])?)[ \\t]?>[ \\t]?(?:AUTH|auth)[ \\t]+(?:[^\\s"']{1,100}[ \\t]+)?${ARG}[ \\t]*(?=$|\\r?\\n|\\\\[rn]|")`),
  // sshpass reading the password from a process substitution (`sshpass -f <(echo 'pw') ssh …`).
  rule('command_password', ['sshpass'], `sshpass${WORD_END}${REST}-f[ \\t]*<\\((?:echo|printf)[ \\t]+(?:-[a-zA-Z]{1,3}[ \\t]+)?(?:'%s'[ \\t]+)?${ARG}[ \\t]*\\)`),
  // Dovecot's passwd-file entries with a password in clear (`user:{PLAIN}pw:…`).
  rule('command_password', ['{PLAIN}', '{CLEAR}', '{CLEARTEXT}', '{PLAIN-TRUNC}', '{plain}', '{clear}', '{cleartext}'], `\\{(?:PLAIN|CLEAR|CLEARTEXT|PLAIN-TRUNC)\\}([^\\s:'"]{1,200})`, 'dyi'),
  // A DigitalOcean Spaces key pair as s3fs's password file holds it (`DO00…:<secret>`).
  rule('secret_assignment', ['DO0', 'DO1', 'DO2', 'DO3', 'DO4', 'DO5', 'DO6', 'DO7', 'DO8', 'DO9'], `DO[0-9][0-9A-Z]{17}[ \\t]*:[ \\t]*([A-Za-z0-9/+]{40,43})(?![A-Za-z0-9/+])`, 'dy', (v) => looksRandom(v, 40)),
  // Jinja's filter hashes the literal before it: `{{ '…' | password_hash('sha512') }}`.
  rule('call_secret', ['password_hash'], `(?<=(?:'([^'\\n]{1,200})'|"([^"\\n]{1,200})")[ \\t]*\\|[ \\t]*)password_hash${WORD_END}`, 'dy', (v) => !isKeyword(v)),
  // SQL*Plus's CONNECT in a script or at its prompt: `CONNECT scott/pw@ORCL`, `conn sys/pw as sysdba`.
  rule('command_password', ['CONNECT ', 'CONN ', 'connect ', 'conn '], `(?<=(?:^|\\n|\\\\n|")[ \\t]*(?:SQL>[ \\t]*)?)(?:CONNECT|CONN|connect|conn)[ \\t]+[A-Za-z_][A-Za-z0-9_$#]{0,63}/([^@\\s'"/]{1,200})(?=@|[ \\t]+as[ \\t]+sys)`, 'dyi'),
  // Azure Pipelines' secret variables (`az pipelines variable create … --secret true --value …`, either order).
  rule('command_password', ['az '], `az[ \\t]+pipelines[ \\t]+variable(?:-group[ \\t]+variable)?[ \\t]+(?:create|update)(?=[^\\n|;&]{0,300}--secret(?:[ \\t=]+true)?${WORD_END})${REST}--value[ \\t=]+${ARG}`),
  // A secret written to Vault's key-value store: every value of `vault kv put|patch <path> k=v …` (a file's `@path` and stdin's `-` aside).
  rule('command_password', ['vault'], `vault[ \\t]+kv[ \\t]+(?:put|patch)(?:[ \\t]+-[\\w-]+(?:=[^\\s]+)?)*[ \\t]+(?!-)[^\\s=]{1,200}[ \\t]+[\\w.-]{1,64}=${ARG}(?:[ \\t]+[\\w.-]{1,64}=${ARG})?(?:[ \\t]+[\\w.-]{1,64}=${ARG})?(?:[ \\t]+[\\w.-]{1,64}=${ARG})?`, 'dy', (v) => !v.startsWith('@') && v !== '-'),
  // Consul's ACL tokens in an agent's config (`acl { tokens { agent = "…" } }`, or its JSON).
  rule('secret_assignment', ['tokens'], `tokens"?[ \\t]*:?[ \\t]*\\{(?:[^{}]{0,300}?"?(?:agent|default|initial_management|master|agent_recovery|agent_master|replication|config_file_service_registration|dns)"?[ \\t]*[=:][ \\t]*"([^"\\n]{8,200})")(?:[^{}]{0,300}?"?(?:agent|default|initial_management|master|agent_recovery|agent_master|replication|config_file_service_registration|dns)"?[ \\t]*[=:][ \\t]*"([^"\\n]{8,200})")?`),
  // SQL's passwords of users, roles and logins: PostgreSQL's `CREATE USER app WITH [ENCRYPTED] PASSWORD '…'`,
  // `ALTER ROLE app PASSWORD '…'`, SQL Server's `CREATE LOGIN app WITH PASSWORD = N'…'`; MySQL's
  // `SET PASSWORD [FOR 'u'@'h'] = '…'` and `= PASSWORD('…')`. A psql variable (`PASSWORD :'pw'`) is no literal.
  rule('command_password', ['PASSWORD', 'password'], `(?:PASSWORD|password)[ \\t]*=?[ \\t]*N?'((?:[^'\\n]|''){1,200})'(?<=(?:USER|ROLE|LOGIN|user|role|login)[ \\t][^;\\n]{0,200}?(?:PASSWORD|password)[ \\t]*=?[ \\t]*N?'(?:[^'\\n]|''){1,200}')`),
  rule('command_password', ['SET PASSWORD', 'set password'], `SET[ \\t]+PASSWORD(?:[ \\t]+FOR[ \\t]+[^=\\n;]{1,200}?)?[ \\t]*=[ \\t]*(?:PASSWORD\\([ \\t]*)?'((?:[^'\\n]|''){1,200})'`, 'dyi'),
  // Terraform's plan of a changed secret (`~ master_password = "old" -> "new"`): the new value too.
  rule('secret_assignment', ['-> "'], `(?<=(?:passw(?:or)?d|secret|token|api_?key|private_key)[\\w-]{0,30}"?[ \\t]*[=:][ \\t]*"[^"\\n]{0,200}"[ \\t]*)->[ \\t]*"([^"\\n]{1,200})"`, 'dyi', (v) => v !== '(sensitive value)' && !v.startsWith('(known after')),
  // A plan's or a state's random_password: its `result` (`{"address":"random_password.db", … "result":"…"}`).
  rule('terraform_password', ['"result"'], `(?<=random_password[^\\n]{0,400}?)"result"[ \\t]*:[ \\t]*"([^"\\n]{1,400})"`),
  // A literal fallback of a secret's environment variable: `process.env.SESSION_SECRET || '…'`, `?? "…"`;
  // the shell's and Compose's default (`${PGPASSWORD:-…}`) and Spring's (`${shop.jwt.secret:…}`); not the
  // shell's error message (`${API_KEY:?missing}`) or alternate value (`:+`).
  rule('call_secret', ['process.env.'], `process\\.env\\.[A-Za-z0-9_]{0,60}(?:SECRET|TOKEN|KEY|PASSWORD|PASSWD|PASS|PWD)[A-Za-z0-9_]{0,30}[ \\t]*(?:\\|\\||\\?\\?)[ \\t]*${QARG}`, 'dyi'),
  // (a `-` in the name only where `:` ends it: `${app-password-secret}` is a name, not `app-password` defaulting to `secret`).
  rule('secret_assignment', ['${'], `\\$\\{(?:[\\w.]{0,60}?(?:passw(?:or)?d|secret|token|api_?key|pass|pwd)[\\w.]{0,30}(?::-|:(?![-?+=])|-)|[\\w.-]{0,60}?(?:passw(?:or)?d|secret|token|api[_-]?key|pass|pwd)[\\w.-]{0,30}:(?![-?+=]))([^}\\s$'"]{4,200})\\}`, 'dyi', (v) => !isKeyword(v)),
  // Concourse's `fly -t ci login -u u -p …`; MinIO's `mc alias set <alias> <url> <access key> <secret key>`;
  // Confluent's `api-key store <key> <secret>`; Drone's `secret add --data …`; yarn's npm token.
  rule('command_password', ['fly'], `fly${WORD_END}(?:[ \\t]+-t[ \\t]+[^\\s]{1,100})?[ \\t]+login${REST}(?:-p|--password)[ \\t=]+${ARG}`),
  rule('command_password', ['confluent'], `confluent[ \\t]+api-key[ \\t]+store[ \\t]+(?:--?[\\w-]+[ \\t]+)*[^\\s-][^\\s]{0,100}[ \\t]+${ARG}`),
  rule('command_password', ['drone'], `drone[ \\t]+(?:org)?secret[ \\t]+(?:add|update)${REST}--data[ \\t=]+${ARG}`),
  rule('command_password', ['yarn'], `yarn[ \\t]+config[ \\t]+set[ \\t]+(?:-H[ \\t]+)?(?:npmAuthToken|npmAuthIdent|['"]?npmRegistries\\.[^\\s]{1,200}\\.npmAuthToken['"]?)[ \\t]+${ARG}`),
  // smbclient's and its kin's `-U 'DOMAIN\\user%password'` (quoted, the user may read as holding a blank: `\\b` is an escape to the view).
  rule('command_password', ['smbclient', 'rpcclient', 'smbmap', 'smbcacls', 'smbget'], `(?:smbclient|rpcclient|smbmap|smbcacls|smbget)${WORD_END}${REST}(?:-U|--user)[ \\t=]+(?:'[^'%\\n]{1,100}%([^'\\n]{1,200})'|"[^"%\\n]{1,100}%([^"\\n]{1,200})"|[^\\s%'"]{1,100}%([^\\s'"]{1,200}))`),
  // Ruby's `URI::Generic.build(userinfo: "user:…")`; Maven's master password (`<master>{…}</master>`);
  // FileZilla's saved password (`<Pass encoding="base64">…</Pass>`); Android's `buildConfigField` of a secret.
  rule('basic_auth', ['userinfo'], `userinfo[ \\t]*(?::|=>|=)[ \\t]*["'][^"':\\s]{1,100}:([^"'\\s]{4,200})["']`),
  rule('secret_assignment', ['<master>'], `<master>(\\{[A-Za-z0-9+/=]{8,400}\\})</master>`),
  rule('secret_assignment', ['<Pass'], `<Pass(?:[ \\t]+encoding="base64")?>([^<\\s]{4,400})</Pass>`),
  rule('call_secret', ['buildConfigField('], `buildConfigField\\([ \\t]*"[^"\\n]{1,40}"[ \\t]*,[ \\t]*"[A-Z0-9_]{0,60}(?:SECRET|TOKEN|KEY|PASSWORD|PASS)[A-Z0-9_]{0,30}"[ \\t]*,[ \\t]*"(?:\\\\?")?([^"\\\\\\n]{4,400})(?:\\\\?")?"`),
  // Keycloak's credential representation (`{"type" : "secret", "value" : "…"}`, `"password"` too).
  rule('secret_assignment', ['"type"'], `"type"[ \\t]*:[ \\t]*"(?:secret|password|client-secret)"[ \\t]*,[ \\t\\r\\n]*"value"[ \\t]*:[ \\t]*"([^"\\n]{4,400})"`),
  // Terraform's GitHub provider: `plaintext_value = "…"` of a github_actions_secret; Pulumi's exported secret.
  rule('secret_assignment', ['plaintext_value'], `plaintext_value["']?[ \\t]*[=:][ \\t]*"([^"\\n]{4,400})"`),
  rule('secret_assignment', ['4dabf18193072939515e22adb298388d'], `4dabf18193072939515e22adb298388d"[^}]{0,200}?"plaintext"[ \\t]*:[ \\t]*"(?:\\\\?")?((?:[^"\\\\\\n]|\\\\[^"]){4,400}?)(?:\\\\?")?"`),
  // What first starts print once: Elasticsearch 8's elastic password, its reset's new value, Jenkins' initial
  // admin password, Argo CD's initial password.
  rule('command_password', ['Password for the elastic user'], `Password for the elastic user[^\\n]{0,120}\\r?\\n[ \\t]*([^\\s]{8,200})`),
  rule('command_password', ['successfully reset.'], `successfully reset\\.[ \\t]*\\r?\\n[ \\t]*New value:[ \\t]*([^\\s]{6,200})`),
  // Jenkins' also as `docker compose up` prints it, each line after its service's name (`jenkins  | `).
  rule('command_password', ['proceed to installation:'], `proceed to installation:[ \\t]*\\r?\\n(?:${COMPOSE_PREFIX}[ \\t]*\\r?\\n){0,2}${COMPOSE_PREFIX}[ \\t]*([0-9a-f]{32})`),
  rule('command_password', ['This password must be only used'], `(?<=(?:^|\\n)[ \\t]*([A-Za-z0-9_-]{12,64})[ \\t]*\\r?\\n(?:[ \\t]*\\r?\\n)?[ \\t]*)This password must be only used`),
  // A CI system's variables API: GitLab's `--form "key=AWS_SECRET_ACCESS_KEY" --form "value=…"`,
  // CircleCI's `…/environment-variable/STRIPE_SECRET … -d '{"value":"…"}'`; GitHub Actions' debug
  // log of a secret's evaluation (`##[debug]Evaluating: secrets.X` … `##[debug]=> '…'`).
  rule('secret_assignment', ['--form', '-F '], `(?:--form|-F)[ \\t]+["']?key=[A-Za-z0-9_]{0,60}(?:SECRET|TOKEN|KEY|PASSWORD|PASSWD|PASS|PWD|CRED)[A-Za-z0-9_]{0,30}["']?${REST}(?:--form|-F)[ \\t]+["']?value=([^"'\\s]{4,400})`, 'dyi'),
  rule('secret_assignment', ['environment-variable/'], `environment-variable/[A-Za-z0-9_]{0,60}(?:SECRET|TOKEN|KEY|PASSWORD|PASSWD|PASS|PWD|CRED)[A-Za-z0-9_]{0,30}[^\\n]{0,400}?"value"[ \\t]*:[ \\t]*"([^"\\n]{4,400})"`, 'dyi'),
  rule('secret_assignment', ['##[debug]=>', '##[debug]Result:'], `(?<=##\\[debug\\]Evaluating: secrets\\.[\\w-]{1,100}[^]{0,400}?)##\\[debug\\](?:=>|Result:)[ \\t]*'([^'\\n]{4,400})'`),
  // A command that prints a secret, and what it printed on the next line, in one text (a pasted
  // terminal, an output that repeats its command): `openssl rand -hex 32`, `rails secret`,
  // `php artisan key:generate --show`, Python's `secrets.token_urlsafe`, `… | base64 -d`, `cat` of
  // a secrets file, a secret manager's read. The line after it is the value when it is one word
  // (not a URL or a path: an id the read was asked for instead).
  printsBelow(PRINTS_SECRET, printedSecret),
  printsBelow(PRINTS_GENERATED, generatedPrint),
  // A literal fallback given where a secret's setting is read (`config.get("db", "password", fallback="…")`).
  rule('call_secret', ['fallback'], `(?<=["'][\\w.-]{0,40}(?:passw(?:or)?d|secret|token|api_?key|credential)[\\w.-]{0,20}["'][ \\t]*,[ \\t]*)fallback[ \\t]*=[ \\t]*${QARG}`, 'dyi'),
  // Secrets as a list under a name of one (a rotation's `secret: ['new', 'old']`, Keycloak's
  // `"bindCredential": ["…"]`): each generated-looking literal, up to four.
  rule('secret_assignment', ['secret', 'bindCredential', 'passwords', 'api_keys', 'apiKeys'], `(?:secret|bindCredential|passwords|api_keys|apiKeys)["']?[ \\t]*[:=][ \\t]*\\[[ \\t]*${QARG}(?:[ \\t]*,[ \\t]*${QARG}){0,3}`, 'dy', (v) => looksRandom(v, 12)),
  // The shell printing a secret's variable (`echo $DB_PASSWORD` and the line it printed);
  // Elasticsearch 8's enrollment token.
  rule('command_password', ['echo'], `echo[ \\t]+"?\\$\\{?[A-Za-z0-9_]{0,60}(?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|APIKEY|PASS|PWD)[A-Za-z0-9_]{0,30}\\}?"?[ \\t]*\\r?\\n[ \\t]*([^\\s"'\`<>]{8,400})[ \\t]*(?=\\r?\\n|$|["'\\\\])`, 'dyi', printedSecret),
  rule('secret_assignment', ['enrollment token'], `enrollment token[^\\n]{0,200}\\r?\\n[ \\t]*(eyJ[A-Za-z0-9+/=_-]{40,4096})`, 'dyi'),
  // A multipart form's part named as a secret (`Content-Disposition: form-data; name="password"`,
  // a blank line, the value); Redis's wire protocol (`*2\r\n$4\r\nAUTH\r\n$14\r\n…`, as strace shows it).
  rule('secret_assignment', ['form-data;'], `form-data;[ \\t]*name="[\\w.-]{0,40}(?:passw(?:or)?d|secret|token|api_?key|passphrase)[\\w.-]{0,20}"[^\\n]{0,200}\\r?\\n(?:[^\\n]{1,200}\\r?\\n){0,3}\\r?\\n([^\\r\\n]{1,400})`, 'dyi'),
  rule('command_password', ['AUTH', 'auth'], `(?:AUTH|auth)\\r?\\n\\$\\d{1,3}\\r?\\n(?:[^\\r\\n]{1,100}\\r?\\n\\$\\d{1,3}\\r?\\n)?([^\\r\\n]{1,200})`),
];

/**
 * The text with each line continuation (a shell's `\`, cmd.exe's `^`, PowerShell's backtick,
 * then the line's end) made spaces of the same length: a command split over lines is read as
 * one (`docker login \⏎ -u me \⏎ -p …`), at the same offsets. The last text asked is remembered:
 * a line's every rule asks about the same text.
 */
let joinedFrom = '';
let joined = '';
const CONTINUATION = /[\\^`]\r?\n/g;

function joinContinuations(text: string): string {
  if (text === joinedFrom) return joined;
  joinedFrom = text;
  joined = text.includes('\n') ? text.replace(CONTINUATION, (m) => ' '.repeat(m.length)) : text;
  return joined;
}

function commandHandler(r: CommandRule): Handler {
  return (text, at, found) => {
    r.re.lastIndex = at;
    const m = r.re.exec(joinContinuations(text));
    if (m === null) return -1;
    let hit = false;
    for (let g = 1; g < m.length; g += 1) {
      const range = m.indices?.[g];
      const value = m[g];
      if (range && value !== undefined && !isPlaceholder(value) && (r.check === undefined || r.check(value))) {
        found.add(range[0], range[1], r.kind, PRIORITY.command);
        hit = true;
      }
    }
    return hit ? at + 1 : -1;
  };
}

/** htpasswd -b[c] FILE USER PASSWORD, htpasswd -nb USER PASSWORD. */
const HTPASSWD = /htpasswd((?:[ \t]+-[a-zA-Z]{1,6}){1,4})((?:[ \t]+[^\s|;&]{1,200}){2,3})/dy;

const htpasswd: Handler = (text, at, found) => {
  HTPASSWD.lastIndex = at;
  const m = HTPASSWD.exec(text);
  const flags = m?.[1] ?? '';
  const base = m?.indices?.[2]?.[0];
  if (!m || base === undefined || !flags.includes('b')) return -1;
  const words = [...(m[2] ?? '').matchAll(/[^\s]+/g)];
  const pw = words[flags.includes('n') ? 1 : 2];
  // A shell variable given in quotes (`"$ADMIN_PASS"`) is a reference as much as a bare one.
  if (pw?.index === undefined || isPlaceholder(pw[0]) || isPlaceholder(pw[0].replace(/^(["'])(.*)\1$/, '$2'))) return -1;
  found.add(base + pw.index, base + pw.index + pw[0].length, 'command_password', PRIORITY.command);
  return at + 1;
};

/**
 * Go's MySQL DSN and its kin have no scheme: `user:password@tcp(host:3306)/db`, `@unix(…)`. Found
 * at its `@tcp(` and read back: the password between the user's colon and the `@`.
 */
const schemelessDsn: Handler = (text, at, found) => {
  let i = at;
  while (i > 0 && at - i < 200 && !/[\s:'"`@/=]/.test(text[i - 1] as string)) i -= 1;
  if (i === at || text[i - 1] !== ':') return -1;
  let u = i - 1;
  while (u > 0 && i - 1 - u < 64 && /[\w.-]/.test(text[u - 1] as string)) u -= 1;
  if (u === i - 1 || (u > 0 && !/[\s'"`=(/]/.test(text[u - 1] as string))) return -1;
  if (isPlaceholder(text.slice(i, at))) return -1;
  found.add(i, at, 'url_password', PRIORITY.command);
  return at + 1;
};

/**
 * Commands that set a deployment's variables from `NAME=VALUE` words: `fly secrets set`
 * (`supabase secrets set`) sets secrets, so every literal value is one; `heroku config:set`,
 * `dokku config:set` and `docker build --build-arg` set any setting, so a value that looks
 * generated is (`PAYMENTS_PROVIDER=lIIg…`, `--build-arg GH_PACKAGES_READ=T8jn…`), whatever its name.
 */
const SETS = /[^\n|;&]{1,2000}/y;
const SET_WORD = /(?:^|[ \t])["']?[A-Za-z_][A-Za-z0-9_]{0,80}=(?:"([^"\n]{1,500})"|'([^'\n]{1,500})'|([^\s'";&|]{1,500}))/dg;

function settings(all: boolean): Handler {
  return (text, at, found) => {
    SETS.lastIndex = at;
    const line = SETS.exec(text);
    if (line === null) return -1;
    SET_WORD.lastIndex = 0;
    for (let m = SET_WORD.exec(line[0]); m !== null; m = SET_WORD.exec(line[0])) {
      const group = m[1] !== undefined ? 1 : m[2] !== undefined ? 2 : 3;
      const v = m[group] as string;
      const span = m.indices?.[group];
      if (span === undefined || isPlaceholder(v) || isKeyword(v)) continue;
      // Under any name, only what looks generated: not a commit's hash (`GIT_SHA=`), a list of words.
      if (all ? v.length >= 4 && !/^\d+$/.test(v) : looksRandom(v, 16) && !wordy(v) && !/^[0-9a-f]+$|,/.test(v)) found.add(at + span[0], at + span[1], 'command_password', PRIORITY.command);
    }
    return -1;
  };
}

export function registerCommands(scanner: LiteralScanner): void {
  scanner.add('secrets set ', settings(true));
  for (const s of ['config:set ', '--build-arg ', '--build-arg=']) scanner.add(s, settings(false));
  for (const s of ['@tcp(', '@unix(', '@udp(']) scanner.add(s, schemelessDsn);
  for (const r of RULES) for (const s of r.starts) scanner.add(s, commandHandler(r));
  scanner.add('htpasswd', htpasswd);
}
