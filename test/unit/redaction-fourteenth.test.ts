import { describe, expect, it } from 'vitest';
import { keepsEach, kept, removesEach } from './redaction-cases.js';

/**
 * The fourteenth red team (docs/SECURITY.md): a credential split by a character a reader does
 * not see (an invisible format character, a Markdown marker), and code the labels' rules took
 * for values. Every value is made up.
 */

const AKIA = 'AKIAQ3EGQ5ZK7WNBXR2M';
const GHP = 'ghp_Ab3dEf6hIj9kLmNo2pQr5sTu8vWx1yZa4bCd';
const ANT = 'sk-ant-api03-QAbzqbPQs2vJypjuYp8zZFl0hxf9yGTymc1gwSi07uggcT1zZjpkhnq38pRizsskfhfvRauBL3FFzjIIiBRX0HS9sIk5j-lJs5B4AA';
const XOXB = 'xoxb-252973979358-9356879529218-zMBiCdkws8xr1dKd4vP2PcGU';
const split = (v: string, at: number, mark: string): string => `${v.slice(0, at)}${mark}${v.slice(at)}`;

describe('a credential split by a character no reader sees', () => {
  const marks: [string, string][] = [
    ['a zero-width non-joiner', '\u200c'],
    ['a zero-width joiner', '\u200d'],
    ['a left-to-right mark', '\u200e'],
    ['a right-to-left mark', '\u200f'],
    ['an Arabic letter mark', '\u061c'],
    ['an invisible times', '\u2062'],
    ['a variation selector', '\ufe0f'],
    ['a tag character', '\u{e0041}'],
    ['a Hangul filler', '\u3164'],
  ];
  removesEach(marks.map(([what, mark]) => [`a GitHub token with ${what} inside`, `Found it in commit a1b2c3d: ${split(GHP, 14, mark)}`, GHP.slice(14)] as const));
  removesEach([
    ['a Slack token with a right-to-left mark after a dash', `the old bot: ${split(XOXB, 18, '\u200f')}`, XOXB.slice(18)],
    ['an AWS key id with its prefix in bold', `Next steps: deactivate **AKIA**${AKIA.slice(4)} in IAM`, AKIA.slice(4)],
    ['an AWS key id with its prefix in code', `## Rotate \`AKIA\`${AKIA.slice(4)}`, AKIA.slice(4)],
    ['an Anthropic key with its prefix in bold', `Next steps: revoke **sk-ant-api03**${ANT.slice(12)} in the console`, ANT.slice(20)],
  ]);
  keepsEach([
    ['a family emoji (zero-width joiners between pictographs)', 'The team 👨‍👩‍👧 shipped it ❤️'],
    ['Persian text with a zero-width non-joiner', 'می‌خواهم این را بسازم'],
    ['bold words and code spans in prose', 'Run **`npm test`** then `git push` and check **CI**'],
    ['multiplication and a glob', 'const area = width*height; // src/**/*.ts'],
    ["Bundler's host variable (`__` is a dot there)", 'BUNDLE_GEMS__CONTRIBSYS__COM: "${GEMS_TOKEN}"'],
  ]);
  it('cuts the marks inside the credential with it, and nothing around it', () => {
    expect(kept(`deactivate **AKIA**${AKIA.slice(4)} today`)).toBe('deactivate **[REDACTED:aws_access_key_id] today');
  });
});

describe('code the labels took for a value', () => {
  keepsEach([
    ["TypeScript's non-null assertion on an environment variable", 'const apiKey = process.env.OPENAI_API_KEY!;'],
    ['a non-null assertion in an object literal', '  secret: process.env.NEXTAUTH_SECRET!,'],
    ['a non-null assertion on a member', 'const token = session.accessToken!;'],
    ['optional chaining', 'const token = session?.access_token;'],
    ['a GraphQL schema', '  login(email: String!, password: String!): AuthPayload'],
    ['a GraphQL operation', 'mutation Login($email: String!, $password: String!) { login(password: $password) { token } }'],
    ["Laravel's validation rules", "    'password' => 'required|string|min:8|confirmed',"],
    ['a Go struct tag', '  Password string `json:"password" validate:"required,min=8"`'],
    ["a generator's keyword argument", 'password = generate_password(length=20)'],
    ["a Kubernetes Secret's name", '      secret: shop-db-credentials'],
  ]);
  removesEach([
    ['a password ending in an exclamation mark', 'the admin password is Kestrel-42!', 'Kestrel-42!'],
    ['a quoted password after a GraphQL-like label', 'password: "Summer2024!db"', 'Summer2024!db'],
  ]);
});

