import { chainRecords, rewoundConversation } from './claude-chain.js';
import { describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/core/ledger.js';
import { noteAgentText, noteCall, noteRequest, noteResult, openFailures } from '../../src/core/ledger.js';
import { gitListedFiles, reformattedCount, reformattedNamed, rewritingFormatter, shellWrites, wouldReformat } from '../../src/core/shell.js';
import { initialState } from '../../src/core/state.js';
import type { SessionState } from '../../src/core/state.js';
import { analysed } from './ledger-helper.js';

/**
 * Rules from the fourth reading of corpus handoffs by agents given nothing else (docs/FIDELITY.md):
 * each statement below was one a reader took for true and the transcript did not support.
 */


let n = 0;
function run(l: Ledger, line: number, command: string, result: { ok: boolean; exitCode?: number; output?: string; denied?: string; interrupted?: boolean; cwd?: string }): void {
  const id = `c${(n += 1)}`;
  noteCall(l, { id, name: 'Bash', line, command, ...(result.cwd === undefined ? {} : { cwd: result.cwd }) });
  noteResult(l, { id, line: line + 1, ...result });
}

describe('a check the user rejected', () => {
  it('did not run: it is no run and no failure, and what the user said is a request', () => {
    const st = initialState();
    const l = st.ledger;
    noteRequest(l, 'reinstall the tool', 1, 'request');
    run(l, 2, 'uv tool install --reinstall .', { ok: true, exitCode: 0, output: 'Installed 1 executable' });
    run(l, 4, 'find . -name "*.pyc" -delete; uv tool install --reinstall .', { ok: false, interrupted: true, denied: 'rejected by the user: STOP and wait' });
    expect(l.checks.map((c) => c.line)).toEqual([3]);
    expect(l.checksTotal).toBe(1);
    expect(openFailures(l)).toEqual([]);
    expect(l.failures).toEqual([]);
    const a = analysed(st);
    expect(a.checkTargets?.[0]).toMatchObject({ runs: 1, failed: 0 });
  });

  it('denied by a permission rule did not run either: listed once, as a call that did not run', () => {
    const st = initialState();
    const l = st.ledger;
    run(l, 2, 'npm test', { ok: false, denied: 'Permission to use Bash has been denied' });
    expect(l.checks).toEqual([]);
    expect(openFailures(l).map((f) => f.text)).toEqual(['`npm test` did not run: Permission to use Bash has been denied']);
    // Not the agent's to fix: the user must allow it.
    expect(analysed(st).nextAction.text).toBe('Ask the user to allow the call a permission rule denied, or go on without it (line 3: `npm test` did not run: Permission to use Bash has been denied)');
  });
});

describe('a forced delete', () => {
  it('is marked as proving nothing about the file having been there', () => {
    expect(shellWrites('rm -rf .venv build dist *.egg-info && uv tool install .')).toEqual([
      { path: '.venv', how: 'delete', ifExists: true },
      { path: 'build', how: 'delete', ifExists: true },
      { path: 'dist', how: 'delete', ifExists: true },
    ]);
    expect(shellWrites('rm -f a.txt; rm --force b.txt; rm -Rf c; rm -r d; unlink e')).toEqual([
      { path: 'a.txt', how: 'delete', ifExists: true },
      { path: 'b.txt', how: 'delete', ifExists: true },
      { path: 'c', how: 'delete', ifExists: true },
      { path: 'd', how: 'delete' },
      { path: 'e', how: 'delete' },
    ]);
  });

  it('changes no file the session never wrote, and deletes one it did', () => {
    const st = initialState();
    const l = st.ledger;
    run(l, 2, 'rm -rf .venv build dist *.egg-info && uv tool install .', { ok: true, exitCode: 0, output: 'Installed 1 executable' });
    expect(l.changed).toEqual({});
    expect(l.changedTotal).toBe(0);
    noteCall(l, { id: 'w', name: 'Write', line: 4, writes: [{ path: '/p/scratch.txt', how: 'create' }] });
    noteResult(l, { id: 'w', line: 5, ok: true });
    run(l, 6, 'rm -f /p/scratch.txt', { ok: true, exitCode: 0, output: '' });
    run(l, 8, 'rm /p/old.log', { ok: true, exitCode: 0, output: '' });
    expect(Object.keys(l.changed).sort()).toEqual(['/p/old.log', '/p/scratch.txt']);
    expect(l.changed['/p/old.log']).toMatchObject({ how: 'delete', line: 9 });
    expect(l.changed['/p/scratch.txt']).toMatchObject({ line: 7 });
  });

  it('deletes a file the session copied from or read, which a program of its own may have written', () => {
    const st = initialState();
    const l = st.ledger;
    run(l, 2, 'cp data/raw/prs.json data/raw/prs_partial.json', { ok: true, exitCode: 0, output: '', cwd: '/p' });
    noteCall(l, { id: 'r', name: 'Read', line: 4, read: '/p/data/raw/meta.json' });
    noteResult(l, { id: 'r', line: 5, ok: true, output: '{"fetched": 120}' });
    noteCall(l, { id: 'rm', name: 'Bash', line: 6, command: 'rm -f data/raw/prs.json data/raw/issues.json data/raw/meta.json', cwd: '/p' });
    noteResult(l, { id: 'rm', line: 7, ok: true, exitCode: 0, output: '', cwd: '/p' });
    expect(Object.keys(l.changed).sort()).toEqual(['/p/data/raw/meta.json', '/p/data/raw/prs.json', '/p/data/raw/prs_partial.json']);
    expect(l.changed['/p/data/raw/prs.json']).toMatchObject({ how: 'delete', line: 7 });
  });
});

describe('the next action for unpushed commits', () => {
  const commits = (count: number): SessionState => {
    const st = initialState();
    const l = st.ledger;
    noteRequest(l, 'commit the work', 1, 'request');
    for (let i = 0; i < count; i += 1) run(l, 2 + 2 * i, `git commit -m "step ${i}"`, { ok: true, exitCode: 0, output: `[main ${String(i).padStart(7, 'a')}] step ${i}\n 1 file changed` });
    noteAgentText(l, 'The work is committed.', 2 + 2 * count);
    return st;
  };

  it('names every commit it counts', () => {
    const a = analysed(commits(4));
    expect(a.nextAction.rule).toBe('unpushed_commits');
    expect(a.nextAction.text).toMatch(/^Push the 4 unpushed commit\(s\) once the user agrees: /);
    for (let i = 0; i < 4; i += 1) expect(a.nextAction.text).toContain(`«step ${i}»`);
  });

  it('says which of many it names', () => {
    const a = analysed(commits(7));
    expect(a.nextAction.text).toMatch(/^Push the 7 unpushed commit\(s\) once the user agrees; the latest 5: /);
    expect(a.nextAction.text).not.toContain('«step 1»');
    expect(a.nextAction.text).toContain('«step 2»');
    expect(a.nextAction.text).toContain('«step 6»');
  });
});

describe('checks not run after the last change', () => {
  it('leaves out a combined run whose every check ran again after the change, and names one whose part did not', () => {
    const st = initialState();
    const l = st.ledger;
    noteRequest(l, 'add tar support', 1, 'request');
    run(l, 2, 'ruff check src/ && pytest', { ok: true, exitCode: 0, output: '== 3 passed in 1s ==' });
    noteCall(l, { id: 'w', name: 'Edit', line: 4, writes: [{ path: '/p/src/a.py', how: 'edit' }] });
    noteResult(l, { id: 'w', line: 5, ok: true });
    run(l, 6, 'pytest', { ok: true, exitCode: 0, output: '== 3 passed in 1s ==' });
    expect(analysed(st).checksNotRun.map((f) => f.text)).toEqual(['`ruff check src/ && pytest` last ran at line 3, before the last file change (line 5)']);
    run(l, 8, 'ruff check src/', { ok: true, exitCode: 0, output: 'All checks passed!' });
    expect(analysed(st).checksNotRun).toEqual([]);
  });
});

describe('a formatter that rewrites files', () => {
  it('is told from its check form, and what it wrote is read from its output or from the check before it', () => {
    expect(rewritingFormatter('uv run ruff format')).toBe(true);
    expect(rewritingFormatter('cd app && black src/')).toBe(true);
    expect(rewritingFormatter('uv run ruff format --check')).toBe(false);
    expect(rewritingFormatter('black --diff src/')).toBe(false);
    expect(rewritingFormatter('ruff check --fix')).toBe(false);
    expect(wouldReformat('[CI/test-2]   | Would reformat: test/a.py\n[CI/test-1]   | Would reformat: test/a.py\nwould reformat src/b.py\n')).toEqual(['test/a.py', 'src/b.py']);
    expect(reformattedCount('6 files reformatted, 10 files left unchanged')).toBe(6);
    expect(reformattedNamed('reformatted src/a.py\nreformatted src/b.py\nAll done! ✨ 🍰 ✨\n2 files reformatted.')).toEqual(['src/a.py', 'src/b.py']);
  });

  it('changes the files its check listed when it rewrote as many; otherwise the handoff says how many went unnamed', () => {
    const st = initialState();
    const l = st.ledger;
    noteRequest(l, 'make CI pass', 1, 'request');
    run(l, 2, 'act -j test', { ok: false, exitCode: 1, output: '[CI/test]   | Would reformat: test/a.py\n[CI/test]   | Would reformat: test/b.py\n[CI/test]   | 2 files would be reformatted\nError: Job failed', cwd: '/p' });
    noteCall(l, { id: 'fmt1', name: 'Bash', line: 4, command: 'uv run ruff format', cwd: '/p' });
    noteResult(l, { id: 'fmt1', line: 5, ok: true, exitCode: 0, output: '2 files reformatted, 10 files left unchanged', cwd: '/p' });
    expect(Object.keys(l.changed).sort()).toEqual(['/p/test/a.py', '/p/test/b.py']);
    expect(l.changed['/p/test/a.py']).toMatchObject({ how: 'edit', line: 5 });
    // A count with no list as long: nothing is named, the count is said.
    noteCall(l, { id: 'fmt2', name: 'Bash', line: 6, command: 'uv run ruff format', cwd: '/p' });
    noteResult(l, { id: 'fmt2', line: 7, ok: true, exitCode: 0, output: '3 files reformatted, 9 files left unchanged', cwd: '/p' });
    expect(Object.keys(l.changed)).toHaveLength(2);
    expect(analysed(st).unknowns.map((u) => u.text)).toContain('Files changed: `uv run ruff format` (line 7) rewrote 3 file(s) its output does not name');
    // black names what it rewrote.
    noteCall(l, { id: 'fmt3', name: 'Bash', line: 8, command: 'black src/', cwd: '/p' });
    noteResult(l, { id: 'fmt3', line: 9, ok: true, exitCode: 0, output: 'reformatted src/c.py\nAll done!\n1 file reformatted.', cwd: '/p' });
    expect(l.changed['/p/src/c.py']).toMatchObject({ how: 'edit', line: 9 });
    // A check form writes nothing.
    run(l, 10, 'uv run ruff format --check', { ok: false, exitCode: 1, output: 'Would reformat: src/d.py\n1 file would be reformatted', cwd: '/p' });
    expect(l.changed['/p/src/d.py']).toBeUndefined();
  });
});

describe('a file Claude Code wrote', () => {
  it('is a create when the result says the file was created', () => {
    const l = initialState().ledger;
    noteCall(l, { id: 'w', name: 'Write', line: 2, writes: [{ path: '/p/.github/workflows/ci.yml', how: 'write' }] });
    noteResult(l, { id: 'w', line: 3, ok: true, output: 'File created successfully at: /p/.github/workflows/ci.yml' });
    noteCall(l, { id: 'e', name: 'Edit', line: 4, writes: [{ path: '/p/.github/workflows/ci.yml', how: 'edit' }] });
    noteResult(l, { id: 'e', line: 5, ok: true, output: 'The file /p/.github/workflows/ci.yml has been updated.' });
    noteCall(l, { id: 'w2', name: 'Write', line: 6, writes: [{ path: '/p/README.md', how: 'write' }] });
    noteResult(l, { id: 'w2', line: 7, ok: true, output: 'The file /p/README.md has been updated.' });
    expect(l.changed['/p/.github/workflows/ci.yml']).toMatchObject({ how: 'create', line: 5 });
    expect(l.changed['/p/README.md']).toMatchObject({ how: 'write' });
  });
});

describe('a file written more than once', () => {
  it('keeps where it was first written and how often, and HANDOFF.md shows paths from the folder the session started in', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tempDir } = await import('../helpers.js');
    const { renderInput } = await import('./render-input.js');
    const { renderAll } = await import('../../src/core/render/index.js');
    const base = { sessionId: 's', version: '2.0.55', isSidechain: false, userType: 'external' };
    const at = (cwd: string) => ({ ...base, cwd });
    const call = (cwd: string, id: string, name: string, input: unknown) => ({ ...at(cwd), type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } });
    const result = (cwd: string, id: string, text: string) => ({ ...at(cwd), type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] } });
    const root = '/home/dev/app';
    const test = '/home/dev/app/test';
    const lines = [
      { ...at(root), type: 'user', message: { role: 'user', content: 'add a test for the parser' } },
      call(root, 'w', 'Write', { file_path: `${test}/parser_test.py`, content: 'def test_parse():\n    assert parse("") == []\n' }),
      result(root, 'w', `File created successfully at: ${test}/parser_test.py`),
      call(root, 'cd', 'Bash', { command: 'cd test' }),
      result(test, 'cd', ''),
      call(test, 'e', 'Edit', { file_path: `${test}/parser_test.py`, old_string: '[]', new_string: '[None]' }),
      result(test, 'e', `The file ${test}/parser_test.py has been updated.`),
      { ...at(test), type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'The test is in place.' }] } },
    ];
    const path = join(tempDir('handoff-work-'), 'written-twice.jsonl');
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const input = renderInput(path);
    expect(input.state.ledger.changed[`${test}/parser_test.py`]).toMatchObject({ how: 'create', line: 7, first: 3, writes: 2 });
    const md = renderAll(input).handoffMd;
    expect(md).toContain('| `test/parser_test.py` | create | 7 (2 writes, the first at 3) |');
    expect(md).toContain('paths under `/home/dev/app` are given from there');
  });
});

