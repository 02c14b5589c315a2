import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { call, edit, result, say, todos, todosDone, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/** Rules from the twenty-third reading (docs/FIDELITY.md) not covered beside the code they changed. */

const meta = { timestamp: '2026-02-23T11:48:09Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'event_msg', payload });
const ask = (text: string) => event({ type: 'user_message', message: text, images: [] });
const reply = (text: string) => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const note = (text: string) => item({ type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text }] });
const started = () => event({ type: 'task_started', turn_id: 't', model_context_window: 258400 });
const complete = () => event({ type: 'task_complete', turn_id: 't' });

describe('plan updates whose steps the transcript\'s publisher redacted', () => {
  const hiddenPlan = (id: string) => [item({ type: 'function_call', name: 'update_plan', arguments: '[REDACTED_ARGUMENTS len=584 sha=2ea6cb32]', call_id: id }), item({ type: 'function_call_output', call_id: id, output: 'Plan updated' })];

  it('are a plan kept whose steps are not known, not "no plan", in Current State, the claims and Unknowns', () => {
    const { md, llm } = built(meta, ask('Fix the sync'), ...hiddenPlan('p1'), reply('Working on it.'), ...hiddenPlan('p2'), reply('Done.'));
    const current = sections(md).get('Current State') ?? '';
    expect(current).toBe("*unknown* — 2 plan update(s), the first at line 3, the latest at line 6, whose steps are unreadable (the transcript's publisher redacted their arguments): the agent kept a plan; its steps, and which it marked done, are not known");
    expect(md).not.toContain('the session kept no todo list, task list or plan');
    expect(md).toContain('whether a plan step was marked done as tested with no run to prove it is not known');
    expect(sections(md).get('Unknowns')).toContain('- *unknown* Current state: 2 plan update(s), the first at line 3');
    expect(JSON.stringify(llm.unknowns)).toContain('Current state: 2 plan update(s)');
  });

  it('leave "no plan" as it was when the session updated none, and the plan when its steps can be read', () => {
    const none = built(meta, ask('Fix the sync'), reply('Done.'));
    expect(sections(none.md).get('Current State')).toMatch(/^None: the session kept no todo list, task list or plan/);
    const shown = built(meta, ask('Fix the sync'), item({ type: 'function_call', name: 'update_plan', arguments: JSON.stringify({ plan: [{ step: 'Read the sync code', status: 'completed' }, { step: 'Fix the retry', status: 'in_progress' }] }), call_id: 'p1' }), item({ type: 'function_call_output', call_id: 'p1', output: 'Plan updated' }), reply('On it.'));
    const current = sections(shown.md).get('Current State') ?? '';
    expect(current).toContain('- [~] Fix the retry');
    expect(current).not.toContain('unreadable');
  });
});

describe('checks not run, when the commands of some shell calls are unreadable', () => {
  const hiddenCall = (id: string) => [item({ type: 'function_call', name: 'exec_command', arguments: '[REDACTED_ARGUMENTS len=83 sha=b4e1e5f7]', call_id: id }), item({ type: 'function_call_output', call_id: id, output: '[REDACTED_OUTPUT len=136 sha=b8890189]' })];

  it('are unknown, not none', () => {
    const { md } = built(meta, ask('Fix the sync and run the tests'), ...hiddenCall('c1'), reply('Done.'));
    expect(md).toContain('### Checks Not Run\n\n*unknown* — none among the commands that can be read; which checks the unreadable ones ran, or left out, is not known (see above).');
    const shown = built(meta, ask('List the files'), item({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'ls' }), call_id: 'c1' }), item({ type: 'function_call_output', call_id: 'c1', output: 'Process exited with code 0\nOutput:\nREADME.md' }), reply('One file.'));
    expect(shown.md).toContain('### Checks Not Run\n\nNone');
  });
});

describe('web searches of a session whose sandbox has no network', () => {
  const context = { timestamp: '2026-02-23T11:48:09Z', type: 'turn_context', payload: { cwd: '/w', approval_policy: 'on-request', sandbox_policy: { type: 'workspace-write', network_access: false }, model: 'gpt-5' } };
  const search = item({ type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'tauri 2 updater signing' } });

  it('are said beside "network off", which was read as no outside access at all', () => {
    const { md } = built(meta, context, ask('Sign the updater'), search, reply('Found it.'), search, reply('Done.'));
    expect(md).toContain("network off inside the sandbox from line 2 — *reported*. The session still searched the web 2 time(s), the first at line 4: the harness's web search runs outside the sandbox.");
    const none = built(meta, context, ask('Sign the updater'), reply('Done.'));
    expect(none.md).toContain('network off inside the sandbox');
    expect(none.md).not.toContain('searched the web');
  });
});

