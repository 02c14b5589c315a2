import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/redact.js';
import { scanWhole } from '../../src/core/secret-scan.js';
import { call, result, say, user } from './claude-records.js';
import { kept } from './kept-helper.js';

/**
 * The forty-third stop's redaction (docs/SECURITY.md): what the forty-third red team found kept (86
 * cases, 15 leaking) and damaged (22 ordinary cases, 3). Every value is made up.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });
const redact = (text: string): string => new Redactor().redact(text).text;

describe('credential formats with a fixed part, alone in a sentence', () => {
  it.each([
    ['SWMTKN-1-3pu6hszjas19xyp7ghgosyx9k8atbfcr8p2is99znpy26u2lkl-1awxwuwd3z9j1z3puu7rcgdbx', 'swarm_join_token'],
    ['rpa_F3QMSXZEYRQWIHQFSR0PJZ5A3G639USZRRKUAC39', 'runpod_key'],
    ['syt_ZGVwbG95Ym90_Xk9fQ2mZp7Lw4RtY8bNc_1a2B3c', 'matrix_token'],
    ['xau_Xk9fQ2mZp7Lw4RtY8bNcVd3sH6jK1qPe5uGa0Ti', 'xata_key'],
    ['token-nvbwq:4x9kq2m8z7w5c3v1b6n0p9l8k7j6h5g4f3d2s1a0q9w8e7r6t5y4zq', 'rancher_token'],
  ])('%s', (token, kind) => {
    expect(redact(`Use ${token} from now on.`)).toBe(`Use [REDACTED:${kind}] from now on.`);
    const all = kept(user('u1', `Use ${token} from now on.`), bash('b1', `./scripts/setup.sh ${token}`), result('b1', 'ok'), say('a1', `Set ${token}.`));
    expect(all).not.toContain(token.slice(-20));
  });

  it('the independent scan knows the two with the longest fixed parts', () => {
    expect(scanWhole('join with SWMTKN-1-3pu6hszjas19xyp7ghgosyx9k8atbfcr8p2is99znpy26u2lkl-1awxwuwd3z9j1z3puu7rcgdbx now').map((h) => h.kind)).toEqual(['swarm_join_token']);
    expect(scanWhole('key rpa_F3QMSXZEYRQWIHQFSR0PJZ5A3G639USZRRKUAC39').map((h) => h.kind)).toEqual(['runpod_key']);
  });

  it("takes a Twilio API key's secret beside its id", () => {
    const table = 'SID                                 Friendly Name  Secret\nSK8c1f0a2b3c4d5e6f708192a3b4c5d6e7  ci-deploy      bP1NHjzOgR1pQtahQTAfifeo6BYDpwbc';
    expect(redact(table)).toBe('SID                                 Friendly Name  Secret\n[REDACTED:twilio_key]  ci-deploy      [REDACTED:twilio_key_secret]');
  });

  it('leaves a word that starts as a Rancher token does, and a commit beside a Twilio id', () => {
    expect(redact('token-based auth: token-abcde:short')).toBe('token-based auth: token-abcde:short');
    expect(redact('SK8c1f0a2b3c4d5e6f708192a3b4c5d6e7 rotated in 9fceb02d0ae598e95dc970b74767f193')).toBe('[REDACTED:twilio_key] rotated in 9fceb02d0ae598e95dc970b74767f193');
  });
});

describe('a program that prints a credential alone', () => {
  it.each([
    ['sudo kubeadm token create --ttl 2h', 'yxwqwd.8mj7m8d2n8a44b6h'],
    ['docker swarm join-token -q worker', 'SWMTKN-1-3pu6hszjas19xyp7ghgosyx9k8atbfcr8p2is99znpy26u2lkl-1awxwuwd3z9j1z3puu7rcgdbx'],
    ['php artisan tinker --execute="echo App\\Models\\User::find(1)->createToken(\'ci\')->plainTextToken"', '14|mv0ELuzbgEK4zRi05y2YZ2MeTm3LYxRUjOvrUdNt'],
  ])('%s', (command, printed) => {
    const all = kept(user('u1', 'make a token'), bash('b1', command), result('b1', `${printed}\n`), say('a1', 'Made one.'));
    expect(all).not.toContain(printed.slice(-12));
  });

  it("the tokens in `kubeadm token list`'s table", () => {
    const table = 'TOKEN                     TTL         EXPIRES                USAGES                   DESCRIPTION\nrot6ux.zh3u6g6195x1my5d   23h         2026-03-15T09:00:00Z   authentication,signing   <none>';
    const all = kept(user('u1', 'list tokens'), bash('b1', 'sudo kubeadm token list'), result('b1', table), say('a1', 'One token.'));
    expect(all).not.toContain('zh3u6g6195x1my5d');
    expect(all).toContain('2026-03-15T09:00:00Z');
  });
});

describe('an authorization scheme the rules did not know', () => {
  it.each(['LOW', 'OAuth', 'SharedKey', 'DeepL-Auth-Key'])('%s', (scheme) => {
    expect(redact(`curl -H 'authorization: ${scheme} dwe9GTSswTNp6xbz:n7dkHQbww85FV69R' https://s3.us.archive.org/x`)).not.toContain('n7dkHQbww85FV69R');
  });
});

describe("Azure DevOps' old 52-character token as a URL's user", () => {
  it('is removed before dev.azure.com and <org>.visualstudio.com', () => {
    const pat = 'wj7mph2gx73hli3pczkqodvfmn3lycuo47mfnajfst474p6eiyre';
    expect(redact(`git clone https://${pat}@dev.azure.com/acme/app/_git/app`)).toBe('git clone https://[REDACTED:url_credential]@dev.azure.com/acme/app/_git/app');
    expect(redact(`git remote add o https://${pat}@acme.visualstudio.com/app/_git/app`)).not.toContain(pat);
  });

  it('keeps an organisation as the user, and the same shape before another host', () => {
    expect(redact('git clone https://acme@dev.azure.com/acme/app/_git/app')).toBe('git clone https://acme@dev.azure.com/acme/app/_git/app');
  });
});

describe('a lower-case generated token right after a strong name', () => {
  it.each([
    ['my twitch oauth token is thxca4wp6w5q9fmjmatrlvkyjtgdar and chat still rejects it', 'thxca4wp6w5q9fmjmatrlvkyjtgdar'],
    ['The API key is auspy3zkdeii6uhoqaajxgcu6onzyyny; the 403 comes from the proxy', 'auspy3zkdeii6uhoqaajxgcu6onzyyny'],
  ])('%s', (text, value) => {
    expect(redact(text)).not.toContain(value);
  });

  it.each([
    'the API key is stored in vault under kv/app/prod and rotated monthly',
    'the token is postgres15bookworm rather than alpine',
    'the secret is in deploymentconfiguration2024v2 now',
    'the access token is refreshedautomatically2024 now',
  ])('leaves words and names: %s', (text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('ordinary text the red team found damaged', () => {
  it.each([
    'The token refresh race was fixed in 894de3dc15eb7524adf05eff7417a4a1b2c3d4e5.',
    'public function debugReset(User $user) {\n  echo $user->resetPasswordToken()->expires_at;\n}',
    'php artisan tinker --execute="echo App\\Models\\Order::find(5)->refreshToken()->id"',
  ])('%s', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('still takes a value written into a token file', () => {
    expect(redact("echo 'hunter2-Xk9fQ2mZ' > /run/secrets/db_token")).not.toContain('hunter2-Xk9fQ2mZ');
  });
});

describe('a generated value rich in symbols right after a strong name', () => {
  it.each([
    ['the webhook signing secret for staging is x#^wqG!$J:tR^tG?y(x}q^v7ZTN[^~In - wire it into the app', 'x#^wqG!$J:tR^tG?y(x}q^v7ZTN[^~In'],
    ['Meilisearch was started with the master key iSjh=C5nZ[uqm~.=+{V3-[+Z8@mzumabT4}e*JK7 (from docker-compose.yml)', 'iSjh=C5nZ[uqm~.=+{V3-[+Z8@mzumabT4}e*JK7'],
  ])('%s', (text, value) => {
    expect(redact(text)).not.toContain(value.slice(4, 20));
  });

  it.each([
    'the API key is `process.env.API_KEY`',
    'the key is config["apiKey"]?.trim2()',
    'the token is {{ secrets.GH_TOKEN }}',
    'the secret is Buffer.from(key,"hex").slice(0,32)',
    'the token is Array<Map<K2,V>>[]',
    'the master key is set via MEILI_MASTER_KEY=${KEY:-dev}',
    'the key is sha256:Ab3$cD4%eF5&gH6*iJ7',
    'the secret is https://vault.acme.dev/v1/kv/data/app?version=2&x=Y',
  ])('leaves code, references, digests and URLs: %s', (text) => {
    expect(redact(text)).toBe(text);
  });
});

describe("the second red team's list", () => {
  it.each([
    ['ddp_Xk9fQ2mZp7Lw4RtY8bNcVd3sH6jK1qPe5uGa', 'deno_deploy_token'],
    ['duffel_live_Xk9fQ2mZp7Lw4RtY8bNcVd3sH6jK1qPe5uGa0TiAbCd', 'duffel_token'],
    ['secret-live-Xk9fQ2mZp7Lw4RtY8bNcVd3sH6jK1qPe5uGa=', 'stytch_secret'],
    ['ck_9f3b2c1d0e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c', 'woocommerce_key'],
    ['KEY0123456789ABCDEF0123456789_Xk9fQ2mZp7Lw4RtY8bNcVd', 'telnyx_key'],
    ['secret_ml-box_0123456789abcdef0123456789abcdef.Xk9fQ2mZp7Lw4RtY8bNcVd3sH6jK1qPe', 'lambda_cloud_key'],
    [`gAAAAABm${'Xk9fQ2mZp7Lw4RtY8bNc_d3sH6jK1qPe5uGa0Ti-'.repeat(4)}`, 'fernet_token'],
  ])('%s', (token, kind) => {
    expect(redact(`Use ${token} from now on.`)).toBe(`Use [REDACTED:${kind}] from now on.`);
  });

  it.each([
    ["mollie.setApiKey('live_xTwtQ2mZp7Lw4RtY8bNcVd3sH6jK1q');", 'live_xTwtQ2mZp7Lw4RtY8bNcVd3sH6jK1q'],
    ['client.setAccessToken("WvWMq2mZp7Lw4RtY8bNcVd3sH6jK1qPe");', 'WvWMq2mZp7Lw4RtY8bNcVd3sH6jK1qPe'],
    ['.withCredentials("svc_search", "aAAdW2ZPaC8QYvuk")', 'aAAdW2ZPaC8QYvuk'],
    ['$p = (ConvertTo-SecureString -AsPlainText "ox84gf76gwAdQu" -Force)', 'ox84gf76gwAdQu'],
    ['wifi passkey: Lab9Guest9F7EnTQ', 'Lab9Guest9F7EnTQ'],
    ['"What is the Wi-Fi passkey for the lab network?"="Lab04-fPxAp6!Orchid"', 'Lab04-fPxAp6!Orchid'],
  ])('%s', (text, value) => {
    expect(redact(text)).not.toContain(value);
  });

  it("takes `consul keygen`'s key", () => {
    const key = 'pUqJrVyVRj5jsiYEkM/tFQYfWyJIv4s3XkvDwy7Cu5s=';
    expect(kept(user('u1', 'gossip key'), bash('b1', 'consul keygen'), result('b1', `${key}\n`))).not.toContain(key.slice(0, 20));
  });

  it.each([
    'NPM_TOKEN\t2026-02-01T10:00:00Z',
    'jdbc:sqlserver://h:1433;database=reports;user=reporting@acme-sql;authentication=ActiveDirectoryDefault',
    'net use Z: \\\\fs01\\backup 67eW7V52YohFMm /user:ACME\\svc /persistent:yes'.replace('67eW7V52YohFMm ', ''),
    'Passkeys replace passwords in WebAuthn; the passkey prompt appeared on the phone',
    'ck_editor_config and cs_theme_dark',
  ])('leaves: %s', (text) => {
    expect(redact(text)).toBe(text);
  });

  it("still takes SQL Server's password property", () => {
    expect(redact('jdbc:sqlserver://db:1433;databaseName=app;user=sa;password=Xk9fQ2mZp7Lw4RtY')).not.toContain('Xk9fQ2mZp7Lw4RtY');
  });
});
