import { describe, expect, it } from 'vitest';
import { jsonErrorReason } from '../../src/core/ingest.js';
import { Redactor, unsafePatternReason } from '../../src/core/redact.js';
import { fakeSecrets, slice12 } from '../fake-secrets.js';

const redactor = new Redactor();

/** The same credential as it reaches the redactor from different places of a transcript. */
const CONTEXTS: [string, (text: string) => string][] = [
  ['plain prose', (t) => `Use this: ${t} and tell me when it works.`],
  ['a shell command', (t) => `cat > .env <<'EOF'\n${t}\nEOF\nnpm run deploy`],
  ['a JSON-encoded tool input', (t) => `Write ${JSON.stringify({ file_path: '/srv/app/.env', content: `# prod\n${t}\n` })}`],
  ['a JSON value encoded twice', (t) => JSON.stringify({ arguments: JSON.stringify({ cmd: `echo '${t}'` }) })],
];

const cases = fakeSecrets().flatMap((s) => CONTEXTS.map(([where, wrap]) => [s.kind, where, s, wrap] as const));

describe('the redactor removes every credential kind of SPEC §9', () => {
  it.each(cases)('%s in %s', (kind, _where, secret, wrap) => {
    const input = wrap(secret.text);
    const out = redactor.redact(input);
    expect(out.text).not.toContain(secret.value);
    expect(out.text).not.toContain(slice12(secret.value));
    expect(out.text).toContain(`[REDACTED:${kind}]`);
    expect(out.count).toBeGreaterThanOrEqual(1);
  });

  it('keeps the text around a secret, replacing only the value', () => {
    const s = fakeSecrets().find((x) => x.kind === 'url_password');
    expect(s).toBeDefined();
    expect(redactor.redact(`psql ${s?.text ?? ''} -c 'select 1'`).text).toBe("psql postgres://app:[REDACTED:url_password]@db.internal:5432/app -c 'select 1'");
  });

  it('counts each credential once', () => {
    const all = fakeSecrets();
    const r = redactor.redact(all.map((s) => s.text).join('\n'));
    expect(r.count).toBe(all.length);
  });

  it('applies patterns from config, tagged with their name', () => {
    const r = new Redactor([{ name: 'employee_id', pattern: 'EMP-[0-9]{6}' }]).redact('ticket for EMP-123456 is open');
    expect(r).toEqual({ text: 'ticket for [REDACTED:employee_id] is open', count: 1 });
  });
});

describe('the redactor leaves ordinary text alone', () => {
  it.each([
    ['a token limit', 'max_tokens=100'],
    ['a usage counter in JSON', '"input_tokens": 123, "output_tokens": 45'],
    ['a placeholder for a password', 'password: ${PASSWORD}'],
    ['an angle-bracket placeholder', 'API_KEY=<your key here>'],
    ['a masked value', 'password: ********'],
    ['a typed field', 'token: string;'],
    ['an empty secret', '"password": ""'],
    ['a boolean flag', 'use_token: true'],
    ['prose about tokens and passwords', 'The token refresh runs hourly, and the password policy asks for twelve characters.'],
    ['a git sha', 'HEAD is 3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a098 on main'],
    ['a uuid', 'session 0d3a8e6f-290f-4105-a327-a2496e5e2a83 resumed'],
    ['a URL without a password', 'fetch https://user@example.com/path?q=1 and https://example.com:8443/x'],
    ['words that start like key prefixes', 'risk-assessment, task-runner, desk-booking and AKIA are fine'],
    ['a short Bearer word in prose', 'the Bearer scheme is described in RFC 6750'],
    ['a type annotation', 'token_parts: List[str] = []'],
    ['a variable passed under its own name', '"token_summary": token_summary,'],
    ['the same, inside JSON-encoded text', JSON.stringify({ content: '{"token_summary": token_summary}' })],
    ['an attribute of the same name', 'api_key=self.api_key'],
    ['a call', 'password = getpass("Password: ")'],
    ['an environment lookup', 'secret = os.environ["SECRET"]'],
  ])('%s', (_name, text) => {
    expect(redactor.redact(text)).toEqual({ text, count: 0 });
  });
});

describe('code heuristics never let a literal through', () => {
  it.each([
    ['a quoted literal that looks like code', '"password": "List[str]"', '"password": "[REDACTED:secret_assignment]"'],
    ['a password that merely contains its key word', 'DB_PASSWORD=mypassword1', 'DB_PASSWORD=[REDACTED:secret_assignment]'],
    ['a plain word as a password', 'PASSWORD=hunter', 'PASSWORD=[REDACTED:secret_assignment]'],
  ])('%s', (_name, text, want) => {
    expect(redactor.redact(text)).toEqual({ text: want, count: 1 });
  });
});

describe('configured patterns must run in linear time', () => {
  it.each([
    ['a nested quantifier', '(a+)+b', /nested quantifier/],
    ['a backreference', '(a)\\1', /backreference/],
    ['lookaround', 'foo(?=bar)', /lookaround/],
    ['a pattern that does not compile', '(', /does not compile/],
  ])('refuses %s', (_name, pattern, reason) => {
    expect(unsafePatternReason(pattern)).toMatch(reason);
    expect(() => new Redactor([{ name: 'x', pattern }])).toThrow(/not linear-time/);
  });

  it('accepts literal-led bounded patterns', () => {
    expect(unsafePatternReason('EMP-[0-9]{6}')).toBeNull();
    expect(unsafePatternReason('acct_[a-z0-9]{8,32}')).toBeNull();
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
