import { describe, expect, it } from 'vitest';
import { initialLedger } from '../../src/core/ledger.js';
import { decideOutcome } from '../../src/core/outcome.js';
import { formattedFor } from '../../src/core/shell.js';
import { call, edit, result, say, todos, todosDone, updated, user } from './claude-records.js';
import { built, ran } from './ledger-helper.js';

/**
 * Rules from the twenty-eighth reading (docs/FIDELITY.md): seven sessions cut in the middle, each
 * handoff read alone, then against its transcript.
 */

/** A shell call (its result follows it in each test). */
const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });

describe("a build's bare verdict (rave-era at 300: «Failed to compile.» named no file)", () => {
  const next = [
    '> raveera-web-mvp@0.1.0 build',
    '> next build',
    '',
    ' ✓ Compiled successfully',
    '   Linting and checking validity of types ...',
    'Failed to compile.',
    '',
    './components/events/event-card.tsx:27:3',
    "Type error: Cannot find name 'useEffect'.",
    '',
    '\u001b[0m \u001b[90m 27 |\u001b[39m   useEffect(() => {',
    'Next.js build worker exited with code: 1 and signal: null',
  ].join('\n');

  it('is quoted with the file and the error printed after it', () => {
    expect(decideOutcome('build', 1, false, next)).toEqual({ outcome: 'fail', line: "./components/events/event-card.tsx:27:3 Type error: Cannot find name 'useEffect'. — Failed to compile." });
  });

  it('and with the error alone when no location stands before it', () => {
    expect(decideOutcome('build', 1, false, "Failed to compile.\n\nModule not found: Can't resolve 'zod' in '/w/app'")?.line).toBe("Module not found: Can't resolve 'zod' in '/w/app' — Failed to compile.");
  });

  it('stays as it is when nothing after it names a cause', () => {
    expect(decideOutcome('build', 1, false, 'Failed to compile.\n\nSee the log above.')?.line).toBe('Failed to compile.');
  });
});

describe('a format check answered by its formatter (edgerunner at 702: `cargo fmt --all -- --check` failed, then `cargo fmt --all && clippy && test` passed)', () => {
  const chain = 'cargo fmt --all -- --check && cargo clippy --workspace -- -D warnings && cargo test --workspace';

  it('is fixed, said as formatting, not as a passing run of the check', () => {
    const { md, summary } = built<{ open_failures: unknown[]; fixed_failures: { line: number; fixed_line: number; rerun: string }[] }>(
      user('u1', 'Fix the SSE parser'),
      bash('c1', chain),
      result('c1', 'Diff in /w/crates/a/src/txline.rs:85:\n-    let crlf = buffer', { is_error: true }),
      bash('c2', 'cargo fmt --all && cargo clippy --workspace -- -D warnings && cargo test --workspace'),
      result('c2', '    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.87s\ntest result: ok. 13 passed; 0 failed; 0 ignored; 0 measured'),
      say('a1', 'All green.'),
    );
    expect(summary.open_failures).toEqual([]);
    expect(summary.fixed_failures).toEqual([expect.objectContaining({ line: 3, fixed_line: 5, rerun: 'formatted' })]);
    expect(md).toContain('line 3, the formatter rewrote the files at line 5 (the format check was not run again)');
  });

  it('is said as a passing run when a later run of every one of its checks passed', () => {
    const l = initialLedger();
    ran(l, 10, 'cargo fmt --all -- --check', 1, 'Diff in /w/src/a.rs:85:');
    ran(l, 12, 'cargo fmt --all', 0, '');
    expect(l.failures[0]).toEqual(expect.objectContaining({ closedLine: 13, formatted: 13 }));
    ran(l, 14, 'cargo fmt --all -- --check', 0, '');
    expect(l.failures[0]).toEqual(expect.objectContaining({ closedLine: 15, formatted: 13 }));
  });

  it('stays open when the formatter run failed, or formatted other paths', () => {
    const l = initialLedger();
    ran(l, 10, 'npx prettier --check src/a.ts', 1, '[warn] src/a.ts\n[warn] Code style issues found in the above file. Run Prettier with --write to fix.');
    ran(l, 12, 'npx prettier --write src/b.ts', 0, 'src/b.ts 20ms');
    ran(l, 14, 'npx prettier --write src/a.ts', 2, '[error] src/a.ts: SyntaxError: Unexpected token (3:1)');
    expect(l.failures.find((f) => f.line === 11)?.closedLine).toBeUndefined();
    ran(l, 16, 'npx prettier --write src/a.ts', 0, 'src/a.ts 21ms');
    expect(l.failures.find((f) => f.line === 11)).toEqual(expect.objectContaining({ closedLine: 17, formatted: 17 }));
  });

  it('names the checks each formatter answers, and none for a checking run', () => {
    expect(formattedFor('cargo fmt --all && cargo test')).toEqual([{ tool: 'cargo fmt --check', paths: [] }]);
    expect(formattedFor('black . && ruff format src/app.py')).toEqual([{ tool: 'black --check', paths: [] }, { tool: 'ruff format --check', paths: ['app.py'] }]);
    expect(formattedFor('gofmt -w . ; prettier --write web/x.ts')).toEqual([{ tool: 'gofmt --check', paths: [] }, { tool: 'prettier --check', paths: ['x.ts'] }]);
    expect(formattedFor('cargo fmt --check')).toEqual([]);
    expect(formattedFor('black --diff .')).toEqual([]);
    expect(formattedFor('prettier src/a.ts')).toEqual([]);
    expect(formattedFor('gofmt -l .')).toEqual([]);
  });
});

