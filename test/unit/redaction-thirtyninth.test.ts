import { describe, expect, it } from 'vitest';
import { nameStrength } from '../../src/core/redaction/names.js';
import { plainPrinted, printedSecrets, printsHow, readsSecretFile } from '../../src/core/redaction/printed.js';
import { segments } from '../../src/core/shell.js';
import { call, result, say, user } from './claude-records.js';
import { kept } from './kept-helper.js';

/**
 * The thirty-ninth stop's redaction (docs/SECURITY.md): the thirty-eighth red team's bypasses that
 * a user meets without trying (a WireGuard key, a hosting platform's variable, a Kubernetes
 * secret's `@base64d`, a connection URL's password cut out, a folder of credentials, a short
 * password, a token printed before an error, a file read into a variable and echoed). Every value
 * is made up.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });
const SECRET = 'Zq7vK2mPx9LwR4tYb8Nc';

/** What the store keeps of a command that prints `out` and the agent repeating `again` after. */
const keptOf = (command: string, out: string, again: string): string =>
  kept(user('u1', 'check the deploy config'), bash('b1', command), result('b1', out), say('a1', `Noted the value ${again} for later.`));

describe('commands that print a secret alone, read now', () => {
  it.each([
    ['sudo cat /etc/wireguard/privatekey', 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n', 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk'],
    ['kubectl exec deploy/api -- cat /etc/app-creds/stripe', `${SECRET}\n`, SECRET],
    ['netlify env:get ADMIN_PASSWORD', 'bluemonkey42\n', 'bluemonkey42'],
    ['railway variables get SMTP_PASS', 'Winter2025!\n', 'Winter2025!'],
    ['dokku config:get api SECRET_KEY', `${SECRET}\n`, SECRET],
    ['convex env get CLERK_SECRET_KEY', `${SECRET}\n`, SECRET],
    ['echo $OTP_SEED', 'JBSWY3DPEHPK3PXP7Q2Z\n', 'JBSWY3DPEHPK3PXP7Q2Z'],
    ['echo $REDIS_URL | cut -d: -f3 | cut -d@ -f1', `${SECRET}\n`, SECRET],
    [`node -e 'console.log(new URL(process.env.DATABASE_URL).password)'`, `${SECRET}\n`, SECRET],
    [`python3 -c "import os,urllib.parse as u;print(u.urlparse(os.environ['DATABASE_URL']).password)"`, `${SECRET}\n`, SECRET],
    ['read -r t < secrets/db_password.txt; echo "$t"', 'Summer2024!\n', 'Summer2024!'],
    // Decoders: what they print is read as a secret source's.
    [`kubectl get secret stripe -o json | jq -r '.data.value | @base64d'`, `${SECRET}\n`, SECRET],
    ['openssl base64 -d -in secrets.b64', `${SECRET}\n`, SECRET],
  ])('%s', (command, out, secret) => {
    expect(printsHow(command)).not.toBeNull();
    const all = keptOf(command, out, secret);
    expect(all).not.toContain(secret);
    expect(all).toContain('[REDACTED:printed_secret]');
  });

  it('a short password printed alone by a name that says password is remembered; by another name it is not', () => {
    expect(plainPrinted('hunter2\n', true)).toEqual(['hunter2']);
    expect(plainPrinted('Xk9#pQ2\n', true)).toEqual(['Xk9#pQ2']);
    for (const w of ['1.2.3', 'v20.1', 'abcdef', '123456']) expect(plainPrinted(`${w}\n`, true), w).toEqual([]);
    for (const [command, out] of [['printenv DB_PASSWORD', 'hunter2'], ['cat secrets/db_password.txt', 'Xk9#pQ2'], ['netlify env:get ADMIN_PASSWORD', 'tr0ub4']] as const) {
      const all = kept(user('u1', 'log in'), bash('b1', command), result('b1', `${out}\n`), say('a1', `Logged in with ${out} now.`));
      expect(all, command).not.toContain(out);
    }
  });

  it('a word shorter than 8 printed alone is not remembered: a name, a version or a key prefix is as likely (the red team of this stop)', () => {
    for (const w of ['app_dev', 'node20', 'x86_64', 'sk_test', 'hunter2']) expect(plainPrinted(`${w}\n`), w).toEqual([]);
    const all = kept(user('u1', 'which user?'), bash('b1', 'doppler secrets get DB_NAME --plain'), result('b1', 'app_dev\n'), user('u2', 'grant app_dev read access'), say('a1', 'Granted app_dev read access.'));
    expect(all).toContain('Granted app_dev read access.');
  });
});

