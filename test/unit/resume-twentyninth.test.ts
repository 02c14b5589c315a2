import { describe, expect, it } from 'vitest';
import { decideOutcome } from '../../src/core/outcome.js';
import { call, edit, result, say, updated, user } from './claude-records.js';
import { copyInstall } from '../../src/core/shell.js';
import { built } from './ledger-helper.js';

/**
 * Rules from the twenty-ninth reading (docs/FIDELITY.md): eight sessions cut at points no reading
 * had used, each handoff read alone, then against its transcript.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });

/** Codex records: the session's first line (of a CLI version), an event, a response item. */
const codexMeta = (version = '0.144.1') => ({ timestamp: '2026-07-10T18:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/nonexistent/w', cli_version: version, originator: 'codex_cli_rs' } });
const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-07-10T18:00:10Z', type: 'event_msg', payload });
const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-07-10T18:00:10Z', type: 'response_item', payload });

describe("a commit whose hash `| tail -3` cut away (posthog at 519: «the session made no commit after»)", () => {
  const session = [
    user('u1', 'Set up the repository and push it'),
    bash('g1', 'git init -b main'),
    result('g1', 'Initialized empty Git repository in /nonexistent/w/.git/'),
    edit('e1', 'src/fetch.py'),
    updated('e1', 'src/fetch.py'),
    bash('g2', 'git add -A && git status --short | head -30'),
    result('g2', 'A  README.md\nA  src/fetch.py'),
    bash('g3', 'git commit -m "Initial scaffold" 2>&1 | tail -3'),
    result('g3', ' create mode 100644 README.md\n create mode 100644 src/fetch.py'),
    edit('e2', 'app.py'),
    updated('e2', 'app.py'),
    say('a1', 'Pushed; now the dashboard.'),
  ];

  it('ends "no commit yet" and says the listing it took was committed, and what was written since', () => {
    const { md, summary } = built<{ session_git: { no_commits: unknown } }>(...session);
    expect(md).not.toContain('made no commit after');
    expect(summary.session_git.no_commits).toBeNull();
    expect(md).toContain("the session's latest `git status` (line 7) showed 2 file(s), all staged, and its commit at line 9 took them. The session wrote 1 file(s) after that commit, which no later commit in the transcript took: `app.py` (line 11).");
    expect(md).not.toContain('2 uncommitted file(s)');
  });

  it('but not when the commit printed nothing only a commit prints', () => {
    const quiet = session.map((r) => (r === session[8] ? result('g3', '') : r));
    const { md } = built(...quiet);
    expect(md).toContain('made no commit after');
  });
});