describe('context the harness adds as a user message', () => {
  it('is marked in the Recent timeline and the window of HANDOFF.llm.json, so it is not read as the user\'s words', () => {
    const envCtx = item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <shell>powershell</shell>\n</environment_context>' }] });
    const typed = item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Apply for the grant' }] });
    const { md, llm } = built<{ turns: { seq: number; class: string; by?: string }[] }>(meta, envCtx, typed, reply('Drafting it.'));
    const recent = sections(md).get('Recent timeline (last 3 of 3 turns)') ?? md;
    expect(recent).toContain('| 2 | USER (harness context) | <environment_context>');
    expect(recent).toContain('| 3 | USER | Apply for the grant |');
    expect(llm.turns.find((t) => t.seq === 1)?.by).toBe('harness');
    expect(llm.turns.find((t) => t.seq === 2)?.by).toBeUndefined();
  });
});

describe('context Claude Code adds as a user message', () => {
  it('is the harness\'s in the window, and a slash command the user typed is not', () => {
    const { llm } = built<{ turns: { seq: number; by?: string }[] }>(user('u0', '<system-reminder>The date is 2026-12-04.</system-reminder>'), user('u1', '<command-name>/compact</command-name>'), user('u2', 'Fix the parser'), say('a1', 'Fixed.'));
    expect(llm.turns.map((t) => t.by)).toEqual(['harness', undefined, undefined, undefined]);
  });
});

