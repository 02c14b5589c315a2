import { describe, expect, it } from 'vitest';
import { plainPrinted, printedSecrets, printsHow } from '../../src/core/redaction/printed.js';
import { call, result, say, user } from './claude-records.js';
import { kept } from './kept-helper.js';

/**
 * The thirty-eighth stop's redaction (docs/SECURITY.md): a command that names a secret's source
 * prints it in more ways than patterns can list (the thirty-second red team's bypasses that were
 * left: `xargs cat`, `find -exec cat {}`, pathlib, `node -p`, PHP, Ruby, PowerShell, `while read`,
 * a decoder); of what it prints, the generated-looking words are taken. Every value is made up.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });
const SECRET = 'Zq7vK2mPx9LwR4tYb8Nc';

describe('a command that names a secret source, printing it in a way no rule reads', () => {
  it.each([
    'ls secrets/api_token | xargs cat',
    'find secrets -name api_token -exec cat {} \\;',
    'echo -n "$(<secrets/api_token)"',
    'printf %s "$(<secrets/api_token)"',
    't=$(<secrets/api_token); echo "$t"',
    `python3 -c "from pathlib import Path; print(Path('secrets/api_token').read_text())"`,
    `python3 -c "import sys; sys.stdout.write(open('secrets/api_token').read())"`,
    `node -p "require('fs').readFileSync('secrets/api_token','utf8')"`,
    `node -e "process.stdout.write(require('fs').readFileSync('secrets/api_token'))"`,
    `powershell -c "[IO.File]::ReadAllText('secrets\\api_token')"`,
    `powershell -NoProfile -c "[Environment]::GetEnvironmentVariable('DB_PASSWORD')"`,
    'pwsh -c "(Get-Item Env:DB_PASSWORD).Value"',
    'echo WnE3dksyUVB4OUx3UjR0WWI4TmM= | base64 -di',
    'cat secrets/api_token.bak',
    `ruby -e "puts File.read('secrets/api_token')"`,
    `php -r 'echo file_get_contents("secrets/api_token");'`,
    `perl -ne 'print $1 if /^STRIPE_KEY=(.*)/' .env`,
    'while IFS== read -r k v; do [ "$k" = STRIPE_KEY ] && echo "$v"; done < .env',
    'set -a; . ./.env; printf "$STRIPE_KEY"',
    // A part of a name matches several variables' lines, secrets among them.
    `awk -F= '/STRIPE/{print $2}' deploy/prod.env`,
  ])('%s: its generated-looking output is kept nowhere, nor where the agent repeats it', (command) => {
    expect(printsHow(command)).not.toBeNull();
    const all = kept(user('u1', 'check the deploy config'), bash('b1', command), result('b1', `${SECRET}\n`), say('a1', `I will use ${SECRET} now.`));
    expect(all).not.toContain(SECRET);
    expect(all).toContain('[REDACTED:printed_secret]');
  });

  it('of what it prints, a written word, a version, a path or a git commit is kept', () => {
    const sha = 'e83c5163316f89bfbde7d9ab23ca2e25604af290';
    const all = kept(
      user('u1', 'is main in sync?'),
      bash('b1', 'curl -s -H "Authorization: token $GITHUB_TOKEN" https://api.github.com/repos/acme/web/commits/main | jq -r .sha'),
      result('b1', `${sha}\n`),
      bash('b2', 'ls -la secrets/'),
      result('b2', 'api_token\ndb_password\nREADME.md\n'),
      bash('b3', 'docker compose --env-file .env.production up -d'),
      result('b3', 'Container app-web-1 Started\nContainer app-db-1 Running 2.14.3-rc1\n'),
      say('a1', `origin/main is at ${sha}; web runs 2.14.3-rc1 from app-web-1; secrets/ holds db_password.`),
    );
    expect(all).toContain(`origin/main is at ${sha}; web runs 2.14.3-rc1 from app-web-1; secrets/ holds db_password.`);
    expect(all).not.toContain('[REDACTED:printed_secret]');
  });

  it.each([
    // Read, and found to print no secret: these stay as they were.
    ['cut -d= -f1 .env', null],
    [`awk -F= '{print $1}' .env`, null],
    [`awk -F= '/APP_VERSION/{print $2}' .env`, null],
    ['echo "$DB_PASSWORD" | docker login -u me --password-stdin', null],
    // Names nothing secret.
    ['cat src/auth/token.ts | head -5', null],
    ['ls -la', null],
    ['grep -rn API_KEY_ID src/', null],
    // Names a secret's source: what it prints is read.
    ['ls secrets/api_token | xargs cat', 'mentioned'],
    ['grep -c . .env.local', 'mentioned'],
  ])('%s prints %s', (command, how) => {
    expect(printsHow(command)).toBe(how);
  });
});

describe("the thirty-eighth red team: a source used is not printed, and ids are not secrets", () => {
  it.each([
    ['stripe customers list --api-key $STRIPE_SECRET_KEY --limit 1 | jq -r ".data[0].id"', 'cus_Q2wE3rT4yU5iO6'],
    ['PGPASSWORD="$DB_PASSWORD" psql -h db.internal -U app -tAc "select id from orders limit 1"', '01HXZ3K9M2Q7R8S4T5V6W7X8Y9'],
    ['source .env && npm run deploy', 'dpl_7Hq2LmX9vRtB4wZp8KcY'],
    ['docker compose --env-file .env.prod ps --format "{{.ID}}"', 'f3a9c2e1b7d4K8m2'],
    ['node --env-file=.env.local scripts/create-admin.mjs', 'user_2aB3cD4eF5gH6iJ7kL8'],
    ['md5sum secrets/api_token secrets/api_token.bak', '9e107d9d372bb6826bd81d3542a419d6'],
    ['pwsh -c "(Get-FileHash .\\secrets\\api_token.txt).Hash"', 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855'],
    ['GH_TOKEN=$(cat secrets/gh_token) gh api repos/acme/api/releases/latest --jq .node_id', 'RE_kwDOJxYz1M4H2k9Q'],
    ['export NPM_TOKEN=$(cat secrets/npm_token) && npm publish --access public 2>&1 | tail -1', 'acme-sdk-2.14.3-rc1Xq9'],
    ['cat secrets/registry_password.txt | docker login ghcr.io -u ci --password-stdin && docker push ghcr.io/acme/api:1.4.2 | tail -1', 'Zx8Kq2Lm9PvR4tYb7NcW'],
    ['curl -s -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user | jq -r .node_id', 'MDQ6VXNlcjE4NzQ2MjM5'],
  ])('%s: what it prints is kept (%s)', (command, value) => {
    const all = kept(user('u1', 'deploy it'), bash('b1', command), result('b1', `${value}\n`), say('a1', `Done: ${value} is the one.`));
    expect(all).toContain(`Done: ${value} is the one.`);
  });

  it.each([
    'printenv STRIPE_SECRET_KEY | cat',
    'printenv STRIPE_SECRET_KEY | tee /dev/tty',
    'printenv STRIPE_SECRET_KEY | xargs',
    'pwsh -NoProfile -Command "Get-Content -Raw secrets\\api_token.txt | Write-Output"',
    `Rscript -e 'print(readLines("secrets/api_token"))'`,
    `node -e "console.log(JSON.stringify([require('fs').readFileSync('secrets/api_token','utf8').trim()]))"`,
    't=$(cat secrets/api_token); echo "$t"',
  ])('%s still prints the secret', (command) => {
    const out = command.startsWith('Rscript') ? `[1] "${SECRET}"` : command.startsWith('node') ? `["${SECRET}"]` : SECRET;
    const all = kept(user('u1', 'check the token'), bash('b1', command), result('b1', `${out}\n`), say('a1', `I will use ${SECRET} now.`));
    expect(all).not.toContain(SECRET);
  });
});

describe('what a secret-printing command prints, read whole', () => {
  it('a `[sudo]` prompt before it, or brackets around it, is no JSON document', () => {
    expect(printedSecrets(`[sudo] password for dev: \n${SECRET}`)).toContain(SECRET);
    expect(printedSecrets(`[${SECRET}]`)).toContain(SECRET);
    expect(printedSecrets('[{"id": "x"}]')).toEqual([]);
    expect(printedSecrets('{"id": "q7Lm2XvR9tBw4KzP8nYc"}')).toEqual([]);
    expect(printedSecrets('[\n  "a"\n]')).toEqual([]);
    // An array of values, or R's vector, names none.
    expect(printedSecrets(`["${SECRET}"]`)).toEqual([SECRET]);
    expect(printedSecrets(`[1] "${SECRET}"`)).toEqual([SECRET]);
  });

  it("`cat -A`'s `$` at a line's end is no part of the secret", () => {
    expect(printedSecrets(`${SECRET}$`)).toEqual([`${SECRET}$`, SECRET]);
    const all = kept(user('u1', 'check the token'), bash('b1', 'cat -A secrets/api_token'), result('b1', `${SECRET}$\n`), say('a1', `It is ${SECRET}.`));
    expect(all).not.toContain(SECRET);
  });

  it('a word whose dot is followed by mixed case ends in no extension', () => {
    expect(printedSecrets('k9Xq2LmPzR.vTbnWq')).toEqual(['k9Xq2LmPzR.vTbnWq']);
    expect(printedSecrets('secrets-v2.yaml')).toEqual([]);
    expect(printedSecrets('BACKUP2024.TAR')).toEqual([]);
  });
});

describe('a secret of plain words printed alone', () => {
  it.each([
    ['printenv DB_PASSWORD', 'correct-horse-battery-staple'],
    ['cat secrets/db_password', 'Tr0ubadour-and-friends'],
    ['cat secrets/db_password', 'bluemoonrisingslowly'],
  ])('%s printing %s: kept nowhere, nor where the agent repeats it', (command, secret) => {
    const all = kept(user('u1', 'connect to the db'), bash('b1', command), result('b1', `${secret}\n`), say('a1', `Password is ${secret}.`));
    expect(all).not.toContain(secret);
  });

  it('only a line that is one word, with a sign or a digit or 12 letters, and only in secret mode', () => {
    expect(plainPrinted('correct-horse-battery-staple')).toEqual(['correct-horse-battery-staple']);
    expect(plainPrinted('password')).toEqual([]);
    expect(plainPrinted('production')).toEqual([]);
    expect(plainPrinted('two words here')).toEqual([]);
    expect(plainPrinted('/run/secrets/db-pass')).toEqual([]);
    expect(plainPrinted('first-line\nsecond-line')).toEqual([]);
    // A command that names a secret's source but prints an ordinary name keeps it.
    const all = kept(user('u1', 'which env?'), bash('b1', 'ls secrets/api_token | xargs basename'), result('b1', 'deploy-production\n'), say('a1', 'It is deploy-production.'));
    expect(all).toContain('It is deploy-production.');
  });
});

describe('a secret that reaches the session by another call', () => {
  it("a background shell's output, polled by BashOutput, is read as the shell's", () => {
    const all = kept(
      user('u1', 'check the token'),
      call('b1', 'Bash', { command: 'sleep 1; cat secrets/api_token', run_in_background: true, description: 'bg' }),
      result('b1', 'Command running in background with ID: bash_1'),
      call('p1', 'BashOutput', { bash_id: 'bash_1' }),
      result('p1', `<status>completed</status>\n<exit_code>0</exit_code>\n<stdout>\n${SECRET}\n</stdout>`),
      say('a1', `I will use ${SECRET} now.`),
    );
    expect(all).not.toContain(SECRET);
    // A poll of another shell is not.
    const other = kept(
      user('u1', 'check the token'),
      call('b1', 'Bash', { command: 'sleep 1; cat secrets/api_token', run_in_background: true, description: 'bg' }),
      result('b1', 'Command running in background with ID: bash_1'),
      call('p1', 'BashOutput', { bash_id: 'bash_2' }),
      result('p1', '<status>completed</status>\n<stdout>\nbuild-7f3a9Xq2LmPzR4tY\n</stdout>'),
      say('a1', 'The build is build-7f3a9Xq2LmPzR4tY.'),
    );
    expect(other).toContain('The build is build-7f3a9Xq2LmPzR4tY.');
  });

  it("a secret file read by Claude Code's Read, its line number before it, and a copy of one", () => {
    for (const path of ['/w/secrets/api_token', '/w/secrets/api_token.bak']) {
      const all = kept(user('u1', 'check the token'), call('r1', 'Read', { file_path: path }), result('r1', `     1→${SECRET}\n`), say('a1', `It is ${SECRET}.`));
      expect(all).not.toContain(SECRET);
    }
  });
});

describe("a Codex command's output that comes by write_stdin", () => {
  const meta = { timestamp: '2026-02-23T11:48:09Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
  const exec = (id: string, cmd: string) => item({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd, yield_time_ms: 1000 }), call_id: id });
  const poll = (id: string, session: number) => item({ type: 'function_call', name: 'write_stdin', arguments: JSON.stringify({ session_id: session, chars: '', yield_time_ms: 3000 }), call_id: id });
  const out = (id: string, header: string, text: string) => item({ type: 'function_call_output', call_id: id, output: `Chunk ID: 1a2b\nWall time: 1.0 seconds\n${header}\nOriginal token count: 9\nOutput:\n${text}` });
  const reply = (text: string) => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });

  it("is read as the session's command's: a secret it prints is masked", () => {
    const all = kept(meta, exec('c1', 'sleep 2; cat secrets/api_token'), out('c1', 'Process running with session ID 7', ''), poll('c2', 7), out('c2', 'Process exited with code 0', `${SECRET}\n`), reply(`I will use ${SECRET} now.`));
    expect(all).not.toContain(SECRET);
    const other = kept(meta, exec('c1', 'sleep 2; cat secrets/api_token'), out('c1', 'Process running with session ID 7', ''), poll('c2', 8), out('c2', 'Process exited with code 0', 'build-7f3a9Xq2LmPzR4tY\n'), reply('The build is build-7f3a9Xq2LmPzR4tY.'));
    expect(other).toContain('The build is build-7f3a9Xq2LmPzR4tY.');
  });
});
