import { describe, expect, it } from 'vitest';
import { recapNext } from '../../src/core/harness/claude.js';
import { listingAfterLastCommit, noteAgentText, noteCall, noteResult, openFailures, saysFailed } from '../../src/core/ledger.js';
import { renderAll } from '../../src/core/render/index.js';
import { branchPullRequest, checkTargets, commitsStagedOnly, gitLogTop, gitRemotes, gitStagedFiles, pushesInOutput } from '../../src/core/shell.js';
import { initialState } from '../../src/core/state.js';
import type { SessionState } from '../../src/core/state.js';
import { ingestText, jsonl } from './ingest-helper.js';
import { analysed, ran, transcriptFile } from './ledger-helper.js';
import { renderInput } from './render-input.js';

/**
 * Rules from the fifth reading of corpus handoffs against their truth cards (docs/FIDELITY.md):
 * checks the handoff did not see or saw too early, a step left to the user that it did not name,
 * and a failure the agent reported that it took for dealt with.
 */


describe('an import check', () => {
  it('is `python -c` code that only imports, sets up sys.path and prints a fixed message: a test that the modules load', () => {
    const cmd = `source .venv/bin/activate && python -c "import sys; sys.path.insert(0, 'src'); import analyze; print('analyze imports OK')" && python3 -c "from app.core import (a, b)"`;
    expect(checkTargets(cmd)).toEqual([
      { kind: 'test', key: 'python import analyze', tool: 'python import analyze', paths: [] },
      { kind: 'test', key: 'python import app.core', tool: 'python import app.core', paths: [] },
    ]);
    expect(checkTargets('uv run python -c "import pkg.sub as p, other"').map((t) => t.key)).toEqual(['python import pkg.sub other']);
  });

  it('is not code that does anything else, nor an import of sys or os alone', () => {
    for (const cmd of [
      'python -c "from app import main; main()"',
      'python -c "import json, sys; print(json.load(sys.stdin))"',
      'python -c "import sys; print(sys.version)"',
      `python -c "import os; os.remove('x')"`,
      'python -c "import app; app.run()"',
      'python script.py',
    ]) {
      expect(checkTargets(cmd), cmd).toEqual([]);
    }
  });
});

