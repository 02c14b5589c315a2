import { describe, expect, it } from 'vitest';
import { REJECTED, agent, call, result, say, user } from './claude-records.js';
import { jobs } from '../../src/core/render/handoff-md.js';
import { shellWrites } from '../../src/core/shell.js';
import { ingestText, jsonl } from './ingest-helper.js';
import { analysed, built } from './ledger-helper.js';

/**
 * Rules from the twenty-fifth reading (docs/FIDELITY.md): handoffs of sessions cut in the middle,
 * read as the agent that resumes them would.
 */

const ask = (text: string) => user('u1', text);
/** A `###` section of HANDOFF.md, up to the next heading. */
const sub = (md: string, title: string): string => md.split(`### ${title}\n`)[1]?.split(/\n#{2,3} /)[0]?.trim() ?? '';
const bash = (id: string, command: string) => call(id, 'Bash', { command });

describe('a git commit whose output was cut before its hash', () => {
  const commit = (id: string, subject: string) => bash(id, `git commit -m "${subject}" 2>&1 | tail -3`);

  it('is listed as made when what it printed only a commit prints, with its hash and push unknown', () => {
    const { md, summary } = built(ask('Commit the scaffold'), commit('c1', 'Initial scaffold'), result('c1', ' create mode 100644 src/a.py\n create mode 100644 src/b.py'), say('a1', 'Committed.'));
    const commits = sub(md, 'Commits made in this session');
    expect(commits).not.toMatch(/^None/);
    expect(commits).toContain("*verified* — made by the session's `git commit`, whose output was cut before the line that names the hash");
    expect(commits).toContain('- «Initial scaffold» (line 3)');
    expect(commits).toContain('its hash, and whether a push took it, are not known');
    expect((summary as { session_git: { commits_without_hash?: unknown } }).session_git.commits_without_hash).toEqual([{ subject: 'Initial scaffold', line: 3, made: true }]);
  });

  it('is said beside the commits git named, and as unknown when its output shows no commit', () => {
    const { md, summary } = built(
      ask('Commit both'),
      bash('c1', 'git commit -m "Named one"'),
      result('c1', '[main 1a2b3c4] Named one\n 1 file changed, 2 insertions(+)'),
      commit('c2', 'Quiet one'),
      result('c2', ''),
      say('a1', 'Done.'),
    );
    const commits = sub(md, 'Commits made in this session');
    expect(commits).toContain('- `1a2b3c4` Named one (line 3; 1 file changed) — not pushed');
    expect(commits).toContain("*unknown* — the session's `git commit` printed no hash and nothing else that shows a commit was made");
    expect(commits).toContain('- «Quiet one» (line 5)');
    expect((summary as { session_git: { commits_without_hash?: unknown } }).session_git.commits_without_hash).toEqual([{ subject: 'Quiet one', line: 5, made: false }]);
  });

  it('is named, and not listed apart, once a later git log shows its hash', () => {
    const { md, summary } = built(ask('Commit'), commit('c1', 'Initial scaffold'), result('c1', ' create mode 100644 src/a.py'), bash('l1', 'git log --oneline -3'), result('l1', '9f8e7d6 Initial scaffold'), say('a1', 'Done.'));
    const commits = sub(md, 'Commits made in this session');
    expect(commits).toContain('`9f8e7d6` Initial scaffold');
    expect(commits).not.toContain('cut before the line that names the hash');
    expect((summary as { session_git: Record<string, unknown> }).session_git).not.toHaveProperty('commits_without_hash');
  });
});

describe('a command that failed, then ran clean, in Verification', () => {
  it("says it ran without an error, with its own last line as evidence, not Claude Code's note that the folder was reset", () => {
    const cmd = 'cd /tmp && extract --help';
    const { md } = built(
      ask('Make the tool installable'),
      bash('i1', 'uv tool install .'),
      result('i1', 'Resolved 3 packages\nInstalled 1 executable: extract'),
      bash('t1', cmd),
      result('t1', "Exit code 1\nModuleNotFoundError: No module named 'extract'", { is_error: true }),
      call('e1', 'Edit', { file_path: '/nonexistent/w/pyproject.toml', old_string: 'a', new_string: 'b' }),
      result('e1', 'The file /nonexistent/w/pyproject.toml has been updated.'),
      bash('t2', cmd),
      result('t2', 'usage: extract [-h] pr_input\n\nUseful for framing feedback.\nShell cwd was reset to /Users/dev/w'),
      say('a1', 'It works now.'),
    );
    const row = md.split('\n').find((l) => l.startsWith('| `cd /tmp && extract --help`')) ?? '';
    expect(row).toContain('| ran without an error (no verdict: not a test, build, type check or lint) |');
    expect(row).toContain('line 9: Useful for framing feedback.');
    expect(row).not.toContain('Shell cwd was reset');
    expect(md).toContain('ran again without an error at line 9');
  });
});

describe('a command with a pipe', () => {
  const cmd = 'rg -n "get_image|get_audio" src/embedder.py';

  it('is quoted as it ran in a sentence, and escaped only inside a table row', () => {
    const { md } = built(ask('Find the media methods'), bash('t1', cmd));
    const ended = md.split('\n').find((l) => l.startsWith('**How it ended')) ?? '';
    expect(ended).toContain('`rg -n "get_image|get_audio" src/embedder.py`');
    expect(ended).not.toContain('\\|');
    const checked = built(ask('Test'), bash('t1', 'pytest -q | tail -5'), result('t1', '3 passed in 0.1s'), say('a1', 'Passed.'));
    expect(checked.md).toContain('| `pytest -q \\| tail -5` | passed |');
  });
});

describe('a todo list written before the work it lists', () => {
  const list = call('t1', 'TodoWrite', { todos: [{ content: 'Scaffold the crate', status: 'in_progress', activeForm: 'Scaffolding' }, { content: 'Write the tests', status: 'pending', activeForm: 'Writing' }] });
  const write = (id: string, file: string) => [call(id, 'Write', { file_path: `/nonexistent/w/${file}`, content: 'x' }), result(id, `File created successfully at: /nonexistent/w/${file}`)];

  it('says it was not updated while files were written after it', () => {
    const { md } = built(ask('Build the engine'), list, result('t1', 'Todos have been modified successfully.'), ...write('w1', 'src/a.rs'), ...write('w2', 'src/b.rs'), say('a1', 'Done.'));
    expect(md).toContain("*reported* — from the agent's latest todo/plan list (line 2) — not updated since, while 2 file(s) were written after it (the latest at line 7): which of its items are done may have changed");
  });

  it('says nothing of it when the list came after the writes, or every item is done', () => {
    const after = built(ask('Build the engine'), ...write('w1', 'src/a.rs'), list, result('t1', 'Todos have been modified successfully.'), say('a1', 'Done.'));
    expect(after.md).not.toContain('not updated since');
    const done = call('t2', 'TodoWrite', { todos: [{ content: 'Scaffold the crate', status: 'completed', activeForm: 'Scaffolding' }] });
    const all = built(ask('Build the engine'), done, result('t2', 'Todos have been modified successfully.'), ...write('w1', 'src/a.rs'), say('a1', 'Done.'));
    expect(all.md).not.toContain('not updated since');
  });
});

describe('a program run with cargo run after the last change', () => {
  it('is said as the build it is, beside no check having run', () => {
    const { md } = built(
      ask('Fix the latency rounding'),
      call('e1', 'Edit', { file_path: '/nonexistent/w/src/engine.rs', old_string: 'a', new_string: 'b' }),
      result('e1', 'The file /nonexistent/w/src/engine.rs has been updated.'),
      bash('r1', 'cargo run -p edgerunner -- serve --bind 127.0.0.1:8080'),
      result('r1', '   Compiling edgerunner v0.1.0\n    Finished `dev` profile\n     Running `target/debug/edgerunner serve`'),
      say('a1', 'Server is up.'),
    );
    expect(md).toContain('No test, type check or lint ran in this session (its last file change: line 3), and no build but `cargo run -p edgerunner -- serve --bind 127.0.0.1:8080` (line 4), which compiles the code to run the program: no check (whether it built and started is in its output)');
    expect(md).not.toContain('No test, build, type check or lint ran');
  });
});

describe('background jobs that all ended, at a budget level that lists no ended job', () => {
  it('says none was left running, and which ended last, instead of an empty list', () => {
    const { state } = ingestText(
      jsonl(
        ask('Fetch the data in the background'),
        call('b1', 'Bash', { command: 'python src/fetch.py', run_in_background: true, description: 'Fetch' }),
        result('b1', 'Command running in background with ID: ff01'),
        user('n1', '<task-notification>\n<task-id>ff01</task-id>\n<status>completed</status>\n<summary>Background command "Fetch" completed (exit code 0)</summary>\n</task-notification>'),
      ),
    );
    const a = analysed(state);
    expect(jobs(a, 0)).toContain('- completed (line 4): `ff01` (Bash «Fetch», started line 2)');
    for (const level of [1, 2] as const) {
      expect(jobs(a, level).trim()).toBe("### Background jobs\n\n*verified* — none left running: the 1 job(s) started in the background all ended, the latest to end `ff01` (Bash «Fetch», started line 2), completed (line 4) (each in HANDOFF.summary.json's `jobs`).");
    }
    // The last level says it in a line (the twenty-ninth reading: an agent's "the server remains running" stood alone).
    // By its command and how it ended (the fortieth reading: the last to end was the server the agent had stopped).
    expect(jobs(a, 3).trim()).toBe("### Background jobs\n\n*verified* — none left running: the 1 job(s) all ended, the last `python src/fetch.py` (started line 2), completed (line 4) (HANDOFF.summary.json's `jobs`).");
  });
});

describe('the end, when the agent reasoned after the last tool result (Codex)', () => {
  const meta = { timestamp: '2026-02-23T11:48:09Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
  const asked = { timestamp: '2026-02-23T11:55:00Z', type: 'event_msg', payload: { type: 'user_message', message: 'Check the build', images: [] } };
  const exec = [item({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'ls' }), call_id: 'c1' }), item({ type: 'function_call_output', call_id: 'c1', output: 'Process exited with code 0\nOutput:\nREADME.md' })];

  it('is that reasoning, after the result, not the result', () => {
    const { md } = built(meta, asked, ...exec, item({ type: 'reasoning', summary: [{ type: 'summary_text', text: '**Reading the listing**' }], content: null }));
    expect(md).toContain("**How it ended: mid-work** (line 5) — *inferred*: the transcript ends on the agent's reasoning (line 5) after a tool result (line 4), before the agent replied");
    const bare = built(meta, asked, ...exec);
    expect(bare.md).toContain('**How it ended: mid-work** (line 4) — *inferred*: the transcript ends on a tool result, before the agent replied');
  });
});

