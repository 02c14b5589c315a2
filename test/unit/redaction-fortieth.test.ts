import { describe, expect, it } from 'vitest';
import { printsHow } from '../../src/core/redaction/printed.js';
import { call, result, say, user } from './claude-records.js';
import { kept } from './kept-helper.js';

/**
 * The fortieth stop's redaction (docs/SECURITY.md): programs the earlier red teams left that print
 * a secret alone — a database client's query of a secret's column, Redis's password setting, the
 * clipboard, a registry's login password, a deploy token. Every value is made up.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });
const SECRET = 'Zq7vK2mPx9LwR4tYb8Nc3Hs5';

const keptOf = (command: string, out: string, again: string): string =>
  kept(user('u1', 'check the deploy config'), bash('b1', command), result('b1', out), say('a1', `Noted the value ${again} for later.`));

describe('commands that print a secret alone, read now', () => {
  it.each([
    [`psql "$DATABASE_URL" -Atc "select token from api_tokens order by id desc limit 1"`, `${SECRET}\n`, 'secret'],
    [`sqlite3 data/app.db "SELECT u.api_key AS k FROM users u WHERE id = 1"`, `${SECRET}\n`, 'secret'],
    [`psql -d app -Atc "select id, email, api_key from users limit 1"`, `1|ana@acme.io|${SECRET}\n`, 'values'],
    [`mysql -N -e 'select authentication_string from mysql.user where user="app"'`, `${SECRET}\n`, 'secret'],
    [`psql -Atc "select * from api_tokens limit 1"`, `1|ci|${SECRET}\n`, 'values'],
    ['redis-cli CONFIG GET requirepass', `requirepass\n${SECRET}\n`, 'secret'],
    ['redis-cli -n 2 GET api_token', `"${SECRET}"\n`, 'secret'],
    ['npx wrangler kv key get --binding=CONFIG API_TOKEN --remote', `${SECRET}\n`, 'secret'],
    ['wrangler kv:key get "STRIPE_SECRET" --namespace-id=4f2a9c', `${SECRET}\n`, 'secret'],
    // The clipboard holds a commit's hash or a trace id as often: read as a secret's source (digests and public ids kept).
    ['pbpaste', `${SECRET}\n`, 'mentioned'],
    ['xclip -selection clipboard -o', `${SECRET}\n`, 'mentioned'],
    ['powershell.exe -c Get-Clipboard', `${SECRET}\n`, 'mentioned'],
    // A function that keeps the value, a client in a container, valkey's.
    [`psql -Atc "select lower(api_key) from users where id = 1"`, `${SECRET}\n`, 'secret'],
    [`docker compose exec db psql -U app -Atc "select token from api_tokens limit 1"`, `${SECRET}\n`, 'secret'],
    ['valkey-cli GET api_token', `${SECRET}\n`, 'secret'],
    ['aws ecr get-login-password --region us-east-1', `eyJwYXlsb2FkIjoi${SECRET}In0=\n`, 'secret'],
    ['gcloud auth application-default print-access-token', `ya29.${SECRET}\n`, 'secret'],
    ['fly tokens create deploy -x 720h', `FlyV1 fm2_${SECRET}\n`, 'secret'],
  ] as const)('%s', (command, out, how) => {
    expect(printsHow(command)).toBe(how);
    const secret = out.trim().split(/[\s|"]+/).filter((w) => w.includes(SECRET)).at(-1) as string;
    const all = keptOf(command, out, secret);
    expect(all).not.toContain(SECRET);
    expect(all).toContain('[REDACTED:printed_secret]');
  });
});

describe('what they do not read as a secret', () => {
  it.each([
    `psql -Atc "select count(token) from api_tokens"`,
    `psql -c "SELECT id, token_count FROM usage"`,
    `psql -Atc "select * from users limit 3"`,
    'redis-cli GET page_views',
    // The fortieth stop's red team: a weak or short column's name, an expression, a table that holds no secret, no client run.
    `sqlite3 db/development.sqlite3 "select key from flipper_features"`,
    `psql -Atc "select key, value from ar_internal_metadata"`,
    `psql -Atc "select id, token is not null as has_token from users"`,
    `psql -Atc "select id, pass from test_runs"`,
    `psql -Atc "select * from erc20_tokens"`,
    `psql -Atc "select * from webauthn_credentials"`,
    `git log --oneline -S "select token from sessions" -- db/mysql/`,
    // A key whose last part names no secret, a short field's name.
    'redis-cli GET auth:jwks:current_kid',
    'redis-cli HGET session:9f1c auth',
    'redis-cli GET pass:8812:barcode',
    // An app's name after the key; a weak name picked; `Key` in a list; a tokenizer's token; an option's value taken for the key.
    'heroku config:get HEROKU_SLUG_COMMIT -a hall-pass',
    `aws cloudformation describe-stacks --query "Stacks[0].Outputs[?OutputKey=='KmsKey'].OutputValue" --output text`,
    `aws s3api list-object-versions --bucket b --query "Versions[].[Key,VersionId,IsLatest]" --output text`,
    `python -c "import json; c=json.load(open('tokenizer_config.json')); print(c['pad_token'])"`,
    'wrangler kv key get --binding AUTH build_sha',
    'gopass fsck',
    'gpg --import < keys/release.asc',
    'mapfile -t ids < data/token_ids.txt; echo "${ids[0]}"',
    'npx wrangler kv key get --binding=CONFIG theme',
    'redis-cli CONFIG GET maxmemory',
    'cat notes.txt | pbcopy',
  ])('%s', (command) => {
    expect(printsHow(command)).toBeNull();
  });

  it('keeps the words of a clipboard or a table that are not generated-looking, and a pasted hash or trace id', () => {
    const all = kept(
      user('u1', 'use what I copied'),
      bash('b1', 'pbpaste'),
      result('b1', 'const retries = 3\nexport default retries\n'),
      bash('b3', 'pbpaste'),
      result('b3', 'c41e8a2f0b9d7e6c5a4b3f2e1d0c9b8a7f6e5d4c\nreq_7Hq2xLm9PzR4vTk3\n'),
      say('a2', 'Commit c41e8a2f0b9d7e6c5a4b3f2e1d0c9b8a7f6e5d4c failed on req_7Hq2xLm9PzR4vTk3.'),
      bash('b2', `psql -Atc "select id, email, api_key from users limit 1"`),
      result('b2', `1|ana@acme.io|${SECRET}\n`),
      say('a1', 'The retries constant is 3; ana@acme.io owns the key.'),
    );
    expect(all).toContain('The retries constant is 3; ana@acme.io owns the key.');
    expect(all).toContain('Commit c41e8a2f0b9d7e6c5a4b3f2e1d0c9b8a7f6e5d4c failed on req_7Hq2xLm9PzR4vTk3.');
    expect(all).not.toContain(SECRET);
  });
});

describe("the thirty-ninth stop's second red team's bypasses", () => {
  it.each([
    // Options before the flag that decrypts, or among others.
    [`sops --extract '["stripe"]["webhook"]' -d deploy/app.enc.yaml`, 'secret'],
    ['age -i ~/.config/age/keys.txt -d deploy/smtp.age', 'secret'],
    ['gpg -qd deploy/relay.gpg', 'secret'],
    // Vault's tokens and secret ids by `-field` with a space, `vault print token`.
    ['vault token create -policy=ci -ttl=1h -field=token', 'secret'],
    ['vault write -field secret_id -f auth/approle/role/ci/secret-id', 'secret'],
    ['vault print token', 'secret'],
    // pass's shorthand by one word, quoted, after the store's variable.
    ['pass github', 'secret'],
    ['pass "acme/prod-db"', 'secret'],
    ['PASSWORD_STORE_DIR=~/.password-store-work pass acme/smtp', 'secret'],
    // A name after an option's value, in another case; dokku over ssh with options.
    ['pulumi config get --stack prod dbPassword', 'secret'],
    ['ssh -t dokku@apps.acme.dev config:get api SMTP_PASSWORD', 'secret'],
    // A value picked by the name beside it; a list of names one of which is a secret.
    [`az webapp config appsettings list -n acme-api -g rg-web --query "[?name=='DB_PASSWORD'].value" -o tsv`, 'secret'],
    [`aws cloudformation describe-stacks --stack-name acme-db --query "Stacks[0].Outputs[?OutputKey=='DbPassword'].OutputValue" --output text`, 'secret'],
    [`kubectl get deploy api -o json | jq -r '.spec.template.spec.containers[0].env[] | select(.name=="DB_PASSWORD") | .value'`, 'secret'],
    [`aws sts assume-role --role-arn arn:aws:iam::123456789012:role/deploy --role-session-name dbg --query 'Credentials.[AccessKeyId,SecretAccessKey,SessionToken]' --output text`, 'values'],
    ['aws apigateway get-api-key --api-key k7x2m9q4pz --include-value --query value --output text', 'secret'],
    // One-liners: a key by subscript, getattr, a wrapper that runs the interpreter.
    [`python3 -c 'from app import create_app; print(create_app().config["SECRET_KEY"])'`, 'secret'],
    [`python -c "from app.config import settings as s; print(getattr(s, 'stripe_secret_key'))"`, 'secret'],
    [`bundle exec rails runner 'puts Rails.application.credentials.secret_key_base'`, 'secret'],
    [`docker compose exec web python -c 'from django.conf import settings; print(settings.SECRET_KEY)'`, 'secret'],
    ['mapfile -t l < secrets/db_password.txt; echo "${l[0]}"', 'secret'],
    // The red team's of this stop: print's keyword arguments, a container run, jq's select without a pipe, pass's stderr hidden, age's long option.
    [`python -c "from django.conf import settings; print(settings.SECRET_KEY, end='')"`, 'secret'],
    [`docker exec -u app web python -c 'from django.conf import settings; print(settings.SECRET_KEY)'`, 'secret'],
    [`heroku run python -c 'from django.conf import settings; print(settings.SECRET_KEY)'`, 'secret'],
    [`kubectl get cm x -o json | jq -r '.items[] | select(.name == "DB_PASSWORD").value'`, 'secret'],
    ['pass acme/stripe 2>/dev/null', 'secret'],
    ['age --identity k.txt -d deploy/smtp.age', 'secret'],
    // jq's name given as an argument; gpg decrypting its input, its default.
    [`jq -r --arg n DB_PASSWORD '.env[] | select(.name==$n) | .value' deploy.json`, 'secret'],
    ['gpg -q < secrets/db.txt.gpg', 'secret'],
  ] as const)('%s', (command, how) => {
    expect(printsHow(command)).toBe(how);
    const all = keptOf(command, `${SECRET}\n`, SECRET);
    expect(all).not.toContain(SECRET);
  });

  it.each([
    'grep -r age src -d skip',
    'sops -e -i secrets.yaml',
    'gpg --list-keys',
    'gpg --edit-key ABCD1234',
    'pass ls',
    'pass insert github',
    'git commit -m "pass tests"',
    'pulumi config get --stack prod region',
    `aws ec2 describe-instances --query 'Reservations[].Instances[].[InstanceId,PrivateIpAddress]' --output text`,
    `az webapp config appsettings list -n a -g g --query "[?name=='APP_ENV'].value" -o tsv`,
    `python -c "import json; d=json.load(open('usage.json')); print(d['token_count'])"`,
    `node -e "console.log(require('./package.json')['version'])"`,
    'mapfile -t lines < requirements.txt; echo "${#lines[@]}"',
    'aws apigateway get-api-keys --query items[].name',
  ])('%s is read as printing no secret', (command) => {
    expect(printsHow(command)).toBeNull();
  });
});

describe("this stop's patterns read a long run of options one way only", () => {
  // Each of these took minutes with a first version of its pattern (two readings of each option:
  // `-{1,2}[\w-]+` reads `--x` as `-` `-x` and as `--` `x`); the test's timeout catches a runaway.
  it('ends on hostile commands', () => {
    expect(printsHow(`wrangler kv key get ${'--binding=x '.repeat(40)}!`)).toBeNull();
    expect(printsHow(`wrangler kv key get ${'--binding x '.repeat(40)}!`)).toBeNull();
    expect(printsHow(`sops ${'--a b '.repeat(300)}!`)).toBeNull();
    expect(printsHow(`sops ${"--extract '[x]' ".repeat(300)}!`)).toBeNull();
    expect(printsHow(`python -c "print(a${'.dig()'.repeat(40)} + 1)"`)).toBeNull();
    expect(printsHow(`${'A=1 '.repeat(500)}pass !`)).toBeNull();
    expect(printsHow(`psql -c "select ${'a, '.repeat(150)}b from t"`)).toBeNull();
    expect(printsHow(`jq --arg n ${'x '.repeat(500)}`)).toBeNull();
  });
});
