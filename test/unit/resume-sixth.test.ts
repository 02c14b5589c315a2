import { describe, expect, it } from 'vitest';
import { renderAll } from '../../src/core/render/index.js';
import { initialState, LIMITS, objectiveCut, objectiveSet } from '../../src/core/state.js';
import { tailFrom } from '../../src/core/cut.js';
import { sections } from '../../src/core/quality.js';
import { indexEntry } from '../../src/store/index-file.js';
import type { Manifest } from '../../src/store/manifest.js';
import { gitUnavailable } from '../../src/core/evidence.js';
import { noteAgentText, noteCall, noteRequest, noteResult, openFailures } from '../../src/core/ledger.js';
import { lastStarted } from '../../src/core/outcome.js';
import { andChain, branchSwitch } from '../../src/core/shell.js';
import { ingestText, jsonl } from './ingest-helper.js';
import { analysed, ran, rendered, transcriptFile } from './ledger-helper.js';
import { renderInput } from './render-input.js';

/**
 * Rules from the sixth reading (docs/FIDELITY.md): transcripts no card covers, read by a successor
 * given HANDOFF.md alone.
 */

function handoffOf(request: string): string {
  return rendered(
    { type: 'user', uuid: 'u1', sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z', message: { role: 'user', content: request } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:01:00Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Done: the branch is committed.' }] } },
  ).handoffMd;
}

describe('a long brief as the objective', () => {
  it('is kept whole, its closing constraints included, up to 4,000 characters', () => {
    const brief = `${'Write the research document on plan mode, grounded in the docs. '.repeat(36)}\n\n### How to commit\n\n4. **Do not push. Do not merge. Do not touch master.**`;
    expect(brief.length).toBeGreaterThan(2000);
    expect(brief.length).toBeLessThanOrEqual(LIMITS.OBJECTIVE_CHARS);
    const md = handoffOf(brief);
    expect(md).toContain('4. **Do not push. Do not merge. Do not touch master.**\n```\n\n*reported* — the user\'s first request (line 1)\n');
  });

  it('holds one set with --objective to the same length (the payload schemas allow 8,000)', () => {
    expect(objectiveSet('short')).toBe('short');
    expect(objectiveSet('z'.repeat(9000))).toHaveLength(LIMITS.OBJECTIVE_CHARS);
  });

  it('keeps of a longer one its head and its end, where its constraints are, and says how much of each', () => {
    const brief = `${'Audit every file of the app and fix what is broken. '.repeat(200)}\n\n--------\nIMPORTANT LIMITS\n--------\n\nDo NOT:\n- start dev server\n- expose secrets\n- add real payments yet`;
    const md = handoffOf(brief);
    expect(md).toContain('[… ');
    expect(md).toContain('IMPORTANT LIMITS\n--------\n\nDo NOT:\n- start dev server\n- expose secrets\n- add real payments yet\n```');
    expect(md).toMatch(new RegExp(`\\*reported\\* — the user's first request \\(line 1\\); its first \\d+ and last \\d+ of ${brief.length} characters \\(the whole is in the transcript\\)`));
  });

  it('begins the end it keeps where a paragraph does, so a list keeps its heading', () => {
    const text = `${'a'.repeat(8000)}\n\nDo NOT:\n${'- touch the database schema\n'.repeat(40)}`;
    const start = tailFrom(text, 1000);
    expect(text.slice(start).startsWith('Do NOT:\n')).toBe(true);
    expect(objectiveCut(text).text).toContain('\nDo NOT:\n- touch');
    expect(objectiveCut(text).text.length).toBeLessThanOrEqual(LIMITS.OBJECTIVE_CHARS);
  });
});

