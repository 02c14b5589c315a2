import { describe, expect, it } from 'vitest';
import { printedSecrets, printsSecret, readsSecretFile, writtenSecrets } from '../../src/core/redaction/printed.js';
import { call, result, say, user } from './claude-records.js';
import { kept } from './kept-helper.js';

/**
 * The twenty-ninth red team (docs/SECURITY.md): a command whose whole output is the secret
 * (`printenv DB_PASSWORD` → `Summer2024!#x`) left nothing in that output for the redactor to know
 * it by, which reads a tool's output apart from its command. Every value below is made up.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });

/** A Codex session's first line, and a response item. */
const codexMeta = { timestamp: '2026-05-02T10:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.125.0', originator: 'codex_cli_rs' } };
const codexItem = (payload: Record<string, unknown>) => ({ timestamp: '2026-05-02T10:00:10Z', type: 'response_item', payload });

describe('a command that prints a secret alone', () => {
  it.each([
    ['printenv DB_PASSWORD', 'Summer2024!#x'],
    ['echo "$GITHUB_TOKEN"', 'p@ss-W0rd.2026'],
    ['jq -r .password creds.json', 'Tr0ub4dor&3xyz'],
    ["yq '.db.password' config.yml", 'Winter#2025secure'],
    ['wg genkey', 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk='],
    ['cat ~/.vault-token', 'Xq4LrT9vKp2ZmW8nYb3cJd7F'],
    ["kubectl get secret db -o jsonpath='{.data.password}' | base64 -d", 'S3cr3tP@ssw0rd!2026'],
    ['git config --get github.token', '4f9b2c7e1a8d3f6b0e5c9a2d7f1b4e8c3a6d9f2b'],
    ["grep -h '^STRIPE' .env | cut -d= -f2", 'hN7qL2mX9vRtB4wZp8KcY3sF'],
    ['gcloud secrets versions access latest --secret=stripe-webhook', 'hN7qL2mX9vRtB4wZp8KcY3sF'],
    ['echo %DB_PASSWORD%', 'Blue!Moon#Rising88'],
    ['node -e "console.log(process.env.API_TOKEN)"', 'q7Lm2XvR9tBw4KzP8nYc'],
  ])('%s: its output is kept nowhere, nor where the agent repeats it', (command, secret) => {
    const all = kept(user('u1', 'check the deploy config'), bash('b1', command), result('b1', `${secret}\n`), say('a1', `The value is ${secret}; I will use it.`));
    expect(all).not.toContain(secret);
    expect(all).toContain('[REDACTED:printed_secret]');
  });

  it('in a Codex session too, whose output is JSON in a JSON string', () => {
    const all = kept(
      codexMeta,
      codexItem({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'check the key' }] }),
      codexItem({ type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', 'printenv STRIPE_SECRET_KEY'] }), call_id: 'call_1' }),
      codexItem({ type: 'function_call_output', call_id: 'call_1', output: JSON.stringify({ output: 'Gr33nT3a&Biscuits\n', metadata: { exit_code: 0 } }) }),
    );
    expect(all).not.toContain('Gr33nT3a&Biscuits');
  });

  it('read by the Read tool from a file whose name says it holds one', () => {
    const all = kept(user('u1', 'check'), call('r1', 'Read', { file_path: '/home/dev/app/.vault_pass' }), result('r1', '     1\tBlue!Moon#Rising88'));
    expect(all).not.toContain('Blue!Moon#Rising88');
  });

  it('written into such a file by the Write tool', () => {
    const all = kept(user('u1', 'store the password'), call('w1', 'Write', { file_path: '/home/dev/app/secrets/db_password.txt', content: 'hunter2-prod-DB!\n' }), result('w1', 'File created successfully at: /home/dev/app/secrets/db_password.txt'), say('a1', 'Saved hunter2-prod-DB! there.'));
    expect(all).not.toContain('hunter2-prod-DB!');
  });

  it('written into such a file from a here-document', () => {
    const all = kept(user('u1', 'store the key'), bash('b1', "mkdir -p secrets && cat > secrets/api_key <<'EOF'\nq7Lm2XvR9tBw4KzP8nYc\nEOF"), result('b1', ''));
    expect(all).not.toContain('q7Lm2XvR9tBw4KzP8nYc');
  });

  it('leaves alone what a command that prints no secret printed, and a region a secret command printed', () => {
    const all = kept(
      user('u1', 'check'),
      bash('b1', 'printenv PATH'),
      result('b1', '/usr/local/bin:/usr/bin'),
      bash('b2', 'cat README.md'),
      result('b2', 'Build with node20 and pnpm9'),
      bash('b3', 'heroku config:get REGION'),
      result('b3', 'us-east-1'),
      say('a1', 'Built with node20 in us-east-1.'),
    );
    expect(all).toContain('Build with node20 and pnpm9');
    expect(all).toContain('Built with node20 in us-east-1.');
    expect(all).not.toContain('printed_secret');
  });
});

describe('what says a command prints a secret', () => {
  it('is the variable, the field or the file it names, not any word', () => {
    for (const c of ['printenv DB_PASSWORD', 'echo $API_KEY', 'echo "${NPM_TOKEN}"', "jq -r '.auth.token' x.json", 'cat secrets/db_password.txt', 'terraform output -raw db_password', 'aws ssm get-parameter --name /p --with-decryption']) expect(printsSecret(c), c).toBe(true);
    for (const c of ['printenv PATH', 'echo $HOME', 'jq -r .name package.json', 'cat src/token.ts', 'cat README.md', 'git config --get user.email', 'echo $AUTHOR']) expect(printsSecret(c), c).toBe(false);
    expect(readsSecretFile('/app/config/master.key')).toBe(true);
    expect(readsSecretFile('/app/src/password_reset.py')).toBe(false);
    expect(writtenSecrets("cat > notes.txt <<'EOF'\nq7Lm2XvR9tBw4KzP8nYc\nEOF")).toEqual([]);
  });

  it('takes the words with a letter and a digit, or generated-looking, from a short output only', () => {
    expect(printedSecrets('Summer2024!#x\n')).toEqual(['Summer2024!#x']);
    expect(printedSecrets('hello world')).toEqual([]);
    expect(printedSecrets(Array.from({ length: 8 }, (_, i) => `line${i}abcdef`).join('\n'))).toEqual([]);
  });
});

describe('a secret only its label gave away, repeated bare later', () => {
  it('is masked where the agent repeats it, a full stop after it or not', () => {
    const all = kept(
      user('u1', 'wire the webhook'),
      call('r1', 'Read', { file_path: '/home/dev/app/.env' }),
      result('r1', '     1\tSTRIPE_WEBHOOK_SECRET=hN7qL2mX9vRtB4wZp8KcY3sF'),
      say('a1', 'I will now test the webhook with hN7qL2mX9vRtB4wZp8KcY3sF.'),
      say('a2', 'Sent it as (hN7qL2mX9vRtB4wZp8KcY3sF) in the header'),
    );
    expect(all).not.toContain('hN7qL2mX9vRtB4wZp8KcY3sF');
    expect(all).toContain('with [REDACTED:labelled_secret].');
  });

  it('leaves the rest of the text as it was', () => {
    const all = kept(user('u1', 'wire it'), call('r1', 'Read', { file_path: '/home/dev/app/.env' }), result('r1', '     1\tDB_PASSWORD=Autumn-Leaves-77'), say('a1', 'Deployed release v2026.05 to staging-eu1 at 10:42.'));
    expect(all).toContain('Deployed release v2026.05 to staging-eu1 at 10:42.');
  });
});

describe('what is not taken for a secret printed alone (the skeptic of the twenty-ninth red team)', () => {
  it('is the output of a command that uses a secret without printing it', () => {
    const all = kept(
      user('u1', 'list the models'),
      bash('b1', 'curl -s https://api.openai.com/v1/models -H "Authorization: Bearer $OPENAI_API_KEY" | jq -r .data[0].id'),
      result('b1', 'gpt-4o-2024-08-06'),
      bash('b2', 'echo "$REGISTRY_PASSWORD" | docker login registry.acme.io -u ci --password-stdin && docker push registry.acme.io/web:build2024-42'),
      result('b2', 'Login Succeeded\nbuild2024-42: digest: sha256:9f86d0 size: 1570'),
      say('a1', 'Pinned gpt-4o-2024-08-06 and pushed build2024-42.'),
    );
    expect(all).toContain('Pinned gpt-4o-2024-08-06 and pushed build2024-42.');
  });

  it('is a file about tokens, a log line\'s time, a name that says where a secret is', () => {
    const all = kept(
      user('u1', 'check'),
      call('r1', 'Read', { file_path: '/w/src/lexer/token.h' }),
      result('r1', '     1\ttypedef uint32_t token_id;'),
      bash('b1', 'tail -n 1 logs/token-refresh.log'),
      result('b1', '2026-05-01T10:02:13Z refreshed ok'),
      bash('b2', 'echo $SECRET_NAME'),
      result('b2', 'prod/db-credentials-v2'),
      say('a1', 'uint32_t ids; at 2026-05-01T10:05:00Z the secret prod/db-credentials-v2 was read.'),
    );
    expect(all).toContain('uint32_t ids; at 2026-05-01T10:05:00Z the secret prod/db-credentials-v2 was read.');
  });

  it('but a secret after the lines Codex writes around an exec session\'s output is one', () => {
    const all = kept(
      codexMeta,
      codexItem({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'check the key' }] }),
      codexItem({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'printenv STRIPE_SECRET_KEY' }), call_id: 'call_1' }),
      codexItem({ type: 'function_call_output', call_id: 'call_1', output: 'Chunk ID: 1a2b\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 6\nOutput:\nGr33nT3a&Biscuits\n' }),
    );
    expect(all).not.toContain('Gr33nT3a&Biscuits');
  });

  it('and a Write of a secret file whose secret follows a JSON-escaped line break', () => {
    const all = kept(user('u1', 'store it'), call('w1', 'Write', { file_path: '/w/secrets/db_password.txt', content: '# prod\nSummer2024!#x\n' }), result('w1', 'File created successfully at: /w/secrets/db_password.txt'));
    expect(all).not.toContain('Summer2024!#x');
  });
});
