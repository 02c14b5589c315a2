import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { gitListing, noCommitsYet } from '../../src/core/shell.js';
import { chainRecords, rewoundConversation } from './claude-chain.js';
import { analysed, built, ran } from './ledger-helper.js';
import { initialState } from '../../src/core/state.js';
import { noteCall, noteRequest, noteResult } from '../../src/core/ledger.js';

/**
 * Rules from the eighth reading (docs/FIDELITY.md): where unpushed commits go when no remote was
 * seen, and what the next action's label vouches for.
 */

const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
const user = (uuid: string, content: unknown): Record<string, unknown> => ({ ...base, type: 'user', uuid, message: { role: 'user', content } });
const agent = (uuid: string, content: unknown[]): Record<string, unknown> => ({ ...base, type: 'assistant', uuid, message: { role: 'assistant', content } });
/** A Bash call at one line and its result at the next. */
const bash = (id: string, command: string, output: string): Record<string, unknown>[] => [
  agent(`c-${id}`, [{ type: 'tool_use', id, name: 'Bash', input: { command } }]),
  user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content: output }]),
];


describe("the next action's label", () => {
  it('says a verified label vouches for the evidence, and the action is advice', () => {
    const { md } = built(user('u1', 'Commit the docs'), ...bash('b1', 'git commit -am "docs"', '[main 1b6c52f] docs\n 1 file changed'), agent('a1', [{ type: 'text', text: 'Committed.' }]));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toMatch(/^Push the 1 unpushed commit\(s\) once the user agrees/);
    expect(next).toContain('*verified* — rule: unpushed commits (line 3: the latest commit, which no later push sent). What the rule rests on is verified; the action is this handoff\'s advice drawn from it (what the user asked for is under User requests)');
    expect(next).not.toContain('not something the user asked for');
  });

  it('adds nothing to a label that is not verified', () => {
    const { md } = built(user('u1', 'What does the parser do with trailing commas?'), agent('a1', [{ type: 'text', text: 'It rejects them.' }]));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain('*inferred* — rule: nothing pending (line 2)');
    expect(next).not.toContain('advice');
  });
});

describe('a command the transcript records no result for', () => {
  const copy = "$latest = Get-ChildItem -Path \"$env:USERPROFILE\\.codex\\sessions\" -Recurse -Filter *.jsonl | Select-Object -First 1; Copy-Item -LiteralPath $latest.FullName -Destination (Join-Path (Get-Location) 'codex-session.jsonl') -Force";

  it('is named under How it ended, whole enough to see what it writes, and in both payloads', () => {
    const { md, summary, llm } = built(
      user('u1', 'Export the session log into the repo'),
      ...bash('b1', 'git status --short', ''),
      agent('c2', [{ type: 'tool_use', id: 'b2', name: 'Bash', input: { command: copy } }]),
      ...bash('b3', 'ls', 'README.md'),
    );
    const now = sections(md).get('State right now (verbatim tail)') ?? '';
    expect(now).toContain("No result is recorded for the command at line 4 (`$latest = Get-ChildItem");
    expect(now).toContain("'codex-session.jsonl') -Force`): it may still be running, or the session stopped before it answered; whether it ran, and what it did, is not known");
    expect(summary.commands_without_result).toEqual([{ line: 4, command: copy }]);
    expect(llm.commands_without_result).toEqual(summary.commands_without_result);
  });

  it('counts several, naming the latest three', () => {
    const calls = ['a', 'b', 'c', 'd'].map((x) => agent(`c-${x}`, [{ type: 'tool_use', id: x, name: 'Bash', input: { command: `echo ${x}` } }]));
    const { md, summary } = built(user('u1', 'Run them'), ...calls, agent('a1', [{ type: 'text', text: 'Started.' }]));
    expect(sections(md).get('State right now (verbatim tail)')).toContain('No result is recorded for 4 commands, the latest at line 3 (`echo b`), line 4 (`echo c`), line 5 (`echo d`): they may still be running, or the session stopped before they answered; whether they ran, and what they did, is not known');
    expect((summary.commands_without_result as unknown[]).length).toBe(4);
  });

  it('says nothing when every command has its result', () => {
    const { md, summary } = built(user('u1', 'List the files'), ...bash('b1', 'ls', 'README.md'), agent('a1', [{ type: 'text', text: 'One file.' }]));
    expect(md).not.toContain('No result is recorded');
    expect(summary.commands_without_result).toEqual([]);
  });
});

