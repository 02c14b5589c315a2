import { describe, expect, it } from 'vitest';
import { contentLines, readLines } from '../../src/core/documents.js';
import { ideContext, ideShort } from '../../src/core/harness/requests.js';
import { destroys, gitListing, gitLogTop } from '../../src/core/shell.js';
import { sections } from '../../src/core/quality.js';
import { built, transcriptFile } from './ledger-helper.js';
import { renderInput } from './render-input.js';
import { renderAll } from '../../src/core/render/index.js';
import { STATE_VERSION, upgradeState } from '../../src/core/state.js';
import type { StoredState } from '../../src/core/state.js';

/**
 * Rules from the ninth reading (docs/FIDELITY.md): a task deletion that did not happen, a request
 * the agent never answered, a redacted call with no result, a progress note taken for an answer,
 * what a read file holds, and what the user did after a rejection.
 */

const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
const user = (uuid: string, content: unknown): Record<string, unknown> => ({ ...base, type: 'user', uuid, message: { role: 'user', content } });
const agent = (uuid: string, content: unknown[]): Record<string, unknown> => ({ ...base, type: 'assistant', uuid, message: { role: 'assistant', content } });
const call = (id: string, name: string, input: Record<string, unknown>): Record<string, unknown> => agent(`c-${id}`, [{ type: 'tool_use', id, name, input }]);
const result = (id: string, content: string, extra: Record<string, unknown> = {}): Record<string, unknown> => user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content, ...extra }]);


describe('a task the agent deleted', () => {
  const tasks = [
    user('u1', 'Plan the migration'),
    call('t1', 'TaskCreate', { subject: 'Write the schema', description: 'tables first' }),
    result('t1', 'Task #1 created successfully: Write the schema'),
    call('t2', 'TaskCreate', { subject: 'Move the data', description: 'in batches' }),
    result('t2', 'Task #2 created successfully: Move the data'),
    call('t3', 'TaskUpdate', { taskId: '2', status: 'deleted' }),
  ];
  const plan = (md: string): string => sections(md).get('Current State') ?? '';

  it('is back in the plan when the deletion failed', () => {
    const { md } = built(...tasks, result('t3', '<tool_use_error>Task not found</tool_use_error>', { is_error: true }), agent('a1', [{ type: 'text', text: 'Kept it.' }]));
    expect(plan(md)).toContain('Move the data');
    expect(plan(md)).toContain('Write the schema');
  });

  it('is gone when the deletion succeeded', () => {
    const { md } = built(...tasks, result('t3', 'Updated task #2 deleted'), agent('a1', [{ type: 'text', text: 'Dropped it.' }]));
    expect(plan(md)).not.toContain('Move the data');
    expect(plan(md)).toContain('Write the schema');
  });

  it('is not shown while the deletion has no result', () => {
    const { md } = built(...tasks);
    expect(plan(md)).not.toContain('Move the data');
    expect(plan(md)).toContain('Write the schema');
  });
});

describe('a request the transcript ends on', () => {
  it('is to be answered, not continued: nothing of it was begun', () => {
    const { md, summary } = built(
      user('u1', 'Add a flag for verbose output'),
      agent('a1', [{ type: 'text', text: 'Added `--verbose`.' }]),
      user('u2', [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'text', text: 'The sub messages are still grouped after Task B: debug why the reorder runs too early' },
      ]),
    );
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain("Answer the user's last request: the transcript ends on it, before any reply of the agent (line 3: «The sub messages are still grouped after Task B");
    expect(next).not.toContain('still working on');
    expect(next).not.toContain('[image:');
    expect(JSON.stringify(summary.next_action)).toContain('the transcript ends on it');
  });

  it("quotes a long request's head and tail, where what it asks for often is", () => {
    const long = `I think there's some progress: ${'the counts are right and the buttons fold what they contain. '.repeat(12)}So I'd say it's called too early, before the pairing moves the result back.`;
    const { md } = built(user('u1', long));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain("(line 1: «I think there's some progress: the counts are right");
    expect(next).toContain(" … ");
    expect(next).toContain("So I'd say it's called too early, before the pairing moves the result back.»; its middle is cut here: the whole request is line 1 of the transcript)");
  });

  it('is continued when the agent had begun on it', () => {
    const { md } = built(user('u1', 'Add a flag for verbose output'), call('b1', 'Bash', { command: 'ls' }));
    expect(sections(md).get('Next Action')).toContain("Continue the user's last request, which the agent was still working on (line 1");
  });
});

