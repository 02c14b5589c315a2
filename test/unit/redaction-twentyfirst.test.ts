import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/redact.js';
import { keepsEach, kept, removesEach, removesEachAlsoInJson } from './redaction-cases.js';

/**
 * Shapes the nineteenth red team left that the rules now read: credentials percent-encoded or in
 * base64, a listing with a tab between name and value, passphrases of generated groups, a `;`
 * inside a .env value, PINs, signing secrets and keystores, AWS SigV4 signatures, commands that
 * set secrets from `NAME=VALUE` words, both of MinIO's keys, a password alone on the line below
 * its label (Jenkins' in docker compose's log). Each in a JSON string too (a Codex
 * call's output, a tool result printed as JSON). Every value is made up.
 */

const b64 = (text: string): string => Buffer.from(text).toString('base64');

const CASES: ReadonlyArray<readonly [string, string, string]> = [
  ['a password in a percent-encoded URL in a query', 'GET /redirect?next=https%3A%2F%2Fadmin%3Ab2e4GxwQBwygga%40grafana.internal%3A3000%2Fd%2Fabc HTTP/1.1', 'b2e4GxwQBwygga'],
  ['a password in percent-encoded JSON', 'GET /track?payload=%7B%22user%22%3A%22ops%22%2C%22password%22%3A%22BJSclbxyhxnJq0%22%7D HTTP/1.1', 'BJSclbxyhxnJq0'],
  ['a proxy setting percent-encoded', 'proxy=http%3A%2F%2Fsquid%3AhMNeT4UYx9c74y%40proxy.corp%3A3128', 'hMNeT4UYx9c74y'],
  ['a Secret\'s data read with kubectl', `$ kubectl get secret app-db -o json | jq .data\n{\n  "DB_URL": "${b64('postgres://app:30JnWnAo5qjMLTD9aZX90SLK@db:5432/app')}",\n  "DB_USER": "YXBw"\n}`, b64('postgres://app:30JnWnAo5qjMLTD9aZX90SLK@db:5432/app')],
  ['a .env file in base64', `$ base64 -w0 .env\n${b64('DB_HOST=db\nDB_PASSWORD=r1SOV0IjgaNlPj\n')}`, b64('DB_HOST=db\nDB_PASSWORD=r1SOV0IjgaNlPj\n')],
  ['a registry login in base64', `$ echo -n "registry-bot:$PASS" | base64\n${b64('registry-bot:e5ji8sCs78cmOM')}`, b64('registry-bot:e5ji8sCs78cmOM')],
  ['client credentials in base64, decoded by the command', `$ echo '${b64('{"client_id":"svc-P3cZlz","client_secret":"s2ESLJFHUaPqVyJ3UjAAjO6XFcWQPshe4WwzFMnf"}')}' | base64 -d | jq .`, b64('{"client_id":"svc-P3cZlz","client_secret":"s2ESLJFHUaPqVyJ3UjAAjO6XFcWQPshe4WwzFMnf"}')],
  ['an SMTP AUTH LOGIN password', `send: 'AUTH LOGIN b3BzQGFjbWUuaW8=\\r\\n'\nreply: b'334 UGFzc3dvcmQ6\\r\\n'\nsend: '${b64('uVdR2Jirv9AmMl')}\\r\\n'`, b64('uVdR2Jirv9AmMl')],
  ['an SSM listing, name and value tab-separated', "$ aws ssm get-parameters-by-path --path /prod/mail --with-decryption --query 'Parameters[*].[Name,Value]' --output text\n/prod/mail/smtp_host\temail-smtp.eu-west-1.amazonaws.com\n/prod/mail/smtp_password\t2wUdW0bnjqNQzrwOA8djUkphRG9f", '2wUdW0bnjqNQzrwOA8djUkphRG9f'],
  ['a quoted passphrase of groups', 'export MATCH_PASSWORD="Vq8 Lm3X z7Rt Kw2"', 'z7Rt Kw2'],
  ['an unquoted YAML passphrase of groups', 'smtp:\n  password: Vq8 Lm3X z7Rt', 'z7Rt'],
  ['a .env password holding ; and =', 'DB_PASSWORD=Xv8;Lm3=Wz9Rk', 'Lm3=Wz9Rk'],
  ['a SIM PIN', '$ cat fastlane/.env.default\nFASTLANE_USER=ios-ci@shop.example.com\nSIM_PIN=482913', '482913'],
  ['an admin PIN in YAML', '  admin_pin: 83920174', '83920174'],
  ['a PIN code in camel case', 'pinCode: 512093', '512093'],
  ['a webhook signing secret named without "secret"', 'STRIPE_WEBHOOK_SIGNING=Dw7Xq2Lz9Rm4Kt', 'Dw7Xq2Lz9Rm4Kt'],
  ['an Android keystore in base64', 'ANDROID_KEYSTORE_BASE64=Mb+biNHxNKwDKRcb9xRCUuLWoH20Jcy8T7SlbxV2zFGvQTxPq++mW0rcksRP5hDeXFRzBIwZisn4P9X1xrsF1JbVf6CgTZBUd4', 'Mb+biNHxNKwDKRcb9xRCUuLWoH20Jcy8T7'],
  ['a SigV4 signature in an Authorization header', '> Authorization: AWS4-HMAC-SHA256 Credential=AKIAUJDATXI22ZWEMSVO/20241204/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=580546ad33f4f7331295247134f09ff053142d1d03daaa9888095e8ddc79cd4a', '580546ad33f4f7331295247134f09ff053142d1d03daaa9888095e8ddc79cd4a'],
  ['a secret set on Fly', '$ fly secrets set SESSION_KEY=Zchg_evq-EcztbFN4MmOTlyJRaw-jOr0nJABtPz2yWU', 'Zchg_evq-EcztbFN4MmOTlyJRaw-jOr0nJABtPz2yWU'],
  ['a short secret set on Fly among others', '$ flyctl secrets set -a shop REDIS_URL=redis://cache:6379 SMTP_PASS=hunter2x', 'hunter2x'],
  ['a generated value set on Heroku under a plain name', '$ heroku config:set -a acme-api PAYMENTS_PROVIDER=lIIgCi2mBKfGaFvAm9aFIP1M\nSetting PAYMENTS_PROVIDER and restarting ⬢ acme-api... done, v413', 'lIIgCi2mBKfGaFvAm9aFIP1M'],
  ['a generated build argument', '$ docker build --build-arg GH_PACKAGES_READ=T8jnAnUNzzx7ZXV6ewKDCPmX62DiRwZHRK24GihIVTyfRg2WAw9VjT41n6VwZ1Wg -t acme/api:ci .', 'T8jnAnUNzzx7ZXV6ewKDCPmX62DiRwZHRK24GihIVTyfRg2WAw9VjT41n6VwZ1Wg'],
  ["MinIO's access key", '$ mc alias set minio https://minio.acme.io:9000 BpdQwElB4QxFYJ7VSXLH e55lJHeEweeuTwwp4ItMppX/q4CxQWMLBVUrtSmX', 'BpdQwElB4QxFYJ7VSXLH'],
  ["Jenkins' initial password as docker compose prints it", 'jenkins  | Please use the following password to proceed to installation:\njenkins  |\njenkins  | 3fff5aaaa534104979e0d2a0cf57726f\njenkins  |', '3fff5aaaa534104979e0d2a0cf57726f'],
  ['a password alone on the line below its label', 'Setup complete.\nYour admin password:\n\n  Xk9mQ2wLp7Rz4Tv8\nStore it somewhere safe.', 'Xk9mQ2wLp7Rz4Tv8'],
  ["a token below its label, a service's log", 'api-1  | Generated API token:\napi-1  |   Qm7Vz2Lk9Xw4Rt8Bn3', 'Qm7Vz2Lk9Xw4Rt8Bn3'],
  ["a service account's private_key_id", '{\n  "type": "service_account",\n  "private_key_id": "9bc6031e9d49c4190eba712a6e303fa6dc3b6b44"\n}', '9bc6031e9d49c4190eba712a6e303fa6dc3b6b44'],
];