describe("Claude Code's recap (away_summary)", () => {
  it('names the sentence that says what comes next, without the config hint', () => {
    expect(recapNext('Goal: ship the dashboard. Status: deployed, SUBMISSION.md pushed. Next action: submit the dashboard URL and SUBMISSION.md.')).toBe('Next action: submit the dashboard URL and SUBMISSION.md.');
    expect(recapNext('Data fetch is done. Next: deploy the repo and send me the URL. (disable recaps in /config)')).toBe('Next: deploy the repo and send me the URL.');
    expect(recapNext('Both rounds are merged. No next action unless you want to inspect the docs or push. (disable recaps in /config)')).toBe('No next action unless you want to inspect the docs or push.');
    expect(recapNext('Everything is merged into master.')).toBeNull();
  });

  const session = (extra: unknown[]): SessionState =>
    ingestText(
      jsonl(
        { type: 'user', uuid: 'u1', sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:00:00Z', message: { role: 'user', content: 'build the dashboard' } },
        { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:01:00Z', message: { role: 'assistant', content: [{ type: 'text', text: 'The dashboard is deployed.' }] } },
        ...extra,
      ),
    ).state;
  const recap = (uuid: string, parent: string, content: string) => ({ type: 'system', subtype: 'away_summary', uuid, parentUuid: parent, sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:02:00Z', content, isMeta: false });

  it('is named when nothing is pending from the agent, with its line and whether it came before the last request', () => {
    const st = session([
      recap('r1', 'a1', 'Goal: ship it. Next action: submit the URL to the reviewers. (disable recaps in /config)'),
      { type: 'user', uuid: 'u2', parentUuid: 'r1', sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:03:00Z', message: { role: 'user', content: 'which papers back this?' } },
      { type: 'assistant', uuid: 'a2', parentUuid: 'u2', sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:04:00Z', message: { role: 'assistant', content: [{ type: 'text', text: 'The SPACE framework.' }] } },
    ]);
    const next = analysed(st).nextAction;
    expect(next.rule).toBe('nothing_pending');
    expect(next.text).toContain("Claude Code's own recap (line 3, before the last request) named a step: «Next action: submit the URL to the reviewers.» Ask the user whether it was done.");
  });

  it('says how many requests came after it, and after three or more that they may have settled it (posthog: the deploy it named was done)', () => {
    const ask = (n: number) => [
      { type: 'user', uuid: `u${n}`, parentUuid: 'r1', sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:03:00Z', message: { role: 'user', content: `question ${n} about the papers` } },
      { type: 'assistant', uuid: `a${n}`, parentUuid: `u${n}`, sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:04:00Z', message: { role: 'assistant', content: [{ type: 'text', text: `Answer ${n}.` }] } },
    ];
    const two = session([recap('r1', 'a1', 'Goal: ship it. Next action: submit the URL to the reviewers.'), ...ask(2), ...ask(3)]);
    expect(analysed(two).nextAction.text).toContain("Claude Code's own recap (line 3, before the last 2 requests) named a step");
    const st = session([recap('r1', 'a1', 'Goal: ship it. Next action: submit the URL to the reviewers.'), ...ask(2), ...ask(3), ...ask(4)]);
    expect(analysed(st).nextAction.text).toContain("Claude Code's own recap (line 3, before the last 3 requests) named a step: «Next action: submit the URL to the reviewers.»; the 3 requests since may have settled it");
    expect(analysed(st).nextAction.text).not.toContain('Ask the user whether it was done');
  });

  it('that says there is no next step is quoted as said', () => {
    const st = session([recap('r1', 'a1', 'All merged. No next action unless you want to push. (disable recaps in /config)')]);
    expect(analysed(st).nextAction.text).toMatch(/Wait for the user's next request\. Claude Code's own recap \(line 3\) said: «No next action unless you want to push\.»$/);
  });

  it('is not named when the session has something pending: the pending work comes first', () => {
    const st = session([
      recap('r1', 'a1', 'Next action: submit the URL.'),
      { type: 'user', uuid: 'u2', parentUuid: 'r1', sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:03:00Z', message: { role: 'user', content: 'now add a chart' } },
    ]);
    const next = analysed(st).nextAction;
    expect(next.rule).toBe('unfinished_request');
    expect(next.text).not.toContain('recap');
  });
});

describe('a shell Claude Code moved to the background when it outlived its timeout', () => {
  const base = { sessionId: 's', cwd: '/w' };
  let n = 0;
  const ts = (): string => `2026-04-26T10:${String((n += 1)).padStart(2, '0')}:00Z`;
  const use = (uuid: string, id: string, name: string, input: unknown) => ({ ...base, type: 'assistant', uuid, timestamp: ts(), message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } });
  const result = (uuid: string, id: string, content: string, toolUseResult: unknown) => ({ ...base, type: 'user', uuid, timestamp: ts(), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] }, toolUseResult });
  const started = [
    { ...base, type: 'user', uuid: 'u0', timestamp: ts(), message: { role: 'user', content: 'run the tests' } },
    use('a1', 't1', 'Bash', { command: 'npm test', timeout: 30000 }),
    result('u1', 't1', 'Command running in background with ID: ab12cd', { stdout: '', stderr: '', backgroundTaskId: 'ab12cd' }),
    use('a2', 't2', 'BashOutput', { bash_id: 'ab12cd' }),
    result('u2', 't2', '<status>running</status>\n\n<stdout>\nRUNS 3 suites\n</stdout>', { shellId: 'ab12cd', status: 'running', exitCode: null }),
  ];

  it('has no outcome while it runs: neither the move nor a poll that says running is a run', () => {
    const { state } = ingestText(jsonl(...started));
    expect(state.ledger.checks).toEqual([]);
    // Later versions say where the output goes, after the id.
    const later = started.map((x) => JSON.parse(JSON.stringify(x).replace('with ID: ab12cd"', 'with ID: ab12cd. Output is being written to: /tmp/ab12cd.output"')) as unknown);
    expect(JSON.stringify(later)).toContain('Output is being written to');
    expect(ingestText(jsonl(...later)).state.ledger.checks).toEqual([]);
  });

  it('takes its outcome from the poll that reports it ended, at that line', () => {
    const done = result('u3', 't3', '<status>completed</status>\n\n<exit_code>1</exit_code>\n\n<stdout>\nTests: 2 failed, 9 passed\n</stdout>', { shellId: 'ab12cd', status: 'completed', exitCode: 1 });
    const { state } = ingestText(jsonl(...started, use('a3', 't3', 'BashOutput', { bash_id: 'ab12cd' }), done));
    expect(state.ledger.checks.map((c) => ({ line: c.line, outcome: c.outcome, command: c.command }))).toEqual([{ line: 7, outcome: 'fail', command: 'npm test' }]);
  });

  it('has no outcome when a poll says it was killed', () => {
    const killed = result('u3', 't3', '<status>killed</status>\n\n<stdout>\nRUNS 3 suites\n</stdout>', { shellId: 'ab12cd', status: 'killed', exitCode: null });
    const { state } = ingestText(jsonl(...started, use('a3', 't3', 'BashOutput', { bash_id: 'ab12cd' }), killed));
    expect(state.ledger.checks).toEqual([]);
  });

  it('that the agent started in the background itself stays a job, never a check', () => {
    const { state } = ingestText(
      jsonl(
        use('b1', 's1', 'Bash', { command: 'npm test', run_in_background: true }),
        result('v1', 's1', 'Command running in background with ID: ff01', { backgroundTaskId: 'ff01' }),
        use('b2', 's2', 'BashOutput', { bash_id: 'ff01' }),
        result('v2', 's2', '<status>completed</status>\n\n<exit_code>0</exit_code>', { shellId: 'ff01', status: 'completed', exitCode: 0 }),
      ),
    );
    expect(state.ledger.checks).toEqual([]);
    expect(Object.values(state.ledger.jobs ?? {}).map((j) => j.command)).toEqual(['npm test']);
  });
});

describe('a failed command the agent answered afterwards', () => {
  const failedThenSaid = (said: string) => {
    const st = initialState();
    const l = st.ledger;
    noteCall(l, { id: 'c1', name: 'shell', line: 10, command: 'bash ~/.claude/skills/apply-grant/export-session.sh .' });
    noteResult(l, { id: 'c1', line: 11, ok: false, exitCode: 1, output: 'bash.exe: *** fatal error - couldn\'t create signal pipe' });
    noteAgentText(l, said, 20);
    return openFailures(l).map((f) => f.line);
  };

  it("stays open when the agent's last message says it failed", () => {
    expect(failedThenSaid('Submit here: https://example.org\n\nNote: I tried to export the session transcript, but the bundled bash command failed on Windows.')).toEqual([11]);
  });

  it('is listed once: open, not also as passed over', () => {
    const st = initialState();
    const l = st.ledger;
    ran(l, 10, 'bash ./export-session.sh .', 1, 'fatal error');
    noteAgentText(l, 'The export-session script failed on Windows.', 20);
    const a = analysed(st);
    expect(a.openFailures.map((f) => f.line)).toEqual([11]);
    expect(a.passedOver).toEqual([]);
  });

  it('is dealt with when the message does not say so, or says it was got around', () => {
    expect(failedThenSaid('Here is the grant draft.')).toEqual([]);
    expect(failedThenSaid('The export failed, so I copied the transcript by hand instead.')).toEqual([]);
  });

  it('is told from other failures by the words of the command: its program, or the stem of the file it runs', () => {
    expect(saysFailed('The export-session script failed.', 'bash ./export-session.sh')).toBe(true);
    expect(saysFailed('Deploying failed: the token expired.', 'bash ./export-session.sh')).toBe(false);
    expect(saysFailed('curl could not reach the host.', 'curl -sS https://example.org')).toBe(true);
    expect(saysFailed('Everything failed to impress.', 'ls')).toBe(false);
  });
});

describe('a pull --rebase before a push', () => {
  const out = [
    'From https://github.com/o/r',
    ' * branch            main       -> FETCH_HEAD',
    '   bf5434b..1af6918  main       -> origin/main',
    'Successfully rebased and updated refs/heads/main.',
    'To https://github.com/o/r.git',
    '   1af6918..9bffcc8  main -> main',
  ].join('\n');

  it("counts the push's update, not the fetch's", () => {
    expect(pushesInOutput(out)).toEqual([{ from: '1af6918', to: '9bffcc8', branch: 'main', url: 'https://github.com/o/r.git', dst: 'main' }]);
  });

  it('names the commit by the hash it was pushed with, and the hash it was made as', () => {
    const st = initialState();
    const l = st.ledger;
    ran(l, 10, 'git add SUBMISSION.md && git commit -m "Final SUBMISSION.md" && git push', 1, '[main c83eea1] Final SUBMISSION.md\n 1 file changed\nTo https://github.com/o/r.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs');
    ran(l, 12, 'git pull --rebase origin main && git push', 0, out);
    expect(l.commits.map((c) => ({ hash: c.hash, rebasedFrom: c.rebasedFrom, pushed: c.pushed }))).toEqual([{ hash: '9bffcc8', rebasedFrom: 'c83eea1', pushed: true }]);
    expect(analysed(st).commits[0]).toMatchObject({ hash: '9bffcc8', rebased_from: 'c83eea1', push_line: 13, line: 11 });
  });
});

describe('a failure fixed by the same target run another way', () => {
  it('names the command that ran clean when it is not the failed one as written', () => {
    const st = initialState();
    const l = st.ledger;
    ran(l, 10, 'pnpm --version', 1, 'This project is configured to use yarn');
    ran(l, 12, 'COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version', 0, '9.1.0');
    expect(analysed(st).fixedFailures).toMatchObject([{ line: 11, fixed_line: 13, fixed_by: 'COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version' }]);
  });

  it('names none when the same command simply ran again', () => {
    const st = initialState();
    const l = st.ledger;
    ran(l, 10, 'pnpm --version', 1, 'network error');
    ran(l, 12, 'pnpm --version', 0, '9.1.0');
    expect(analysed(st).fixedFailures[0]?.fixed_by).toBeUndefined();
  });
});

describe("the session's own git status, when the repository cannot be read now", () => {
  const status = ' M DECISIONS.md\nM  STATUS.md\nM  issues.md\n?? docs/adr/0021-new.md\n';

  it('knows which files were staged, and which commits take only those', () => {
    expect(gitStagedFiles(status)).toEqual(['STATUS.md', 'issues.md']);
    expect(gitStagedFiles('On branch main\nChanges to be committed:\n  (use "git restore --staged <file>..." to unstage)\n\tmodified:   a.ts\n\nChanges not staged for commit:\n\tmodified:   b.ts\n')).toEqual(['a.ts']);
    expect(gitStagedFiles('fatal: not a git repository')).toBeNull();
    expect(commitsStagedOnly('git commit -m "docs: status"')).toBe(true);
    expect(commitsStagedOnly('git commit -sm "docs: status"')).toBe(true);
    expect(commitsStagedOnly('git commit -am "all"')).toBe(false);
    expect(commitsStagedOnly('git commit -m "x" -- a.ts')).toBe(false);
    expect(commitsStagedOnly('git commit -m "x" a.ts')).toBe(false);
  });

  it('after a commit of what was staged, still lists the rest as uncommitted', () => {
    const st = initialState();
    const l = st.ledger;
    ran(l, 10, 'git add issues.md STATUS.md && git status --short', 0, status);
    ran(l, 12, 'git commit -m "docs(status): mark FW-005 shipped"', 0, '[bug-fix-01 73f00b8] docs(status): mark FW-005 shipped\n 2 files changed');
    expect(listingAfterLastCommit(l)).toEqual({ line: 11, paths: ['DECISIONS.md', 'docs/adr/0021-new.md'], committed: 13, untracked: 1, status: true, took: ['STATUS.md', 'issues.md'] });
  });

  it('after a commit of everything (-a), or a listing the commit came after without a staged part, holds nothing', () => {
    const st = initialState();
    const l = st.ledger;
    ran(l, 10, 'git status --short', 0, status);
    ran(l, 12, 'git commit -am "all"', 0, '[main 1234567] all\n 4 files changed');
    expect(listingAfterLastCommit(l)).toBeNull();
  });
});

describe('a file the user pointed at', () => {
  it('says how many of the lines kept from the read it shows, not how long the file is', () => {
    const body = Array.from({ length: 120 }, (_, i) => `${String(i + 1).padStart(6)}\t- rule ${i + 1}: keep the build under ${i + 1} MB`).join('\n');
    const path = transcriptFile(
      { type: 'user', uuid: 'u1', sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:00:00Z', message: { role: 'user', content: 'Read docs/spec.md and follow it.' } },
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:01:00Z', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/w/docs/spec.md' } }] } },
      { type: 'user', uuid: 'u2', parentUuid: 'a1', sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:01:01Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: body }] } },
    );
    const md = renderAll(renderInput(path)).handoffMd;
    // What the read returned is said apart from what the store keeps of it (a reader took "10 of
    // the 60 lines" for a 60-line file).
    expect(md).toMatch(/`\/w\/docs\/spec\.md` — named at line 1, read at line 3 \(the read returned lines 1–120; \d+ shown here of the 60 lines with words the store keeps of it, all in HANDOFF\.summary\.json\)/);
    expect(md).not.toMatch(/of its \d+ lines/);
    const summary = JSON.parse(renderAll(renderInput(path)).summaryJson.toString()) as { documents: { read_lines?: unknown }[] };
    expect(summary.documents[0]?.read_lines).toEqual({ first: 1, last: 120 });
  });
});