describe('a request of images only', () => {
  it('keeps the placeholders in the quote: they are all it holds', () => {
    const { md } = built(user('u1', [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }]));
    expect(sections(md).get('Next Action')).toContain('(line 1: «[image: image/png');
  });
});

describe('a redacted shell call with no result', () => {
  const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
  const ask = item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the sync' }] });
  const hidden = (id: string) => item({ type: 'function_call', name: 'exec_command', arguments: '[REDACTED_ARGUMENTS len=83 sha=b4e1e5f7]', call_id: id });
  const output = (id: string) => item({ type: 'function_call_output', call_id: id, output: '[REDACTED_OUTPUT len=136 sha=b8890189]' });

  it('is named under How it ended and in commands_without_result', () => {
    const { md, summary } = built(meta, ask, hidden('c1'), output('c1'), hidden('c2'), item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go on' }] }));
    expect(sections(md).get('State right now (verbatim tail)')).toContain('No result is recorded for the command at line 5 (a shell call whose command the transcript holds redacted): it may still be running');
    expect(summary.commands_without_result).toEqual([{ line: 5, command: '', unreadable: true }]);
    // They are not counted among the commands that can be read, which are none.
    expect(sections(md).get('Verification')).toContain('Other shell commands whose command can be read: 0 (not checks');
  });

  it('leaves failures and writes unknown, not None, when results and patches cannot be read', () => {
    const patch = item({ type: 'custom_tool_call', name: 'apply_patch', input: '[REDACTED_INPUT len=400 sha=0a1b2c3d]', call_id: 'p1', status: 'completed' });
    const patched = item({ type: 'custom_tool_call_output', call_id: 'p1', output: '[REDACTED_OUTPUT len=60 sha=4e5f6a7b]' });
    const { md, llm } = built(meta, ask, hidden('c1'), output('c1'), patch, patched, item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }));
    const failures = sections(md).get('Failures And Blockers') ?? '';
    expect(failures).toBe("No failure can be read. *unknown* — 2 tool result(s), the first at line 4, are unreadable (the transcript's publisher redacted them): a failure among them would not show here.");
    expect(sections(md).get('Repository Evidence')).toContain("### Writes that did not happen\n\n*unknown* — none can be read: 1 apply_patch call(s) have paths the transcript's publisher redacted, and whether each applied is not known.");
    expect(JSON.stringify(llm.unknowns)).toContain('Failures: 2 tool result(s), the first at line 4, are unreadable');
  });

  it('says calls of a tool whose name is redacted are calls of an unknown tool', () => {
    const call = item({ type: 'function_call', name: '[REDACTED_NAME len=43 sha=c186413b]', arguments: '[REDACTED_ARGUMENTS len=33 sha=5fa0bfe8]', call_id: 'n1' });
    const { md } = built(meta, ask, call, output('n1'), item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }));
    expect(sections(md).get('Verification')).toContain("*unknown* — 1 call, at line 3, of a tool whose name the transcript's publisher redacted: which tool, and what it did, are not known.");
  });

  it('says nothing once its result came', () => {
    const { md, summary } = built(meta, ask, hidden('c1'), output('c1'), item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }));
    expect(md).not.toContain('No result is recorded');
    expect(summary.commands_without_result).toEqual([]);
  });
});