describe('checks not run', () => {
  const editCall = call('e1', 'Edit', { file_path: '/nonexistent/w/src/team.ts', old_string: 'a', new_string: 'b' });
  const edited = result('e1', 'The file /nonexistent/w/src/team.ts has been updated.');

  it('say that only static checks ran after the last change, when the user asked for tests', () => {
    const { md } = built(ask('can you run lint, test and check-types'), editCall, edited, bash('l1', 'pnpm lint'), result('l1', '✔ No ESLint warnings or errors'), say('a1', 'Lint passes.'));
    expect(sub(md, 'Checks Not Run')).toContain('*verified* No test or build ran after the last file change (line 3): only static checks did (`pnpm lint` (line 5, passed)); the user asked for them at line 1: «can you run lint, test and check-types» — of those, no test, no type check ran');
    const unasked = built(ask('tidy the team code'), editCall, edited, bash('l1', 'pnpm lint'), result('l1', '✔ No ESLint warnings or errors'), say('a1', 'Lint passes.'));
    expect(sub(unasked.md, 'Checks Not Run')).toBe('None');
  });

  it('say "in this session" when no check ran at all', () => {
    const { md } = built(ask('tidy the team code'), editCall, edited, say('a1', 'Done.'));
    expect(sub(md, 'Checks Not Run')).toContain('No test, build, type check or lint ran in this session (its last file change: line 3)');
  });

  it('count a todo step that ends "then validate" as a claim of a check', () => {
    const list = call('t1', 'TodoWrite', { todos: [{ content: 'Improve the team mutations, then validate.', status: 'completed', activeForm: 'Improving' }] });
    const { md } = built(ask('Make team updates optimistic'), editCall, edited, list, result('t1', 'Todos have been modified successfully.'), say('a1', 'Done.'));
    expect(md).toContain('the plan marks «Improve the team mutations, then validate.» done, but no test, build, type check or lint ran');
  });
});

