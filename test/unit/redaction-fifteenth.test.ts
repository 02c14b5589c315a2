import { describe } from 'vitest';
import { keepsEach, removesEach } from './redaction-cases.js';

/**
 * The fifteenth red team (docs/SECURITY.md): keys handed to SDKs and signing calls as literals,
 * WordPress's aligned defines, registry logins, provider formats, and code and labels that the
 * rules of names took for values. Every value is made up.
 */

const K = 'Xq7vR2mK9pL4sT8wZ1nB6cD3fG5hJ0aY';

describe('a key handed to an SDK, an HTTP client or a signing call as a literal', () => {
  removesEach([
    ['Google\'s option', `client, err := genai.NewClient(ctx, option.WithAPIKey("${K}"))`, K],
    ['an Azure key credential', `var client = new TextAnalyticsClient(endpoint, new AzureKeyCredential("${K}"));`, K],
    ['an Azure storage key (account, key)', `new StorageSharedKeyCredential("acmestore", "${K}")`, K],
    ['a builder\'s apiKey', `OpenAIClient client = OpenAIOkHttpClient.builder().apiKey("${K}").build();`, K],
    ['Laravel\'s withToken', `Http::withToken('${K}')->get($url);`, K],
    ['Laravel\'s withBasicAuth (user, password)', `Http::withBasicAuth('deploy', '${K}')->post($url);`, K],
    ['reqwest\'s bearer_auth', `client.get(url).bearer_auth("${K}").send().await?`, K],
    ['an HMAC key in Java', `Algorithm algorithm = Algorithm.HMAC256("${K}");`, K],
    ['a SecretKeySpec from a literal', `new SecretKeySpec("${K}".getBytes(StandardCharsets.UTF_8), "HmacSHA256")`, K],
    ['jsonwebtoken\'s sign (payload, key)', `const t = jwt.sign(payload, '${K}', { expiresIn: '1h' });`, K],
    ['PyJWT\'s encode', `token = jwt.encode(claims, "${K}", algorithm="HS256")`, K],
    ['Rust\'s EncodingKey', `let key = EncodingKey::from_secret(b"${K}");`, K],
    ['Go\'s SignedString over bytes', `s, err := token.SignedString([]byte("${K}"))`, K],
    ['PHP\'s hash_hmac after a call', `$sig = hash_hmac('sha256', $request->getContent(), '${K}');`, K],
    ['Ruby\'s OpenSSL::HMAC', `OpenSSL::HMAC.hexdigest('SHA256', '${K}', body)`, K],
    ['a Fernet key', `f = Fernet(b'${K}')`, K],
    ['pydantic\'s SecretStr', `api_key = SecretStr("${K}")`, K],
    ['an Ethereum key (viem)', `const account = privateKeyToAccount('0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318')`, '4c0883a69102937d6231471b5dbb6204'],
    ['firebase/php-jwt\'s key', `$decoded = JWT::decode($jwt, new Key('${K}', 'HS256'));`, K],
    ['jose\'s secret through an encoder', `const secret = new TextEncoder().encode('${K}');`, K],
    ['pydantic\'s default for a key', `    mistral_api_key: str = Field(default="${K}", alias="MISTRAL_API_KEY")`, K],
    ['an environment variable\'s fallback in Java', `Optional.ofNullable(System.getenv("COHERE_API_KEY")).orElse("${K}");`, K],
    ['a map\'s default for a secret', `String k = System.getenv().getOrDefault("STRIPE_SECRET", "${K}");`, K],
    ['keytar\'s password (third)', `keytar.setPassword('acme-cli', 'me@acme.io', '${K}')`, K],
  ]);
});