describe('a command that could not find the file it showed, then a read of it (rave-era at 54, agentcmd at 46)', () => {
  const notFound = (id: string, path: string) => result(id, `Exit code 1\nsed: ${path}: No such file or directory`, { is_error: true });

  it('is fixed by the read of the same name at its real path', () => {
    const { md, summary } = built<{ fixed_failures: { rerun: string; fixed_line: number }[]; passed_over: unknown[] }>(
      user('u1', 'Review the list hook'),
      bash('r1', "sed -n '1,200p' packages/ui/hooks/use-api-list.ts"),
      notFound('r1', 'packages/ui/hooks/use-api-list.ts'),
      bash('r2', 'rg -l use-api-list packages'),
      result('r2', 'packages/ui/src/hooks/use-api-list.ts'),
      bash('r3', "sed -n '1,200p' packages/ui/src/hooks/use-api-list.ts"),
      result('r3', 'export function useApiList() {}'),
      say('a1', 'Read it.'),
    );
    expect(summary.fixed_failures).toEqual([expect.objectContaining({ rerun: 'read', fixed_line: 7 })]);
    expect(summary.passed_over).toEqual([]);
    expect(md).toContain('the file it could not find was read at line 7');
  });

  it('and by a read of the same path written so the shell reads it literally', () => {
    const { summary } = built<{ fixed_failures: { rerun: string }[] }>(
      user('u1', 'Audit the event page'),
      bash('r1', 'Get-Content app\\events\\[slug]\\page.tsx'),
      result('r1', "Exit code 1\nGet-Content : Cannot find path 'C:\\w\\app\\events\\[slug]\\page.tsx' because it does not exist.\n+ FullyQualifiedErrorId : ItemNotFound", { is_error: true }),
      bash('r2', "Get-Content -LiteralPath 'app\\events\\[slug]\\page.tsx'"),
      result('r2', 'export default function Page() {}'),
      say('a1', 'Read it.'),
    );
    expect(summary.fixed_failures.map((f) => f.rerun)).toEqual(['read']);
  });

  it('not by a search that found nothing (claude-code-log 37f83ec9 at 182: an empty `find`)', () => {
    const { summary } = built<{ fixed_failures: unknown[] }>(
      user('u1', 'Find generate_html'),
      bash('r1', 'grep -n "def generate_html" claude_code_log/renderer.py'),
      result('r1', 'Exit code 2\ngrep: claude_code_log/renderer.py: No such file or directory', { is_error: true }),
      bash('r2', 'find . -name "renderer.py" -exec grep -n "def generate_html" {} \\;'),
      result('r2', ''),
      say('a1', 'Looking elsewhere.'),
    );
    expect(summary.fixed_failures).toEqual([]);
  });

  it('not by a read of another file of a common name', () => {
    const { summary } = built<{ fixed_failures: unknown[]; passed_over: { line: number }[] }>(
      user('u1', 'Audit the pages'),
      bash('r1', "sed -n '1,200p' app/events/page.tsx"),
      notFound('r1', 'app/events/page.tsx'),
      bash('r2', "sed -n '1,200p' app/admin/page.tsx"),
      result('r2', 'export default function Admin() {}'),
      say('a1', 'Read the admin page.'),
    );
    expect(summary.fixed_failures).toEqual([]);
    expect(summary.passed_over.map((p) => p.line)).toEqual([3]);
  });
});

describe("Codex plan mode (edgerunner at 141: the approved plan was a message nobody read)", () => {
  const meta = codexMeta();
  const plan = '<proposed_plan>\n# EdgeRunner\n\n## Summary\nBuild a Rust trading engine.\n\n## Steps\n- Create a Cargo workspace\n- Add the replay command\n</proposed_plan>';
  const session = [
    meta,
    event({ type: 'user_message', message: 'Plan the engine' }),
    item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: plan }], phase: 'final_answer' }),
    event({ type: 'user_message', message: 'Implement the plan.' }),
    item({ type: 'function_call', name: 'request_user_input', call_id: 'q1', arguments: JSON.stringify({ questions: [{ id: 'brand', header: 'Brand', question: 'Set up brand guidelines first?', options: [{ label: 'Yes' }] }] }) }),
    item({ type: 'function_call_output', call_id: 'q1', output: 'request_user_input is unavailable in Default mode' }),
  ];

  it('is the plan the user approved, which the Next Action points to', () => {
    const { md, summary } = built<{ next_action: { text: string } }>(...session);
    expect(md).toContain('the latest plan the agent put to the user (line 3), approved by the user (line 4).');
    expect(md).toContain('- Add the replay command');
    expect(md).not.toContain('The user wrote again after it');
    expect(summary.next_action.text).toContain('it approves the plan the agent put to the user at line 3 (under Plan)');
  });

  it('and a question Codex would not put in that mode is open until the agent goes on', () => {
    const open = built<{ open_failures: { line: number; text: string }[] }>(...session).summary.open_failures;
    expect(open).toEqual([expect.objectContaining({ line: 6, text: 'request_user_input did not run: request_user_input is unavailable in Default mode' })]);
    const later = built<{ open_failures: unknown[] }>(...session, item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'I will use the neutral theme.' }], phase: 'commentary' })).summary.open_failures;
    expect(later).toEqual([]);
  });
});

