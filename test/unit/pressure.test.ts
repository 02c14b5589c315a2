import { describe, expect, it } from 'vitest';
import { computePressure, DEFAULT_THRESHOLDS, levelFor } from '../../src/core/pressure.js';
import type { PressureConfig } from '../../src/core/pressure.js';
import { initialState } from '../../src/core/state.js';
import { fixture } from '../helpers.js';
import { ingestFile, ingestText, jsonl } from './ingest-helper.js';

const cfg: PressureConfig = { thresholds: DEFAULT_THRESHOLDS, limits: {}, defaultLimit: 200_000 };

describe('context pressure levels (SPEC §8)', () => {
  it.each([
    [0, 'green'],
    [0.3999, 'green'],
    [0.4, 'yellow'],
    [0.5499, 'yellow'],
    [0.55, 'orange'],
    [0.6999, 'orange'],
    [0.7, 'red'],
    [1.2, 'red'],
  ] as const)('a ratio of %s is %s', (ratio, level) => {
    expect(levelFor(ratio, DEFAULT_THRESHOLDS)).toBe(level);
  });

  it.each([
    [79_999, 'green'],
    [80_000, 'yellow'],
    [110_000, 'orange'],
    [140_000, 'red'],
  ] as const)('a Claude session at %s of 200,000 tokens is %s', (used, level) => {
    const st = initialState();
    st.harness = 'claude';
    st.usage = { used, limit: null, key: 'm', seq: 1 };
    expect(computePressure(st, cfg)).toMatchObject({ level, used, limit: 200_000, limit_source: 'default' });
  });

  it('takes the limit from config by model prefix, from a model id that names its window, and from Codex telemetry', () => {
    const st = initialState();
    st.harness = 'claude';
    st.meta.model = 'claude-opus-4-6';
    st.usage = { used: 300_000, limit: null, key: null, seq: 3 };
    expect(computePressure(st, { ...cfg, limits: { 'claude-opus': 1_000_000 } })).toMatchObject({ limit: 1_000_000, level: 'green', limit_source: 'config' });
    st.meta.model = 'claude-sonnet-4-5[1m]';
    expect(computePressure(st, cfg)).toMatchObject({ limit: 1_000_000, limit_source: 'model' });
    const codex = ingestFile(fixture('codex-rollout.jsonl')).state;
    expect(computePressure(codex, cfg)).toMatchObject({ used: 150_900, limit: 258_400, level: 'orange', limit_source: 'telemetry' });
  });

  it('takes no reading from a Codex count of nothing (every field 0, the window too): the last real one stands', () => {
    const zero = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: 0 };
    const st = ingestText(
      jsonl(
        { timestamp: 't', type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { total_tokens: 16_341 }, model_context_window: 258_400 } } },
        { timestamp: 't', type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: zero, last_token_usage: zero, model_context_window: 0 } } },
      ),
    ).state;
    expect(computePressure(st, cfg)).toMatchObject({ used: 16_341, limit: 258_400, level: 'green', limit_source: 'telemetry' });
  });

  it('reads a Codex 0.50 count (`info{prompt, completion}`, before `last_token_usage`) as the tokens in and out', () => {
    const st = ingestText(
      jsonl(
        { timestamp: 't', type: 'session_meta', payload: { id: 'x', cwd: '/tmp/x', originator: 'codex_cli_rs', cli_version: '0.50.0' } },
        { timestamp: 't', type: 'event_msg', payload: { type: 'token_count', info: { prompt: 1420, completion: 910 } } },
        { timestamp: 't', type: 'event_msg', payload: { type: 'token_count', info: null } },
      ),
    ).state;
    expect(computePressure(st, cfg)).toMatchObject({ used: 2330, level: 'green' });
  });

  it('takes no reading from the usage of a message Claude Code made itself (<synthetic>, zeros)', () => {
    const st = ingestText(
      jsonl(
        { type: 'user', sessionId: 's', message: { role: 'user', content: 'Refactor the payment adapters please' } },
        { type: 'assistant', sessionId: 's', message: { id: 'm1', role: 'assistant', model: 'claude-opus-4-1', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 10, cache_creation_input_tokens: 2000, cache_read_input_tokens: 40000 } } },
        { type: 'assistant', sessionId: 's', isApiErrorMessage: true, message: { id: 'm2', role: 'assistant', model: '<synthetic>', content: [{ type: 'text', text: 'API Error: 500' }], usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } },
      ),
    ).state;
    expect(computePressure(st, cfg)).toMatchObject({ used: 42_010 });
  });

  it('is unknown with null tokens when the transcript has no telemetry', () => {
    expect(computePressure(initialState(), cfg)).toMatchObject({ level: 'unknown', used: null, limit: null });
  });

  it('counts a compaction as red until the next usage record, in both harnesses', () => {
    const claude = ingestText(
      jsonl(
        { type: 'user', sessionId: 's', message: { role: 'user', content: 'Refactor the payment adapters please' } },
        { type: 'assistant', sessionId: 's', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 1000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } },
        { type: 'system', subtype: 'compact_boundary', sessionId: 's', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 150000 } },
      ),
    ).state;
    expect(computePressure(claude, cfg)).toMatchObject({ level: 'red', compacted: true, compactions: 1 });
    const codex = ingestFile(fixture('codex-mirror-first.jsonl')).state;
    expect(computePressure(codex, cfg)).toMatchObject({ level: 'red', compacted: true, compactions: 1, used: null });
    const after = ingestText(
      jsonl(
        { timestamp: 't', type: 'compacted', payload: { message: '', replacement_history: [] } },
        { timestamp: 't', type: 'event_msg', payload: { type: 'context_compacted' } },
        { timestamp: 't', type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { total_tokens: 20_000 }, model_context_window: 258_400 } } },
        { timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'continue from the summary' }] } },
      ),
    ).state;
    expect(computePressure(after, cfg)).toMatchObject({ level: 'green', compacted: false, compactions: 1 });
  });
});
