import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/redact.js';
import { scanForSecrets, scanWhole } from '../../src/core/secret-scan.js';
import { seededStrings } from '../helpers.js';
import { fakeSecrets } from '../fake-secrets.js';

/** The quality gate's second scan: independent of the redactor, and blind to nothing it promises to see. */

const byName = (name: string): string => fakeSecrets().find((s) => s.name === name)?.value ?? '';

describe('the second scan', () => {
  it.each([
    ['a GitHub classic token', 'github_token'],
    ['an npm token', 'npm_token'],
    ['a Slack app token', 'slack_token'],
    ['a Hugging Face token', 'huggingface_token'],
    ['a PyPI token', 'pypi_token'],
    ['a DigitalOcean token', 'digitalocean_token'],
    ['a bare SendGrid key', 'sendgrid_key'],
    ['an AWS access key id', 'aws_access_key_id'],
  ])('finds %s at the start of a line inside JSON-escaped text', (name, kind) => {
    const text = JSON.stringify({ content: `# creds\n${byName(name)}\n` });
    expect(scanForSecrets(text).map((h) => h.kind)).toContain(kind);
  });

  it('finds a password in a URL with no user name', () => {
    expect(scanForSecrets('REDIS_URL=redis://:s3cretPassw0rd@cache:6379').map((h) => h.kind)).toEqual(['url_password']);
  });

  it('quotes no more of a finding than its first four and last two characters', () => {
    const token = byName('a GitHub classic token');
    const [hit] = scanForSecrets(token);
    expect(hit?.preview).toBe(`${token.slice(0, 4)}…${token.slice(-2)}`);
  });

  it('finds nothing in what the redactor left of every fake credential', () => {
    const text = new Redactor().redact(JSON.stringify({ all: fakeSecrets().map((s) => s.text).join('\n') })).text;
    expect(scanForSecrets(text)).toEqual([]);
  });
});

describe('the second scan of a long text', () => {
  const secrets = fakeSecrets().map((s) => s.value);
  const parts = [
    ...secrets,
    ' ',
    '\n',
    '\n\n## Section\n',
    'https://example.test/path ',
    'postgres://admin:hunter2hunter2@db.internal/app ',
    '\\n',
    '\\u0022',
    '"',
    '-----BEGIN RSA PRIVATE KEY-----\n',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ ',
    'plain words of a handoff that hold nothing at all, ',
    'sk-',
    'ghp_',
    '| passed | line 12 |\n',
    '📦 ',
  ];

  it('finds what a whole-text scan finds, in the same order, at the same indexes', () => {
    const texts = seededStrings(300, 11, parts, 900).filter((t) => t.length > 4096);
    expect(texts.length).toBeGreaterThan(100);
    let found = 0;
    for (const text of texts) {
      const whole = scanWhole(text);
      found += whole.length;
      expect(scanForSecrets(text)).toEqual(whole);
    }
    expect(found).toBeGreaterThan(1000);
  });
});