describe('context loaded again on a resume, in a transcript whose publisher redacted every text', () => {
  it('is marked as the harness\'s when its placeholder is one of the opening context\'s, and a repeated request is not', () => {
    const said = (text: string) => item({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    const AGENTS = '[REDACTED_TEXT len=3021 sha=dc9e82a0]';
    const ENV = '[REDACTED_TEXT len=112 sha=87497b81]';
    const ASK = '[REDACTED_TEXT len=64 sha=7d538904]';
    const { llm } = built<{ turns: { seq: number; by?: string }[] }>(
      meta, said(AGENTS), said(ENV), started(), said(ASK), event({ type: 'user_message', message: '[REDACTED_MESSAGE len=64 sha=7d538904]' }), reply('[REDACTED_TEXT len=20 sha=11111111]'), complete(),
      said(AGENTS), said(ENV), started(), said(ASK), event({ type: 'user_message', message: '[REDACTED_MESSAGE len=64 sha=7d538904]' }),
    );
    const by = (line: number) => llm.turns.find((t) => t.seq === line - 1)?.by;
    // Lines: 1 meta, 2-3 opening context, 4 started, 5 request, 6 its event, 7 reply, 8 complete, 9-10 context again, 11 started, 12 the same request again.
    expect([by(9), by(10)]).toEqual(['harness', 'harness']);
    expect(by(12)).toBeUndefined();
    expect(by(5)).toBeUndefined();
  });
});

describe('a turn the harness left for a new one', () => {
  const hiddenCall = (id: string) => item({ type: 'function_call', name: 'exec_command', arguments: '[REDACTED_ARGUMENTS len=292 sha=18fd14f4]', call_id: id });

  it('says its command with no result was left there, not that it may still be running, and that the last request came in a new turn', () => {
    const { md } = built(meta, started(), ask('Migrate the schema'), reply('Migrated.'), complete(), started(), ask('Now seed the data'), note('Seeding now.'), hiddenCall('c1'), started(), ask('Status?'));
    // Lines: 1 meta, 2 started, 3 ask, 4 reply, 5 complete, 6 started, 7 ask, 8 note, 9 call, 10 started, 11 ask.
    const state = sections(md).get('State right now (verbatim tail)') ?? '';
    expect(state).toContain('No result is recorded for the command at line 9 (a shell call whose command the transcript holds redacted): its turn recorded no end (no completion, no abort), and a new turn began at line 10, so it was left there (the app closed, reloaded or was interrupted between); whether it ran, and what it did, is not known');
    expect(state).not.toContain('may still be running');
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain('It came in a new turn (line 10), begun though the turn of the request before it (line 7: «Now seed the data») had recorded no end — no final reply (its last progress note: line 8), no completion, no abort: that turn was left (the app closed, reloaded or was interrupted between); its last command with no result is at line 9');
  });

  it('keeps "may still be running" for a command of the turn still open, and says nothing of a turn that completed', () => {
    const { md } = built(meta, started(), ask('Migrate the schema'), reply('Migrated.'), complete(), started(), ask('Now seed the data'), note('Seeding now.'), hiddenCall('c1'));
    const state = sections(md).get('State right now (verbatim tail)') ?? '';
    expect(state).toContain('it may still be running, or the session stopped before it answered');
    expect(md).not.toContain('a new turn began');
    expect(md).not.toContain('It came in a new turn');
  });
});

describe('a Codex command that outlives its call (a dev server), followed as a job', () => {
  const exec = (id: string, cmd: string) => item({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd, yield_time_ms: 1000 }), call_id: id });
  const poll = (id: string, session: number, chars = '') => item({ type: 'function_call', name: 'write_stdin', arguments: JSON.stringify({ session_id: session, chars, yield_time_ms: 1000 }), call_id: id });
  const out = (id: string, header: string, text: string) => item({ type: 'function_call_output', call_id: id, output: `Chunk ID: 1a2b\nWall time: 1.0 seconds\n${header}\nOriginal token count: 9\nOutput:\n${text}` });
  const running = (session: number) => `Process running with session ID ${session}`;
  const exited = (code: number) => `Process exited with code ${code}`;

  it('is still running, with its last printed line, until a poll shows its end: an exit code, or Ctrl-C', () => {
    const { md, summary } = built<{ jobs: { id: string; status: string; end_line: number | null; last_event: { line: number; text: string } | null }[] }>(
      meta,
      ask('Start the dev server and run the watcher'),
      exec('c1', 'npm run dev -- --port 3000'),
      out('c1', running(4242), '> next dev\r\nready - started server on http://localhost:3000\r\n'),
      exec('c2', 'npm test -- --watch'),
      out('c2', running(5151), 'PASS src/a.test.ts\n'),
      poll('c3', 4242),
      out('c3', running(4242), 'GET / 200 in 31ms\n'),
      poll('c4', 5151, '\u0003'),
      out('c4', exited(130), '^C\n'),
      exec('c5', 'npx tsc --watch'),
      out('c5', running(6161), 'Starting compilation in watch mode...\n'),
      poll('c6', 6161),
      out('c6', exited(0), 'Found 0 errors.\n'),
      reply('The server runs on port 3000.'),
    );
    const byId = Object.fromEntries(summary.jobs.map((j) => [j.id, j]));
    expect(byId['4242']).toMatchObject({ status: 'running', end_line: null, last_event: { line: 8, text: 'GET / 200 in 31ms' } });
    expect(byId['5151']).toMatchObject({ status: 'stopped', end_line: 10 });
    expect(byId['6161']).toMatchObject({ status: 'completed', end_line: 14 });
    const current = sections(md).get('Current State') ?? '';
    expect(current).toContain('- **running, no end recorded** `4242` (exec_command, started line 3): `npm run dev -- --port 3000` — last progress (line 8): «GET / 200 in 31ms»');
    expect(current).toContain("left running by their call (a command session the agent polled; a Codex session's id is for `write_stdin`, not a process id)");
  });

  it('in code mode, is named by the SESSION_ID its script prints last, and ended when a poll no longer prints it', () => {
    const script = (body: string) => item({ type: 'custom_tool_call', name: 'exec', call_id: `s${body.length}`, input: body });
    const started = script('const r = await tools.exec_command({"cmd":"cargo run -- serve --bind 127.0.0.1:8080","yield_time_ms":1000}); text(r.output); if (r.session_id) text(`SESSION_ID=${r.session_id}`);');
    const polled = script('const r = await tools.write_stdin({"session_id":89726,"chars":"","yield_time_ms":5000}); text(r.output); if (r.session_id) text(`SESSION_ID=${r.session_id}`);');
    const id = (x: Record<string, unknown>) => (x.payload as { call_id: string }).call_id;
    const answer = (call: Record<string, unknown>, parts: string[]) => item({ type: 'custom_tool_call_output', call_id: id(call), output: parts.map((text) => ({ type: 'input_text', text })) });
    const live = built<{ jobs: { id: string; status: string; last_event: { text: string } | null }[] }>(meta, ask('Serve it'), started, answer(started, ['Script completed\nWall time 1.2 seconds\nOutput:\n', '   Compiling edgerunner v0.1.0\r\n', 'SESSION_ID=89726']), polled, answer(polled, ['Script completed\nWall time 5.0 seconds\nOutput:\n', 'INFO edgerunner::server: listening address=127.0.0.1:8080\r\n', 'SESSION_ID=89726']), reply('Serving.'));
    expect(live.summary.jobs).toEqual([expect.objectContaining({ id: '89726', status: 'running', last_event: { line: 6, text: 'INFO edgerunner::server: listening address=127.0.0.1:8080' } })]);
    const gone = built<{ jobs: { id: string; status: string; end_line: number | null }[] }>(meta, ask('Serve it'), started, answer(started, ['Script completed\nWall time 1.2 seconds\nOutput:\n', 'Compiling\n', 'SESSION_ID=89726']), polled, answer(polled, ['Script completed\nWall time 5.0 seconds\nOutput:\n', 'Error: address in use\n']), reply('It stopped.'));
    expect(gone.summary.jobs).toEqual([expect.objectContaining({ id: '89726', status: 'ended', end_line: 6 })]);
  });

  it('is not said still running when its program was started again later', () => {
    const { md } = built(meta, ask('Serve it'), exec('c1', 'cargo run -p app -- serve --bind 127.0.0.1:8080'), out('c1', running(11), 'listening\n'), exec('c2', 'cargo run -p app -- serve --bind 127.0.0.1:8080 --config dev.toml'), out('c2', running(22), 'listening\n'), reply('Restarted with the config.'));
    const current = sections(md).get('Current State') ?? '';
    expect(current).toContain('- **running, no end recorded** `22` (exec_command, started line 5)');
    expect(current).toContain('- no end recorded: `11` (exec_command, started line 3): `cargo run -p app -- serve --bind 127.0.0.1:8080` — started again at line 5');
    expect(current).not.toContain('**running, no end recorded** `11`');
  });

  it('makes no job of a command that ended within its call', () => {
    const { summary } = built<{ jobs: unknown[] }>(meta, ask('Build it'), exec('c1', 'npm run build'), out('c1', exited(0), 'done\n'), reply('Built.'));
    expect(summary.jobs).toEqual([]);
  });
});