describe("this stop's red team's bypasses: other programs that print a secret alone", () => {
  it.each([
    'gopass prod/stripe',
    'pass prod/db',
    'aws ssm get-parameter --name /prod/stripe_secret_key --query Parameter.Value --output text',
    'ntl env:get ADMIN_PASSWORD --context production',
    'ssh dokku@dokku.acme.io config:get api SMTP_PASSWORD',
    'op signin --account acme --raw',
    'bw unlock --raw',
    'az acr credential show -n acmereg --query "passwords[0].value" -o tsv',
    'az webapp deployment list-publishing-credentials -n api -g rg-prod --query publishingPassword -o tsv',
    'keyring get smtp alerts@acme.io',
    'vault write -f -field=secret_id auth/approle/role/ci/secret-id',
    `terraform output -json | jq -r '.db_password.value'`,
    'pulumi stack output dbPassword --show-secrets',
    'aws sts assume-role --role-arn arn:aws:iam::123456789012:role/ci --role-session-name dbg --query Credentials.SecretAccessKey --output text',
    'heroku authorizations:create -S -d "github actions"',
    `sops decrypt --extract '["stripe_key"]' deploy/prod.enc.yaml`,
    `bin/rails runner 'puts Rails.application.credentials.dig(:mailgun, :api_key)'`,
    'python manage.py shell -c "from django.conf import settings; print(settings.SECRET_KEY)"',
    `ruby -e 'puts ENV.fetch("SMTP_PASSWORD")'`,
    'npm config get //acme.jfrog.io/artifactory/api/npm/npm/:_authToken',
    'yarn config get npmAuthToken --no-redacted',
    'pnpm config get //npm.acme.io/:_authToken',
    'gcloud beta secrets versions access latest --secret=stripe-key',
    `aws secretsmanager batch-get-secret-value --secret-id-list prod/stripe --query 'SecretValues[0].SecretString' --output text`,
    't=$(<secrets/db_password.txt); echo "$t"',
    'echo $DIRECT_URL | cut -d: -f3 | cut -d@ -f1',
    'echo $POSTGRES_URL_NON_POOLING | cut -d: -f3 | cut -d@ -f1',
  ])('%s', (command) => {
    expect(printsHow(command)).not.toBeNull();
    const all = keptOf(command, `${SECRET}\n`, SECRET);
    expect(all).not.toContain(SECRET);
  });

  it.each([
    'pass ls',
    'pass insert prod/db',
    'gopass sync',
    'aws ssm get-parameter --name /prod/api_base_url --query Parameter.Value --output text',
    'pulumi stack output apiUrl',
    'npm config get registry',
    'aws sts get-caller-identity --query Account --output text',
    `terraform output -json | jq -r '.api_url.value'`,
    `node -e "console.log(require('./package.json').version)"`,
  ])('%s prints no secret alone', (command) => {
    expect(printsHow(command)).toBeNull();
  });

  it('an attribute compared is not printed (the mention rule still reads `u.password` as a file name)', () => {
    expect(printsHow(`python3 -c "import os;from urllib.parse import urlparse;u=urlparse(os.environ['API_BASE']);print(u.hostname, u.password is not None)"`)).toBe('mentioned');
    expect(printsHow(`python3 -c "import os;from urllib.parse import urlparse;u=urlparse(os.environ['API_BASE']);print(u.password)"`)).toBe('secret');
  });
});