describe("INDEX.json's objective", () => {
  it('keeps the first 1,200 characters of a brief the handoff keeps whole', () => {
    const m = { sources: [], session: 's', uuid: null, chain_id: 'c', project: 'p', harness: 'claude', turn_count: 1, revisions: 1, updated_at: 't', manifest_sha256: 'x', context: { level: 'green' }, quality: { transfer_ready: true }, source_state: 'present', title: null, parent_session: null } as unknown as Manifest;
    expect(indexEntry(m, '/d', 'short brief').objective).toBe('short brief');
    const long = indexEntry(m, '/d', 'y'.repeat(3000)).objective as string;
    expect(long).toHaveLength(1200);
    expect(long.endsWith('…')).toBe(true);
    // Half an emoji, from a cut upstream or its own, is U+FFFD: JSON would write it as an escape jq refuses.
    expect(indexEntry(m, '/d', `${'😀'.repeat(10)}\ud83d`).objective).toBe(`${'😀'.repeat(10)}\ufffd`);
    expect(JSON.stringify(indexEntry(m, '/d', '😀'.repeat(1000)).objective)).not.toMatch(/\\u[dD][89a-fA-F]/);
  });
});

describe("a subagent's turns inside the session's own transcript", () => {
  const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
  const lines = [
    { ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'Search the web for the TypeScript 5.6 release notes' } },
    { ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'task1', name: 'Task', input: { description: 'Search TS 5.6', prompt: 'Find the TS 5.6 features' } }] } },
    { ...base, type: 'user', uuid: 's1', parentUuid: null, isSidechain: true, message: { role: 'user', content: 'Find the TS 5.6 features' } },
    { ...base, type: 'assistant', uuid: 's2', parentUuid: 's1', isSidechain: true, message: { role: 'assistant', content: [{ type: 'text', text: 'TS 5.6 adds iterator helpers.' }] } },
  ];
  const result = { ...base, type: 'user', uuid: 'r1', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'task1', content: 'TS 5.6 adds iterator helpers.' }] } };

  const handoff = (objs: unknown[]): string => rendered(...objs).handoffMd;

  it('are marked in the Recent timeline: its prompt is no user request', () => {
    const md = handoff([...lines, result]);
    expect(md).toContain('| 3 | USER (subagent) | Find the TS 5.6 features |');
    expect(md).toContain('| 4 | AGENT (subagent) | TS 5.6 adds iterator helpers. |');
    expect(md).toContain('| 1 | USER | Search the web');
  });

  it('end with its report: the launch says when it came back, or that none is recorded', () => {
    expect(handoff([...lines, result])).toContain('- launched (line 2): Search TS 5.6 — its report came back (line 5)');
    expect(handoff(lines)).toContain('- launched (line 2): Search TS 5.6 — no result recorded: still running, or the transcript ends first');
  });

  it('started in the background, its call returns at once: that answer is not called its report', () => {
    const bg = lines.map((o) => (o.uuid === 'a1' ? { ...o, message: { role: 'assistant', content: [{ type: 'tool_use', id: 'task1', name: 'Agent', input: { description: 'Search TS 5.6', prompt: 'Find the TS 5.6 features', run_in_background: true } }] } } : o));
    const md = handoff([...bg, { ...result, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'task1', content: 'Async agent launched successfully.' }] } }]);
    expect(md).toContain('- launched (line 2): Search TS 5.6 — started in the background: its call returned (line 5), which is not its report');
  });

  it('in a state begun before results were read, a launch without one is not said to be running', () => {
    const r = renderInput(transcriptFile(...lines));
    delete r.state.subagentResults;
    expect(renderAll(r).handoffMd).toMatch(/- launched \(line 2\): Search TS 5\.6\n/);
  });
});

describe('a transcript that starts mid-conversation', () => {
  it("says its first message answers one it does not hold, and takes the objective as this file's first request only", () => {
    const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
    const path = transcriptFile({ ...base, type: 'user', uuid: 'u9', parentUuid: 'e8625dec-61aa-4bbb-8ccc-000000000000', message: { role: 'user', content: 'Your first attempt reordered the cards too early; try again.' } });
    const md = renderAll(renderInput(path)).handoffMd;
    expect(md).toContain('*reported* — the first request this transcript holds (line 1): it starts mid-conversation (see Unknowns)');
    expect(md).toContain('- *unknown* Earlier conversation: the first message (line 1) answers one this transcript does not hold; what came before it, and the first request, are not in it');
    const whole = rendered({ ...base, type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'Reorder the cards.' } }).handoffMd;
    expect(whole).toContain("*reported* — the user's first request (line 1)\n");
    expect(whole).not.toContain('Earlier conversation');
    // What the session changed before its first line is not in it: not "None".
    expect(sections(md).get('Repository Evidence')).toContain('### Files changed in this session\n\nNone in the lines this transcript holds. *unknown* — it starts mid-conversation (line 1, see Unknowns): what the session changed before is not in it');
    expect(md).toContain('3. No file changed in the lines this transcript holds, but it starts mid-conversation (see Unknowns): run `git status` and `git diff`');
    expect(sections(whole).get('Repository Evidence')).toContain('### Files changed in this session\n\nNone\n');
  });
});