describe("a Codex code-mode script that threw on its one patch (edgerunner at 161: five «Script failed», each said nowhere)", () => {
  const meta = { timestamp: '2026-07-10T18:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.144.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-07-10T18:16:08Z', type: 'response_item', payload });
  const ask = { timestamp: '2026-07-10T18:10:00Z', type: 'event_msg', payload: { type: 'user_message', message: 'Add the TxLINE adapter', images: [] } };
  const script = (id: string, body: string) => item({ type: 'custom_tool_call', name: 'exec', call_id: id, input: body });
  const out = (id: string, parts: string[]) => item({ type: 'custom_tool_call_output', call_id: id, output: parts.map((text) => ({ type: 'input_text', text })) });
  const patch = (file: string) => `const patch = "*** Begin Patch\\n*** Add File: ${file}\\n+pub fn a() {}\\n*** End Patch";\nawait tools.apply_patch(patch);\n`;
  const failed = ['Script failed\nWall time 0.0 seconds\nOutput:\n', "Script error:\napply_patch verification failed: invalid hunk at line 8, Unexpected line found in update hunk: '*** Update File: crates/a.rs'"];

  it('is a write that did not happen, with the error the script printed', () => {
    const { md, summary } = built<{ files_not_changed: { path: string; line: number; reason: string }[]; files_changed: unknown[] }>(meta, ask, script('p1', patch('crates/a/src/txline.rs')), out('p1', failed));
    expect(summary.files_not_changed).toEqual([expect.objectContaining({ path: '/w/crates/a/src/txline.rs', line: 4, reason: expect.stringContaining('apply_patch verification failed: invalid hunk at line 8') })]);
    expect(summary.files_changed).toEqual([]);
    expect(md).toContain('`crates/a/src/txline.rs` (line 4): the tool reported an error: apply_patch verification failed');
  });

  it('and redone when a later script wrote the file', () => {
    const applied = { timestamp: '2026-07-10T18:16:49Z', type: 'event_msg', payload: { type: 'patch_apply_end', call_id: 'exec-1', stdout: 'Success. Updated the following files:\nA crates/a/src/txline.rs\n', success: true, changes: { '/w/crates/a/src/txline.rs': { type: 'add', content: 'pub fn a() {}\n' } } } };
    const { md } = built(meta, ask, script('p1', patch('crates/a/src/txline.rs')), out('p1', failed), script('p2', patch('crates/a/src/txline.rs')), applied, out('p2', ['Script completed\nWall time 0.0 seconds\nOutput:\n']));
    expect(md).toContain('None left undone. *verified* — 1 file(s) had a write that was refused or failed, and each was written successfully after it (the latest refusal\'s or failure\'s line → the first write of the file that succeeded after it), latest first: `crates/a/src/txline.rs` 4 → 6.');
  });

  it('is not said of a script that also ran commands or made two patches: which of them failed is not recorded', () => {
    const two = `${patch('a.rs')}${patch('b.rs')}`;
    const { summary } = built<{ files_not_changed: unknown[] }>(meta, ask, script('p1', two), out('p1', failed));
    expect(summary.files_not_changed).toEqual([]);
  });
});

