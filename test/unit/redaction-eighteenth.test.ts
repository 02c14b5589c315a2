import { describe } from 'vitest';
import { keepsEach, removesEach } from './redaction-cases.js';

/**
 * The eighteenth red team (docs/SECURITY.md): keys given by position to ciphers, MACs, hashers and
 * SDK calls; commands and config names no rule knew; heartbeat URLs; provider formats; and the
 * references of charts, proxies and workflows that were taken for secrets. Every value is made up.
 */

const K = 'Vq8Lm3Xz7Rt1Wn5Yc9Hb2Kd6Fg0Js4Ae';
const HEX64 = '9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c0b2d4f6e8a1c3e5b7d9f0a2c4e6b8d0f';
const B64 = 'bgplK7xq3Vt9Wm2Rz5Ln8Yc1Hd4Fj6Gs0Ae3Uo7Ig8e=';
const PW = 'Osprey02#vcg';
const UUID = '3f1c2b3a-9d8e-4f7a-b6c5-1e2d3f4a5b6c';

describe('a credential in the shapes the eighteenth red team found kept', () => {
  removesEach([
    ['AESGCM from hex', `aesgcm = AESGCM(bytes.fromhex("${HEX64}"))`, HEX64],
    ['createCipheriv with a hex Buffer', `crypto.createCipheriv('aes-256-gcm', Buffer.from('${HEX64}', 'hex'), iv)`, HEX64],
    ['.NET Aes.Key from base64', `aes.Key = Convert.FromBase64String("${B64}");`, B64],
    ['CryptoJS.AES.encrypt', `CryptoJS.AES.encrypt(JSON.stringify(data), '${K}').toString()`, K],
    ['CryptoJS.HmacSHA256', `CryptoJS.HmacSHA256(message, '${K}')`, K],
    ['openssl_encrypt', `openssl_encrypt($data, 'aes-256-cbc', '${K}', 0, $iv)`, K],
    ['AES.new with bytes', `AES.new(b'${K}', AES.MODE_GCM, nonce=nonce)`, K],
    ['Go hmac.New', `hmac.New(sha256.New, []byte("${K}"))`, K],
    ['Dart Key.fromUtf8', `encrypt.Key.fromUtf8('${K}')`, K],
    ['Swift SymmetricKey', `SymmetricKey(data: Data("${K}".utf8))`, K],
    ['pbkdf2_hmac with a literal password', `hashlib.pbkdf2_hmac('sha256', b'${PW}', salt, 600_000)`, PW],
    ['bcrypt.hashpw', `python -c "import bcrypt; print(bcrypt.hashpw(b'${PW}', bcrypt.gensalt()).decode())"`, PW],
    ['bcryptjs hashSync', `node -e "console.log(require('bcryptjs').hashSync('${PW}', 12))"`, PW],
    ['passlib', `sha512_crypt.hash('${PW}')`, PW],
    ['Consul\'s gossip key in HCL', `encrypt    = "${B64}"`, B64],
    ['Consul\'s gossip key as a flag', `consul agent -server -encrypt=${B64} -data-dir /opt/consul`, B64],
    ['an OCI pass_phrase', `pass_phrase=${PW}`, PW],
    ['Nextcloud\'s passwordsalt', "  'passwordsalt' => 'Xq9vK2mL7pR4tW8zB3nC6yD1fG5hJ0',", 'Xq9vK2mL7pR4tW8zB3nC6yD1fG5hJ0'],
    ['a Vault recovery key', `Recovery Key 1: ${B64.slice(0, 44)}`, B64.slice(0, 44)],
    ['sudo -S from a here-string', `sudo -S systemctl restart shop-api <<< '${PW}'`, PW],
    ['ldappasswd -s', `ldappasswd -H ldap://ldap.example.com -x -D "cn=admin,dc=example,dc=com" -W -s ${PW} uid=dev`, PW],
    ['p4 -P', `p4 -u dev -P ${K} sync //depot/main/...`, K],
    ['elasticsearch-users -p', `bin/elasticsearch-users useradd ci -p ${PW} -r superuser`, PW],
    ['gitea admin user -p', `gitea admin user change-password -u dev -p ${PW}`, PW],
    ['pihole -a -p', `pihole -a -p ${PW}`, PW],
    ['rar -hp', `rar a -hp${PW} backup.rar data/`, PW],
    ['qpdf --encrypt, both passwords', `qpdf --encrypt ${PW} Juniper07#bfs 256 -- in.pdf out.pdf`, 'Juniper07#bfs'],
    ['ab -A', `ab -n 100 -A admin:${PW} https://shop.example.com/admin`, PW],
    ['HTTPie bearer', `http -A bearer -a ${K} https://api.example.com/me`, K],
    ['nuget setapikey', `nuget setapikey ${UUID} -Source https://api.nuget.org/v3/index.json`, UUID],
    ['netbird --setup-key', `netbird up --setup-key ${UUID.toUpperCase()}`, UUID.toUpperCase()],
    ['smbclient with the password after the share', `smbclient //nas/backups '${PW}' -U dev`, PW],
    ['ansible-vault encrypt_string', `ansible-vault encrypt_string --vault-id prod@prompt '${PW}' --name 'db_password'`, PW],
    ['imp userid= without a database', `imp userid=system/${K} file=shop.dmp full=y`, K],
    ['a Healthchecks ping URL', `curl -fsS -m 10 --retry 5 -o /dev/null https://hc-ping.com/${UUID}`, UUID],
    ['a Cronitor telemetry URL', 'curl https://cronitor.link/p/9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c/nightly-backup?state=complete', '9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c'],
    ['a Better Stack heartbeat', 'curl https://uptime.betterstack.com/api/v1/heartbeat/Xq9vK2mL7pR4tW8zB3nC6yD1', 'Xq9vK2mL7pR4tW8zB3nC6yD1'],
    ['an Uptime Kuma push token', 'curl "https://status.example.com/api/push/Hx8vQ2mLpR?status=up&msg=OK"', 'Hx8vQ2mLpR'],
    ['a dbt Cloud token', `try dbtc_${K}Xq9vK2mL for the dbt cloud API`, `dbtc_${K}Xq9vK2mL`],
    ['a MailerSend token', `MailerSend works now with mlsn.${HEX64}`, `mlsn.${HEX64}`],
    ['a Vercel Blob token', `the blob token is vercel_blob_rw_Xq9vK2mL7pR4tW8z_${K}`, `vercel_blob_rw_Xq9vK2mL7pR4tW8z_${K}`],
    ['a Context7 key', `use ctx7sk-${UUID}`, `ctx7sk-${UUID}`],
    ['a ClickUp token', 'CLICKUP_TOKEN pk_12345678_XQ9VK2ML7PR4TW8ZB3NC6YD1FG5HJ0AS', 'pk_12345678_XQ9VK2ML7PR4TW8ZB3NC6YD1FG5HJ0AS'],
    ['a Plex claim token', '      - PLEX_CLAIM=claim-Xq9vK2mL7pR4tW8zB3nC', 'claim-Xq9vK2mL7pR4tW8zB3nC'],
    ['.NET\'s bearer header', `new AuthenticationHeaderValue("Bearer", "${K}")`, K],
    ['Faraday\'s bearer', `conn.request :authorization, 'Bearer', '${K}'`, K],
    ['tweepy\'s OAuth 1 secrets', `tweepy.OAuth1UserHandler("ck", "${K}", "1234567-Ab3Cd4Ef5Gh6", "Pq8Rs7Tu6Vw5Xy4Za3Bc2De1Fg0Hi9")`, 'Pq8Rs7Tu6Vw5Xy4Za3Bc2De1Fg0Hi9'],
    ['Elasticsearch\'s API key pair', 'Elasticsearch("https://es.example.com:9200", api_key=("VuaCfGcBCdbkQm-e5aOx", "ui2lp2axTNmsyakw9tvNnw"))', 'ui2lp2axTNmsyakw9tvNnw'],
    ['Spring\'s login token', `new UsernamePasswordAuthenticationToken("admin", "${PW}")`, PW],
    ['sbt credentials', `Credentials("Sonatype Nexus Repository Manager", "nexus.example.com", "deploy", "${PW}")`, PW],
    ['gomail\'s dialer', `gomail.NewDialer("smtp.example.com", 587, "noreply@example.com", "${PW}")`, PW],
    ['MicroPython\'s Wi-Fi', `wlan.connect('HomeNet', '${PW}')`, PW],
    ['CDK\'s secret from a literal', `SecretValue.unsafePlainText('${PW}')`, PW],
    ['jwt.verify with a literal key', `jwt.verify(token, '${K}')`, K],
    ['Koa\'s app.keys', `app.keys = ['${K}', 'Hx8vQ2mLpR4tW9zB3nC6yD1fG5hJ0aS2'];`, 'Hx8vQ2mLpR4tW9zB3nC6yD1fG5hJ0aS2'],
    ['cookie-session\'s keys', `app.use(cookieSession({ name: 'session', keys: ['${K}'], maxAge: 86400000 }))`, K],
    ['Strapi\'s APP_KEYS', 'APP_KEYS=Xq9vK2mL7pR4tW8zB3nC6Q==,Hx8vQ2mLpR4tW9zB3nC6yQ==', 'Hx8vQ2mLpR4tW9zB3nC6yQ=='],
    ['LiveKit\'s key map', `keys:\n  APIoYu5ndwyJtq: ${K}Xq9vK2mL`, `${K}Xq9vK2mL`],
    ['a KeePass XML export', `<String><Key>Password</Key><Value ProtectInMemory="True">${PW}</Value></String>`, PW],
    ['Windows unattend.xml', `<AdministratorPassword>\n    <Value>${PW}</Value>\n    <PlainText>true</PlainText>\n</AdministratorPassword>`, PW],
  ]);
});