describe('a plan step that says it tested the work', () => {
  it('marked done with no check run since the last change is a claim to double-check', () => {
    const st = initialState();
    const l = st.ledger;
    noteRequest(l, 'tidy the header layout', 1, 'request');
    noteCall(l, { id: 'e', name: 'Edit', line: 2, writes: [{ path: '/p/Menu.tsx', how: 'edit' }] });
    noteResult(l, { id: 'e', line: 3, ok: true });
    st.todos = { items: [{ text: 'Move the button', status: 'completed' }, { text: 'Test the layout to ensure proper spacing', status: 'completed' }], seq: 3, source: 'todos' };
    l.lastPlanLine = 4;
    expect(analysed(st).contradictions.map((c) => [c.claim_line, c.evidence_line, c.text])).toEqual([[4, 3, 'the plan marks «Test the layout to ensure proper spacing» done, but no test, build, type check or lint ran after the last file change (line 3)']]);
    // A check between the change and the plan: nothing to double-check.
    run(l, 3, 'pnpm test', { ok: true, exitCode: 0, output: 'Tests 3 passed' });
    l.lastPlanLine = 5;
    expect(analysed(st).contradictions).toEqual([]);
  });
});

describe("Claude Code's rewind to an earlier message", () => {
  it('is read from the message chain: the requests between are a branch the conversation left', async () => {
    const { ingestText, jsonl } = await import('./ingest-helper.js');
    const base = { sessionId: 's', cwd: '/p', version: '2.1.0', isSidechain: false, userType: 'external' };
    const chain = chainRecords(base);
    const { user, agent, hook } = chain;
    const lines = [...rewoundConversation(chain), hook('h3', 'a3'), user('u4', 'h3', 'now a balanced opinion')];
    const { state } = ingestText(jsonl(...lines));
    expect(state.ledger.rewinds).toEqual([{ line: 7, to: 3 }]);
    const a = analysed(state);
    expect(a.rewinds).toEqual([{ line: 7, to: 3 }]);
    // A chain that only goes on (a request after a progress line its parent skipped) is no rewind.
    const straight = ingestText(jsonl(user('u1', null, 'first'), agent('a1', 'u1', 'done'), hook('h1', 'a1'), { ...base, type: 'progress', uuid: 'p1', parentUuid: 'h1' }, user('u2', 'h1', 'second')));
    expect(straight.state.ledger.rewinds).toBeUndefined();
  });
});