describe("the Next Action's quote of a long request (coderabbit at 91: its requirement was cut out of the middle)", () => {
  it('keeps most of its head, where the ask stands before what it pastes', () => {
    const ask = "Can you please change the default command behaviour to look up the PR for the current branch? You can do something like: gh pr view --json url. If there isn't a PR found we should say so and print the help as we do now.";
    const manPage = `Man page: ${'gh pr view [<number> | <url> | <branch>] [flags] Display the title, body, and other information about a pull request. '.repeat(8)}`;
    const { summary } = built<{ next_action: { text: string } }>(user('u1', `${ask}\n\n${manPage}`), call('b1', 'Bash', { command: 'ls' }));
    expect(summary.next_action.text).toContain("If there isn't a PR found we should say so and print the help as we do now.");
    expect(summary.next_action.text).toContain(' … ');
  });
});

describe('a passing test run with a coverage report under 100 % (deep-manifest at 160: «passed» hid 96 %)', () => {
  const pytest = (total: string) =>
    ['collected 58 items', '', '---------- coverage: platform linux ----------', 'Name    Stmts   Miss Branch BrPart  Cover   Missing', `TOTAL     190      6     64      4    ${total}`, '============================== 58 passed in 3.13s =============================='].join('\n');

  it('says the total beside the summary', () => {
    expect(decideOutcome('test', 0, true, pytest('96%')).line).toBe('============================== 58 passed in 3.13s ==============================; coverage 96 % in total');
  });

  it('and not when it is whole, or the run failed', () => {
    expect(decideOutcome('test', 0, true, pytest('100%')).line).not.toContain('coverage');
    expect(decideOutcome('test', 1, false, pytest('96%').replace('58 passed', '1 failed, 57 passed')).line).not.toContain('coverage');
  });

  it("reads Jest's and Vitest's table too", () => {
    const jest = ['Tests: 12 passed, 12 total', '----------|---------|----------|', 'File      | % Stmts | % Branch |', 'All files |   87.5  |    75    |'].join('\n');
    expect(decideOutcome('test', 0, true, jest).line).toContain('coverage 87.5 % in total');
  });
});

describe('a folder git said was no repository (edgerunner at 133: «repository state unavailable … compare branch, HEAD and dirty state»)', () => {
  const notRepo = [user('u1', 'Build the engine'), bash('g1', 'git status --short --branch'), result('g1', 'fatal: not a git repository (or any of the parent directories): .git', { is_error: true })];

  it('is said so where the repository cannot be read', () => {
    const { md } = built(...notRepo, say('a1', 'An empty folder.'));
    expect(md).toContain('git said at line 3 that `/nonexistent/w` was not a git repository, and nothing the session ran after it made one or ran git there again');
  });

  it('and not once the session made one', () => {
    const { md } = built(...notRepo, bash('g2', 'git init'), result('g2', 'Initialized empty Git repository in /nonexistent/w/.git/'), say('a1', 'Made it.'));
    expect(md).not.toContain('was not a git repository');
    expect(md).toContain('its `git init` at line 5 made an empty one');
  });
});

describe("subagents' reports that name their commits (worktrees at 57–63: «may have committed» beside three hashes)", () => {
  it('are said with their hashes and lines, the rest still unknown', () => {
    const { md } = built(
      user('u1', 'Have a teammate research plan mode and commit the doc'),
      call('t1', 'Task', { description: 'Research plan mode', prompt: 'Write work/research-plan.md and commit it on a branch of your own.', subagent_type: 'general-purpose' }),
      result('t1', 'Done.\n\n- **Branch:** `alice/research-plan-mode`\n- **Commit SHA:** `ad2d13474e6b9c0d1e2f3a4b5c6d7e8f90a1b2c3` (short: `ad2d134`)\n- **Document:** `work/research-plan.md` created'),
      say('a1', 'The teammate committed its doc.'),
    );
    expect(md).toContain("*reported* — the subagents' reports name commits they made: `ad2d13474e6b` (line 3)");
    expect(md).toContain('may have committed more than their reports name');
  });
});