describe("an agent message the harness marked commentary", () => {
  const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
  const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'event_msg', payload });
  const ask = item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the sync' }] });
  const said = (text: string, phase: string) => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }], phase });

  it('is said to be a progress note when it is the last', () => {
    const { md } = built(meta, ask, event({ type: 'agent_message', message: 'Checking the sync code paths first.', phase: 'commentary' }), said('Checking the sync code paths first.', 'commentary'));
    expect(sections(md).get('State right now (verbatim tail)')).toContain("the agent's last message (line 4), a progress note (the harness marked it commentary, not a final answer)");
  });

  it('is said so from the event where the event holds the text (a transcript with no response items)', () => {
    const { md } = built(meta, event({ type: 'user_message', message: 'Fix the sync' }), event({ type: 'agent_message', message: 'Checking the sync code paths first.', phase: 'commentary' }));
    expect(sections(md).get('State right now (verbatim tail)')).toContain("the agent's last message (line 3), a progress note");
  });

  it('is not said of a final answer after it', () => {
    const { md } = built(meta, ask, said('Checking the sync code paths first.', 'commentary'), said('Fixed: the sync retries now.', 'final_answer'));
    expect(md).not.toContain('a progress note');
  });
});

describe('a read file', () => {
  it("keeps the file's lines, not the reminder the harness appends to the result", () => {
    const out = '     1→beautifulsoup4>=4.9.0\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware.\n</system-reminder>\n';
    expect(contentLines(readLines(out))).toEqual([{ n: 1, text: 'beautifulsoup4>=4.9.0' }]);
  });

  it('is numbered when most of its lines with words are, blank lines aside', () => {
    expect(readLines('     1→a\n\n\n\n     5→b\n')).toEqual([{ n: 1, text: 'a' }, { n: 5, text: 'b' }]);
  });

  it('is read as it stands when it is not numbered', () => {
    expect(readLines('alpha\nbeta')).toEqual([{ n: 1, text: 'alpha' }, { n: 2, text: 'beta' }]);
  });
});

describe('a call the user rejected with no reason', () => {
  it("names the user's next message, where the reason often is", () => {
    const { md } = built(
      user('u1', 'Hide the group instead of its items'),
      call('e1', 'Bash', { command: 'npm run regroup' }),
      result('e1', "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", { is_error: true }),
      user('u2', 'You can set group.visible, which is less work'),
      agent('a1', [{ type: 'text', text: 'Using group.visible.' }]),
    );
    const reqs = sections(md).get('User requests and corrections') ?? '';
    expect(reqs).toContain('calls the user rejected with no reason typed in the rejection, latest last:');
    expect(reqs).toContain("- line 3 — rejected the call at line 2: `npm run regroup` (the user's next message: line 4)");
  });
});

describe('a repository that cannot be read', () => {
  it('says its state could not be read, and points to what the transcript recorded', () => {
    const { md } = built({ ...user('u1', 'Rename the flag'), gitBranch: 'main' }, agent('a1', [{ type: 'text', text: 'Renamed.' }]));
    const repo = sections(md).get('Repository Evidence') ?? '';
    expect(repo).toContain("The repository's branch, HEAD and dirty state could not be read at build time, and are null in the front matter (never assumed clean); what the transcript recorded is below.");
    expect(repo).toContain('Recorded by the transcript: branch `main`');
    expect(repo).not.toContain('are not recorded');
  });
});

describe('an answer whose turn closed on a later line', () => {
  const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.114.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
  const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'event_msg', payload });

  it("cites the agent's message as the answer, and the line that closed the turn", () => {
    const { md } = built(
      meta,
      event({ type: 'user_message', message: 'Review the plan' }),
      item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Review the plan' }] }),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Findings: the batch path is missing.' }], phase: 'final_answer' }),
      event({ type: 'task_complete', turn_id: 't1' }),
    );
    expect(sections(md).get('Next Action')).toContain('Nothing is pending: the last request (line 2: «Review the plan») was answered (line 4; the turn closed at line 5).');
  });
});

