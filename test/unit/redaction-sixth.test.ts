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
    ['a cookie with its value first', '{"value": "Vc7tLm9Qp7vRt4wPVc7t", "name": "connect.sid", "domain": "app.local"}', 'Vc7tLm9Qp7vRt4wPVc7t'],
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
  ];
  it.each(cases)('%s', (_what, text) => {
    expect(kept(text)).toBe(stripControls(text));
  });
});