describe('the write the transcript ends on, failed (37f83ec9 at 100: «replace_all is false», said only under Writes that did not happen)', () => {
  it('is said in the Next Action', () => {
    const { summary } = built<{ next_action: { text: string } }>(
      user('u1', 'Save that test as a permanent unit test'),
      edit('e1', 'test/test_link.py'),
      updated('e1', 'test/test_link.py'),
      edit('e2', 'test/test_link.py'),
      result('e2', '<tool_use_error>Found 2 matches of the string to replace, but replace_all is false.</tool_use_error>', { is_error: true }),
    );
    expect(summary.next_action.text).toContain('Its last call, a write of `test_link.py`, failed (line 5: ');
    expect(summary.next_action.text).toContain('that write changed nothing');
    expect(summary.next_action.text).toContain('replace_all is false');
  });

  it('and not once another call came after it', () => {
    const { summary } = built<{ next_action: { text: string } }>(
      user('u1', 'Save that test as a permanent unit test'),
      edit('e2', 'test/test_link.py'),
      result('e2', '<tool_use_error>Found 2 matches of the string to replace, but replace_all is false.</tool_use_error>', { is_error: true }),
      bash('b1', 'ls test'),
      result('b1', 'test_link.py'),
    );
    expect(summary.next_action.text).not.toContain('Its last call, a write');
  });
});

describe('the project installed as a copy, then edited (coderabbit at 122: `uv tool install .`, then the script edited twice)', () => {
  const session = (...after: Record<string, unknown>[]) =>
    built<{ checks_not_run: { text: string }[] }>(user('u1', 'Make the script a uv tool'), bash('i1', 'uv tool install .'), result('i1', 'Installed 1 executable: coderabbit-extract'), ...after, say('a1', 'Done.'));

  it('says the installed command runs the code before the edits', () => {
    const texts = session(edit('e1', 'extract.py'), updated('e1', 'extract.py')).llm.checks_not_run.map((c) => c.text);
    expect(texts).toContain('`uv tool install .` (line 3) installed a copy of the project, and 1 of its file(s) were written since: `extract.py` (line 5). The installed command runs the code as it was then until it is built and installed again');
  });

  it('not after it is installed again, nor for an editable install or documentation', () => {
    const again = session(edit('e1', 'extract.py'), updated('e1', 'extract.py'), bash('i2', 'uv tool install --reinstall .'), result('i2', 'Installed 1 executable: coderabbit-extract'));
    expect(again.llm.checks_not_run.map((c) => c.text).join('\n')).not.toContain('installed a copy');
    const docs = session(edit('e1', 'README.md'), updated('e1', 'README.md'));
    expect(docs.llm.checks_not_run.map((c) => c.text).join('\n')).not.toContain('installed a copy');
    for (const [command, copy] of [['pip install -e .', false], ['uv pip install --editable .', false], ['pipx install .', true], ['cargo install --path crates/cli', true], ['npm install -g .', false], ['pip install requests', false], ['cd tool && uv tool install . --force', false]] as const) expect(copyInstall(command), command).toBe(copy);
  });
});

describe("calls of other tools with no result at the end (deep-manifest at 63: a Glob at 60, said nowhere, beside the `ruff` at 62)", () => {
  it('are said with the commands that have none', () => {
    const { md } = built(
      user('u1', 'Check the structure matches the README'),
      say('a1', 'Listing the package and the tests.'),
      call('g1', 'Glob', { pattern: 'deep_manifest/**' }),
      call('g2', 'Glob', { pattern: 'tests/**' }),
      bash('b1', 'ruff check deep_manifest/'),
      result('g2', 'tests/test_unit.py'),
    );
    expect(md).toContain('No result is recorded for 2 calls, at line 3 (a `Glob` call), line 5 (`ruff check deep_manifest/`)');
  });

  it('not a call before the last message, nor a subagent still working', () => {
    const { md } = built(user('u1', 'Research it'), call('t1', 'Task', { description: 'Research', prompt: 'Look into it', subagent_type: 'general-purpose' }), say('a1', 'The subagent is on it.'), bash('b1', 'ls'), result('b1', 'a'));
    expect(md).not.toContain('No result is recorded');
  });
});