describe('a plan step that joins a test to other work', () => {
  const plan = (step: string) => built(user('u1', 'Deploy the dashboard'), edit('e1', 'app.py'), updated('e1', 'app.py'), todos('t1', [['Build the dashboard', 'completed'], [step, 'completed']]), todosDone('t1'), say('a1', 'Deployed.'));
  const claims = (step: string): string => sections(plan(step).md).get('Claims to double-check') ?? '';

  it('is a claim to double-check when marked done with no run after the last change: a smoke test, "and verify", "+ test"', () => {
    for (const step of ['Deploy to Streamlit Cloud + smoke test', 'Fix the parser and verify', 'Wire the cache & test']) {
      expect(claims(step)).toContain(`- claim at line 4, unproven: the plan marks «${step}» done, but no test, build, type check or lint ran after the last file change (line 3)`);
    }
  });

  it('is not one when the step only names tests or verification in passing', () => {
    for (const step of ['Deploy to Streamlit Cloud', 'Write the test plan', 'Document how to verify the deploy']) expect(claims(step)).not.toContain('unproven');
  });
});

describe('the checks after the last write before a commit', () => {
  const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2025-07-05T19:52:23Z', isSidechain: false };
  const hook = (uuid: string, parent: string, command: string, said: string) => ({ ...base, type: 'system', uuid, parentUuid: parent, toolUseID: `hook-${uuid}`, level: 'info', isMeta: false, content: `\u001b[1mStop\u001b[22m [${command}] completed successfully: ${said}` });

  it('count a Stop hook\'s runs: passed, they are said, and no "verify" sends a successor to run them again', () => {
    const { md } = built(user('u1', 'Match the header colour to its items'), edit('e1', 'timeline.html'), updated('e1', 'timeline.html'), say('a1', 'Done!'), hook('h1', 'a1', 'uv run pytest 2>&1', '==== 138 passed in 43.89s ===='), hook('h2', 'h1', 'uv run pyright 2>&1', '0 errors, 0 warnings, 0 informations'));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain('is answered. The checks run after its last write (line 3) passed: `uv run pytest 2>&1` (line 5, passed, run by a hook), `uv run pyright 2>&1` (line 6, passed, run by a hook);');
    expect(next).not.toContain('Verify the change');
    expect(next).not.toContain('no test, build, type check or lint ran after the last write');
  });

  it('leave "verify" when one of them failed', () => {
    const failed = { ...hook('h2', 'h1', 'uv run pyright 2>&1', ''), content: '\u001b[1mStop\u001b[22m [uv run pyright 2>&1] failed with non-blocking status code 1: 2 errors, 0 warnings' };
    const { md } = built(user('u1', 'Match the header colour to its items'), edit('e1', 'timeline.html'), updated('e1', 'timeline.html'), say('a1', 'Done!'), hook('h1', 'a1', 'uv run pytest 2>&1', '==== 138 passed in 43.89s ===='), failed);
    expect(sections(md).get('Next Action')).not.toContain('passed: `pytest`');
  });
});

