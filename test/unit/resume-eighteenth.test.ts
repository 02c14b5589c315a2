import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { call, edit, result, say, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/** Rules from the eighteenth reading (docs/FIDELITY.md) not covered beside the code they changed. */

/** A shell call and its result, on two lines. */
const run = (id: string, command: string, out: string, isError = false) => [call(id, 'Bash', { command }), result(id, out, isError ? { is_error: true } : {})];

/** Codex records: the session's start, an event, a response item, a user's message, an agent's. */
const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.125.0', originator: 'codex_cli_rs' } };
const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'event_msg', payload });
const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
const ask = (text: string) => event({ type: 'user_message', message: text });
const said = (text: string, phase: string) => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }], phase });

type Fixed = { line: number; fixed_line: number; rerun: string; fixed_by?: string };

describe('a failure got past by running again', () => {
  const script = 'uv run python -c "\nimport tempfile\nfrom app import render\nprint(\'link found:\', \'href\' in render())\n"';

  it('says a script that ran again without an error ran, not that it passed', () => {
    const out = built<{ fixed_failures: Fixed[] }>(
      user('u1', 'Add the combined transcript link'),
      edit('e1', 'render.py'),
      updated('e1', 'render.py'),
      call('b1', 'Bash', { command: `cd test && ${script}` }),
      result('b1', '(eval):cd:1: no such file or directory: test', { is_error: true }),
      call('b2', 'Bash', { command: script }),
      result('b2', 'link found: False'),
      say('a1', 'The link is missing from the output.'),
    );
    expect(out.summary.fixed_failures).toMatchObject([{ rerun: 'ran_clean' }]);
    const fixed = out.summary.fixed_failures[0] as Fixed;
    // The command that ran clean, on one line: its first line alone was `uv run python -c "`.
    expect(fixed.fixed_by).toContain('uv run python -c " import tempfile from app import render');
    const md = sections(out.md).get('What is broken / open') ?? out.md;
    expect(md).toContain(`line ${fixed.line}, ran again without an error at line ${fixed.fixed_line}`);
    expect(md).not.toContain('a later run passed');
  });

  it('says a check that ran again and passed passed', () => {
    const out = built<{ fixed_failures: Fixed[] }>(
      user('u1', 'Fix the retry test'),
      edit('e1', 'retry.py'),
      updated('e1', 'retry.py'),
      call('b1', 'Bash', { command: 'pytest tests/test_retry.py' }),
      result('b1', 'Exit code 1\n===== 1 failed, 3 passed in 0.41s =====', { is_error: true }),
      edit('e2', 'retry.py'),
      updated('e2', 'retry.py'),
      call('b2', 'Bash', { command: 'pytest tests/test_retry.py' }),
      result('b2', '===== 4 passed in 0.39s ====='),
      say('a1', 'Fixed.'),
    );
    expect(out.summary.fixed_failures).toMatchObject([{ rerun: 'passed' }]);
    expect(out.md).toContain(`a later run passed at line ${out.summary.fixed_failures[0]?.fixed_line}`);
  });
});

