import { describe, expect, it } from 'vitest';
import { printsHow, printsSecret } from '../../src/core/redaction/printed.js';
import { nameStrength } from '../../src/core/redaction/names.js';
import { call, result, say, user } from './claude-records.js';
import { kept } from './kept-helper.js';

/**
 * The thirty-second stop's redaction (docs/SECURITY.md): the other ways a command prints a value
 * alone, which the twenty-ninth and thirtieth red teams listed as left (awk, sed, cut, grep -o, tr,
 * `$(<file)`, a one-liner that prints a file), and two names of secrets (`…_CRED`, `hmac`). Every
 * value below is made up.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });

describe('a program that cuts a value out of a file prints it alone', () => {
  it.each([
    [`awk -F= '/^DB_PASSWORD/{print $2}' .env`, 'Summer2024!#xq'],
    ['sed -n 1p secrets/token', 'q7Lm2XvR9tBw4KzP8nYc'],
    [`sed -n 's/^STRIPE_KEY=//p' .env.local`, 'hN7qL2mX9vRtB4wZp8KcY3sF'],
    ['cut -d= -f2 .env', 'Blue!Moon#Rising88'],
    [`grep -oP '(?<=API_KEY=).*' .env.production`, 'Gr33nT3a&Biscuits'],
    [`tr -d '\\n' < ~/.vault-token`, 'Xq4LrT9vKp2ZmW8nYb3cJd7F'],
    ['echo "$(<secrets/db_password.txt)"', 'Tr0ub4dor&3xyz'],
    [`python3 -c "print(open('secrets/api_key.txt').read())"`, 'Winter#2025secure'],
    [`node -e "console.log(require('fs').readFileSync('./secrets/token','utf8'))"`, 'p@ss-W0rd.2026'],
    [`awk 'NR==1' config/master.key`, '4f9b2c7e1a8d3f6b0e5c9a2d7f1b4e8c'],
    [`sed -n 's/^DB_PASSWORD=//p' .env | head -1`, 'Summer2024!#xq'],
    // The thirtieth red team's bypasses that these programs made.
    ['env | grep TOKEN | cut -d= -f2', 'q7Lm2XvR9tBw4KzP8nYc'],
    ['printenv | grep -i pass | cut -d= -f2', 'Summer2024!#xq'],
    ['cat < ~/.vault-token', 'Xq4LrT9vKp2ZmW8nYb3cJd7F'],
    ['powershell -c "$env:DB_PASSWORD"', 'Blue!Moon#Rising88'],
    ['npx dotenv-cli -p DB_PASSWORD', 'Winter#2025secure'],
    [`python3 -c "import base64;print(base64.b64decode('U3VtbWVyMjAyNCEjeA==').decode())"`, 'Summer2024!#xq'],
    [`kubectl get secret db -o go-template='{{.data.password | base64decode}}'`, 'Tr0ub4dor&3xyz'],
    ['kubectl view-secret db password', 'Tr0ub4dor&3xyz'],
    ['infisical secrets get DB_PASSWORD --plain', 'Gr33nT3a&Biscuits'],
    ['echo "\\"$DB_PASSWORD\\""', 'p@ss-W0rd.2026'],
  ])('%s: its output is kept nowhere, nor where the agent repeats it', (command, secret) => {
    expect(printsSecret(command)).toBe(true);
    const all = kept(user('u1', 'check the deploy config'), bash('b1', command), result('b1', `${secret}\n`), say('a1', `The value is ${secret}; I will use it.`));
    expect(all).not.toContain(secret);
    expect(all).toContain('[REDACTED:printed_secret]');
  });

  it.each([
    // The label is printed beside the value: the redactor reads it as labelled.
    'grep DB_PASSWORD .env',
    // A pattern or a script is no file.
    'grep -rn password src/',
    `sed -n 1,20p src/auth/token.ts`,
    `grep -o 'TODO' src/token.h`,
    // Not a secret's file.
    `awk '{print $1}' access.log`,
    'cut -d, -f2 data.csv',
    `awk -F= '{print $2}' .env.example`,
    'cat .env.example | cut -d= -f1',
    // Handed on, not printed; or used, not printed.
    `sed -n 's/^DB_PASSWORD=//p' .env | docker login -u me --password-stdin`,
    `curl -H "Authorization: Bearer $(<token.txt)" https://api.example.com/me`,
    `sed -i 's/old/new/' .env`,
    'env | grep PATH',
    'powershell -c "$env:PATH"',
    'powershell -c "Get-Process; $env:DB_PASSWORD | Out-Null"',
    'cat < input.txt',
  ])('%s prints no secret alone', (command) => {
    expect(printsSecret(command)).toBe(false);
  });

  it("an ordinary word printed by such a command is kept (only a secret's words are masked)", () => {
    const all = kept(user('u1', 'which region?'), bash('b1', `awk -F= '/^AWS_REGION/{print $2}' .env`), result('b1', 'eu-west-1\n'), say('a1', 'The region is eu-west-1.'));
    expect(all).toContain('The region is eu-west-1.');
  });
});

describe('names of secrets the red teams found unread', () => {
  it('`…_CRED` names a secret whose value looks generated; `hmac` alone does not (a digest is what it names as often: the thirty-second red team)', () => {
    expect(nameStrength('LDAP_BIND_CRED')).toBe('weak');
    expect(nameStrength('SMTP_CRED')).toBe('weak');
    expect(nameStrength('hmac')).toBeNull();
    const all = kept(user('u1', 'set it up'), say('a1', 'Set LDAP_BIND_CRED=kQ7vX2mR9tLw4ZpB8nYc in the config; the test vector gives "hmac": "5d41402abc4b2a76b9719d911017c592".'));
    expect(all).not.toContain('kQ7vX2mR9tLw4ZpB8nYc');
    expect(all).toContain('5d41402abc4b2a76b9719d911017c592');
    // A value that does not look generated is not one (`use_cred = true`).
    expect(kept(user('u1', 'x'), say('a1', 'I set use_cred = enabled for now.'))).toContain('use_cred = enabled');
  });
});

describe("a remembered secret the agent repeats in Markdown's emphasis (the thirtieth red team's bB03, bB11)", () => {
  it.each(['Done: used **q7Lm2XvR9tBw4KzP8nYc** for the call.', 'Noted *q7Lm2XvR9tBw4KzP8nYc*.', 'It was _q7Lm2XvR9tBw4KzP8nYc_, now ~~q7Lm2XvR9tBw4KzP8nYc~~!'])('%s', (text) => {
    const all = kept(user('u1', 'check the token'), bash('b1', 'printenv API_TOKEN'), result('b1', 'q7Lm2XvR9tBw4KzP8nYc\n'), say('a1', text));
    expect(all).not.toContain('q7Lm2XvR9tBw4KzP8nYc');
    expect(all).toMatch(/[*_~]\[REDACTED:printed_secret\][*_~]/);
  });
});

describe("the thirty-second stop's red team of those printers", () => {
  it.each([
    ["/usr/bin/awk -F= '/DB_PASSWORD/{print $2}' .env", 'secret'],
    ['time cut -d= -f2 .env', 'values'],
    ['grep ^API_KEY= .env | cut -f2 -d=', 'secret'],
    ['cut --delimiter== -f2 .env', 'values'],
    ['cut -d= -f2 .env.production.local', 'values'],
    ['cut -d= -f2 deploy/prod.env', 'values'],
    ['cut -d= -f2 .envrc', 'values'],
    ["grep '' secrets/api_token", 'secret'],
    ['cat<secrets/api_token', 'secret'],
    ['< secrets/api_token cat', 'secret'],
    ['tail -c +1 secrets/api_token', 'secret'],
    ['sudo -u app cat secrets/api_token', 'secret'],
    ['docker exec -u root api cat /run/secrets/db_password', 'secret'],
    ['kubectl exec -n prod pod-1 -- cat /etc/secrets/token', 'secret'],
    ['ssh prod cat ~/.vault-token', 'secret'],
    ['npx dotenv-cli -p DB_PASSWORD', 'secret'],
    ['kubectl view-secret db password', 'secret'],
    ['kubectl view-secret db', 'values'],
    ['env | grep TOKEN | cut -d= -f2', 'secret'],
    // Names, or a variable that is no secret: nothing secret is printed.
    ['cut -d= -f1 .env', null],
    ["awk -F= '{print $1}' .env", null],
    ["awk -F= '/APP_VERSION/{print $2}' .env", null],
    ['npx dotenv-cli -p APP_VERSION', null],
    ['kubectl view-secret db username', null],
    ['env | grep GOLANG_VERSION | cut -d= -f2', null],
    // Files named for a token that are code, data or design: none.
    ["awk '{print $2}' token_counts.txt", null],
    ['head -3 bin/refresh-token', null],
    ['cat design/tokens.txt', null],
    ['cat secrets/README', null],
    ['git commit -m "use less tokens"', null],
    // The second skeptic's: more wrappers, variables printed through a filter or by other languages, a secret's extension.
    ['docker compose exec api cat /run/secrets/db_password', 'secret'],
    ['kubectl -n prod exec api -- cat /etc/secrets/token', 'secret'],
    ['sudo --user=app cat secrets/api_token', 'secret'],
    ['ssh -p 2222 prod cat secrets/token', 'secret'],
    ["printenv DB_PASSWORD | tr -d '\\n'", 'secret'],
    ['node -p process.env.DB_PASSWORD', 'secret'],
    ["perl -e 'print $ENV{DB_PASSWORD}'", 'secret'],
    ['cat /etc/app/db.password', 'secret'],
    // …and configuration values by a name that says no secret.
    ['heroku config:get APP_VERSION', null],
    ['heroku config:get DATABASE_PASSWORD', 'secret'],
    ['pulumi config get imageTag', null],
    ['pulumi config get dbPassword', 'secret'],
    ['terraform output -raw instance_id', null],
    ['terraform output -raw db_password', 'secret'],
    ["kubectl get secret db -o jsonpath='{.data.password}' | base64 -d", 'secret'],
    ['cat prompts/token_limits.txt', null],
    ['cat templates/password_reset.txt', null],
    ['echo "$DB_PASSWORD" | docker login -u me --password-stdin', null],
  ])('%s prints %s', (command, how) => {
    expect(printsHow(command)).toBe(how);
  });

  it('of values some of which may not be secrets, only the generated-looking words are taken', () => {
    const all = kept(
      user('u1', 'what is deployed?'),
      bash('b1', 'cut -d= -f2 .env'),
      result('b1', '2.14.3-rc1\nclaude-sonnet-4-5\nZq7vK2mPx9LwR4tYb8Nc\n'),
      say('a1', 'Version 2.14.3-rc1 on claude-sonnet-4-5, key Zq7vK2mPx9LwR4tYb8Nc.'),
    );
    expect(all).not.toContain('Zq7vK2mPx9LwR4tYb8Nc');
    expect(all).toContain('Version 2.14.3-rc1 on claude-sonnet-4-5');
  });

  it("a printer's error line names what it could not find, not a secret", () => {
    const all = kept(
      user('u1', 'check the secret'),
      bash('b1', "kubectl get secret db-creds-v2 -o jsonpath='{.data.password}' | base64 -d"),
      result('b1', 'Error from server (NotFound): secrets "db-creds-v2" not found\n'),
      say('a1', 'I will create db-creds-v2 first.'),
    );
    expect(all).toContain('I will create db-creds-v2 first.');
  });

  it('a secret of lower-case letters and digits is not taken for a region', () => {
    const all = kept(user('u1', 'x'), bash('b1', 'cat secrets/db_password.txt'), result('b1', 'monkeybread77\n'), say('a1', 'It is monkeybread77.'));
    expect(all).not.toContain('monkeybread77');
    const region = kept(user('u1', 'x'), bash('b1', 'heroku config:get AWS_REGION'), result('b1', 'us-east-1\n'), say('a1', 'Region us-east-1.'));
    expect(region).toContain('Region us-east-1.');
  });
});
