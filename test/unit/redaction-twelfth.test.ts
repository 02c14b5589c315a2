import { describe, expect, it } from 'vitest';
import { redactedGit } from '../../src/core/evidence.js';
import { safeSlug, sessionDirName } from '../../src/core/naming.js';
import { Redactor } from '../../src/core/redact.js';
import { SUCCESSOR_ID_RE } from '../../src/core/successor.js';
import { Cleaner } from '../../src/engine/clean.js';
import { keepsEach, removesEach } from './redaction-cases.js';

/**
 * The twelfth red team (docs/SECURITY.md): what becomes of a name on its way to a folder, a shell's
 * line continuation, the languages a note is written in, escapes written twice. Every value is made up.
 */

const TOKEN = 'ghp_4fJk9QmZr2XwLp7TnB3vYc8HsD1gKe6AuN0o';
const r = new Redactor();
const clean = new Cleaner(r);

describe('a name on its way to a folder', () => {
  it('is redacted in the form it takes: its folder, with invisible characters out, full-width characters read', () => {
    for (const name of ['deploy ghp 4fJk9QmZr2XwLp7TnB3vYc8HsD1gKe6AuN0o', 'ci-ghp\uff3f4fJk9QmZr2XwLp7TnB3vYc8HsD1gKe6AuN0o', 'ci-ghp_4fJk9QmZ\u200br2XwLp7TnB3vYc8HsD1gKe6AuN0o', 'rotate sk live 51NxQ8pLm2Vw7Rt3Yk9Zc4Hs6Df1Gj0Ab5Ce8Fg2Hk']) {
      const id = clean.name(name);
      const folder = sessionDirName(id);
      expect(folder).not.toContain('4fJk9QmZr2XwLp7TnB3vYc8HsD1gKe6AuN0o');
      expect(folder).not.toContain('51NxQ8pLm2Vw7Rt3Yk9Zc4Hs6Df1Gj0Ab5Ce8Fg2Hk');
      expect(r.redact(folder).count).toBe(0);
    }
  });

  it('keeps an ordinary name as it was, and tells two redacted names apart', () => {
    for (const name of ['token-refresh-bug', 'passwordless-login', 'sk-live-mode-toggle', '0d3a8e6f-290f-4105-a327-a2496e5e2a83', 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9']) expect(clean.name(name)).toBe(name);
    expect(clean.name(`deploy ghp 4fJk9QmZr2XwLp7TnB3vYc8HsD1gKe6AuN0a`)).not.toBe(clean.name(`deploy ghp 4fJk9QmZr2XwLp7TnB3vYc8HsD1gKe6AuN0b`));
  });

  it('as a project or a title, is redacted again after it is made a slug', () => {
    const text = (t: string): string => r.redact(t).text;
    const hex = '9f3a7c1e5b2d8046a1c9e7f3b5d20a84';
    for (const name of [`deepseek sk ${hex}`, `ｋｅｙ－${'3f9a'.repeat(8)}`]) {
      const slug = safeSlug(name, text);
      expect(slug).not.toMatch(/[0-9a-f]{32}/);
      expect(r.redact(slug).count).toBe(0);
    }
    expect(safeSlug('My Project', text)).toBe('my-project');
  });
});

describe("a successor's session id", () => {
  it('is recorded only in the UUID shape the harnesses give', () => {
    expect(SUCCESSOR_ID_RE.test('11111111-2222-4333-8444-555555555555')).toBe(true);
    expect(SUCCESSOR_ID_RE.test('019c8a59-e9dd-71f0-9ae3-4079fe9726a9')).toBe(true);
    expect(SUCCESSOR_ID_RE.test(TOKEN)).toBe(false);
  });
});

describe("resume's own capture of the repository", () => {
  it('is redacted as a build redacts the capture it records, the configured patterns too', () => {
    const custom = new Redactor([{ name: 'acme', pattern: 'ACME-[0-9]{8}' }]);
    const g = { status: 'ok', reason: null, cwd: '/w', top: '/w', branch: 'hotfix/ACME-48213957', head: 'abc1234', dirty: false, changed: [], untracked: [], changed_total: 0, untracked_total: 0, diffstat: null } as unknown as Parameters<typeof redactedGit>[1];
    expect(redactedGit(custom, g).branch).toBe('hotfix/[REDACTED:acme]');
  });
});

describe("a shell's line continuation between a name and its value", () => {
  removesEach([
    ['an export', "export DB_PASSWORD=\\\n  'Kx9#mQ2vLp8!zR4w'", 'Kx9#mQ2vLp8!zR4w'],
    ['a flag', "mongodump --uri mongodb://db --password \\\n  'Kx9#mQ2vLp8!zR4w'", 'Kx9#mQ2vLp8!zR4w'],
    ['aws configure set', 'aws configure set aws_secret_access_key \\\n  wJalrXUtnFEMI8K7MDENGbPxRfiCYzEXAMPLQKEY', 'wJalrXUtnFEMI8K7MDENGbPxRfiCYzEXAMPLQKEY'],
    ['sshpass', "sshpass -p \\\n 'Kx9#mQ2vLp8!zR4w' ssh deploy@host", 'Kx9#mQ2vLp8!zR4w'],
    ['a helm value', "helm upgrade app ./chart --set db.password=\\\n  'Kx9#mQ2vLp8!zR4w'", 'Kx9#mQ2vLp8!zR4w'],
    ['a libpq string', 'psql "host=db password=\\\nKx9mQ2vLp8zR4w"', 'Kx9mQ2vLp8zR4w'],
  ]);
  keepsEach([['a continued command', 'ls \\\n  -la /tmp'], ['a Windows path at a line end', 'cd C:\\\nnext line']]);
});

describe('a name in English among words of another language', () => {
  removesEach([
    ['German: ist', 'Der API Token ist Zq8XmP3kR7vN2wQ9tL5y', 'Zq8XmP3kR7vN2wQ9tL5y'],
    ['French: est', 'Le token GitHub est Zq8XmP3kR7vN2wQ9tL5y', 'Zq8XmP3kR7vN2wQ9tL5y'],
    ['Spanish: es', 'El password de staging es Kx9#mQ2vLp8!zR4w', 'Kx9#mQ2vLp8!zR4w'],
    ['German: für', 'API token für staging: Zq8XmP3kR7vN2wQ9tL5y', 'Zq8XmP3kR7vN2wQ9tL5y'],
    ['German: lautet', 'Das DB password lautet Kx9#mQ2vLp8!zR4w', 'Kx9#mQ2vLp8!zR4w'],
  ]);
  keepsEach([['a sentence about a token', 'Der Token ist abgelaufen, bitte erneuern.'], ['a French one', 'Le token est expiré, il faut le renouveler.']]);
});

describe('escapes and references written twice, and a value given through a process substitution', () => {
  removesEach([
    ['a unicode escape of a backslash', `echo "\\u005cu0067hp_4fJk9QmZr2XwLp7TnB3vYc8HsD1gKe6AuN0o"`, '4fJk9QmZr2XwLp7TnB3vYc8HsD1gKe6AuN0o'],
    ['an attribute encoded twice', '<div data-page="{&amp;quot;password&amp;quot;:&amp;quot;Kx9#mQ2vLp8!zR4w&amp;quot;}">', 'Kx9#mQ2vLp8!zR4w'],
    ['gh secret set from <(echo …)', "gh secret set DB_PASSWORD < <(echo 'Kx9#mQ2vLp8!zR4w')", 'Kx9#mQ2vLp8!zR4w'],
    ['gh secret set from <<<', 'gh secret set API_TOKEN <<< Zq8XmP3kR7vN2wQ9tL5y', 'Zq8XmP3kR7vN2wQ9tL5y'],
  ]);
  keepsEach([['an ampersand escaped twice', 'Tom &amp;amp; Jerry'], ['a secret read from a file', 'gh secret set API_TOKEN < token.txt']]);
});

describe('a title a user gives', () => {
  it('loses the words its slug would join into a key', () => {
    expect(clean.title('deepseek sk 9f3a7c1e5b2d8046a1c9e7f3b5d20a84')).toBe('deepseek sk [REDACTED]');
    expect(clean.title('Fix the upload bug')).toBe('Fix the upload bug');
    expect(clean.title(`Rotate d\u0301api${'8c4e'.repeat(8)}`)).toBe('Rotate [REDACTED:databricks_token]');
    expect(clean.title('Café menu')).toBe('Café menu');
  });
});

describe("a Codex message's mirror, remembered until its twin comes", () => {
  it('keeps no digest that confirms a guessed password, and still finds the twin', async () => {
    const { createHash } = await import('node:crypto');
    const { initialCodexState, readCodex } = await import('../../src/core/harness/codex.js');
    const message = 'The staging DB password is Summer2024!x, use it to run the migration';
    const st = initialCodexState();
    readCodex({ type: 'event_msg', payload: { type: 'user_message', message } }, st);
    const raw = createHash('sha256').update(message).digest('hex');
    expect(st.mirrors).toHaveLength(1);
    expect(st.mirrors[0]).not.toContain(raw);
    const twin = readCodex({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: message }] } }, st);
    expect(twin.text).toBe('');
    expect(st.mirrors).toHaveLength(0);
  });

  it('still finds the twin of a mirror a state kept before, digested as it was', async () => {
    const { createHash } = await import('node:crypto');
    const { initialCodexState, readCodex } = await import('../../src/core/harness/codex.js');
    const message = 'Fix the sync with token Zq8XmP3kR7vN2wQ9tL5y';
    const st = initialCodexState();
    st.mirrors.push(`${message.length}:${createHash('sha256').update(message).digest('hex')}`);
    const twin = readCodex({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: message }] } }, st);
    expect(twin.text).toBe('');
    expect(st.mirrors).toHaveLength(0);
  });
});

describe('a combining mark inside a key', () => {
  removesEach([
    ['a Databricks token in a folder of a path', `/Users/me/d\u0301api${'8c4e'.repeat(8)}/app`, `api${'8c4e'.repeat(8)}`],
    ['a GitHub token with an accent on its first letter', 'token: g\u0301hp_4fJk9QmZr2XwLp7TnB3vYc8HsD1gKe6AuN0o', '4fJk9QmZr2XwLp7TnB3vYc8HsD1gKe6AuN0o'],
  ]);
  keepsEach([['decomposed French', 'Le re\u0301sume\u0301 est pre\u0302t, voir le caf\u00e9'], ['a decomposed accent at a word end', 'cafe\u0301 au lait']]);
});
