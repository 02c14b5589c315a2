import { describe, expect, it } from 'vitest';
import { decideOutcome } from '../../src/core/outcome.js';
import { sections } from '../../src/core/quality.js';
import { ingestText, jsonl } from './ingest-helper.js';
import { built } from './ledger-helper.js';
import { call, result, say, user } from './claude-records.js';

/**
 * Rules from the tenth reading (docs/FIDELITY.md): which claim a problem report answers, what a
 * linter's tally counts, a request asked again after it was answered, and the changed files the
 * table has no row for.
 */

describe('a problem report after a message of several claims', () => {
  const summary = ['Done.', '', '### Testing', '- All 6 new tests pass ✅', '- Existing template tests still pass ✅', '- No regressions in functionality'].join('\n');
  const claims = (md: string): string => sections(md).get('Claims to double-check') ?? '';

  it('answers the claim of the work when it names no check', () => {
    const md = built(user('u1', 'Replace the session list with one link'), say('a1', summary), user('u2', 'Oh no, we lost the session navigation section somehow :(')).md;
    expect(claims(md)).toContain('The agent said «- No regressions in functionality»');
    expect(claims(md)).not.toContain('All 6 new tests pass');
  });

  it('answers the claim of the checks when it names one', () => {
    const md = built(user('u1', 'Replace the session list with one link'), say('a1', summary), user('u2', 'The tests are broken on my machine')).md;
    expect(claims(md)).toContain('The agent said «- All 6 new tests pass ✅»');
  });

  it('answers the only claim there is, whatever it names', () => {
    const md = built(user('u1', 'Fix the export'), say('a1', 'Fixed: all tests pass.'), user('u2', 'The export is still broken')).md;
    expect(claims(md)).toContain('all tests pass');
  });
});

describe("a linter's tally", () => {
  it('is shown with the first error it counts', () => {
    const d = decideOutcome('lint', 1, false, 'claude_code_log/renderer.py:1:1: E902 No such file or directory (os error 2)\nFound 1 error.');
    expect(d).toEqual({ outcome: 'fail', line: 'claude_code_log/renderer.py:1:1: E902 No such file or directory (os error 2) — Found 1 error.' });
  });

  it('names a type checker error too, and stays alone when no line names one', () => {
    expect(decideOutcome('typecheck', 1, false, 'src/a.py:12: error: Incompatible types in assignment\nFound 1 error in 1 file (checked 3 source files)').line).toBe('src/a.py:12: error: Incompatible types in assignment — Found 1 error in 1 file (checked 3 source files)');
    expect(decideOutcome('lint', 1, false, 'checking…\nFound 2 errors.').line).toBe('Found 2 errors.');
  });
});

describe('a request asked again', () => {
  const grant = 'help me apply for the engineering grant by the foundation';

  it('says where the agent answered it before', () => {
    const md = built(
      user('u1', `${grant}.\n\nContext: we build an event platform with tickets and referrals.`),
      say('a1', 'Here is the application: title, one-liner, milestones …'),
      user('u2', grant),
      call('b1', 'Bash', { command: 'git log --oneline -5' }),
    ).md;
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain("Continue the user's last request, which the agent was still working on (line 3: «help me apply for the engineering grant by the foundation»)");
    expect(next).toContain('The request at line 1 began with the same words, and the agent replied to it at line 2, before this one was made: «Here is the application: title, one-liner, milestones …»');
  });

  it('says nothing of a short request, or of one never answered', () => {
    const short = built(user('u1', 'fix it now please'), say('a1', 'Fixed.'), user('u2', 'fix it'), call('b1', 'Bash', { command: 'ls' })).md;
    expect(sections(short).get('Next Action')).not.toContain('began with the same words');
    const unanswered = built(user('u1', grant), call('b0', 'Bash', { command: 'ls' }), user('u2', grant), call('b1', 'Bash', { command: 'ls' })).md;
    expect(sections(unanswered).get('Next Action')).not.toContain('replied to it');
  });
});

describe('changed files beyond the table', () => {
  it('are named in the room the budget leaves, and those outside the folder counted', () => {
    const writes = Array.from({ length: 24 }, (_, i) => [call(`w${i}`, 'Write', { file_path: i === 0 ? '/home/dev/.agent/memory/notes.md' : `/nonexistent/w/src/f${i}.ts`, content: 'x' }), result(`w${i}`, 'File created successfully')]).flat();
    const md = built(user('u1', 'Write the files'), ...writes, say('a1', 'Done.')).md;
    const repo = sections(md).get('Repository Evidence') ?? '';
    expect(repo).toContain('4 more (1 of them outside `/nonexistent/w`), each with its lines in HANDOFF.summary.json: `src/f3.ts`, `src/f2.ts`, `src/f1.ts`, `/home/dev/.agent/memory/notes.md`.');
  });
});

