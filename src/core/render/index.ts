import { analyze } from '../analysis.js';
import type { GateResult } from '../quality.js';
import { runGate } from '../quality.js';
import { renderHandoffMd, TRANSFER_READY_SENTINEL } from './handoff-md.js';
import type { RenderInput } from './input.js';
import { payloadsBytes } from './payloads.js';
import { wellFormed } from '../cut.js';

export interface Renders {
  handoffMd: string;
  /** The payloads' bytes (UTF-8 JSON, one line). */
  summaryJson: Buffer;
  llmJson: Buffer;
  gate: GateResult;
}

/** Renders HANDOFF.md and both payloads; the quality gate runs over the Markdown it produced. */
export function renderAll(input: RenderInput): Renders {
  const a = analyze(input.state, input.git, input.pressure, input.parentSession, (input.parentTask ?? null) !== null);
  const draft = renderHandoffMd(input, a);
  const gate = runGate(draft, input.state.window.map((t) => t.text));
  // Well formed: a cut through a character past U+FFFF anywhere in it leaves no half of its pair.
  const handoffMd = wellFormed(draft.replace(`transfer_ready: ${TRANSFER_READY_SENTINEL}`, `transfer_ready: ${gate.transfer_ready}`));
  // Compact: for a model, not a person, indentation would be a quarter of its bytes and tokens.
  const { summary, llm } = payloadsBytes(input, a, gate.transfer_ready);
  return { handoffMd, summaryJson: summary, llmJson: llm, gate };
}

export { MANIFEST_SHA_PLACEHOLDER } from './input.js';
export type { RenderInput } from './input.js';
