import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/redact.js';
import { scanForSecrets } from '../../src/core/secret-scan.js';
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
