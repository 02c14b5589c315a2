import { describe, expect, it } from 'vitest';
import { runGate, sections } from '../../src/core/quality.js';
import { agent, call, edit, REJECTED, result, say, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/** Rules from the twenty-first reading (docs/FIDELITY.md) not covered beside the code they changed. */

const aborted = (id: string): Record<string, unknown> => result(id, 'Permission prompt was aborted.', { is_error: true });
const interrupt = user('i1', [{ type: 'text', text: '[Request interrupted by user for tool use]' }]);

describe('a session the user stopped at a call\'s permission prompt', () => {
  it('asks before making that call again, and lists the stop once', () => {
    const { md } = built(user('u1', 'Create file lol.txt with dummy data'), say('a1', "I'll create it."), call('w1', 'Write', { file_path: '/nonexistent/w/lol.txt', content: 'x' }), aborted('w1'), interrupt);
    const s = sections(md);
    expect(s.get('Next Action')).toContain("Ask the user whether to go on with the user's last request (line 1: «Create file lol.txt with dummy data») before making that call again: the user stopped the agent at its Write call (`/nonexistent/w/lol.txt`) (line 4: its permission prompt was aborted), and nothing came after");
    expect(s.get('Next Action')).not.toMatch(/^Continue/);
    const failures = s.get('Failures And Blockers') ?? '';
    expect(failures).toContain('interrupted (line 4): Permission prompt was aborted.');
    expect(failures).not.toContain('[Request interrupted by user for tool use]');
  });

  it('says the same of a command the user said no to', () => {
    const { md } = built(user('u1', 'Clean the build folder'), call('b1', 'Bash', { command: 'rm -rf build' }), result('b1', REJECTED, { is_error: true }), interrupt);
    expect(sections(md).get('Next Action')).toContain('the user stopped the agent at its Bash call (`rm -rf build`) (line 3: the user said no to it)');
  });

  it('still continues a request the user interrupted while the agent was thinking', () => {
    const { md } = built(user('u1', 'Create file lol.txt with dummy data'), say('a1', 'On it.'), user('i2', [{ type: 'text', text: '[Request interrupted by user]' }]));
    expect(sections(md).get('Next Action')).toMatch(/^Continue the user's last request, which the agent was interrupted while working on/);
  });

  it('continues when the agent went on after the stop', () => {
    const { md } = built(user('u1', 'Create file lol.txt with dummy data'), call('w1', 'Write', { file_path: '/nonexistent/w/lol.txt', content: 'x' }), aborted('w1'), say('a2', 'Trying another way.'), call('b2', 'Bash', { command: 'touch lol.txt' }));
    expect(sections(md).get('Next Action')).not.toContain('stopped the agent');
  });
});

describe('a transcript whose publisher redacted the messages whole', () => {
  const hidden = (len: number, sha: string): string => `[REDACTED_MESSAGE len=${len} sha=${sha}]`;

  it('says the objective is unreadable, so the handoff is not ready for a transfer', () => {
    const { md } = built(user('u1', hidden(32, '821fd802')), say('a1', 'Done.'));
    expect(sections(md).get('Objective (verbatim)')).toBe("*unknown* — the user's first request (line 1) is unreadable: the transcript's publisher redacted it (`[REDACTED_MESSAGE len=32 sha=821fd802]`)");
    expect(runGate(md).failed).toContain('objective_present');
  });

  it('does not say nothing is pending when the reply cannot be read', () => {
    const { md } = built(user('u1', 'Fix the login page'), say('a1', 'Fixed it.'), user('u2', hidden(98, '62d744dd')), say('a2', '[REDACTED_TEXT len=1281 sha=ddb3d2c5]'));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toMatch(/^unknown — the last request \(line 3\) was answered \(line 4\), but the request and the reply are unreadable \(the transcript's publisher redacted them\): whether anything is left pending is not known; ask the user what comes next/);
    const readable = built(user('u1', 'Fix the login page'), say('a1', '[REDACTED_TEXT len=12 sha=0011aabb]'));
    expect(sections(readable.md).get('Next Action')).toMatch(/but the agent's reply is unreadable \(the transcript's publisher redacted it\)/);
  });

  it('asks what an unreadable request asked before going on with it', () => {
    const { md } = built(user('u1', hidden(86, '2239bcba')), call('b1', 'Bash', { command: '[REDACTED]' }));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain("(line 1, unreadable: the transcript's publisher redacted it): its words are not in the transcript, so ask the user what it asked before going on");
    expect(next).not.toContain('«[REDACTED_MESSAGE');
  });
});

describe('a transcript with no request that holds an API error', () => {
  it('does not say it holds no failure: it names the error, and what it does not say', () => {
    const { md } = built(
      { timestamp: '2025-10-31T17:00:00.000Z', type: 'session_meta', payload: { id: 'rl', cwd: '/nonexistent/w', originator: 'codex_cli_rs', cli_version: '0.53.0' } },
      { timestamp: '2025-10-31T17:00:15.000Z', type: 'event_msg', payload: { type: 'error', error: { kind: 'rate_limit', message: 'Rate limit exceeded' } } },
    );
    const s = sections(md);
    expect(s.get('Failures And Blockers')).toContain('API error (line 2): Rate limit exceeded');
    expect(s.get('Next Action')).toMatch(/^unknown — the transcript holds no user request, no plan and no commit to go on; it holds an API error \(line 2: «Rate limit exceeded»\), which says nothing of the work it stopped; confirm the next step with the user/);
  });
});

describe('Codex edits run as shell commands', () => {
  it('are counted among the other shell commands as file edits, said apart', () => {
    const patch = (id: string, file: string): Record<string, unknown> => ({ timestamp: '2025-09-25T01:28:35Z', type: 'response_item', payload: { type: 'function_call', name: 'shell', call_id: id, arguments: JSON.stringify({ command: ['bash', '-lc', `apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: ${file}\n+export const x = 1;\n*** End Patch\nPATCH`] }) } });
    const done = (id: string): Record<string, unknown> => ({ timestamp: '2025-09-25T01:28:36Z', type: 'response_item', payload: { type: 'function_call_output', call_id: id, output: JSON.stringify({ output: 'Success. Updated the following files:\nA src/a.ts\n', metadata: { exit_code: 0 } }) } });
    const ls = { timestamp: '2025-09-25T01:28:37Z', type: 'response_item', payload: { type: 'function_call', name: 'shell', call_id: 'l1', arguments: JSON.stringify({ command: ['bash', '-lc', 'ls src'] }) } };
    const { md } = built(
      { timestamp: '2025-09-25T01:28:00Z', type: 'session_meta', payload: { id: 'c1', cwd: '/nonexistent/w', originator: 'codex_cli_rs', cli_version: '0.40.0' } },
      { timestamp: '2025-09-25T01:28:01Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'add the two modules' }] } },
      patch('p1', 'src/a.ts'),
      done('p1'),
      patch('p2', 'src/b.ts'),
      done('p2'),
      ls,
    );
    expect(sections(md).get('Verification')).toContain('Other shell commands: 3 (2 of them file edits (`apply_patch`), whose files are under Files changed; not checks;');
  });
});

describe('a commit the session did not make, pushed after', () => {
  const bash = (id: string, command: string, output: string): Record<string, unknown>[] => [agent(`c-${id}`, [{ type: 'tool_use', id, name: 'Bash', input: { command } }]), user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content: output }])];
  const head = [user('u1', 'Push the team work'), ...bash('b1', 'git log --oneline -3', '9d35684 fix: teams'), ...bash('b3', 'git log --oneline -3', 'a7bfa7b optimized team loading\n9d35684 fix: teams')];
  const push = bash('b4', 'git push -u origin fix/team', " * [new branch]      fix/team -> fix/team\nbranch 'fix/team' set up to track 'origin/fix/team'.");

  it('says the push that came after with HEAD unmoved may have sent it', () => {
    const { md, summary } = built(...head, ...push);
    expect(sections(md).get('Repository Evidence')).toContain('check what it holds before anything else: the push at line 7 came after it with HEAD unmoved, so if that push sent HEAD\'s branch, the commit is on the remote too (and in any pull request of that branch).');
    expect((summary.session_git as Record<string, unknown>).foreign_head).toMatchObject({ hash: 'a7bfa7b', pushed_line: 7 });
  });

  it('says nothing of a push made after HEAD moved again', () => {
    const { md, summary } = built(...head, ...bash('b5', 'git checkout main', "Switched to branch 'main'"), ...push);
    expect(sections(md).get('Repository Evidence')).not.toContain('the push at line');
    expect((summary.session_git as Record<string, unknown>).foreign_head).not.toHaveProperty('pushed_line');
  });
});

describe('the front matter\'s turn times', () => {
  it('come from turns, not from a token count written after the last one', () => {
    const { md } = built(
      { timestamp: '2025-10-30T10:00:00.000Z', type: 'session_meta', payload: { id: 't', cwd: '/nonexistent/w', originator: 'codex_cli_rs', cli_version: '0.53.0' } },
      { timestamp: '2025-10-30T10:00:01.000Z', type: 'event_msg', payload: { type: 'user_message', message: 'list the files' } },
      { timestamp: '2025-10-30T10:00:04.000Z', type: 'event_msg', payload: { type: 'agent_message', message: 'Here they are.' } },
      { timestamp: '2025-10-30T10:00:09.000Z', type: 'event_msg', payload: { type: 'token_count', info: null } },
    );
    expect(md).toMatch(/^first_turn_at: 2025-10-30T10:00:01\.000Z$/m);
    expect(md).toMatch(/^last_turn_at: 2025-10-30T10:00:04\.000Z$/m);
  });
});

describe('a question that names items of a list above it', () => {
  it('quotes those items, which the question alone leaves out', () => {
    const text = '## FW-007\n\nIf you agree:\n\n1. Update [SUBMISSION.md](SUBMISSION.md) copy so both are named as planned.\n2. Mark FW-007 done in issues.md.\n3. Optional `/demo` thumbnail tweak.\n\nWant me to (a) pull the trigger on items 1+2, or (b) include the thumbnail too?';
    const { md } = built(user('u1', 'Decide FW-007'), say('a1', text));
    expect(sections(md).get('Next Action')).toContain('; the items it names, from the list above it: 1. «Update [SUBMISSION.md](SUBMISSION.md) copy so both are named as planned.» 2. «Mark FW-007 done in issues.md.»');
    const plain = built(user('u1', 'Decide FW-007'), say('a1', '1. Ship it.\n2. Wait.\n\nShould I go ahead?'));
    expect(sections(plain.md).get('Next Action')).not.toContain('the items it names');
  });
});

describe('a check run before a file the session made and deleted again', () => {
  it('is not stale: the file was never there for it to see', () => {
    const checked = [call('t1', 'Bash', { command: 'npm run build' }), result('t1', 'built in 2s')];
    const throwaway = [call('w1', 'Write', { file_path: '/nonexistent/w/web/scripts/visual-check.mjs', content: 'x' }), result('w1', 'File created successfully at: /nonexistent/w/web/scripts/visual-check.mjs'), call('d1', 'Bash', { command: 'rm web/scripts/visual-check.mjs' }), result('d1', '')];
    const { md } = built(user('u1', 'Build the web app'), edit('e1', 'web/src/app.ts'), updated('e1', 'web/src/app.ts'), ...checked, ...throwaway, say('a1', 'Done.'));
    expect(sections(md).get('Verification') ?? '').not.toContain('visual-check.mjs');
    expect(sections(md).get('Verification') ?? '').not.toContain('ran after the last file change');
    const before = built(user('u1', 'Build the web app'), call('w0', 'Write', { file_path: '/nonexistent/w/web/src/extra.ts', content: 'x' }), result('w0', 'File created successfully at: /nonexistent/w/web/src/extra.ts'), ...checked, call('d0', 'Bash', { command: 'rm web/src/extra.ts' }), result('d0', ''), say('a1', 'Done.'));
    expect(sections(before.md).get('Verification') ?? '').toContain('No test, build, type check or lint ran after the last file change (line 7)');
  });
});

describe('Current State with no list', () => {
  it('says the session kept no list, not that it has no state', () => {
    const { md } = built(user('u1', 'Fix the login page'), say('a1', 'Fixed.'));
    expect(sections(md).get('Current State')).toMatch(/^None: the session kept no todo list, task list or plan/);
  });
});

describe('a surrogate written alone as an escape', () => {
  it('is U+FFFD in everything the store writes, which any JSON reader then takes', () => {
    const line = '{"type":"user","sessionId":"s","cwd":"/nonexistent/w","uuid":"u1","message":{"role":"user","content":"fix the \\ud800 parser and the \\udfff one, keep 😀 and \\ud83d\\ude00"}}';
    const { md, summary, llm } = built(JSON.parse(line) as Record<string, unknown>);
    for (const text of [md, JSON.stringify(summary), JSON.stringify(llm)]) expect(text).not.toMatch(/\\u[dD][89a-fA-F]|[\ud800-\udfff](?![\udc00-\udfff])/u);
    expect(md).toContain('fix the \ufffd parser and the \ufffd one, keep 😀 and 😀');
  });

  it('is never made by a cut of the handoff\'s own through a character past U+FFFF', () => {
    const emoji = '😀'.repeat(1500);
    const { md, summary, llm } = built(user('u1', `${emoji} then fix it`), say('a1', `${emoji} done`));
    for (const text of [md, JSON.stringify(summary), JSON.stringify(llm)]) expect(text).not.toMatch(/\\u[dD][89a-fA-F]|[\ud800-\udfff]/u);
  });
});
