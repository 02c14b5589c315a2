import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { LIMITS } from '../../src/core/state.js';
import { destroys, gitLogTop, pushesInOutput } from '../../src/core/shell.js';
import { built as builtPayloads } from './ledger-helper.js';

/**
 * Rules from the seventh reading (docs/FIDELITY.md): what HANDOFF.md said and the summary did not
 * (API errors and interruptions), and the plan the user approved.
 */

const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
const user = (uuid: string, content: unknown): Record<string, unknown> => ({ ...base, type: 'user', uuid, message: { role: 'user', content } });
const agent = (uuid: string, content: unknown[]): Record<string, unknown> => ({ ...base, type: 'assistant', uuid, message: { role: 'assistant', content } });
const planCall = (id: string, plan: string): Record<string, unknown> => agent(`a-${id}`, [{ type: 'tool_use', id, name: 'ExitPlanMode', input: { plan } }]);
const planResult = (id: string, text: string, isError = false): Record<string, unknown> => user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content: text, ...(isError ? { is_error: true } : {}) }]);
/** A Bash call at one line and its result at the next. */
const bash = (id: string, command: string, output: string): Record<string, unknown>[] => [
  agent(`c-${id}`, [{ type: 'tool_use', id, name: 'Bash', input: { command } }]),
  user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content: output }]),
];
const APPROVED = (saved: string): string => `User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\nYour plan has been saved to: ${saved}\nYou can refer back to it if needed during implementation.\n\n## Approved Plan:\n# Plan`;
const REJECTED = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

interface Payload {
  plan: { line: number; text: string; chars?: number; approved: boolean | null; result_line: number | null; answer: string | null; saved_to: string | null; approved_before?: { line: number } | null } | null;
  incidents: { kind: string; line: number; text: string; label: string }[];
}


const built = (...records: Record<string, unknown>[]) => builtPayloads<Payload>(...records);

const PLAN = '# Plan: Add tar support\n\n## Steps\n\n1. Detect `.tar` and `.tgz`\n2. Extract members\n3. Run `pytest`';

describe('an interruption or API error the agent has not answered', () => {
  it('is in the summary (incidents, by transcript line) as HANDOFF.md lists it among the open failures', () => {
    const { md, summary, llm } = built(user('u1', 'Fix the flaky test'), { ...base, type: 'assistant', uuid: 'e1', isApiErrorMessage: true, message: { role: 'assistant', content: [{ type: 'text', text: 'API Error: Rate limit exceeded' }] } });
    expect(md).toContain('- *verified* API error (line 2): API Error: Rate limit exceeded');
    expect(summary.incidents).toEqual([{ kind: 'api_error', line: 2, text: 'API Error: Rate limit exceeded', label: 'verified' }]);
    expect(llm.incidents).toEqual(summary.incidents);
  });

  it('is not there once the agent has answered since', () => {
    const { summary } = built(
      user('u1', 'Fix the flaky test'),
      { ...base, type: 'assistant', uuid: 'e1', isApiErrorMessage: true, message: { role: 'assistant', content: [{ type: 'text', text: 'API Error: Rate limit exceeded' }] } },
      agent('a2', [{ type: 'text', text: 'Retrying: the test is fixed now.' }]),
    );
    expect(summary.incidents).toEqual([]);
  });
});