describe('an open list item whose words name what was done after the list (agentcmd at 355, edgerunner at 702: steps still "Not Started" that had been carried out)', () => {

  it('names the files its words spell out and the kinds of check it names that ran', () => {
    const { md } = built(
      user('u1', 'Make team edits faster'),
      todos('t1', [['Add the single-team endpoint', 'completed'], ['Refactor the TeamSheet to use it', 'pending'], ['Improve team update mutations', 'pending'], ['Run the tests and lint', 'pending']]),
      todosDone('t1'),
      edit('e1', 'src/components/TeamSheet.tsx'),
      updated('e1', 'src/components/TeamSheet.tsx'),
      edit('e2', 'src/hooks/useUpdateTeam.ts'),
      updated('e2', 'src/hooks/useUpdateTeam.ts'),
      edit('e3', 'src/app/page.tsx'),
      updated('e3', 'src/app/page.tsx'),
      bash('c1', 'npx vitest run'),
      result('c1', ' Test Files  3 passed (3)\n      Tests  12 passed (12)'),
      say('a1', 'Moving on.'),
    );
    expect(md).toContain('- [ ] Refactor the TeamSheet to use it (line 2) — since it, what its words name: `TeamSheet.tsx` written (line 5)');
    expect(md).toContain('- [ ] Improve team update mutations (line 2) — since it, what its words name: `useUpdateTeam.ts` written (line 7)');
    expect(md).toContain('- [ ] Run the tests and lint (line 2) — since it, what its words name: `npx vitest run` passed (line 11)');
    // A name of one generic word (page.tsx) names no step; a done item gets nothing.
    expect(md).not.toContain('`page.tsx` written');
    expect(md).toMatch(/- \[x\] Add the single-team endpoint[^\n]*\n/);
    expect(md).not.toMatch(/- \[x\] Add the single-team endpoint[^\n]*since it/);
  });

  it('names nothing done before the list, nor a file only part of whose name the item says', () => {
    const { md } = built(
      user('u1', 'Make team edits faster'),
      edit('e1', 'src/components/TeamSheet.tsx'),
      updated('e1', 'src/components/TeamSheet.tsx'),
      todos('t1', [['Refactor the TeamSheet', 'pending'], ['Update the team members list', 'pending']]),
      todosDone('t1'),
      edit('e2', 'src/hooks/useUpdateTeamMemberRole.ts'),
      updated('e2', 'src/hooks/useUpdateTeamMemberRole.ts'),
      say('a1', 'Moving on.'),
    );
    expect(md).not.toContain('since it, what its words name');
  });
});

describe("the session's latest git log, when several commits came after it (deep-manifest at 122: commits at 40 and 70, said as one)", () => {
  it('counts them and names the latest', () => {
    const { md } = built(
      user('u1', 'Commit the tar support'),
      bash('l1', 'git log --oneline -1'),
      result('l1', '5db6b2a Use <TAB> instead of a real TAB in examples'),
      bash('c1', 'git commit -am "Add tar support"'),
      result('c1', '[main 17015f9] Add tar support\n 2 files changed, 40 insertions(+)'),
      bash('c2', 'git commit --allow-empty -m "Trigger CI"'),
      result('c2', '[main 1d28f1e] Trigger CI'),
      say('a1', 'Committed twice.'),
    );
    expect(md).toContain("(HEAD moved after it: the session's 2 commits at lines 5, 7, the latest `1d28f1e`; Commits made in this session has them)");
  });
});

describe("a repository the session made itself (posthog at 456: `git init -b main`, then Claude Code recorded the branch as HEAD)", () => {
  const atHead = (r: Record<string, unknown>) => ({ ...r, gitBranch: 'HEAD' });

  it('says so, with its branch, where the harness recorded HEAD', () => {
    const { md, summary } = built<{ session_git: { no_commits: unknown } }>(
      atHead(user('u1', 'Set up the repo')),
      atHead(bash('g1', 'git init -b main 2>&1 | tail -3 && git config user.email "me@example.com"')),
      atHead(result('g1', 'Initialized empty Git repository in /nonexistent/w/.git/')),
      atHead(say('a1', 'Done.')),
    );
    expect(summary.session_git.no_commits).toEqual({ line: 3, branch: 'main', init: true });
    expect(md).toContain("not a branch name (a repository with no commit yet: the session's own `git init` made it at line 3, on `main`, and no commit followed)");
  });

  it('names no branch for a bare `git init`, and a commit after it ends it', () => {
    const { summary } = built<{ session_git: { no_commits: unknown } }>(user('u1', 'Set up the repo'), bash('g1', 'git init'), result('g1', 'Initialized empty Git repository in /nonexistent/w/.git/'), say('a1', 'Done.'));
    expect(summary.session_git.no_commits).toEqual({ line: 3, branch: null, init: true });
    const after = built<{ session_git: { no_commits: unknown } }>(user('u1', 'Set up the repo'), bash('g1', 'git init'), result('g1', 'Initialized empty Git repository in /nonexistent/w/.git/'), bash('c1', 'git add -A && git commit -m "first"'), result('c1', '[main (root-commit) a1b2c3d] first\n 3 files changed'), say('a1', 'Done.'));
    expect(after.summary.session_git.no_commits).toBeNull();
  });
});

