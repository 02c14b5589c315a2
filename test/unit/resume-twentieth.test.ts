import { describe, expect, it } from 'vitest';
import { initialLedger } from '../../src/core/ledger.js';
import { sections } from '../../src/core/quality.js';
import { call, result, say, user } from './claude-records.js';
import { built, ran } from './ledger-helper.js';

/** Rules from the twentieth reading (docs/FIDELITY.md) not covered beside the code they changed. */

describe('a last message that came while the agent was still on the request before it', () => {
  it('names that request and the command it was left on, for a session that ends on the new message', () => {
    const { md } = built(user('u1', 'Migrate the orders table to the new schema please'), call('b1', 'Bash', { command: 'npm run migrate -- --to 42' }), user('u2', 'status?'));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain('Answer the user\'s last request: the transcript ends on it, before any reply of the agent (line 3: «status?»)');
    expect(next).toContain('It came while the agent was still on the request before it (line 1: «Migrate the orders table to the new schema please»), which got no reply; its last command with no result is at line 2: `npm run migrate -- --to 42`: that work may be half done');
  });

  it('says nothing of the request before when it was answered', () => {
    const { md } = built(user('u1', 'Migrate the orders table to the new schema please'), call('b1', 'Bash', { command: 'npm run migrate' }), result('b1', 'done'), say('a1', 'Migrated.'), user('u2', 'status?'));
    expect(sections(md).get('Next Action') ?? '').not.toContain('request before it');
  });
});

describe('a failed command that printed more than its last error', () => {
  it('names the first error line too, and how many other lines it printed', () => {
    const l = initialLedger();
    // A program that may do more than read (a search that only read and missed some paths is no
    // failure: resume-fortieth.test.ts).
    ran(l, 17, './scripts/index.sh lib/knowledge lib/embedder lib/media', 2, 'rg: lib/embedder: No such file or directory (os error 2)\nrg: lib/media: No such file or directory (os error 2)\nlib/knowledge/a.py\nlib/knowledge/b.py\n');
    expect(l.failures.at(-1)?.text).toBe('`./scripts/index.sh lib/knowledge lib/embedder lib/media` failed (exit 2): rg: lib/media: No such file or directory (os error 2); 1 more error line before it (the first: «rg: lib/embedder: No such file or directory (os error 2)»); 2 other lines of output as well');
    // An output kept as its head and tail (ingest.ts) counts the lines it kept, at least.
    ran(l, 20, './scripts/index.sh lib/knowledge lib/media', 2, 'rg: lib/media: No such file or directory (os error 2)\nlib/knowledge/a.py\n…\nlib/knowledge/z.py\n');
    expect(l.failures.at(-1)?.text).toBe('`./scripts/index.sh lib/knowledge lib/media` failed (exit 2): rg: lib/media: No such file or directory (os error 2); at least 2 other lines of output as well');
    ran(l, 30, 'cat missing.txt', 1, 'cat: missing.txt: No such file or directory\n');
    expect(l.failures.at(-1)?.text).toBe('`cat missing.txt` failed (exit 1): cat: missing.txt: No such file or directory');
  });
});
