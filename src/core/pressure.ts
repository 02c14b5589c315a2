import type { SessionState } from './state.js';

/** Context pressure (SPEC §8): from the transcript's own telemetry, never estimated. */

export type PressureLevel = 'green' | 'yellow' | 'orange' | 'red' | 'unknown';

export interface Thresholds {
  yellow: number;
  orange: number;
  red: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { yellow: 0.4, orange: 0.55, red: 0.7 };
export const DEFAULT_CONTEXT_LIMIT = 200_000;

export interface PressureConfig {
  thresholds: Thresholds;
  /** Limits by model id prefix, longest prefix wins. */
  limits: Record<string, number>;
  defaultLimit: number;
}

export interface Pressure {
  level: PressureLevel;
  used: number | null;
  limit: number | null;
  ratio: number | null;
  compacted: boolean;
  compactions: number;
  /** Where the limit came from: the transcript, the config, the model id, or the default. */
  limit_source: 'telemetry' | 'config' | 'model' | 'default' | null;
  seq: number | null;
}

function modelLimit(model: string | undefined, cfg: PressureConfig): { limit: number; source: Pressure['limit_source'] } {
  if (model !== undefined) {
    let best: string | undefined;
    for (const prefix of Object.keys(cfg.limits)) {
      if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
    }
    if (best !== undefined) return { limit: cfg.limits[best] as number, source: 'config' };
    // Model ids that name their window: "claude-sonnet-4-5[1m]", "...-1m", "-200k".
    const m = /[[-](\d+)([mk])\]?$/i.exec(model);
    if (m?.[1] !== undefined) {
      const n = Number(m[1]) * ((m[2] ?? '').toLowerCase() === 'm' ? 1_000_000 : 1_000);
      if (n >= 8_000) return { limit: n, source: 'model' };
    }
  }
  return { limit: cfg.defaultLimit, source: 'default' };
}

export function levelFor(ratio: number, t: Thresholds): PressureLevel {
  if (ratio >= t.red) return 'red';
  if (ratio >= t.orange) return 'orange';
  if (ratio >= t.yellow) return 'yellow';
  return 'green';
}

export function computePressure(st: SessionState, cfg: PressureConfig): Pressure {
  const base = { compacted: st.compacted, compactions: st.compactions };
  if (st.usage === null) {
    return { level: st.compacted ? 'red' : 'unknown', used: null, limit: null, ratio: null, limit_source: null, seq: st.lastCompactionSeq, ...base };
  }
  let limit: number;
  let source: Pressure['limit_source'];
  if (st.usage.limit !== null && st.usage.limit > 0) {
    limit = st.usage.limit;
    source = 'telemetry';
  } else if (st.harness === 'codex' && st.contextLimit !== null) {
    limit = st.contextLimit;
    source = 'telemetry';
  } else {
    ({ limit, source } = modelLimit(st.meta.model, cfg));
  }
  const ratio = st.usage.used / limit;
  const level = st.compacted ? 'red' : levelFor(ratio, cfg.thresholds);
  return { level, used: st.usage.used, limit, ratio: Math.round(ratio * 10_000) / 10_000, limit_source: source, seq: st.compacted ? st.lastCompactionSeq : st.usage.seq, ...base };
}