describe("the session's own git listing of the tree", () => {
  it('is read from git status (long and short) and git diff --name-only/--name-status', () => {
    const long = 'On branch main\nChanges not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n\tmodified:   src/a.py\n\trenamed:    old.py -> src/b.py\n\nUntracked files:\n  (use "git add <file>..." to include in what will be committed)\n\tnotes.md\n\tscratch/\n\nno changes added to commit';
    expect(gitListedFiles('git status', long)).toEqual(['src/a.py', 'src/b.py', 'notes.md', 'scratch/']);
    expect(gitListedFiles('git status --short', ' M src/a.py\n?? notes.md\nR  old.py -> src/b.py\n')).toEqual(['src/a.py', 'notes.md', 'src/b.py']);
    expect(gitListedFiles('cd app && git diff --name-only', 'src/a.py\nREADME.md\n')).toEqual(['src/a.py', 'README.md']);
    expect(gitListedFiles('git diff --name-status HEAD~1', 'M\tsrc/a.py\nR100\told.py\tsrc/b.py\n')).toEqual(['src/a.py', 'src/b.py']);
    expect(gitListedFiles('git log --oneline', 'abc1234 x')).toBeNull();
  });

  it('warns beside the advice to commit when it named files the session did not change', () => {
    const st = initialState();
    const l = st.ledger;
    noteRequest(l, 'restore the session nav', 1, 'request');
    run(l, 2, 'git diff --name-only', { ok: true, exitCode: 0, output: 'CLAUDE.md\npyproject.toml\nclaude_code_log/renderer.py\n', cwd: '/p' });
    noteCall(l, { id: 'e', name: 'Edit', line: 4, writes: [{ path: '/p/claude_code_log/renderer.py', how: 'edit' }] });
    noteResult(l, { id: 'e', line: 5, ok: true });
    noteAgentText(l, 'The navigation is back.', 6);
    const a = analysed(st);
    expect(a.nextAction.rule).toBe('uncommitted_changes');
    expect(a.nextAction.text).toMatch(/commit the 1 uncommitted file change\(s\) \(renderer\.py\) once the user agrees; renderer\.py already held uncommitted changes before the session's first write \(git's output at line 3\): a commit of it takes that work too, so ask the user; the session's `git` listing at line 3 also named 2 file\(s\) this handoff does not list as changed by it \(CLAUDE\.md, pyproject\.toml\): ask before committing those$/);
  });
});