describe('a run that still prints what an edit took out (coderabbit at 153: `coderabbit-extract` printed the banner the edit at 129 removed; uv had reused its cached build)', () => {
  const banner = ['    if len(sys.argv) == 1:', '        print("🤖 CodeRabbit Review Extractor")', '        print(', '            "  Converts CodeRabbit GitHub PR reviews into clean text for AI coding agents"', '        )', '        print("  (Claude, ChatGPT, etc.) to automatically apply code suggestions.")', '        sys.exit(1)'].join('\n');
  const removeBanner = call('e1', 'Edit', { file_path: '/nonexistent/w/extract.py', old_string: `${banner}\n    args = parser.parse_args()`, new_string: '    args = parser.parse_args()\n    if args.pr_input is None:\n        print("❌ No PR found for the current branch.", file=sys.stderr)' });
  const printed = '🤖 CodeRabbit Review Extractor\n========================================\n\nWHAT THIS DOES:\n  Converts CodeRabbit GitHub PR reviews into clean text for AI coding agents\n  (Claude, ChatGPT, etc.) to automatically apply code suggestions.';
  const start = [user('u1', 'Look up the PR of the current branch when no argument is given'), removeBanner, result('e1', 'The file /nonexistent/w/extract.py has been updated.'), bash('i1', 'uv tool install .'), result('i1', 'Resolved 4 packages\nInstalled 1 executable: coderabbit-extract')];

  it('is said, with the edit and the first text, in the failures and in the Next Action', () => {
    const { md, summary } = built<{ stale_output: unknown }>(...start, bash('r1', 'coderabbit-extract 2>&1 | head -20'), result('r1', printed));
    expect(summary.stale_output).toEqual({ line: 7, command: 'coderabbit-extract 2>&1 | head -20', path: '/nonexistent/w/extract.py', edit_line: 3, count: 3, first: '🤖 CodeRabbit Review Extractor' });
    expect(md).toContain('- *inferred* line 7: `coderabbit-extract 2>&1 | head -20` still printed 3 texts the edit at line 3 took out of `extract.py` (the first: «🤖 CodeRabbit Review Extractor»): what ran does not hold that edit');
    expect(md).toContain('Before testing again: the run at line 7 (`coderabbit-extract 2>&1 | head -20`) still printed 3 texts the edit at line 3 took out of `extract.py`');
  });

  it('is not said of a command that shows a file, of one text alone, or once a later run prints none', () => {
    expect(built<{ stale_output: unknown }>(...start, bash('r1', 'cat extract.py.orig'), result('r1', printed)).summary.stale_output).toBeNull();
    expect(built<{ stale_output: unknown }>(...start, bash('r1', 'grep -rn "Converts" .'), result('r1', printed)).summary.stale_output).toBeNull();
    expect(built<{ stale_output: unknown }>(...start, bash('r1', 'coderabbit-extract'), result('r1', '🤖 CodeRabbit Review Extractor\nusage: …')).summary.stale_output).toBeNull();
    const renewed = built<{ stale_output: unknown }>(...start, bash('r1', 'coderabbit-extract 2>&1 | head -20'), result('r1', printed), bash('i2', 'uv tool install --reinstall .'), result('i2', 'Built coderabbit @ file:///w'), bash('r2', 'coderabbit-extract 2>&1 | head -20'), result('r2', '❌ No PR found for the current branch.'));
    expect(renewed.summary.stale_output).toBeNull();
  });

  it('is not said of texts the session moved into another file', () => {
    const moved = call('w1', 'Write', { file_path: '/nonexistent/w/banner.py', content: `def banner():\n${banner}` });
    const { summary } = built<{ stale_output: unknown }>(user('u1', 'Move the banner'), moved, result('w1', 'File created successfully at: /nonexistent/w/banner.py'), removeBanner, result('e1', 'The file /nonexistent/w/extract.py has been updated.'), bash('r1', 'python extract.py'), result('r1', printed));
    expect(summary.stale_output).toBeNull();
  });
});

