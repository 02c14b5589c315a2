import { describe, expect, it } from 'vitest';
import { stripControls } from '../../src/core/control-chars.js';
import { Redactor } from '../../src/core/redact.js';

/**
 * A `.pgpass` file printed where nothing names it: `cat ~/.pgpass` is a call, and what it printed is
 * a tool result of its own, with no word of `.pgpass` in it (the sixth red team's first leftover,
 * docs/SECURITY.md). Every value here is made up.
 */

const r = new Redactor();
const kept = (text: string): string => r.redact(stripControls(text)).text;

describe('a .pgpass file as a tool result, its name not in it', () => {
  it.each([
    ['one entry', 'db.example.com:5432:app:appuser:S3cr3t-Pa55w0rd!', 'S3cr3t-Pa55w0rd!'],
    ['several entries and a comment', '# prod\ndb.internal:5432:app:deploy:Pg7sLm9Qp7vRt4wP\n*:*:*:replicator:Rp9sLm9Qp7vRt4wP\n', 'Rp9sLm9Qp7vRt4wP'],
    ['the first of several', '# prod\ndb.internal:5432:app:deploy:Pg7sLm9Qp7vRt4wP\n*:*:*:replicator:Rp9sLm9Qp7vRt4wP\n', 'Pg7sLm9Qp7vRt4wP'],
    ['as a Read numbers its lines', '     1\tlocalhost:5432:*:postgres:hunter2hunter2x\n     2\t', 'hunter2hunter2x'],
    ['as Claude Code numbers them', '     1\u2192127.0.0.1:5433:orders:svc:Or9dLm9Qp7vRt4wP', 'Or9dLm9Qp7vRt4wP'],
  ])('%s', (_what, text, secret) => {
    expect(kept(text)).not.toContain(secret);
    expect(kept(text)).toContain('[REDACTED:pgpass_password]');
  });

  it.each([
    ['a compiler line', 'src/a.c:5432:5:error:unused'],
    ['a status line', 'web:5432:http:nginx:running'],
    ['a log line with words around it', '2024-01-01 db:5432:app:user:p4ss word here'],
    ['a header naming the fields', '# hostname:port:database:username:password'],
    ['an entry whose password is a placeholder', 'localhost:5432:app:app:<password>'],
    ['a time with seconds', 'at 12:5432:00:00:00Z'],
  ])('keeps %s', (_what, text) => {
    expect(kept(text)).toBe(text);
  });
});