describe('a plan put to the user (ExitPlanMode)', () => {
  it('approved: HANDOFF.md shows it under Current State, with the approval and where Claude Code saved it', () => {
    const { md, summary, llm } = built(user('u1', 'Plan tar support'), planCall('p1', PLAN), planResult('p1', APPROVED('/home/u/.claude/plans/tar.md')));
    expect(md).toContain('## Current State\n\n### Plan\n\n*reported* — the latest plan the agent put to the user (line 2), approved by the user (line 3); Claude Code saved it to `/home/u/.claude/plans/tar.md`. What it set out to do is not proof that it was done: the task list, the checks and the files changed say what was.\n\n```text\n# Plan: Add tar support\n');
    expect(summary.plan).toEqual({ label: 'reported', line: 2, text: PLAN, approved: true, result_line: 3, answer: null, saved_to: '/home/u/.claude/plans/tar.md' });
    expect(llm.plan?.approved_before).toBeNull();
    // Its headings are the plan's, inside the fence: HANDOFF.md's sections are unchanged.
    expect([...sections(md).keys()]).not.toContain('Steps');
  });

  it('rejected: not approved, with what the user said, and the plan approved before it named', () => {
    const { md, summary, llm } = built(
      user('u1', 'Plan tar support'),
      planCall('p1', PLAN),
      planResult('p1', APPROVED('/home/u/.claude/plans/tar.md')),
      planCall('p2', '# Plan: also zip'),
      planResult('p2', `${REJECTED}\n\nThe user provided the following reason for the rejection: keep zip out of it`, true),
    );
    expect(summary.plan?.approved).toBe(false);
    expect(summary.plan?.line).toBe(4);
    expect(summary.plan?.answer).toBe('rejected by the user: keep zip out of it');
    expect(md).toContain('(line 4), not approved (line 5), a refusal with the words «keep zip out of it»');
    expect(md).toContain("The plan approved before it (line 2, approved at line 3) is HANDOFF.llm.json's `plan.approved_before`.");
    expect(llm.plan?.approved_before?.line).toBe(2);
  });

  it('awaiting an answer, or answered by a result that does not approve it, is never called approved', () => {
    expect(built(user('u1', 'Plan it'), planCall('p1', PLAN)).summary.plan).toMatchObject({ approved: null, result_line: null });
    const { summary, md } = built(user('u1', 'Plan it'), planCall('p1', PLAN), planResult('p1', 'Exit plan mode? The user chose to keep planning.'));
    expect(summary.plan).toMatchObject({ approved: null, result_line: 3, answer: 'Exit plan mode? The user chose to keep planning.' });
    expect(md).toContain('its result (line 3) does not say it was approved');
  });

  it('says when the user wrote again after it', () => {
    const { md } = built(user('u1', 'Plan tar support'), planCall('p1', PLAN), planResult('p1', APPROVED('/p.md')), user('u2', 'Actually, do zip first'));
    expect(md).toContain('The user wrote again after it (line 4): it may be out of date.');
  });

  it('says when the user first wrote again after it, and how many requests came since', () => {
    const { md } = built(user('u1', 'Plan tar support'), planCall('p1', PLAN), planResult('p1', APPROVED('/p.md')), user('u2', 'Actually, do zip first'), user('u3', 'And update the readme'));
    expect(md).toContain('The user wrote again after it (line 4, and 1 more request(s) up to line 5): it may be out of date.');
  });

  it('shows a long plan as its outline: every heading and list item, so the files and steps it names stay in view', () => {
    const steps = Array.from({ length: 12 }, (_, i) => `${i + 1}. Step ${i + 1}: ${'change the archive reader carefully and test it. '.repeat(3)}`).join('\n');
    const long = `# Plan: tar support\n\n## Overview\n\n${'Prose that explains the approach at length. '.repeat(20)}\n\n\`\`\`\n- not an item: code\n\`\`\`\n\n## Steps\n\n${steps}\n\n## Files to Modify\n\n- \`README.md\` - Document tar support`;
    expect(long.length).toBeGreaterThan(1500);
    const { md, summary, llm } = built(user('u1', 'Plan it'), planCall('p1', long), planResult('p1', APPROVED('/p.md')));
    expect(md).toContain('```text\n# Plan: tar support\n## Overview\n## Steps\n1. Step 1: ');
    expect(md).toContain('\n## Files to Modify\n- `README.md` - Document tar support\n```');
    const section = md.slice(md.indexOf('### Plan'), md.indexOf('## What the agent reported'));
    expect(section).not.toContain('not an item: code');
    expect(section).not.toContain('Prose that explains');
    expect(md).toContain(`Its headings and list items (the plan is ${long.length} characters; HANDOFF.llm.json's \`plan\` holds the whole).`);
    expect(summary.plan?.text).toHaveLength(1500);
    expect(summary.plan?.chars).toBe(long.length);
    expect(llm.plan?.text).toBe(long);
  });

  it('shows a long plan with no structure as its head, and says how much the payloads hold', () => {
    const long = 'Step: do the next thing carefully. '.repeat(200).trim();
    const { md, summary, llm } = built(user('u1', 'Plan it'), planCall('p1', long), planResult('p1', APPROVED('/p.md')));
    expect(md).toContain(`Its first 1499 of ${long.length} characters; HANDOFF.llm.json's \`plan\` holds its first ${LIMITS.PLAN_CHARS - 1} (the whole is in the transcript).`);
    expect(summary.plan?.chars).toBe(long.length);
    expect(llm.plan?.text).toHaveLength(LIMITS.PLAN_CHARS);
  });

  it('shows a short plan whole, in a fence its backticks cannot close', () => {
    const { md } = built(user('u1', 'Plan it'), planCall('p1', '# Plan\n\n```\ncode\n```\n\n1. Run it'), planResult('p1', APPROVED('/p.md')));
    expect(md).toContain('````text\n# Plan\n\n```\ncode\n```\n\n1. Run it\n````');
  });

  it('names the drafts the user turned down before the latest', () => {
    const { md } = built(user('u1', 'Plan it'), planCall('p1', '# Plan A'), planResult('p1', REJECTED, true), planCall('p2', '# Plan B'), planResult('p2', APPROVED('/p.md')));
    expect(md).toContain('(line 4), approved by the user (line 5); Claude Code saved it to `/p.md`. Before it, the user refused the plan put at line 2 (line 3, a refusal).');
  });

  it('is null where no plan was put', () => {
    const { summary, md } = built(user('u1', 'Fix it'), agent('a1', [{ type: 'text', text: 'Fixed.' }]));
    expect(summary.plan).toBeNull();
    expect(md).not.toContain('### Plan');
  });
});