describe("why files the session wrote are not in its latest listing", () => {
  const write = (id: string, file: string, cwd = '/nonexistent/w'): Record<string, unknown>[] => [
    { ...call(id, 'Write', { file_path: file, content: 'x = 1\n' }), cwd },
    { ...result(id, `File created successfully at: ${file}`), cwd },
  ];
  const bash = (id: string, command: string, output: string, cwd = '/nonexistent/w'): Record<string, unknown>[] => [{ ...call(id, 'Bash', { command }), cwd }, { ...result(id, output), cwd }];
  const listing = (md: string): string => md.split('\n').find((l) => l.includes("the session's latest `git status`")) ?? '';

  it('names a commit after the write and a folder outside the session, not an untracked file, for a `git status` listing', () => {
    const { md } = built(
      user('u1', 'Ship the readiness script'),
      ...write('w1', '/nonexistent/w/STATUS.md'),
      ...write('w2', '/home/u/.claude/projects/w/memory/notes.md'),
      ...bash('b1', 'git add STATUS.md && git commit -m "docs: status"', '[main 73f00b8] docs: status\n 1 file changed, 3 insertions(+)'),
      ...write('w3', '/nonexistent/w/docs/adr-21.md'),
      ...write('w4', '/nonexistent/w/README.md'),
      ...bash('b2', 'git status --short', '?? docs/adr-21.md\n'),
      say('a1', 'Shipped.'),
    );
    const line = listing(md);
    expect(line).toContain('listed 1 untracked file(s), never added to git: `docs/adr-21.md`.');
    expect(line).toContain('3 file(s) it wrote before it are not in it: 1 outside the folder the session ran in, which it does not cover; 1 committed at line 7 (staged by name for it, and git counted as many files changed); 1 changed back, or ignored by git.');
    expect(line).not.toContain('untracked), or');
  });

  it('says a listing of named paths did not ask about the others', () => {
    const { md } = built(user('u1', 'Polish the pages'), ...write('w1', '/nonexistent/w/app/page.tsx'), ...write('w2', '/nonexistent/w/lib/db.ts'), ...bash('b1', 'git status --short -- app/page.tsx', '?? app/page.tsx\n'), say('a1', 'Done.'));
    expect(listing(md)).toContain('1 file(s) it wrote before it are not in it: the listing named only the paths it asked about.');
  });

  it('finds a file written by its Windows path in the listing git printed with slashes', () => {
    const cwd = 'C:\\Users\\u\\app';
    const { md } = built(
      { ...user('u1', 'Polish the event page'), cwd },
      ...write('w1', 'C:\\Users\\u\\app\\app\\events\\[slug]\\page.tsx', cwd),
      ...bash('b1', 'git status --short', '?? app/events/[slug]/page.tsx\n', cwd),
      { ...say('a1', 'Done.'), cwd },
    );
    const line = listing(md);
    expect(line).toContain('`app/events/[slug]/page.tsx`.');
    expect(line).not.toContain('not in it');
  });
});

describe('a git log in a repository with no commit', () => {
  it('says the failure is the repository state, not a fault of the command', () => {
    const { md, summary } = built<{ open_failures: { text: string }[] }>(
      user('u1', 'Draft the grant application'),
      call('b1', 'Bash', { command: 'git log --oneline -20' }),
      result('b1', "fatal: your current branch 'master' does not have any commits yet", { is_error: true }),
    );
    expect(summary.open_failures[0]?.text).toBe("`git log --oneline -20` failed: the branch `master` has no commits yet (the repository's state: nothing was committed on it; no fault of the command)");
    expect(md).toContain("that the branch `master` has no commits yet");
  });

  it('still fails a check that failed for another reason in the same output', () => {
    const { summary } = built<{ open_failures: unknown[] }>(
      user('u1', 'Draft the grant application'),
      call('b1', 'Bash', { command: 'git log --oneline -20 && npm test' }),
      result('b1', "fatal: your current branch 'master' does not have any commits yet", { is_error: true }),
    );
    expect(summary.open_failures).toHaveLength(1);
  });
});

describe('a check piped into another program', () => {
  it("says the output decided it, the exit code being the pipe's last program's", async () => {
    const { pipedInto } = await import('../../src/core/shell.js');
    expect(pipedInto('pnpm build 2>&1 | tail -60')).toBe('tail');
    expect(pipedInto('set -o pipefail; pnpm build | tail -60')).toBeNull();
    expect(pipedInto('pnpm build || echo failed')).toBeNull();
    expect(pipedInto('pnpm build')).toBeNull();
    const { md } = built(
      user('u1', 'Build it'),
      edit('e1', 'page.tsx'),
      updated('e1', 'page.tsx'),
      call('b1', 'Bash', { command: 'pnpm build 2>&1 | tail -60' }),
      result('b1', '✓ Compiled successfully in 17.3s'),
      say('a1', 'Built.'),
    );
    expect(sections(md).get('Verification')).toContain('line 5 (piped into `tail`: its output decides): ✓ Compiled successfully in 17.3s');
  });
});