describe('type errors said by their count, their files and the first (agentcmd at 665: five errors said as pnpm\'s closing line)', () => {
  const out = [
    '> @repo/labs@0.1.0 check-types /w/apps/labs',
    '> tsc --noEmit',
    '',
    "src/app/settings/teams/components/TeamSheet.tsx(52,53): error TS2345: Argument of type '() => TeamWithStats | null' is not assignable to parameter of type '() => TeamWithStats'.",
    "  Type 'TeamWithStats | null' is not assignable to type 'TeamWithStats'.",
    'src/app/settings/teams/hooks/useTeamWithStats.ts(16,10): error TS2769: No overload matches this call.',
    "src/app/settings/teams/hooks/useUpdateTeam.ts(99,5): error TS2322: Type 'Promise<X>' is not assignable to type 'Y'.",
    "src/app/api/teams/[id]/route.ts(20,3): error TS2304: Cannot find name 'teamLead'.",
    ' ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @repo/labs@0.1.0 check-types: `tsc --noEmit`',
    'Exit status 2',
  ].join('\n');

  it('counts them, names their files and quotes the first', () => {
    expect(decideOutcome('typecheck', 2, false, out).line).toBe("4 TypeScript errors in 4 files (TeamSheet.tsx, useTeamWithStats.ts, useUpdateTeam.ts, route.ts); the first: src/app/settings/teams/components/TeamSheet.tsx(52,53): error TS2345: Argument of type '() => TeamWithStats | null' is …");
  });

  it("quotes one alone, and tsc's own pretty form and a file-less error too", () => {
    expect(decideOutcome('typecheck', 2, false, "src/a.ts(3,1): error TS2304: Cannot find name 'x'.\n ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  check-types").line).toBe("src/a.ts(3,1): error TS2304: Cannot find name 'x'.");
    expect(decideOutcome('build', 2, false, "error TS5096: Option 'allowImportingTsExtensions' can only be used when 'noEmit' is set.\nsrc/App.tsx:4:27 - error TS2339: Property 'env' does not exist on type 'ImportMeta'.").line).toBe("2 TypeScript errors in 1 file (App.tsx); the first: error TS5096: Option 'allowImportingTsExtensions' can only be used when 'noEmit' is set.");
  });
});

describe("a `git status` of named paths after a whole one (rave-era at 451: four untracked files stood for a tree of 67)", () => {
  it('leaves the whole listing standing, and says the later one named paths', () => {
    const { md, summary } = built<{ session_git: { uncommitted_listed: { line: number; paths: string[]; narrower_line?: number } | null } }>(
      user('u1', 'Polish the events pages'),
      bash('g1', 'git status --short'),
      result('g1', ' M app/page.tsx\n M package.json\n?? lib/images.ts'),
      bash('g2', 'git status --short lib/images.ts'),
      result('g2', '?? lib/images.ts'),
      say('a1', 'Checked.'),
    );
    expect(summary.session_git.uncommitted_listed).toEqual(expect.objectContaining({ line: 3, paths: ['app/page.tsx', 'package.json', 'lib/images.ts'], narrower_line: 5 }));
    expect(md).toContain("the session's latest whole `git status` or `git diff --name-only` (line 3) listed 3 uncommitted file(s)");
    expect(md).toContain('A later `git status` (line 5) named some paths and showed only those: this whole listing stands for the rest.');
  });
});