describe('an install of the project that uv took from its cache (coderabbit at 242: no `Built` line, the help edited after the last build)', () => {
  const built169 = 'Resolved 4 packages in 96ms\n   Building tool @ file:///w\n      Built tool @ file:///w\nPrepared 4 packages in 323ms\nInstalled 4 packages in 1ms\n + tool==1.0.0 (from file:///w)\nInstalled 1 executable: tool';
  const cached = 'Resolved 4 packages in 2ms\nInstalled 4 packages in 4ms\n + tool==1.0.0 (from file:///w)\nInstalled 1 executable: tool';

  it('says it installed the last build, older than the edits since', () => {
    const { llm } = built<{ checks_not_run: { text: string }[] }>(
      user('u1', 'Make it a uv tool'),
      bash('i1', 'uv tool install .'),
      result('i1', built169),
      edit('e1', 'tool.py'),
      updated('e1', 'tool.py'),
      bash('i2', 'uv tool uninstall tool && uv tool install .'),
      result('i2', cached),
      say('a1', 'Reinstalled.'),
    );
    expect(llm.checks_not_run.map((c) => c.text)).toContain('`uv tool uninstall tool && uv tool install .` (line 7) built nothing (uv printed no `Built …` line): it installed the build uv had cached, made at line 3, and 1 of the project\'s file(s) were written after that build: `tool.py` (line 5). The installed command runs the code as it was then until it is built and installed again (uv builds it again for a new version, or with `--no-cache`)');
  });

  it('and nothing once an install built it again', () => {
    const { llm } = built<{ checks_not_run: { text: string }[] }>(user('u1', 'Make it a uv tool'), edit('e1', 'tool.py'), updated('e1', 'tool.py'), bash('i1', 'uv tool install --no-cache .'), result('i1', built169), say('a1', 'Installed.'));
    expect(llm.checks_not_run.map((c) => c.text).join('\n')).not.toContain('installed');
  });
});

describe("git in other folders, and a merge's commit (worktrees at 129 and 162)", () => {
  it("a `git -C <worktree> log` is not this repository's HEAD", () => {
    const { md } = built(
      user('u1', 'Merge the teammates'),
      bash('g1', 'git log --oneline -3'),
      result('g1', '1b6c52f merge round 1\n04752c6 Add intent'),
      bash('g2', 'for d in .claude/worktrees/agent-*; do git -C "$d" log --oneline -3; done'),
      result('g2', 'ad2d134 alice: round 1\n04752c6 Add intent'),
      say('a1', 'Checked the worktrees.'),
    );
    expect(md).toContain('its latest `git log` of HEAD (line 3) began with `1b6c52f`');
    expect(md).not.toContain('began with `ad2d134`');
  });

  it('a merge is said as a merge whose commit git names by no hash, not as a commit whose output was cut', () => {
    const { md } = built(
      user('u1', 'Merge the round-2 branches'),
      bash('m1', 'git merge --no-ff alice/plan bob/teams -m "merge round 2" 2>&1'),
      result('m1', "Trying simple merge with bob/teams\nMerge made by the 'octopus' strategy.\n work/plan.md | 65 +++++\n 2 files changed, 134 insertions(+)"),
      say('a1', 'Merged.'),
    );
    expect(md).toContain("merge commits made by the session's `git merge` («Merge made by …»; git names a merge commit by no hash in its output)");
    expect(md).toContain('- «merge round 2» (line 3)');
    expect(md).not.toContain('whose output was cut before the line that names the hash');
  });
});

