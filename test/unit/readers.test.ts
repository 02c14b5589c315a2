import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTextTranscript } from '../../src/core/harness/text.js';
import { voteHarness } from '../../src/core/harness/detect.js';
import { patchFiles } from '../../src/core/harness/codex.js';
import { parseExitCode } from '../../src/core/harness/exit-code.js';
import { fixture } from '../helpers.js';
import { ingestFile, ingestText, jsonl } from './ingest-helper.js';

describe('harness detection', () => {
  it.each([
    ['a Codex line', { timestamp: 't', type: 'session_meta', payload: {} }, 'codex'],
    ['a Claude summary line (no sessionId)', { type: 'summary', summary: 's', leafUuid: 'x' }, 'claude'],
    ['a Claude bookkeeping line', { type: 'file-history-snapshot', messageId: 'm', snapshot: {} }, 'claude'],
    ['a Claude user line', { type: 'user', sessionId: 's', message: { role: 'user', content: 'hi' } }, 'claude'],
    ['a generic line', { role: 'user', content: 'hi' }, 'generic'],
    ['a line that says nothing', { foo: 1 }, null],
    ['not an object', [1, 2], null],
  ])('%s votes %s', (_n, obj, vote) => {
    expect(voteHarness(obj)).toBe(vote);
  });
});

describe('Claude Code reader', () => {
  const { turns, state } = ingestFile(fixture('claude-session.jsonl'));
  const bySeq = new Map(turns.map((t) => [t.seq, t]));

  it('classifies every line, using the line index as seq', () => {
    expect(turns.map((t) => [t.seq, t.class])).toEqual([
      [0, 'OTHER'], // summary
      [2, 'USER'], // /clear command (a notice, still a turn)
      [3, 'USER'],
      [4, 'THOUGHT'],
      [5, 'AGENT'],
      [6, 'TOOL'],
      [7, 'TOOL'],
      [8, 'TOOL'],
      [9, 'TOOL'],
      [10, 'TOOL'],
      [11, 'TOOL'],
      [12, 'USER'], // sidechain prompt
      [13, 'AGENT'], // sidechain answer
      [14, 'USER'],
      [15, 'AGENT'],
    ]);
    expect(state.skipped).toBe(2); // file-history-snapshot, custom-title
  });

  it('counts a streamed response (several lines, one message.id) once, and ignores sidechain usage', () => {
    expect(state.usage).toMatchObject({ used: 14 + 800 + 52000, key: 'msg_04' });
    expect(state.meta.model).toBe('claude-sonnet-4-5-20250929');
  });

  it('takes the objective from the first real request, not the /clear notice', () => {
    expect(state.objective).toEqual({ text: 'Make the upload retry use exponential backoff and keep the tests green.', seq: 3, line: 4 });
    expect(state.lastAgent?.seq).toBe(15);
  });

  it('never copies an image: it becomes a placeholder with its size', () => {
    expect(bySeq.get(14)?.text).toBe('Here is the failing screenshot\n\n[image: image/png, 1 KB omitted]');
  });

  it('pairs tool results with their calls and reads the exit code from the text', () => {
    expect(bySeq.get(11)?.tool).toEqual({ name: 'Bash', id: 'toolu_bash1', ok: false });
    expect(state.commands).toEqual([{ id: 'toolu_bash1', tool: 'Bash', command: 'npm test -- retry', seq: 10, result: 'failed', exitCode: 1, resultSeq: 11 }]);
    expect(Object.keys(state.files)).toEqual(['/home/dev/uploader/src/retry.ts']);
    expect(state.todos?.items.map((i) => i.status)).toEqual(['completed', 'in_progress', 'pending']);
  });

  it('reads the summary line as a title, never as a compaction (SPEC §8)', () => {
    expect(state.compactions).toBe(0);
    expect(state.compacted).toBe(false);
    expect(state.meta.title).toBe('Upload retry backoff');
    expect(state.meta.cwd).toBe('/home/dev/uploader');
  });

  it('reads a compact_boundary and the compact summary as one compaction event', () => {
    const r = ingestText(
      jsonl(
        { type: 'user', sessionId: 's', message: { role: 'user', content: 'Please refactor the parser module today.' } },
        { type: 'system', subtype: 'compact_boundary', sessionId: 's', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 150000 } },
        { type: 'user', sessionId: 's', isCompactSummary: true, message: { role: 'user', content: 'Summary of prior context.' } },
      ),
    );
    expect(r.state.compactions).toBe(1);
    expect(r.state.compacted).toBe(true);
    expect(r.turns.map((t) => t.class)).toEqual(['USER', 'OTHER', 'OTHER']);
    expect(r.state.objective?.seq).toBe(0);
  });

  it('counts record types it does not know', () => {
    const r = ingestText(jsonl({ type: 'user', sessionId: 's', message: { role: 'user', content: 'hello there' } }, { type: 'brand-new-record', sessionId: 's', content: 'x' }));
    expect(r.state.unknownTypes).toEqual({ 'brand-new-record': 1 });
  });
});