describe('a working directory the session moved', () => {
  const at = (cwd: string, uuid: string, content: unknown[], type = 'assistant'): Record<string, unknown> => ({ ...base, cwd, type, uuid, message: { role: type, content } });
  const session = (...cwds: string[]): ReturnType<typeof built> =>
    built(
      user('u1', 'Run the tests'),
      ...cwds.flatMap((cwd, i) => [at(cwd, `c${i}`, [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: 'cd test' } }]), at(cwd, `r${i}`, [{ type: 'tool_result', tool_use_id: `t${i}`, content: '' }], 'user')]),
    );
  type Git = { session_git: { recorded: { cwd: string }; cwd_moved: { began_in: string; line: number | null } | null } };

  it('says where it ended, from which line, and where it began (`cd test` persists between shell calls)', () => {
    const { md, summary } = session('/nonexistent/w', '/nonexistent/w/test');
    expect(md).toContain('*reported* — the working directory is `/nonexistent/w/test` from line 4 on (the session began in `/nonexistent/w`): later relative paths are relative to it.');
    const git = (summary as unknown as Git).session_git;
    expect(git.recorded.cwd).toBe('/nonexistent/w/test');
    expect(git.cwd_moved).toEqual({ began_in: '/nonexistent/w', line: 4 });
  });

  it('says nothing when it came back to where it began', () => {
    const { md, summary } = session('/nonexistent/w', '/nonexistent/w/.claude/worktrees/a', '/nonexistent/w');
    expect(md).not.toContain('the working directory is');
    expect((summary as unknown as Git).session_git.cwd_moved).toBeNull();
  });
});

describe("the repository Codex recorded the session's clone of", () => {
  const meta = (url: string): Record<string, unknown> => ({ timestamp: '2026-03-12T15:10:41Z', type: 'session_meta', payload: { id: 'c-1', cwd: '/nonexistent/agno', cli_version: '0.114.0', git: { commit_hash: 'c41a097bcd1a7cea5174883f1827226354fb94b5', branch: 'feat/multimodal-embedder', repository_url: url } } });
  const ask = { timestamp: '2026-03-12T15:11:00Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Review the multimodal embedder plan' }] } };
  type Recorded = { session_git: { recorded: { branch: string; repository_url: string | null } } };

  it('is named beside the recorded branch, and in the payloads', () => {
    const { md, summary } = built(meta('git@github.com:agno-agi/agno'), ask);
    expect(md).toContain('Recorded by the transcript: branch `feat/multimodal-embedder` (at commit `c41a097bcd1a` when the session started) in `/nonexistent/agno`, a clone of `git@github.com:agno-agi/agno` — *reported*.');
    expect((summary as unknown as Recorded).session_git.recorded).toMatchObject({ branch: 'feat/multimodal-embedder', repository_url: 'git@github.com:agno-agi/agno' });
  });

  it('never carries a credential the URL holds', () => {
    const token = `ghp_${'Zq8Xv2Lm9Rt4Wy7Kp3Nd6Hs1Jf5Gb0Tc2Ae'}`;
    const { md, summary, llm } = built(meta(`https://octo:${token}@github.com/agno-agi/agno.git`), ask);
    for (const text of [md, JSON.stringify(summary), JSON.stringify(llm)]) expect(text).not.toContain(token);
    expect((summary as unknown as Recorded).session_git.recorded.repository_url).toContain('github.com/agno-agi/agno.git');
  });
});