describe('a long plan kept as its head', () => {
  it('says its outline is of the head, and where the rest is', () => {
    const steps = Array.from({ length: 40 }, (_, i) => `### ${i + 1}. Step ${i + 1}\n\n${'Change the archive reader carefully and test it well. '.repeat(3)}`).join('\n\n');
    const long = `# Plan: tar support\n\n${steps}\n\n## Files to Modify\n\n- \`README.md\``;
    expect(long.length).toBeGreaterThan(6000);
    const planCall = agent('a-p1', [{ type: 'tool_use', id: 'p1', name: 'ExitPlanMode', input: { plan: long } }]);
    const { md } = built(ask('Plan it'), planCall, user('r-p1', [{ type: 'tool_result', tool_use_id: 'p1', content: 'User has approved your plan. You can now start coding.' }]));
    // Since the forty-first stop the headings of the part left out follow (resume-fortyfirst).
    expect(md).toMatch(new RegExp(`The headings and list items of its first \\d+ characters — the rest, \\d+ more, is only in the transcript at line 2; its headings: «### \\d+\\. Step \\d+».*? \\(the plan is ${long.length} characters`));
    expect(md).not.toContain('Its headings and list items (the plan is');
  });
});

describe('files a merge brought in', () => {
  it('are marked as the merge\'s work in Files changed, apart from what the session wrote itself', () => {
    const { md } = built(
      ask('Merge the teammates\' branches'),
      call('e1', 'Edit', { file_path: '/nonexistent/w/README.md', old_string: 'a', new_string: 'b' }),
      result('e1', 'The file /nonexistent/w/README.md has been updated.'),
      bash('m1', 'git merge alice/research bob/research --no-ff -m "Merge round 1"'),
      result('m1', "Merge made by the 'octopus' strategy.\n work/research-alice.md | 40 ++++\n create mode 100644 work/research-alice.md"),
      say('a1', 'Merged.'),
    );
    const row = (file: string) => md.split('\n').find((l) => l.startsWith(`| \`${file}\``)) ?? '';
    expect(row('work/research-alice.md')).toContain("| create (by the session's git merge or pull: work it brought in) | 5 |");
    expect(row('README.md')).not.toContain('git merge');
  });
});