describe('what git said of a repository with no commit yet', () => {
  it('reads the branch from git log\'s error, a long git status and git status -sb', () => {
    expect(noCommitsYet("fatal: your current branch 'master' does not have any commits yet\n")).toBe('master');
    expect(noCommitsYet('On branch main\n\nNo commits yet\n\nUntracked files:\n\tREADME.md\n')).toBe('main');
    expect(noCommitsYet('## No commits yet on feat/x\n?? a.ts\n')).toBe('feat/x');
    expect(noCommitsYet('On branch main\nnothing to commit, working tree clean\n')).toBeNull();
    expect(noCommitsYet('echo "No commits yet"')).toBeNull();
  });

  it('is said in Repository Evidence and session_git, from a failing git log, until the session commits; the failing log stays an open failure', () => {
    const empty = "Exit code: 1\nfatal: your current branch 'master' does not have any commits yet";
    const { md, summary } = built(
      user('u1', 'What is committed?'),
      agent('c-b1', [{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'git log --oneline -20' } }]),
      user('r-b1', [{ type: 'tool_result', tool_use_id: 'b1', is_error: true, content: empty }]),
    );
    // Nothing is committed: the truth cards count that open until the session commits.
    expect(summary.open_failures).toEqual([{ line: 3, text: expect.stringContaining('has no commits yet') }]);
    expect(sections(md).get('Repository Evidence')).toContain('git said at line 3 that the branch `master` has no commits yet: nothing in the repository was committed then, and the session made no commit after');
    expect((summary.session_git as Record<string, unknown>).no_commits).toEqual({ line: 3, branch: 'master' });
    const later = built(user('u1', 'Commit it'), ...bash('b1', 'git log', empty), ...bash('b2', 'git add -A && git commit -m "first"', '[master (root-commit) 1a2b3c4] first\n 2 files changed'));
    expect(later.md).not.toContain('has no commits yet');
    expect((later.summary.session_git as Record<string, unknown>).no_commits).toBeNull();
  });
});

describe('a git listing limited to the paths it named', () => {
  it('is marked limited: a status with paths, a name-only diff after --; not a bare status or a diff against a revision', () => {
    expect(gitListing('git status --short lib/images.ts public/placeholder.jpg', '?? lib/images.ts\n?? public/placeholder.jpg\n')).toEqual({ paths: ['lib/images.ts', 'public/placeholder.jpg'], staged: [], untracked: ['lib/images.ts', 'public/placeholder.jpg'], limited: true });
    expect(gitListing('git diff --name-only -- src', 'src/a.ts\n')?.limited).toBe(true);
    expect(gitListing('git status --short', '?? a.ts\n')?.limited).toBeUndefined();
    expect(gitListing('git -C /w status -sb', '## main\n M a.ts\n')?.limited).toBeUndefined();
    expect(gitListing('git diff --name-only HEAD~1', 'a.ts\n')?.limited).toBeUndefined();
  });

  it('says so where the session\'s listing is given, and in session_git', () => {
    const { md, summary } = built(user('u1', 'Which are new?'), ...bash('b1', 'git status --short lib/images.ts', '?? lib/images.ts'), agent('a1', [{ type: 'text', text: 'It is untracked.' }]));
    expect(sections(md).get('Repository Evidence')).toContain("the session's latest `git status` or `git diff --name-only` (line 3), limited to the paths it named, listed 1 untracked file(s), never added to git: `lib/images.ts`");
    expect((summary.session_git as Record<string, unknown>).uncommitted_listed).toEqual({ line: 3, paths: ['lib/images.ts'], committed_line: null, untracked: 1, limited: true });
  });
});

describe('untracked files in a git listing', () => {
  it('are told from changes to tracked files: never added to git, in no commit', () => {
    expect(gitListing('git status', 'On branch main\nChanges not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n\tmodified:   src/a.ts\n\nUntracked files:\n  (use "git add <file>..." to include in what will be committed)\n\tsrc/new.ts\n')).toEqual({ paths: ['src/a.ts', 'src/new.ts'], staged: [], untracked: ['src/new.ts'] });
    const { md, summary } = built(user('u1', 'What is left?'), ...bash('b1', 'git status --short', ' M src/a.ts\n?? src/new.ts\n?? src/other.ts'), agent('a1', [{ type: 'text', text: 'Three files.' }]));
    expect(sections(md).get('Repository Evidence')).toContain('listed 3 uncommitted file(s), 2 of them untracked (never added to git): `src/a.ts`, `src/new.ts`, `src/other.ts`');
    expect((summary.session_git as Record<string, unknown>).uncommitted_listed).toMatchObject({ untracked: 2 });
  });
});