describe("the session's own listing of uncommitted files", () => {
  const write = (id: string, file: string): Record<string, unknown>[] => [
    agent(`c-${id}`, [{ type: 'tool_use', id, name: 'Write', input: { file_path: file, content: 'x = 1\n' } }]),
    user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content: `File created successfully at: ${file}` }]),
  ];

  it('is not said to follow a commit the session never made, and says what the session wrote after it', () => {
    const { md } = built(user('u1', 'Tidy the parser'), ...bash('b1', 'git diff --name-only', 'src/a.py\nsrc/b.py\n'), ...write('w1', '/nonexistent/w/src/c.py'));
    expect(md).toContain("*reported* — the session's latest `git status` or `git diff --name-only` (line 3) listed 2 uncommitted file(s): `src/a.py`, `src/b.py`. The session first wrote 1 other file(s) after it (Files changed below).");
  });

  it('tells a file written before it and missing from it from one written after, and counts a listed file written again as listed', () => {
    const { md } = built(
      user('u1', 'Tidy the parser'),
      ...write('w0', '/nonexistent/w/tests/test_new.py'),
      ...write('w1', '/nonexistent/w/src/a.py'),
      ...bash('b1', 'git diff --name-only', 'src/a.py\n'),
      ...write('w2', '/nonexistent/w/src/a.py'),
      ...write('w3', '/nonexistent/w/src/c.py'),
    );
    expect(md).toContain('listed 1 uncommitted file(s): `src/a.py`. The session first wrote 1 other file(s) after it (Files changed below). 1 file(s) it wrote before it are not in it: 1 new and untracked (`git diff` does not show them), or changed back.');
  });

  it('follows the last commit when the session made one', () => {
    const { md } = built(user('u1', 'Tidy the parser'), ...bash('b1', 'git commit -am "wip"', '[main abc1234] wip\n 1 file changed, 1 insertion(+)\n'), ...bash('b2', 'git status --short', ' M src/a.py\n'));
    expect(md).toContain("`git diff --name-only` (line 5), after its last commit, listed 1 uncommitted file(s): `src/a.py`.");
  });
});

describe("a commit's size, as git printed it", () => {
  type Commits = { commits: { hash: string; files?: number }[] };

  it('says how many files each commit changed, which may be more than the session wrote', () => {
    const out = '[master 17015f9] Add project docs\n 7 files changed, 412 insertions(+), 3 deletions(-)\n create mode 100644 AGENTS.md\n[master 70f2781] Mark corrupted archives\n 1 file changed, 9 insertions(+)\n';
    const { md, summary } = built(user('u1', 'Commit everything'), ...bash('b1', 'git add -A && git commit -m "Add project docs" && git commit --allow-empty -m "Mark corrupted archives"', out));
    expect(md).toContain('- `17015f9` Add project docs (line 3; 7 files changed) — not pushed');
    expect(md).toContain('- `70f2781` Mark corrupted archives (line 3; 1 file changed) — not pushed');
    expect((summary as unknown as Commits).commits.map((c) => c.files)).toEqual([7, 1]);
  });

  it('says nothing of it when git printed no summary', () => {
    const { md, summary } = built(user('u1', 'Commit'), ...bash('b1', 'git commit -q -m "wip"', '[main abc1234] wip\n'));
    expect(md).toContain('- `abc1234` wip (line 3) — not pushed');
    expect((summary as unknown as Commits).commits[0]).not.toHaveProperty('files');
  });
});

describe('a long last message', () => {
  it('is shown as its tail, saying how much of it, and where the whole is', () => {
    const report = `## Findings\n\n${'1. The embedder batches text only; media must embed one by one. '.repeat(50)}\n\nRecommended shape: keep text, add embedding inputs.`;
    const { md } = built(user('u1', 'Review the plan'), agent('a1', [{ type: 'text', text: report }]));
    const shown = /its last (\d+) of (\d+) characters \(the whole is that line of the transcript\)/.exec(md);
    expect(md).toContain("*reported* — the agent's last message (line 2); its last ");
    // The tail begins at a word: at most the bound, and not much less.
    expect(Number(shown?.[1])).toBeLessThanOrEqual(LIMITS.STATE_NOW_CHARS - 1);
    expect(Number(shown?.[1])).toBeGreaterThan(LIMITS.STATE_NOW_CHARS - 40);
    expect(Number(shown?.[2])).toBe(report.length);
    expect(md).toContain('Recommended shape: keep text, add embedding inputs.\n```');
  });

  it('is shown whole, with no such note, when it is short', () => {
    const { md } = built(user('u1', 'Review the plan'), agent('a1', [{ type: 'text', text: 'Looks fine.' }]));
    expect(md).toContain("*reported* — the agent's last message (line 2)\n");
  });
});