describe('a Codex turn whose last message is a progress note', () => {
  const meta = { timestamp: '2026-02-24T09:48:09Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
  const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-24T09:50:00Z', type: 'event_msg', payload });
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-24T09:50:00Z', type: 'response_item', payload });
  const turn = [event({ type: 'task_started', turn_id: 't', model_context_window: 258400 }), event({ type: 'user_message', message: 'Fix the sync view', images: [] })];
  const note = item({ type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'I patched the view; now checking the hook.' }] });

  it('ends mid-work while its turn recorded no end, and done once it did', () => {
    const { md } = built(meta, ...turn, note);
    expect(md).toContain("**How it ended: mid-work** (line 4) — *inferred*: the transcript ends on the agent's progress note (the harness marked it commentary, not a final answer), and its turn recorded no end");
    expect(md).not.toContain('ask the user what comes next');
    const closed = built(meta, ...turn, note, event({ type: 'task_complete', turn_id: 't' }));
    expect(closed.md).toMatch(/\*\*How it ended: done\*\*/);
  });
});

describe('a failed pytest run', () => {
  it('names its first failed test beside the tally', () => {
    const out = '=========================== short test summary info ============================\nFAILED tests/test_unit.py::TestGen::test_invalid_input - AssertionError: assert ...\nFAILED tests/test_unit.py::TestGen::test_other\n!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!\n========================= 2 failed, 37 passed in 2.95s =========================';
    const { md } = built(ask('Add tar support'), bash('p1', 'pytest -x'), result('p1', `Exit code 1\n${out}`, { is_error: true }), say('a1', 'Two tests fail.'));
    expect(md).toContain('FAILED tests/test_unit.py::TestGen::test_invalid_input (and 1 more) — ========================= 2 failed, 37 passed in 2.95s');
  });
});

