import { analyze } from '../analysis.js';
import type { GateResult } from '../quality.js';
import { runGate } from '../quality.js';
import { renderHandoffMd, TRANSFER_READY_SENTINEL } from './handoff-md.js';
import type { RenderInput } from './input.js';
import { payloadsJson } from './payloads.js';

export interface Renders {
  handoffMd: string;
  summaryJson: string;
  llmJson: string;
  gate: GateResult;
}

/** Renders HANDOFF.md and both payloads; the quality gate runs over the Markdown it produced. */
export function renderAll(input: RenderInput): Renders {
  const a = analyze(input.state, input.git, input.pressure);
  const draft = renderHandoffMd(input, a);
  const gate = runGate(draft, input.state.window.map((t) => t.text));
  const handoffMd = draft.replace(`transfer_ready: ${TRANSFER_READY_SENTINEL}`, `transfer_ready: ${gate.transfer_ready}`);
  // Compact: for a model, not a person, indentation would be a quarter of its bytes and tokens.
  return { handoffMd, ...payloadsJson(input, a, gate.transfer_ready), gate };
}

export { MANIFEST_SHA_PLACEHOLDER } from './input.js';
export type { RenderInput } from './input.js';