describe("the second red team of this stop: what the rules of its first answer took too far", () => {
  it.each([
    // A name that says no secret says nothing of the rest of the command.
    [`node -p "require('fs').readFileSync('secrets/api_token','utf8')" && aws sts get-caller-identity --query Account`, 'mentioned'],
    // An option's value stands where the name was looked for.
    ['ntl env:get --context production STRIPE_SECRET_KEY', 'secret'],
    ['pulumi stack output --stack prod STRIPE_SECRET_KEY', 'secret'],
    ['heroku config:get -a acme-api DB_PASSWORD', 'secret'],
    // The query picks what is printed.
    ['az acr credential show -n acmereg --query username -o tsv', null],
    // Random bytes are as often a name as a secret.
    ['head -c 8 /dev/urandom | xxd -p', null],
    [`node -e "console.log(require('crypto').randomBytes(4).toString('hex'))"`, null],
    // A one-liner's attribute compared, wrapped or not printed first.
    [`python3 -c "from app import s; print(bool(s.SECRET_KEY))"`, null],
    [`python3 -c "from transformers import AutoTokenizer as A; t=A.from_pretrained('Qwen/Qwen2.5-7B-Instruct'); print(t.name_or_path, t.eos_token)"`, null],
    [`terraform output -json | jq -r '.kms_key.value'`, null],
  ])('%s prints %s', (command, how) => {
    expect(printsHow(command)).toBe(how);
  });

  it('a tree of names (pass on a folder) is a listing', () => {
    expect(printedSecrets('acme/prod\n├── smtp2024\n└── stripe-live3\n')).toEqual([]);
  });

  it('pass in a here-document is a line of text, not the program', () => {
    expect(printsHow("cat > suites.txt <<'EOF'\npass suite/auth_v2\nEOF")).toBeNull();
  });
});

describe('an output that holds more than the secret', () => {
  it('a line that says something failed gives up no word: its ids are what the successor looks the failure up by', () => {
    const ulid = '01JD8ZQ7X4K2M9P3R5T6V8W0YB';
    expect(printedSecrets(`health check failed: db unreachable (request ${ulid})`)).toEqual([]);
    const all = kept(user('u1', 'is the api up?'), bash('b1', 'test -s secrets/api_token && echo ok; curl -s localhost:8080/healthz'), result('b1', `ok\nhealth check failed: db unreachable (request ${ulid})\n`), say('a1', `Grep the logs for ${ulid}.`));
    expect(all).toContain(`Grep the logs for ${ulid}.`);
  });

  it("head's and tail's files are read one by one, each under its header", () => {
    const out = `==> secrets/api_token <==\n${SECRET}\n\n==> secrets/db_password.txt <==\nSummer2024!#x\n\n==> secrets/webhook <==\nHb4nT9xQw2LkP7zRm5Vd\n`;
    expect(printedSecrets(out)).toEqual([SECRET, 'Summer2024!#x', 'Hb4nT9xQw2LkP7zRm5Vd']);
    const all = keptOf('tail -n +1 secrets/*', out, SECRET);
    for (const s of [SECRET, 'Summer2024!#x', 'Hb4nT9xQw2LkP7zRm5Vd']) expect(all).not.toContain(s);
  });

  it("of head's and tail's files, only those named for a secret: not a log beside it", () => {
    const job = '2WfXk9QbZ3mLp7RtY4nVc8';
    const out = `==> .env <==\nAPP_ENV=prod\n\n==> deploy/last-deploy.log <==\ndeployment ${job} started\n`;
    expect(printedSecrets(out)).toEqual([]);
    const all = kept(user('u1', 'what was deployed?'), bash('b1', 'head -n 4 .env deploy/last-deploy.log'), result('b1', out), say('a1', `Deployment ${job} is the latest.`));
    expect(all).toContain(`Deployment ${job} is the latest.`);
  });

  it('a rule that reads one pipeline as handing on nothing says nothing of another', () => {
    const command = `node -p "require('fs').readFileSync('secrets/api_token','utf8').trim()"; sort -u .gitignore | wc -l`;
    expect(printsHow(command)).toBe('mentioned');
    expect(keptOf(command, `${SECRET}\n12\n`, SECRET)).not.toContain(SECRET);
    // One pipeline alone stays as it was read: handed on to a consumer.
    expect(printsHow('cat secrets/registry_password.txt | docker login -u me --password-stdin')).toBeNull();
    expect(printsHow('cat secrets/registry_password.txt | docker login -u me --password-stdin; ls')).toBeNull();
    expect(segments('a | b; c && d | e', true)).toEqual(['a | b', 'c', 'd | e']);
  });
});