describe('a conversation the user rewound, and closed', () => {
  const b = { ...base, version: '2.1.42', isSidechain: false, userType: 'external' };
  const chain = chainRecords(b);
  const { user: u, agent: a } = chain;
  const exit = (uuid: string, parentUuid: string) => u(uuid, parentUuid, '<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n            <command-args></command-args>');
  const rewound = rewoundConversation(chain);

  it("marks the agent's messages on the branch the user left, as the requests are", () => {
    const { md } = built(...rewound);
    const said = sections(md).get('What the agent reported') ?? '';
    expect(said).toContain('- line 5 — Five strengths, all of them real. *(in the branch left at line 7)*');
    expect(said).toMatch(/- line 8 — Five weak points\.$/m);
  });

  it('says the user closed the session with /exit after its last event, in How it ended and the payload', () => {
    const { md, summary } = built(...rewound, exit('x1', 'a3'));
    expect(sections(md).get('State right now (verbatim tail)')).toContain("**How it ended: done** (line 8) — *inferred*: the agent's last message closes its turn; then the user closed the session with `/exit` (line 9)");
    expect((summary.end as { why: string }).why).toMatch(/; then the user closed the session with `\/exit` \(line 9\)$/);
  });

  it('says nothing of an /exit the session went on after (resumed)', () => {
    const { md } = built(...rewound, exit('x1', 'a3'), u('u4', 'x1', 'Now a balanced opinion'), a('a4', 'u4', 'Balanced: try it.'));
    expect(md).not.toContain('closed the session');
  });
});

describe("a subagent call's task and the agent that ran it", () => {
  it('keeps the task (its head when long, with its length), the call line, and the agent id the result names', async () => {
    const { ingestText, jsonl } = await import('./ingest-helper.js');
    const long = `Explore the parser.\n${'x'.repeat(2500)}`;
    const call = agent('c1', [{ type: 'tool_use', id: 't1', name: 'Task', input: { description: 'Explore the parser', prompt: long, subagent_type: 'Explore' } }]);
    const result = { ...user('r1', [{ type: 'tool_result', tool_use_id: 't1', content: 'The parser is in src/parse.ts.' }]), toolUseResult: { status: 'completed', agentId: 'c8d9b115', totalDurationMs: 10 } };
    const { state } = ingestText(jsonl(user('u1', 'Add tar support'), call, result));
    expect(state.subagents).toHaveLength(1);
    const s = state.subagents[0] as (typeof state.subagents)[number];
    expect(s).toMatchObject({ id: 't1', description: 'Explore the parser', line: 2, agent: 'c8d9b115', prompt_chars: long.length, result_seq: 2, ok: true });
    expect(s.prompt).toBe(`${long.slice(0, 1999)}…`);
    // An agent id that could not be a file name's is not taken.
    const odd = ingestText(jsonl(user('u1', 'Add tar support'), call, { ...result, toolUseResult: { agentId: '../../etc' } }));
    expect(odd.state.subagents[0]?.agent).toBeUndefined();
  });
});