describe('files a request names, read side by side', () => {
  it('gives each file its share of the room, a config file by its keys and a script by its definitions', () => {
    const numbered = (lines: string[]): string => lines.map((t, i) => `${String(i + 1).padStart(6)}\t${t}`).join('\n');
    const toml = numbered(['[project]', ...Array.from({ length: 40 }, (_, i) => `key_${i} = "a value long enough to fill the room quickly ${i}"`), '[project.scripts]', 'x-cli = "x_pkg:main"']);
    const py = numbered(['import os', ...Array.from({ length: 30 }, (_, i) => `# comment ${i}`), 'def main():', '    return 1']);
    const rec = (type: string, uuid: string, content: unknown) => ({ type, uuid, sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:00:00Z', message: { role: type, content } });
    const path = transcriptFile(
      rec('user', 'u1', 'Look at pyproject.toml and tool.py and tell me why the entry point fails.'),
      rec('assistant', 'a1', [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/w/pyproject.toml' } }]),
      rec('user', 'r1', [{ type: 'tool_result', tool_use_id: 't1', content: toml }]),
      rec('assistant', 'a2', [{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: '/w/tool.py' } }]),
      rec('user', 'r2', [{ type: 'tool_result', tool_use_id: 't2', content: py }]),
    );
    const md = renderAll(renderInput(path)).handoffMd;
    // The config file's first keys no longer take the room the script's definition needed.
    expect(md).toMatch(/`\/w\/tool\.py` — named at line 1, read at line 5 \(the read returned lines 1–33[^\n]*\)\n\n(- l\.\d+: [^\n]*\n)*- l\.32: def main\(\):/);
    expect(md).toContain('`/w/pyproject.toml` — named at line 1, read at line 3 (the read returned lines 1–43;');
    expect(md).toContain('- l.1: [project]');
    expect(md).toContain('- l.43: x-cli = "x_pkg:main"');
  });
});

describe('a Codex patch reported by its patch_apply_end event', () => {
  const meta = { timestamp: '2026-07-10T18:00:00Z', type: 'session_meta', payload: { id: 's', cwd: '/w', cli_version: '0.144.1' } };
  const applied = (n: number, changes: Record<string, unknown>) => ({ timestamp: `2026-07-10T18:0${n}:00Z`, type: 'event_msg', payload: { type: 'patch_apply_end', call_id: `c${n}`, success: true, changes } });

  it('keeps what the patch did to each file: created, updated, deleted; a deletion is the last word on a file it created', () => {
    const { state } = ingestText(
      jsonl(
        meta,
        applied(1, { '/w/web/scripts/check.mjs': { type: 'add', content: 'x' }, '/w/src/a.rs': { type: 'update', unified_diff: '@@' } }),
        applied(2, { '/w/web/scripts/check.mjs': { type: 'delete', content: 'x' } }),
        applied(3, { '/w/src/b.rs': { delete: {} }, '/w/src/c.rs': { add: { content: 'y' } } }),
      ),
      { harness: 'codex' },
    );
    const how = Object.fromEntries(Object.entries(state.ledger.changed).map(([p, c]) => [p, c.how]));
    expect(how).toEqual({ '/w/src/a.rs': 'patch', '/w/web/scripts/check.mjs': 'delete', '/w/src/b.rs': 'delete', '/w/src/c.rs': 'create' });
    expect(state.ledger.changed['/w/web/scripts/check.mjs']).toMatchObject({ line: 3, first: 2, writes: 2 });
  });
});

describe("the session's own git log and remotes", () => {
  it('reads the newest commit a log printed, and the remotes `git remote -v` named or that it named none', () => {
    expect(gitLogTop('git log --oneline -5', 'ecd5389 feat: backend v0\n1a2b3c4 init\n')).toEqual({ hash: 'ecd5389', subject: 'feat: backend v0' });
    expect(gitLogTop('git status', 'ecd5389 feat: backend v0')).toBeNull();
    expect(gitRemotes('git remote -v', 'origin\thttps://github.com/o/r.git (fetch)\norigin\thttps://github.com/o/r.git (push)\n')).toEqual([{ name: 'origin', url: 'https://github.com/o/r.git' }]);
    expect(gitRemotes('git remote -v', '')).toEqual([]);
    // Combined with other commands, an empty output proves nothing about the remotes.
    expect(gitRemotes('git log --oneline -3; git remote -v', '')).toBeNull();
    expect(gitRemotes('git remote add origin x', '')).toBeNull();
  });

  it('are said in Repository Evidence when the repository cannot be read now', () => {
    const use = (uuid: string, id: string, command: string) => ({ type: 'assistant', uuid, sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:01:00Z', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] } });
    const res = (uuid: string, id: string, content: string) => ({ type: 'user', uuid, sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:01:01Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: false }] } });
    const path = transcriptFile(
      { type: 'user', uuid: 'u1', sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z', message: { role: 'user', content: 'draft the grant' } },
      use('a1', 't1', 'git log --oneline -3'),
      res('r1', 't1', 'ecd5389 feat: backend v0'),
      use('a2', 't2', 'git remote -v'),
      res('r2', 't2', ''),
    );
    const r = renderInput(path);
    const out = renderAll(r);
    expect(out.handoffMd).toContain('*reported* — the session\'s own git output, as printed then: its latest `git log` of HEAD (line 3) began with `ecd5389` «feat: backend v0»; its latest `git remote -v` (line 5) printed no remote.');
    // The payloads say the same, for a successor that reads only the JSON.
    const summary = JSON.parse(out.summaryJson.toString('utf8')) as { session_git: unknown };
    expect(summary.session_git).toEqual({
      label: 'reported',
      recorded: { branch: null, commit: null, cwd: '/nonexistent/w', repository_url: null },
      cwd_moved: null,
      uncommitted_listed: null,
      log_top: { line: 3, hash: 'ecd5389', subject: 'feat: backend v0' },
      no_commits: null,
      foreign_head: null,
      remotes: { line: 5, list: [] },
      pushed_to: null,
      remote_branches: null,
      switched_to: null,
    });
    expect((JSON.parse(out.llmJson.toString('utf8')) as { session_git: unknown }).session_git).toEqual(summary.session_git);
  });
});

describe("the branch's pull request", () => {
  it('is read from `gh pr view` of the current branch or `gh pr create`, not from a view of another number', () => {
    expect(branchPullRequest('gh pr view --json url', '{"url":"https://github.com/o/r/pull/2"}')).toEqual({ url: 'https://github.com/o/r/pull/2' });
    expect(branchPullRequest('gh pr view --json url,state', '{"state":"OPEN","url":"https://github.com/o/r/pull/2"}')).toEqual({ url: 'https://github.com/o/r/pull/2', state: 'OPEN' });
    expect(branchPullRequest('gh pr create --fill', 'https://github.com/o/r/pull/7\n')).toEqual({ url: 'https://github.com/o/r/pull/7' });
    expect(branchPullRequest('gh pr view 12 --json url', '{"url":"https://github.com/o/r/pull/12"}')).toBeNull();
    expect(branchPullRequest('gh pr list', 'https://github.com/o/r/pull/3')).toBeNull();
  });

  it('is named beside the commit advice: a push to the branch updates it', () => {
    const st = initialState();
    const l = st.ledger;
    ran(l, 10, 'gh pr view --json url', 0, '{"url":"https://github.com/o/r/pull/2"}');
    noteCall(l, { id: 'c2', name: 'Edit', line: 12, writes: [{ path: '/w/README.md', how: 'edit' }] });
    noteResult(l, { id: 'c2', line: 13, ok: true });
    l.lastRequestLine = 1;
    l.requests.push({ line: 1, text: 'update the readme', kind: 'request' });
    l.last = { event: 'agent_text', line: 14 };
    const next = analysed(st).nextAction;
    expect(next.rule).toBe('uncommitted_changes');
    expect(next.text).toMatch(/; the branch has a pull request, https:\/\/github\.com\/o\/r\/pull\/2 \(line 11\): a push to the branch updates it if it is still open$/);
  });

  it('says what a push does to it by the state gh printed: open, merged or closed, or not printed', () => {
    const advice = (out: string): string => {
      const st = initialState();
      const l = st.ledger;
      ran(l, 10, 'gh pr view --json url,state', 0, out);
      noteCall(l, { id: 'c2', name: 'Edit', line: 12, writes: [{ path: '/w/README.md', how: 'edit' }] });
      noteResult(l, { id: 'c2', line: 13, ok: true });
      l.lastRequestLine = 1;
      l.requests.push({ line: 1, text: 'update the readme', kind: 'request' });
      l.last = { event: 'agent_text', line: 14 };
      return analysed(st).nextAction.text;
    };
    expect(advice('{"state":"OPEN","url":"https://github.com/o/r/pull/2"}')).toMatch(/a pull request \(open\), https:\/\/github\.com\/o\/r\/pull\/2 \(line 11\): a push to the branch updates it$/);
    expect(advice('{"state":"MERGED","url":"https://github.com/o/r/pull/2"}')).toMatch(/a pull request \(merged\), https:\/\/github\.com\/o\/r\/pull\/2 \(line 11\): a push to the branch does not change it$/);
    expect(advice('{"url":"https://github.com/o/r/pull/2"}')).toMatch(/: a push to the branch updates it if it is still open$/);
  });
});

describe("a run of the session's own program", () => {
  it('that crashed is a failure, closed by a later run that exits clean, itself still unjudged', () => {
    const st = initialState();
    const l = st.ledger;
    ran(l, 10, 'uv tool install .', 0, 'Installed 1 executable: mytool');
    ran(l, 12, 'cd /tmp && mytool --help', 1, "Traceback (most recent call last):\n  File \"/bin/mytool\", line 4\nModuleNotFoundError: No module named 'mytool_cli'");
    expect(openFailures(l).map((f) => f.line)).toEqual([13]);
    expect(l.checks.map((c) => c.outcome)).toEqual(['pass', 'fail']);
    expect(l.checks[1]?.summary).toBe("ModuleNotFoundError: No module named 'mytool_cli'");
    ran(l, 14, 'mytool --help', 0, 'usage: mytool [-h]');
    expect(l.checks.map((c) => c.outcome)).toEqual(['pass', 'fail', 'unknown']);
    expect(openFailures(l)).toEqual([]);
    expect(analysed(st).fixedFailures).toMatchObject([{ line: 13, fixed_line: 15 }]);
    // Its unjudged run is not a run "neither an exit code nor the output decides": its output is there to read.
    const unknowns = analysed(st).unknowns.map((u) => u.text);
    expect(unknowns).toContain("1 run(s) of the session's own program, which no rule judges passed (a crash fails one): whether each did what it should, its output at its line says");
    expect(unknowns.some((t) => t.includes('neither an exit code nor the output decides'))).toBe(false);
  });

  it('that exits 1 with a usage message is neither a failure nor a fix', () => {
    const st = initialState();
    const l = st.ledger;
    ran(l, 10, 'uv tool install .', 0, 'Installed 1 executable: mytool');
    ran(l, 12, 'mytool', 1, 'usage: mytool <pr>\nerror: no pull request found');
    expect(l.checks.map((c) => c.outcome)).toEqual(['pass', 'unknown']);
    expect(openFailures(l)).toEqual([]);
  });
});

describe('a merge that changes files the session created before', () => {
  it('counts as a write of the files it names that the session had changed, not of upstream files it brings in', () => {
    const st = initialState();
    const l = st.ledger;
    ran(l, 10, 'git merge --no-ff a b -m "round 1"', 0, "Merge made by the 'octopus' strategy.\n work/a.md | 40 ++++\n create mode 100644 work/a.md\n");
    ran(l, 20, 'git merge --no-ff a b -m "round 2"', 0, "Merge made by the 'octopus' strategy.\n work/a.md     | 69 ++++++\n work/b.md     |  3 +-\n .../deep/c.md | 2 +-\n 3 files changed\n");
    expect(Object.fromEntries(Object.entries(l.changed).map(([p, c]) => [p, { how: c.how, line: c.line, writes: c.writes }]))).toEqual({
      'work/a.md': { how: 'create', line: 21, writes: 2 },
    });
  });
});

describe('the commit a Codex session started at', () => {
  it('is recorded with its branch from session_meta.git', () => {
    const { state } = ingestText(
      jsonl({ timestamp: '2026-07-10T18:00:00Z', type: 'session_meta', payload: { id: 's', cwd: '/w', cli_version: '0.125.0', git: { branch: 'feat/x', commit_hash: 'c41a097bcd1a7cea5174883f1827226354fb94b5', repository_url: 'git@github.com:o/r' } } }),
      { harness: 'codex' },
    );
    expect(state.meta).toMatchObject({ branch: 'feat/x', commit: 'c41a097bcd1a7cea5174883f1827226354fb94b5' });
  });
});

describe('unpushed commits in a repository the session saw no remote of', () => {
  const unpushed = (seen: (l: SessionState['ledger']) => void) => {
    const st = initialState();
    const l = st.ledger;
    seen(l);
    ran(l, 20, 'git commit -m "round 2"', 0, '[master ac1f1a4] round 2\n 3 files changed');
    return analysed(st).nextAction;
  };

  it('asks the user where the commits go rather than advising a push, from `git branch -a` or `git remote -v`', () => {
    const byBranches = unpushed((l) => ran(l, 10, 'git branch -a && echo --- && git log --oneline -3', 0, '+ alice/research\n* master\n  worktree-agent-a4\n---\n04752c6 Add intent'));
    expect(byBranches.rule).toBe('unpushed_commits');
    expect(byBranches.text).toMatch(/^Ask the user what becomes of the 1 commit\(s\) the session made, which are not pushed: ac1f1a4 «round 2»; /);
    expect(byBranches.text).toMatch(/; the session's `git branch -a` \(line 11\) listed no remote branch, so there may be no remote to push them to$/);
    expect(byBranches.text).not.toMatch(/^Push/);
    const byRemotes = unpushed((l) => ran(l, 10, 'git remote -v', 0, ''));
    expect(byRemotes.text).toMatch(/; the session's `git remote -v` \(line 11\) printed no remote, so there is none to push them to$/);
  });

  it('advises the push, once the user agrees, when a remote branch or a remote was listed', () => {
    for (const seen of [(l: SessionState['ledger']) => ran(l, 10, 'git branch -a', 0, '* master\n  remotes/origin/master'), (l: SessionState['ledger']) => ran(l, 10, 'git remote -v', 0, 'origin\tgit@github.com:o/r.git (fetch)\norigin\tgit@github.com:o/r.git (push)')]) {
      const n = unpushed(seen);
      expect(n.text).toMatch(/^Push the 1 unpushed commit\(s\) once the user agrees: ac1f1a4 «round 2»$/);
      expect(n.text).not.toContain('remote');
    }
  });
});