describe("the red team's ordinary sessions: what a successor needs stays", () => {
  it.each([
    ['wg pubkey < /etc/wireguard/privatekey', 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=', 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg'],
    ['ssh-keygen -y -f ~/.ssh/deploy_private_key', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq7xP2mZ9vR4tLw8Nc3bY6kQ1sD5fH7jU0eW2aT9rXy deploy@acme', 'AAAAC3NzaC1lZDI1NTE5AAAAIGq7xP2mZ9vR4tLw8Nc3bY6kQ1sD5fH7jU0eW2aT9rXy'],
    ['ssh-keygen -lf ./private_key', '256 SHA256:q7Lm2XvR9tBw4KzP8nYc3Hd6Jf1Gs5Ak0Ue9Wo2Ti4E deploy@acme (ED25519)', 'q7Lm2XvR9tBw4KzP8nYc3Hd6Jf1Gs5Ak0Ue9Wo2Ti4E'],
    ['echo $DATABASE_URL | cut -d@ -f2', 'ep-cool-darkness-123456.us-east-2.aws.neon.tech/neondb?sslmode=require', 'ep-cool-darkness-123456.us-east-2.aws.neon.tech/neondb'],
    ['cat secrets/registry_password.txt | docker login -u me --password-stdin && docker run -v $PWD/secrets:/run/secrets app migrate', 'Login Succeeded\nmigration batch 01JD8ZQ7X4K2M9P3R5T6V8W0YB applied', '01JD8ZQ7X4K2M9P3R5T6V8W0YB'],
  ])('%s', (command, out, word) => {
    expect(out).toContain(word);
    const all = kept(user('u1', 'set it up'), bash('b1', command), result('b1', `${out}\n`), say('a1', `It printed ${word} here.`));
    expect(all).toContain(`It printed ${word} here.`);
  });
});

describe('what stays as it was', () => {
  it.each([
    'echo $DATABASE_URL',
    'echo $DATABASE_URL_ID | cut -c1-4',
    'netlify env:get SITE_NAME',
    'ls src/*token*',
    'cat src/secrets/manager.ts',
    'cat docs/credentials/README.md',
    'python train.py --seed 42',
    'echo $RANDOM_SEED',
  ])('%s prints no secret alone', (command) => {
    expect(printsHow(command)).toBeNull();
  });

  it('names: a one-time password and a wallet seed are secrets, a random seed and a mnemonic of code are not', () => {
    for (const n of ['OTP_SEED', 'TOTP_SEED', 'MFA_SEED', 'WALLET_SEED', 'SEED_PHRASE', 'RECOVERY_PHRASE', 'WALLET_MNEMONIC']) expect(nameStrength(n), n).toBe('strong');
    for (const n of ['RANDOM_SEED', 'SEED', 'DB_SEED', 'mnemonic', 'opcodeMnemonic', 'PHRASE']) expect(nameStrength(n), n).toBeNull();
  });

  it('files: a private key file and a folder of credentials hold secrets; code and documents do not', () => {
    for (const p of ['/etc/wireguard/privatekey', 'keys/private_key', 'secrets/passphrase.txt', '/etc/app-creds/stripe', 'deploy/.credentials/db']) expect(readsSecretFile(p), p).toBe(true);
    // Globs match files of any kind (`db/migrations/*password*` holds SQL): not read as a secret's.
    for (const p of ['src/secrets/manager.ts', 'lib/private_key.rb', 'keys/private_key.pem', 'app-creds/README.md', 'docs/credentials/guide', 'db/migrations/*password*', 'k8s/secret*/*']) expect(readsSecretFile(p), p).toBe(false);
  });
});

describe("a cloud CLI's global options before its subcommand (the second red team's bypasses)", () => {
  it.each([
    'aws --profile prod secretsmanager get-secret-value --secret-id prod/stripe --query SecretString --output text',
    'aws --region us-east-1 --no-cli-pager ssm get-parameters-by-path --path /prod --with-decryption',
    'gcloud --project acme-prod secrets versions access latest --secret=stripe-key',
    'az --only-show-errors keyvault secret show --vault-name kv --name stripe --query value -o tsv',
    'gcloud --quiet auth print-access-token',
  ])('%s', (command) => {
    expect(printsHow(command)).toBe('secret');
  });

  it('reads a long run of options (one way only to read each: a pattern that tried every split would not end before the test times out)', () => {
    expect(printsHow(`aws ${'--a-b '.repeat(600)}x`)).toBeNull();
    expect(printsHow(`pulumi stack output ${'--x y '.repeat(600)}-`)).toBeNull();
  });

  it("Azure's keyData is a public key", () => {
    expect(printsHow(`az vm show -g rg -n build2 --query "osProfile.linuxConfiguration.ssh.publicKeys[0].keyData" -o tsv`)).toBeNull();
  });
});