describe('shell calls whose commands the transcript does not hold (redacted by its publisher)', () => {
  const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
  const ask = item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the sync and run the tests' }] });
  const hiddenCall = (id: string) => [item({ type: 'function_call', name: 'exec_command', arguments: '[REDACTED_ARGUMENTS len=83 sha=b4e1e5f7]', call_id: id }), item({ type: 'function_call_output', call_id: id, output: '[REDACTED_OUTPUT len=136 sha=b8890189]' })];

  it('are said in Verification, Commits and Unknowns: none seen is not none run', () => {
    const { md, llm } = built(meta, ask, ...hiddenCall('c1'), ...hiddenCall('c2'), item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }));
    const v = sections(md).get('Verification') ?? '';
    expect(v).toMatch(/^\*unknown\* — no check could be read: 2 shell call\(s\), the first at line 3, whose commands are unreadable \(the transcript's publisher redacted their arguments\): what ran, whether any was a test, build or lint and how it ended, and any commit or write they made, are not known\./);
    expect(sections(md).get('Repository Evidence')).toContain('### Commits made in this session\n\nNone seen.\n\n*unknown* — the transcript hides the commands of some shell calls (see Verification): a commit among them would not show here.');
    expect(sections(md).get('Unknowns')).toContain('- *unknown* Checks and commands: 2 shell call(s), the first at line 3');
    expect(JSON.stringify(llm.unknowns)).toContain('Checks and commands: 2 shell call(s)');
  });

  it('leave Verification and Commits as they were when every command can be read', () => {
    const shown = [item({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'ls' }), call_id: 'c1' }), item({ type: 'function_call_output', call_id: 'c1', output: 'README.md' })];
    const { md } = built(meta, ask, ...shown);
    expect(sections(md).get('Verification')).toMatch(/^None/);
    expect(md).not.toContain('None seen.');
    expect(md).not.toContain('Checks and commands:');
  });
});

describe('a recorded branch that changed during the session', () => {
  const on = (branch: string, r: Record<string, unknown>): Record<string, unknown> => ({ ...r, gitBranch: branch });

  it('is said with each branch and the line it was recorded from, in Repository Evidence and session_git', () => {
    const { md, summary } = built(
      on('feat/x', user('u1', 'Make the button blue')),
      on('feat/x-v2', agent('a1', [{ type: 'text', text: 'Looking at the menu.' }])),
      on('feat/x-v3', user('u2', 'And the background')),
      on('feat/x-v3', agent('a2', [{ type: 'text', text: 'Done.' }])),
    );
    expect(sections(md).get('Repository Evidence')).toContain("Recorded by the transcript: branch `feat/x-v3` from line 3 (before it the transcript recorded `feat/x-v2` from line 2, `feat/x` from line 1: the branch of the folder the harness ran in, which the session's own git output may contradict) in `/nonexistent/w` — *reported*.");
    const recorded = (summary.session_git as { recorded: Record<string, unknown> }).recorded;
    expect(recorded.branch).toBe('feat/x-v3');
    expect(recorded.branches).toEqual([{ branch: 'feat/x', line: 1 }, { branch: 'feat/x-v2', line: 2 }, { branch: 'feat/x-v3', line: 3 }]);
  });

  it('says nothing of it when the branch never changed', () => {
    const { md, summary } = built(on('main', user('u1', 'Make the button blue')), on('main', agent('a1', [{ type: 'text', text: 'Done.' }])));
    expect(md).toContain('Recorded by the transcript: branch `main` in `/nonexistent/w` — *reported*.');
    expect((summary.session_git as { recorded: Record<string, unknown> }).recorded.branches).toBeUndefined();
  });
});

describe('a kill by name', () => {
  it('reads the names pkill and killall kill by, past options and redirections', async () => {
    const { killedByName } = await import('../../src/core/shell.js');
    expect(killedByName("pkill -9 zsh 2>/dev/null; sleep 2")).toEqual([{ tool: 'pkill', name: 'zsh' }]);
    expect(killedByName("pkill -9 -f 'fetch.py' 2>/dev/null; killall node")).toEqual([{ tool: 'pkill', name: 'fetch.py' }, { tool: 'killall', name: 'node' }]);
    expect(killedByName('kill -9 1234')).toEqual([]);
    expect(killedByName('echo "pkill zsh"')).toEqual([]);
  });

  it("is destructive when it kills what no earlier command of the session names (the user's shells), not when it stops the session's own job", () => {
    const { md, summary } = built(
      user('u1', 'Fetch the PRs'),
      ...bash('b1', 'python fetch.py > fetch.log 2>&1 &', ''),
      ...bash('b2', "pkill -f 'fetch.py'", ''),
      ...bash('b3', 'pkill -9 zsh 2>/dev/null; echo done', 'done'),
      agent('a1', [{ type: 'text', text: 'Stopped.' }]),
    );
    expect(summary.destroyed).toEqual([{ line: 7, command: 'pkill -9 zsh 2>/dev/null; echo done', what: 'killed every process matching "zsh" (pkill; no earlier command of the session names it, though a program it ran may have started some)', ok: true, call_line: 6 }]);
    expect(sections(md).get('Repository Evidence')).toContain('- line 6 (its result: line 7): killed every process matching "zsh" (pkill; no earlier command of the session names it, though a program it ran may have started some) — `pkill -9 zsh 2>/dev/null; echo done`');
  });

  it('shows the latest five destructive commands in HANDOFF.md, and says where the rest are', () => {
    const rms = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].flatMap((x) => bash(`r${x}`, `rm -rf build-${x}`, ''));
    const { md, summary } = built(user('u1', 'Clean the builds'), ...rms, agent('a1', [{ type: 'text', text: 'Cleaned.' }]));
    expect((summary.destroyed as unknown[]).length).toBe(7);
    const ev = sections(md).get('Repository Evidence') ?? '';
    expect(ev).not.toContain('build-b`');
    expect(ev).toContain('- line 14 (its result: line 15): removed build-g recursively — `rm -rf build-g`');
    expect(ev).toContain("- … 2 earlier in HANDOFF.summary.json's `destroyed`");
  });
});