describe('credentials the rules read once decoded, or in a shape they now know', () => {
  removesEachAlsoInJson(CASES);
  it('cuts from a percent-encoded run only what was encoded there', () => {
    const out = kept('GET /redirect?next=https%3A%2F%2Fadmin%3Ab2e4GxwQBwygga%40grafana.internal%3A3000%2Fd HTTP/1.1');
    expect(out).toContain('GET /redirect?next=https%3A%2F%2Fadmin%3A');
    expect(out).toContain('%40grafana.internal%3A3000%2Fd HTTP/1.1');
  });
  it('names what a rule found in the text as written, not the base64 it also decoded', () => {
    const out = new Redactor().redact(`apiVersion: v1\nkind: Secret\ndata:\n  password: ${b64('Zk4Wq9Lx2Rm7VnQ8')}\n`).text;
    expect(out).not.toContain('base64_credential');
    expect(out).toContain('[REDACTED:');
  });
});

describe('ordinary text near those shapes', () => {
  keepsEach([
    ['base64 of a sentence', `$ echo ${b64('hello from the build server')} | base64 -d\nhello from the build server`],
    ['a sha512 integrity in a secret-speaking text', '"integrity": "sha512-Xq0nAAgYfvqGm0M0TrSdyPPw3hJwQ7yJ2tDUZxY4x1nFHt2r1hCmv5l3C0oHvNcA8x1rNyvpq5q8gW8vC0Y2ZQ==" (secret scan)'],
    ['a digest in base64 beside the word base64', '$ openssl dgst -sha256 -binary app.tar | base64\nq9Zr1mT0d3Kx8Qw2vB7nL4pY6sE1uH5jR0cF9gA3kDw='],
    ['a percent-encoded path', 'GET /search?q=a%2Fb%3Dc&page=2 HTTP/1.1'],
    ['percent-encoded prose in a query', 'https://www.google.com/search?q=how%20to%20reset%20a%20password%3F'],
    ['a GPIO pin', 'LED_PIN=13'],
    ['a version pin', 'pin: "1.2.3"'],
    ['a pin count', 'pin_count=1234'],
    ['signing turned on', 'GIT_COMMIT_SIGNING=true'],
    ['a keystore path', 'ANDROID_KEYSTORE_FILE=app/release.jks'],
    ['a passphrase of words', 'password: correct horse battery'],
    ['a state ending a sentence', 'Password: Required. Must be 12+ characters.'],
    ['a Heroku setting that is no secret', '$ heroku config:set -a acme-api WEB_CONCURRENCY=3 LOG_LEVEL=debug'],
    ['a build argument that is no secret', '$ docker build --build-arg NODE_VERSION=20.19.0 --build-arg APP_ENV=production .'],
    ['Fly secrets from variables', '$ fly secrets set DATABASE_URL=$DATABASE_URL API_TOKEN="${API_TOKEN}"'],
    ['MinIO keys from variables', '$ mc alias set minio https://minio.acme.io:9000 $MINIO_ACCESS_KEY $MINIO_SECRET_KEY'],
    ['a SigV4 header whose signature is elided', 'Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=host, Signature=…'],
    ['a signature in a commit message', 'fix: check Signature=header before parsing'],
    ['YAML keys nested under a password label', 'password:\n  min_length: 12\n  require_digit: true'],
    ['an identifier below a password label', 'password:\n  tokenizerConfigurationValue'],
    ['a sentence below a token label', 'Token:\nGenerated by the CLI on first run.'],
  ]);
});