describe('a branch the session switched to', () => {
  it("is read from git's own words, and the last one counts", () => {
    expect(branchSwitch('git checkout -b feat/dashboard-refactor', "Switched to a new branch 'feat/dashboard-refactor'\n")).toBe('feat/dashboard-refactor');
    expect(branchSwitch('git checkout main && git pull && git switch dev', "Switched to branch 'main'\nAlready up to date.\nSwitched to branch 'dev'\n")).toBe('dev');
    expect(branchSwitch('git status', "Switched to branch 'main'")).toBeNull();
    expect(branchSwitch('git checkout -- a.ts', '')).toBeNull();
  });

  it('is said beside the branch the transcript recorded, and given in session_git', () => {
    const base = { sessionId: 's', cwd: '/nonexistent/w', gitBranch: 'fix/team', timestamp: '2026-04-26T10:00:00Z' };
    const out = rendered(
      { ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'start the dashboard refactor on a new branch' } },
      { ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'git checkout -b feat/dashboard-refactor' } }] } },
      { ...base, type: 'user', uuid: 'r1', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: "Switched to a new branch 'feat/dashboard-refactor'", is_error: false }] } },
    );
    expect(out.handoffMd).toContain("Recorded by the transcript: branch `fix/team` in `/nonexistent/w` — *reported*. Its latest `git checkout` or `git switch` (line 3) moved to `feat/dashboard-refactor` — *verified* from git's output.");
    expect((JSON.parse(out.summaryJson.toString('utf8')) as { session_git: { switched_to: unknown } }).session_git.switched_to).toEqual({ line: 3, branch: 'feat/dashboard-refactor' });
  });
});

describe('a Codex call the user declined', () => {
  it('did not run: its patch is a write that did not happen, not a failure', () => {
    const { state } = ingestText(
      jsonl(
        { timestamp: '2025-09-25T01:28:00Z', type: 'session_meta', payload: { id: 'c1', cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.40.0' } },
        { timestamp: '2025-09-25T01:28:01Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'add the hook' }] } },
        { timestamp: '2025-09-25T01:28:35Z', type: 'response_item', payload: { type: 'function_call', name: 'shell', call_id: 'p1', arguments: JSON.stringify({ command: ['bash', '-lc', "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: src/useTeam.ts\n+export const x = 1;\n*** End Patch\nPATCH"] }) } },
        { timestamp: '2025-09-25T01:28:35Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'p1', output: 'patch rejected by user' } },
      ),
    );
    const a = analysed(state);
    expect(a.filesNotChanged).toEqual([{ path: '/w/src/useTeam.ts', line: 4, reason: 'rejected by the user' }]);
    expect(a.filesChanged).toEqual([]);
    expect(a.openFailures).toEqual([]);
  });
});

describe('the commit advice', () => {
  const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
  const session = (extra: unknown[]) =>
    ingestText(
      jsonl(
        { ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'use the initials from the username' } },
        { ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'e1', name: 'Edit', input: { file_path: '/nonexistent/w/NavUser.tsx', old_string: 'a', new_string: 'b' } }] } },
        { ...base, type: 'user', uuid: 'r1', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'e1', content: 'The file has been updated.', is_error: false }] } },
        ...extra,
        { ...base, type: 'assistant', uuid: 'a9', parentUuid: 'r1', message: { role: 'assistant', content: [{ type: 'text', text: 'The menu now shows the initials.' }] } },
      ),
    ).state;
  const advice = (st: ReturnType<typeof session>) => analysed(st, gitUnavailable('cwd-gone', 'gone', null, null)).nextAction.text;

  it('does not call files uncommitted when the session ran no git command and the repository cannot be read', () => {
    expect(advice(session([]))).toContain('Verify the change, then check `git status`: the session ran no git command, so whether its 1 changed file(s) (NavUser.tsx) are committed is not recorded; commit them if not, once the user agrees');
  });

  it('says uncommitted when the session looked at its repository', () => {
    const ran = [
      { ...base, type: 'assistant', uuid: 'a2', parentUuid: 'r1', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'g1', name: 'Bash', input: { command: 'git diff --stat' } }] } },
      { ...base, type: 'user', uuid: 'r2', parentUuid: 'a2', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'g1', content: ' NavUser.tsx | 2 +-', is_error: false }] } },
    ];
    expect(advice(session(ran))).toContain('Verify the change, then commit the 1 uncommitted file change(s) (NavUser.tsx) once the user agrees');
  });
});