describe("the user's last word that it does not work (agentcmd at 631: «No open failure» beside «still not working … No data is showing up»)", () => {
  it('is an open problem under Failures And Blockers, with the reports before it', () => {
    const { md, summary } = built<{ user_problem: unknown }>(
      user('u1', 'Refactor the team sheet'),
      edit('e1', 'TeamSheet.tsx'),
      updated('e1', 'TeamSheet.tsx'),
      user('u2', 'No teams or leads are loading into the pane now'),
      say('a1', 'Checking the query.'),
      user('u3', 'Ok it is still not working either way. No data is showing up'),
    );
    expect(md).toContain('- *reported* line 6: the user says it does not work: «Ok it is still not working either way. No data is showing up» (said before at line 4); no write of the session\'s came after it');
    expect(summary.user_problem).toEqual({ line: 6, text: 'Ok it is still not working either way. No data is showing up', earlier: [4] });
  });

  it('not for a request that names no problem, nor a name that starts like one', () => {
    for (const text of ['Now add the export button', "I think the library sets it, and there's no data-groupid on it"]) {
      const { summary } = built<{ user_problem: unknown }>(user('u1', 'Refactor the team sheet'), say('a1', 'Done.'), user('u2', text));
      expect(summary.user_problem, text).toBeNull();
    }
  });
});

