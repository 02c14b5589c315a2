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
    expect(evidence).toContain("listed 2 untracked file(s), never added to git: `lib/images.ts`, `public/placeholder.jpg`. No edit of the session's, nor a shell command that plainly writes, wrote `public/placeholder.jpg` (it was there before, or a program made it).");
  });

  it('says nothing when the session wrote every listed file, or none of them', () => {
    const mine = built(user('u1', 'Add the image fallback'), edit('e1', 'lib/images.ts'), updated('e1', 'lib/images.ts'), ...status('b1', 'git status --short lib/images.ts', '?? lib/images.ts'), say('a1', 'New.'));
    expect(sections(mine.md).get('Repository Evidence')).not.toContain("No edit of the session");
    const none = built(user('u1', 'What is pending?'), ...status('b1', 'git status --short', '?? a.ts\n?? b.ts'), say('a1', 'Two new files.'));
    expect(sections(none.md).get('Repository Evidence')).not.toContain("No edit of the session");
  });
});

describe('plans approved before the latest approved one', () => {
  const planCall = (id: string, plan: string) => call(id, 'ExitPlanMode', { plan });
  const approved = (id: string) => result(id, 'User has approved your plan. You can now start coding.');
  const TAR = '# Plan: Add Tar Archive Support\n\n## Files to Modify\n\n1. `deep_manifest.py` - tar handling\n2. `README.md` - document tar\n3. `deep_manifest.md` - the spec';
  const ERRORS = '# Plan: Report Corrupted Archives\n\n## Files to Modify\n\n1. `deep_manifest.py` - marking\n2. `tests/test_unit.py` - tests';
  const wrote = (id: string, file: string) => [edit(id, file), updated(id, file)];

  it('name the files they named and the session did not write, in HANDOFF.md and both payloads', () => {
    const r = built<{ plan: { earlier_files_not_written?: unknown; files_not_written?: unknown } }>(
      user('u1', 'Support tar archives'),
      planCall('p1', TAR),
      approved('p1'),
      ...wrote('e1', 'deep_manifest.py'),
      user('u2', 'Now report corrupted archives'),
      planCall('p2', ERRORS),
      approved('p2'),
      ...wrote('e2', 'deep_manifest.py'),
      ...wrote('e3', 'tests/test_unit.py'),
      say('a1', 'Done.'),
    );
    // The latest plan's files were all written: the earlier one's are said alone.
    expect(r.md).toContain("*verified* — of the 3 file(s) the approved plan of line 2 («Plan: Add Tar Archive Support») names to change, the session did not write 2 after it: `README.md`, `deep_manifest.md` (HANDOFF.summary.json's `plan.earlier_files_not_written`). Ask the user whether they are still wanted, or do them.");
    const earlier = [{ plan_line: 2, title: 'Plan: Add Tar Archive Support', named: 3, files: ['README.md', 'deep_manifest.md'] }];
    expect(r.summary.plan.earlier_files_not_written).toEqual(earlier);
    expect(r.llm.plan.earlier_files_not_written).toEqual(earlier);
    expect(r.summary.plan.files_not_written).toBeUndefined();
  });

  it('are not looked at when put again word for word later, or refused', () => {
    const again = built(user('u1', 'Support tar archives'), planCall('p1', TAR), approved('p1'), user('u2', 'Go on'), planCall('p2', TAR), approved('p2'), ...wrote('e1', 'deep_manifest.py'), say('a1', 'Done.'));
    expect(again.md).toContain('of the 3 file(s) the approved plan of line 5 names to change, the session did not write 2 after it');
    expect(again.md).not.toContain('An earlier plan');
    const refused = built(user('u1', 'Support tar archives'), planCall('p1', TAR), result('p1', "The user doesn't want to proceed with this tool use.", { is_error: true }), planCall('p2', ERRORS), approved('p2'), ...wrote('e2', 'deep_manifest.py'), ...wrote('e3', 'tests/test_unit.py'), say('a1', 'Done.'));
    expect(refused.md).not.toContain('names to change');
  });
});

describe('"Verify the change" says what checked the latest write', () => {
  const bash = (id: string, command: string, output: string) => [call(id, 'Bash', { command }), result(id, output)];

  it('names the checks of single files that ran after it', () => {
    const { md } = built(
      user('u1', 'Restore the session navigation'),
      ...bash('t0', 'uv run pytest', '==== 205 passed in 3s ===='),
      edit('e1', 'templates/transcript.html'),
      updated('e1', 'templates/transcript.html'),
      ...bash('t1', 'uv run pytest test/test_link.py -v', '==== 6 passed in 0.4s ===='),
      ...bash('t2', 'uv run pytest test/test_render.py::test_multi -v', '==== 1 passed in 0.3s ===='),
      say('a1', 'Restored.'),
    );
    expect(sections(md).get('Next Action')).toContain('Verify the change (after the last write, line 5, only checks of single files ran: `uv run pytest test/test_link.py -v` (line 7, passed), `uv run pytest test/test_render.py::test_multi -v` (line 9, passed, one test of it)), then');
  });

  it('says when nothing ran after it, and that the checks after it passed when a run may have been the whole suite', () => {
    const none = built(user('u1', 'Fix the link'), ...bash('t0', 'uv run pytest', '==== 5 passed in 1s ===='), edit('e1', 'render.py'), updated('e1', 'render.py'), say('a1', 'Fixed.'));
    expect(sections(none.md).get('Next Action')).toContain('Verify the change (no test, build, type check or lint ran after the last write, line 5), then');
    const whole = built(user('u1', 'Fix the link'), edit('e1', 'render.py'), updated('e1', 'render.py'), ...bash('t0', 'uv run pytest', '==== 5 passed in 1s ===='), say('a1', 'Fixed.'));
    // Verify would send a successor to run again what passed (the twenty-third reading).
    expect(sections(whole.md).get('Next Action')).toContain('is answered. The checks run after its last write (line 3) passed: `uv run pytest` (line 5, passed); check `git status`');
    expect(sections(whole.md).get('Next Action')).not.toContain('Verify the change');
  });
});

describe('a push as the next action, with an approved plan unfinished', () => {
  it('asks first about the files the plan named and the session never wrote', () => {
    const bash = (id: string, command: string, output: string) => [call(id, 'Bash', { command }), result(id, output)];
    const PLAN = '# Plan: Add tar support\n\n## Files to Modify\n\n1. `deep_manifest.py` - tar handling\n2. `README.md` - document tar';
    const { md } = built(
      user('u1', 'Add tar support'),
      ...bash('g0', 'git remote -v', 'origin\tgit@github.com:acme/deep.git (fetch)\norigin\tgit@github.com:acme/deep.git (push)'),
      call('p1', 'ExitPlanMode', { plan: PLAN }),
      result('p1', 'User has approved your plan. You can now start coding.'),
      edit('e1', 'deep_manifest.py'),
      updated('e1', 'deep_manifest.py'),
      ...bash('c1', 'git commit -am "feat: tar support"', '[main 70f2781] feat: tar support\n 1 file changed, 40 insertions(+)'),
      say('a1', 'Committed. Ready to push when you want.'),
    );
    expect(sections(md).get('Next Action')).toContain("Push the 1 unpushed commit(s) once the user agrees: 70f2781 «feat: tar support»; before that, ask whether the 1 file(s) an approved plan named and the session never wrote after it are still wanted: `README.md` (see Plan)");
  });
});
