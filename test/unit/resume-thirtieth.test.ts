import { describe, expect, it } from 'vitest';
import { decideOutcome } from '../../src/core/outcome.js';
import { isGoAhead } from '../../src/core/ledger.js';
import { call, edit, result, say, todos, todosDone, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/**
 * Rules from the thirtieth reading (docs/FIDELITY.md): seven sessions cut at points no reading
 * had used, each handoff read alone, then against its transcript.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });

/** Codex records: the session's first line, an event, a response item. */
const codexMeta = { timestamp: '2026-07-10T18:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/nonexistent/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-07-10T18:00:10Z', type: 'event_msg', payload });

/** A problem reported, a fix, the user's `word`, then another change the user has not tried. */
const workedThenChanged = (word: string, problem: string) => [
  user('u1', problem),
  edit('e1', 'hooks/useTeam.ts'),
  updated('e1', 'hooks/useTeam.ts'),
  user('u2', word),
  edit('e2', 'hooks/useTeamWithStats.ts'),
  updated('e2', 'hooks/useTeamWithStats.ts'),
  say('a1', 'Refactored the loading.'),
];

describe('a clean `git status`, then an empty commit (deep-manifest at 122: «showed every file staged, and its commit at line 70 took them»)', () => {
  it('says no listing took files into that commit, and what was written after it', () => {
    const { md } = built(
      user('u1', 'Commit the pending changes'),
      bash('g1', 'git add -A && git commit -m "docs: reorganize"'),
      result('g1', '[master 17015f9] docs: reorganize\n 7 files changed, 142 insertions(+), 65 deletions(-)'),
      bash('g2', 'git status'),
      result('g2', "On branch master\nYour branch is ahead of 'origin/master' by 1 commit.\n\nnothing to commit, working tree clean"),
      user('u2', 'Create an empty commit with that report'),
      bash('g3', 'git commit --allow-empty -m "milestone: health check"'),
      result('g3', '[master 1d28f1e] milestone: health check'),
      user('u3', 'Now support tar archives'),
      edit('e1', 'deep_manifest.py'),
      updated('e1', 'deep_manifest.py'),
    );
    expect(md).not.toContain('showed every file staged');
    expect(md).not.toMatch(/its commit at line 8 took them/);
    expect(md).toContain('edit (after the session\'s last commit, line 8)');
  });
});

describe("the user's answers since the request (deep-manifest at 122: the Next Action quoted the request alone)", () => {
  it('are in the Next Action, which they shape', () => {
    const { summary } = built<{ next_action: { text: string } }>(
      user('u1', 'We support .zip; support embedded .tar and .tar.gz the same way.'),
      call('q1', 'AskUserQuestion', { questions: [{ question: 'Which tar formats should be supported?', header: 'Formats', multiSelect: false, options: [{ label: 'Also .tgz', description: '' }] }] }),
      result('q1', 'User has answered your questions: "Which tar formats should be supported?"="Also .tgz". You can now continue with the user\'s answers in mind.'),
      say('a1', 'Now let me update process_input():'),
      edit('e1', 'deep_manifest.py'),
      updated('e1', 'deep_manifest.py'),
    );
    expect(summary.next_action.text).toContain("the user answered the agent's question(s) since, and the answers bear on it (line 3: «\"Which tar formats should be supported?\"=\"Also .tgz\"");
  });

  it('and not those of an earlier request', () => {
    const { summary } = built<{ next_action: { text: string } }>(
      call('q1', 'AskUserQuestion', { questions: [{ question: 'Which database?', header: 'DB', multiSelect: false, options: [{ label: 'Postgres', description: '' }] }] }),
      result('q1', 'User has answered your questions: "Which database?"="Postgres". You can now continue with the user\'s answers in mind.'),
      user('u1', 'Now add the migrations'),
      edit('e1', 'db/migrate.sql'),
      updated('e1', 'db/migrate.sql'),
    );
    expect(summary.next_action.text).not.toContain('answered');
  });
});

