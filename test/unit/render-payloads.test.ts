import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { analyze } from '../../src/core/analysis.js';
import { gitUnavailable } from '../../src/core/evidence.js';
import { computePressure } from '../../src/core/pressure.js';
import { renderAll } from '../../src/core/render/index.js';
import type { RenderInput } from '../../src/core/render/input.js';
import { buildLlm, buildSummary, payloadsBytes } from '../../src/core/render/payloads.js';
import { corpusFiles, FIXTURES } from '../helpers.js';
import { ingestFile } from './ingest-helper.js';

/**
 * The payloads are written from members encoded once for both (payloadsBytes): the text must be
 * what JSON.stringify writes for each payload's object, on every transcript at hand.
 */

const config = resolveConfig({ cwd: '/nonexistent', env: { HOME: '/nonexistent-home' } });

function input(path: string): RenderInput {
  const { state } = ingestFile(path);
  return {
    session: 'test-session',
    uuid: null,
    harness: state.harness ?? 'claude',
    project: 'test',
    chainId: '0123456789abcdef0123456789abcdef',
    title: state.meta.title ?? null,
    createdAt: '2026-01-01T00:00:00.000Z',
    generatedAt: '2026-01-01T00:00:01.000Z',
    revision: 3,
    root: '/store',
    dir: '/store/projects/test/test-session',
    sources: [{ path, offset: 1, size: 1 }],
    rawSha256: 'a'.repeat(64),
    manifestSha256: 'b'.repeat(64),
    git: gitUnavailable('no-cwd', 'the transcript names no folder', null, null),
    pressure: computePressure(state, config.pressure),
    contract: null,
    parentSession: null,
    childSessions: [],
    redactions: state.redactions,
    history: [],
    state,
  };
}

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
    // The llm payload holds every member of the summary, two of them its own.
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
});