describe('tools of MCP servers', () => {
  it('are counted per tool, the latest first, with their errors, in Verification and both payloads', () => {
    const { md, summary, llm } = built(
      user('u1', 'Clean up the stale rows'),
      call('m1', 'mcp__supabase_ops__list_tables', { schema: 'public' }),
      result('m1', '[{"name":"jobs"}]'),
      call('m2', 'mcp__supabase_ops__execute_sql', { query: 'delete from jobs where stale' }),
      result('m2', 'permission denied for table jobs', { is_error: true }),
      call('m3', 'mcp__supabase_ops__execute_sql', { query: 'delete from jobs where stale' }),
      result('m3', 'DELETE 12'),
      agent('a1', [{ type: 'text', text: 'Deleted 12 stale rows.' }]),
    );
    expect(sections(md).get('Verification')).toContain(
      '*verified* — tools of MCP servers the session called, the latest first: `supabase_ops` `execute_sql` ×2 (the latest at line 6; 1 with an error result), `supabase_ops` `list_tables` ×1 (line 2). They act outside the repository: what they did there is in their results only (TOOLS.md).',
    );
    expect(summary.outside_calls).toEqual([
      { server: 'supabase_ops', tool: 'execute_sql', count: 2, line: 6, failed: 1 },
      { server: 'supabase_ops', tool: 'list_tables', count: 1, line: 2, failed: 0 },
    ]);
    expect(llm.outside_calls).toEqual(summary.outside_calls);
  });

  it('are said to be counted from where a state written before the count was read on', () => {
    const r = renderInput(transcriptFile(user('u1', 'Clean up the stale rows'), call('m1', 'mcp__supabase_ops__execute_sql', { query: 'delete' }), result('m1', 'DELETE 12'), agent('a1', [{ type: 'text', text: 'Done.' }])));
    // The same state as version 5 wrote it, read on after 4 lines: its counts start at line 5.
    const old = JSON.parse(JSON.stringify({ ...r.state, v: 5, lines: 4 })) as StoredState;
    delete (old.ledger as { countsFrom?: number }).countsFrom;
    const upgraded = upgradeState(old);
    expect(upgraded.v).toBe(STATE_VERSION);
    expect(upgraded.ledger.countsFrom).toBe(5);
    expect(upgradeState(JSON.parse(JSON.stringify({ ...r.state })) as StoredState).ledger.countsFrom).toBeUndefined();
    const md = renderAll({ ...r, state: upgraded }).handoffMd;
    expect(sections(md).get('Verification')).toContain('Calls before line 5 are not counted: this store\'s state began to count them there.');
    // Permissions first seen after the upgrade are said to be kept from there, not to start there.
    const kept = renderAll({ ...r, state: { ...upgraded, permissions: { text: 'permission mode `acceptEdits`', since: 6 } } }).handoffMd;
    expect(sections(kept).get('Repository Evidence')).toContain('permission mode `acceptEdits` from line 6 on (this store\'s state began to keep them at line 5) — *reported*.');
  });

  it('are not said when the session called none', () => {
    const { md, summary } = built(user('u1', 'List the files'), call('b1', 'Bash', { command: 'ls' }), result('b1', 'README.md'), agent('a1', [{ type: 'text', text: 'One file.' }]));
    expect(md).not.toContain('tools of MCP servers');
    expect(summary.outside_calls).toEqual([]);
  });
});