describe('calls a permission rule denied, then an answer', () => {
  it('says the agent answered without them, so the answer rests on what it could read; not while it has not answered', () => {
    const denied = (id: string) => [
      agent(`c-${id}`, [{ type: 'tool_use', id, name: 'WebSearch', input: { query: 'claude -p tools' } }]),
      user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, is_error: true, content: "Claude requested permissions to use WebSearch, but you haven't granted it yet." }]),
    ];
    const answered = built(user('u1', 'Which tools does claude -p have?'), ...denied('w1'), agent('a1', [{ type: 'text', text: 'From what I know: Task and WebSearch.' }]));
    expect(sections(answered.md).get('Next Action')).toMatch(/^The agent answered \(line 4\) without the call a permission rule denied \(line 3: .*\): nothing it would have shown is in that answer\. To check it, ask the user to allow it; else wait for the user's next request$/m);
    const pending = built(user('u1', 'Which tools does claude -p have?'), ...denied('w1'));
    expect(sections(pending.md).get('Next Action')).not.toContain('answered without');
  });
});

describe('a commit the session did not make at HEAD', () => {
  it('is said when a later git log of HEAD begins with another commit and the session moved nothing in between', () => {
    const { md, summary } = built(
      user('u1', 'Commit the work'),
      ...bash('b1', 'git log --oneline -3', '9d35684 fix: teams\n1111111 older'),
      agent('c-b2', [{ type: 'tool_use', id: 'b2', name: 'Bash', input: { command: 'git add -A && git commit -m "feat: teams"' } }]),
      user('r-b2', [{ type: 'tool_result', tool_use_id: 'b2', is_error: true, content: 'Exit code 1\nOn branch fix/x\nnothing to commit, working tree clean' }]),
      ...bash('b3', 'git log --oneline -3', 'a7bfa7b optimized team loading\n9d35684 fix: teams'),
      agent('a1', [{ type: 'text', text: 'Committed.' }]),
    );
    expect(sections(md).get('Repository Evidence')).toContain("*reported* — its `git log` at line 7 begins with `a7bfa7b` «optimized team loading», a commit the session's own commands did not make: HEAD was at `9d35684` in its `git log` at line 3, and the session's own git commands in between made no commit and moved nothing (no merge, pull, rebase, reset or checkout). Someone or something else committed between lines 3 and 7 (another program, the user, or a tool the agent ran, perhaps between turns) (the session had staged files with `git add` at line 4: it may hold them); check what it holds.");
    expect((summary.session_git as Record<string, unknown>).foreign_head).toEqual({ line: 7, hash: 'a7bfa7b', subject: 'optimized team loading', was: '9d35684', was_line: 3, staged_line: 4 });
  });

  it('is not said when the session committed, pulled or checked out in between, or HEAD did not move', () => {
    for (const between of [
      bash('b2', 'git commit -am "feat: teams"', '[fix/x a7bfa7b] feat: teams\n 1 file changed'),
      bash('b2', 'git pull', 'Updating 9d35684..a7bfa7b\nFast-forward'),
      bash('b2', 'git checkout main', "Switched to branch 'main'"),
    ]) {
      const { md } = built(user('u1', 'Commit the work'), ...bash('b1', 'git log --oneline -3', '9d35684 fix: teams'), ...between, ...bash('b3', 'git log --oneline -3', 'a7bfa7b optimized team loading'));
      expect(md).not.toContain('did not make');
    }
    const still = built(user('u1', 'Look'), ...bash('b1', 'git log --oneline -1', '9d35684 fix: teams'), ...bash('b3', 'git log --oneline -1', '9d35684 fix: teams'));
    expect((still.summary.session_git as Record<string, unknown>).foreign_head).toBeNull();
  });
});