describe('the skeptic\'s probes of the rules above (a false statement each, on the code before)', () => {
  const notFound = (id: string, path: string) => result(id, `Exit code 1\ncat: ${path}: No such file or directory`, { is_error: true });
  // How the failure was got past, if it was: never `read` but when the file was read.
  const fixed = (...records: Record<string, unknown>[]) =>
    built<{ fixed_failures: { rerun: string }[] }>(user('u1', 'Read the client'), bash('r1', 'cat apps/admin/src/api-client.ts'), notFound('r1', 'apps/admin/src/api-client.ts'), ...records, say('a1', 'Next.')).summary.fixed_failures.map((f) => f.rerun);

  it('a missing file is not found by a retry that printed nothing of it, a backup, a create, or a file of another folder', () => {
    expect(fixed(bash('r2', 'cat apps/admin/src/api-client.ts 2>/dev/null || echo "not found"'), result('r2', 'not found'))).toEqual([]);
    expect(fixed(bash('r2', 'cat apps/admin/src/api-client.ts.bak'), result('r2', 'export const client = 1;'))).toEqual([]);
    expect(fixed(bash('r2', "cat > apps/admin/src/api-client.ts <<'EOF'\nexport const client = 1;\nEOF"), result('r2', 'created'))).toEqual([]);
    expect(fixed(bash('r2', 'cat apps/web/src/api-client.ts'), result('r2', 'export const client = 1;'))).toEqual([]);
    // Made by the session, then read: the same command ran again without an error, no file was found.
    expect(fixed(edit('e1', 'apps/admin/src/api-client.ts'), updated('e1', 'apps/admin/src/api-client.ts'), bash('r2', 'cat apps/admin/src/api-client.ts'), result('r2', 'export const client = 1;'))).toEqual(['ran_clean']);
    expect(fixed(bash('r2', 'cat -n apps/admin/src/api-client.ts'), result('r2', '1 export const client = 1;'))).toEqual(['read']);
  });

  it('a copy install is not said of another folder\'s project, nor after an editable install or an uninstall, nor of tests or files outside', () => {
    const copy = (...records: Record<string, unknown>[]) =>
      built<{ checks_not_run: { text: string }[] }>(user('u1', 'Install it'), ...records, say('a1', 'Done.')).llm.checks_not_run.map((c) => c.text).join('\n');
    expect(copy(bash('i1', 'cd ../vendor/fastjson && pip install .'), result('i1', 'Successfully installed fastjson-1.0'), edit('e1', 'src/app.py'), updated('e1', 'src/app.py'))).not.toContain('installed a copy');
    expect(copy(bash('i1', 'pip install .'), result('i1', 'ok'), bash('i2', 'pip install -e .'), result('i2', 'ok'), edit('e1', 'src/app.py'), updated('e1', 'src/app.py'))).not.toContain('installed a copy');
    expect(copy(bash('i1', 'pip install .'), result('i1', 'ok'), bash('i2', 'pip uninstall -y mytool'), result('i2', 'ok'), edit('e1', 'src/app.py'), updated('e1', 'src/app.py'))).not.toContain('installed a copy');
    expect(copy(bash('i1', 'pip install .'), result('i1', 'ok'), edit('e1', 'tests/test_cli.py'), updated('e1', 'tests/test_cli.py'))).not.toContain('installed a copy');
    expect(copy(bash('i1', 'uv tool install --no-cache --force . 2>&1 | tail -2'), result('i1', ' + tool==1.0.0 (from file:///nonexistent/w)\nInstalled 1 executable: tool'), edit('e1', 'tool.py'), updated('e1', 'tool.py'))).not.toContain('built nothing');
    expect(copy(bash('i1', 'pip install ".[dev]"'), result('i1', 'ok'), edit('e1', 'mytool/cli.py'), updated('e1', 'mytool/cli.py'))).toContain('installed a copy');
  });

  it('the user\'s last word is a problem when it says so, not a wish nor a thanks; and what came after is said', () => {
    const problem = (text: string, ...after: Record<string, unknown>[]) => built<{ user_problem: { line: number } | null }>(user('u1', 'Build the table'), say('a1', 'Built.'), user('u2', text), ...after).summary.user_problem;
    for (const text of ['make sure the table doesn\'t load all 10k rows at once', "add an empty state that says 'No data' when the list is empty", 'Add a toast so users see an error when the upload fails.', "It works now, I don't see an error anymore. Please commit it."]) expect(problem(text), text).toBeNull();
    for (const text of ['Same error as before', 'It crashes as soon as I click Save.', "it's still showing the old totals after I refresh.", "The page won't load anymore, just spins forever.", 'TypeError: Cannot read properties of undefined (reading \'map\')\n    at Table (Table.tsx:12)']) expect(problem(text), text).not.toBeNull();
    const { md } = built(user('u1', 'Build it'), say('a1', 'Built.'), user('u2', "npm run build doesn't work anymore"), edit('e1', 'export.ts'), updated('e1', 'export.ts'), bash('b1', 'npm run build'), result('b1', '✓ built in 2.1s'));
    expect(md).toContain("the user says it does not work: «npm run build doesn't work anymore»; 1 file(s) were written after it (the latest at line 5); `npm run build` passed after it (line 7)");
  });

  it("a subagent's report names its own commit, not one it blames, one it did not make, or a UUID", () => {
    const commits = (report: string, type = 'general-purpose') =>
      built(user('u1', 'Look into it'), call('t1', 'Task', { description: 'Look', prompt: 'Look into it', subagent_type: type }), result('t1', report), say('a1', 'Back.')).md.includes('reports name commits');
    expect(commits('The regression was introduced in commit 3f9e2a1 by the refactor.')).toBe(false);
    expect(commits('I did not commit anything; HEAD is still at 9fceb02.')).toBe(false);
    expect(commits('Wrote the doc. Writer id 5ea305f6-7ff7-4bfb-98a2-0a1b2c3d4e5f.')).toBe(false);
    expect(commits('Found it: see commit 3f9e2a1.', 'Explore')).toBe(false);
    expect(commits('Done. I committed it as 7d3e9f0 on alice/plan.')).toBe(true);
  });

  it('several coverage reports are said as several, the lowest given', () => {
    const out = ['Tests: 30 passed, 30 total', 'All files |   62.5 |    40 |', 'Tests: 12 passed, 12 total', 'All files |   100 |    100 |'].join('\n');
    expect(decideOutcome('test', 0, true, out).line).toBe('Tests: 12 passed, 12 total; 1 of its 2 coverage reports under 100 %, the lowest 62.5 %');
  });

  it('"not a git repository" is not said after a clone or a scaffold made one, nor of a folder --git-dir named', () => {
    const repo = (...after: Record<string, unknown>[]) => built(user('u1', 'Set it up'), bash('g1', 'git status'), result('g1', 'fatal: not a git repository (or any of the parent directories): .git', { is_error: true }), ...after, say('a1', 'Done.')).md;
    expect(repo(bash('c1', 'cargo init'), result('c1', 'Created binary (application) package'))).not.toContain('was not a git repository');
    expect(repo(bash('c1', 'git clone https://example.test/r.git .'), result('c1', "Cloning into '.'..."))).not.toContain('was not a git repository');
    const other = built(user('u1', 'Check the backup'), bash('g1', 'git --git-dir=/tmp/backup.git log'), result('g1', 'fatal: not a git repository (or any of the parent directories): .git', { is_error: true }), say('a1', 'No backup.')).md;
    expect(other).not.toContain('was not a git repository');
  });
});