describe('ordinary text the eighteenth red team found removed', () => {
  keepsEach([
    ['a workflow\'s OIDC permission', 'permissions:\n  id-token: write\n  contents: read'],
    ['a chart\'s existing Secret', 'auth:\n  existingSecret: shop-postgres'],
    ['the same set with helm', 'helm upgrade shop bitnami/postgresql --set auth.existingSecret=shop-postgres'],
    ['LiteLLM\'s environment reference', '      api_key: os.environ/AZURE_API_KEY'],
    ['BuildKit\'s secret mounts', 'docker buildx build --secret id=npmrc,src=$HOME/.npmrc --secret id=aws,env=AWS_SECRET_ACCESS_KEY .'],
    ['a Logic Apps expression', '"headers": { "x-api-key": "@parameters(\'apiKey\')" }'],
    ['a vals reference', 'password: ref+vault://secret/data/shop/db#/password'],
    ['a single-brace substitution', "  password: '{FRIGATE_MQTT_PASSWORD}'"],
    ['Ansible\'s no_log mask', '"login_password": "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"'],
    ['a PGP public key block', '-----BEGIN PGP PUBLIC KEY BLOCK-----\nVersion: GnuPG v2\n\nmQINBGWz3bQBEADK5n8v2Tq9mL4xR7tW9yB3cD6fGhJ2kLmNpQ8sU1vX4zA7bE0d\nF3gH6jK9lM2nP5qR8sT1uV4wX7yZ0aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX\n6yZ9aB2cD5eF8gH1iJ4kL7mN0oP3qR6sT9uV2wX5yZ8aB1cD4eF7gH0iJ3kL6mN9o\n=Ab3C\n-----END PGP PUBLIC KEY BLOCK-----'],
    ['a cipher given a variable', 'const cipher = crypto.createCipheriv(algorithm, key, iv);'],
    ['Consul\'s TLS switch', 'tls { encrypt = true }'],
    ['a push route', 'POST /api/push/notifications HTTP/1.1'],
    ['a word after claim-', 'see the claim-settlement-process-docs page'],
    ['sudo -S with no here-string', 'sudo -S apt update'],
    ['smbclient listing shares', 'smbclient -L //nas -U dev'],
    ['Object.keys', 'Object.keys(obj).map((k) => k)'],
    ['jwt.verify with the environment', 'jwt.verify(token, process.env.JWT_SECRET)'],
    ['a KeePass user name', '<String><Key>UserName</Key><Value>dev</Value></String>'],
    ['a password policy\'s value', '<PasswordPolicy>\n  <Value>12</Value>\n</PasswordPolicy>'],
  ]);
});