describe('a fetch that failed', () => {
  const fetch = (id: string, url: string) => call(id, 'WebFetch', { url, prompt: 'Extract the details' });

  it('is passed over when the agent went on from it, naming the address and the error', () => {
    const { md, summary } = built(
      user('u1', 'Research plan mode'),
      fetch('f1', 'https://blog.example/plan-mode'),
      result('f1', 'Request failed with status code 403', { is_error: true }),
      fetch('f2', 'https://docs.example/plan-mode'),
      result('f2', '# Plan mode\nRead-only until approved.'),
      agent('a1', [{ type: 'text', text: 'Plan mode is read-only until the plan is approved.' }]),
    );
    expect(sections(md).get('Failures And Blockers')).toContain('- line 3: fetching `https://blog.example/plan-mode` failed: Request failed with status code 403');
    expect(summary.passed_over).toEqual([{ line: 3, text: 'fetching `https://blog.example/plan-mode` failed: Request failed with status code 403' }]);
  });

  it('is fixed when a fetch of the same address succeeds later', () => {
    const { md } = built(
      user('u1', 'Research plan mode'),
      fetch('f1', 'https://blog.example/plan-mode'),
      result('f1', 'Request failed with status code 503', { is_error: true }),
      fetch('f2', 'https://blog.example/plan-mode'),
      result('f2', '# Plan mode'),
      agent('a1', [{ type: 'text', text: 'Read it.' }]),
    );
    expect(sections(md).get('Failures And Blockers')).not.toContain('passed over');
    expect(md).toContain('fetching `https://blog.example/plan-mode` failed: Request failed with status code 503');
  });

  it('is open when the transcript ends on it', () => {
    const { summary } = built(user('u1', 'Research plan mode'), fetch('f1', 'https://blog.example/plan-mode'), result('f1', 'Request failed with status code 403', { is_error: true }));
    expect(summary.open_failures).toEqual([{ line: 3, text: 'fetching `https://blog.example/plan-mode` failed: Request failed with status code 403' }]);
  });
});

