import { describe, expect, it } from 'vitest';
import { noteAgentText, noteCall, noteRequest, noteResult } from '../../src/core/ledger.js';
import { renderAll } from '../../src/core/render/index.js';
import { call, result, say, user } from './claude-records.js';
import { ingestFile } from './ingest-helper.js';
import { renderInput } from './render-input.js';
import { initialState } from '../../src/core/state.js';
import { analysed, transcriptFile } from './ledger-helper.js';
import { kept, keepsEach, removesEach } from './redaction-cases.js';

/**
 * What the ninth red team left (docs/SECURITY.md), and the tenth red team: a value changed in a
 * word diff, a Wi-Fi password given to a sketch's call, a key in a URL's query under a name no
 * list knows. Every value is made up.
 */

describe("git diff --word-diff's changed value", () => {
  it('removes both sides of `[-old-]{+new+}` after a secret name, their quotes and markers kept', () => {
    expect(kept('password: [-"OldPw9x2"-]{+"N3wPw7qZ"+}')).toBe('password: [-"[REDACTED:secret_assignment]"-]{+"[REDACTED:secret_assignment]"+}');
  });

  removesEach([
    ['an added value only', '  api_key = {+"sk9Kq2Lm8Vx3Rt7Yw1Zp"+}', 'sk9Kq2Lm8Vx3Rt7Yw1Zp'],
    ['an unquoted .env value, the old side', 'DB_PASSWORD=[-Old9xPw2-]{+N3wPw7qZ+}', 'Old9xPw2'],
    ['an unquoted .env value, the new side', 'DB_PASSWORD=[-Old9xPw2-]{+N3wPw7qZ+}', 'N3wPw7qZ'],
    ['a placeholder replaced by a secret', 'password: [-REPLACE_ME-]{+"Zq8#mK2pLw9v"+}', 'Zq8#mK2pLw9v'],
    ['as a tool result holds it', JSON.stringify({ stdout: 'diff --git a/config.yml b/config.yml\n@@ -3 +3 @@\n  token: [-"gh0Ld7Kq2Lm8Vx3Rt7Yw"-]{+"nW8pQ3zR6tY1uI4oP7aS"+}\n' }), 'nW8pQ3zR6tY1uI4oP7aS'],
  ]);

  keepsEach([
    ['code on both sides', 'token: [-os.environ["A"]-]{+settings.token+}'],
    ['a call that reads the secret', 'password = [-old-]{+get_password()+}'],
    ['a word diff of no secret name', 'timeout: [-30-]{+60+}'],
  ]);
});

describe("a Wi-Fi password in a sketch's call", () => {
  removesEach([
    ['WiFi.begin', '  WiFi.begin("HomeNet", "Tr0ub4dor&3x");', 'Tr0ub4dor&3x'],
    ['WiFi.softAP', 'WiFi.softAP("ESP-AP", "apPass2024!");', 'apPass2024!'],
    ['WiFiMulti.addAP', 'wifiMulti.addAP("Net2", "zQ9#kL2mW");', 'zQ9#kL2mW'],
    ['in a Write of the sketch', JSON.stringify({ file_path: '/w/sketch/sketch.ino', content: '#include <WiFi.h>\nvoid setup() {\n  WiFi.begin("Attic-5G", "m0ssy-Lantern-88");\n}\n' }), 'm0ssy-Lantern-88'],
  ]);

  keepsEach([
    ['variables', 'WiFi.begin(WIFI_SSID, WIFI_PASSWORD);'],
    ['an open network', 'WiFi.begin("HomeNet");'],
    ["another object's begin", 'db.begin(conn, "readonly")'],
    ['a serial port', 'Serial.begin(115200);'],
  ]);
});

describe("a key in a URL's query under a name no list knows", () => {
  removesEach([
    ["OpenWeatherMap's appid", 'curl "https://api.openweathermap.org/data/2.5/weather?q=London&appid=8f3c2b1a9d7e6f5a4b3c2d1e0f9a8b7c"', '8f3c2b1a9d7e6f5a4b3c2d1e0f9a8b7c'],
    ["HubSpot's hapikey, a UUID", 'GET https://api.hubapi.com/contacts/v1/lists?hapikey=4f9e2d1c-8b7a-4c3d-9e2f-1a0b9c8d7e6f&count=10', '4f9e2d1c-8b7a-4c3d-9e2f-1a0b9c8d7e6f'],
    ['a developer key', 'https://api.example.com/v2/items?devkey=Zq8mK2pLw9vR4tY7uI1oP3aS&page=2', 'Zq8mK2pLw9vR4tY7uI1oP3aS'],
  ]);

  it('keeps the rest of the URL', () => {
    expect(kept('https://api.hubapi.com/contacts/v1/lists?hapikey=4f9e2d1c-8b7a-4c3d-9e2f-1a0b9c8d7e6f&count=10')).toBe('https://api.hubapi.com/contacts/v1/lists?hapikey=[REDACTED:url_query_key]&count=10');
  });

  keepsEach([
    ['sort and cache keys', 'https://x.example/api?sortkey=created_at&cachekey=v2'],
    ['an idempotency key', 'POST /pay?idempotencyKey=4f9e2d1c-8b7a-4c3d-9e2f-1a0b9c8d7e6f'],
    ['a numeric app id', 'GET /items?appid=12345&page=2'],
    ['a partition key', 'https://x.example/?partitionKey=user-1234'],
  ]);
});