describe('a go-ahead (posthog at 402: «ok 開始», the Next Action quoted it alone)', () => {
  const proposal = `All five accepted. The final spec:\n\n1. Survival becomes live-cycle with exposure normalization.\n2. Comment-only changes are excluded.\n${'- detail of the spec\n'.repeat(40)}Shall I start the clock? OK to start?`;

  it("quotes the agent's message it approves, and says how long it is", () => {
    const { summary } = built<{ next_action: { text: string } }>(
      user('u1', 'Read doc.md and propose ideas; we discuss first'),
      say('a1', proposal),
      user('u2', 'ok 開始'),
      todos('t1', [['Fetch data', 'pending']]),
      todosDone('t1'),
      edit('e1', 'src/fetch.py'),
      updated('e1', 'src/fetch.py'),
    );
    expect(summary.next_action.text).toContain("(line 3: «ok 開始»); it approves the agent's message just before it (line 2): «All five accepted. The final spec:");
    expect(summary.next_action.text).toContain(`(shortened; the message is ${proposal.replace(/\s+/g, ' ').trim().length} characters, whole at that line of the transcript: read it first)`);
  });

  it("and not an agent's report the user acknowledged", () => {
    const { summary } = built<{ next_action: { text: string } }>(
      user('u1', 'Search the web for it'),
      say('a1', 'Done: the subagent searched the web.'),
      user('u2', 'ok'),
      edit('e1', 'notes.md'),
      updated('e1', 'notes.md'),
    );
    expect(summary.next_action.text).not.toContain('approves');
  });

  it('is told by its words alone', () => {
    for (const yes of ['ok 開始', 'yes, go ahead', 'OK!', 'lgtm', 'sounds good, proceed', '好的', 'ok start']) expect(isGoAhead(yes), yes).toBe(true);
    for (const no of ['fix the tests', 'ok but use postgres', 'no', 'ok 開始 but first run the linter please', 'thanks']) expect(isGoAhead(no), no).toBe(false);
  });
});

describe('a linter that passed with warnings (agentcmd at 525: «passed … info - Need to disable some ESLint rules?»)', () => {
  const nextLint = "\n> @repo/labs@0.1.0 lint /w/apps/labs\n> next lint\n\n`next lint` is deprecated and will be removed in Next.js 16.\n\n./src/domain/teams/services/getTeamsWithStats.ts\n211:11  Warning: 'teamLead' is assigned a value but never used.  @typescript-eslint/no-unused-vars\n\ninfo  - Need to disable some ESLint rules? Learn more here: https://nextjs.org/docs/app/api-reference/config/eslint#disabling-rules\n";

  it('says the warnings first, with the file and place of the first', () => {
    const d = decideOutcome('lint', 0, undefined, nextLint);
    expect(d.outcome).toBe('pass');
    expect(d.line).toMatch(/^warnings \(1 in what it printed\), the first: getTeamsWithStats\.ts 211:11: 'teamLead' is assigned a value but never used\. @typescript-eslint\/no-unused-vars — info\s+- Need to disable/);
  });

  it("ESLint's own format too, and after a build's verdict", () => {
    const stylish = '/w/src/a.ts\n  3:7  warning  \'x\' is defined but never used  no-unused-vars\n  9:1  warning  Unexpected console statement  no-console\n';
    expect(decideOutcome('lint', 0, undefined, stylish).line).toMatch(/^warnings \(2 in what it printed\), the first: a\.ts 3:7: 'x' is defined but never used no-unused-vars — 9:1/);
    expect(decideOutcome('lint', 0, undefined, `${stylish}\n✖ 2 problems (0 errors, 2 warnings)\n`).line).toBe('✖ 2 problems (0 errors, 2 warnings)');
    const build = `./app/page.tsx\n357:70  Warning: Unused eslint-disable directive.\n\n✓ Compiled successfully in 17.3s\n`;
    expect(decideOutcome('build', 0, undefined, build).line).toBe('✓ Compiled successfully in 17.3s; warnings (1 in what it printed), the first: page.tsx 357:70: Unused eslint-disable directive.');
  });

  it('and says nothing more of a run without warnings', () => {
    expect(decideOutcome('lint', 0, undefined, '✔ No ESLint warnings or errors\n').line).toBe('✔ No ESLint warnings or errors');
  });
});

describe("cargo's «could not compile» (edgerunner at 782: the open failure named no cause)", () => {
  it('is said with the first error above it and its place', () => {
    const out = '    Checking edgerunner v0.1.0 (/w/crates/service)\nerror[E0433]: cannot find module or crate `uuid` in this scope\n  --> crates/service/src/server.rs:78:15\n   |\n78 |     order_id: uuid::Uuid,\n   |               ^^^^ use of unresolved module or unlinked crate `uuid`\n\nFor more information about this error, try `rustc --explain E0433`.\nerror: could not compile `edgerunner` (bin "edgerunner") due to 1 previous error\n';
    const d = decideOutcome('build', 101, undefined, out);
    expect(d.line).toBe('error[E0433]: cannot find module or crate `uuid` in this scope (crates/service/src/server.rs:78:15) — error: could not compile `edgerunner` (bin "edgerunner") due to 1 previous error');
  });
});