describe('a commit whose command stages files first (deep-manifest at 263: `git add a b c && git commit` left a, b and c "uncommitted")', () => {
  const listing = ' M deep_manifest/deep_manifest.py\n M tests/test_unit.py\n M tests/test_integration.py';
  const start = [user('u1', 'Commit the tar support'), bash('s1', 'git status --short'), result('s1', listing)];

  it('takes the files it staged into the commit', () => {
    const { summary } = built<{ session_git: { uncommitted_listed: unknown } }>(...start, bash('c1', 'git add deep_manifest/deep_manifest.py tests/test_integration.py tests/test_unit.py && git commit -m "feat: tar"'), result('c1', '[master 70f2781] feat: tar\n 3 files changed, 551 insertions(+), 22 deletions(-)'), say('a1', 'Committed.'));
    expect(summary.session_git.uncommitted_listed).toEqual(expect.objectContaining({ paths: [], committed_line: 5 }));
  });

  it('and only those: a file it did not stage stays uncommitted; `git add -A`, `.` and a folder take theirs', () => {
    const one = built<{ session_git: { uncommitted_listed: { paths: string[] } } }>(...start, bash('c1', 'git add ./tests/test_unit.py && git commit -m "tests"'), result('c1', '[master 1a2b3c4] tests\n 1 file changed'), say('a1', 'Committed.'));
    expect(one.summary.session_git.uncommitted_listed.paths).toEqual(['deep_manifest/deep_manifest.py', 'tests/test_integration.py']);
    const dir = built<{ session_git: { uncommitted_listed: { paths: string[] } } }>(...start, bash('c1', 'git add tests/ && git commit -m "tests"'), result('c1', '[master 1a2b3c4] tests\n 2 files changed'), say('a1', 'Committed.'));
    expect(dir.summary.session_git.uncommitted_listed.paths).toEqual(['deep_manifest/deep_manifest.py']);
    const all = built<{ session_git: { uncommitted_listed: { paths: string[] } } }>(...start, bash('c1', 'git add -A && git commit -m "all"'), result('c1', '[master 1a2b3c4] all\n 3 files changed'), say('a1', 'Committed.'));
    expect(all.summary.session_git.uncommitted_listed.paths).toEqual([]);
  });
});

describe("a failed write of a file an earlier write had changed, not made again (edgerunner at 552: «None left undone»)", () => {
  it('is a write that did not happen, with the earlier write', () => {
    const { md, summary } = built<{ files_not_changed: unknown[] }>(
      user('u1', 'Harden the server'),
      edit('e1', 'src/server.rs'),
      result('e1', 'The file /nonexistent/w/src/server.rs has been updated.'),
      edit('e2', 'src/server.rs'),
      result('e2', '<tool_use_error>String to replace not found in file.\nString: a</tool_use_error>', { is_error: true }),
      say('a1', 'Let me look again.'),
    );
    expect(summary.files_not_changed).toEqual([{ path: '/nonexistent/w/src/server.rs', line: 5, reason: expect.stringContaining('String to replace not found'), earlier_line: 3 }]);
    expect(md).toContain('`src/server.rs` (line 5): the tool reported an error: <tool_use_error>String to replace not found in file. — an earlier write of it succeeded (line 3): the file has that write, not this one');
  });

  it('is not, once a later write of the file succeeded', () => {
    const { summary } = built<{ files_not_changed: unknown[] }>(
      user('u1', 'Harden the server'),
      edit('e1', 'src/server.rs'),
      result('e1', 'The file /nonexistent/w/src/server.rs has been updated.'),
      edit('e2', 'src/server.rs'),
      result('e2', '<tool_use_error>String to replace not found in file.</tool_use_error>', { is_error: true }),
      edit('e3', 'src/server.rs'),
      result('e3', 'The file /nonexistent/w/src/server.rs has been updated.'),
      say('a1', 'Done.'),
    );
    expect(summary.files_not_changed).toEqual([]);
  });
});

describe('untracked folders in a listing (rave-era at 567: «20 of them untracked», 10 of which were folders)', () => {
  it('says how many of the entries are folders', () => {
    const { md } = built(user('u1', 'Add tickets'), bash('g1', 'git status --short'), result('g1', ' M app/page.tsx\n?? supabase/\n?? lib/auth/\n?? lib/images.ts'), say('a1', 'Listed.'));
    expect(md).toContain('listed 4 uncommitted file(s), 3 of them untracked (never added to git); 2 of the entries are untracked folders, each listed once whatever it holds');
  });
});

describe('a check a pasted text describes is not asked for (coderabbit at 266: uv\'s documentation said "when running pytest or mypy")', () => {
  it('names no check after "running", "when" or "e.g."', async () => {
    const { checksNamedIn } = await import('../../src/core/shell.js');
    expect(checksNamedIn('If the tool should not be isolated from the project, e.g., when running pytest or mypy, then uv run should be used.')).toEqual([]);
    expect(checksNamedIn('When you run pytest it picks the wrong env. e.g. run mypy first.')).toEqual([]);
    expect(checksNamedIn('Please run pytest and fix what fails.').map((c) => c.command)).toEqual(['pytest']);
  });
});