describe('a password a person made, after `Pass` or a user name under credentials', () => {
  removesEach([
    ['`Pass` as a label in prose', 'Login: admin Pass Zq8#mK2pLw', 'Zq8#mK2pLw'],
    ['`Pass` after a user in a list', 'user admin, Pass Kestrel-42!dev', 'Kestrel-42!dev'],
    ['`creds: user / password`', 'creds: admin / Zq8#mK2pLw', 'Zq8#mK2pLw'],
    ['`credentials: user:password`', 'credentials: admin:Kestrel-42!dev', 'Kestrel-42!dev'],
    ['in .env', 'CREDENTIALS=svc-deploy:Wq7#mN4pLz8', 'Wq7#mN4pLz8'],
  ]);

  it('keeps the user name', () => {
    expect(kept('creds: admin / Zq8#mK2pLw')).toBe('creds: admin / [REDACTED:labelled_secret]');
  });

  keepsEach([
    ['the word pass in a sentence', 'the tests pass Node20.x'],
    ['a flag after pass', 'eslint should pass --max-warnings=0'],
    ['a verdict', '✓ Pass checkout-v2.test'],
    ['where the password is kept', 'creds: admin / see 1Password'],
    ['a placeholder', 'login: admin / password'],
    ['a path', 'credentials: ~/.aws/credentials'],
    ['a profile', 'credentials: default:profile'],
  ]);
});