describe('the checks after the last write, when they are only static', () => {
  it('leave "verify", and say no test or build ran', () => {
    const bash = (id: string, command: string, output: string) => [call(id, 'Bash', { command }), result(id, output)];
    const { md } = built(user('u1', 'Fix the parser'), edit('e1', 'parser.py'), updated('e1', 'parser.py'), ...bash('t1', 'ruff check .', 'All checks passed!'), say('a1', 'Fixed.'));
    expect(sections(md).get('Next Action')).toContain('Verify the change (after the last write, line 3, only static checks ran — no test or build: `ruff check .` (line 5, passed)), then');
  });
});

describe('the checks after the last change to code, when only docs were written after it', () => {
  const bash = (id: string, command: string, output: string) => [call(id, 'Bash', { command }), result(id, output)];

  it('are not called stale by a README written after them', () => {
    const { md } = built(user('u1', 'Package the script'), edit('e1', 'pyproject.toml'), updated('e1', 'pyproject.toml'), ...bash('t1', 'uv run pytest', '==== 12 passed in 1s ===='), edit('e2', 'README.md'), updated('e2', 'README.md'), say('a1', 'Packaged and documented.'));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain('The checks run after its last change to code (line 3; later writes only to docs or ignore lists) passed: `uv run pytest` (line 5, passed);');
    const none = built(user('u1', 'Package the script'), ...bash('t1', 'uv run pytest', '==== 12 passed in 1s ===='), edit('e1', 'pyproject.toml'), updated('e1', 'pyproject.toml'), edit('e2', 'README.md'), updated('e2', 'README.md'), say('a1', 'Packaged and documented.'));
    expect(sections(none.md).get('Next Action')).toContain('Verify the change (no test, build, type check or lint ran after the last change to code, line 5; later writes only to docs or ignore lists), then');
  });
});

describe('a failure got past by setting the environment', () => {
  it('says what the command that ran clean set, which the failed one lacked', () => {
    const run = (id: string, command: string, output: string, failed = false) => [call(id, 'Bash', { command }), result(id, output, failed ? { is_error: true } : {})];
    const { md } = built(
      user('u1', 'Build the app'),
      ...run('b1', 'pnpm --version', 'Error: This project is configured to use yarn because /Users/me/package.json has a "packageManager" field\nExit code 1', true),
      ...run('b2', 'COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version', '10.4.1'),
      say('a1', 'pnpm works with Corepack told to ignore the parent folder.'),
    );
    expect(sections(md).get('Failures And Blockers')).toContain('(`COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version`: it ran with `COREPACK_ENABLE_PROJECT_SPEC=0` set, which the failed run lacked — later runs need it too)');
  });
});

describe('a last request the transcript\'s publisher redacted', () => {
  it('is to be said again by the user, for no successor can answer words it cannot read', () => {
    const { md } = built(meta, started(), ask('[REDACTED_MESSAGE len=15 sha=ce2cc05a]'));
    expect(sections(md).get('Next Action')).toContain("Answer the user's last request: the transcript ends on it, before any reply of the agent (line 3, unreadable: the transcript's publisher redacted it); its words are not in the transcript, so ask the user to say it again");
    const readable = built(meta, started(), ask('Status?'));
    expect(sections(readable.md).get('Next Action')).not.toContain('say it again');
  });
});