describe("Codex's calls the ledger answers elsewhere (the fifth round: edgerunner's `wait`s, agentcmd's `update_plan`, said to have no result)", () => {
  it('are not said to be without a result', () => {
    const { md } = built(
      codexMeta(),
      { timestamp: '2026-07-10T18:00:05Z', type: 'event_msg', payload: { type: 'user_message', message: 'Check the dashboard' } },
      item({ type: 'function_call', name: 'update_plan', call_id: 'p1', arguments: JSON.stringify({ plan: [{ step: 'Check it', status: 'in_progress' }] }) }),
      item({ type: 'function_call_output', call_id: 'p1', output: 'Plan updated' }),
      item({ type: 'custom_tool_call', name: 'exec', call_id: 'x1', input: 'const r = await tools.exec_command({"cmd":"sleep 5; echo done"}); text(r.output);' }),
      item({ type: 'custom_tool_call_output', call_id: 'x1', output: 'Script running with cell ID 7' }),
      item({ type: 'function_call', name: 'wait', call_id: 'w1', arguments: JSON.stringify({ cell_id: '7' }) }),
      item({ type: 'function_call_output', call_id: 'w1', output: 'Script completed\nOutput:\ndone' }),
    );
    expect(md).not.toContain('No result is recorded');
  });
});

describe('the run that compiled the code, when the first failed (edgerunner at 481: the failed `cargo run` at 394 named, the server of 402 running)', () => {
  it('names the one that did not fail', () => {
    const { md } = built(
      user('u1', 'Start the server'),
      edit('e1', 'src/main.rs'),
      updated('e1', 'src/main.rs'),
      bash('r1', 'cargo run -- serve'),
      result('r1', 'Exit code 1\nError: Operation not permitted (os error 1)', { is_error: true }),
      bash('r2', 'cargo run -- serve --bind 127.0.0.1:8081'),
      result('r2', 'listening on 127.0.0.1:8081'),
      say('a1', 'Up.'),
    );
    expect(md).toContain('no build but `cargo run -- serve --bind 127.0.0.1:8081` (line 6; a run before it, at line 4, ended on an error)');
  });
});

describe("the agent's word that it cannot turn on automatic acceptance, after the harness did (agentcmd at 275, found by readers since the twenty-eighth reading)", () => {
  const meta = codexMeta('0.40.0');
  const context = (approval: string, sandbox: string) => ({ timestamp: '2026-09-24T19:22:21Z', type: 'turn_context', payload: { cwd: '/nonexistent/w', approval_policy: approval, sandbox_policy: { mode: sandbox }, model: 'gpt-5' } });
  const said = (text: string) => ({ timestamp: '2026-09-24T19:22:23Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] } });

  it('is a claim the transcript contradicts', () => {
    const { summary } = built<{ contradictions: { claim_line: number; evidence_line: number; text: string }[] }>(
      meta,
      context('on-request', 'read-only'),
      event({ type: 'user_message', message: 'turn on auto accept please' }),
      context('never', 'danger-full-access'),
      said("I can't turn on automatic acceptance. I'll keep walking through changes as we go."),
    );
    expect(summary.contradictions).toEqual([expect.objectContaining({ claim_line: 5, evidence_line: 4 })]);
    expect(summary.contradictions[0]?.text).toContain("the agent said it could not let calls run without asking («can't turn on automatic acceptance»), but from line 4 the harness recorded approval `never`");
  });

  it('not while the harness still asked', () => {
    const { summary } = built<{ contradictions: unknown[] }>(meta, context('on-request', 'read-only'), event({ type: 'user_message', message: 'turn on auto accept please' }), said("I can't turn on automatic acceptance."));
    expect(summary.contradictions).toEqual([]);
  });
});