describe('files that held uncommitted changes before the session wrote them', () => {
  const edit = (id: string, file: string): Record<string, unknown>[] => [
    agent(`c-${id}`, [{ type: 'tool_use', id, name: 'Edit', input: { file_path: file, old_string: 'a', new_string: 'b' } }]),
    user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content: `The file ${file} has been updated.` }]),
  ];
  const DIFF = 'diff --git a/src/parser.py b/src/parser.py\nindex 1..2 100644\n--- a/src/parser.py\n+++ b/src/parser.py\n@@ -1 +1 @@\n-a\n+b\n';
  type Files = { files_changed: { path: string; dirty_before_line?: number }[]; next_action: { text: string } };

  it('are marked, and the advice to commit says a commit takes that work too', () => {
    const { md, summary } = built(user('u1', 'Explain the diff, then fix the parser'), ...bash('b1', 'git diff src/parser.py', DIFF), ...edit('e1', '/nonexistent/w/src/parser.py'), ...edit('e2', '/nonexistent/w/src/lexer.py'), agent('a9', [{ type: 'text', text: 'Done: the parser is fixed.' }]));
    expect(md).toContain('| edit (already uncommitted before the session: line 3) |');
    expect(md).toContain("; parser.py already held uncommitted changes before the session's first write (git's output at line 3): a commit of it takes that work too, so ask the user");
    const files = (summary as unknown as Files).files_changed;
    expect(files.find((f) => f.path.endsWith('parser.py'))?.dirty_before_line).toBe(3);
    expect(files.find((f) => f.path.endsWith('lexer.py'))).not.toHaveProperty('dirty_before_line');
  });

  it('are not read from a listing made after the first write, nor from a diff against another revision', () => {
    const after = built(user('u1', 'Fix the parser'), ...edit('e1', '/nonexistent/w/src/parser.py'), ...bash('b1', 'git status --short', ' M src/parser.py\n'));
    expect(after.md).not.toContain('already uncommitted before the session');
    const older = built(user('u1', 'Fix the parser'), ...bash('b1', 'git diff HEAD~1', DIFF), ...edit('e1', '/nonexistent/w/src/parser.py'));
    expect(older.md).not.toContain('already uncommitted before the session');
    const since = built(user('u1', 'Fix the parser'), ...bash('b1', 'git diff --name-only HEAD~1', 'src/parser.py\n'), ...edit('e1', '/nonexistent/w/src/parser.py'));
    expect(since.md).not.toContain('already uncommitted before the session');
  });
});

describe("the session's own git output, when the repository cannot be read now", () => {

  it("reads HEAD's commit only from a log that starts at HEAD", () => {
    expect(gitLogTop('git log --oneline -n 5', 'c566cc2 docs: timing\n0d982ca scaffold\n')).toEqual({ hash: 'c566cc2', subject: 'docs: timing' });
    expect(gitLogTop('git log --format=%h -1 HEAD', 'c566cc2 docs: timing\n')).toEqual({ hash: 'c566cc2', subject: 'docs: timing' });
    for (const cmd of ['git log --reverse --oneline | head -5', 'git log --oneline main', 'git log origin/main..HEAD --oneline', 'git log --all --oneline']) expect(gitLogTop(cmd, '0d982ca scaffold\n')).toBeNull();
  });

  it('names where its latest push went, gh repo create --push included', () => {
    const out = 'https://github.com/leo/posthog-impact-dashboard\nTo https://github.com/leo/posthog-impact-dashboard.git\n * [new branch]      HEAD -> main\nbranch \'main\' set up to track \'origin/main\'.\n';
    expect(pushesInOutput(out).map((u) => u.url)).toEqual(['https://github.com/leo/posthog-impact-dashboard.git']);
    expect(pushesInOutput('From github.com:a/b\n   1aaaaaa..2bbbbbb  main -> origin/main\n')).toEqual([]);
    const { md, summary } = built(user('u1', 'Publish it'), ...bash('b1', 'gh repo create posthog-impact-dashboard --public --source=. --push', out), agent('a9', [{ type: 'text', text: 'Published.' }]));
    expect(md).toContain('its latest push (line 3) went to `https://github.com/leo/posthog-impact-dashboard.git`');
    expect((summary as unknown as { session_git: { pushed_to: unknown } }).session_git.pushed_to).toEqual({ line: 3, url: 'https://github.com/leo/posthog-impact-dashboard.git' });
  });
});

