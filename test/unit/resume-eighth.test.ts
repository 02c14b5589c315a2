import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { validator } from '../../src/store/schemas.js';
import { rendered } from './ledger-helper.js';

/**
 * Rules from the eighth reading (docs/FIDELITY.md): where unpushed commits go when no remote was
 * seen, and what the next action's label vouches for.
 */

const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
const user = (uuid: string, content: unknown): Record<string, unknown> => ({ ...base, type: 'user', uuid, message: { role: 'user', content } });
const agent = (uuid: string, content: unknown[]): Record<string, unknown> => ({ ...base, type: 'assistant', uuid, message: { role: 'assistant', content } });
/** A Bash call at one line and its result at the next. */
const bash = (id: string, command: string, output: string): Record<string, unknown>[] => [
  agent(`c-${id}`, [{ type: 'tool_use', id, name: 'Bash', input: { command } }]),
  user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content: output }]),
];

function built(...records: Record<string, unknown>[]): { md: string; summary: Record<string, unknown>; llm: Record<string, unknown> } {
  const r = rendered(...records);
  const summary = JSON.parse(r.summaryJson.toString('utf8')) as Record<string, unknown>;
  const llm = JSON.parse(r.llmJson.toString('utf8')) as Record<string, unknown>;
  expect(validator('handoff.summary')(summary)).toBe(true);
  expect(validator('handoff.llm')(llm)).toBe(true);
  return { md: r.handoffMd, summary, llm };
}

describe("the next action's label", () => {
  it('says a verified label vouches for the evidence, and the action is advice', () => {
    const { md } = built(user('u1', 'Commit the docs'), ...bash('b1', 'git commit -am "docs"', '[main 1b6c52f] docs\n 1 file changed'), agent('a1', [{ type: 'text', text: 'Committed.' }]));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toMatch(/^Push the 1 unpushed commit\(s\) once the user agrees/);
    expect(next).toContain('*verified* — rule: unpushed commits (line 3). What the rule rests on is verified; the action is advice drawn from it, not something the user asked for');
  });

  it('adds nothing to a label that is not verified', () => {
    const { md } = built(user('u1', 'What does the parser do with trailing commas?'), agent('a1', [{ type: 'text', text: 'It rejects them.' }]));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain('*inferred* — rule: nothing pending (line 2)');
    expect(next).not.toContain('advice');
  });
});

describe('a command the transcript records no result for', () => {
  const copy = "$latest = Get-ChildItem -Path \"$env:USERPROFILE\\.codex\\sessions\" -Recurse -Filter *.jsonl | Select-Object -First 1; Copy-Item -LiteralPath $latest.FullName -Destination (Join-Path (Get-Location) 'codex-session.jsonl') -Force";

  it('is named under How it ended, whole enough to see what it writes, and in both payloads', () => {
    const { md, summary, llm } = built(
      user('u1', 'Export the session log into the repo'),
      ...bash('b1', 'git status --short', ''),
      agent('c2', [{ type: 'tool_use', id: 'b2', name: 'Bash', input: { command: copy } }]),
      ...bash('b3', 'ls', 'README.md'),
    );
    const now = sections(md).get('State right now (verbatim tail)') ?? '';
    expect(now).toContain("No result is recorded for the command at line 4 (`$latest = Get-ChildItem");
    expect(now).toContain("'codex-session.jsonl') -Force`): whether it ran, and what it did, is not known");
    expect(summary.commands_without_result).toEqual([{ line: 4, command: copy }]);
    expect(llm.commands_without_result).toEqual(summary.commands_without_result);
  });

  it('counts several, naming the latest three', () => {
    const calls = ['a', 'b', 'c', 'd'].map((x) => agent(`c-${x}`, [{ type: 'tool_use', id: x, name: 'Bash', input: { command: `echo ${x}` } }]));
    const { md, summary } = built(user('u1', 'Run them'), ...calls, agent('a1', [{ type: 'text', text: 'Started.' }]));
    expect(sections(md).get('State right now (verbatim tail)')).toContain('No result is recorded for 4 commands, the latest at line 3 (`echo b`), line 4 (`echo c`), line 5 (`echo d`): whether they ran, and what they did, is not known');
    expect((summary.commands_without_result as unknown[]).length).toBe(4);
  });

  it('says nothing when every command has its result', () => {
    const { md, summary } = built(user('u1', 'List the files'), ...bash('b1', 'ls', 'README.md'), agent('a1', [{ type: 'text', text: 'One file.' }]));
    expect(md).not.toContain('No result is recorded');
    expect(summary.commands_without_result).toEqual([]);
  });
});