describe('what the IDE showed beside a request', () => {
  const selection = '<ide_selection>The user selected the lines 3010 to 3010 from /home/u/src/claude_code_log/renderer.py:\n_reorder_paired_messages\n\nThis may or may not be related to the current task.</ide_selection>';
  const opened = '<ide_opened_file>The user opened the file /home/u/src/claude_code_log/README.md in the IDE. This may or may not be related to the current task.</ide_opened_file>';

  it('is read from Claude Code\'s selection and opened file, and Codex 0.40\'s active file', () => {
    // The selection goes whole, to be redacted as a whole; what is kept of it is its first line.
    expect(ideContext(`${selection}fix this`)).toBe('line 3010 of /home/u/src/claude_code_log/renderer.py selected («\n_reorder_paired_messages\n»)');
    expect(ideShort(ideContext(`${selection}fix this`) as string)).toBe('line 3010 of /home/u/src/claude_code_log/renderer.py selected («_reorder_paired_messages»)');
    expect(ideShort(ideContext('<ide_selection>The user selected the lines 206 to 215 from C:\\w\\README.md:\ncat > ~/.rc\nEOF\n\nThis may or may not be related to the current task.</ide_selection>') as string)).toBe('lines 206–215 of C:\\w\\README.md selected («cat > ~/.rc»)');
    expect(ideContext(`${opened}update it`)).toBe('/home/u/src/claude_code_log/README.md open');
    expect(ideContext('# Context from my IDE setup:\n\n## Active file: apps/web/src/route.ts\n\n## Open tabs:\n- route.ts: apps/web/src/route.ts\n\n## My request for Codex:\nIs this done?')).toBe('apps/web/src/route.ts active');
    expect(ideContext('Fix the parser')).toBeNull();
  });

  it('is said beside the objective and the requests, where it changed, and in the payloads', () => {
    const { md, summary } = built(
      user('u1', [{ type: 'text', text: selection }, { type: 'text', text: 'Why does this run too early?' }]),
      agent('a1', [{ type: 'text', text: 'It runs before the pairing.' }]),
      user('u2', [{ type: 'text', text: selection }, { type: 'text', text: 'Move it after the pairing' }]),
      agent('a2', [{ type: 'text', text: 'Moved.' }]),
      user('u3', [{ type: 'text', text: opened }, { type: 'text', text: 'Now say so in the readme' }]),
    );
    expect(sections(md).get('Objective (verbatim)')).toContain("the user's first request (line 1); beside it, the IDE showed the agent line 3010 of /home/u/src/claude_code_log/renderer.py selected («_reorder_paired_messages»)");
    const reqs = sections(md).get('User requests and corrections') ?? '';
    expect(reqs).toContain('- line 1 — Why does this run too early? (last reply: line 2) *(in the IDE: line 3010 of …/src/claude_code_log/renderer.py selected («_reorder_paired_messages»))*');
    expect(reqs).toContain('- line 3 — Move it after the pairing (last reply: line 4)\n');
    expect(reqs).toContain('- line 5 — Now say so in the readme *(in the IDE: …/src/claude_code_log/README.md open)*');
    expect((summary.requests as { ide?: string }[]).map((q) => q.ide)).toEqual([
      'line 3010 of /home/u/src/claude_code_log/renderer.py selected («_reorder_paired_messages»)',
      'line 3010 of /home/u/src/claude_code_log/renderer.py selected («_reorder_paired_messages»)',
      '/home/u/src/claude_code_log/README.md open',
    ]);
  });

  it('is given up beside the requests, not in the payloads, when HANDOFF.md would pass its budget', () => {
    const records: Record<string, unknown>[] = [];
    for (let i = 1; i <= 60; i += 1) {
      const sel = `<ide_selection>The user selected the lines ${i} to ${i + 9} from /home/u/src/app/module${i}/handler${i}.py:\ndef handle_${i}(request): pass\n\nThis may or may not be related to the current task.</ide_selection>`;
      records.push(user(`u${i}`, [{ type: 'text', text: sel }, { type: 'text', text: `Request ${i}: ${'make the handler validate its input; '.repeat(5)}` }]));
      records.push(agent(`a${i}`, [{ type: 'text', text: `Done with ${i}: ${'the handler validates its input now. '.repeat(4)}` }]));
    }
    const { md, summary } = built(...records);
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(16 * 1024);
    expect(sections(md).get('User requests and corrections')).not.toContain('in the IDE:');
    expect(sections(md).get('Objective (verbatim)')).toContain('beside it, the IDE showed the agent lines 1–10 of /home/u/src/app/module1/handler1.py selected');
    expect((summary.requests as { ide?: string }[]).every((q) => q.ide !== undefined)).toBe(true);
  });

  it('is redacted as any text: a selected credential reaches neither file nor payload', () => {
    const token = `ghp_${'Zq8Xv2Lm9Rt4Wy7Kp3Nd6Hs1Jf5Gb0Tc2Ae'}`;
    const secret = `<ide_selection>The user selected the lines 2 to 2 from /w/.env:\nGITHUB_TOKEN=${token}\n\nThis may or may not be related to the current task.</ide_selection>`;
    const { md, summary, llm } = built(user('u1', [{ type: 'text', text: secret }, { type: 'text', text: 'Why is this not picked up?' }]));
    expect(md).toContain('in the IDE: line 2 of /w/.env selected');
    for (const out of [md, JSON.stringify(summary), JSON.stringify(llm)]) expect(out).not.toContain(token);
  });
});

describe("a command's redirections", () => {
  it('are the shell\'s words, not the program\'s', () => {
    expect(gitLogTop('git log --oneline -20 2>&1 || true', 'ecd5389 feat: backend v0')).toEqual({ hash: 'ecd5389', subject: 'feat: backend v0' });
    expect(gitLogTop('git log --reverse 2>/dev/null', 'ecd5389 feat: backend v0')).toBeNull();
    expect(gitListing('git status --short 2>&1', ' M src/a.ts')).toEqual({ paths: ['src/a.ts'], staged: [] });
    expect(destroys('rm -rf build > /tmp/rm.log 2>&1')).toBe('removed build recursively');
  });
});