describe('an install that builds the project', () => {
  it("is summed up by the line that says it built, not by uv's closing words", async () => {
    const { decideOutcome } = await import('../../src/core/outcome.js');
    const out = '   Building x @ file:///w\n      Built x @ file:///w\nModified x environment\n ~ x==1.0.0 (from file:///w)\nNothing to upgrade';
    expect(decideOutcome('build', 0, true, out)).toEqual({ outcome: 'pass', line: 'Built x @ file:///w' });
    expect(decideOutcome('build', 0, true, 'Resolved 4 packages\nInstalled 1 executable: coderabbit-extract')).toEqual({ outcome: 'pass', line: 'Installed 1 executable: coderabbit-extract' });
    expect(decideOutcome('build', 0, true, 'Successfully installed x-1.0.0')).toEqual({ outcome: 'pass', line: 'Successfully installed x-1.0.0' });
  });
});

describe('a call the user rejected without a word', () => {
  const REJECTED = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
  it('is said beside the requests, with the call it stopped, and in both payloads', () => {
    const { md, summary, llm } = built(
      user('u1', 'Reinstall the tool'),
      agent('c1', [{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'find . -name "*.pyc" -delete && uv tool install --reinstall .' } }]),
      user('r1', [{ type: 'tool_result', tool_use_id: 'b1', is_error: true, content: REJECTED }]),
    );
    expect(sections(md).get('User requests and corrections')).toContain('*verified* — calls the user rejected with no reason typed in the rejection, latest last:\n\n- line 3 — rejected the call at line 2: `find . -name "*.pyc" -delete && uv tool install --reinstall .`');
    expect(summary.rejected_calls).toEqual([{ line: 3, call_line: 2, what: 'find . -name "*.pyc" -delete && uv tool install --reinstall .' }]);
    expect(llm.rejected_calls).toEqual(summary.rejected_calls);
  });

  const edit = (id: string, text: string) => agent(`c-${id}`, [{ type: 'tool_use', id, name: 'Edit', input: { file_path: '/nonexistent/w/src/parse.ts', old_string: 'a', new_string: text } }]);

  it('is listed beside the requests when it was a write its file never got, said to be under Writes that did not happen too', () => {
    const { md, summary } = built(user('u1', 'Fix the parser'), edit('e1', 'b'), user('r1', [{ type: 'tool_result', tool_use_id: 'e1', is_error: true, content: REJECTED }]));
    expect(summary.rejected_calls).toEqual([{ line: 3, call_line: 2, what: 'Edit /nonexistent/w/src/parse.ts' }]);
    expect(sections(md).get('User requests and corrections')).toContain('- line 3 — rejected the call at line 2: `Edit …/w/src/parse.ts` — never written after (Writes that did not happen)');
    expect(sections(md).get('Repository Evidence')).toContain('### Writes that did not happen');
  });

  it('is listed when the file was written another way afterwards: the rejection is the only trace of it', () => {
    const { md } = built(
      user('u1', 'Fix the parser'),
      edit('e1', 'b'),
      user('r1', [{ type: 'tool_result', tool_use_id: 'e1', is_error: true, content: REJECTED }]),
      edit('e2', 'c'),
      user('r2', [{ type: 'tool_result', tool_use_id: 'e2', content: 'The file /nonexistent/w/src/parse.ts has been updated.' }]),
    );
    expect(sections(md).get('User requests and corrections')).toContain('- line 3 — rejected the call at line 2: `Edit …/w/src/parse.ts`');
  });

  it('is a request when the user typed why, not listed again', () => {
    const { md, summary } = built(
      user('u1', 'Reinstall the tool'),
      agent('c1', [{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'rm -rf build' } }]),
      user('r1', [{ type: 'tool_result', tool_use_id: 'b1', is_error: true, content: "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nkeep the build folder" }]),
    );
    expect(md).not.toContain('with no reason typed');
    expect(summary.rejected_calls).toEqual([]);
  });
});

