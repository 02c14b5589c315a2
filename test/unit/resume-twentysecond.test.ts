import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { call, edit, result, say, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/** Rules from the twenty-second reading (docs/FIDELITY.md) not covered beside the code they changed. */

describe('the requests after the objective', () => {
  it('says the user last only thanked, after the latest request it counts', () => {
    const { md } = built(user('u1', 'Commit the pending changes'), say('a1', 'Committed.'), user('u2', 'Now add tar support'), say('a2', 'Added.'), user('u3', 'Excellent work, thank you!'), say('a3', "You're welcome!"));
    const objective = sections(md).get('Objective (verbatim)') ?? '';
    expect(objective).toContain("1 more message(s) came after it, the latest at line 3; the user's last message, at line 5, only thanked");
  });

  it('says nothing of a thank-you that came before the latest request', () => {
    const { md } = built(user('u1', 'Commit the pending changes'), say('a1', 'Committed.'), user('u2', 'Thanks!'), say('a2', 'Welcome.'), user('u3', 'Now add tar support'), say('a3', 'Added.'));
    const objective = sections(md).get('Objective (verbatim)') ?? '';
    expect(objective).toContain('1 more message(s) came after it, the latest at line 5');
    expect(objective).not.toContain('only thanked');
  });
});

describe("a git listing of files the session did not write", () => {
  const status = (id: string, command: string, output: string): Record<string, unknown>[] => [call(id, 'Bash', { command }), result(id, output)];

  it('names the listed file that was there before, so it is not read as the session\'s change', () => {
    const { md } = built(user('u1', 'Add the image fallback'), edit('e1', 'lib/images.ts'), updated('e1', 'lib/images.ts'), ...status('b1', 'git status --short lib/images.ts public/placeholder.jpg', '?? lib/images.ts\n?? public/placeholder.jpg'), say('a1', 'Both are new.'));
    const evidence = sections(md).get('Repository Evidence') ?? '';
    expect(evidence).toContain('listed 2 untracked file(s), never added to git: `lib/images.ts`, `public/placeholder.jpg`. The session did not write `public/placeholder.jpg` (it was there before, or something else wrote it).');
  });

  it('says nothing when the session wrote every listed file, or none of them', () => {
    const mine = built(user('u1', 'Add the image fallback'), edit('e1', 'lib/images.ts'), updated('e1', 'lib/images.ts'), ...status('b1', 'git status --short lib/images.ts', '?? lib/images.ts'), say('a1', 'New.'));
    expect(sections(mine.md).get('Repository Evidence')).not.toContain('did not write');
    const none = built(user('u1', 'What is pending?'), ...status('b1', 'git status --short', '?? a.ts\n?? b.ts'), say('a1', 'Two new files.'));
    expect(sections(none.md).get('Repository Evidence')).not.toContain('wrote none');
  });
});
