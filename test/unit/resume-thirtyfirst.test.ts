import { describe, expect, it } from 'vitest';
import { call, edit, result, say, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';
import { sections } from '../../src/core/quality.js';
import { checkTargets, rewritesHead } from '../../src/core/shell.js';

/**
 * Rules from the thirty-first reading (docs/FIDELITY.md): seven sessions cut at points no reading
 * had used, each handoff read alone, then against its transcript.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });

describe("an untracked folder in the session's `git status` (rave-era at 351: «No edit of the session's … wrote these 49»)", () => {
  it('is not said to be unwritten when a file the session wrote is under it', () => {
    const { md } = built(
      user('u1', 'Audit the app'),
      edit('e1', 'components/admin/admin-panel.tsx'),
      updated('e1', 'components/admin/admin-panel.tsx'),
      edit('e2', 'app/page.tsx'),
      updated('e2', 'app/page.tsx'),
      bash('g1', 'git status --short'),
      result('g1', ' M app/page.tsx\n?? components/admin/\n?? public/logo.svg'),
    );
    expect(md).toContain("No edit of the session's, nor a shell command that plainly writes, wrote `public/logo.svg`");
    expect(md).not.toMatch(/wrote these \d+: [^\n]*components\/admin\//);
  });
});

describe('a check that passed before a file it names changed again (37f83ec9 at 264: «`ruff check claude_code_log/renderer.py` passed»)', () => {
  it('says the file changed after it in its row', () => {
    const { md } = built(
      user('u1', 'Tidy the renderer'),
      bash('l1', 'ruff check claude_code_log/renderer.py'),
      result('l1', 'All checks passed!'),
      bash('t1', 'uv run pytest test/test_template_rendering.py -v'),
      result('t1', '============================== 10 passed in 0.41s =============================='),
      edit('e1', 'claude_code_log/renderer.py'),
      updated('e1', 'claude_code_log/renderer.py'),
    );
    expect(md).toMatch(/\| `ruff check claude_code_log\/renderer\.py` \| passed — before `renderer\.py` changed after it \(the latest at line 7\) \|/);
    // A check that names no changed file keeps its plain verdict.
    expect(md).toMatch(/\| `uv run pytest test\/test_template_rendering\.py -v` \| passed \|/);
  });

  it('does not take a file of the same name in another folder, nor one the check excludes', () => {
    const { md } = built(
      user('u1', 'Fix the orders tests'),
      bash('t1', 'pytest users/tests.py -q'),
      result('t1', '3 passed in 0.12s'),
      bash('l1', 'ruff check . --exclude src/legacy.py'),
      result('l1', 'All checks passed!'),
      edit('e1', 'orders/tests.py'),
      updated('e1', 'orders/tests.py'),
      edit('e2', 'src/legacy.py'),
      updated('e2', 'src/legacy.py'),
    );
    expect(md).toMatch(/\| `pytest users\/tests\.py -q` \| passed \|/);
    expect(md).toMatch(/\| `ruff check \. --exclude src\/legacy\.py` \| passed \|/);
  });

  it('does not take a longer name for the file', () => {
    const { md } = built(
      user('u1', 'Tidy the renderer'),
      bash('l1', 'ruff check claude_code_log/renderer.pyi'),
      result('l1', 'All checks passed!'),
      edit('e1', 'claude_code_log/renderer.py'),
      updated('e1', 'claude_code_log/renderer.py'),
    );
    expect(md).toMatch(/\| `ruff check claude_code_log\/renderer\.pyi` \| passed \|/);
  });
});

describe("writes whose paths the publisher redacted (localpush 12-47 at 600: «9 apply_patch call(s), paths unreadable»)", () => {
  const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
  // Codex writes the user's message as an event too; the publisher's transcript keeps only that copy.
  const ask = (text: string) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'event_msg', payload: { type: 'user_message', message: text, images: [] } });
  const reply = item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] });
  const patch = (id: string) => item({ type: 'custom_tool_call', name: 'apply_patch', input: '[REDACTED_INPUT len=400 sha=0a1b2c3d]', call_id: id, status: 'completed' });
  const patched = (id: string) => item({ type: 'custom_tool_call_output', call_id: id, output: '[REDACTED_OUTPUT len=60 sha=4e5f6a7b]' });

  it('says where they are, and that all came after the latest request', () => {
    const { md } = built(meta, ask('[REDACTED_MESSAGE len=30 sha=11111111]'), reply, ask('[REDACTED_MESSAGE len=40 sha=22222222]'), patch('p1'), patched('p1'), patch('p2'), patched('p2'));
    expect(sections(md).get('Repository Evidence')).toContain("*unknown* — 2 apply_patch call(s) (lines 5 to 7; all came after the user's latest request (line 4)), paths unreadable");
  });

  it('says only where they are when one came before it', () => {
    const { md } = built(meta, ask('[REDACTED_MESSAGE len=30 sha=11111111]'), patch('p1'), patched('p1'), reply, ask('[REDACTED_MESSAGE len=40 sha=22222222]'), patch('p2'), patched('p2'));
    expect(sections(md).get('Repository Evidence')).toContain('*unknown* — 2 apply_patch call(s) (lines 3 to 7), paths unreadable');
  });
});

describe("the agent's reasoning after its last message (agentcmd at 631: its working diagnosis was in no message)", () => {
  const meta = { timestamp: '2025-09-25T01:22:20Z', type: 'session_meta', payload: { id: 'c', cwd: '/nonexistent/w', cli_version: '0.40.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2025-09-25T01:55:00Z', type: 'response_item', payload });
  const ask = (text: string) => item({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  const reply = (text: string) => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
  const reason = (text: string) => item({ type: 'reasoning', summary: [{ type: 'summary_text', text }], encrypted_content: 'gAAAA' });
  const shell = (id: string, cmd: string) => item({ type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', cmd] }), call_id: id });
  const out = (id: string, output: string) => item({ type: 'function_call_output', call_id: id, output: JSON.stringify({ output, metadata: { exit_code: 0 } }) });

  it('is quoted under State right now, said to be what it was working out', () => {
    const { md } = built(
      meta,
      ask('The sheet shows no data'),
      reply('It fetches through useTeamWithStats.'),
      ask('Still not working'),
      reason('**Checking route params**\n\nThe route may read params as a Promise, so the GET handler could fail.'),
      shell('c1', "sed -n '1,120p' app/api/teams/[id]/route.ts"),
      out('c1', 'export const GET = createHandler({'),
    );
    expect(sections(md).get('State right now (verbatim tail)')).toContain("Its latest reasoning after that message (line 5; what it was working out, not a finding): «**Checking route params** The route may read params as a Promise, so the GET handler could fail.»");
  });

  it("is not quoted when it is a publisher's placeholder", () => {
    const { md } = built(meta, ask('Fix it'), reply('Looking.'), reason('[REDACTED_TEXT len=45 sha=c629ccff]'), shell('c1', 'ls'), out('c1', 'a'));
    expect(md).not.toContain('Its latest reasoning');
  });

  it('is not quoted when the agent wrote a message after it', () => {
    const { md } = built(meta, ask('The sheet shows no data'), reason('**Looking at the hook**'), reply('It fetches through useTeamWithStats.'));
    expect(md).not.toContain('Its latest reasoning');
  });
});

describe("the task list's step in progress (rave-era at 351: the Next Action quoted the whole brief, the list had one step left)", () => {
  const list = (id: string, items: [string, 'completed' | 'in_progress' | 'pending'][]) => call(id, 'TodoWrite', { todos: items.map(([content, status]) => ({ content, status, activeForm: content })) });
  const listed = (id: string) => result(id, 'Todos have been modified successfully.');

  it('is named in the Next Action, with what came after it', () => {
    const { md } = built(
      user('u1', 'Audit the product: copy, data, schema, and fix what you find. Then report.'),
      list('t1', [['Audit copy and data', 'completed'], ['Run build and fix failures', 'completed'], ['Summarize audit findings and next steps', 'in_progress']]),
      listed('t1'),
      edit('e1', 'components/ai-assistant.tsx'),
      updated('e1', 'components/ai-assistant.tsx'),
    );
    expect(sections(md).get('Next Action')).toContain("; the agent's task list (line 2) has «Summarize audit findings and next steps» set in progress since, and 2 of 3 item(s) done (under Current State; 1 file(s) were written after it, so it may be behind)");
  });

  it('is not named when its step was set in progress before the request, and the list only grew since', () => {
    const { md } = built(
      user('u1', 'Move auth to v2 tokens'),
      list('t1', [['Switch auth to v2 tokens', 'in_progress'], ['Update docs', 'pending']]),
      listed('t1'),
      user('u2', 'Hold on, CI is red: fix the lint error in src/cli.ts first, nothing else'),
      list('t2', [['Switch auth to v2 tokens', 'in_progress'], ['Update docs', 'pending'], ['Fix lint error', 'pending']]),
      listed('t2'),
      edit('e1', 'src/cli.ts'),
      updated('e1', 'src/cli.ts'),
    );
    expect(sections(md).get('Next Action')).not.toContain('Switch auth to v2 tokens» set in progress since');
  });

  it('is not named when the list came before the request', () => {
    const { md } = built(
      list('t1', [['Audit copy and data', 'in_progress']]),
      listed('t1'),
      user('u1', 'Now fix the header'),
      edit('e1', 'components/header.tsx'),
      updated('e1', 'components/header.tsx'),
    );
    expect(sections(md).get('Next Action')).not.toContain("the agent's task list");
  });
});

describe("a background job's notices the harness delivered as user messages (posthog at 1219: «1211–1213 | USER | 3 notifications»)", () => {
  const notice = (uuid: string, event: string) => user(uuid, `<task-notification>\n<task-id>btkze6lgq</task-id>\n<summary>Monitor event: "Search-based fetch"</summary>\n<event>${event}</event>\n</task-notification>`);

  it('are said not to be the user', () => {
    const { md } = built(user('u1', 'Fetch the data'), say('a1', 'Waiting.'), notice('n1', 'DONE issues: 1287'), notice('n2', 'CODEOWNERS: 2198 chars'), notice('n3', 'ALL DONE'), say('a2', 'Fetch complete.'));
    const timeline = sections(md).get('Recent timeline (last 6 of 6 turns)') ?? md;
    expect(timeline).toMatch(/\| 3–5 \| USER \(job notice, not the user\) \| 3 notifications of job btkze6lgq/);
    expect(timeline).toMatch(/\| 1 \| USER \| Fetch the data \|/);
  });
});

describe('a file deleted and added again in one patch (rave-era at 351: README.md «create»)', () => {
  const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/nonexistent/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });

  it('is written whole, not created', () => {
    const patch = '*** Begin Patch\n*** Delete File: README.md\n*** Add File: README.md\n+# Raveera\n+A premium event platform.\n*** Add File: docs/NEW.md\n+# New\n*** End Patch';
    const { md } = built(
      meta,
      item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Rewrite the README' }] }),
      item({ type: 'custom_tool_call', status: 'completed', call_id: 'p1', name: 'apply_patch', input: patch }),
      item({ type: 'custom_tool_call_output', call_id: 'p1', output: JSON.stringify({ output: 'Success. Updated the following files:\nD README.md\nA README.md\nA docs/NEW.md\n', metadata: { exit_code: 0 } }) }),
    );
    const files = sections(md).get('Repository Evidence') ?? '';
    // Written whole over a file that was there (a Write's "write"), not created.
    expect(files).toMatch(/\| `README\.md` \| write \|/);
    expect(files).toMatch(/\| `docs\/NEW\.md` \| create/);
  });
});

describe('`cargo test --no-run` (edgerunner at 650: «`cargo test --workspace --no-run` … 4 (2 failed)»)', () => {
  it('is a build of its own, not a run of the suite', () => {
    expect(checkTargets('cargo test --workspace --no-run')).toEqual([{ kind: 'build', key: 'cargo test --no-run', tool: 'cargo test --no-run', paths: [] }]);
    expect(checkTargets('cargo test --workspace')[0]?.key).toBe('cargo test');
  });
});

describe("a commit whose hash its output lost, then a push of HEAD (posthog at 561: «whether a push took it, are not known»)", () => {
  const commit = [bash('c1', 'git add -A && git commit -m "Initial scaffold" | tail -2'), result('c1', ' create mode 100644 app.py\n create mode 100644 README.md')];
  const push = [bash('p1', 'git push -u origin HEAD'), result('p1', "To https://github.com/u/dash.git\n * [new branch]      HEAD -> main\nbranch 'main' set up to track 'origin/main'.")];

  it('is on the remote when nothing moved HEAD between', () => {
    const { md } = built(user('u1', 'Commit and push'), ...commit, ...push);
    expect(md).toContain('«Initial scaffold» (line 3) — the push at line 5 sent `HEAD`, which held it (nothing moved HEAD between: no checkout, reset, pull or rebase): the commit is on the remote');
    expect(md).toContain('so its hash is not known:');
  });

  it('is said as before when a checkout came between', () => {
    const { md } = built(user('u1', 'Commit and push'), ...commit, bash('s1', 'git checkout -b other'), result('s1', "Switched to a new branch 'other'"), ...push);
    expect(md).toContain('— a push followed (line 7): if it sent this branch, the commit is on the remote');
  });
});

describe('a git command that may bring other commits or drop the session\'s own', () => {
  it('is a pull, a merge or a reset to another revision, not a reset that unstages', () => {
    for (const c of ['git pull --rebase', 'git merge feature', 'git reset --hard origin/main', 'git reset HEAD~1', 'git reset --soft 9f8e7d6']) expect(rewritesHead(c), c).toBe(true);
    for (const c of ['git reset src/a.ts', 'git reset HEAD -- src/a.ts', 'git reset', 'git status']) expect(rewritesHead(c), c).toBe(false);
  });
});