describe('a failed chain of checks', () => {
  const NPM_OUT = '\n> web@0.1.0 lint\n> tsc -b\n\n\n> web@0.1.0 build\n> tsc -b && vite build\n\n✓ built in 151ms\nnpm warn audit request to https://registry.npmjs.org failed\nnpm error audit endpoint returned an error\n';

  it('knows which checks started from their own lines, and only in a chain joined by &&', () => {
    expect(lastStarted(['npm lint', 'npm build', 'npm audit'], NPM_OUT)).toBe(2);
    expect(lastStarted(['npm lint', 'npm build', 'npm test'], NPM_OUT)).toBe(1);
    expect(lastStarted(['pnpm lint', 'pnpm test'], '> web@0.1.0 lint /repo\n\n> web@0.1.0 test /repo\nFAIL src/a.test.ts\n')).toBe(1);
    expect(lastStarted(['cargo fmt --check', 'cargo test'], 'Diff in src/main.rs:3:')).toBe(-1);
    expect(andChain('cd web && npm run lint && npm run build && npm audit')).toBe(true);
    expect(andChain('npm run lint && npm test | tail -20')).toBe(false);
    expect(andChain('npm run lint; npm test')).toBe(false);
    expect(andChain('bash -c "npm run lint && npm test"')).toBe(false);
  });

  it('is the failure of the checks from the last one that started; those before it passed', () => {
    const l = initialState().ledger;
    ran(l, 10, 'npm run build', 1, 'error TS2304: Cannot find name x');
    ran(l, 20, 'npm run lint && npm run build && npm audit --audit-level=high', 1, NPM_OUT);
    // The build passed inside the chain: its own earlier failure is closed there.
    expect(l.failures.find((f) => f.line === 11)?.closedLine).toBe(21);
    const chain = l.failures.find((f) => f.line === 21);
    expect(chain?.keys).toEqual(['npm audit']);
    ran(l, 30, 'npm audit --audit-level=high', 0, 'found 0 vulnerabilities');
    expect(chain?.closedLine).toBe(31);
  });

  it("is each passed check's latest run in Verification, by its own step of the chain", () => {
    const st = initialState();
    noteRequest(st.ledger, 'ship the web app', 1, 'request');
    ran(st.ledger, 10, 'npm run build', 0, '✓ built in 89ms');
    ran(st.ledger, 20, 'npm run lint && npm run build && npm audit --audit-level=high', 1, NPM_OUT);
    const rows = analysed(st).checkTargets;
    const build = rows.find((r) => r.target === 'npm build');
    expect(build).toMatchObject({ line: 21, command: 'npm run build', outcome: 'pass', runs: 2 });
    expect(build?.summary).toBe('passed within `npm run lint && npm run build && npm audit --audit-level=high`: a later check of that `&&` chain started');
    expect(rows.find((r) => r.target === 'npm lint')).toMatchObject({ line: 21, command: 'npm run lint', outcome: 'pass', runs: 1 });
    // The chain's own row keeps its failure, and `checks[]` its one run.
    expect(rows.find((r) => r.target === 'npm lint + npm build + npm audit')?.outcome).toBe('fail');
    expect(st.ledger.checks.filter((c) => c.line === 21)).toHaveLength(1);
  });

  it('holds, when the output does not tell which failed, until each check has passed since', () => {
    const l = initialState().ledger;
    ran(l, 10, 'cargo fmt --all -- --check && cargo test', 1, 'error[E0425]: cannot find value `x` in this scope');
    ran(l, 20, 'cargo fmt --all -- --check', 0, '');
    expect(openFailures(l).map((f) => f.line)).toEqual([11]);
    ran(l, 30, 'cargo test', 0, 'test result: ok. 3 passed; 0 failed');
    expect(openFailures(l)).toEqual([]);
    expect(l.failures[0]?.closedLine).toBe(31);
  });
});

