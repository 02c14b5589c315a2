import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { call, result, say, user } from './claude-records.js';
import { built } from './ledger-helper.js';

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
