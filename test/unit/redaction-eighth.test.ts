import { describe, expect, it } from 'vitest';
import { stripControls } from '../../src/core/control-chars.js';
import { Redactor } from '../../src/core/redact.js';
import { whatChanged } from '../../src/core/what-changed.js';

/**
 * The eighth red team (docs/SECURITY.md): a password a person made, under a compound name
 * (`DB_PASSWORD`, `dbPassword`) rather than the bare word; and what a build says a write defines,
 * rewritten from the write's own text (`NAME = value`, a table row without its header), where the
 * redactor no longer knew it for a credential. Every value here is made up.
 */

const r = new Redactor();
const kept = (text: string): string => r.redact(stripControls(text)).text;

describe('a password a person made, under a compound name', () => {
  it.each([
    ['in a prompt', 'The DB_PASSWORD is Summer2024!prod, remember it', 'Summer2024!prod'],
    ['with a verb of what it is to be', 'and the REDIS_PASSWORD should be Tr0ub4dor&3x from now on', 'Tr0ub4dor&3x'],
    ['in camel case', 'set dbPassword Kx9!mountain4', 'Kx9!mountain4'],
    ['in a Markdown table', '| Variable | Value |\n|---|---|\n| DB_PASSWORD | Kestrel-42!dev |', 'Kestrel-42!dev'],
    ['as a bold label', '- **ADMIN_PASSWORD**: Osprey#2024seed', 'Osprey#2024seed'],
    ["in a Dockerfile's ENV with a space", 'FROM postgres:16\nENV POSTGRES_PASSWORD Summer2024!db\n', 'Summer2024!db'],
    ['in fish', 'set -x DB_PASSWORD Hx7#walrus22', 'Hx7#walrus22'],
    ['with a qualifier after it', 'ADMIN_PASSPHRASE_PROD Ledger-77!blue', 'Ledger-77!blue'],
  ])('%s', (_what, text, secret) => {
    expect(kept(text)).not.toContain(secret);
  });

  it.each([
    ['a length', 'DB_PASSWORD_LENGTH is 12'],
    ['a call', 'the DB_PASSWORD is getPassword2()'],
    ['a reference', 'the DB_PASSWORD is $DB_PASSWORD'],
    ['a type', 'dbPassword: string'],
    ['a word with no digit', 'the DB_PASSWORD is required here'],
  ])('keeps %s', (_what, text) => {
    expect(kept(text)).toBe(text);
  });
});

describe('what a write defines', () => {
  it("names a secret's variable without its value", () => {
    expect(whatChanged('.env', 'DATABASE_PASSWORD=tangerinefalcon\nAPI_TOKEN=Hv7.kQ2mZp9Lx4\nPORT=8080\n')).toEqual(['DATABASE_PASSWORD', 'API_TOKEN', 'PORT = 8080']);
  });

  it("keeps of a table's row holding a placeholder its first cell and the placeholder's cells", () => {
    const doc = '# Staging access\n\n| Service | User | Password | Note |\n|---|---|---|---|\n| Postgres | app | Summer2024!pg | TODO rotate before launch |\n';
    const what = whatChanged('docs/staging-access.md', doc).join('\n');
    expect(what).toContain('«Postgres | TODO rotate before launch»');
    expect(what).not.toContain('Summer2024!pg');
  });
});