describe('a session whose subagent works in its own transcript', () => {
  const task = agent('a-t1', [{ type: 'tool_use', id: 't1', name: 'Task', input: { description: 'Research partners', prompt: 'Research the card partners and add a brief to ROADMAP.md', subagent_type: 'general-purpose' } }]);
  const report = result('t1', 'Brief added to ROADMAP.md under Phase 3.');

  it('says what the subagent wrote or committed is not in it, where it said none', () => {
    const { md } = built(ask('Research the partners'), task, report, say('a1', 'Done: the brief is in ROADMAP.md.'));
    expect(sub(md, 'Files changed in this session')).toBe('None the transcript shows. *unknown* — the subagent the session started (line 2), whose own calls are in its own transcript, not this one (its report: line 3; it says «Brief added to ROADMAP.md under Phase 3.»), may have written files: whether any did is not known (`git status` in the repository says).');
    expect(sub(md, 'Commits made in this session')).toContain('None seen.\n\n*unknown* — the subagent the session started (line 2), whose own calls are in its own transcript, not this one (its report: line 3), may have committed: a commit of theirs would not show here.');
    expect(md).not.toContain('No file changed in this session');
  });

  it('and beside the files the session wrote itself', () => {
    const { md } = built(ask('Research the partners'), task, report, call('e1', 'Edit', { file_path: '/nonexistent/w/README.md', old_string: 'a', new_string: 'b' }), result('e1', 'The file /nonexistent/w/README.md has been updated.'), say('a1', 'Done.'));
    expect(sub(md, 'Files changed in this session')).toContain('*unknown* — the subagent the session started (line 2), whose own calls are in its own transcript, not this one (its report: line 3; it says «Brief added to ROADMAP.md under Phase 3.»), may have written others, which this transcript does not show');
  });

  it('says nothing of it when the session started none, or its report changed nothing', () => {
    const { md } = built(ask('Research the partners'), say('a1', 'Done.'));
    expect(md).not.toContain('subagent the session started');
    const research = built(ask('Research the partners'), task, result('t1', 'Three partners were found: KAST added card support in May; Rain released an API.'), say('a1', 'Here is what I found.'));
    expect(research.md).not.toContain('subagent the session started');
    const committed = built(ask('Research the partners'), task, result('t1', 'Done. I committed 5ea305f on carol/research-beads.'), say('a1', 'Merged soon.'));
    expect(committed.md).toContain('subagent the session started (line 2)');
  });
});

