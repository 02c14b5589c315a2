import { describe, expect, it } from 'vitest';
import { compactionParts } from '../../src/core/compaction.js';
import { decideOutcome } from '../../src/core/outcome.js';
import { base, call, edit, result, say, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/**
 * Rules from the twenty-seventh reading (docs/FIDELITY.md): six sessions cut in the middle, each
 * handoff read alone, then against its transcript.
 */

const ask = (text: string) => user('u1', text);
/** A `###` section of HANDOFF.md, up to the next heading. */
const sub = (md: string, title: string): string => md.split(`### ${title}`)[1]?.split(/\n#{2,3} /)[0]?.trim() ?? '';
const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });

describe('a `git -C <folder> status` (FundWise: the session never ran git without -C)', () => {
  const listing = ' M DECISIONS.md\n M ROADMAP.md\n?? docs/adr/0021-gtm.md\n---\n88bf269 docs(status): add agent handoff queue';
  const wrote = [ask('Write the ADRs'), edit('e1', 'ROADMAP.md'), updated('e1', 'ROADMAP.md'), say('a1', 'Written.')];

  it('is the listing of the session folder when -C names it', () => {
    const { md, summary } = built<{ session_git: { uncommitted_listed: { line: number; paths: string[]; untracked?: number } | null } }>(...wrote, bash('g1', 'git -C /nonexistent/w status --short && echo "---" && git -C /nonexistent/w log --oneline -5'), result('g1', listing));
    expect(summary.session_git.uncommitted_listed).toEqual(expect.objectContaining({ line: 6, paths: ['DECISIONS.md', 'ROADMAP.md', 'docs/adr/0021-gtm.md'], untracked: 1 }));
    expect(md).toContain('listed 3 uncommitted file(s), 1 of them untracked');
    expect(md).toContain('began with `88bf269` «docs(status): add agent handoff queue»');
  });

  it('reads the paths of a folder below the session folder from there', () => {
    const { summary } = built<{ session_git: { uncommitted_listed: { paths: string[] } | null } }>(...wrote, bash('g1', 'git -C web status --short'), result('g1', ' M src/app.ts'));
    expect(summary.session_git.uncommitted_listed?.paths).toEqual(['/nonexistent/w/web/src/app.ts']);
  });

  it('is no listing of the session when -C names another repository', () => {
    const { summary } = built<{ session_git: { uncommitted_listed: unknown } }>(...wrote, bash('g1', 'git -C /srv/other-repo status --short'), result('g1', ' M lib.rs'));
    expect(summary.session_git.uncommitted_listed).toBeNull();
  });

  it('and git options with their values (-c, --no-pager) are no subcommand either', () => {
    const { summary } = built<{ session_git: { uncommitted_listed: { paths: string[] } | null } }>(...wrote, bash('g1', 'git -c color.status=false --no-pager status --short'), result('g1', ' M ROADMAP.md'));
    expect(summary.session_git.uncommitted_listed?.paths).toEqual(['ROADMAP.md']);
  });
});