describe('several calls a permission rule denied', () => {
  it('are each named in the next action, not only the one denied last', () => {
    const l = initialState().ledger;
    const deny = (id: string, line: number, name: string, denied: string, command?: string) => {
      noteCall(l, command === undefined ? { id, name, line } : { id, name, line, command });
      noteResult(l, { id, line: line + 1, ok: false, denied });
    };
    noteRequest(l, 'which tools does claude -p have?', 1, 'request');
    deny('w', 5, 'WebSearch', 'Claude requested permissions to use WebSearch, but you have not granted it yet.');
    deny('b', 11, 'Bash', 'This command requires approval', 'claude -p "list your tools"');
    deny('r', 22, 'Read', 'Claude requested permissions to read from ~/.claude/CLAUDE.md, but you have not granted it yet.');
    noteAgentText(l, 'Every call I needed was blocked, so this answer comes from what I know.', 24);
    const st = initialState();
    st.ledger = l;
    const na = analysed(st).nextAction;
    expect(na.rule).toBe('open_failure');
    expect(na.text).toBe('The agent answered (line 24) without the 3 calls permission rules denied (line 6: WebSearch did not run: Claude requested permissions to use WebSearch, but you have not granted it yet; line 12: `claude -p "list your tools"`; line 23: Read did not run: Claude requested permissions to read from ~/.claude/CLAUDE.md, but you have not granted it …): nothing they would have shown is in that answer. To check it, ask the user to allow them; else wait for the user\'s next request');
  });
});

describe("a check a hook ran", () => {
  it('is a check, marked as the hook\'s in the Verification table and the payloads', () => {
    const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2025-07-05T19:52:23Z', isSidechain: false };
    const out = rendered(
      { ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'match the header colour to its items' } },
      { ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { role: 'assistant', content: [{ type: 'text', text: 'The header colour now matches.' }] } },
      { ...base, type: 'system', uuid: 'h1', parentUuid: 'a1', toolUseID: 'hook-1', level: 'info', isMeta: false, content: '\u001b[1mStop\u001b[22m [uv run pytest 2>&1] completed successfully: ============================= 138 passed in 43.89s =============================' },
    );
    expect(out.handoffMd).toMatch(/\| `uv run pytest 2>&1` \(run by a hook\) \| passed \| line 3/);
    const summary = JSON.parse(out.summaryJson.toString('utf8')) as { checks: { by?: string }[] };
    expect(summary.checks).toHaveLength(1);
    expect(summary.checks[0]?.by).toBe('hook');
  });
});

describe("the quality gate's reading of HANDOFF.md", () => {
  it('takes a `## ` line inside a fenced block for text, not a heading', () => {
    const md = ['---', 'schema: handoff/v1', '---', '# Handoff: s', '', '## State right now (verbatim tail)', '', '````text', '## Recommendations', '```', 'still quoted', '```', '````', '', '**How it ended: done** (line 33)', '', '## Next Action', '', 'Wait.'].join('\n');
    const s = sections(md);
    expect([...s.keys()]).toEqual(['State right now (verbatim tail)', 'Next Action']);
    expect(s.get('State right now (verbatim tail)')).toMatch(/## Recommendations[\s\S]*still quoted[\s\S]*\*\*How it ended: done\*\* \(line 33\)$/);
  });

  it('passes a handoff whose last message is Markdown with headings of its own', () => {
    const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
    const out = rendered(
      { ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'Summarise the packaging setup.' } },
      { ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { role: 'assistant', content: [{ type: 'text', text: '## Project Structure Summary\n\nOne script.\n\n## Recommendations\n\nRename it.' }] } },
    );
    expect(out.handoffMd).toContain('## Recommendations');
    expect(out.gate.failed).toEqual([]);
  });
});