describe('an interruption the user followed with a request', () => {
  it('is no open failure: the request says how to proceed', () => {
    const plan = agent('a-p1', [{ type: 'tool_use', id: 'p1', name: 'ExitPlanMode', input: { plan: 'Move the + button right of the shortcut hint.' } }]);
    const refused = result('p1', REJECTED, { is_error: true });
    const failures = (md: string): string => md.split('## Failures And Blockers\n\n')[1]?.split('\n## ')[0]?.trim() ?? '';
    const stopped = built(ask('Move the + out of the search bar'), plan, refused);
    expect(failures(stopped.md)).toContain('interrupted (line 3)');
    const { md } = built(ask('Move the + out of the search bar'), plan, refused, user('u2', 'Completely outside the search bar'));
    expect(failures(md)).toBe('None');
  });
});

describe('a last message that announces the next step', () => {
  it('ends mid-work: the call it announced is not in the transcript', () => {
    const { md } = built(ask('Add the combined link'), say('a1', 'The function duplicates the loop. Let me fix this:'));
    expect(md).toContain("**How it ended: mid-work** (line 2) — *inferred*: the agent's last message announces a next step and nothing came after it: «The function duplicates the loop. Let me fix this:»");
    const answered = built(ask('Add the combined link'), say('a1', 'Done: the link is added.'));
    expect(answered.md).not.toContain('announces a next step');
  });
});

describe('a plan file named only if it exists', () => {
  it('is counted apart from the files not written, and named', () => {
    const text = '# Plan: tar support\n\n## Files to Modify\n\n- `deep_manifest/deep_manifest.py` - add tar\n- `README.md` - document tar\n- `deep_manifest.md` - update the spec (if exists)\n';
    const planCall = agent('a-p1', [{ type: 'tool_use', id: 'p1', name: 'ExitPlanMode', input: { plan: text } }]);
    const approved = user('r-p1', [{ type: 'tool_result', tool_use_id: 'p1', content: 'User has approved your plan. You can now start coding.' }]);
    const edit = call('e1', 'Edit', { file_path: '/nonexistent/w/deep_manifest/deep_manifest.py', old_string: 'a', new_string: 'b' });
    const { md } = built(ask('Add tar support'), planCall, approved, edit, result('e1', 'The file /nonexistent/w/deep_manifest/deep_manifest.py has been updated.'), say('a1', 'Done.'));
    expect(md).toContain('of the 2 file(s) the approved plan of line 2 names to change, the session did not write 1 after it: `README.md` (nor the 1 file it names only if it exists or as optional: `deep_manifest.md`)');
  });
});

describe('a Codex turn the user aborted', () => {
  const meta = { timestamp: '2025-09-25T01:28:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.40.0', originator: 'codex_cli_rs' } };
  const event = (payload: Record<string, unknown>) => ({ timestamp: '2025-09-25T01:28:35Z', type: 'event_msg', payload });
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2025-09-25T01:28:35Z', type: 'response_item', payload });
  const asked = event({ type: 'user_message', message: 'Make the team sheet faster', images: [] });

  it('says the reasoning Codex wrote after the abort came after it', () => {
    const { md } = built(meta, asked, event({ type: 'turn_aborted', reason: 'interrupted' }), item({ type: 'reasoning', summary: [{ type: 'summary_text', text: '**Adding a hook for one team**' }], content: null }));
    expect(md).toContain('**How it ended: interrupted** (line 3) — *inferred*: the user interrupted the agent, and only its reasoning came after (line 4)');
    const bare = built(meta, asked, event({ type: 'turn_aborted', reason: 'interrupted' }));
    expect(bare.md).toContain('the user interrupted the agent and nothing came after');
  });
});