describe('Codex reader', () => {
  const { turns, state } = ingestFile(fixture('codex-rollout.jsonl'));

  it('takes the response items and never their event mirrors', () => {
    const texts = turns.map((t) => t.text);
    expect(texts.filter((t) => t.startsWith('Add a currency column'))).toHaveLength(1);
    expect(texts.filter((t) => t === 'Plan the migration.')).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith('The migration is written'))).toHaveLength(1);
  });

  it('reads injected context as notices, not the objective', () => {
    expect(state.objective?.text).toBe('Add a currency column to the invoices table and migrate existing rows.');
    expect(turns.find((t) => t.text.startsWith('<permissions'))?.class).toBe('OTHER');
  });

  it('reads commands, their exit codes (structured and in text) and patched files', () => {
    expect(state.commands.map((c) => [c.command, c.result, c.exitCode])).toEqual([
      ['npm test', 'failed', 1],
      ['npm test -- invoice', 'passed', 0],
    ]);
    // The patch names them relative to the turn's folder: kept joined to it (src/core/paths.ts).
    expect(Object.keys(state.files)).toEqual(['/home/dev/billing/db/migrations/0042_currency.sql', '/home/dev/billing/src/invoice.ts']);
    expect(state.todos?.items.map((i) => [i.text, i.status])).toEqual([
      ['Write the migration', 'completed'],
      ['Backfill currency for old rows', 'in_progress'],
      ['Run the test suite', 'pending'],
    ]);
  });

  it('takes context usage from last_token_usage and the window from the record', () => {
    expect(state.usage).toMatchObject({ used: 150900, limit: 258400 });
    expect(state.meta.model).toBe('gpt-5.3-codex');
    expect(state.meta.uuid).toBe('019d0000-1111-7222-8333-444455556666');
    expect(state.unknownTypes).toEqual({ 'event_msg.brand_new_event': 1 });
  });

  it('takes a mirror that comes first and drops its response-item twin (newer versions)', () => {
    const r = ingestFile(fixture('codex-mirror-first.jsonl'));
    expect(r.turns.map((t) => [t.class, t.text])).toEqual([
      ['USER', 'List the files in this repository please'],
      ['TOOL', 'shell: ls'],
      ['TOOL', 'a.txt\n'],
      ['AGENT', 'Found one file: a.txt.'],
    ]);
    expect(r.state.commands[0]).toMatchObject({ command: 'ls', result: 'passed', exitCode: 0 });
    expect(r.state.compactions).toBe(1);
  });

  it('reads a shell custom tool call whose input is JSON as a command, and keeps no raw mirror text in its state', () => {
    const ev = (type: string, payload: unknown): unknown => ({ timestamp: '2026-08-03T10:48:56.000Z', type, payload });
    const r = ingestText(
      jsonl(
        ev('event_msg', { type: 'user_message', message: 'Run ls and report what is there' }),
        ev('response_item', { type: 'custom_tool_call', call_id: 'c1', name: 'shell', input: '{"command":["bash","-lc","ls -la"]}', status: 'completed' }),
        ev('response_item', { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch' }),
      ),
    );
    expect(r.turns.map((t) => t.text)).toContain('shell: ls -la');
    expect(r.state.commands.map((c) => c.command)).toEqual(['ls -la']);
    expect(Object.keys(r.state.files)).toEqual(['a.txt']);
    expect(JSON.stringify(r.state.codex)).not.toContain('Run ls');
  });

  it('pairs a result that carries no exit code with its command: recorded, outcome unknown', () => {
    const ev = (type: string, payload: unknown): unknown => ({ timestamp: '2026-08-03T10:48:56.000Z', type, payload });
    const r = ingestText(
      jsonl(
        ev('event_msg', { type: 'user_message', message: 'List the files in this folder' }),
        ev('response_item', { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"command":["ls"]}' }),
        ev('response_item', { type: 'function_call_output', call_id: 'c1', output: { type: 'input_text', text: 'a.txt\n' } }),
        ev('response_item', { type: 'function_call', call_id: 'c2', name: 'shell', arguments: '{"command":["ls","-a"]}' }),
      ),
    );
    expect(r.state.commands.map((c) => [c.command, c.result, c.seq, c.resultSeq, c.exitCode])).toEqual([
      ['ls', 'unknown', 1, 2, undefined],
      ['ls -a', 'unknown', 3, undefined, undefined],
    ]);
  });

  it('finds files in apply_patch headers', () => {
    expect(patchFiles('*** Begin Patch\n*** Update File: a/b.ts\n*** Move to: a/c.ts\n*** Delete File: x\n*** End Patch')).toEqual(['a/b.ts', 'a/c.ts', 'x']);
  });
});

describe('exit codes in output text', () => {
  it.each([
    ['Exit code 2\nboom', 2],
    ['Error: Exit code 127\n/bin/sh: x: not found', 127],
    ['Process exited with code 0\nOutput:\nok', 0],
    ['Script completed\nExit code: 3\nWall time 1s', 3],
    ['{"output":"x","metadata":{"exit_code":1,"duration_seconds":0.1}}', 1],
    ['all fine', undefined],
  ])('%j → %s', (text, code) => {
    expect(parseExitCode(text)).toBe(code);
  });
});

describe('generic JSONL reader', () => {
  it('uses seq fields, kind/role and the generic text order', () => {
    const { turns, state } = ingestFile(fixture('generic.jsonl'));
    expect(turns.map((t) => [t.seq, t.class])).toEqual([
      [0, 'USER'],
      [1, 'AGENT'],
      [2, 'TOOL'],
      [3, 'THOUGHT'],
      [4, 'OTHER'],
    ]);
    expect(turns[2]?.tool).toEqual({ name: 'read_file', id: '' });
    expect(state.harness).toBe('generic');
  });

  it('keeps turns at or below the watermark out', () => {
    const r = ingestText(jsonl({ role: 'user', content: 'first message here', seq: 5 }, { role: 'assistant', content: 'older', seq: 3 }));
    expect(r.turns.map((t) => t.seq)).toEqual([5]);
    expect(r.state.watermark).toBe(5);
  });

  it('reports a complete line that is not JSON as corrupt, with its line number', () => {
    const r = ingestText('{"role":"user","content":"ok"}\n{not json}\n');
    expect(r.corrupt).toEqual([2]);
  });
});

describe('text transcripts', () => {
  it('starts a turn at each role marker and appends the following lines', () => {
    const r = parseTextTranscript(readFileSync(fixture('text-session.txt'), 'utf8'));
    expect(r.turns.map((t) => [t.seq, t.class, t.text])).toEqual([
      [0, 'USER', 'Please rename the config flag --fast to --quick everywhere.\nIt appears in three files.'],
      [3, 'AGENT', 'I will update cli.ts, README.md and the tests.'],
      [4, 'TOOL', 'grep -rn -- --fast\nsrc/cli.ts:12'],
      [6, 'OTHER', 'session ended'],
    ]);
  });
});
