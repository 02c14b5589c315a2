import { ingestLine } from '../src/core/ingest.js';
import { LineCutter } from '../src/core/lines.js';
import type { Redactor } from '../src/core/redact.js';
import { initialState } from '../src/core/state.js';
import type { Source } from './generate.js';

/** The texts the redactor really sees: every turn of the sources, as the readers extract them. */
export function turnTexts(sources: readonly Source[]): string[] {
  const passthrough = { redact: (text: string) => ({ text, count: 0 }) } as unknown as Redactor;
  const texts: string[] = [];
  for (const s of sources) {
    const st = initialState();
    const cutter = new LineCutter(0, 0, 64 << 20);
    for (const line of cutter.push(Buffer.from(`${s.lines.join('\n')}\n`))) {
      const r = ingestLine(st, line, { redactor: passthrough });
      if ('turn' in r && r.turn) texts.push(r.turn.text);
    }
  }
  return texts;
}
