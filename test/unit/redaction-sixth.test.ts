import { describe, expect, it } from 'vitest';
import { stripControls } from '../../src/core/control-chars.js';
import { Redactor } from '../../src/core/redact.js';

/**
 * Credentials the fifth red team left on SECURITY.md's known list, removed since (docs/SECURITY.md),
 * each as an agent's transcript holds it, and the look-alikes that must stay. Every value here is
 * made up.
 */

const r = new Redactor();
const kept = (text: string): string => r.redact(stripControls(text)).text;
/** A made-up Discord bot token: the base64 of a 19-digit snowflake, a 6-character stamp, an HMAC. */
const DISCORD = 'MTA4NjQ2NjY0ODc2NDg2NjYzOQ.GxYzAb.Qp7vRt4wPLm9Qp7vRt4wPLm9Qp7vRt4';

describe('credentials the fifth red team left, removed now', () => {
  const cases: [string, string, string][] = [
    ['a Markdown table of accounts', '| Role | Email | Password |\n|------|-------|----------|\n| admin | admin@example.com | Admin123! |\n| user | jo@example.com | Welc0me#2024 |', 'Admin123!'],
    ['the second row of that table', '| Role | Email | Password |\n|------|-------|----------|\n| admin | admin@example.com | Admin123! |\n| user | jo@example.com | Welc0me#2024 |', 'Welc0me#2024'],
    ['a Markdown table without outer pipes', 'User | Password\n--- | ---\ndeploy | hunter2xyz', 'hunter2xyz'],
    ['a table with a secret column first', '| API key | Service |\n| :--- | :--- |\n| Kq8zLm2Xp9Rt7Vb3 | billing |', 'Kq8zLm2Xp9Rt7Vb3'],
    ['a psql grid of users', ' usename  |               passwd\n----------+-------------------------------------\n postgres | md5a3556571e93b0d20722ba62be61e8c2d\n(1 row)', 'md5a3556571e93b0d20722ba62be61e8c2d'],
    ['a psql grid of a seed table', ' id | email             | password_hash\n----+-------------------+--------------------------------------------------------------\n  1 | a@example.com     | $2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy', 'N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy'],
    ["Playwright's storageState", '{"cookies":[{"name":"sessionid","value":"k3j2h4g5f6d7s8a9q0w1e2r3","domain":".example.com","path":"/","expires":-1,"httpOnly":true,"secure":true,"sameSite":"Lax"}]}', 'k3j2h4g5f6d7s8a9q0w1e2r3'],
    ['a cookie added in a test', "await context.addCookies([{ name: 'auth', value: 'Zq8rLm9Qp7vRt4wPZq8rLm9', domain: 'localhost', path: '/' }]);", 'Zq8rLm9Qp7vRt4wPZq8rLm9'],
    ['a cookie with its value first', '{"value": "Vc7tLm9Qp7vRt4wPVc7t", "name": "connect.sid", "domain": "app.local", "path": "/"}', 'Vc7tLm9Qp7vRt4wPVc7t'],
    ['a cookies.txt line', '# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t1767225600\tsession_token\tSt4xLm9Qp7vRt4wPSt4xLm9Q', 'St4xLm9Qp7vRt4wPSt4xLm9Q'],
    ['a cookies.txt line for an HttpOnly cookie', '#HttpOnly_app.example.com\tFALSE\t/\tTRUE\t0\tsid\tHo5tLm9Qp7vRt4wPHo5t', 'Ho5tLm9Qp7vRt4wPHo5t'],
    ['document.cookie set', 'document.cookie = "session=Dc3kLm9Qp7vRt4wPDc3kLm; path=/"', 'Dc3kLm9Qp7vRt4wPDc3kLm'],
    ['document.cookie printed', '> document.cookie\n\'_ga=GA1.1.123; auth_token=Dp8kLm9Qp7vRt4wPDp8kLm\'', 'Dp8kLm9Qp7vRt4wPDp8kLm'],
    ['a Kubernetes Secret from kubectl -o yaml', 'apiVersion: v1\ndata:\n  DATABASE_URL: cG9zdGdyZXM6Ly9hcHA6czNjcjN0QGRiOjU0MzIvYXBw\n  config.json: eyJrZXkiOiAidmFsdWUifQ==\nkind: Secret\nmetadata:\n  name: app-env\ntype: Opaque', 'cG9zdGdyZXM6Ly9hcHA6czNjcjN0QGRiOjU0MzIvYXBw'],
    ['another key of that Secret', 'apiVersion: v1\ndata:\n  DATABASE_URL: cG9zdGdyZXM6Ly9hcHA6czNjcjN0QGRiOjU0MzIvYXBw\n  config.json: eyJrZXkiOiAidmFsdWUifQ==\nkind: Secret\nmetadata:\n  name: app-env\ntype: Opaque', 'eyJrZXkiOiAidmFsdWUifQ=='],
    ['a Secret manifest with stringData', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: smtp\nstringData:\n  SMTP_URL: smtp://mailer:Sm9tLm9Qp7vRt4wP@mail.example.com\n  relay: Rl2xLm9Qp7vRt4wPRl2x\n', 'Rl2xLm9Qp7vRt4wPRl2x'],
    ['a Secret from kubectl -o json', '{\n    "apiVersion": "v1",\n    "data": {\n        "conn": "Y29ubi1zdHJpbmctdmFsdWUtMTIzNDU2Nzg="\n    },\n    "kind": "Secret"\n}', 'Y29ubi1zdHJpbmctdmFsdWUtMTIzNDU2Nzg='],
    ['a .pgpass line written', 'echo "db.internal:5432:app:deploy:Pg7sLm9Qp7vRt4wP" > ~/.pgpass && chmod 600 ~/.pgpass', 'Pg7sLm9Qp7vRt4wP'],
    ['a .pgpass file shown', '$ cat ~/.pgpass\nlocalhost:5432:*:postgres:localpass2024\n*:*:*:replicator:Rp9sLm9Qp7vRt4wP', 'localpass2024'],
    ['the second line of that file', '$ cat ~/.pgpass\nlocalhost:5432:*:postgres:localpass2024\n*:*:*:replicator:Rp9sLm9Qp7vRt4wP', 'Rp9sLm9Qp7vRt4wP'],
    ['a YAML block scalar', 'production:\n  db_password: |-\n    Yb3kLm9Qp7vRt4wPYb3k\n  host: db.internal', 'Yb3kLm9Qp7vRt4wPYb3k'],
    ['a folded YAML block scalar', 'api_token: >\n  Yf6kLm9Qp7vRt4wPYf6kLm9Q\nnext: 1', 'Yf6kLm9Qp7vRt4wPYf6kLm9Q'],
    ["Terraform's random_password in a state", '{\n  "mode": "managed",\n  "type": "random_password",\n  "name": "db",\n  "instances": [\n    {\n      "attributes": {\n        "bcrypt_hash": "$2a$10$Tr8xLm9Qp7vRt4wPTr8xLeQ9v1Zb3Nc5Xd7Vf9Hg1Jk3Ll5Mn7Op",\n        "length": 24,\n        "result": "x]Q8#zL2m!pR7@vK4^tW9&nB"\n      }\n    }\n  ]\n}', 'x]Q8#zL2m!pR7@vK4^tW9&nB'],
    ['the bcrypt hash of that password', '{\n  "type": "random_password",\n  "instances": [{"attributes": {"bcrypt_hash": "$2a$10$Tr8xLm9Qp7vRt4wPTr8xLeQ9v1Zb3Nc5Xd7Vf9Hg1Jk3Ll5Mn7Op", "result": "abc"}}]\n}', 'Tr8xLm9Qp7vRt4wPTr8xLeQ9v1Zb3Nc5Xd7Vf9Hg1Jk3Ll5Mn7Op'],
    ['mysqlsh with a password in its URI', 'mysqlsh root:Ms4hLm9Qp7vRt4wP@localhost:3306 --sql', 'Ms4hLm9Qp7vRt4wP'],
    ['mysqlsh --uri', 'mysqlsh --uri admin:Ms5hLm9Qp7vRt4wP@db.internal:33060/app', 'Ms5hLm9Qp7vRt4wP'],
    ['a Discord bot token in an .env', `DISCORD_BOT=${DISCORD}`, DISCORD.slice(-20)],
    ['a Discord bot token in prose', `the bot runs with ${DISCORD} for now`, DISCORD.slice(-20)],
    ['a Discord bot token in JSON', `{"discord": "${DISCORD}"}`, DISCORD.slice(-20)],
  ];
  it.each(cases)('%s', (_what, text, secret) => {
    const out = kept(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('[REDACTED');
  });

  // The sixth red team's ways past the rules above (docs/FIDELITY.md), each removed now.
  const PW = 'Xq7LmT9vRz2pK8wQ4';
  const K8S = 'cG9zdGdyZXM6Ly9hcHA6WHE3TG1UOXZSejJwSzh3UTRAZGIvYXBw';
  const rows = (n: number): string => Array.from({ length: n }, (_, i) => ` user${i}@acme.test | Filler${i}x9Q`).join('\n');
  const bypasses: [string, string, string][] = [
    ['a table as Read numbers its lines', `     3→| Email | Password |\n     4→|---|---|\n     5→| admin@acme.test | ${PW} |`, PW],
    ['a table in a diff', `+| Email | Password |\n+|---|---|\n+| admin@acme.test | ${PW} |`, PW],
    ['a table in a quote', `> | Email | Password |\n> |---|---|\n> | admin@acme.test | ${PW} |`, PW],
    ['a table longer than 200 rows', ` email | password\n-------+---------\n${rows(201)}\n last@acme.test | ${PW}`, PW],
    ['a rule of two dashes', `| Email | Password |\n|--|--|\n| a@acme.test | ${PW} |`, PW],
    ['a rule of one dash', `| Email | Password |\n|-|-|\n| a@acme.test | ${PW} |`, PW],
    ['bold labels', `| **Email** | **Password** |\n|---|---|\n| a@acme.test | ${PW} |`, PW],
    ['a label with a note', `| Email | Password (dev only) |\n|---|---|\n| a@acme.test | ${PW} |`, PW],
    ["MySQL's grid", `+-----------------+-------------------+\n| email           | password          |\n+-----------------+-------------------+\n| a@acme.test     | ${PW} |\n+-----------------+-------------------+`, PW],
    ['a row after one with a cell more', `| Email | Password |\n|---|---|\n| admin@acme.test | Adm1n!2026 | (rotated) |\n| ops@acme.test | ${PW} |`, PW],
    ['a row after a short one', `| Email | Password |\n|---|---|\n| sso@acme.test |\n| ops@acme.test | ${PW} |`, PW],
    ['a row after an escaped pipe', `| Email | Password |\n|---|---|\n| a@acme.test | Ab1\\|Zz9!kq2 |\n| ops@acme.test | ${PW} |`, PW],
    ['an argon2 hash', `| email | password_hash |\n|---|---|\n| a@acme.test | $argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQxMjM$${PW}Rdescud |`, PW],
    ['a Secret as Read numbers its lines', `     1→apiVersion: v1\n     2→kind: Secret\n     3→metadata:\n     4→  name: app\n     5→data:\n     6→  DATABASE_URL: ${K8S}`, K8S],
    ['a Secret in a diff', `+apiVersion: v1\n+kind: Secret\n+data:\n+  DATABASE_URL: ${K8S}`, K8S],
    ['a quoted kind', `apiVersion: v1\nkind: "Secret"\ndata:\n  DATABASE_URL: ${K8S}`, K8S],
    ['a kind with a comment', `apiVersion: v1\nkind: Secret  # synced by CI\ndata:\n  DATABASE_URL: ${K8S}`, K8S],
    ['a Secret in a List', `apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    DATABASE_URL: ${K8S}\n  kind: Secret\n  metadata:\n    name: app\nkind: List`, K8S],
    ['a block scalar as Read numbers its lines', `     1→prod:\n     2→  db_password: |-\n     3→    ${PW}`, PW],
    ["Tornado's _xsrf cookie, its value quoted", `{"cookies": [{"name": "_xsrf", "value": "\\"2|1:0|10:1712345678|5:_xsrf|48:${PW}Zr8Nq2Wm5Tb7\\"", "domain": "localhost", "path": "/"}]}`, PW],
    ['a cookies.txt expiry with a fraction', `.example.com\tTRUE\t/\tTRUE\t1767225600.5\tsessionid\t${PW}nB6`, PW],
    ['a cookie of words around a token', `{"name": ".ROBLOSECURITY", "value": "_|WARNING:-DO-NOT-SHARE-THIS.--Sharing-this-will-allow-someone-to-log-in-as-you|_7F3A9C2E51B84D06AE1F7C3B92D5E8A4", "domain": ".roblox.com", "path": "/"}`, '7F3A9C2E51B84D06AE1F7C3B92D5E8A4'],
    ['document.cookie +=', `document.cookie += "sessionid=${PW}nB6; path=/"`, PW],
    ['a .pgpass host with an underscore', `echo "postgres_db:5432:app:app:${PW}" >> ~/.pgpass`, PW],
    ["MySQL Shell's shell.connect", `mysqlsh --js -e "shell.connect('clusteradmin:${PW}@node1:3306'); dba.createCluster('prod')"`, PW],
    ["MySQL Shell's \\connect", `\\connect root:${PW}@localhost:3306`, PW],
  ];
  it.each(bypasses)('%s', (_what, text, secret) => {
    expect(kept(text)).not.toContain(secret);
  });

  it('keeps the rest of a table: the other columns, the header and the rule', () => {
    const out = kept('| Role | Email | Password |\n|------|-------|----------|\n| admin | admin@example.com | Admin123! |');
    expect(out).toContain('| Role | Email | Password |');
    expect(out).toContain('|------|-------|----------|');
    expect(out).toContain('| admin | admin@example.com |');
  });

  it('keeps the rest of a Secret: its name, kind and type', () => {
    const out = kept('apiVersion: v1\ndata:\n  DATABASE_URL: cG9zdGdyZXM6Ly9hcHA6czNjcjN0QGRiOjU0MzIvYXBw\nkind: Secret\nmetadata:\n  name: app-env\ntype: Opaque');
    expect(out).toContain('  DATABASE_URL: [REDACTED');
    expect(out).toContain('kind: Secret\nmetadata:\n  name: app-env\ntype: Opaque');
  });

  it('finds a table in escaped JSON text, as a tool result holds it', () => {
    const text = JSON.stringify({ content: '| User | Password |\n|---|---|\n| deploy | Es3cLm9Qp7vRt4wP |' });
    expect(kept(text)).not.toContain('Es3cLm9Qp7vRt4wP');
  });

  it('finds a table that ends inside a JSON string, with more of the line after it', () => {
    const text = JSON.stringify([{ message: '| User | Password |\n|---|---|\n| deploy | Et4cLm9Qp7vRt4wP |' }, { id: 'next', note: 'a | b | c' }]);
    const out = kept(text);
    expect(out).not.toContain('Et4cLm9Qp7vRt4wP');
    expect(out).toContain('a | b | c');
  });
});

describe('look-alikes that stay', () => {
  const cases: [string, string][] = [
    ['a table that describes a password field', '| Field | Type | Notes |\n|---|---|---|\n| password | string | hashed with bcrypt |\n| email | string | unique |'],
    ['a table whose secret column says yes or no', '| Variable | Secret | Default |\n|---|---|---|\n| PORT | no | 3000 |\n| API_KEY | yes | none |'],
    ['a password column of placeholders', '| User | Password |\n|---|---|\n| admin | (set in .env) |\n| ci | `$CI_PASSWORD` |\n| guest | ******** |\n| demo | <password> |'],
    ['a pipe in a shell line after password', 'grep password config.yml | head -5\nwc -l | sort'],
    ['a table with no rule under its header', 'password | value\nfoo | bar'],
    ['a cookie banner in JSON', '{"name": "cookie_consent", "value": "accepted", "domain": ".example.com"}'],
    ['a cookies.txt line of a locale', '.example.com\tTRUE\t/\tFALSE\t0\tlang\ten-US'],
    ['TRUE in a config', 'DEBUG=TRUE\nVERBOSE=FALSE'],
    ['a ConfigMap', 'apiVersion: v1\ndata:\n  LOG_LEVEL: debug\n  FEATURE_FLAGS: a,b,c\nkind: ConfigMap\nmetadata:\n  name: app'],
    ['a Secret named in prose', 'kind: Secret objects hold the keys; see the data: section of the chart'],
    ['a Secret with its data redacted by kubectl describe', 'Name:  app-env\nType:  Opaque\n\nData\n====\nDATABASE_URL:  61 bytes'],
    ['a .pgpass mentioned', 'psql reads ~/.pgpass when no password is given'],
    ['a time after pgpass', 'wrote ~/.pgpass at 12:30:45:00:12 today'],
    ['a YAML block scalar of a non-secret', 'description: |-\n  A long text\n  on two lines'],
    ['a password key whose block is empty', 'password: |\nnext: value'],
    ['random_password without a state', 'resource "random_password" "db" {\n  length  = 24\n  special = true\n}'],
    ['mysqlsh without a password', 'mysqlsh root@localhost:3306 --sql'],
    ['a dotted identifier that is no token', 'MTAxNjQzNzg5MDEyMzQ1Njc4OQ.to.string() is called'],
    ['a base64 run with dots that does not decode to a snowflake', 'aGVsbG8gd29ybGQgZnJvbSBtZQ.AbCdEf.Qp7vRt4wPLm9Qp7vRt4wPLm9Qp7vRt4'],
    // The sixth red team's false positives.
    ['a test report with a Pass column', '| Suite | Pass | Fail |\n|---|---|---|\n| unit | 1204 | 0 |\n| e2e | 58/60 | 2 |'],
    ['design tokens', '| Token | Value |\n|---|---|\n| --color-primary | #1a73e8 |\n| --space-2 | 8px |'],
    ['a table of secret names', '| Secret | Used by |\n|---|---|\n| NPM_TOKEN | publish.yml |\n| DEPLOY_KEY | deploy.yml |'],
    ['where each password is kept', '| Service | Password |\n|---|---|\n| db | vault:kv/db |\n| mail | 1Password |\n| api | .env.local |'],
    ['a token limit', '| Model | Max token |\n|---|---|\n| opus | 128000 |'],
    ['key chords', '| Action | Key |\n|---|---|\n| palette | Ctrl+Shift+P |'],
    ['a working folder', '| Shell | PWD |\n|---|---|\n| bash | /home/dev/app |'],
    ['a ConfigMap printed beside a Secret', '==> k8s/config.yaml <==\napiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: verbose-debug-mode\n\n==> k8s/secret.yaml <==\napiVersion: v1\nkind: Secret\ntype: Opaque'],
    ['a ConfigMap then a Secret with no separator', 'apiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: verbose-debug-mode\napiVersion: v1\nkind: Secret\nmetadata:\n  name: app'],
    ['a ConfigMap in a JSON List beside a Secret', '{"kind": "List", "items": [{"kind": "ConfigMap", "data": {"LOG_LEVEL": "verbose-debug-mode"}}, {"kind": "Secret", "metadata": {"name": "app"}}]}'],
    ['a DNS record with a name, a value and a domain', '{"domain": "acme.io", "name": "google._domainkey", "value": "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA1x2y3z4"}'],
    ["a login redirect's cookie", '{"name": "login_redirect", "value": "/dashboard/settings", "domain": "app.test", "path": "/"}'],
    ["an auth provider's cookie", '{"name": "auth_provider", "value": "google-oauth2", "domain": "app.test", "path": "/"}'],
    ['a status line after .pgpass is named', 'I put the password in ~/.pgpass. Services now:\n\nweb:8080:http:nginx:running-healthy'],
    ['random_password in prose, then a result', 'I switched the module to random_password.\n\n{"status": "ok", "result": "plan-applied-cleanly"}'],
    ["a block scalar that describes a token", 'inputs:\n  token: |\n    GitHub token used to open the PR; defaults to GITHUB_TOKEN'],
  ];
  it.each(cases)('%s', (_what, text) => {
    expect(kept(text)).toBe(stripControls(text));
  });
});