const PW = 'Kestrel-42!dev';
const TOK = '8f3kQ2mX7pL4vR8sT1wY6zB3nC5dH0jK';
const UUIDV = '3ea89b70-4c18-47f7-b21f-2af3ebf04e15';
const VAULT = 's.M6COtdOhKAiPScNocl773TlA';

describe('a value a few words after its label, past words that are no small link', () => {
  removesEach([
    ['a password for an address, after a colon', `Password for admin@acme.io: ${PW}`, PW],
    ['a token for a bot', `token for the deploy bot: ${TOK}`, TOK],
    ['a key a tool created', `✔ API key created: ${TOK}`, TOK],
    ['a token not shown again (a UUID)', `Here is your new token (it will not be shown again): ${UUIDV}`, UUIDV],
    ['a token created under a quoted name', `Successfully created token "ci": ${TOK}`, TOK],
    ['a password with a qualifier in parentheses', `DB password (staging) = ${PW}`, PW],
    ["MySQL's first temporary password", '2026-03-02T10:00:01.123Z 6 [Note] [MY-010454] [Server] A temporary password is generated for root@localhost: k9#mQ2!xLp;e', 'k9#mQ2!xLp;e'],
  ]);
  keepsEach([
    ['a comparison', `if password == "${TOK}" then`],
    ["a chain's address after a label's other word", 'TxL Token Mint: 4Zao8ocPhmMgq7PdsYWyxvqySMGx7xb9cMftPMkEokRG'],
    ['a token and an id of something else', 'the token refresh fails for request 3ea89b70-4c18-47f7-b21f-2af3ebf04e15'],
  ]);
});

describe('Vault tokens of the old shape, after a name or a header', () => {
  removesEach([
    ["`vault operator init`'s root token", `Unseal Key 1: x\nInitial Root Token: ${VAULT}`, VAULT],
    ['a Vault header', `curl -H "X-Vault-Token: ${VAULT}" https://vault:8200/v1/secret`, VAULT],
    ['YAML', `vault:\n  token: ${VAULT}\n`, VAULT],
    ['an environment map', `VAULT_TOKEN: ${VAULT}`, VAULT],
    ['a batch token', 'token: b.AAAAAQKfqz4lVbNGkCm5WqhH3JmhVzJTyDZkjQ0VyKJg1Y8q2yLpzXgC9kRlM1S7bK3QeTtQgV', 'b.AAAAAQKfqz4lVbNGkCm5'],
  ]);
  keepsEach([['a member in code', 'const token = s.accessToken;']]);
});

