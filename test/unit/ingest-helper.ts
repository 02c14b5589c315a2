import { readFileSync } from 'node:fs';
import type { IngestOptions } from '../../src/core/ingest.js';
import { ingestLine } from '../../src/core/ingest.js';
import { LineCutter } from '../../src/core/lines.js';
import { Redactor } from '../../src/core/redact.js';
import type { SessionState } from '../../src/core/state.js';
import { initialState } from '../../src/core/state.js';
import type { Turn } from '../../src/core/types.js';

/** Folds a whole JSONL text through the pure core, as a build would, without any store. */
export function ingestText(text: string, opts: Partial<IngestOptions> = {}): { turns: Turn[]; state: SessionState; corrupt: number[] } {
  const state = initialState();
  const cutter = new LineCutter(0, 0, 64 << 20);
  const turns: Turn[] = [];
  const corrupt: number[] = [];
  for (const line of cutter.push(Buffer.from(text))) {
    const r = ingestLine(state, line, { redactor: new Redactor(), ...opts });
    if ('corrupt' in r) corrupt.push(r.corrupt.line);
    else if (r.turn) turns.push(r.turn);
  }
  return { turns, state, corrupt };
}

export function ingestFile(path: string, opts: Partial<IngestOptions> = {}): ReturnType<typeof ingestText> {
  return ingestText(readFileSync(path, 'utf8'), opts);
}

export const jsonl = (...objs: unknown[]): string => objs.map((o) => `${JSON.stringify(o)}\n`).join('');
