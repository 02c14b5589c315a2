import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderAll } from '../../src/core/render/index.js';
import { LIMITS, objectiveSet } from '../../src/core/state.js';
import { indexEntry } from '../../src/store/index-file.js';
import type { Manifest } from '../../src/store/manifest.js';
import { jsonl } from './ingest-helper.js';
import { renderInput } from './render-input.js';

/**
 * Rules from the sixth reading (docs/FIDELITY.md): transcripts no card covers, read by a successor
 * given HANDOFF.md alone.
 */

function handoffOf(request: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-brief-'));
  const path = join(dir, 's.jsonl');
  writeFileSync(
    path,
    jsonl(
      { type: 'user', uuid: 'u1', sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z', message: { role: 'user', content: request } },
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:01:00Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Done: the branch is committed.' }] } },
    ),
  );
  return renderAll(renderInput(path)).handoffMd;
}

describe('a long brief as the objective', () => {
  it('is kept whole, its closing constraints included, up to 4,000 characters', () => {
    const brief = `${'Write the research document on plan mode, grounded in the docs. '.repeat(36)}\n\n### How to commit\n\n4. **Do not push. Do not merge. Do not touch master.**`;
    expect(brief.length).toBeGreaterThan(2000);
    expect(brief.length).toBeLessThanOrEqual(LIMITS.OBJECTIVE_CHARS);
    const md = handoffOf(brief);
    expect(md).toContain('4. **Do not push. Do not merge. Do not touch master.**\n```\n\n*reported* — the user\'s first request (line 1)\n');
  });

  it('holds one set with --objective to the same length (the payload schemas allow 4,000)', () => {
    expect(objectiveSet('short')).toBe('short');
    expect(objectiveSet('z'.repeat(5000))).toHaveLength(LIMITS.OBJECTIVE_CHARS);
  });

  it('says how much of a longer one it shows', () => {
    const md = handoffOf('x'.repeat(5000));
    expect(md).toContain(`*reported* — the user's first request (line 1); its first ${LIMITS.OBJECTIVE_CHARS - 1} of 5000 characters (the whole is in the transcript)`);
  });
});

describe("INDEX.json's objective", () => {
  it('keeps the first 1,200 characters of a brief the handoff keeps whole', () => {
    const m = { sources: [], session: 's', uuid: null, chain_id: 'c', project: 'p', harness: 'claude', turn_count: 1, revisions: 1, updated_at: 't', manifest_sha256: 'x', context: { level: 'green' }, quality: { transfer_ready: true }, source_state: 'present', title: null, parent_session: null } as unknown as Manifest;
    expect(indexEntry(m, '/d', 'short brief').objective).toBe('short brief');
    const long = indexEntry(m, '/d', 'y'.repeat(3000)).objective as string;
    expect(long).toHaveLength(1200);
    expect(long.endsWith('…')).toBe(true);
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

  function handoff(objs: unknown[]): string {
    const dir = mkdtempSync(join(tmpdir(), 'handoff-sub-'));
    const path = join(dir, 's.jsonl');
    writeFileSync(path, jsonl(...objs));
    return renderAll(renderInput(path)).handoffMd;
  }

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

  it('in a state begun before results were read, a launch without one is not said to be running', () => {
    const dir = mkdtempSync(join(tmpdir(), 'handoff-sub-'));
    const path = join(dir, 's.jsonl');
    writeFileSync(path, jsonl(...lines));
    const r = renderInput(path);
    delete r.state.subagentResults;
    expect(renderAll(r).handoffMd).toMatch(/- launched \(line 2\): Search TS 5\.6\n/);
  });
});

describe('a transcript that starts mid-conversation', () => {
  it("says its first message answers one it does not hold, and takes the objective as this file's first request only", () => {
    const dir = mkdtempSync(join(tmpdir(), 'handoff-slice-'));
    const path = join(dir, 's.jsonl');
    const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
    writeFileSync(path, jsonl({ ...base, type: 'user', uuid: 'u9', parentUuid: 'e8625dec-61aa-4bbb-8ccc-000000000000', message: { role: 'user', content: 'Your first attempt reordered the cards too early; try again.' } }));
    const md = renderAll(renderInput(path)).handoffMd;
    expect(md).toContain('*reported* — the first request this transcript holds (line 1): it starts mid-conversation (see Unknowns)');
    expect(md).toContain('- *unknown* Earlier conversation: the first message (line 1) answers one this transcript does not hold; what came before it, and the first request, are not in it');
    writeFileSync(path, jsonl({ ...base, type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'Reorder the cards.' } }));
    const whole = renderAll(renderInput(path)).handoffMd;
    expect(whole).toContain("*reported* — the user's first request (line 1)\n");
    expect(whole).not.toContain('Earlier conversation');
  });
});