describe('a Codex message with a screenshot (localpush 12-54 at 2455: two messages of the same words read as one sent twice)', () => {
  it('says the image the message carried', () => {
    const png = `data:image/png;base64,${'A'.repeat(4096)}`;
    const { md } = built(
      codexMeta,
      event({ type: 'task_started', turn_id: 't1' }),
      event({ type: 'user_message', message: 'the header is cut off', images: [png], local_images: [] }),
      event({ type: 'agent_message', message: 'Looking at it.' }),
      event({ type: 'user_message', message: 'the header is cut off', images: [], local_images: ['/Users/u/Desktop/shot 2.png'] }),
    );
    expect(md).toContain('the header is cut off [image: image/png, 3 KB omitted]');
    expect(md).toContain('the header is cut off [image: image/png omitted]');
  });

  it("and a publisher's placeholder beside it is still unreadable, not quoted", () => {
    const { summary } = built<{ next_action: { text: string } }>(
      codexMeta,
      event({ type: 'task_started', turn_id: 't1' }),
      event({ type: 'user_message', message: '[REDACTED_MESSAGE len=188 sha=d62a3c8d]', images: ['[REDACTED_IMAGES len=6832270 sha=96e2e452]'], local_images: [] }),
    );
    expect(summary.next_action.text).toContain('unreadable');
    expect(summary.next_action.text).not.toContain('«[REDACTED_MESSAGE');
  });
});

describe('a task list all done, then files written (edgerunner at 782: «In Progress: None» over a new feature half-built)', () => {
  it('says the list is not the state of the work since', () => {
    const { md } = built(
      user('u1', 'Build the backend'),
      todos('t1', [['Scaffold the workspace', 'completed'], ['Run the checks', 'completed']]),
      todosDone('t1'),
      say('a1', 'The backend is complete. Now wiring proof association.'),
      edit('e1', 'crates/adapters/src/txline.rs'),
      updated('e1', 'crates/adapters/src/txline.rs'),
    );
    expect(md).toContain("from the agent's latest todo/plan list (line 2) — every item done then; 1 file(s) were written after it (the latest at line 6), work no item of the list names: it is not the state of the work since (Files changed and Verification are)");
  });
});

describe('a brief of 5,300 characters (rave-era at 202: TASK 5 and 6 were left out)', () => {
  it('is the objective whole', () => {
    const tasks = Array.from({ length: 6 }, (_, i) => `TASK ${i + 1}\n${`- check item ${i + 1} of the audit carefully and say what you found\n`.repeat(20)}`).join('\n');
    expect(tasks.length).toBeGreaterThan(5000);
    const { summary } = built<{ objective: string }>(user('u1', tasks), say('a1', 'Auditing.'));
    expect(summary.objective).toContain('TASK 6');
    expect(summary.objective).not.toContain('characters left out');
  });
});

describe('a traceback that does not end the output (coderabbit at 62: «failed (exit 1): Traceback (most recent call last):»)', () => {
  it('is said by the exception its last frame raised', () => {
    const out = 'Exit code 1\nResolved 4 packages in 55ms\n  × Failed to build `x @ file:///w`\n  ╰─▶ Call to `hatchling.build.build_wheel` failed (exit status: 1)\n\n      [stderr]\n      Traceback (most recent call last):\n        File "<string>", line 11, in <module>\n          wheel_filename = backend.build_wheel()\n      ValueError: Unable to determine which files to ship\n      inside the wheel using the following heuristics:\n\n      hint: This usually indicates a problem with the package or the build\n      environment.';
    expect(decideOutcome('build', 1, undefined, out).line).toBe('ValueError: Unable to determine which files to ship — Traceback (most recent call last):');
  });
});

describe('a command whose pipe hid its exit code, printing the error an earlier one failed with (FundWise at 171)', () => {
  const yarn = 'This project is configured to use yarn because /Users/u/package.json has a "packageManager" field';
  const session = (last: string) => [
    user('u1', 'Run pnpm build'),
    bash('p1', 'pnpm --version 2>&1'),
    result('p1', `Exit code 1\n${yarn}`, { is_error: true }),
    bash('p2', '/usr/local/bin/pnpm --version 2>&1 | head -5'),
    result('p2', last),
  ];

  it('failed the same way', () => {
    const { md } = built(...session(yarn));
    expect(md).toContain(`line 5: \`/usr/local/bin/pnpm --version 2>&1 | head -5\` printed the error the command of line 3 failed with, its exit code hidden by \`head\`: ${yarn}`);
  });

  it('but not when it printed something else, or nothing hid its exit code', () => {
    expect(built(...session('9.15.0')).md).not.toContain('printed the error');
    const plain = session(yarn).map((r, i) => (i === 3 ? bash('p2', '/usr/local/bin/pnpm --version 2>&1') : r));
    expect(built(...plain).md).not.toContain('printed the error');
  });
});

