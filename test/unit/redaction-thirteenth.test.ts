import { describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/harness/extract.js';
import { Redactor } from '../../src/core/redact.js';
import { destroys, killedByName } from '../../src/core/shell.js';
import { call, result, user } from './claude-records.js';
import { renderAll } from '../../src/core/render/index.js';
import { transcriptFile } from './ledger-helper.js';
import { renderInput } from './render-input.js';
import { keepsEach, removesEach } from './redaction-cases.js';

/**
 * The thirteenth red team (docs/SECURITY.md): the text a handoff quotes from the places the
 * eighteenth reading added — words typed beside a refusal, a closing question, a last message's
 * tail, an interrupted turn, a rerun's command. Every value is made up.
 */

const r = new Redactor();
const PW = 'Blu3Harb0r!2026';
const KEY = 'xHduMjj3Cx4FMU6PlIjC1l7ysrjmtkv0E4';

describe('a password or key a few words after its label', () => {
  removesEach([
    ['has been set to', `The admin password has been set to '${PW}'.`, PW],
    ['rotated to', `The staging database password has been rotated to ${PW}.`, PW],
    ['updated to', `the DB password was updated to ${PW}`, PW],
    ['changed to', `config/staging.env — DB password changed to ${PW}`, PW],
    ['should stay', `the password should stay ${PW} for now`, PW],
    [', it is', `wrong password, it is ${PW}`, PW],
    ['instead:', `use this password instead: ${PW}`, PW],
    ['a dash between', `password for the admin account - ${PW}`, PW],
    ['provided:', `Incorrect API key provided: ${KEY}.`, KEY],
    ['not valid:', `API key not valid: ${KEY}`, KEY],
    ['expired:', `token expired: ${KEY}`, KEY],
    ['mismatch, expected', `secret mismatch, expected ${KEY}`, KEY],
    ['not found (got …)', `error: valid API key not found (got ${KEY})`, KEY],
    ['missing: got', `API key is missing: got '${KEY}'`, KEY],
  ]);
  keepsEach([
    ['a sentence about a password with no value', 'The admin password has been set to expire after 90 days.'],
    ['a key that was not found, named', 'API key not found (got an empty string from the environment).'],
    ['a token that expired, by when', 'token expired: at 2026-11-30T10:00:00Z the refresh failed'],
  ]);
});

describe("a password that holds the characters a URL's userinfo rarely does", () => {
  removesEach([
    ['an apostrophe, in a shell', `git push --force "https://deploy:Harb0r's-Gate!2026@git.example.com/acme/api.git"`, "Harb0r's-Gate"],
    ["an apostrophe as '\\''", `git push --force 'https://deploy:Harb0r'\\''s-Gate!2026@git.example.com/acme/api.git'`, 's-Gate!2026'],
    ['an apostrophe in a quoted DATABASE_URL', `DATABASE_URL="postgres://app:O'Brien-2026!x@db.staging.internal:5432/orders" npm test | tail -5`, 'Brien-2026'],
    ['parentheses and brackets (AWS Secrets Manager)', 'postgresql://replica:Xk9(mQ2]vL7pZw4@orders-ro.cluster-c8x2.us-east-1.rds.amazonaws.com:5432/orders', 'Xk9(mQ2]vL7pZw4'],
    ['braces inside a call', "psycopg.connect('postgresql://app:r7{Tq2Lm9}Vx4Kp@db.internal:5432/app')", 'r7{Tq2Lm9}Vx4Kp'],
  ]);
  keepsEach([
    ['a link in parentheses, then a mention', 'see (https://example.com:8080) and mail me@example.com'],
    ['a Markdown link, then a mention', '[docs](https://example.com/x) @alice said'],
    ['an autolink, then a handle', '<https://host.example.com>@bob'],
    ['a quoted URL, then an address', "curl 'https://example.com/a?b=c' -H 'X: y' user@host"],
  ]);
});

describe('a Codex command given as words, one of them holding an apostrophe', () => {
  it('is joined with double quotes, so that the redactor reads the password whole', () => {
    const joined = shellJoin(['docker', 'login', '-u', 'deploy', '-p', "Tq8'mZ2$vL7pXw4!", 'registry.example.com']);
    expect(joined).toBe(`docker login -u deploy -p "Tq8'mZ2\\$vL7pXw4!" registry.example.com`);
    for (const argv of [
      ['docker', 'login', '-u', 'deploy', '-p', "Tq8'mZ2$vL7pXw4!", 'registry.example.com'],
      ['sshpass', '-p', "Tq8'mZ2$vL7pXw4!", 'ssh', 'root@10.0.0.5', 'uptime'],
      ['mysql', '-uroot', "-pHarb0r's-Gate!2026", '-e', 'DROP DATABASE app_test'],
      ['redis-cli', '-h', 'cache.prod.internal', '-a', "Harb0r's-Gate!2026", 'PING'],
      ['curl', '-fsS', '-u', "admin:Harb0r's-Gate!2026", 'https://api.example.com/v1/health'],
      ['env', "DB_PASSWORD=Harb0r's-Gate!2026", 'npm', 'test'],
    ]) {
      const text = r.redact(shellJoin(argv)).text;
      expect(text, argv.join(' ')).not.toMatch(/mZ2|s-Gate/);
    }
  });

  it('keeps a reference written inside a double-quoted assignment', () => {
    for (const text of ['echo "PASSWORD=\\$DB_PASS"', 'docker run -e "POSTGRES_PASSWORD=${PG_PASSWORD}" postgres', `export "GREETING=it's fine"`]) expect(r.redact(text).text).toBe(text);
  });
});

describe('a destructive command whose path the shell joins from parts', () => {
  it('is described without joining the parts into a token the command never held whole', () => {
    for (const command of ['rm -rf "/tmp/ghp_Qzdd5tNtbZ""PnxNMcqNCIWIH4p7TnKmY9oVDr"', 'rm -rf /tmp/ghp_Qzdd5t\\NtbZPnxNMcqNCIWIH4p7TnKmY9oVDr']) {
      expect(destroys(command)).toBe('removed (a name the command writes in quoted or escaped parts) recursively');
    }
    expect(destroys('rm -rf "my build" dist')).toBe('removed my build dist recursively');
    expect(killedByName("pkill -f 'gh''p_Qzdd5tNtbZPnxNMcqNCIWIH4p7TnKmY9oVDr'")).toEqual([{ tool: 'pkill', name: '(a name the command writes in quoted or escaped parts)' }]);
  });
});

describe("a Claude Code turn the user interrupted, with text after the marker", () => {
  it('is redacted whole before it is cut, so that a rule that reads past the value still holds', () => {
    const secret = 'cG9zdGdyZXM6Ly9hcHBfdXNlcjp4R2tDRTc1TURvSjlwcE1VTUBkYi5wcm9kLmludGVybmFsOjU0MzIvYXBw';
    const yaml = `[Request interrupted by user for tool use]\napiVersion: v1\ndata:\n  DATABASE_URL: ${secret}\n${'  # padding line to push the kind past two hundred characters\n'.repeat(3)}kind: Secret\nmetadata:\n  name: app-db\ntype: Opaque\n`;
    const input = renderInput(transcriptFile(user('u1', 'Print the app secret'), call('k1', 'Bash', { command: 'kubectl get secret app-db -o yaml' }), result('k1', yaml, { is_error: true })));
    const state = JSON.stringify(input.state);
    expect(state).toContain('"kind":"interrupted"');
    expect(state).not.toContain(secret.slice(0, 24));
    expect(renderAll(input).handoffMd).not.toContain(secret.slice(0, 24));
  });
});