describe('a session that switched models', () => {
  const said = (uuid: string, model: string, text: string): Record<string, unknown> => ({ ...base, type: 'assistant', uuid, message: { role: 'assistant', model, content: [{ type: 'text', text }] } });

  it('names each model with the line it first answered from; the front matter keeps the last', () => {
    const { md, summary } = built(user('u1', 'Plan the feature'), said('a1', 'claude-opus-4-5', 'Here is the plan.'), user('u2', 'Now build it'), said('a2', 'claude-sonnet-4-5', 'Built.'));
    expect(md).toContain('\nmodel: claude-sonnet-4-5\n');
    expect(md).toContain('- model: `claude-sonnet-4-5` from line 4 (before it: `claude-opus-4-5` from line 2) — *reported*');
    expect((summary as unknown as { models: unknown }).models).toEqual([{ model: 'claude-opus-4-5', line: 2 }, { model: 'claude-sonnet-4-5', line: 4 }]);
  });

  it('says nothing more with one model', () => {
    const { md, summary } = built(user('u1', 'Build it'), said('a1', 'claude-sonnet-4-5', 'Built.'), said('a2', 'claude-sonnet-4-5', 'Tested.'));
    expect(md).not.toContain('- model: ');
    expect((summary as unknown as { models: unknown }).models).toBeNull();
  });
});

describe('commands that destroy what the transcript cannot give back', () => {
  it('are told from commands that only look alike', () => {
    const yes: [string, string][] = [
      ['rm -rf .venv build dist', 'removed .venv build dist recursively'],
      ['cd app && rm -r node_modules', 'removed node_modules recursively'],
      ['git reset --hard HEAD~1', 'discarded uncommitted changes (git reset --hard)'],
      ['git clean -fdx', 'deleted untracked files (git clean)'],
      ['git checkout -- src/a.py', 'discarded changes to files (git checkout --)'],
      ['git restore src/a.py', 'discarded changes to files (git restore)'],
      ['git push --force-with-lease origin main', 'rewrote a remote branch (git push --force)'],
      ['git push origin +main', 'rewrote a remote branch (git push --force)'],
      ['git branch -D old', 'deleted a branch (git branch -D)'],
      ['git stash drop', 'deleted stashed changes (git stash drop/clear)'],
      ['uv cache clean', 'cleared the uv cache'],
      ['docker system prune -af', 'pruned Docker data'],
    ];
    for (const [cmd, what] of yes) expect(destroys(cmd)).toBe(what);
    for (const cmd of ['rm a.txt', 'rm -f a.txt', 'git reset HEAD a.py', 'git clean -n', 'git checkout main', 'git restore --staged a.py', 'git push origin main', 'git branch -d merged', 'git stash list', 'uv cache dir', 'echo "rm -rf /"', 'grep -r "git reset --hard" docs']) expect(destroys(cmd)).toBeNull();
  });

  it('are listed in Repository Evidence and the payloads, a failed one said to be failed', () => {
    const { md, summary } = built(user('u1', 'Reinstall the tool'), ...bash('b1', 'uv cache clean && uv tool install .', 'Removed 10.5GiB'), agent('c-b2', [{ type: 'tool_use', id: 'b2', name: 'Bash', input: { command: 'rm -rf build' } }]), user('r-b2', [{ type: 'tool_result', tool_use_id: 'b2', content: 'Exit code 1\nrm: build: Permission denied', is_error: true }]), agent('a9', [{ type: 'text', text: 'Reinstalled.' }]));
    expect(md).toContain('### Destructive commands\n\n*verified* — the session ran these, and what they removed or discarded cannot be brought back from the transcript: check before relying on it (a command\'s output at its line may say how much went):\n\n- line 2 (its result: line 3): cleared the uv cache — `uv cache clean && uv tool install .`');
    expect(md).toContain('- line 4 (its result: line 5): removed build recursively (the command failed: how much it did is not known)');
    expect((summary as unknown as { destroyed: unknown[] }).destroyed).toHaveLength(2);
  });
});