describe('a commit whose hash was cut away, then several pushes (posthog at 784: «a push followed (line 742)»)', () => {
  const cut = [user('u1', 'Commit and publish it'), bash('c1', 'git add -A && git commit -m "Initial scaffold" 2>&1 | tail -3'), result('c1', ' create mode 100644 src/analyze.py')];
  const later = [
    bash('c2', 'git commit -am "Headline PR" 2>&1 | tail -2 && git push 2>&1 | tail -2'),
    result('c2', '[main 813a320] Headline PR\n 1 file changed, 11 insertions(+)\nTo https://github.com/u/dash.git\n   0d982ca..813a320  main -> main'),
    say('a1', 'Pushed.'),
  ];

  it('is named by the later push that moved the remote from it', () => {
    const { md } = built(
      ...cut,
      bash('p1', 'gh repo create dash --public --source=. --remote=origin --push 2>&1 | tail -10'),
      result('p1', 'https://github.com/u/dash\nTo https://github.com/u/dash.git\n * [new branch]      HEAD -> main\nbranch \'main\' set up to track \'origin/main\'.'),
      ...later,
    );
    // The push at 7 moved the remote from the tip the push at 5 sent: the cut commit, which was the last before it.
    expect(md).toContain("- `0d982ca` Initial scaffold (line 3, its hash the remote's tip the `git push` at line 7 moved from) — pushed");
    expect(md).not.toContain('«Initial scaffold»');
  });

  it('names the first push after it, and no hash when another push came between', () => {
    const { md } = built(
      ...cut,
      bash('p1', 'git push -u origin main 2>&1 | tail -3'),
      result('p1', 'To https://github.com/u/dash.git\n * [new branch]      main -> main'),
      bash('p2', 'git push origin main:backup 2>&1 | tail -3'),
      result('p2', 'To https://github.com/u/dash.git\n * [new branch]      main -> backup'),
      ...later,
    );
    expect(md).toContain('«Initial scaffold» (line 3) — a push followed (line 5)');
    expect(md).not.toContain('`0d982ca` Initial scaffold');
  });
});

describe("the user's word that it works, then more changes (agentcmd at 769: «It's loading the data now.» at 651, then six files)", () => {
  const session = (word: string) => workedThenChanged(word, 'No teams are loading into the pane now');

  it('is said under Checks Not Run: the user has not tried the code since', () => {
    const { md } = built(...session("Can you run the tests? It's loading the data now."));
    expect(md).toContain("*reported* The user said it worked at line 4 («It's loading the data now.»); the session changed 1 file(s) after that (the latest at line 6), which the user has not tried");
  });

  it('but not when the message reports a problem, or says nothing of it working', () => {
    expect(built(...session('It worked before but now nothing shows')).md).not.toContain('said it worked');
    expect(built(...session('Now refactor the stats hook')).md).not.toContain('said it worked');
  });
});

describe('the third round', () => {
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-07-10T18:00:10Z', type: 'response_item', payload });

  it("says one call's end the harness alone recorded was not handed to the agent (rave-era at 446: «it was handed to the agent»)", () => {
    const shell = (id: string, command: string) => item({ type: 'function_call', name: 'shell_command', arguments: JSON.stringify({ command }), call_id: id });
    const { md } = built(
      codexMeta,
      event({ type: 'user_message', message: 'Fix the caching' }),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] }),
      shell('a', 'Get-Content lib\\supabase\\server.ts'),
      event({ type: 'exec_command_end', call_id: 'a', command: ['powershell', '-Command', 'Get-Content lib\\supabase\\server.ts'], exit_code: 0, aggregated_output: 'ok' }),
    );
    expect(md).toContain("The result of the call at line 4 is only the harness's record of its end (line 5): it was not handed to the agent, which stopped before reading it");
  });

  it('keeps a code-mode script still running at the cut as a job (edgerunner at 301: «No test ran after the last file change»)', () => {
    const { md, summary } = built<{ jobs: { id: string; status: string }[] }>(
      codexMeta,
      event({ type: 'user_message', message: 'Implement the plan.' }),
      item({ type: 'custom_tool_call', status: 'completed', call_id: 'x1', name: 'exec', input: 'const r = await tools.exec_command({"cmd":"cargo fmt --all && cargo test --workspace","yield_time_ms":30000});\ntext(r.output);' }),
      item({ type: 'custom_tool_call_output', call_id: 'x1', output: 'Script running with cell ID 46\nWall time 10.0 seconds\nOutput:\n' }),
    );
    expect(summary.jobs).toEqual([expect.objectContaining({ id: '46', status: 'running' })]);
    expect(md).toContain('**running, no end recorded** `46` (exec, started line 3): `cargo fmt --all && cargo test --workspace`');
  });

  it("does not send a successor to settle the agent's word on what it could do (agentcmd at 331: «First settle the agent's claim …»)", () => {
    const context = (approval: string, sandbox: string) => ({ timestamp: '2026-09-24T19:22:21Z', type: 'turn_context', payload: { cwd: '/nonexistent/w', approval_policy: approval, sandbox_policy: { mode: sandbox }, model: 'gpt-5' } });
    const { md, summary } = built<{ contradictions: unknown[] }>(
      { ...codexMeta, payload: { ...codexMeta.payload, cli_version: '0.40.0' } },
      context('on-request', 'read-only'),
      event({ type: 'user_message', message: 'turn on auto accept please' }),
      context('never', 'danger-full-access'),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: "I can't turn on automatic acceptance. I'll keep going." }] }),
      event({ type: 'user_message', message: 'ok continue' }),
      item({ type: 'function_call', name: 'shell', call_id: 's1', arguments: JSON.stringify({ command: ['bash', '-lc', "sed -n '1,80p' src/a.ts"] }) }),
      item({ type: 'function_call_output', call_id: 's1', output: JSON.stringify({ output: 'export const a = 1;', metadata: { exit_code: 0 } }) }),
    );
    expect(summary.contradictions).toHaveLength(1);
    expect(md).not.toContain('First settle');
  });
});

