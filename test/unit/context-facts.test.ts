import { describe, expect, it } from 'vitest';
import { between } from '../../src/core/analysis.js';
import { localMinutes, offsetFromDate, startClaim, startsBeforeSession } from '../../src/core/clock.js';
import { contentLines, documentPasses, namingRequest, readLines, readSpan, requirementLines } from '../../src/core/documents.js';
import { jobNotices, startedJobId, stoppedJobId } from '../../src/core/jobs.js';
import { initialLedger, noteAgentText, noteCall, noteJobText, noteRequest, noteResult } from '../../src/core/ledger.js';
import { whatChanged } from '../../src/core/what-changed.js';
import { ingestText, jsonl } from './ingest-helper.js';

describe('files the user pointed at', () => {
  it('keeps a file a request names, as the agent read it, with the file\'s own line numbers', () => {
    const l = initialLedger();
    noteRequest(l, 'Please read /work/spec.md, it is the assignment. Then propose ideas', 1, 'request');
    noteCall(l, { id: 'r', name: 'Read', line: 2, read: '/work/spec.md' });
    noteResult(l, { id: 'r', line: 3, ok: true, output: '     1\t# The Task\n     2\t\n     3\tBuild a dashboard.\n     4\t<aside>\n     5\t**Time limit:** 90 minutes.' });
    noteCall(l, { id: 'o', name: 'Read', line: 4, read: '/work/other.md' });
    noteResult(l, { id: 'o', line: 5, ok: true, output: '     1\t# Not asked for' });
    expect(l.docs).toEqual([{ path: '/work/spec.md', line: 3, requestLine: 1, lines: [{ n: 1, text: '# The Task' }, { n: 3, text: 'Build a dashboard.' }, { n: 5, text: '**Time limit:** 90 minutes.' }], span: { first: 1, last: 5 } }]);
  });

  it('keeps which of the file\'s lines a numbered read returned, past a note the harness adds, and none for an unnumbered read', () => {
    expect(readSpan('    40→a\n    41→b\n<system-reminder>x</system-reminder>')).toEqual({ first: 40, last: 41 });
    expect(readSpan('     1\tfirst\n     2\t\n  1287\tlast\n\n(file truncated)')).toEqual({ first: 1, last: 1287 });
    expect(readSpan('plain text\nno numbers')).toBeNull();
  });

  it('takes a config file by its sections and keys, and code by its definitions, before its numbers', () => {
    const toml = contentLines(readLines(['[project]', 'name = "x"', 'classifiers = [', '  "Programming Language :: Python :: 3.10",', ']', '[project.scripts]', 'x-cli = "x_pkg:main"'].map((t, i) => `${i + 1}\t${t}`).join('\n')));
    expect(documentPasses('/p/pyproject.toml', toml)[0]?.map((l) => l.n)).toEqual([1, 2, 3, 6, 7]);
    const py = contentLines(readLines(['import os', 'RETRIES = 3', 'def main():', '    return 1', 'class Job:', 'if __name__ == "__main__":'].map((t, i) => `${i + 1}\t${t}`).join('\n')));
    expect(documentPasses('/p/tool.py', py)[0]?.map((l) => l.n)).toEqual([3, 5, 6]);
    // A document has no such first pass: its headings and rules come first, as before.
    expect(documentPasses('/p/spec.md', toml)).toHaveLength(2);
  });

  it('matches a file name as a whole word, in any script around it, never a longer name', () => {
    const reqs = [{ line: 7, text: '請看indicator.md和feedback.md, 然後update' }];
    expect(namingRequest('/p/indicator.md', reqs)).toBe(7);
    expect(namingRequest('/p/feedback.md', reqs)).toBe(7);
    expect(namingRequest('/p/back.md', reqs)).toBeNull();
    expect(namingRequest('/p/Makefile', [{ line: 1, text: 'fix the Makefile' }])).toBeNull();
  });

  it('ranks headings and lines with a number, a rule or emphasis before plain list items', () => {
    const lines = contentLines(readLines('1\t# Brief\n2\t- plain item\n3\t1. Step one\n4\tSubmit within 3 days\n5\tYou must host it\n6\tnice prose'));
    expect(requirementLines(lines, true).map((l) => l.n)).toEqual([1, 4, 5]);
    expect(requirementLines(lines).map((l) => l.n)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('what a written document still lacks', () => {
  it('names placeholders first and the first paragraph after the title', () => {
    expect(whatChanged('SUBMISSION.md', '# Submission\n\nTake-home for Acme.\n\n## URL\n\n`https://app-<TBD>.example/`\n\n| Total | <TOTAL_TIME> |')).toEqual(['placeholders «https://app-<TBD>.example/» «Total | <TOTAL_TIME>»', 'Submission', '«Take-home for Acme.»', 'URL']);
    expect(whatChanged('requirements.txt', '# pinned\nstreamlit>=1.36\npandas>=2.0\n-r base.txt\nscipy\n')).toEqual(['streamlit>=1.36', 'pandas>=2.0', 'scipy']);
    // Code is not searched for placeholders: `<T>` and TODO comments are not a document's holes.
    expect(whatChanged('a.ts', '// TODO later\nexport function f<T>() {}')).toEqual(['f']);
  });

  it('forgets an older write\'s placeholders once the file is written again', () => {
    const l = initialLedger();
    noteCall(l, { id: 'w', name: 'Write', line: 1, writes: [{ path: 'S.md', how: 'write', what: ['placeholders <TBD>', 'S'] }] });
    noteResult(l, { id: 'w', line: 2, ok: true });
    noteCall(l, { id: 'e', name: 'Edit', line: 3, writes: [{ path: 'S.md', how: 'edit', what: [] }] });
    noteResult(l, { id: 'e', line: 4, ok: true });
    expect(l.changed['S.md']?.what).toEqual(['S']);
  });
});

describe('background jobs', () => {
  it('reads the id a harness gives a background start and a stop', () => {
    expect(startedJobId('Command running in background with ID: bkzv7ang6. Output is being written to: /tmp/x')).toBe('bkzv7ang6');
    expect(startedJobId('Monitor started (task btkze6lgq, timeout 900000ms).')).toBe('btkze6lgq');
    expect(stoppedJobId('{"message":"Successfully stopped task: byo17lgri (cd x)"}')).toBe('byo17lgri');
    expect(startedJobId('ok')).toBeNull();
  });

  it('reads progress and completion from notifications', () => {
    expect(jobNotices('<task-notification>\n<task-id>b1</task-id>\n<summary>Monitor event: "fetch"</summary>\n<event>page 2: +50 (cumulative 100/708)\n-&gt; total 5899</event>\n</task-notification>')).toEqual([{ id: 'b1', text: 'page 2: +50 (cumulative 100/708) -> total 5899' }]);
    expect(jobNotices('<task-notification><task-id>b2</task-id><status>failed</status><summary>Background command "x" failed with exit code 144</summary></task-notification>')).toEqual([{ id: 'b2', status: 'failed', text: 'Background command "x" failed with exit code 144' }]);
  });

  it('keeps a job running with its last progress until it completes or is stopped', () => {
    const l = initialLedger();
    noteCall(l, { id: 'm', name: 'Monitor', line: 10, job: { command: 'python -u fetch.py | grep --line-buffered chunk', description: 'fetch' } });
    noteResult(l, { id: 'm', line: 11, ok: true, output: 'Monitor started (task t1, timeout 900000ms).' });
    noteJobText(l, '<task-notification><task-id>t1</task-id><event>chunk 1</event></task-notification>', 12);
    noteJobText(l, '<task-notification><task-id>t1</task-id><event>chunk 2</event></task-notification>', 13);
    noteJobText(l, '<task-notification><task-id>zz</task-id><event>unknown job</event></task-notification>', 14);
    expect(l.jobs).toEqual({ t1: { id: 't1', line: 10, tool: 'Monitor', command: 'python -u fetch.py | grep --line-buffered chunk', description: 'fetch', status: 'running', lastEvent: { line: 13, text: 'chunk 2' } } });
    noteCall(l, { id: 's', name: 'TaskStop', line: 15, stops: 't1' });
    noteResult(l, { id: 's', line: 16, ok: true, output: 'Successfully stopped task: t1' });
    expect(l.jobs?.t1).toMatchObject({ status: 'stopped', endLine: 16 });
  });

  it('follows a Claude Code monitor from its call to its notifications', () => {
    const base = { isSidechain: false, sessionId: 's', cwd: '/tmp', version: '2.1.0' };
    const text = jsonl(
      { ...base, type: 'user', uuid: 'u1', timestamp: '2026-01-01T10:00:00.000Z', message: { role: 'user', content: 'fetch the data' } },
      { ...base, type: 'assistant', uuid: 'a1', timestamp: '2026-01-01T10:00:01.000Z', message: { id: 'm1', role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id: 't', name: 'Monitor', input: { command: 'python -u f.py', description: 'fetch' } }] } },
      { ...base, type: 'user', uuid: 'u2', timestamp: '2026-01-01T10:00:02.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'Monitor started (task j9, timeout 1000ms).' }] } },
      { type: 'queue-operation', operation: 'enqueue', timestamp: '2026-01-01T10:00:03.000Z', sessionId: 's', content: '<task-notification>\n<task-id>j9</task-id>\n<event>page 3</event>\n</task-notification>' },
    );
    const { state } = ingestText(text);
    expect(state.ledger.jobs?.j9).toMatchObject({ line: 2, tool: 'Monitor', status: 'running', lastEvent: { line: 4, text: 'page 3' } });
  });
});

describe('tasks keep what they are for and the line of their status', () => {
  it('carries a TaskCreate description and the TaskUpdate line into the plan', () => {
    const base = { isSidechain: false, sessionId: 's', cwd: '/tmp', version: '2.1.0' };
    const call = (uuid: string, id: string, name: string, input: unknown): unknown => ({ ...base, type: 'assistant', uuid, timestamp: '2026-01-01T10:00:00.000Z', message: { id: uuid, role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id, name, input }] } });
    const text = jsonl(
      { ...base, type: 'user', uuid: 'u1', timestamp: '2026-01-01T10:00:00.000Z', message: { role: 'user', content: 'build it' } },
      call('a1', 't1', 'TaskCreate', { subject: 'Deploy', description: 'verify <10s load, stop timer' }),
      call('a2', 't2', 'TaskUpdate', { taskId: '1', status: 'in_progress' }),
    );
    const { state } = ingestText(text);
    expect(state.todos?.items).toEqual([{ text: 'Deploy', status: 'in_progress', detail: 'verify <10s load, stop timer', line: 3, created: 2 }]);
  });
});

describe('how a fixed failure was fixed', () => {
  it('lists the writes and commands between the failure and the passing run, never the re-run itself', () => {
    const l = initialLedger();
    noteCall(l, { id: 'a', name: 'Bash', line: 2, command: 'python src/analyze.py | tail -30' });
    noteCall(l, { id: 'p', name: 'Bash', line: 4, command: 'pip install scipy' });
    noteCall(l, { id: 'e', name: 'Edit', line: 6, writes: [{ path: '/p/requirements.txt', how: 'edit' }] });
    noteCall(l, { id: 'b', name: 'Bash', line: 8, command: 'python src/analyze.py | tail -25' });
    expect(between(l, 3, 9, ['python src/analyze.py'])).toEqual(['`pip install scipy` (line 4)', 'edit requirements.txt (line 6)']);
  });
});

describe('a start time the agent gives, against the first message', () => {
  it('learns the local offset from a `date` run and its record time', () => {
    expect(offsetFromDate('date "+%Y-%m-%d %H:%M:%S" && stat x', '2026-04-26 16:08:42\nApr 26 14:50:28 2026', '2026-04-26T23:08:42.836Z')).toBe(-420);
    expect(offsetFromDate('date', 'Sun Apr 26 16:08:42 PDT 2026', '2026-04-26T23:08:42.836Z')).toBe(-420);
    expect(offsetFromDate('date', '2026-04-26 16:20:42', '2026-04-26T23:08:42.836Z')).toBeNull();
    expect(offsetFromDate('git log -1', '2026-04-26 16:08:42', '2026-04-26T23:08:42.836Z')).toBeNull();
    expect(localMinutes('2026-04-26T21:55:08.803Z', -420)).toBeCloseTo(14 * 60 + 55 + 8.803 / 60, 1);
  });

  it('reads the earliest clock time on a line that says the work started', () => {
    expect(startClaim('Project dir created **14:50:28** → discussion start. Implementation **15:14:47 → 15:48:06**.')?.clock).toBe('14:50:28');
    expect(startClaim('The server started at 14:50.')).toBeNull();
    expect(startClaim('Discussion started, see PR 12.')).toBeNull();
    expect(startsBeforeSession(14 * 60 + 50, 14 * 60 + 55)).toBe(true);
    expect(startsBeforeSession(14 * 60 + 54, 14 * 60 + 55)).toBe(false);
  });

  it('says so when the claimed start is before the session\'s first message, citing both lines', () => {
    const l = initialLedger();
    noteRequest(l, 'read the brief', 3, 'request', '2026-04-26T21:55:08.803Z');
    noteAgentText(l, 'The discussion started at 14:50.', 5); // no clock known yet: not judged
    noteCall(l, { id: 'd', name: 'Bash', line: 10, command: 'date "+%F %T"' });
    noteResult(l, { id: 'd', line: 11, ok: true, output: '2026-04-26 16:08:42', ts: '2026-04-26T23:08:42.836Z' });
    noteAgentText(l, 'Timer started 15:14 → implementation.', 12);
    noteAgentText(l, 'Project dir created **14:50:28** → discussion start.\n- Total ≈ 57 min', 13);
    expect(l.contradictions).toHaveLength(1);
    expect(l.contradictions[0]).toMatchObject({ claim_line: 13, evidence_line: 3 });
    expect(l.contradictions[0]?.text).toContain('first message (line 3) was sent at 14:55 local time (UTC−07:00, from the `date` output at line 11)');
  });
});

describe('a commit whose output was cut', () => {
  it('reads the subject of `git commit -m`, plain or from a heredoc', async () => {
    const { commitMessage, logLines } = await import('../../src/core/shell.js');
    expect(commitMessage('git add . && git commit -m "Initial: scaffold (data partial)" 2>&1 | tail -3')).toBe('Initial: scaffold (data partial)');
    expect(commitMessage("git commit -m \"$(cat <<'EOF'\nFix the parser\n\nLonger body\nEOF\n)\"")).toBe('Fix the parser');
    expect(commitMessage('git commit --amend --no-edit')).toBeNull();
    expect(logLines('0d982ca 2026-04-26 15:26:07 -0700 Initial: scaffold\n* 813a320 Show headline')).toEqual([{ hash: '0d982ca', rest: '2026-04-26 15:26:07 -0700 Initial: scaffold' }, { hash: '813a320', rest: 'Show headline' }]);
  });

  it('names it from a later log line with its subject, pushed when a push reported that hash on the remote', () => {
    const l = initialLedger();
    noteCall(l, { id: 'c', name: 'Bash', line: 2, command: 'git commit -m "Initial: scaffold" 2>&1 | tail -3' });
    noteResult(l, { id: 'c', line: 3, ok: true, output: ' create mode 100644 src/a.py' });
    expect(l.commits).toEqual([]);
    noteCall(l, { id: 'p', name: 'Bash', line: 4, command: 'git commit -m "Second" && git push' });
    noteResult(l, { id: 'p', line: 5, ok: true, output: '[main 813a320] Second\nTo github.com:u/r.git\n   0d982ca..813a320  main -> main' });
    noteCall(l, { id: 'g', name: 'Bash', line: 6, command: 'git log --reverse --pretty=format:"%h %ai %s"' });
    noteResult(l, { id: 'g', line: 7, ok: true, output: '0d982ca 2026-04-26 15:26:07 -0700 Initial: scaffold\n813a320 2026-04-26 15:28:38 -0700 Second' });
    expect(l.commits.map((c) => [c.hash, c.line, c.pushed])).toEqual([['0d982ca', 3, true], ['813a320', 5, true]]);
  });

  it('never names a commit from a log line with another subject, and leaves its push unknown without proof', () => {
    const l = initialLedger();
    noteCall(l, { id: 'c', name: 'Bash', line: 2, command: 'git commit -m "Initial" | tail -1' });
    noteResult(l, { id: 'c', line: 3, ok: true, output: ' 3 files changed' });
    noteCall(l, { id: 'g', name: 'Bash', line: 4, command: 'git log --oneline' });
    noteResult(l, { id: 'g', line: 5, ok: true, output: 'abc1234 Initial commit of something else\ndef5678 Initial' });
    expect(l.commits.map((c) => [c.hash, c.pushed])).toEqual([['def5678', false]]);
  });

  it('counts an octopus merge with a message as a commit, named from a later graph log', () => {
    const l = initialLedger();
    noteCall(l, { id: 'm', name: 'Bash', line: 2, command: 'git merge --no-ff a/x b/y -m "merge round 1: a, b"' });
    noteResult(l, { id: 'm', line: 3, ok: true, output: "Trying simple merge with b/y\nMerge made by the 'octopus' strategy.\n 2 files changed" });
    noteCall(l, { id: 'g', name: 'Bash', line: 4, command: 'git log --oneline --graph -10' });
    noteResult(l, { id: 'g', line: 5, ok: true, output: '*---.   1b6c52f merge round 1: a, b\n|\\ \\ \\\n| * ad2d134 a: work' });
    expect(l.commits.map((c) => [c.hash, c.line, c.pushed])).toEqual([['1b6c52f', 3, false]]);
  });
});

describe('where a crash left the project\'s code', () => {
  it('names the last traceback frame outside installed packages', async () => {
    const { tracebackSite } = await import('../../src/core/ledger.js');
    const tb = 'Traceback (most recent call last):\n  File "/p/src/analyze.py", line 437, in <module>\n    main()\n  File "/p/src/analyze.py", line 299, in main\n    pagerank = nx.pagerank(g, weight="weight")\n  File "/p/.venv/lib/python3.13/site-packages/networkx/pagerank_alg.py", line 453, in _pagerank_scipy\n    import scipy as sp\nModuleNotFoundError: No module named \'scipy\'';
    expect(tracebackSite(tb)).toBe('analyze.py:299 main: pagerank = nx.pagerank(g, weight="weight")');
    expect(tracebackSite('Error: boom')).toBeNull();
  });
});