/** Claude Code's compaction: its boundary line, then the summary as a user line. */
const boundary = { ...base, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', uuid: 'cb', compactMetadata: { trigger: 'auto', preTokens: 167766 } };
const summaryLine = (text: string) => ({ ...base, type: 'user', uuid: 'cs', isCompactSummary: true, isVisibleInTranscriptOnly: true, message: { role: 'user', content: text } });
const SUMMARY = [
  'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.',
  '',
  'Summary:',
  '1. Primary Request and Intent:',
  '   Build the impact dashboard.',
  '',
  '7. Pending Tasks:',
  '   - Task #2 (in_progress): Wait for the data fetch to complete (chunk 7 of 13)',
  '   - After fetch completes: run `python src/analyze.py`, commit data/scores.json and push',
  '',
  '8. Current Work:',
  '   The background fetcher (task `btkze6lgq`) is running `python -u src/fetch.py`.',
  '',
  '9. Optional Next Step:',
  '   Wait for the fetcher to finish, then run `python src/analyze.py` and push data/scores.json.',
  '',
  'If you need specific details from before compaction (like exact code snippets), read the full transcript at: /home/u/.claude/projects/x.jsonl',
  'Continue the conversation from where it left off without asking the user any further questions.',
].join('\n');

describe('the summary Claude Code has the agent write when it compacts (posthog: «ok 開始» was the request)', () => {
  it('gives its pending tasks, current work and next step, without the instructions after them or the indentation their lines share', () => {
    expect(compactionParts(SUMMARY)).toEqual({
      pending: '- Task #2 (in_progress): Wait for the data fetch to complete (chunk 7 of 13)\n- After fetch completes: run `python src/analyze.py`, commit data/scores.json and push',
      current: 'The background fetcher (task `btkze6lgq`) is running `python -u src/fetch.py`.',
      next: 'Wait for the fetcher to finish, then run `python src/analyze.py` and push data/scores.json.',
    });
    expect(compactionParts('Summary of prior context.')).toBeNull();
    expect(compactionParts('Analysis:\nThe user asked about the next step in the pipeline.')).toBeNull();
  });

  const session = [ask('ok 開始'), bash('b1', 'python src/fetch.py'), result('b1', 'chunk 6 of 13'), boundary, summaryLine(SUMMARY), bash('b2', 'tail -3 fetch.log'), result('b2', 'chunk 8 of 13')];

  it('is quoted where the session was still working on the request it followed', () => {
    const { md, llm } = built<{ compaction_summary: Record<string, unknown> }>(...session);
    const next = md.split('## Next Action\n')[1] ?? '';
    expect(next).toContain('The summary the agent wrote when the conversation was compacted (line 5) named its next step: «Wait for the fetcher to finish, then run `python src/analyze.py` and push data/scores.json.»; the session went on to line 7 after it, so part of it may be done');
    const left = sub(md, 'What the compaction summary said was left (line 5)');
    expect(left).toContain('its next step is quoted under Next Action');
    expect(left).toContain('**Pending tasks**\n\n```text\n- Task #2 (in_progress): Wait for the data fetch to complete (chunk 7 of 13)\n- After fetch completes:');
    expect(left).toContain('**Current work**');
    expect(left).not.toContain('**Next step**');
    expect(llm.compaction_summary).toEqual(expect.objectContaining({ line: 5, request_after_line: null }));
    expect(String(llm.compaction_summary.next_step)).toContain('Wait for the fetcher to finish');
  });

  it('gives way to a request typed after it (the payloads say where it was)', () => {
    const { md, summary } = built<{ compaction_summary: { request_after_line: number } }>(...session, user('u2', 'Stop the fetch, the data is enough'), bash('b3', 'kill %1'));
    expect(summary.compaction_summary.request_after_line).toBe(8);
    expect(md.split('## Next Action\n')[1]?.split('\n## ')[0]).not.toContain('compacted');
    expect(md).not.toContain('What the compaction summary said');
  });

  it("is not a subagent's: a side-chain compaction inside the session's transcript leaves it as it was", () => {
    const side = { ...summaryLine('7. Pending Tasks:\n   - the subagent\'s own task'), uuid: 'cs2', isSidechain: true };
    const { llm } = built<{ compaction_summary: { line: number; pending: string } }>(...session, { ...boundary, uuid: 'cb2', isSidechain: true }, side);
    expect(llm.compaction_summary).toEqual(expect.objectContaining({ line: 5, pending: expect.stringContaining('Task #2') }));
  });

  it('is dropped by a later compaction that wrote none', () => {
    const { md, summary } = built<{ compaction_summary?: unknown }>(...session, { ...boundary, uuid: 'cb2' });
    expect(summary.compaction_summary).toBeUndefined();
    expect(md).not.toContain('What the compaction summary said');
  });
});

describe('a search that found nothing (FundWise, raze)', () => {
  it('opening an `&&` chain that printed nothing is no failure', () => {
    const { md, summary } = built<{ open_failures: unknown[]; passed_over: unknown[] }>(ask('Check the package manager'), bash('g1', 'grep -E "packageManager" package.json && echo "---" && ls .npmrc pnpm-lock.yaml 2>&1 | head'), result('g1', 'Exit code 1', { is_error: true }), say('a1', 'No packageManager field.'));
    expect(summary.open_failures).toEqual([]);
    expect(summary.passed_over).toEqual([]);
    expect(md).not.toContain('failed (exit 1)');
  });

  it('but one that printed something, or a later step that could have failed, still is', () => {
    const { summary } = built<{ open_failures: { line: number }[]; passed_over: { line: number }[] }>(ask('Check'), bash('g1', 'grep -q x package.json && cat missing.txt'), result('g1', 'Exit code 1\ncat: missing.txt: No such file or directory', { is_error: true }), say('a1', 'Done.'));
    expect([...summary.open_failures, ...summary.passed_over].map((f) => f.line)).toContain(3);
  });

  it('is said so in the recent timeline, not marked ✗', () => {
    const { md } = built(ask('Is the method there?'), bash('g1', 'rg -n "get_image_embedding_and_usage" libs/embedder/aws_bedrock.py'), result('g1', 'Exit code 1', { is_error: true }), say('a1', 'Not in Bedrock.'));
    expect(md).toContain('| 3 | TOOL | [Bash: exit 1, found nothing] Exit code 1 |');
    expect(md).not.toContain('[Bash ✗]');
  });
});

describe("a failed command's quoted line, when no line of its output says error", () => {
  it('is the last it printed, where it stopped (FundWise: node\'s version, then pnpm\'s refusal)', () => {
    const { md } = built(ask('Check the tools'), bash('v1', 'node --version && pnpm --version 2>&1'), result('v1', 'Exit code 1\nv22.16.0\nThis project is configured to use yarn because /home/u/package.json has a "packageManager" field', { is_error: true }));
    expect(md).toContain('`node --version && pnpm --version 2>&1` failed (exit 1): This project is configured to use yarn because /home/u/package.json has a "packageManager" field (its last line of output; 1 before it)');
  });
});

describe('a check the latest request names (FundWise: «run pnpm build, commit the feature separately»)', () => {
  const request = user('u2', 'Pick up FW-005. Add the readiness demo, run pnpm build, commit the feature separately, then update `STATUS.md`.');

  it('is under Checks Not Run until a run of it follows the request', () => {
    const { md } = built(ask('Write the ADRs'), edit('e1', 'docs/adr/0021.md'), updated('e1', 'docs/adr/0021.md'), request, edit('e2', 'scripts/readiness.mjs'), updated('e2', 'scripts/readiness.mjs'));
    expect(sub(md, 'Checks Not Run')).toContain('*inferred* `pnpm build`, which the latest request (line 4) asks for, has not run since it');
  });

  it('and not once it ran', () => {
    const { md } = built(request, edit('e2', 'scripts/readiness.mjs'), updated('e2', 'scripts/readiness.mjs'), bash('b1', 'pnpm build 2>&1 | tail -5'), result('b1', 'Compiled successfully'));
    expect(sub(md, 'Checks Not Run')).not.toContain('asks for');
  });

  it('and not one the request asks not to run', () => {
    const { md } = built(user('u2', "Fix the header. Don't run pnpm build, it takes ages; no need to run pytest either."), edit('e1', 'src/header.tsx'), updated('e1', 'src/header.tsx'));
    expect(sub(md, 'Checks Not Run')).not.toContain('asks for');
  });

  it('names checks only: "run the tests" and "run the server" name none', () => {
    const { md } = built(user('u2', 'Run the tests, then run the server on port 3000.'), say('a1', 'On it.'));
    expect(sub(md, 'Checks Not Run')).not.toContain('asks for');
  });
});

describe('files an approved plan named and the session did not write (deep-manifest cut at 214)', () => {
  const planCall = (id: string, plan: string) => call(id, 'ExitPlanMode', { plan });
  const approved = (id: string) => result(id, 'User has approved your plan. You can now start coding.');
  const TAR = '# Plan: Add Tar Archive Support\n\n## Files to Modify\n\n1. `deep_manifest.py` - tar handling\n2. `README.md` - document tar\n3. `tests/features/tar.feature` - BDD scenarios';
  const session = [ask('Support tar archives'), planCall('p1', TAR), approved('p1'), edit('e1', 'deep_manifest.py'), updated('e1', 'deep_manifest.py')];

  it('are work left, when the user approved the plan and asked for nothing since', () => {
    const { md } = built(...session, say('a1', 'Tar support is in.'));
    expect(md).toContain('The user approved the plan and has asked for nothing else since: they are work left to do, unless the user drops them.');
    expect(md).not.toContain('Ask the user whether they are still wanted');
  });

  it('and a question for the user once a later request may have dropped them', () => {
    const { md } = built(...session, user('u2', 'Skip the docs for now, just make the code faster'), say('a1', 'Done.'));
    expect(md).toContain('Ask the user whether they are still wanted, or do them.');
  });
});

describe('a transcript that ends on the step the agent announced (deep-manifest: «Let me also run ruff…:»)', () => {
  it('names that step in the Next Action', () => {
    const { md } = built(ask('Support tar archives'), edit('e1', 'deep_manifest.py'), updated('e1', 'deep_manifest.py'), bash('t1', 'pytest'), result('t1', '66 passed'), say('a1', '100% coverage achieved! Let me also run ruff to make sure the code passes linting:'));
    const next = md.split('## Next Action\n')[1]?.split('\n## ')[0] ?? '';
    expect(next).toContain('Its last message (line 6) announced the step it was about to take, which the transcript does not hold: «100% coverage achieved! Let me also run ruff to make sure the code passes linting:»');
  });
});

describe('subagents a session named and messaged (worktrees: round 2 sent to three agents whose reports had come back)', () => {
  const launch = (id: string, name: string) => call(id, 'Agent', { description: `Research ${name}`, subagent_type: 'general-purpose', name, isolation: 'worktree', prompt: `You are ${name}.` });
  const report = (id: string, agentId: string) => ({ ...result(id, 'Done. Round 1 complete.'), toolUseResult: { status: 'completed', agentId } });
  const message = (id: string, to: string) => call(id, 'SendMessage', { to, summary: 'round 2', message: 'Round 2 — go.' });
  const sent = (id: string, to: string) => result(id, JSON.stringify({ success: true, message: `Message sent to ${to}'s inbox`, routing: { sender: 'team-lead', target: `@${to}` } }));

  it('says each by name and agent id, and the messages sent after its report with what the call answered', () => {
    const { md, llm } = built<{ subagents: { launched: { name?: string; messages?: unknown[] }[] } }>(ask('Run the teammate experiment'), launch('t1', 'alice'), report('t1', 'a4ca7529859c158c2'), message('m1', 'alice'), sent('m1', 'alice'), say('a1', 'Round 2 dispatched. Waiting for their replies.'));
    expect(sub(md.replace('## Subagents', '### Subagents'), 'Subagents')).toContain("launched (line 2) `alice`: Research alice (agent id `a4ca7529859c158c2`) — its report came back (line 3); messaged after it: line 4 (to `alice`): «Message sent to alice's inbox» — sent after its report had come back (what it did with them is in its own transcript, not this one)");
    expect(llm.subagents.launched[0]).toEqual(expect.objectContaining({ name: 'alice', messages: [{ line: 4, result: "Message sent to alice's inbox", ok: true }] }));
  });

  it("says where its report said to continue it, when the messages went elsewhere", () => {
    const hinted = (id: string, agentId: string) => ({ ...result(id, `Done. Round 1 complete.\n\nagentId: ${agentId} (use SendMessage with to: '${agentId}' to continue this agent)`), toolUseResult: { status: 'completed', agentId } });
    const { md } = built(ask('Run the teammate experiment'), launch('t1', 'alice'), hinted('t1', 'a4ca7529859c158c2'), message('m1', 'alice'), sent('m1', 'alice'));
    expect(md).toContain("its report said to continue it by a message to `a4ca7529859c158c2`; messaged after it: line 4 (to `alice`)");
    const { md: right } = built(ask('Run the teammate experiment'), launch('t1', 'alice'), hinted('t1', 'a4ca7529859c158c2'), message('m1', 'a4ca7529859c158c2'), sent('m1', 'a4ca7529859c158c2'));
    expect(right).toContain("— its report came back (line 3); messaged after it: line 4: «Message sent to a4ca7529859c158c2's inbox»");
  });

  it('and a message to another name is not its', () => {
    const { llm } = built<{ subagents: { launched: { messages?: unknown[] }[] } }>(ask('Run it'), launch('t1', 'alice'), report('t1', 'a4ca7529859c158c2'), message('m1', 'bob'), sent('m1', 'bob'));
    expect(llm.subagents.launched[0]?.messages).toBeUndefined();
  });
});

describe("a CI run's verdict (act), claude-code-log fe869ecb at 44", () => {
  const log = (steps: string) => `[CI/test-1] ⭐ Run Main Type check\n${steps}[CI/test-1]   ✅  Success - Complete job\n[CI/test-1] 🏁  Job succeeded\n[CI/test-2]   ✅  Success - Complete job\n[CI/test-2] 🏁  Job succeeded`;

  it('says a step allowed to fail failed, and that every job succeeded', () => {
    const d = decideOutcome('test', 0, true, log('[CI/test-1]   | 17 errors, 0 warnings, 0 informations\n[CI/test-1]   ❌  Failure - Main Type check (continue-on-error)\n'));
    expect(d).toEqual({ outcome: 'fail', line: '[CI/test-1]   | 17 errors, 0 warnings, 0 informations — in a step allowed to fail: every job succeeded (all 2)' });
  });

  it('passes with all its jobs when no step failed', () => {
    expect(decideOutcome('test', 0, true, log('[CI/test-1]   | 63 passed in 1.2s\n'))).toEqual({ outcome: 'pass', line: '[CI/test-2] 🏁  Job succeeded (all 2 jobs succeeded)' });
  });
});

describe('a turn closed while a Monitor the agent waits on still runs (posthog cut at 1050: «Waiting.»)', () => {
  const monitor = [ask('Fetch the data'), call('m1', 'Monitor', { command: 'python -u src/fetch.py', description: 'fetch' }), result('m1', 'Monitor started (task btkze6lgq, timeout 900000ms).')];
  const notice = (uuid: string, event: string) => ({ type: 'queue-operation', operation: 'enqueue', timestamp: '2026-04-26T10:01:00Z', sessionId: 's', uuid, content: `<task-notification>\n<task-id>btkze6lgq</task-id>\n<event>${event}</event>\n</task-notification>` });

  it('is mid-work, with the job and its last progress', () => {
    const { md, summary } = built<{ end: { kind: string } }>(...monitor, notice('n1', 'chunk 11 of 13'), say('a1', 'Waiting.'));
    expect(summary.end.kind).toBe('mid-work');
    expect(md).toContain("**How it ended: mid-work** (line 5) — *inferred*: the agent's last message closes its turn while the Monitor job btkze6lgq it waits on has no end recorded (last progress at line 4: «chunk 11 of 13»; it stops by itself at 2026-04-26T10:15:00Z (the timeout its start gave), done or not)");
  });

  it('and done once its timeout passed before the transcript ends', () => {
    const late = { ...say('a1', 'Waiting.'), timestamp: '2026-04-26T10:20:00Z' };
    const { summary } = built<{ end: { kind: string } }>(...monitor, notice('n1', 'chunk 11 of 13'), late);
    expect(summary.end.kind).toBe('done');
  });

  it('and done once the job ended', () => {
    const { summary } = built<{ end: { kind: string } }>(...monitor, { ...notice('n1', 'ALL DONE'), content: '<task-notification>\n<task-id>btkze6lgq</task-id>\n<status>completed</status>\n<summary>done</summary>\n</task-notification>' }, say('a1', 'The fetch finished.'));
    expect(summary.end.kind).toBe('done');
  });
});

describe("the agent's messages said again and again (posthog cut at 1000: «Waiting.» on every notification)", () => {
  it('are one row with their lines and count', () => {
    const { md } = built(ask('Fetch the data'), say('a0', 'Started the fetch in the background.'), say('a1', 'Waiting.'), say('a2', 'Waiting.'), say('a3', 'Waiting.'));
    const reported = md.split('## What the agent reported\n')[1]?.split('\n## ')[0] ?? '';
    expect(reported).toContain('- line 2 — Started the fetch in the background.\n- lines 3–5 (3 times, the same words) — Waiting.');
  });
});