describe('a text of millions of characters', () => {
  it('is read as its head and tail around a note, its credentials removed in both', () => {
    const token = 'ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y';
    const text = `start ${token} ${'lorem ipsum '.repeat(200_000)} end ${token} done`;
    const records = [user('u1', 'Print the log'), say('a1', text)];
    const turn = ingestText(jsonl(...records)).turns[1]?.text ?? '';
    expect(turn.length).toBeLessThanOrEqual((1 << 20) + 200);
    expect(turn).toMatch(/^start \[REDACTED:github_token\] lorem/);
    expect(turn).toMatch(/\n\[… \d+ characters not read: a text this long is read as its head and tail …\]\n/);
    expect(turn).toMatch(/end \[REDACTED:github_token\] done$/);
    const { md, llm } = built(...records);
    expect(JSON.stringify(llm)).not.toContain('Ab1Cd2Ef3Gh4');
    expect(md).not.toContain('Ab1Cd2Ef3Gh4');
  });
});

describe('the times a session spans', () => {
  it('are its earliest and latest, whatever order its lines were written in', () => {
    const at = (ts: string, r: Record<string, unknown>): Record<string, unknown> => ({ ...r, timestamp: ts });
    const { md } = built(at('2026-04-26T10:00:05.541Z', user('u1', 'Explain the layout')), at('2026-04-26T10:00:01.529Z', say('a1', 'It is a grid.')), at('2026-04-26T10:00:03.000Z', user('u2', 'Thanks')));
    expect(md).toContain('first_turn_at: 2026-04-26T10:00:01.529Z\nlast_turn_at: 2026-04-26T10:00:05.541Z');
  });

  it('leave out a time that is no date', () => {
    const at = (ts: string, r: Record<string, unknown>): Record<string, unknown> => ({ ...r, timestamp: ts });
    const { md } = built(at('2026-04-26T10:00:01.000Z', user('u1', 'Explain the layout')), at('2026-13-45T99:99:99Z', say('a1', 'It is a grid.')));
    expect(md).toContain('first_turn_at: 2026-04-26T10:00:01.000Z\nlast_turn_at: 2026-04-26T10:00:01.000Z');
  });
});

describe('a write that failed and was made after', () => {
  it('is said beside "Writes that did not happen", with its line and the later write', () => {
    const md = built(
      user('u1', 'Add the flag'),
      call('w1', 'Edit', { file_path: '/nonexistent/w/src/a.ts', old_string: 'a', new_string: 'b' }),
      result('w1', '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>', { is_error: true }),
      call('r1', 'Read', { file_path: '/nonexistent/w/src/a.ts' }),
      result('r1', '     1→a'),
      call('w2', 'Edit', { file_path: '/nonexistent/w/src/a.ts', old_string: 'a', new_string: 'b' }),
      result('w2', 'The file /nonexistent/w/src/a.ts has been updated.'),
      say('a1', 'Done.'),
    ).md;
    const repo = sections(md).get('Repository Evidence') ?? '';
    expect(repo).toContain('### Writes that did not happen\n\nNone left undone. *verified* — 1 file(s) had a write that was refused or failed, and each was written successfully after it (the latest refusal\'s or failure\'s line → the first write of the file that succeeded after it), latest first: `src/a.ts` 3 → 7.');
  });
});

describe("a Codex patch that did not apply", () => {
  it('is a write that did not happen, though Codex gives it no exit code', () => {
    const at = '2026-04-26T10:00:00Z';
    const item = (payload: Record<string, unknown>): Record<string, unknown> => ({ timestamp: at, type: 'response_item', payload });
    const md = built(
      { timestamp: at, type: 'session_meta', payload: { id: 'c-1', cwd: '/nonexistent/w', cli_version: '0.125.0' } },
      item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Rename the title' }] }),
      item({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'p1', input: '*** Begin Patch\n*** Update File: /nonexistent/w/app/layout.tsx\n@@\n-old\n+new\n*** End Patch' }),
      item({ type: 'custom_tool_call_output', call_id: 'p1', output: 'apply_patch verification failed: Failed to find expected lines in /nonexistent/w/app/layout.tsx:\nold' }),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The patch did not apply.' }] }),
    ).md;
    const repo = sections(md).get('Repository Evidence') ?? '';
    expect(repo).toContain('### Writes that did not happen\n\n*verified* — attempted, never changed afterwards');
    expect(repo).toContain('`app/layout.tsx` (line 4): the tool reported an error: apply_patch verification failed');
  });
});