describe('commands, calls and files that hold a secret', () => {
  removesEach([
    ['npm set with a space', `npm config set //registry.npmjs.org/:_authToken ${UUIDV}`, UUIDV],
    ['NetworkManager', `nmcli con modify home wifi-sec.psk '${PW}'`, PW],
    ['wpa_cli', `wpa_cli set_network 0 psk '"${PW}"'`, PW],
    ["a Wi-Fi QR code's string", `WIFI:T:WPA;S:HomeNet;P:${PW};;`, PW],
    ['keepalived', 'authentication {\n    auth_type PASS\n    auth_pass Kx9vQm2p\n}', 'Kx9vQm2p'],
    ["Cisco's enable secret", `enable secret ${PW}`, PW],
    ["Cisco's user secret", `username netops privilege 15 secret ${PW}`, PW],
    ['an SNMP community', 'snmp-server community Kx9vQm2pLz RO', 'Kx9vQm2pLz'],
    ['hydra', `hydra -l admin -p ${PW} ssh://10.0.0.5`, PW],
    ['sqlmap', `sqlmap -u http://x/ --auth-type=basic --auth-cred="admin:${PW}"`, PW],
    ["restic's password command", `restic -r s3:x init --password-command "echo ${PW}"`, PW],
    ['a password piped to cryptsetup', `echo -n '${PW}' | sudo cryptsetup luksOpen /dev/sdb1 backup -`, PW],
    ['a password piped to restic', `echo ${PW} | restic -r /srv/repo --password-file /dev/stdin init`, PW],
    ["Ansible's vault password file", `echo '${PW}' > ~/.vault_pass`, PW],
    ["openssl's raw key", 'openssl enc -aes-256-cbc -K 9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0 -iv 0a1b -in x', '9f8e7d6c5b4a39281706f5e4d3c2b1a0'],
    ["PowerShell's environment", `Set-Item -Path Env:API_TOKEN -Value "${TOK}"`, TOK],
    ['a format that names the secret', `printf 'API_TOKEN=%s\\n' '${TOK}' >> .env`, TOK],
    ["Laravel's generated key", 'Application key [base64:Zk9xQ2mX7pL4vR8sT1wY6zB3nC5dH0jKa1b2c3d4e5f=] set successfully.', 'Zk9xQ2mX7pL4vR8sT1wY6zB3nC5dH0jK'],
    ["a microk8s join's token", 'microk8s join 10.0.0.5:25000/2c3a1f9e8d7b6a5c4e3f2a1b0c9d8e7f/8f7e6d5c4b3a', '2c3a1f9e8d7b6a5c4e3f2a1b0c9d8e7f'],
    ["aiohttp's BasicAuth", `auth = aiohttp.BasicAuth('admin', '${PW}')`, PW],
    ["paho's username_pw_set", `client.username_pw_set("admin", "${PW}")`, PW],
    ["reqwest's basic_auth", `client.get(url).basic_auth("admin", Some("${PW}")).send()`, PW],
    ["Twilio's JavaScript client", "new twilio.Twilio('ACd67746f1f97fb14e861de10cab21b4f0', 'f9e6aa6fe653c38fcaab617f0869c416');", 'f9e6aa6fe653c38fcaab617f0869c416'],
    ["a Java builder's password", `HikariConfig c = new HikariConfig(); c.setPassword("${PW}");`, PW],
    ["Ruby's Net::SMTP", `Net::SMTP.start('smtp.acme.io', 587, 'acme.io', 'mailer', '${PW}', :login)`, PW],
    ["MailKit's AuthenticateAsync", `await client.AuthenticateAsync("mailer@acme.io", "${PW}");`, PW],
    ['a keystore opened with a literal', `ks.load(new FileInputStream("server.p12"), "${PW}".toCharArray());`, PW],
    ['Playwright filling a password field', `await page.getByLabel('Password').fill('${PW}');`, PW],
    ['Selenium typing a password', `driver.find_element(By.ID, "password").send_keys("${PW}")`, PW],
    ['Cypress typing a password', `cy.get('input[name=password]').type('${PW}')`, PW],
    ["Helm's default for a password", `DB_PASSWORD_HINT: {{ .Values.db.password | default "${PW}" }}`, PW],
    ['a record with its value first and another field between', `{\n  "value": "${PW}",\n  "type": "PLAINTEXT",\n  "name": "DB_PASSWORD",\n}`, PW],
    ['a minisign secret key', 'untrusted comment: minisign encrypted secret key\nRWRTY0IyAAAAAJeFmYbZ8xQW2mX7pL4vR8sT1wY6zB3nC5dH0jKa1b2c3d4e5f6g7h8i9j0kLmNoPqRsTuVwXyZ', 'RWRTY0IyAAAAAJeFmYbZ8xQW2mX7'],
    ['a Feishu webhook', 'https://open.feishu.cn/open-apis/bot/v2/hook/2b3c4d5e-6f70-4812-9a3b-4c5d6e7f8091', '2b3c4d5e-6f70-4812-9a3b-4c5d6e7f8091'],
    ['a WeCom webhook', "curl -s 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=1ecba87d-ebdb-4fd9-a0e6-74acfd48ae98'", '1ecba87d-ebdb-4fd9-a0e6-74acfd48ae98'],
    ['a Mattermost webhook', 'https://chat.example.com/hooks/xi3kqm8n7jfa5pbd9w2c4ygz1e', 'xi3kqm8n7jfa5pbd9w2c4ygz1e'],
    ['a Teams webhook of the older form', 'https://outlook.office.com/webhook/1a2b3c4d-1111-2222-3333-444455556666@7e8f9a0b-1111-2222-3333-444455556666/IncomingWebhook/9f8e7d6c5b4a39281706f5e4d3c2b1a0/0a1b2c3d-4444-5555-6666-777788889999', '9f8e7d6c5b4a39281706f5e4d3c2b1a0'],
    ["an Anaconda channel's token", 'https://conda.anaconda.org/t/ab-12cd34ef-56gh-78ij-90kl-mnopqrstuvwx/my-channel', 'ab-12cd34ef-56gh-78ij-90kl-mnopqrstuvwx'],
    ['a Google key in italics', 'The map loads with _AIzaA9ldeSxRUsNrLHoV42xMWBvSvo7CdVLRf7B_ from the old config.', 'AIzaA9ldeSxRUsNrLHoV42xMWBvSvo7CdVLRf7B'],
  ]);
  keepsEach([
    ['a GitHub hook by number', 'GET https://api.github.com/repos/acme/app/hooks/123456789'],
    ['a form filled with an e-mail', "await page.getByLabel('Email').fill('dev@acme.io');"],
    ['a literal turned into characters for no password', 'for (char c : "hello world".toCharArray()) count++;'],
    ['a default of no secret', '{{ .Values.replicas | default "3" }}'],
  ]);
});