/** The twentieth red team (278 secret cases, 82 probes written against the rules above): the shapes taken from it. */
const TOKEN = 'IQoJb3JpZ2luX2VjEePZH+AaY1CblFn1ScCr0UylxIH8KonF97cHo7KrydRsxzTz9FJuLwyOAKEMD8AWaKNCKdnaf4pypPZexpVuWHEHV8L85rXtA5Ck4EckWFUsuh2b+SRcqq';
const TWENTIETH: ReadonlyArray<readonly [string, string, string]> = [
  ["a parameter's name percent-encoded", 'GET /v1/geocode?address=1600+Amphitheatre&api%5Fkey=SttI6rEV4VvfpjzDeBFMF86pyr9XM030iA8lKFxX HTTP/1.1', 'SttI6rEV4VvfpjzDeBFMF86pyr9XM030iA8lKFxX'],
  ['a bearer token with its space percent-encoded', 'wss://realtime.example.net/v1/stream?authorization=Bearer%20sk-RHeoy2ziD0bmGsdkgZjPmpt6U2A900oKNiMyJP6lAeCpJvnF', 'sk-RHeoy2ziD0bmGsdkgZjPmpt6U2A900oKNiMyJP6lAeCpJvnF'],
  ['a password in a URL encoded twice', 'callback=https%3A%2F%2Fapp.example.com%2Fcb%3Fuser%253Dops%2526password%253Dz6qlVpJlextR8f', 'z6qlVpJlextR8f'],
  ['base64 of a Docker config', `imagePullCredentials:\n  .dockerconfigjson: ${b64('{"auths": {"harbor.acme.io": {"username": "robot$ci", "password": "IRIPq8Wz3Lm5Kx2Rt"}}}')}`, b64('{"auths": {"harbor.acme.io": {"username": "robot$ci", "password": "IRIPq8Wz3Lm5Kx2Rt"}}}')],
  ['base64 of JSON in an OAuth state, no word around it', `redirecting to https://idp.example.com/authorize?response_type=code&state=${b64('{"client_id": "web-7f3a", "client_secret": "ziEo8ExYm2fvS7hujvvukzvLJ5cvwdPXQz0Ql8Bc"}')}`, b64('{"client_id": "web-7f3a", "client_secret": "ziEo8ExYm2fvS7hujvvukzvLJ5cvwdPXQz0Ql8Bc"}')],
  ['a Basic value built by hand', `headers: { Authorization: 'Basic ' + '${b64('admin:M6WWNbsF60oQyVQE')}' },`, b64('admin:M6WWNbsF60oQyVQE')],
  ['IMAP AUTHENTICATE PLAIN', `a1 AUTHENTICATE PLAIN\n+ \n${b64('\0alerts@example.com\0i2ynrtlT9ZSXjU')}\na1 OK Logged in`, b64('\0alerts@example.com\0i2ynrtlT9ZSXjU')],
  ['a Secret read with a go-template, zsh marking the missing line break', `$ kubectl get secret api-token -o go-template='{{.data.token}}'\n${b64('HKPyLA1IiECvttXsYxkBiPv6CZt0iEsuprla4Vks')}%`, b64('HKPyLA1IiECvttXsYxkBiPv6CZt0iEsuprla4Vks')],
  ['a PIN in a sentence', 'user: the yubikey PIN is 698331, don\'t lose it', '698331'],
  ["Apple's app-specific password", 'user: for fastlane the app-specific password is slle-fwhp-ocbk-pzkg, the Apple ID is dev@acme.io', 'slle-fwhp-ocbk-pzkg'],
  ['a passphrase of words after --passphrase', "$ gpg --batch --passphrase 'tundra velvet orbit 87 plume' --symmetric backup.tar", 'tundra velvet orbit 87 plume'],
  ['a passphrase of words in an assignment', 'KEYSTORE_PASSPHRASE="marble uBA8 falcon mm9n"', 'marble uBA8 falcon mm9n'],
  ["Checkout.com's secret key given to its SDK", "const cko = new Checkout('sk_sbox_8g2mg5wiaymi83kr6bdxuttrj1');", 'sk_sbox_8g2mg5wiaymi83kr6bdxuttrj1'],
  ["a basic authenticator's secret", 'client.Authenticator = new HttpBasicAuthenticator("fd112c12280d24dbfb6511774be5b69e", "rktmZ85EGNtULfseMHHacOBKq9tR7aqY");', 'rktmZ85EGNtULfseMHHacOBKq9tR7aqY'],
  ["Weaviate's API key", 'auth_credentials=Auth.api_key("v4lDxGNVplqfrhoh0weVE9ndzFKcTkAzgH9MsKj8"))', 'v4lDxGNVplqfrhoh0weVE9ndzFKcTkAzgH9MsKj8'],
  ["a key set in Windows' registry", 'PS> reg add "HKCU\\Environment" /v DEEPL_API_KEY /t REG_SZ /d 003up9JvW3IOPpYcMZfc8TGGHrm411rB /f', '003up9JvW3IOPpYcMZfc8TGGHrm411rB'],
  ["a secret typed at CircleCI's prompt", '$ circleci context store-secret acme-prod DEPLOY_KEY\nEnter secret value and press enter: Q23LWQ4EHAPYZE3BJRJH13IMQFMA38XJHF59WTSSNDKML8P9ETWVTXVW7SXZDVCQ', 'Q23LWQ4EHAPYZE3BJRJH13IMQFMA38XJHF59WTSSNDKML8P9ETWVTXVW7SXZDVCQ'],
  ['what gopass show -o printed', '$ gopass show -o infra/db/prod\nngA2Av2AHPxNiMG6', 'ngA2Av2AHPxNiMG6'],
  ['what op item get --fields printed', '$ op item get "Stripe" --fields label=webhook\nrwJ1qHSLDhdrNmVcBMwWoG73oTxziD', 'rwJ1qHSLDhdrNmVcBMwWoG73oTxziD'],
  ["assume-role's session token as text", `$ aws sts assume-role --role-arn arn:aws:iam::123456789012:role/deploy --role-session-name ci --output text\nCREDENTIALS\tASIAJ2OO1FU3ZOB80W9G\t2026-02-20T11:00:00+00:00\thC0h7adsGJU8V6dVhObgvPfJ7bGTRUcExyk9YOBl\t${TOKEN}`, TOKEN],
  ["a YubiKey's PIN on ykman's command line", '$ ykman piv keys generate -P 892309 9a pub.pem', '892309'],
  ["a password manager's export, tab-separated", 'name\tusername\tpassword\turl\nGitLab\tops@acme.io\t4mB75sJwbEZkd10Xxa\thttps://gitlab.acme.io', '4mB75sJwbEZkd10Xxa'],
  ['base64url of JSON with no padding', `state=${Buffer.from('{"client_id": "web-7f3a", "client_secret": "ziEo8ExYm2fvS7hujvvukzvLJ5cvwdPXQz0Ql8Bc"}').toString('base64url')}`, Buffer.from('{"client_id": "web-7f3a", "client_secret": "ziEo8ExYm2fvS7hujvvukzvLJ5cvwdPXQz0Ql8Bc"}').toString('base64url')],
  ['a key under a name that says it is encoded', `ANTHROPIC_KEY_ENCODED=${b64('sk-ant-api03-wukWyCDxY6IsfbdtC0HWpkYe0A-nImM5rDSTTbD_OxYH7C_eSP1xPFl9HfORcVFyPx5iBcDMYiQbP0c2zZBRS8sN2s0moAA')}`, b64('sk-ant-api03-wukWyCDxY6IsfbdtC0HWpkYe0A-nImM5rDSTTbD_OxYH7C_eSP1xPFl9HfORcVFyPx5iBcDMYiQbP0c2zZBRS8sN2s0moAA')],
  ['a user and a password, no Secret Manager reference', 'DB_PASSWORD=admin:1234', 'admin:1234'],
  ['a passphrase quoted after a password in a sentence', 'user: the restic repo password is "staple Horse battery-68" (with the quotes removed)', 'staple Horse battery-68'],
];