describe("a subagent's handoff", () => {
  it('names the files its task named as such, not as files the user pointed at', () => {
    const base = { sessionId: 's', cwd: '/w', timestamp: '2026-04-26T10:00:00Z' };
    const r = renderInput(transcriptFile(
      { ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'Read docs/spec.md and list its rules.' } },
      { ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/w/docs/spec.md' } }] } },
      { ...base, type: 'user', uuid: 'u2', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '     1\t# Spec\n     2\t- rule 1: keep the build under 5 MB' }] } },
    ));
    expect(renderAll(r).handoffMd).toContain('### Files the user pointed at');
    r.parentSession = 'p';
    const md = renderAll(r).handoffMd;
    expect(md).toContain('### Files its task named');
    expect(md).not.toContain('Files the user pointed at');
  });
});

describe('a claim that checks pass, after the code changed since they ran', () => {
  const claimOn = (claim: string, lastEdit: string): ReturnType<typeof analysed> => {
    const st = initialState();
    const l = st.ledger;
    noteRequest(l, 'make the team sheet load', 1, 'request');
    ran(l, 10, 'pnpm lint', 0, 'No lint errors');
    ran(l, 12, 'pnpm test', 0, 'Tests 7 passed (7)');
    noteCall(l, { id: 'w', name: 'Edit', line: 20, writes: [{ path: lastEdit, how: 'edit' }] });
    noteResult(l, { id: 'w', line: 21, ok: true });
    ran(l, 30, 'pnpm check-types', 0, '');
    noteAgentText(l, claim, 40);
    return analysed(st);
  };

  it('is flagged by the check it names that last ran before the change', () => {
    const a = claimOn('All three checks are green:\n- `pnpm lint`\n- `pnpm test`\n- `pnpm check-types`', '/w/src/TeamSheet.tsx');
    // Both stale runs are named (lint was as stale as test), and the claim is stale, not contradicted.
    expect(a.contradictions).toEqual([
      { claim_line: 40, evidence_line: 21, stale: true, text: 'The agent said «All three checks are green:», but TeamSheet.tsx changed (line 21) after the latest `pnpm test` (line 13), and it did not run again before the claim; nor did `pnpm lint` (line 11), older still' },
    ]);
  });

  it('counts every file (not a document) that changed since the check, naming the latest', () => {
    const st = initialState();
    const l = st.ledger;
    noteRequest(l, 'make the team sheet load', 1, 'request');
    ran(l, 12, 'pnpm test', 0, 'Tests 7 passed (7)');
    ['/w/src/a.ts', '/w/src/b.ts', '/w/README.md', '/w/src/TeamSheet.tsx'].forEach((path, i) => {
      noteCall(l, { id: `w${i}`, name: 'Edit', line: 20 + i * 2, writes: [{ path, how: 'edit' }] });
      noteResult(l, { id: `w${i}`, line: 21 + i * 2, ok: true });
    });
    noteAgentText(l, 'All tests pass.', 40);
    expect(analysed(st).contradictions.map((c) => c.text)).toContain('The agent said «All tests pass.», but 3 files changed (the latest, TeamSheet.tsx, at line 27) after the latest `pnpm test` (line 13), and it did not run again before the claim');
  });

  it('is not flagged when the checks it names ran since, or only a document changed', () => {
    expect(claimOn('Type checks are green.', '/w/src/TeamSheet.tsx').contradictions).toEqual([]);
    expect(claimOn('All three checks are green: lint, tests, types.', '/w/README.md').contradictions).toEqual([]);
  });

  it('reads the checks it names from its sentence and the list after it, not from the rest of the message', () => {
    expect(claimOn('All checks are green.\n\nNext I will add tests for the lexer.', '/w/src/TeamSheet.tsx').contradictions).toEqual([]);
  });
});
