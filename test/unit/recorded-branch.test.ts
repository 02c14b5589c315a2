import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderAll } from '../../src/core/render/index.js';
import { FIXTURES } from '../helpers.js';
import { renderInput } from './render-input.js';

/** The branch a transcript recorded, as HANDOFF.md states it under Repository Evidence. */

const dir = mkdtempSync(join(tmpdir(), 'handoff-branch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = readFileSync(join(FIXTURES, 'claude-session.jsonl'), 'utf8').trimEnd();
const ids = { sessionId: '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f', cwd: '/home/dev/uploader', version: '2.0.55', isSidechain: false, userType: 'external' };

function session(branch: string, commitOutput: string | null): string {
  const lines = [base.replaceAll('"gitBranch":"main"', `"gitBranch":"${branch}"`)];
  if (commitOutput !== null) {
    const at = '2026-03-01T10:00:00.000Z';
    lines.push(JSON.stringify({ ...ids, gitBranch: branch, type: 'assistant', uuid: 'c1', timestamp: at, message: { id: 'msg_c1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'tool_use', id: 'toolu_c1', name: 'Bash', input: { command: 'git commit -am "Back off exponentially"' } }] } }));
    lines.push(JSON.stringify({ ...ids, gitBranch: branch, type: 'user', uuid: 'c2', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_c1', content: commitOutput, is_error: false }] } }));
  }
  const p = join(dir, `${branch.replace(/\W/g, '_')}-${commitOutput === null ? 'none' : 'commit'}.jsonl`);
  writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

const recorded = (path: string): string => renderAll(renderInput(path)).handoffMd.split('\n').find((l) => l.startsWith('Recorded by the transcript:')) ?? '';

describe('the branch the transcript recorded', () => {
  it('is not called a branch when Claude Code recorded HEAD, and the last commit names the real one', () => {
    const line = recorded(session('HEAD', '[main (root-commit) 0a1b2c3] Back off exponentially\n 1 file changed, 3 insertions(+)'));
    expect(line).toContain('`HEAD`');
    expect(line).toContain('not a branch name');
    expect(line).not.toContain('branch `HEAD`');
    expect(line).toMatch(/The session's last commit \(line \d+\) was made on `main` — \*verified\*/);
  });

  it('names no branch for a commit whose output named none', () => {
    const path = session('main', null);
    const input = renderInput(path);
    input.state.ledger.commits.push({ hash: '0a1b2c3', subject: 'x', branch: '', line: 99, pushed: true });
    expect(renderAll(input).handoffMd).toContain('Recorded by the transcript: branch `main` in `/home/dev/uploader` — *reported*.\n');
  });

  it('is stated as recorded when it is a branch, with no commit note when the commit was made on it', () => {
    expect(recorded(session('main', '[main 0a1b2c3] Back off exponentially'))).toBe('Recorded by the transcript: branch `main` in `/home/dev/uploader` — *reported*.');
    expect(recorded(session('feature/retry', null))).toBe('Recorded by the transcript: branch `feature/retry` in `/home/dev/uploader` — *reported*.');
  });
});