describe('a call outside the folders the session may use', () => {
  it('is named as such in the next action, not as a permission rule', () => {
    const l = initialState().ledger;
    noteRequest(l, 'which tools does claude -p have?', 1, 'request');
    noteCall(l, { id: 'w', name: 'WebSearch', line: 5 });
    noteResult(l, { id: 'w', line: 6, ok: false, denied: 'Claude requested permissions to use WebSearch, but you have not granted it yet.' });
    noteCall(l, { id: 'b', name: 'Bash', line: 20, command: 'ls -la ~/.claude/' });
    noteResult(l, { id: 'b', line: 21, ok: false, denied: "ls in '~/.claude' was blocked. For security, Claude Code may only list files in the allowed working directories for this session: '/src/x'." });
    noteAgentText(l, 'Both were blocked, so this answer comes from what I know.', 24);
    const st = initialState();
    st.ledger = l;
    const na = analysed(st).nextAction;
    expect(na.text).toMatch(/^The agent answered \(line 24\) without the 2 calls the harness refused \(/);
    expect(na.text).toContain('line 21 was refused as outside the folders the session may use, which the user widens (`--add-dir`, `/add-dir`)');
  });
});

describe('the tenth red team: passwords given to calls by their place', () => {
  removesEach([
    ["Go's smtp.PlainAuth", 'auth := smtp.PlainAuth("", "alerts@acme.io", "SMHy#S6saRb1W3OI", "smtp.gmail.com")', 'SMHy#S6saRb1W3OI'],
    ['pymysql.connect', "conn = pymysql.connect('db.internal', 'reporting', 'X4Zi%a06z471vxSQ', 'orders')", 'X4Zi%a06z471vxSQ'],
    ['ftplib.FTP', "ftp = FTP('ftp.vendor.example', 'acme', '5iOF!Y49Y77mzShi')", '5iOF!Y49Y77mzShi'],
    ["paramiko's connect", "ssh.connect('10.0.0.5', 22, 'deploy', 'z4wr*e623qVoEV6X')", 'z4wr*e623qVoEV6X'],
    ["Perl's DBI", 'my $dbh = DBI->connect("dbi:Pg:dbname=billing;host=pg01", "billing_rw", "SDyU*6yFs9J3gdM8");', 'SDyU*6yFs9J3gdM8'],
    ['an LDAP bind, a DN with commas before it', 'conn.simple_bind_s("cn=admin,dc=acme,dc=io", "M9lq*rOj6lvpfBKO")', 'M9lq*rOj6lvpfBKO'],
    ["PHP's ldap_bind", '<?php $ok = ldap_bind($ds, "cn=svc,dc=acme,dc=io", "l00f!n8iY3lvJtJT");', 'l00f!n8iY3lvJtJT'],
    ["HttpClient's credentials", 'new UsernamePasswordCredentials("svc-jenkins", "LvrH%LcGRQBP3p1r")', 'LvrH%LcGRQBP3p1r'],
    ["MongoDB's changeUserPassword", `mongosh --eval 'db.getSiblingDB("shop").changeUserPassword("shop_app", "lXFq!hvhw9HednsT")'`, 'lXFq!hvhw9HednsT'],
    ["MongoDB's auth", `mongosh --quiet --eval 'db.getSiblingDB("admin").auth("backup", "NqOZ*YctVMRxHyvi")'`, 'NqOZ*YctVMRxHyvi'],
    ["Laravel's Hash::make", "Hash::make('Kq8!pLw2xZ')", 'Kq8!pLw2xZ'],
    ["Django's create_superuser", "User.objects.create_superuser('admin', 'a@b.io', 'Kq8!pLw2xZ')", 'Kq8!pLw2xZ'],
    ['bcrypt.hash', "await bcrypt.hash('Kq8!pLw2xZ', 12)", 'Kq8!pLw2xZ'],
    ["require('bcrypt').hash", `node -e "require('bcrypt').hash('npNf_5bWUUFaM8', 12).then(console.log)"`, 'npNf_5bWUUFaM8'],
    ["Go's SetBasicAuth", 'req.SetBasicAuth("admin", "Pw9#xLq2mZ")', 'Pw9#xLq2mZ'],
    ["Gorilla's cookie store", 'store := sessions.NewCookieStore([]byte("k8Zq2Lm9Vx3Rt7Yw1ZpQ"))', 'k8Zq2Lm9Vx3Rt7Yw1ZpQ'],
    ["Twilio's client", "client = Client('AC0123456789abcdef0123456789abcdef', '9f8e7d6c5b4a39281706f5e4d3c2b1a0')", '9f8e7d6c5b4a39281706f5e4d3c2b1a0'],
    ["Ruby's basic_auth", "basic_auth 'deploy', 'Pw9#xLq2mZ'", 'Pw9#xLq2mZ'],
    ["PHP's CURLOPT_USERPWD", "curl_setopt($ch, CURLOPT_USERPWD, 'api:Pw9#xLq2mZ');", 'Pw9#xLq2mZ'],
    ["Guzzle's auth", "'auth' => ['api', 'Pw9#xLq2mZ'],", 'Pw9#xLq2mZ'],
    ["Python's fallback after a lookup", "SLACK_TOKEN = os.environ.get('SLACK_BOT_TOKEN') or '5XdGcAULxzHHiZbiSeXU5mrbCHLQ2I3SspdRJwUo'", '5XdGcAULxzHHiZbiSeXU5mrbCHLQ2I3SspdRJwUo'],
  ]);

  keepsEach([
    ['a password from a variable', 'bcrypt(password)'],
    ['a request field', 'Hash::make($request->password)'],
    ['an f-string that interpolates', 'password = f"{prefix}{suffix}"'],
  ]);
});

describe('the tenth red team: passwords given to commands', () => {
  removesEach([
    ['composer http-basic', 'composer config --global --auth http-basic.repo.packagist.com token Zq8mK2pLw9vR4tY7', 'Zq8mK2pLw9vR4tY7'],
    ['composer bearer', 'composer config bearer.repo.example.com Zq8mK2pLw9vR4tY7uI1o', 'Zq8mK2pLw9vR4tY7uI1o'],
    ["composer's auth.json", '{"bearer": {"repo.example.com": "Zq8mK2pLw9vR4tY7uI1o"}}', 'Zq8mK2pLw9vR4tY7uI1o'],
    ['ipmitool -P', "ipmitool -I lanplus -H 10.0.0.9 -U admin -P 'Pw9#xLq2mZ' chassis status", 'Pw9#xLq2mZ'],
    ['racadm -p', 'racadm -r 10.0.0.9 -u root -p Pw9xLq2mZ getsysinfo', 'Pw9xLq2mZ'],
    ['db2 … using', 'db2 connect to SAMPLE user db2inst1 using Pw9xLq2mZ', 'Pw9xLq2mZ'],
    ['vsql -w', 'vsql -U dbadmin -w Pw9xLq2mZ -c "select 1"', 'Pw9xLq2mZ'],
    ['slappasswd -s', "slappasswd -s 'Pw9#xLq2mZ'", 'Pw9#xLq2mZ'],
    ['doveadm pw -p', "doveadm pw -s SHA512-CRYPT -p 'Pw9#xLq2mZ'", 'Pw9#xLq2mZ'],
    ['wpa_passphrase', "wpa_passphrase HomeNet 'Pw9#xLq2mZ'", 'Pw9#xLq2mZ'],
    ["an FTP trace's PASS", '> USER deploy\n> PASS Pw9#xLq2mZ\n< 230 Login successful', 'Pw9#xLq2mZ'],
    ["GitHub Actions' add-mask", 'echo "::add-mask::Zq8mK2pLw9vR4tY7"', 'Zq8mK2pLw9vR4tY7'],
    ['eas secret:create --value', 'eas secret:create --scope project --name SENTRY_AUTH_TOKEN --value sntrys_abcdef0123 --type string', 'sntrys_abcdef0123'],
    ["Vault's secret_id", 'Key                   Value\n---                   -----\nsecret_id             8c2b1a9d-7e6f-4a5b-9c3d-2e1f0a9b8c7d', '8c2b1a9d-7e6f-4a5b-9c3d-2e1f0a9b8c7d'],
    ["Consul's SecretID", 'SecretID:         8c2b1a9d-7e6f-4a5b-9c3d-2e1f0a9b8c7d', '8c2b1a9d-7e6f-4a5b-9c3d-2e1f0a9b8c7d'],
    ["Neo4j's SET PASSWORD", "ALTER CURRENT USER SET PASSWORD FROM 'Old8#mK2pLw' TO 'Zq8#mK2pLw'", 'Zq8#mK2pLw'],
    ["mysql's -p quoted whole", "mysql -u root '-pPw9#xLq2mZ' -e 'select 1'", 'Pw9#xLq2mZ'],
    ["redis-cli's -a quoted", "redis-cli '-a' 'Pw9#xLq2mZ' ping", 'Pw9#xLq2mZ'],
    ['a password piped to kinit', "echo 'Pw9#xLq2mZ' | kinit admin@ACME.IO", 'Pw9#xLq2mZ'],
    ['a password piped twice to passwd', "echo -e 'Pw9#xLq2mZ\\nPw9#xLq2mZ' | sudo passwd deploy", 'Pw9#xLq2mZ'],
    ['a token written into its file', "printf '%s' 'y2GKMjHm9YWrjCKxLOPu3FftUJTXpvb6uRmPXF1R' > ~/.vault-token", 'y2GKMjHm9YWrjCKxLOPu3FftUJTXpvb6uRmPXF1R'],
    ['a password written into a secrets file', "echo 'iVBD.r3oB8TwFU9O' > /run/secrets/db_password", 'iVBD.r3oB8TwFU9O'],
    ["an expect script's answer", 'spawn ssh admin@10.1.1.2\nexpect "assword:"\nsend "JmG0%hozqpV6u9\\r"\nexpect "#"', 'JmG0%hozqpV6u9'],
    ['a Redis ACL file', 'user default off\nuser worker on >pOHkEzGzeCEwaVrmJAF1CXIS ~jobs:* +@all', 'pOHkEzGzeCEwaVrmJAF1CXIS'],
    ['ACL SETUSER', "redis-cli ACL SETUSER metrics on '>ADWc#O7rsVT7zvwX1u' '~*' +info", 'ADWc#O7rsVT7zvwX1u'],
    ['an NTLM header', 'Authorization: NTLM TlRMTVNTUAADAAAAGAAYAHgAAAAYABgAkAAAAA==', 'TlRMTVNTUAADAAAAGAAYAHgAAAAYABgAkAAAAA=='],
    ["Hardhat's accounts", "accounts: ['0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d']", '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'],
  ]);

  keepsEach([
    ['a note written into a file', 'echo "hello" > notes.txt'],
    ['a variable written into a token file', 'echo $TOKEN > ~/.token'],
    ['a masked variable', "echo '::add-mask::$TOKEN'"],
    ['the word user in prose', 'the user alice on > the list'],
  ]);
});

describe('the tenth red team: values under a name, in other shapes', () => {
  removesEach([
    ["Yarn's npmAuthIdent", 'npmAuthIdent: "deploy:Pw9#xLq2mZ"', 'Pw9#xLq2mZ'],
    ['a macaroon in the environment', 'LND_MACAROON=0201036c6e6402f801030a10b3c7a2e7f1d8c9b4a5e6f70819a2b3c41201301a160a0761646472657373120472656164', '0201036c6e6402f801030a10b3c7a2e7f1d8c9b4a5e6f7'],
    ['a macaroon header', "curl -s -H 'Grpc-Metadata-macaroon: 0201036c6e6402f801030a10b3c7a2e7f1d8c9b4a5e6f7' https://lnd:8080/v1/getinfo", '0201036c6e6402f801030a10b3c7a2e7f1d8c9b4a5e6f7'],
    ["DynamoDB's typed value", '{"access_token": {"S": "ya29.a0Zq8mK2pLw9vR4tY7uI1oP3aS"}}', 'ya29.a0Zq8mK2pLw9vR4tY7uI1oP3aS'],
    ["Firestore's typed value", '"botToken": {"stringValue": "Zq8mK2pLw9vR4tY7uI1oP3aS"}', 'Zq8mK2pLw9vR4tY7uI1oP3aS'],
    ["Codex's answer to its own question", '{"answers":{"db_pw":{"answers":["Pw9#xLq2mZ"]}}}', 'Pw9#xLq2mZ'],
    ["CloudFormation's parameters", '{"ParameterKey":"DbPassword","ParameterValue":"Pw9#xLq2mZ"}', 'Pw9#xLq2mZ'],
    ["1Password's item fields", '  "label": "password",\n  "value": "Pw9#xLq2mZ"', 'Pw9#xLq2mZ'],
    ["Hibernate's property element", '<property name="hibernate.connection.password">Pw9#x!Lq2mZ</property>', 'Pw9#x!Lq2mZ'],
    ["ODBC's braced password", 'Driver={ODBC Driver 18};Server=db;Uid=sa;Pwd={Pw9#x;Lq2mZ};', 'Pw9#x;Lq2mZ'],
    ['CDATA', '<password><![CDATA[Pw9#xLq2mZ]]></password>', 'Pw9#xLq2mZ'],
    ["Python's f-string literal", 'api_key = f"Zq8mK2pLw9vR4tY7uI1o"', 'Zq8mK2pLw9vR4tY7uI1o'],
    ["C#'s verbatim string", 'var key = @"Zq8mK2pLw9vR4tY7uI1o";', 'Zq8mK2pLw9vR4tY7uI1o'],
    ["Terraform's variable default", 'variable "db_password" {\n  type      = string\n  sensitive = true\n  default   = "Pw9#xLq2mZ"\n}', 'Pw9#xLq2mZ'],
    ["Go's printed header map", 'map[Accept:[*/*] X-Api-Key:[Zq8mK2pLw9vR4tY7uI1o]]', 'Zq8mK2pLw9vR4tY7uI1o'],
    ["Go's printed struct, a key that happens to be base58-shaped", '2026/11/24 09:15:02 stripe: &{Key:f3NXqKoeEJPJvWJEJHGvtaxd6N6DvX1W Backend:<nil>}', 'f3NXqKoeEJPJvWJEJHGvtaxd6N6DvX1W'],
    ['a person\'s password after "the pass is"', 'the staging login is ops@acme.io and the pass is Harbor-dqtcqy-42. also', 'Harbor-dqtcqy-42'],
  ]);

  keepsEach([
    ['a JSX prop', '<Input password={password} />'],
    ['a regular expression', 'const re = { token:[a-z] }'],
    ['a public address under a chain name', 'mint_key: 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU'],
    ['an empty fallback', 'const k = process.env.KEY || "";'],
  ]);
});

describe('the tenth red team: key material and provider formats', () => {
  removesEach([
    ["a JWK's d", '{"kty": "EC", "crv": "P-256", "x": "CpnxtyWKhLDjsw0GsERcnTPAFPJOZjWuLoPpwAE1cu9", "d": "c72g3ALVRx1nS8-yxnyB-uEHvH8VztTJuOcZotvbqNY"}', 'c72g3ALVRx1nS8-yxnyB-uEHvH8VztTJuOcZotvbqNY'],
    ["certbot's private_key.json, kty last", '{"n": "fuvt5XMYGxZhEmjGYHO3", "e": "AQAB", "d": "ZI_TtRWIp8wVVcrRpa1VAsy4O5AJfm7TzcAZk5SeN63k5lovoAY", "p": "K8Q7lPfF5WWUz0mcrkWbi21gG9sq1TxA71Z", "kty": "RSA"}', 'K8Q7lPfF5WWUz0mcrkWbi21gG9sq1TxA71Z'],
    ['openssl -text', 'read EC key\nPrivate-Key: (256 bit)\npriv:\n    23:4d:d0:37:45:3e:cb:2d:2b:01:10:09:36:d4:3c:\n    7e:00:b8:71:93:85:ad:6e:f5:a7:a0:a5:83:72:1f:\n    3d:9f\npub:\n    04:19', '7e:00:b8:71:93:85:ad:6e'],
    ['a PEM key deleted in a diff', `@@ -1,4 +0,0 @@\n------BEGIN RSA PRIVATE KEY-----\n-${'PQ3NUc2QY7puNqekUKhnLUutBNkoGsL9Rzg/3vI+6tIMU4tI2J2YqFokkSLSR6vf'}\n-${'jSwcRa1x7Xo+s6ZHr62Zf6Z7qr8KuMt6lqu02uVHVACTinzucdAX1az1QgR9jvY9'}\n------END RSA PRIVATE KEY-----`, 'jSwcRa1x7Xo+s6ZHr62Zf6Z7'],
    ['a PEM key commented out', `# -----BEGIN RSA PRIVATE KEY-----\n# ${'qXaXWwVCVd24c6L2TQzPunJ1z0QT3IPyiAVR4a3OSwHFQLCP2wWONmq2D1TcmxwW'}\n# ${'rQ8lSVQ+LqrN09EqMyIGvdr2gJwej97WBGrAf5Fo+Tic7Q4/OIyqOLvT2Lk8uHSI'}\n# -----END RSA PRIVATE KEY-----`, 'rQ8lSVQ+LqrN09EqMyIGvdr2'],
    ["a PEM key shown by bat", `   1   │ -----BEGIN RSA PRIVATE KEY-----\n   2   │ ${'tJJOUO39H7VumITXN44CXyiqfFjdKEdQlLUREXIoCT8Xox5+8MsO7jlTmTclRCtd'}\n   3   │ ${'mlWzNDEiTzJMqOhUwIfa5GY9b/Q2ROAQS8IzF87k29LwFGfg/JMNGbGCYN3yXNvQ'}\n   4   │ -----END RSA PRIVATE KEY-----`, 'mlWzNDEiTzJMqOhUwIfa5GY9'],
    ["a PEM key in a psql grid", ` kid | pem\n-----+-----\n k1  | -----BEGIN PRIVATE KEY-----+\n     | ${'t2WLONAKZo900nzQk4HpdG0HZrBpVji4dh08OppN4uq0QrVQuyYk2noMiHg5DFQ8'}+\n     | ${'uDGIKJ0oFA7EA9O5NPhMBAXhHiZmdaePQtZ8QkK3Lmv8uXJQZJj4vDjglsX9RxFP'}+\n     | -----END PRIVATE KEY-----`, 'uDGIKJ0oFA7EA9O5NPhMBAXh'],
    ['a PKCS#8 EC key on one line', 'APNS_KEY=MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgvoBPU++dW/HxRvSfZoRQSpIjuDJQg5b4qDs6HDlxGIyhK1+ppNj1lhCjaENEz7hd+Rkzqfzgm+EzaC5qwA3JtcvX', 'voBPU++dW/HxRvSfZoRQSpIj'],
    ['an Alchemy URL', 'MAINNET_RPC_URL=https://eth-mainnet.g.alchemy.com/v2/rVuKdga2vGZ9_hOq-80n-UReDALYpfoa', 'rVuKdga2vGZ9_hOq-80n-UReDALYpfoa'],
    ['an Infura URL', 'SEPOLIA_RPC_URL=https://sepolia.infura.io/v3/b2387a8a0609ae842d0cdfb14e47d840', 'b2387a8a0609ae842d0cdfb14e47d840'],
    ['a PagerDuty integration URL', 'https://events.pagerduty.com/integration/2f3135b38cae0922c4b91bd7403768c7/enqueue', '2f3135b38cae0922c4b91bd7403768c7'],
    ['an IFTTT webhook key', 'https://maker.ifttt.com/trigger/deploy/with/key/R195-MiGSlfgJlaHqzRScj', 'R195-MiGSlfgJlaHqzRScj'],
    ['a k3s join token', 'K10fb84bc2606983ba9a8e7b82cce253480a8f90b7143ff310907c3b634b7bc716d::server:54bfc5c8792a9ba0e7b17e677d48e0e5', '54bfc5c8792a9ba0e7b17e677d48e0e5'],
    ['a PASETO token', 'issued v4.local.Zq8mK2pLw9vR4tY7uI1oP3aSd6F9gH2jK5lQ8wE1rT4yU7iO0pA3sD6fG9hJ2k for user 7', 'Zq8mK2pLw9vR4tY7uI1oP3aS'],
    ['a Buildkite token alone on its line', 'bkua_862143e6d65329ddd45d81496f70f204bec0231b', '862143e6d65329ddd45d81496f70f204bec0231b'],
    ['a Salesforce session', 'Access Token     00DZMw9sNsXkM4k!7iLBXFZanUb4HQWRy7puV8HiJhOiXMHOL.jkbZ2IqZYIGyKubm32yQ38w9SI7uF0kVV6ozXyVjk8zdRFhJ', '7iLBXFZanUb4HQWRy7puV8HiJhOiXMHOL'],
    ['a Nostr private key', 'nsec1rznfgdj3sw2dd3df0ejc736ugrtdt0fthdkgwlg7z079s8jhcr6a4xs8m4', 'rznfgdj3sw2dd3df0ejc736ugrtdt0fthdkgwlg7z079s8jhcr6a4xs8m4'],
    ['a LaunchDarkly SDK key', 'sdk-9a4c9177-7f8b-401c-b5f2-6265795744c9', '9a4c9177-7f8b-401c-b5f2-6265795744c9'],
  ]);

  it('keeps the host of a key given as a URL path', () => {
    expect(kept('https://eth-mainnet.g.alchemy.com/v2/rVuKdga2vGZ9_hOq-80n-UReDALYpfoa')).toBe('https://eth-mainnet.g.alchemy.com/v2/[REDACTED:url_path_key]');
  });

  keepsEach([
    ["an EC JWK's public members", '{"kty":"EC","crv":"P-256","x":"CpnxtyWKhLDjsw0GsERcnTPAFPJOZjWuLoPpwAE1cu9","y":"sh0dhqtOb4gyZGT7TALwCMpXvlHuz9b5_I2I9RN1SPj"}'],
    ["Alchemy's docs path", 'https://eth-mainnet.g.alchemy.com/v2/docs'],
    ['a package named sdk-', 'npm i sdk-core@2.1.0'],
  ]);
});

describe("the tenth red team's ordinary text, no longer removed", () => {
  keepsEach([
    ["AWS's documented example keys", 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['a token placeholder of x', 'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    ['a token placeholder of words', 'SLACK_BOT_TOKEN=xoxb-your-bot-token'],
    ["jwt.io's example", 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'],
    ["a WebSocket handshake's nonce", 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='],
    ['a reference to where the secret is kept', 'VAULT_TOKEN=vault:secret/data/ci#token'],
  ]);
});

describe('the tenth red team: listings', () => {
  removesEach([
    ["AWS SSM's table", '||  /prod/orders/db_password     |  SecureString  |  lIib%RKvnebAVDPci5X8  |  7  ||', 'lIib%RKvnebAVDPci5X8'],
    ["AWS SSM's text output", 'PARAMETER\tarn:aws:ssm:eu-west-1:123:parameter/prod/x\t2026-01-01\t/prod/billing/stripe_secret\tSecureString\tsk9Xq2Lm8Vx3Rt7Yw1Zp\t3', 'sk9Xq2Lm8Vx3Rt7Yw1Zp'],
    ["Postfix's sasl_passwd", '[smtp.mailgun.org]:587 postmaster@mg.acme.io:unfx!20tFbBMZLCL', 'unfx!20tFbBMZLCL'],
    ['an IMAP LOGIN', '* OK Dovecot ready.\na1 LOGIN support@acme.io GQJt%8PTPD39SYCK\na1 OK Logged in', 'GQJt%8PTPD39SYCK'],
    ["redis-cli's HGETALL", '1) "email"\n2) "ops@acme.io"\n3) "api_token"\n4) "ZQeI2Aw5pxAX34m7cQnhws59T4b2yn0rWHWHjT46"\n5) "plan"', 'ZQeI2Aw5pxAX34m7cQnhws59T4b2yn0rWHWHjT46'],
    ["pulumi config's table", 'KEY                     VALUE\naws:region              eu-west-1\ninfra:dbPassword        VaqY%CRdrNQ05PJt2fcB\ninfra:instanceType      t4g.medium', 'VaqY%CRdrNQ05PJt2fcB'],
  ]);

  keepsEach([
    ['a listing of a required field', 'password   required'],
    ['a line of help', '  token    The token to use'],
    ['a type named in prose', 'Type: String  Value: SecureString'],
    ['the rest of a HGETALL', '1) "email"\n2) "ops@acme.io"\n5) "plan"\n6) "pro"'],
  ]);
});

describe('the eleventh red team: values a cut or a summary took from their label', () => {
  const everything = (...records: Record<string, unknown>[]): string => {
    const path = transcriptFile(...records);
    const { state } = ingestFile(path);
    const r = renderAll(renderInput(path));
    return [r.handoffMd, r.summaryJson.toString('utf8'), r.llmJson.toString('utf8'), JSON.stringify(state)].join('\n');
  };

  it('a long failing output whose cut falls inside a `"password":"…"` member', () => {
    const secret = 'm9Of3UqLw8Zx2Vr5Tk7Yp';
    const line = `{"level":"error","msg":"login failed","user":"svc","password":"${secret}","detail":"${'x'.repeat(400)}"} request failed`;
    const out = `${'ok step\n'.repeat(247)}${'y'.repeat(4)}${line}\n${'z line\n'.repeat(400)}FAILED tests/test_login.py::test_it - AssertionError\n1 failed`;
    const all = everything(user('u1', 'fix the login test'), call('b1', 'Bash', { command: 'pytest' }), result('b1', out, { is_error: true }));
    expect(all).not.toContain(secret);
    expect(all).not.toContain(secret.slice(0, 8));
  });

  it('a key body selected in the IDE, without its BEGIN line', () => {
    const body = ['PhjQks8nKA6V8vBHu2iJCsfBV/NbKi7Uvbhjf/5dopdcjGmHLhZ9KQe9/0JlPoXU', 'l2Gqv9IaqD/j3ACxN5NjtEiw/uxTsK5FeJAmdTn6rT8eG6rBtDHFrY8Bz7vrdnE3', 'aL3TC34w7F4lpNw7p4tkcpvU9PF+tYSGa6Y6VcZ3lSL/XfbUegIJVOJXbT44yTpr'];
    const message = `<ide_selection>The user selected the lines 2 to 4 from /w/deploy/keys/staging_deploy_key:\n${body.join('\n')}\n\nThis may or may not be related to the current task.</ide_selection>ssh-add says invalid format for these lines`;
    const all = everything(user('u1', message), say('a1', 'The BEGIN and END lines are missing.'));
    for (const l of body) expect(all).not.toContain(l.slice(0, 24));
    expect(all).toContain('lines 2–4 of /w/deploy/keys/staging_deploy_key selected');
  });

  it("a key written into a document, and a table's first cell, as what a write defines", () => {
    const key = 'e/rw5TdL0j4sJOFR2G0Yjyv085bEn7rpAFjU+H8vDAVtLnpKCNghGqzX3mYw1kPe';
    const token = 'gdqXt248BvPm26kZtA7aLo8oBOofsTzNAoKpQJpm';
    const all = everything(
      user('u1', 'write the key notes and the token inventory'),
      call('w1', 'Write', { file_path: '/w/notes/ci-deploy-key.txt', content: `CI deploy key (read-only), added 2026-01-04\n\n${key}\n${key.split('').reverse().join('')}\n` }),
      result('w1', 'File created successfully at: /w/notes/ci-deploy-key.txt'),
      call('w2', 'Write', { file_path: '/w/docs/tokens.md', content: `# Token inventory\n\n| Token | Service | Owner |\n|---|---|---|\n| ${token} | billing-sync | TBD |\n` }),
      result('w2', 'File created successfully at: /w/docs/tokens.md'),
      say('a1', 'Written.'),
    );
    expect(all).not.toContain(key.slice(0, 16));
    expect(all).not.toContain(token.slice(0, 16));
    // The rest of what the writes define stays.
    expect(all).toContain('CI deploy key (read-only), added 2026-01-04');
    expect(all).toContain('placeholders «… | TBD»');
  });
});

describe('the eleventh red team: shapes the redactor did not read', () => {
  removesEach([
    ["devtools' copy as fetch", '  "headers": {\n    "cookie": "sessionid=7oqO4wqIt2lP0gkgvAbGzLVUyumYmDYoGE2HWdzG; csrftoken=ElY4byJUXEPpl8egLIM1taCsIhaxhWtw",', '7oqO4wqIt2lP0gkgvAbGzLVUyumYmDYoGE2HWdzG'],
    ["devtools' copy as PowerShell", '$session.Cookies.Add((New-Object System.Net.Cookie("sessionid", "V8j4CEmVSnoaxKlDaZq9HQqGwlVzbcAZxUXezszJ", "/", "app.acme.io")))', 'V8j4CEmVSnoaxKlDaZq9HQqGwlVzbcAZxUXezszJ'],
    ["a HAR's Cookie header record", '    {\n      "name": "Cookie",\n      "value": "sessionid=cLmJESI4FMy1ziOTE4j1kbHKtNiMt5s9dz1ZDrG6; theme=dark"\n    }', 'cLmJESI4FMy1ziOTE4j1kbHKtNiMt5s9dz1ZDrG6'],
    ['an Express session cookie in a test', "res.cookie('connect.sid', 's%3ASxIYPhctLAyDw3VLr0OaXzGQ36aVlesh.sig', { httpOnly: true });", 'SxIYPhctLAyDw3VLr0OaXzGQ36aVlesh'],
    ['a cookie jar set in a test', "agent.jar.setCookie('connect.sid=s%3ASxIYPhctLAyDw3VLr0OaXzGQ36aVlesh.abc; Path=/; HttpOnly');", 'SxIYPhctLAyDw3VLr0OaXzGQ36aVlesh'],
    ["Go's header literal", 'req.Header = http.Header{"X-Api-Key": []string{"4khRlh41DCphtOzj7LlqWHiS2zCpaQCV"}}', '4khRlh41DCphtOzj7LlqWHiS2zCpaQCV'],
    ["JavaScript's ??=", "process.env.SHOPIFY_API_SECRET ??= 'xv49LTTLwmK27gaIvi398UJXTH4UJZWM';", 'xv49LTTLwmK27gaIvi398UJXTH4UJZWM'],
    ["Ruby's ||=", "ENV['STRIPE_API_KEY'] ||= 'RY9uzMw16oHdgbDbUNYIZZNS6dCYtmil'", 'RY9uzMw16oHdgbDbUNYIZZNS6dCYtmil'],
    ["ASP.NET's signing key", 'new SymmetricSecurityKey(Encoding.UTF8.GetBytes("EO11DUrLbGPnknLibe5Rmz9b80hLgM9GagxX5f1C"))', 'EO11DUrLbGPnknLibe5Rmz9b80hLgM9GagxX5f1C'],
    ["a plist's key and string", '    <key>SYNC_API_TOKEN</key>\n    <string>MnO4k3S4OJdQaBsrHR3MizkyLQrDYOQn</string>', 'MnO4k3S4OJdQaBsrHR3MizkyLQrDYOQn'],
    ["HTML's definition list", '<dt>Client ID</dt><dd>shop-web</dd>\n  <dt>Client secret</dt><dd>DkAn4F6jnut1Rs7gui4C22jg90IxRB4H</dd>', 'DkAn4F6jnut1Rs7gui4C22jg90IxRB4H'],
    ["a PHP stack trace's frames", "#0 Connector.php(70): PDO->__construct('mysql:host=db;port=3306;dbname=shop', 'shop', 'moXV0*TbGuCH1yWqJ!', Array)\n#1 Connector.php(46): Illuminate\\Database\\Connectors\\Connector->createPdoConnection('mysql:host=db;p...', 'shop', 'moXV0*TbGuCH1yWqJ!', Array)", 'moXV0*TbGuCH1yWqJ!'],
    ["Azure Key Vault's secret, an empty object between", '{\n  "name": "db-password",\n  "tags": {},\n  "value": "8JY2D3yga4eQCqSNVNHQyzHUAYP7lm"\n}', '8JY2D3yga4eQCqSNVNHQyzHUAYP7lm'],
    ['gh variable set, a variable named as a secret', 'gh variable set DEPLOY_API_TOKEN --body "GnIkynVrnEHJqHGMrUKzbGJ7elaKkbr3Su3DsUoO"', 'GnIkynVrnEHJqHGMrUKzbGJ7elaKkbr3Su3DsUoO'],
    ["git's password prompt, pasted", "git keeps asking:\nUsername for 'https://git.acme.io': dana\nPassword for 'https://dana@git.acme.io': xAuQZ@yJUFuTG3y7h#\nremote: HTTP Basic: Access denied", 'xAuQZ@yJUFuTG3y7h#'],
    ['swaks AUTH LOGIN', '<~  334 UGFzc3dvcmQ6\n ~> SE1mS24lWGhuUWcycWNBIQ==\n<~* 535 5.7.0 bad login', 'SE1mS24lWGhuUWcycWNBIQ=='],
    ['an SNMP community', 'snmpwalk -v2c -c 0rOZC6xur5zCLjYrGlzZ 10.20.0.1 IF-MIB::ifDescr', '0rOZC6xur5zCLjYrGlzZ'],
    ['consul kv put', 'consul kv put shop/prod/db/password o6rD4AzGUcaFGgrR4b3YG5WGKXX1', 'o6rD4AzGUcaFGgrR4b3YG5WGKXX1'],
    ['etcdctl put', 'etcdctl put /config/shop/api_token tuljPnNzqw1IrHKU6ZffMxDx0TuB', 'tuljPnNzqw1IrHKU6ZffMxDx0TuB'],
    ['a no-break space before the value', '{\n  "user": "svc-sync",\n  "password":\u00a0"SDMa07akqMfqtq6vVsU01H90HhlpNVZB"\n}', 'SDMa07akqMfqtq6vVsU01H90HhlpNVZB'],
    ['a YAML password with an equals sign', 'db:\n  password: kSbvJ71rdQ=Zx8mW2pLq9', 'kSbvJ71rdQ'],
    ['a token named for what it may do', 'HF_TOKEN_WRITE=ZeovPHq8Lw2mZx9Vr5Tk7YpA3sD6fG9h\nNPM_TOKEN_PUBLISH=8y0A7lQw3Er5Ty7Ui9Op1As3Df5Gh7Jk\nOPENAI_API_KEY_FALLBACK=WeY0PjKq8Lw2mZx9Vr5Tk7YpA3sD6fG9', 'ZeovPHq8Lw2mZx9Vr5Tk7YpA3sD6fG9h'],
    ["a VCR cassette's header", '    headers:\n      Accept:\n      - application/json\n      x-api-key:\n      - U9ZOjODB08vy4Y1GwJnS8Im2fbdiapZp8Nz7\n    method: GET', 'U9ZOjODB08vy4Y1GwJnS8Im2fbdiapZp8Nz7'],
    ["Bundler's credentials for a gem host", '---\nBUNDLE_GEMS__CONTRIBSYS__COM: "199c4228:f2a9aa7e"\nBUNDLE_JOBS: "4"', '199c4228:f2a9aa7e'],
    ["Jinja's default for an unset secret", "PGPASSWORD={{ lookup('env', 'DB_PASSWORD') | default('uYA6jK6rGVKRMDOWRGNcigsxHZUe') }}", 'uYA6jK6rGVKRMDOWRGNcigsxHZUe'],
  ]);

  keepsEach([
    ["bash's fail-if-unset", 'curl -H "Authorization: token ${GITHUB_TOKEN:?GITHUB_TOKEN is required}" https://api.github.com'],
    ['a DB-API placeholder', 'cursor.execute("UPDATE users SET password = %(password)s WHERE id = %(id)s", params)'],
    ['where a password is kept', 'the staging password is in 1Password under Shop / Staging'],
    ["cmd.exe's delayed expansion", 'set "API_TOKEN=!API_TOKEN!"'],
    ['a command substitution', 'AUTH_TOKEN=`cat /run/secrets/token`'],
    ['a class name under a weak label', 'auth: OAuth2ClientCredentials'],
    ['a masked key', 'Your API key: sk-...a1B2 (shown once)'],
    ["Laravel's placeholder", 'APP_KEY=base64:...'],
    ["Azure Data Factory's expression", '"token": "@{variables(\'apiToken\')}"'],
    ['a cookie of no session', "res.cookie('theme', 'dark')"],
    ['a key-value put of no secret', 'etcdctl put /config/shop/log_level debug'],
    ["a plist's other keys", '<key>Label</key>\n<string>io.acme.sync</string>'],
    ['a variable of no secret', 'gh variable set DEPLOY_REGION --body "eu-west-1"'],
  ]);
});
