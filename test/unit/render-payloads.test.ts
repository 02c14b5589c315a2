import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/core/analysis.js';
import { renderAll } from '../../src/core/render/index.js';
import { buildLlm, buildSummary, payloadsBytes } from '../../src/core/render/payloads.js';
import { validator } from '../../src/store/schemas.js';
import { corpusFiles, FIXTURES } from '../helpers.js';
import { renderInput as input } from './render-input.js';

/**
 * The payloads are written from members encoded once for both (payloadsBytes): the text must be
 * what JSON.stringify writes for each payload's object, on every transcript at hand.
 */

const files = [`${FIXTURES}/claude-session.jsonl`, `${FIXTURES}/codex-rollout.jsonl`, ...corpusFiles()];

describe('the payloads as written', () => {
  it.each(files)('are JSON.stringify of each payload: %s', (path) => {
    const r = input(path);
    const a = analyze(r.state, r.git, r.pressure);
    const summary = buildSummary(r, a, true);
    const bytes = payloadsBytes(r, a, true);
    const summaryJson = bytes.summary.toString('utf8');
    const llmJson = bytes.llm.toString('utf8');
    expect(summaryJson).toBe(`${JSON.stringify(summary)}\n`);
    expect(llmJson).toBe(`${JSON.stringify(buildLlm(r, a, summary))}\n`);
    // The llm payload holds every member of the summary, three of them its own (kind, state_now, plan).
    const llm = JSON.parse(llmJson) as Record<string, unknown>;
    expect(Object.keys(llm).slice(0, Object.keys(summary).length)).toEqual(Object.keys(summary));
    expect(llm.kind).toBe('handoff.llm');
  });

  it('hold what renderAll returns', () => {
    const r = input(files[0] as string);
    const renders = renderAll(r);
    const { summary, llm } = payloadsBytes(r, analyze(r.state, r.git, r.pressure), renders.gate.transfer_ready);
    expect(renders.summaryJson.equals(summary)).toBe(true);
    expect(renders.llmJson.equals(llm)).toBe(true);
  });

  it("date the session by its turns in HANDOFF.md's front matter, beside when the handoff was first built", () => {
    const r = input(files[0] as string);
    const front = renderAll(r).handoffMd.split('\n---\n')[0] as string;
    expect(front).toContain(`created_at: ${r.createdAt}`);
    expect(front).toContain('first_turn_at: 2026-03-01T09:00:01.000Z');
    expect(front).toMatch(/\nlast_turn_at: 2026-03-01T09:\d\d:\d\d\.\d{3}Z\n/);
    expect(front).toContain(`\nlines_read: ${r.state.lines}\n`);
    expect(front).toContain(`\ncontext_limit_tokens: ${r.pressure.limit ?? 'null'}\ncontext_limit_source: ${r.pressure.limit_source ?? 'null'}\n`);
    expect(r.state.lines).toBeGreaterThan(r.state.watermark + 1);
  });

  it('validate as schema 1.2, and a 1.0 llm payload that repeats the plan as current_state.items still validates', () => {
    const r = input(files[0] as string);
    const { summary, llm } = payloadsBytes(r, analyze(r.state, r.git, r.pressure), true);
    const now = JSON.parse(llm.toString('utf8')) as Record<string, unknown> & { tasks: unknown[]; current_state: Record<string, unknown> };
    const llmValid = validator('handoff.llm');
    expect(llmValid(now)).toBe(true);
    expect(validator('handoff.summary')(JSON.parse(summary.toString('utf8')))).toBe(true);
    expect(now.schema_version).toBe('1.2');
    expect(now.current_state).not.toHaveProperty('items');
    const old = { ...now, schema_version: '1.0', current_state: { ...now.current_state, items: r.state.todos?.items ?? [] } };
    expect(llmValid(old)).toBe(true);
    expect(llmValid({ ...now, schema_version: '0.9' })).toBe(false);
  });
});
