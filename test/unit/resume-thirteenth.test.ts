import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { base, call, result, say, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/**
 * Rules from the thirteenth reading (docs/FIDELITY.md): what came between a failure and its fix,
 * every rejection in one list, a count of files that is not a count of writes, and the commands a
 * hook ran.
 */

const REJECTED = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
const edit = (id: string, file: string, text: string) => call(id, 'Edit', { file_path: `/nonexistent/w/${file}`, old_string: 'a', new_string: text });
const updated = (id: string, file: string) => result(id, `The file /nonexistent/w/${file} has been updated.`);

describe('what came between a failure and the run that fixed it', () => {
  it('names the first step after the failure, how many more, and the last two, when there were more than three', () => {
    const { md, summary } = built(
      user('u1', 'Make the CI green'),
      call('t1', 'Bash', { command: 'npm test' }),
      result('t1', 'FAIL src/a.test.ts\nTests: 1 failed', { is_error: true }),
      call('f1', 'Bash', { command: 'npx prettier --write src' }),
      result('f1', 'src/a.ts 12ms'),
      edit('e1', 'src/a.ts', 'b'),
      updated('e1', 'src/a.ts'),
      edit('e2', 'src/b.ts', 'c'),
      updated('e2', 'src/b.ts'),
      edit('e3', 'src/c.ts', 'd'),
      updated('e3', 'src/c.ts'),
      edit('e4', 'src/d.ts', 'e'),
      updated('e4', 'src/d.ts'),
      call('t2', 'Bash', { command: 'npm test' }),
      result('t2', 'Tests: 4 passed'),
      say('a1', 'Green.'),
    );
    const fixed = summary.fixed_failures as { how: string[] }[];
    expect(fixed[0]?.how).toEqual(['`npx prettier --write src` (line 4)', '… 2 more …', 'edit c.ts (line 10)', 'edit d.ts (line 12)']);
    expect(md).toContain('- line 3, a later run passed at line 15 (in between: `npx prettier --write src` (line 4); … 2 more …; edit c.ts (line 10); edit d.ts (line 12)):');
  });

  it('names them all when there were three or fewer', () => {
    const { summary } = built(
      user('u1', 'Make the CI green'),
      call('t1', 'Bash', { command: 'npm test' }),
      result('t1', 'FAIL src/a.test.ts\nTests: 1 failed', { is_error: true }),
      edit('e1', 'src/a.ts', 'b'),
      updated('e1', 'src/a.ts'),
      call('t2', 'Bash', { command: 'npm test' }),
      result('t2', 'Tests: 4 passed'),
    );
    expect((summary.fixed_failures as { how: string[] }[])[0]?.how).toEqual(['edit a.ts (line 4)']);
  });
});

describe('the calls the user rejected without a word', () => {
  it('are every rejection, latest last: a write never made after is listed too, and said to be that', () => {
    const md = built(
      user('u1', 'Recolour the timeline'),
      edit('e1', 'timeline.html', 'b'),
      user('r1', [{ type: 'tool_result', tool_use_id: 'e1', is_error: true, content: REJECTED }]),
      user('u2', 'Use the library instead'),
      edit('e2', 'timeline.html', 'c'),
      updated('e2', 'timeline.html'),
      edit('e3', 'timeline.css', 'd'),
      user('r3', [{ type: 'tool_result', tool_use_id: 'e3', is_error: true, content: REJECTED }]),
    ).md;
    const said = sections(md).get('User requests and corrections') ?? '';
    expect(said).toContain('- line 3 — rejected the call at line 2: `Edit …/nonexistent/w/timeline.html` (the user\'s next message: line 4)\n- line 8 — rejected the call at line 7: `Edit …/nonexistent/w/timeline.css` — never written after (Writes that did not happen)');
  });
});

describe('a file whose write was refused twice, then made', () => {
  it('is counted as one file, not as one write', () => {
    const md = built(
      user('u1', 'Fix the filter'),
      edit('e1', 'src/t.html', 'b'),
      user('r1', [{ type: 'tool_result', tool_use_id: 'e1', is_error: true, content: REJECTED }]),
      edit('e2', 'src/t.html', 'c'),
      user('r2', [{ type: 'tool_result', tool_use_id: 'e2', is_error: true, content: REJECTED }]),
      edit('e3', 'src/t.html', 'd'),
      updated('e3', 'src/t.html'),
    ).md;
    expect(sections(md).get('Repository Evidence')).toContain('1 file(s) had a write that was refused or failed, and each was written successfully after it (the latest refusal\'s or failure\'s line → the first write of the file that succeeded after it), latest first: `src/t.html` 5 → 7.');
  });
});

describe('commands a hook ran', () => {
  const hook = (uuid: string, content: string) => ({ ...base, type: 'system', uuid, content, isMeta: false, level: 'info' });

  it('are said to be the hook\'s, not the agent\'s', () => {
    const md = built(
      user('u1', 'Recolour the timeline'),
      edit('e1', 'timeline.html', 'b'),
      updated('e1', 'timeline.html'),
      hook('h1', '\u001b[1mPostToolUse:Edit\u001b[22m [uv run ruff format] completed successfully: 24 files left unchanged'),
      say('a1', 'Done.'),
    ).md;
    expect(md).toContain('Other shell commands: 1 (all of them run by a hook, not by the agent; not checks; the calls of other tools are not counted here; every call is in TOOLS.md).');
  });

  it('are counted apart from the agent\'s own', () => {
    const md = built(
      user('u1', 'Recolour the timeline'),
      call('b1', 'Bash', { command: 'ls templates' }),
      result('b1', 'timeline.html'),
      hook('h1', '\u001b[1mPostToolUse:Edit\u001b[22m [uv run ruff format] completed successfully: 24 files left unchanged'),
    ).md;
    expect(md).toContain('Other shell commands: 2 (1 of them run by a hook, not by the agent; not checks;');
  });
});

describe("a session's first time", () => {
  const at = (ts: string, r: Record<string, unknown>): Record<string, unknown> => ({ ...r, timestamp: ts });
  const caveat = (uuid: string): Record<string, unknown> => ({ ...user(uuid, 'Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.'), isMeta: true });

  it('is not a caveat written after the last turn with an earlier time', () => {
    const { md } = built(at('2026-04-26T10:03:12.148Z', user('u1', 'Set up CI')), at('2026-04-26T10:20:00.000Z', say('a1', 'Done.')), at('2026-04-26T10:00:08.134Z', caveat('m1')), at('2026-04-26T10:21:00.000Z', user('u2', '<command-name>/clear</command-name>')));
    expect(md).toContain('first_turn_at: 2026-04-26T10:03:12.148Z\n');
  });

  it('is a caveat that came first, when nothing came before it', () => {
    const { md } = built(at('2026-04-26T10:00:08.134Z', caveat('m1')), at('2026-04-26T10:03:12.148Z', user('u1', 'Set up CI')));
    expect(md).toContain('first_turn_at: 2026-04-26T10:00:08.134Z\n');
  });
});

describe("the agent's last reply to each request", () => {
  it('is given with each request, in HANDOFF.md and the payloads, so that what became of an early one can be looked up', () => {
    const { md, summary, llm } = built(
      user('u1', 'Update the roadmap with the Visa research'),
      say('a1', 'Looking at the roadmap.'),
      say('a2', 'Done: the roadmap has the Visa research in Phase 3.'),
      user('u2', 'Now index the decisions'),
      say('a3', 'Indexed: ADR-021 to 024 are in DECISIONS.md.'),
      user('u3', 'Ship the demo'),
    );
    const said = sections(md).get('User requests and corrections') ?? '';
    expect(said).toContain('- line 1 — Update the roadmap with the Visa research (last reply: line 3)');
    expect(said).toContain('- line 4 — Now index the decisions (last reply: line 5)');
    expect(said).toMatch(/^- line 6 — Ship the demo$/m);
    const requests = summary.requests as { line: number; replied_line?: number }[];
    expect(requests.map((q) => q.replied_line ?? null)).toEqual([3, 5, null]);
    expect(llm.requests).toEqual(summary.requests);
  });
});

describe('claims to double-check when none is contradicted', () => {
  it('says that none is contradicted, not that none needs checking', () => {
    const md = built(user('u1', 'Ship the demo'), say('a1', 'Shipped: the demo works end to end.')).md;
    expect(sections(md).get('Claims to double-check')).toBe('None the transcript contradicts, and no plan step marked done as tested with no run to prove it (other claims no run proves are not checked here).');
  });
});