describe('configuration and commands', () => {
  removesEach([
    ['a WordPress salt aligned as WP-CLI writes it', `define( 'LOGGED_IN_KEY',    'A.#Gz!ncba-pWy1;>fTaM|1z2Ne{YT$(7I5h+g^l:lnY)?+iw4T@GEm%PuW3vvV+' );`, 'ncba-pWy1'],
    ['a WordPress database password of words', `define( 'DB_PASSWORD', 'purple monkey dishwasher' );`, 'monkey'],
    ['slapd\'s rootpw', 'rootpw          Tundra52#cnr', 'Tundra52'],
    ['nslcd\'s bindpw', 'bindpw Vx82!kelp', 'Vx82!kelp'],
    ['crane\'s registry login', `crane auth login harbor.acme.io -u 'robot$ci-push' -p ${K}`, K],
    ['oras\'s registry login', `oras login ghcr.io -u bot --password ${K}`, K],
    ['redis AUTH user password, a person\'s', 'AUTH default Tundra52', 'Tundra52'],
    ['an npm token set with a space', `npm config set //registry.npmjs.org/:_authToken ${K}`, K],
    ['a New Relic license key', 'license_key: 0123456789abcdef0123456789abcdef0123NRAL', '0123456789abcdef0123456789abcdef0123NRAL'],
    ['a Mailchimp key', 'mc = Client(api_key="0123456789abcdef0123456789abcdef-us21")', '0123456789abcdef0123456789abcdef-us21'],
    ['a Cloudflare user token (prefixed)', `revoke cfut_${K}a1B2c3D4e5F6 today`, K],
    ['a Vercel personal token (prefixed)', `my vercel login — vcp_${K}Qw — the team one is revoked`, K],
    ['a crates.io token', `this is the crates.io one: cio${K} (scope publish-update)`, K],
    ['a Plaid access token', 'exchanged public token for access-production-3f2b8c1e-7d4a-4e9b-9c1f-2a6b8d0e4f11 (item)', '3f2b8c1e-7d4a-4e9b'],
    ['a GCS signed URL in lower case', 'https://storage.googleapis.com/b/o?x-goog-algorithm=GOOG4-RSA-SHA256&x-goog-signature=9f3a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c', '9f3a8b7c6d5e4f3a2b1c'],
    ['Flower\'s basic auth in the environment', 'FLOWER_BASIC_AUTH=admin:Meadow-saffron20', 'Meadow-saffron20'],
    ['a basic auth flag', 'celery -A proj flower --basic_auth=admin:Cobalt-cobalt57', 'Cobalt-cobalt57'],
    ['nginx\'s proxied Authorization header', '    proxy_set_header Authorization "Basic c3ZjLWdhdGV3YXk6TGFudGVybjcyXndheA==";', 'c3ZjLWdhdGV3YXk6TGFudGVybjcyXndheA'],
    ['a secret piped into netlify env:set', `echo "${K}" | netlify env:set OPENAI_API_KEY`, K],
    ['a secret piped into podman secret create', "printf '%s' 'Quartz72!hsr' | podman secret create pg_password -", 'Quartz72!hsr'],
    ['a here-string to secret-tool', `secret-tool store --label='Cohere API' service cohere account dev <<< '${K}'`, K],
    ['a process substitution as restic\'s password file', "restic -r s3:x backup ~/work --password-file <(echo 'Lantern65*dcr')", 'Lantern65*dcr'],
    ['Jinja\'s default for a secret', `db_password: "{{ vault_db_password | default('Lantern21!gyd') }}"`, 'Lantern21!gyd'],
    ['Postfix\'s static SASL map', "sudo postconf -e 'smtp_sasl_password_maps = static:postmaster@mg.acme.io:Falcon23*mej'", 'Falcon23*mej'],
    ['a Zapier catch hook', 'curl -X POST https://hooks.zapier.com/hooks/catch/66005626/grn36nx/ -d x', 'grn36nx'],
    ['a Make hook', 'curl -X POST https://hook.eu2.make.com/8ad0w97ybsvo0siavgpico1el7mp1jcg', '8ad0w97ybsvo0siavgpico1el7mp1jcg'],
    ['a generated password that starts with `<`', `{"username": "admin", "password": "<Xk9mQ2vL7pR4#tZ"}`, 'Xk9mQ2vL7pR4'],
  ]);
});

describe('code and labels that are no secret', () => {
  keepsEach([
    ['a hashed password assigned in Python', '    hashed_password = get_password_hash(user.password)'],
    ['a private field in Python', '        self._password = password'],
    ['a private field in TypeScript', '    this._authToken = null;'],
    ['Jest\'s verdict lines', ' PASS  src/auth/token.test.ts (4.2 s)\n FAIL  src/auth/session.test.ts'],
    ['dependencies named for tokens', '    "jsonwebtoken": "^9.0.2",\n    "tiktoken": "^1.0.15",'],
    ['a Python dependency', 'tiktoken = "^0.7.0"'],
    ['a Gradle coordinate', "  implementation 'io.jsonwebtoken:jjwt-api:0.12.5'"],
    ['an English locale', '  "password": "Password",\n  "token": "Token",'],
    ['a German locale', '  "password": "Passwort",\n  "apiKey": "API-Schlüssel",'],
    ['a messages object', "export const messages = { password: 'Password', token: 'Token', secretKey: 'Secret key' };"],
    ['a Secrets Manager ARN in terraform\'s output', 'aws_secretsmanager_secret.db: Creation complete after 1s [id=arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf]'],
    ['an ECS valueFrom', '"valueFrom": "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-Ab12Cd:password::"'],
    ['Ollama\'s key', 'client = OpenAI(base_url="http://localhost:11434/v1", api_key="ollama")'],
    ['vLLM\'s EMPTY key', 'api_key="EMPTY"'],
    ['a test fixture\'s key', 'const fakeApiKey = "test-api-key-123";'],
    ['a secret\'s name given to pulumi', 'pulumi config set --secret dbPassword'],
    ['keytar\'s service name', "keytar.setPassword('acme-cli', account, token)"],
    ['an escaped reference inside double quotes', 'echo "PASSWORD=\\$DB_PASS"'],
    ['process substitutions of diff', 'diff <(echo a) <(echo b)'],
    ['an encoder of a greeting', "const greeting = new TextEncoder().encode('hello world');"],
    ['a field\'s default that is no secret', '    name: str = Field(default="acme", alias="NAME")'],
    ['a host\'s fallback', '    host = Optional.ofNullable(System.getenv("DB_HOST")).orElse("localhost");'],
    ['a basic auth switch', 'basic_auth: true'],
    ['this tool\'s error code after a path that ends in passwd', 'handoff: the daemon could not build /etc/passwd: HANDOFF_ERR_SOCKET: the daemon did not answer build within 24.6 ms'],
  ]);
});