describe('the twentieth red team', () => {
  removesEachAlsoInJson(TWENTIETH);
  keepsEach([
    ['a search for a password reset, in a query', 'https://www.google.com/search?q=how+to+reset+postgres+password+when+locked+out%3F&hl=en'],
    ['a variable in a URL, a host after it', 'REDIS_URL=redis://:${REDIS_PASSWORD}@cache:6379'],
    ['a Secret Manager reference alone', '--set-secrets=DB_PASS=db-pass:latest'],
    ['Secret Manager references', '$ gcloud run deploy api --set-secrets=DB_PASS=db-pass:latest,STRIPE_KEY=stripe-key:3 --region us-central1'],
    ['a commit hash as a build argument', '$ docker build --build-arg GIT_SHA=542d0e23ffb8f2b91fa829a9204869b6a6829956 -t acme/web:91452cd .'],
    ['a list of flags set on Heroku', '$ heroku config:set FEATURE_FLAGS=checkout-v2,search-v3'],
    ['a year after a PIN', 'the PIN rules changed in 2024'],
    ['a passphrase rule as a sentence', 'DB_PASSWORD="must be 12 characters or more."'],
    ['base64 of plain words after Basic', `Basic ${b64('hello world from ci')} is not a credential here`],
    ['a tab-separated table with a token count', 'id\tname\ttoken_count\nx1\tsearch\t1234'],
    ['a quoted sentence after a password label', 'the password is "required for login"'],
    ['a snake_case identifier beside the word secret', 'secret = load_secret_from_vault_Backend2_cache(name)'],
  ]);
});