describe('files a commit surely took are said committed, not "may have taken" (FundWise at 232)', () => {
  const write = (id: string, file: string) => call(id, 'Write', { file_path: `/nonexistent/w/${file}`, content: 'x' });
  const made = (id: string, file: string) => result(id, `File created successfully at: /nonexistent/w/${file}`);

  it('when the listing showed them staged and the commit took what was staged', () => {
    const { md } = built(
      user('u1', 'Ship FW-005'),
      write('w1', 'scripts/readiness.mjs'),
      made('w1', 'scripts/readiness.mjs'),
      write('w2', 'docs/readiness.md'),
      made('w2', 'docs/readiness.md'),
      bash('s1', 'git add scripts/readiness.mjs docs/readiness.md && git status --short'),
      result('s1', 'A  docs/readiness.md\nA  scripts/readiness.mjs\n M ROADMAP.md'),
      bash('c1', 'git commit -m "feat: readiness"'),
      result('c1', '[main f8e6fe0] feat: readiness\n 2 files changed, 388 insertions(+)'),
      say('a1', 'Committed.'),
    );
    expect(md).toContain('2 committed at line 9 (staged by name for it, and git counted as many files changed)');
    expect(md).not.toContain('may have taken them');
  });

  it("when the commit's own command staged them by name and git counted as many", () => {
    const { md } = built(
      user('u1', 'Ship FW-005'),
      write('w1', 'scripts/readiness.mjs'),
      made('w1', 'scripts/readiness.mjs'),
      bash('s1', 'git status --short'),
      result('s1', '?? scripts/readiness.mjs\n M ROADMAP.md'),
      write('w2', 'docs/readiness.md'),
      made('w2', 'docs/readiness.md'),
      bash('c1', 'git add docs/readiness.md scripts/readiness.mjs && git commit -m "feat: readiness"'),
      result('c1', '[main f8e6fe0] feat: readiness\n 2 files changed, 388 insertions(+)'),
      say('a1', 'Committed.'),
    );
    // The untracked file the commit's own `git add` named went in: what is left is the modified one, not untracked.
    expect(md).toContain("its commit at line 9 (of what was staged) left uncommitted: `ROADMAP.md`. The session first wrote 1 other file(s) after it (Files changed below). 1 file(s) it wrote before it are not in it: 1 committed at line 9 (staged by name for it, and git counted as many files changed).");
    expect(md).not.toContain('all untracked');
  });
});

describe('a Codex patch reported by its event first is read for what it took out', () => {
  it('and a run that still prints it is said', () => {
    const meta = { timestamp: '2026-07-10T18:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.144.0', originator: 'codex_cli_rs' } };
    const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-07-10T18:16:08Z', type: 'response_item', payload });
    const ev = (payload: Record<string, unknown>) => ({ timestamp: '2026-07-10T18:16:08Z', type: 'event_msg', payload });
    const patch = '*** Begin Patch\n*** Update File: src/cli.py\n@@\n-    print("Usage: extract a pull request into plain text for agents")\n-    print("Run it from a branch that has a pull request open")\n+    print("No pull request found for this branch")\n*** End Patch';
    const { summary } = built<{ stale_output: { count: number; path: string } | null }>(
      meta,
      ev({ type: 'user_message', message: 'Change the message', images: [] }),
      item({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'p1', input: patch }),
      ev({ type: 'patch_apply_end', call_id: 'p1', stdout: 'Success. Updated the following files:\nM src/cli.py\n', success: true, changes: { '/w/src/cli.py': { type: 'update', unified_diff: '' } } }),
      item({ type: 'custom_tool_call_output', call_id: 'p1', output: 'Success. Updated the following files:\nM src/cli.py\n' }),
      item({ type: 'function_call', name: 'exec_command', call_id: 'r1', arguments: JSON.stringify({ cmd: 'extract-pr' }) }),
      item({ type: 'function_call_output', call_id: 'r1', output: 'Process exited with code 0\nOutput:\nUsage: extract a pull request into plain text for agents\nRun it from a branch that has a pull request open\n' }),
    );
    expect(summary.stale_output).toEqual(expect.objectContaining({ count: 2, path: '/w/src/cli.py' }));
  });
});
