import { renderAll } from '../../src/core/render/index.js';
import { ingestText, jsonl } from './ingest-helper.js';
import { transcriptFile } from './ledger-helper.js';
import { renderInput } from './render-input.js';

/**
 * Everything a build keeps of these records, as one text to search for a secret: the timeline's
 * turn texts, the state, HANDOFF.md and both payloads (the redaction-* tests).
 */
export function kept(...records: Record<string, unknown>[]): string {
  const { state, turns } = ingestText(jsonl(...records));
  const r = renderAll(renderInput(transcriptFile(...records)));
  return [turns.map((t) => t.text).join('\n'), JSON.stringify(state), r.handoffMd, r.summaryJson.toString('utf8'), r.llmJson.toString('utf8')].join('\n');
}