describe("the tail of the agent's last long message", () => {
  it('begins at a word, not inside one, and keeps its bound', async () => {
    const { textTail } = await import('../../src/core/cut.js');
    const words = Array.from({ length: 600 }, (_, i) => `word${i}`).join(' ');
    for (const n of [600, 1200, 1201, 1202, 1203]) {
      const t = textTail(words, n);
      expect(t.length).toBeLessThanOrEqual(n);
      expect(t).toMatch(/^…word\d+ /);
    }
    const lines = `${'a'.repeat(2000)}\nSecond line starts here and goes on.`;
    expect(textTail(lines, 60)).toBe('…Second line starts here and goes on.');
    const md = built(user('u1', 'Write the plan'), say('a1', words)).md;
    expect(sections(md).get('State right now (verbatim tail)')).toMatch(/```text\n…word\d+ word/);
  });
});

describe('a write that failed and was made again', () => {
  it('points at the first write that succeeded after it, not the latest', () => {
    const patch = (id: string) => call(id, 'Edit', { file_path: '/nonexistent/w/app/page.tsx', old_string: 'a', new_string: 'b' });
    const r = built<{ files_redone: unknown }>(
      user('u1', 'Polish the event page'),
      patch('p1'),
      result('p1', 'Error: String to replace not found in file.', { is_error: true }),
      patch('p2'),
      result('p2', 'The file /nonexistent/w/app/page.tsx has been updated successfully.'),
      user('u2', 'Now add the registration form'),
      patch('p3'),
      result('p3', 'The file /nonexistent/w/app/page.tsx has been updated successfully.'),
      say('a1', 'Done.'),
    );
    expect(r.summary.files_redone).toEqual([{ path: '/nonexistent/w/app/page.tsx', line: 3, redone_line: 5 }]);
    expect(r.md).toContain('`app/page.tsx` 3 → 5.');
  });
});

describe('the objective, when more requests came after it', () => {
  it('says how many came and where the latest is, and nothing when none did', () => {
    const { md } = built(user('u1', 'Audit the whole app'), say('a1', 'Audit done: 12 findings.'), user('u2', 'Fix image loading'), say('a2', 'Fixed.'), user('u3', 'Thanks'), user('u4', 'Now help me apply for the grant'));
    expect(sections(md).get('Objective (verbatim)')).toContain("*reported* — the user's first request (line 1). 2 more message(s) came after it, the latest at line 6");
    const alone = built(user('u1', 'Audit the whole app'), say('a1', 'Audit done.')).md;
    expect(sections(alone).get('Objective (verbatim)')).not.toContain('more request(s)');
  });
});

describe("Next Action's pending question", () => {
  it('also quotes a second ask of the same closing message', () => {
    const last = 'Both commits landed.\n\n## FW-007\n\nWant me to (a) lock it or (b) ship it?\n\n**Note:** four ADRs are still uncommitted. Let me know when you want a separate docs commit for those.';
    const { md } = built(user('u1', 'Ship FW-005, then recommend FW-007'), say('a1', last));
    expect(sections(md).get('Next Action')).toContain('«Want me to (a) lock it or (b) ship it?»; the same message also asked «Let me know when you want a separate docs commit for those.»');
    const one = built(user('u1', 'Ship FW-005'), say('a1', 'Done.\n\nWant me to (a) lock it or (b) ship it? I have not touched anything yet — call it.')).md;
    expect(sections(one).get('Next Action')).not.toContain('also asked');
  });
});

describe('a request asked again after the agent answered it', () => {
  it("says how long the earlier reply is, so that it is read before the work is done again", () => {
    const draft = `Submit here: https://example.org/grants ${'The application text, section by section. '.repeat(40)}`;
    const { md } = built(user('u1', 'help me apply for the agentic engineering grant by Superteam. Context: we build an event platform.'), say('a1', draft), user('u2', 'help me apply for the agentic engineering grant by Superteam'), call('b1', 'Bash', { command: 'ls' }));
    expect(sections(md).get('Next Action')).toMatch(/the agent replied to it at line 2, before this one was made: «Submit here: .*…» \(its head; the reply is \d{4} characters, whole at that line of the transcript: read it before doing the work again\)/);
  });
});

describe('an approved plan whose files the session did not all write', () => {
  const PLAN = '# Plan: report corrupted archives\n\n## Files to Modify\n\n1. `deep_manifest.py` - marking logic\n2. `tests/test_unit.py` - tests\n3. `README.md` - document the field';
  const planCall = (id: string) => call(id, 'ExitPlanMode', { plan: PLAN });
  const approved = (id: string) => result(id, 'User has approved your plan. You can now start coding.');

  it('names the files not written after it, in HANDOFF.md and both payloads', () => {
    const r = built<{ plan: { files_not_written?: unknown } }>(
      user('u1', 'Report corrupted archives in the manifest'),
      edit('e0', 'README.md'),
      updated('e0', 'README.md'),
      planCall('p1'),
      approved('p1'),
      edit('e1', 'deep_manifest.py'),
      updated('e1', 'deep_manifest.py'),
      edit('e2', 'tests/test_unit.py'),
      updated('e2', 'tests/test_unit.py'),
      say('a1', 'Done: corrupted archives are marked.'),
    );
    // README.md was written before the plan, for another task: not this plan's work done.
    expect(r.md).toContain('*verified* — of the 3 file(s) the approved plan of line 4 names to change, the session did not write 1 after it: `README.md`.');
    expect(r.summary.plan.files_not_written).toEqual({ plan_line: 4, named: 3, files: ['README.md'] });
    expect(r.llm.plan.files_not_written).toEqual({ plan_line: 4, named: 3, files: ['README.md'] });
  });

  it('says nothing when it wrote them all, or the plan was not approved', () => {
    const all = built(user('u1', 'Report corrupted archives'), planCall('p1'), approved('p1'), ...['deep_manifest.py', 'tests/test_unit.py', 'README.md'].flatMap((f, i) => [edit(`e${i}`, f), updated(`e${i}`, f)]), say('a1', 'Done.'));
    expect(all.md).not.toContain('names to change');
    const refused = built(user('u1', 'Report corrupted archives'), planCall('p1'), result('p1', "The user doesn't want to proceed with this tool use.", { is_error: true }));
    expect(refused.md).not.toContain('names to change');
  });
});

describe("a program the session wrote and ran", () => {
  const write = (id: string, file: string) => [call(id, 'Write', { file_path: `/nonexistent/w/${file}`, content: 'console.log(1)\n' }), result(id, `File created successfully at: /nonexistent/w/${file}`)];

  it('is said unknown when it never ran past its help or a missing prerequisite', () => {
    const { md } = built(
      user('u1', 'Add a wallet readiness script'),
      ...write('w1', 'scripts/readiness.mjs'),
      ...run('b1', 'node scripts/readiness.mjs --help 2>&1 | head -20', 'Usage: pnpm readiness <wallet>'),
      ...run('b2', 'node scripts/readiness.mjs FAKE; echo "exit=$?"', 'warning: API_KEY is not set; the CLI may fail.\n\nerror: `zerion` CLI not found on PATH.\nexit=2'),
      ...run('b3', 'git add scripts/readiness.mjs && git status --short', 'A  scripts/readiness.mjs'),
      say('a1', 'Exit codes work. Shipped.'),
    );
    expect(sections(md).get('Unknowns')).toContain("The session's new program `scripts/readiness.mjs` (created at line 3) ran 2 time(s), never past its setup: 1 printing its help, 1 stopping before its work (the latest, line 7: «error: `zerion` CLI not found on PATH.»). What it does once set up was not seen in this session, whatever was said of it");
  });

  it('says nothing once a run did its work', () => {
    const { md } = built(
      user('u1', 'Add a wallet readiness script'),
      ...write('w1', 'scripts/readiness.mjs'),
      ...run('b1', 'node scripts/readiness.mjs --help', 'Usage: pnpm readiness <wallet>'),
      ...run('b2', 'ZERION_API_KEY=x uv run python scripts/other.py; node scripts/readiness.mjs 7xKXtg2CW', 'wallet ready: 12.5 USDC'),
      say('a1', 'Works.'),
    );
    expect(md).not.toContain('new program');
  });
});

describe('a request whose turn was interrupted', () => {

  it('says it was interrupted, not only that it had no final reply', () => {
    const { md, summary } = built<{ requests: { interrupted_line?: number }[] }>(
      meta,
      event({ type: 'task_started', turn_id: 't1' }),
      ask('Implement the plan'),
      said('Running the visual check now.', 'commentary'),
      event({ type: 'turn_aborted', reason: 'interrupted' }),
      ask('Only the backend now'),
      said('Done: the backend is in place.', 'final_answer'),
    );
    const section = sections(md).get('User requests and corrections') ?? '';
    expect(section).toContain('line 3 — Implement the plan (its turn was interrupted at line 5, before a final reply; the last progress note: line 4)');
    expect(section).toContain('line 6 — Only the backend now (last reply: line 7)');
    expect(summary.requests.map((q) => q.interrupted_line)).toEqual([5, undefined]);
  });
});

describe("the user's answer to the agent's question inside a turn", () => {
  it('is said to be an answer, not a message that came in mid-turn', () => {
    const { md } = built(
      meta,
      event({ type: 'task_started', turn_id: 't1' }),
      event({ type: 'user_message', message: 'What should I build for the hackathon?' }),
      item({ type: 'function_call', name: 'request_user_input', call_id: 'q1', arguments: JSON.stringify({ questions: [{ header: 'Capital', id: 'capital_policy', question: 'How much capital?', options: [{ label: 'Zero required (Recommended)' }] }] }) }),
      item({ type: 'function_call_output', call_id: 'q1', output: JSON.stringify({ answers: { capital_policy: { answers: ['Zero required (Recommended)'] } } }) }),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Build EdgeRunner: a Rust engine.' }], phase: 'final_answer' }),
      event({ type: 'task_complete', turn_id: 't1' }),
    );
    const section = sections(md).get('User requests and corrections') ?? '';
    expect(section).toContain("line 3 — What should I build for the hackathon? (its turn's final reply: line 6, after the user's answer to the agent's question at line 5)");
  });
});

describe('a check of one language after a change in another', () => {
  it('is not said stale for a file its tools never read', () => {
    const { md } = built(
      user('u1', 'Build the web terminal and the engine'),
      edit('e1', 'web/src/App.tsx'),
      updated('e1', 'web/src/App.tsx'),
      ...run('b1', 'npm run build', '✓ built in 2.1s'),
      edit('e2', 'crates/engine/Cargo.toml'),
      updated('e2', 'crates/engine/Cargo.toml'),
      edit('e3', 'crates/engine/src/lib.rs'),
      updated('e3', 'crates/engine/src/lib.rs'),
      ...run('b2', 'cargo test --workspace', 'test result: ok. 13 passed; 0 failed'),
      say('a1', 'Done.'),
    );
    expect(md).not.toContain('`npm run build` last ran');
    const web = built(
      user('u1', 'Build the web terminal'),
      ...run('b1', 'npm run build', '✓ built in 2.1s'),
      edit('e1', 'web/scripts/check.mjs'),
      updated('e1', 'web/scripts/check.mjs'),
      edit('e2', 'crates/engine/src/lib.rs'),
      updated('e2', 'crates/engine/src/lib.rs'),
      ...run('b2', 'cargo test --workspace', 'test result: ok. 13 passed; 0 failed'),
      say('a1', 'Done.'),
    ).md;
    expect(web).toContain('`npm run build` last ran at line 3, before the last change of a file it checks (line 5: check.mjs)');
  });
});

describe('a long answer that ends the session', () => {
  it('is said to be read whole at its line, HANDOFF.md showing its tail', () => {
    const review = `## Findings\n\n${'1. The embedder batches text only; media must embed one by one. '.repeat(60)}\n\nRecommended shape: keep text, add embedding inputs.`;
    const { md } = built(user('u1', 'Review this implementation plan'), say('a1', review));
    expect(sections(md).get('Next Action')).toMatch(new RegExp(`The answer is ${review.length} characters, of which State right now shows the last \\d+: read it whole at line 2 before acting on it\\.`));
    const short = built(user('u1', 'Review this plan'), say('a1', 'Looks right.')).md;
    expect(sections(short).get('Next Action')).not.toContain('The answer is');
  });
});