describe('a commit made where git had said there was no repository', () => {
  const bash = (id: string, command: string, output: string): Record<string, unknown>[] => [call(id, 'Bash', { command }), result(id, output)];

  it('is said under Commits as a commit the session did not make', () => {
    const { md, summary } = built(
      user('u1', 'Prepare the grant application'),
      ...bash('b1', 'git status --short', 'fatal: not a git repository (or any of the parent directories): .git'),
      ...bash('b2', 'git log --oneline -5 2>&1', 'ecd5389 feat: backend v0'),
      agent('a1', [{ type: 'text', text: 'The repository has one commit.' }]),
    );
    expect(sections(md).get('Repository Evidence')).toContain("its `git log` at line 5 begins with `ecd5389` «feat: backend v0», a commit the session's own commands did not make: git said at line 3 that the folder was not a repository");
    expect((summary.session_git as { foreign_head: unknown }).foreign_head).toEqual({ line: 5, hash: 'ecd5389', subject: 'feat: backend v0', was: null, was_line: 3, staged_line: null });
  });

  it('says nothing when git was asked about another folder', () => {
    const { md } = built(
      user('u1', 'Prepare the grant application'),
      ...bash('b1', 'cd /tmp && git status --short', 'fatal: not a git repository (or any of the parent directories): .git'),
      ...bash('b2', 'git log --oneline -5', 'ecd5389 feat: backend v0'),
      agent('a1', [{ type: 'text', text: 'The repository has one commit.' }]),
    );
    expect(md).not.toContain('did not make');
  });

  it('says nothing when the session committed itself', () => {
    const { md } = built(
      user('u1', 'Prepare the grant application'),
      ...bash('b1', 'git status --short', 'fatal: not a git repository (or any of the parent directories): .git'),
      ...bash('b2', 'git init && git add -A && git commit -m "feat: backend v0"', '[main (root-commit) ecd5389] feat: backend v0'),
      ...bash('b3', 'git log --oneline -5', 'ecd5389 feat: backend v0'),
      agent('a1', [{ type: 'text', text: 'Committed.' }]),
    );
    expect(md).not.toContain('did not make');
  });
});

describe('what the harness let the agent do without asking', () => {
  it("is Claude Code's permission mode, in Repository Evidence and the payloads", () => {
    const { md, summary } = built({ ...user('u1', 'Fetch the data'), permissionMode: 'bypassPermissions' }, agent('a1', [{ type: 'text', text: 'Fetched.' }]));
    expect(sections(md).get('Repository Evidence')).toContain("Permissions the harness recorded (what the session could run without asking; a successor's own may differ): permission mode `bypassPermissions` from line 1 — *reported*.");
    expect(summary.permissions).toEqual({ text: 'permission mode `bypassPermissions`', line: 1, before: null });
  });

  it("is Codex's approval and sandbox policy, with what it was before it changed", () => {
    const meta = { timestamp: '2025-09-25T01:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.40.0', originator: 'codex_vscode' } };
    const turn = (approval: string, mode: string) => ({ timestamp: '2025-09-25T01:00:01Z', type: 'turn_context', payload: { cwd: '/w', approval_policy: approval, sandbox_policy: { mode }, model: 'gpt-5-codex' } });
    const ask = (text: string) => ({ timestamp: '2025-09-25T01:00:02Z', type: 'event_msg', payload: { type: 'user_message', message: text } });
    const { md, llm } = built(meta, turn('on-request', 'read-only'), ask('Read the code'), turn('on-request', 'read-only'), turn('never', 'danger-full-access'), ask('Now push it'));
    expect(sections(md).get('Repository Evidence')).toContain('approval `never`, sandbox `danger-full-access` from line 5 (before it, approval `on-request`, sandbox `read-only` from line 2) — *reported*.');
    expect(llm.permissions).toEqual({ text: 'approval `never`, sandbox `danger-full-access`', line: 5, before: { text: 'approval `on-request`, sandbox `read-only`', line: 2 } });
  });

  it('is not said when the transcript records none', () => {
    const { md, summary } = built(user('u1', 'Fetch the data'), agent('a1', [{ type: 'text', text: 'Fetched.' }]));
    expect(md).not.toContain('Permissions the harness recorded');
    expect(summary.permissions).toBeNull();
  });
});