describe("a transcript that ends on the user's refusal of a call (37f83ec9 at 192: «How it ended: mid-work … ends on a tool result»)", () => {
  it('says how it ended: the harness told the agent to stop and wait for the user', async () => {
    const { REJECTED } = await import('./claude-records.js');
    const { md } = built(user('u1', 'Save that test as a permanent unit test'), edit('e1', 'renderer.py'), result('e1', REJECTED, { is_error: true }));
    expect(md).toContain("**How it ended: mid-work** (line 3) — *inferred*: the transcript ends on the user's refusal of the agent's Edit call (`/nonexistent/w/renderer.py`) (the harness told the agent to stop and wait for the user), before the agent replied");
  });
});

describe("a skeptic's probes of the rules above", () => {
  it('a dev server cut by `head` after a timeout, or a log read for its error, is no failure repeated', () => {
    const banner = '> shop@0.0.0 dev\n> vite\n\n  VITE v5.2.8  ready in 412 ms\n\n  ➜  Local:   http://localhost:5173/\n  ➜  Network: use --host to expose\n  ➜  press h + enter to show help';
    const dev = built(user('u1', 'Start the dev server'), bash('b1', 'npm run dev'), result('b1', `Command timed out after 2m 0.0s\n${banner}`, { is_error: true }), bash('b2', 'npm run dev 2>&1 | head -12'), result('b2', banner));
    expect(dev.md).not.toContain('printed the error');
    const log = built(user('u1', 'Deploy to staging'), bash('d1', './deploy.sh staging'), result('d1', 'Exit code 1\nError: AWS credentials not found in the environment', { is_error: true }), bash('d2', 'cat logs/deploy-staging.log | tail -3'), result('d2', 'Error: AWS credentials not found in the environment'));
    expect(log.md).not.toContain('printed the error');
  });

  it('U+FFFD between words or numbers is lost punctuation, not part of a key', async () => {
    const { Redactor } = await import('../../src/core/redact.js');
    const { scanForSecrets } = await import('../../src/core/secret-scan.js');
    const text = 'region ASIA\ufffdPACIFIC\ufffdSALES\ufffd2024 total 12';
    expect(new Redactor().redact(text).count).toBe(0);
    expect(scanForSecrets(text)).toEqual([]);
  });

  it("pytest's verdict beats a traceback printed at shutdown, and an exception's name need not end in Error", () => {
    const pytest = 'Exit code 1\ncollected 4 items\n\ntests/test_feeds.py ...F [100%]\n\nFAILED tests/test_feeds.py::test_parse_atom_dates - AssertionError: assert 1 == 2\n========================= 1 failed, 3 passed in 0.41s =========================\nException ignored in: <function _ProactorBasePipeTransport.__del__ at 0x0000>\nTraceback (most recent call last):\n  File "C:\\\\Python312\\\\Lib\\\\asyncio\\\\proactor_events.py", line 116, in __del__\n    self.close()\nRuntimeError: Event loop is closed';
    expect(decideOutcome('test', 1, undefined, pytest).line).toContain('1 failed, 3 passed');
    const httpx = 'Traceback (most recent call last):\n  File "fetch.py", line 9, in <module>\n    r = httpx.get(url)\nhttpx.ConnectTimeout: timed out\n/usr/lib/python3.12/ssl.py:1: ResourceWarning: unclosed <ssl.SSLSocket fd=3>\nsee the log for details';
    expect(decideOutcome('test', 1, undefined, httpx).line).toBe('httpx.ConnectTimeout: timed out — Traceback (most recent call last):');
  });

  it("a «yes» to a factual question, or «continue» after a report with code in it, approves nothing", () => {
    const facts = built<{ next_action: { text: string } }>(user('u1', 'Why does the worker crash?'), say('a1', 'My plan: delete the stale `payments_v1` queue and recreate it. Before I go further: are you running the app with NODE_ENV=production when it crashes?'), user('u2', 'yes'), edit('e1', 'worker.ts'), updated('e1', 'worker.ts'));
    expect(facts.summary.next_action.text).not.toContain('approves');
    const code = built<{ next_action: { text: string } }>(user('u1', 'Fix the profile crash'), say('a1', "Fixed the profile crash: `user?.profile?.displayName ?? 'Guest'` now guards it."), user('u2', 'continue'), edit('e1', 'settings.tsx'), updated('e1', 'settings.tsx'));
    expect(code.summary.next_action.text).not.toContain('approves');
  });

  it('a go-ahead the transcript ends on quotes what it approves, and the length of a long message is its own', () => {
    const long = `${'The spec in detail, step by step. '.repeat(300)}Shall I start with step 1?`;
    const { summary } = built<{ next_action: { text: string } }>(user('u1', 'Plan it first'), say('a1', long), user('u2', 'ok 開始'));
    expect(summary.next_action.text).toContain("the transcript ends on it, before any reply of the agent (line 3: «ok 開始»); it approves the agent's message just before it (line 2)");
    expect(summary.next_action.text).toContain(`the message is ${long.replace(/\s+/g, ' ').trim().length} characters`);
  });

  it('files unstaged before the commit, or a commit in another repository, are not said taken', () => {
    const staged = [user('u1', 'Commit the docs only'), edit('e1', 'api.ts'), updated('e1', 'api.ts'), bash('g1', 'git add -A && git status --short'), result('g1', 'M  api.ts\nM  docs.md')];
    const restored = built(...staged, bash('g2', 'git restore --staged . && git commit --allow-empty -m "milestone"'), result('g2', '[main 1a2b3c4] milestone'), say('a1', 'The API changes are still uncommitted.'));
    expect(restored.md).not.toContain('took them');
    const other = built(...staged, bash('g3', 'git -C ../shared-types commit -m "types"'), result('g3', '[main 5d6e7f8] types\n 1 file changed'), say('a1', 'Committed the types.'));
    expect(other.md).not.toContain('took them');
  });

  it("cargo's first error is paired with its own crate's verdict, and takes no place that is not its own", () => {
    const two = 'error[E0425]: cannot find value `rate` in this scope\n  --> crates/ledger/src/post.rs:41:22\n\nerror: could not compile `ledger` (lib) due to 1 previous error\nerror[E0308]: mismatched types\n  --> crates/billing/src/invoice.rs:88:5\n\nerror: could not compile `billing` (lib) due to 1 previous error\n';
    expect(decideOutcome('build', 101, undefined, two).line).toBe('error[E0425]: cannot find value `rate` in this scope (crates/ledger/src/post.rs:41:22) — error: could not compile `ledger` (lib) due to 1 previous error; 1 more crate failed to compile');
    const noPlace = "error[E0463]: can't find crate for `core`\n  |\n  = note: the `thumbv7em-none-eabihf` target may not be installed\nerror[E0432]: unresolved import\n --> src/main.rs:3:5\n\nerror: could not compile `app` (bin \"app\") due to 2 previous errors\n";
    expect(decideOutcome('build', 101, undefined, noPlace).line).toMatch(/^error\[E0463\]: can't find crate for `core` — error: could not compile/);
  });

  it("warnings are counted as printed, and a log's time is no linter's place", () => {
    const cut = `/w/src/a.ts\n${Array.from({ length: 19 }, (_, i) => `  ${i + 1}:1  warning  Unexpected any  no-explicit-any`).join('\n')}\n`;
    expect(decideOutcome('lint', 0, undefined, cut).line).toMatch(/^warnings \(19 in what it printed\), the first: a\.ts 1:1:/);
    const vitest = '> vitest run\n02:00  Warning: job skipped, previous run still active\n Tests  3 passed (3)\n';
    expect(decideOutcome('test', 0, undefined, vitest).line).toBe('Tests  3 passed (3)');
  });

  it('a list whose item names the file written after it is not said to name none', () => {
    const { md } = built(user('u1', 'Add --json'), todos('t1', [['Add the --json flag', 'completed'], ['Document --json in README.md', 'completed']]), todosDone('t1'), edit('e1', 'README.md'), updated('e1', 'README.md'));
    expect(md).not.toContain('work no item of the list names');
  });

  it('a refused question followed by an edit is not "nothing came after"', () => {
    const { md } = built(
      user('u1', 'Add CSV export'),
      call('q1', 'AskUserQuestion', { questions: [{ question: 'Which delimiter?', header: 'Q', multiSelect: false, options: [{ label: 'Comma', description: '' }] }] }),
      result('q1', "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  stop asking, use semicolons", { is_error: true }),
      edit('e1', 'src/export.ts'),
      updated('e1', 'src/export.ts'),
    );
    expect(md).not.toContain('and nothing came after');
  });
});

describe("a job whose notification said exit 0, its pipe's, and whose output, read, ends in a crash (posthog at 203)", () => {
  const session = (printed: string) => [
    user('u1', 'Fetch the data'),
    call('b1', 'Bash', { command: 'python src/fetch.py 2>&1 | tail -60', run_in_background: true, description: 'Run data fetcher' }),
    result('b1', 'Command running in background with ID: bkz7. Output is being written to: /tmp/claude/tasks/bkz7.output'),
    user('n1', '<task-notification>\n<task-id>bkz7</task-id>\n<output-file>/tmp/claude/tasks/bkz7.output</output-file>\n<status>completed</status>\n<summary>Background command "Run data fetcher" completed (exit code 0)</summary>\n</task-notification>'),
    bash('r1', 'cat /tmp/claude/tasks/bkz7.output | tail -30'),
    result('r1', printed),
    say('a1', 'Looking at it.'),
  ];

  it('failed', () => {
    const { summary } = built<{ jobs: { id: string; status: string; last_event: { line: number; text: string } }[] }>(...session('Fetching PRs...\nTraceback (most recent call last):\n  File "src/fetch.py", line 245, in <module>\n    main()\nRuntimeError: PR fetch failed page 1: bad itemTypes'));
    expect(summary.jobs).toEqual([expect.objectContaining({ id: 'bkz7', status: 'failed', last_event: { line: 6, text: "its output, read at line 6, ends in a crash (its exit code was its pipe's): RuntimeError: PR fetch failed page 1: bad itemTypes" } })]);
  });

  it('and one whose output shows no crash completed', () => {
    const { summary } = built<{ jobs: { status: string }[] }>(...session('Fetched 527 PRs\nSaved data/raw/prs.json'));
    expect(summary.jobs.map((j) => j.status)).toEqual(['completed']);
  });
});

describe('the fifth round', () => {
  it("a brief's prohibitions report no problem (rave-era at 539: «- do NOT start dev server» read as «the user says it does not work»)", () => {
    const brief = 'We are implementing the next core layer:\n\nTICKET SYSTEM\n\nIMPORTANT:\n- do NOT break UI\n- do NOT expose service role key\n- do NOT start dev server\n\nGOAL: create a ticket after registration. Please don\'t change the API.';
    const { md } = built(user('u1', brief), edit('e1', 'lib/tickets.ts'), updated('e1', 'lib/tickets.ts'));
    expect(md).not.toContain('the user says it does not work');
    const report = built(user('u1', 'The dev server does not start anymore'), edit('e1', 'vite.config.ts'), updated('e1', 'vite.config.ts'));
    expect(report.md).toContain('the user says it does not work');
  });

  it("names the branch the session's own `git branch` marks, beside another the harness recorded (worktrees at 81)", () => {
    const worktree = (r: Record<string, unknown>) => ({ ...r, gitBranch: 'worktree-agent-a4ca7529' });
    const { md } = built(
      worktree(user('u1', 'Merge the three research branches')),
      worktree(bash('g1', 'git branch -a && echo "---" && git log --all --oneline -5')),
      worktree(result('g1', '+ alice/research-plan-mode\n* master\n  worktree-agent-a4ca7529\n---\n* ad2d134 alice: round 1')),
      worktree(say('a1', 'Merging now.')),
    );
    expect(md).toContain("The session's own `git branch` (line 3) says it is on branch `master` — *verified* from git's output.");
  });
});

describe("a second skeptic's probes", () => {
  const session = (word: string) => workedThenChanged(word, 'No teams are loading into the pane');

  it('a question, a condition, an order or a report is no word that it works', () => {
    for (const word of ['Does it work now?', 'Can you check whether that fixed it?', 'If it works, commit it.', 'Make sure it works now.', "It's showing the old numbers from yesterday.", "It's loading forever.", 'It worked before you changed the hook.', 'The team list works now. The stats panel still shows zeros.', 'My colleague says it works now, but I still get a blank pane.']) {
      expect(built(...session(word)).md, word).not.toContain('said it worked');
    }
    expect(built(...session('Great, it works now. Add the stats next.')).md).toContain('The user said it worked at line 4 («Great, it works now.»)');
  });

  it("a report with a «don't» in it is still a report; a brief's order is not", () => {
    for (const word of ["The cards render but don't update when I change the filter", 'Checked the team pages: don\'t load at all']) {
      expect(built(user('u1', word), edit('e1', 'a.ts'), updated('e1', 'a.ts')).md, word).toContain('the user says it does not work');
    }
  });

  it('a job is failed only by its own file, when the output ends on the exception and a pipe gave its exit code', () => {
    const job = (command: string, id: string) => [
      call(`b${id}`, 'Bash', { command, run_in_background: true, description: `job ${id}` }),
      result(`b${id}`, `Command running in background with ID: ${id}. Output is being written to: /tmp/claude/tasks/${id}.output`),
      user(`n${id}`, `<task-notification>\n<task-id>${id}</task-id>\n<status>completed</status>\n<summary>Background command "job ${id}" completed (exit code 0)</summary>\n</task-notification>`),
    ];
    const crash = 'Traceback (most recent call last):\n  File "f.py", line 3, in <module>\nRuntimeError: fetch failed';
    const statuses = (...records: Record<string, unknown>[]) => built<{ jobs: { id: string; status: string }[] }>(user('u1', 'Fetch'), ...records, say('a1', 'Checked.')).summary.jobs.map((j) => `${j.id}:${j.status}`).sort();
    expect(statuses(...job('python f.py 2>&1 | tail -5', 'aa1'), bash('r1', 'cat /tmp/claude/tasks/aa1.output'), result('r1', `${crash}\nretrying…\nSaved data/raw/prs.json`))).toEqual(['aa1:completed']);
    expect(statuses(...job('python f.py', 'aa2'), bash('r2', 'cat /tmp/claude/tasks/aa2.output'), result('r2', crash))).toEqual(['aa2:completed']);
    expect(statuses(...job('python f.py 2>&1 | tail -5', 'aa3'), ...job('python g.py 2>&1 | tail -5', 'aa4'), bash('r3', 'tail -3 /tmp/claude/tasks/aa3.output /tmp/claude/tasks/aa4.output'), result('r3', crash))).toEqual(['aa3:completed', 'aa4:completed']);
  });

  it('a mixed reset to a revision, a stash or a hard reset leaves nothing staged for a later commit', () => {
    const staged = [user('u1', 'Commit the docs only'), edit('e1', 'api.ts'), updated('e1', 'api.ts'), bash('g1', 'git add -A && git status --short'), result('g1', 'M  api.ts\nM  docs.md')];
    for (const undo of ['git reset HEAD~1', 'git reset origin/main', 'git stash', 'git reset --hard']) {
      const { md } = built(...staged, bash('g2', `${undo} && git commit --allow-empty -m "milestone"`), result('g2', '[main 1a2b3c4] milestone'), say('a1', 'Done.'));
      expect(md, undo).not.toContain('took them');
    }
  });

  it("a switch back to the branch recorded ends what an earlier status said; a log's graph names no branch", () => {
    const { md } = built(
      { ...user('u1', 'Try it on a branch'), gitBranch: 'main' },
      bash('g1', 'git switch -c feat && git status'),
      result('g1', "Switched to a new branch 'feat'\nOn branch feat\nnothing to commit, working tree clean"),
      bash('g2', 'git switch main'),
      result('g2', "Switched to branch 'main'"),
      bash('g3', 'git log --graph --oneline -3 && git branch'),
      result('g3', '* 9f8e7d6 fix\n* 1a2b3c4 init\n  feat\n* main'),
      say('a1', 'Back on main.'),
    );
    expect(md).not.toContain('says it is on branch `feat`');
    expect(md).not.toContain('`9f8e7d6` —');
  });

  it('no hash is named across a pull, or from another remote', () => {
    const base = [
      user('u1', 'Commit and publish it'),
      bash('c1', 'git commit -m "Initial scaffold" 2>&1 | tail -3'),
      result('c1', ' create mode 100644 src/analyze.py'),
      bash('p1', 'git push -u origin main 2>&1 | tail -3'),
      result('p1', 'To https://github.com/u/dash.git\n * [new branch]      main -> main'),
    ];
    const pulled = built(...base, bash('l1', 'git pull'), result('l1', 'Updating 0d982ca..5e6f7a8\nFast-forward'), bash('p2', 'git commit -am "x" 2>&1 | tail -1 && git push 2>&1 | tail -2'), result('p2', ' 1 file changed\nTo https://github.com/u/dash.git\n   5e6f7a8..813a320  main -> main'), say('a1', 'Pushed.'));
    expect(pulled.md).not.toContain('`5e6f7a8` Initial scaffold');
    const other = built(...base, bash('p3', 'git push backup main 2>&1 | tail -2'), result('p3', 'To https://gitlab.com/u/dash.git\n   1111111..0d982ca  main -> main'), say('a1', 'Pushed.'));
    expect(other.md).not.toContain('`1111111` Initial scaffold');
  });

  it('a refusal with the reason the user typed is not said as told to stop and wait', async () => {
    const { md } = built(user('u1', 'Clean up the exports'), edit('e1', 'src/export.ts'), result('e1', "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  keep the CSV path", { is_error: true }));
    expect(md).toContain("the transcript ends on the user's refusal of the agent's Edit call (`/nonexistent/w/src/export.ts`) (with the reason the user gave, under User requests), before the agent replied");
  });
});
