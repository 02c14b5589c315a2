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
    ['cat secret*/*', `${SECRET}\n`, SECRET],
    ['cat ~/.acme/*password*', 'Summer2024!#x\n', 'Summer2024!#x'],
    ['netlify env:get ADMIN_PASSWORD', 'bluemonkey42\n', 'bluemonkey42'],
    ['railway variables get SMTP_PASS', 'Winter2025!\n', 'Winter2025!'],
    ['dokku config:get api SECRET_KEY', `${SECRET}\n`, SECRET],
    ['convex env get CLERK_SECRET_KEY', `${SECRET}\n`, SECRET],
    ['echo $OTP_SEED', 'JBSWY3DPEHPK3PXP7Q2Z\n', 'JBSWY3DPEHPK3PXP7Q2Z'],
    ['echo $REDIS_URL | cut -d: -f3 | cut -d@ -f1', `${SECRET}\n`, SECRET],
    [`node -e 'console.log(new URL(process.env.DATABASE_URL).password)'`, 'Tr0ub4dor9x\n', 'Tr0ub4dor9x'],
    [`python3 -c "import os,urllib.parse as u;print(u.urlparse(os.environ['DATABASE_URL']).password)"`, 'Tr0ub4dor9x\n', 'Tr0ub4dor9x'],
    ['read -r t < secrets/db_password.txt; echo "$t"', 'Summer2024!\n', 'Summer2024!'],
    // Decoders: what they print is read as a secret source's.
    [`kubectl get secret stripe -o json | jq -r '.data.value | @base64d'`, `${SECRET}\n`, SECRET],
    ['xxd -r -p <<< 5a7137764b326d5078394c775234745962384e63', `${SECRET}\n`, SECRET],
    ['openssl base64 -d -in secrets.b64', `${SECRET}\n`, SECRET],
  ])('%s', (command, out, secret) => {
    expect(printsHow(command)).not.toBeNull();
    const all = keptOf(command, out, secret);
    expect(all).not.toContain(secret);
    expect(all).toContain('[REDACTED:printed_secret]');
  });

  it('a short password printed alone by its name is masked, a number or a word is not', () => {
    expect(plainPrinted('hunter2\n')).toEqual(['hunter2']);
    expect(plainPrinted('Xk9#pQ2\n')).toEqual(['Xk9#pQ2']);
    expect(plainPrinted('1.2.3\n')).toEqual([]);
    expect(plainPrinted('postgres\n')).toEqual([]);
    expect(plainPrinted('12345\n')).toEqual([]);
    const all = keptOf('printenv DB_PASSWORD', 'hunter2\n', 'hunter2');
    expect(all).not.toContain('hunter2');
  });
});

describe('an output that holds more than the secret', () => {
  it('a token printed without a newline before an error is taken, the error words are not', () => {
    expect(printedSecrets(`${SECRET}{"status":"error","db":"down"}`)).toEqual([SECRET]);
    expect(printedSecrets('Error from server (NotFound): secrets "db-creds-v2" not found')).toEqual([]);
    const all = keptOf('cat secrets/api_token; curl -s localhost:8080/health', `${SECRET}{"status":"error","db":"down"}`, SECRET);
    expect(all).not.toContain(SECRET);
    expect(all).toContain('"status":"error"');
  });

  it("head's and tail's files are read one by one, each under its header", () => {
    const out = `==> secrets/api_token <==\n${SECRET}\n\n==> secrets/db_password.txt <==\nSummer2024!#x\n\n==> secrets/webhook <==\nHb4nT9xQw2LkP7zRm5Vd\n`;
    expect(printedSecrets(out)).toEqual([SECRET, 'Summer2024!#x', 'Hb4nT9xQw2LkP7zRm5Vd']);
    const all = keptOf('tail -n +1 secrets/*', out, SECRET);
    for (const s of [SECRET, 'Summer2024!#x', 'Hb4nT9xQw2LkP7zRm5Vd']) expect(all).not.toContain(s);
  });

  it('a secret printed, then a listing: of the longer output the generated-looking words are taken', () => {
    const out = `${SECRET}\n\napi_token\ndb_password.txt\nnpm_token\nregistry_password.txt\nwebhook_secret\n`;
    expect(printedSecrets(out)).toEqual([]);
    expect(printedSecrets(out, true)).toEqual([SECRET]);
    const all = keptOf('cat secrets/api_token; echo; ls secrets/', out, SECRET);
    expect(all).not.toContain(SECRET);
    expect(all).toContain('registry_password.txt');
  });

  it('a longer output keeps its digests, and one of more than 40 lines is a listing', () => {
    const sha = 'e83c5163316f89bfbde7d9ab23ca2e25604af290';
    expect(printedSecrets(`${sha}\n${'a\n'.repeat(8)}`, true)).toEqual([]);
    expect(printedSecrets(`${SECRET}\n${'line\n'.repeat(45)}`, true)).toEqual([]);
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
    for (const p of ['/etc/wireguard/privatekey', 'keys/private_key', 'secrets/passphrase.txt', '/etc/app-creds/stripe', 'deploy/.credentials/db', 'secret*/*', '~/.acme/*password*']) expect(readsSecretFile(p), p).toBe(true);
    for (const p of ['src/secrets/manager.ts', 'lib/private_key.rb', 'keys/private_key.pem', 'app-creds/README.md', 'docs/credentials/guide']) expect(readsSecretFile(p), p).toBe(false);
  });
});
