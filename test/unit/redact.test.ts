import { describe, expect, it } from 'vitest';
import { jsonErrorReason } from '../../src/core/ingest.js';
import { Redactor, redactJsonText, redactName, unsafePatternReason } from '../../src/core/redact.js';
import { decodedView } from '../../src/core/redaction/view.js';
import { fakeSecrets, leaksOf, valuesOf } from '../fake-secrets.js';

const redactor = new Redactor();
const SECRETS = fakeSecrets();

/** The same credential as it reaches the redactor from different places of a transcript. */
const CONTEXTS: [string, (text: string) => string][] = [
  ['mid-sentence', (t) => `Use this: ${t} and tell me when it works.`],
  ['at the start of a line inside JSON-escaped text', (t) => `Write ${JSON.stringify({ file_path: '/srv/app/.env', content: `# creds\n${t}\n` })}`],
  ['a heredoc in a shell command', (t) => `cat > .env <<'EOF'\n${t}\nEOF\nnpm run deploy`],
  ['a tool result that is itself JSON', (t) => JSON.stringify({ stdout: `${t}\n`, stderr: '', exit: 0 })],
  ['JSON inside JSON', (t) => JSON.stringify({ arguments: JSON.stringify({ cmd: `printf '%s\\n' "${t}"` }) })],
  ['quotes', (t) => `"${t}"`],
  ['a Codex shell output', (t) => `Process exited with code 0\nOutput:\n${t}\n`],
];

const cases = SECRETS.flatMap((s) => CONTEXTS.map(([where, wrap]) => [s.name, where, s, wrap] as const));

describe('the redactor removes every kind of credential, wherever it stands', () => {
  it.each(cases)('%s, in %s', (_name, where, secret, wrap) => {
    const out = redactor.redact(wrap(secret.text));
    expect(leaksOf(out.text, [secret], where)).toEqual([]);
    expect(out.text).toContain(`[REDACTED:${secret.kind}]`);
    expect(out.count).toBeGreaterThanOrEqual(valuesOf(secret).length);
  });

  it.each(SECRETS.filter((s) => s.text === s.value).map((s) => [s.name, s] as const))('%s in a URL query', (_name, secret) => {
    const out = redactor.redact(`curl "https://api.example.com/v1/items?access=${secret.value}&page=2"`);
    expect(leaksOf(out.text, [secret], 'a URL')).toEqual([]);
  });

  it('keeps the text around a secret, replacing only the value', () => {
    const s = SECRETS.find((x) => x.name === 'a password in a URL');
    expect(redactor.redact(`psql ${s?.text ?? ''} -c 'select 1'`).text).toBe("psql postgres://app:[REDACTED:url_password]@db.internal:5432/app -c 'select 1'");
  });

  it('counts each credential once, however many rules find it', () => {
    const r = redactor.redact(SECRETS.map((s) => s.text).join('\n'));
    expect(r.count).toBe(SECRETS.reduce((n, s) => n + valuesOf(s).length, 0));
  });

  it('changes nothing when it runs again over its own output', () => {
    for (const [, wrap] of CONTEXTS) {
      const once = redactor.redact(wrap(SECRETS.map((s) => s.text).join('\n'))).text;
      expect(redactor.redact(once)).toEqual({ text: once, count: 0 });
    }
  });

  it('cuts a credential out of JSON-encoded text as whole escape sequences, leaving valid JSON', () => {
    const secret = SECRETS.find((s) => s.name === 'an AWS secret key in an env line');
    const encoded = JSON.stringify({ content: `a\n${secret?.text.replace(/\//g, '\\/') ?? ''}\n` });
    const out = redactor.redact(encoded);
    expect(JSON.parse(out.text)).toEqual({ content: 'a\nAWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_access_key]\n' });
  });

  it('answers a long text seen again exactly as it answered it the first time, and never for another text', () => {
    const s = SECRETS.find((x) => x.name === 'an AWS secret key in an env line')?.text ?? '';
    const pad = 'ordinary output line\n'.repeat(20);
    // Same length, one with the credential and one without: only the text itself may decide.
    const withSecret = `${pad}${s}\n`;
    const without = `${pad}${'x'.repeat(s.length)}\n`;
    const r = new Redactor();
    for (const text of [withSecret, withSecret, without, withSecret, without, without, `${withSecret}`.slice(0)]) {
      expect(r.redact(text)).toEqual(new Redactor().redact(text));
    }
    expect(r.redact(withSecret).count).toBe(1);
    expect(r.redact(without).count).toBe(0);
  });

  it('finds a short credential whose rule literal shows only once its escapes are read', () => {
    // The raw text holds no literal any rule starts from: the first character is a \u escape.
    const short = SECRETS.filter((s) => s.text.length < 150 && /^[\x21-\x7e]/.test(s.text));
    expect(short.length).toBeGreaterThan(5);
    for (const s of short) {
      const escaped = `\\u${s.text.charCodeAt(0).toString(16).padStart(4, '0')}${s.text.slice(1)}`;
      for (const text of [escaped, JSON.stringify(escaped).slice(1, -1)]) {
        const out = new Redactor().redact(text);
        expect(leaksOf(out.text, [s], 'escaped')).toEqual([]);
        expect(out.count).toBeGreaterThan(0);
      }
    }
  });

  it('applies a pattern from config to a short text that no built-in rule would read', () => {
    expect(new Redactor([{ name: 'employee_id', pattern: '\\bEMP-[0-9]{6}\\b' }]).redact('EMP-123456')).toMatchObject({ text: '[REDACTED:employee_id]', count: 1 });
  });

  it('still folds a long base64 run that holds no credential into a size note', () => {
    const run = Array.from({ length: 40 }, (_, i) => `Qm9keV${i}pbmc${(i * 7919).toString(36)}XzAx`).join('');
    expect(run.length).toBeGreaterThan(600);
    expect(new Redactor().redact(`data ${run}`).text).toMatch(/^data \[base64: \d+ (?:bytes|KB) omitted\]$/);
  });

  it('leaves ids, timestamps, tool names and paths that hold nothing as they are', () => {
    const r = new Redactor();
    const texts = ['toolu_01ABCdefGHIjklMNOpqrSTU', '2026-01-01T10:00:00.000Z', 'call_Zx9vQ2mN8bL4kJ7hG6fD5sA3', '3f2a9c4e-1b7d-4e8a-9c2f-6d5b4a3e2f1c', 'Bash', 'src/core/redact.ts'];
    for (const t of texts) {
      expect(r.redact(t)).toEqual({ text: t, count: 0 });
      expect(r.find(t)).toEqual([]);
    }
  });

  it('applies patterns from config to the decoded text, tagged with their name', () => {
    const r = new Redactor([{ name: 'employee_id', pattern: '\\bEMP-[0-9]{6}\\b' }]).redact(JSON.stringify({ text: 'ticket\nEMP-123456 is open' }));
    expect(r).toMatchObject({ text: JSON.stringify({ text: 'ticket\n[REDACTED:employee_id] is open' }), count: 1 });
  });
});

describe('the redactor leaves ordinary text and code alone', () => {
  const hex = (n: number): string => Array.from({ length: n }, (_, i) => '0123456789abcdef'[(i * 7 + 3) % 16]).join('');
  it.each([
    ['a token limit', 'max_tokens=100'],
    ['a usage counter in JSON', '"input_tokens": 123, "output_tokens": 45'],
    ['a placeholder for a password', 'password: ${PASSWORD}'],
    ['an angle-bracket placeholder', 'API_KEY=<your key here>'],
    ['a masked value', 'password: ********'],
    ['a token a CLI prints masked', `  - Token: gho_${'*'.repeat(36)}`],
    ['a typed field', 'token: string;'],
    ['an optional typed field', 'password?: string'],
    ['an empty secret', '"password": ""'],
    ['a boolean flag', 'use_token: true'],
    ['prose about tokens and passwords', 'The token refresh runs hourly, and the password policy asks for twelve characters.'],
    ['"pass" in prose', 'Produce all variants in one pass. (file: /Users/dev/.codex/plugins/cache/remote/canva/9.0.0/skills/resize)'],
    ['a git sha', 'HEAD is 3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a098 on main'],
    ['a uuid', 'session 0d3a8e6f-290f-4105-a327-a2496e5e2a83 resumed'],
    ['a Codex session id after a verdict', 'PASS rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9 [manifest, chain]'],
    ["a subagent's session id after a verdict", 'PASS 0d3a8e6f-290f-4105-a327-a2496e5e2a83.agent-a4ca7529859c158c2 [manifest]'],
    ['a URL without a password', 'fetch https://user@example.com/path?q=1 and https://example.com:8443/x'],
    ['words that start like key prefixes', 'risk-assessment, task-runner, desk-booking and AKIA are fine'],
    ['a short Bearer word in prose', 'the Bearer scheme is described in RFC 6750'],
    ['a type annotation', 'token_parts: List[str] = []'],
    ['a variable passed under its own name', '"token_summary": token_summary,'],
    ['the same, inside JSON-encoded text', JSON.stringify({ content: '{"token_summary": token_summary}' })],
    ['an attribute of the same name', 'api_key=self.api_key'],
    ['a call', 'password = getpass("Password: ")'],
    ['an environment lookup', 'secret = os.environ["SECRET"]'],
    ['a tokenizer', 'const tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")'],
    ['a token from a call', 'const token = getToken()'],
    ['a setter signature', 'setToken: (token: string | null) => void;'],
    ['a struct field shorthand followed by another field', '        api_token,\n        market: live.market.clone(),\n'],
    ['fetch credentials mode', "fetch(url, { credentials: 'include' })"],
    ['the working directory variable', 'PWD=/home/dev/app\nOLDPWD=/home/dev'],
    ['a token type', '"token_type": "Bearer", "expires_in": 3600'],
    ['an author', 'author: "Jane Doe <jane@example.com>"'],
    ['a cache key in a CI log', `Cache restored from key: setup-uv-1-x86_64-unknown-linux-gnu-0.7.13-${hex(64)}`],
    ['a primary key', 'primaryKey: "id", sortKey: "created_at"'],
    ['a public address named like a key', '"trading_key": "2KW2XRd9kwqet15Aha2oK3tYvd3nWbTFH1MBiRAv1BE1"'],
    ['placeholder values in credential slots', 'EDGERUNNER_CONTROL_TOKEN=replace-me\nX-Api-Token: local-demo\nTELEGRAM_BOT_TOKEN=your_token_here'],
    ['a secret taken from CI secrets', 'token: ${{ secrets.GITHUB_TOKEN }}'],
    ['an env list entry filled from CI secrets', '- name: GITHUB_TOKEN\n  value: ${{ secrets.GITHUB_TOKEN }}'],
    ['a name/value record whose value is code', 'name: token\nvalue: getToken()'],
    ['a header with a variable', 'curl -H "Authorization: Bearer $TOKEN" -u "$USER:$PASS" https://x'],
    ['mysql asking for the password', 'mysql -u root -p app'],
    ['a password piped from a variable', 'echo "$PW" | docker login -u me --password-stdin'],
    ['a parser that mentions a key marker', 'if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):\n    in_key = True'],
    ['a certificate', ['-----BEGIN CERTIFICATE-----', ...Array.from({ length: 4 }, (_, i) => `MIIB${'aB3dE5gH7jK9'.repeat(5)}${i}xYz`), '-----END CERTIFICATE-----'].join('\n')],
    ['a base64 line that is not a key', 'data: SGVsbG8sIHRoaXMgaXMganVzdCBhIGdyZWV0aW5nIGluIGJhc2U2NA=='],
  ])('%s', (_name, text) => {
    expect(redactor.redact(text)).toEqual({ text, count: 0 });
  });
});

describe('an id around one UUID is kept; a secret that holds a UUID is not', () => {
  it.each([
    ['a random rest beside the UUID', 'the secret is 9fQ2mZp7LwR4tYxK-0d3a8e6f-290f-4105-a327-a2496e5e2a83'],
    ['two UUIDs joined', 'the secret is 0d3a8e6f-290f-4105-a327-a2496e5e2a83-1e4b9f70-391a-4216-b438-b3a7f6f3b194'],
    ['a random suffix', 'api key 0d3a8e6f-290f-4105-a327-a2496e5e2a83.xK9fQ2mZp7LwR4tY'],
    ['a short random suffix', 'the secret is 0d3a8e6f-290f-4105-a327-a2496e5e2a83-Xk9fQ2mZp7'],
    ['a short lower-case random suffix', 'the secret is 0d3a8e6f-290f-4105-a327-a2496e5e2a83-xk9fq2mzp7'],
  ])('%s', (_name, text) => {
    expect(redactor.redact(text).count).toBe(1);
  });
});

describe('name rules: a value must look like a literal, not an identifier or a call', () => {
  it.each([
    ['a quoted literal that looks like code', '"password": "List[str]"', '"password": "[REDACTED:secret_assignment]"'],
    ['a password that merely contains its key word', 'DB_PASSWORD=mypassword1', 'DB_PASSWORD=[REDACTED:secret_assignment]'],
    ['a plain word as an env password', 'PASSWORD=hunter', 'PASSWORD=[REDACTED:secret_assignment]'],
    ['a string literal assigned in code', 'token = "a9F3kQ7zLm2Xp8Rt"', 'token = "[REDACTED:secret_assignment]"'],
    ['a keyword argument given a literal', 'connect(password="s3cr3t-Pa55", host=h)', 'connect(password="[REDACTED:secret_assignment]", host=h)'],
    ['an XML element', '<password>Tr0ub4dor&amp;3</password>', '<password>[REDACTED:secret_assignment]</password>'],
    ['a NuGet clear-text password', '<add key="ClearTextPassword" value="n0tS0S3cret!" />', '<add key="ClearTextPassword" value="[REDACTED:secret_assignment]" />'],
    ['a dotted config key', 'spring.datasource.password=Sup3rS3cret', 'spring.datasource.password=[REDACTED:secret_assignment]'],
    ['a flag with =', 'deploy --api-key=Zx8Qw2Lm4Np6Rt8Vx0Yb2Cd', 'deploy --api-key=[REDACTED:secret_assignment]'],
    ['a Kubernetes env list', 'env:\n  - name: DB_PASSWORD\n    value: Hunter2xyz\n  - name: LOG_LEVEL\n    value: debug', 'env:\n  - name: DB_PASSWORD\n    value: [REDACTED:secret_assignment]\n  - name: LOG_LEVEL\n    value: debug'],
    ['a JSON name/value record', '[{"name":"STRIPE_SECRET","value":"s3cr3t-Pa55-w0rd"}]', '[{"name":"STRIPE_SECRET","value":"[REDACTED:secret_assignment]"}]'],
  ])('%s', (_name, text, want) => {
    expect(redactor.redact(text)).toMatchObject({ text: want, count: 1 });
  });
});

describe('private key material in its other shapes', () => {
  const body = (n: number, seed: string): string[] => Array.from({ length: n }, (_, i) => `${seed}${i}`.padEnd(64, `${seed}Zq9`).slice(0, 64));
  it.each([
    ['a key flattened to one line', () => `KEY="-----BEGIN PRIVATE KEY----- ${body(3, 'MIIEvQIBADAN').join(' ')} -----END PRIVATE KEY-----"`],
    ['an OpenSSH key', () => ['-----BEGIN OPENSSH PRIVATE KEY-----', ...body(4, 'b3BlbnNzaC1r'), '-----END OPENSSH PRIVATE KEY-----'].join('\n')],
    ['the first lines of a key (head -n 3)', () => ['-----BEGIN EC PRIVATE KEY-----', ...body(2, 'MHcCAQEEIBk4')].join('\n')],
    ['the last lines of a key (tail -n 2)', () => [`${body(1, 'Xy7pQ2mK9aB')[0] ?? ''}`, '-----END RSA PRIVATE KEY-----'].join('\n')],
    ['a PuTTY key file', () => ['PuTTY-User-Key-File-3: ssh-ed25519', 'Private-Lines: 1', body(1, 'AAAAIGx0Zm9v')[0] ?? '', 'Private-MAC: 0a1b'].join('\n')],
    // No marker and no literal any rule starts from: only the line pass over key bodies sees it.
    ['a key body printed without its markers', () => body(4, 'MIIEvQIBADAN').join('\n')],
  ])('%s', (_name, make) => {
    const text = make();
    const out = redactor.redact(text);
    expect(out.text).toContain('[REDACTED:private_key]');
    for (const line of text.split(/[\s"]+/).filter((l) => /^[A-Za-z0-9+/]{40,}$/.test(l))) expect(out.text).not.toContain(line);
  });
});

describe('a private key given as the value of a "password" field of JSON inside a JSON string', () => {
  const keys = SECRETS.filter((s) => s.kind === 'private_key' && s.value.includes('\n'));
  const shapes: [string, (s: (typeof keys)[number]) => string][] = [
    ['its body', (s) => s.value],
    ['the whole PEM', (s) => s.text],
  ];
  const nestings: [string, (inner: string) => string][] = [
    ['in a tool input', (inner) => JSON.stringify({ tool: 'login', input: inner })],
    ['in a tool input escaped once more', (inner) => JSON.stringify(JSON.stringify({ tool: 'login', input: inner }))],
  ];
  it('has key bodies of more than one line to try', () => expect(keys.length).toBeGreaterThanOrEqual(2));
  for (const key of keys)
    for (const [shape, value] of shapes)
      for (const [nesting, wrap] of nestings)
        it(`removes ${shape} of ${key.name} ${nesting}`, () => {
          const text = wrap(JSON.stringify({ user: 'deploy', password: value(key) }));
          const out = redactJsonText(redactor, text);
          expect(leaksOf(out, [key], nesting)).toEqual([]);
          expect(() => JSON.parse(out)).not.toThrow();
          expect(out).toContain('deploy');
        });
});

describe('the decoded view', () => {
  it('reads escapes at any depth as the characters they stand for, and maps ranges back to whole escapes', () => {
    const input = 'a\\nb\\\\\\"c\\u0041d\\/e';
    const v = decodedView(input);
    expect(v.text).toBe('a\nb"cAd/e');
    expect(v.source(1, 2)).toEqual([1, 3]); // the \n
    expect(v.source(3, 5)).toEqual([4, 9]); // \\\" and c
    expect(v.source(5, 6)).toEqual([9, 15]); // \u0041
    expect(v.source(0, v.text.length)).toEqual([0, input.length]);
  });

  it('leaves a backslash that escapes nothing', () => {
    expect(decodedView('C:\\Users\\dev').text).toBe('C:\\Users\\dev');
  });
});

describe('redacting JSON documents and names', () => {
  it('keeps a redacted JSON line valid and one line', () => {
    const secret = SECRETS.find((s) => s.name === 'a PEM private key');
    const line = `${JSON.stringify({ msg: 'loaded', key: secret?.text })}\n`;
    const out = redactJsonText(redactor, line);
    expect(out.endsWith('\n')).toBe(true);
    expect(JSON.parse(out)).toEqual({ msg: 'loaded', key: '[REDACTED:private_key]' });
  });

  it('keeps two names that held different credentials apart', () => {
    const [a, b] = SECRETS.filter((s) => s.kind === 'github_token');
    const na = redactName(redactor, `run-${a?.value ?? ''}`);
    const nb = redactName(redactor, `run-${b?.value ?? ''}`);
    expect(na).toMatch(/^run-\[REDACTED:github_token\]-[0-9a-f]{8}$/);
    expect(na).not.toBe(nb);
    expect(redactName(redactor, 'fix-the-upload-test')).toBe('fix-the-upload-test');
  });

  it('redacts every string of a value, keys included, and turns errors into plain records', () => {
    const secret = SECRETS.find((s) => s.kind === 'npm_token')?.value ?? '';
    const out = redactor.redactValue({ list: [secret], [secret]: 1, err: new Error(`bad ${secret}`), n: 3, at: new Date(0) });
    expect(JSON.stringify(out)).not.toContain(secret);
    expect(out).toMatchObject({ n: 3, at: '1970-01-01T00:00:00.000Z', err: { type: 'Error', message: 'bad [REDACTED:npm_token]' } });
  });
});

describe('configured patterns must run in linear time', () => {
  it.each([
    ['a nested quantifier', '(a+)+b', /nested quantifier/],
    ['a backreference', '(a)\\1', /backreference/],
    ['lookaround', 'foo(?=bar)', /lookaround/],
    ['a pattern that does not compile', '(', /does not compile/],
    ['repeated alternatives (exponential on a backtracking engine)', '(a|a)+$', /repeats a group of alternatives/],
    ['alternatives inside a repeated group', '((a|b)c)*x', /repeats a group of alternatives/],
    ['alternatives repeated a bounded number of times', '(?:a|aa){1,30}$', /repeats a group of alternatives/],
  ])('refuses %s', (_name, pattern, reason) => {
    expect(unsafePatternReason(pattern)).toMatch(reason);
    expect(() => new Redactor([{ name: 'x', pattern }])).toThrow(/^redaction pattern "x" cannot be used: it /);
  });

  it('does not quote a pattern that fails to compile (it may be the secret it guards)', () => {
    expect(unsafePatternReason('acme-(s3cr3t')).not.toContain('s3cr3t');
  });

  it('accepts literal-led bounded patterns', () => {
    expect(unsafePatternReason('EMP-[0-9]{6}')).toBeNull();
    expect(unsafePatternReason('acct_[a-z0-9]{8,32}')).toBeNull();
    expect(unsafePatternReason('(?:sk|pk)_live_[A-Za-z0-9]{24}')).toBeNull();
    expect(unsafePatternReason('x(?:a|b)?y')).toBeNull();
  });
});

describe('jsonErrorReason', () => {
  // V8 quotes up to a dozen characters of the bad line in its message; none may survive.
  it.each([
    ['AKIAIOSFODNN7EXAMPLE is here', 'AKIAIOSFODNN7EXAMPLE', 'unexpected character'],
    ['{"k": ghp_abcdefghijklmnopqrstuvwxyz0123456789}', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'unexpected character'],
    ['{"a":1} sk-ant-api03-abcdefghijklmnop', 'sk-ant-api03-abcdefghijklmnop', 'unexpected text after the value (at character 8)'],
    ['{"token":"xoxb-123456789012-abcdefghij', 'xoxb-123456789012-abcdefghij', 'the value ends before it is complete'],
    ['{"t":"a\tb xoxb-123456789012"}', 'xoxb-123456789012', 'a control character inside a string'],
    ['{"t":"\\q xoxb-123456789012"}', 'xoxb-123456789012', 'a bad escape inside a string'],
  ])('%s', (line, secret, want) => {
    let reason = '';
    try {
      JSON.parse(line);
    } catch (e) {
      reason = jsonErrorReason(e);
    }
    expect(reason.startsWith(want), reason).toBe(true);
    for (let i = 0; i + 4 <= secret.length; i += 1) expect(reason).not.toContain(secret.slice(i, i + 4));
  });
});