describe('a transcript that ends on a write with no result', () => {
  it('says the file may or may not have been written', () => {
    const { md } = built(ask('Write the readiness doc'), call('w1', 'Write', { file_path: '/nonexistent/w/docs/readiness.md', content: '# Readiness' }));
    expect(md).toContain('*unknown* — the call the transcript ends on (line 2) would write `docs/readiness.md`: it has no result, so whether it did is not known (the file on disk says).');
    expect(md).toContain('3. No file change is recorded, but the call the transcript ends on (line 2) would write `/nonexistent/w/docs/readiness.md`: see whether it is on disk');
    expect(md).not.toContain('No file changed in this session');
    const written = built(ask('Write the readiness doc'), call('w1', 'Write', { file_path: '/nonexistent/w/docs/readiness.md', content: '# Readiness' }), result('w1', 'File created successfully at: /nonexistent/w/docs/readiness.md'), say('a1', 'Written.'));
    expect(written.md).not.toContain('the call the transcript ends on');
  });
});

describe('a commit cut before its hash, then `gh repo create --push`', () => {
  it('says a push followed it', () => {
    const { md } = built(
      ask('Commit and publish'),
      bash('c1', 'git commit -m "Initial scaffold" 2>&1 | tail -3'),
      result('c1', ' create mode 100644 src/a.py'),
      bash('g1', 'gh repo create acme/dash --public --source=. --push'),
      result('g1', 'https://github.com/acme/dash\nTo https://github.com/acme/dash.git\n * [new branch]      HEAD -> main\nbranch \'main\' set up to track \'origin/main\'.'),
      say('a1', 'Published.'),
    );
    // It pushed `HEAD`, and nothing moved HEAD between: the commit went with it (thirty-first reading).
    expect(md).toContain('- «Initial scaffold» (line 3) — the push at line 5 sent `HEAD`, which held it (nothing moved HEAD between: no checkout, reset, pull or rebase): the commit is on the remote');
  });
});

describe('a Python or Node one-liner that writes a file by name', () => {
  it('is a write of that file', () => {
    expect(shellWrites(`python3 -c "\nimport json\nopen('data/raw/meta.json', 'w').write(json.dumps({}))"`)).toEqual([{ path: 'data/raw/meta.json', how: 'write' }]);
    expect(shellWrites(`python -c "open('log.txt', 'a').write('x')"`)).toEqual([{ path: 'log.txt', how: 'append' }]);
    expect(shellWrites(`python3 -c "from pathlib import Path; Path('n.md').write_text('hi')"`)).toEqual([{ path: 'n.md', how: 'write' }]);
    expect(shellWrites(`node -e "require('fs').appendFileSync('out.txt', 'x')"`)).toEqual([{ path: 'out.txt', how: 'append' }]);
    expect(shellWrites(`python -c "print(open('a.txt').read())"`)).toEqual([]);
    expect(shellWrites(`python -c "open(name, 'w')"`)).toEqual([]);
  });

  it('is listed in Files changed', () => {
    const { md } = built(ask('Save the fetch window'), bash('p1', `python3 -c "open('data/raw/meta.json', 'w').write('{}'); print('meta saved')"`), result('p1', 'meta saved'), say('a1', 'Saved.'));
    expect(md).toMatch(/\| `data\/raw\/meta\.json` \| write \| 3 \|/);
  });
});

describe('Claude Code calls made side by side, none answered', () => {
  it('are said all, not only the last', () => {
    const read = (id: string, file: string) => call(id, 'Read', { file_path: `/nonexistent/w/${file}` });
    const { md } = built(ask('Explain the packaging'), say('a1', 'Now let me read the core files:'), read('r1', 'pyproject.toml'), read('r2', 'README.md'), read('r3', '.gitignore'));
    expect(md).toContain('Its last 3 calls (lines 3-5: Read `/nonexistent/w/pyproject.toml`, Read `/nonexistent/w/README.md`, Read `/nonexistent/w/.gitignore`) have no result: whether they ran is not known');
    const one = built(ask('Explain the packaging'), say('a1', 'Now let me read it:'), read('r1', 'pyproject.toml'));
    expect(one.md).toContain('Its last call (line 3: Read `/nonexistent/w/pyproject.toml`) has no result');
  });
});