describe('a /clear after the last event', () => {
  it('is said as the end of the conversation, in the older form without a slash too', () => {
    for (const name of ['/clear', 'clear']) {
      const { md } = built(user('u1', 'Fix the types'), agent('a1', [{ type: 'text', text: 'Fixed.' }]), user('x1', `<command-name>${name}</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>`));
      expect(sections(md).get('State right now (verbatim tail)')).toContain("; then the user cleared the conversation with `/clear` (line 3)");
    }
  });
});

describe('a check older than the last change, when the change is not one it looks at', () => {
  const after = (check: string, changed: string) => {
    const st = initialState();
    const l = st.ledger;
    noteRequest(l, 'tidy the renderer', 1, 'request');
    noteCall(l, { id: 'w0', name: 'Edit', line: 5, writes: [{ path: '/w/app/renderer.py', how: 'edit' }] });
    noteResult(l, { id: 'w0', line: 6, ok: true });
    ran(l, 10, check, 0, 'All checks passed!');
    ran(l, 12, 'pytest', 0, '===== 6 passed in 0.1s =====');
    noteCall(l, { id: 'w1', name: 'Edit', line: 20, writes: [{ path: changed, how: 'edit' }] });
    noteResult(l, { id: 'w1', line: 21, ok: true });
    ran(l, 30, 'pytest', 0, '===== 6 passed in 0.1s =====');
    return analysed(st).checksNotRun.map((f) => f.text);
  };

  it("is not stale for a linter when only another language's file, or a file it does not name, changed", () => {
    expect(after('ruff check /w/app/renderer.py', '/w/app/templates/page.html')).toEqual([]);
    expect(after('ruff check /w/app/renderer.py', '/w/app/other.py')).toEqual([]);
    expect(after('npx eslint src', '/w/app/other.py')).toEqual([]);
  });

  it('is stale when the file it names, or its language, changed, and says which', () => {
    expect(after('ruff check /w/app/renderer.py', '/w/app/renderer.py')).toEqual(['`ruff check /w/app/renderer.py` last ran at line 11, before the last file change (line 21)']);
    expect(after('ruff check .', '/w/app/other.py')).toEqual(['`ruff check .` last ran at line 11, before the last file change (line 21)']);
    // With tests in the same command, every change counts.
    expect(after('ruff check /w/app/renderer.py && pytest', '/w/app/templates/page.html')).toEqual(['`ruff check /w/app/renderer.py && pytest` last ran at line 11, before the last file change (line 21)']);
  });
});

describe("a long plan's outline, cut", () => {
  it('keeps its head and its tail (the files it will touch come last), and says how many lines were left out', async () => {
    const { outlineCut } = await import('../../src/core/render/handoff-md.js');
    const outline = Array.from({ length: 20 }, (_, i) => `- step ${i + 1}`);
    const { shown, more } = outlineCut(outline, 16);
    expect(shown).toEqual([...outline.slice(0, 8), '… 4 more …', ...outline.slice(12)]);
    expect(more).toBe(', the first 8 and the last 8 of its 20');
    expect(outlineCut(outline.slice(0, 16), 16)).toEqual({ shown: outline.slice(0, 16), more: '' });
  });
});

describe("a Codex patch's kind of write", () => {
  it('is a creation for `*** Add File`, a deletion for `*** Delete File`, a patch for an update', () => {
    const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
    const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
    const patch = '*** Begin Patch\n*** Add File: src/new.ts\n+export const a = 1;\n*** Update File: src/old.ts\n@@\n-x\n+y\n*** Delete File: src/gone.ts\n*** End Patch';
    const { summary } = built(
      meta,
      item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Restructure src' }] }),
      item({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'p1', input: patch }),
      item({ type: 'custom_tool_call_output', call_id: 'p1', output: JSON.stringify({ output: 'Success. Updated the following files:\nA src/new.ts\nM src/old.ts\nD src/gone.ts\n', metadata: { exit_code: 0 } }) }),
    );
    const how = Object.fromEntries((summary.files_changed as { path: string; how: string }[]).map((f) => [f.path.split('/').pop(), f.how]));
    expect(how).toEqual({ 'new.ts': 'create', 'old.ts': 'patch', 'gone.ts': 'delete' });
  });
});
