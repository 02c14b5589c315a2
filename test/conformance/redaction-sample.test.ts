import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, corpusDecisions, corpusTurns, loadSample } from '../../bench/redaction-sample.js';
import { Redactor } from '../../src/core/redact.js';
import { CORPUS, corpusPresent } from '../helpers.js';

/**
 * The redactor against a hand-classified sample of the real corpus (test/fixtures/
 * redaction-sample.json): a credential must go, code and every other non-credential must stay,
 * and no removal on the corpus may go unclassified (a rule change that starts removing
 * something new has to say here what it removes). `npm run bench` reports the shares.
 */

const redactor = new Redactor();
const samples = loadSample();

describe.skipIf(!corpusPresent)('the redactor on a classified sample of the real corpus', () => {
  const turns = new Map<string, string>();
  for (const t of corpusTurns()) turns.set(`${t.file}:${t.line}`, t.text);

  it.each(samples.map((s) => [`${s.file.split('/').pop() ?? ''}:${s.line} ${s.name} (${s.class}: ${s.why})`, s] as const))('%s', (_title, s) => {
    expect(existsSync(join(CORPUS, s.file)), s.file).toBe(true);
    const text = turns.get(`${s.file}:${s.line}`);
    expect(text, 'the sampled line makes a turn').toBeDefined();
    const t = text as string;
    expect(t.includes(s.name), 'the label is on that line').toBe(true);
    const found = redactor.find(t);
    // A removal that belongs to this label: it starts after the label, within 200 characters.
    const mine = found.filter((f) => {
      const i = t.lastIndexOf(s.name, f.start);
      return i !== -1 && f.start - i <= 200;
    });
    if (s.class === 'credential') expect(mine.length, 'a credential is removed').toBeGreaterThan(0);
    else expect(mine.map((f) => `${f.kind}: ${t.slice(f.start, f.end)}`), 'nothing but credentials is removed').toEqual([]);
  });

  it('removes nothing on the corpus that the sample does not classify', () => {
    const { removed } = corpusDecisions(redactor);
    const unclassified = removed.filter((d) => classify(d, samples) === undefined).map((d) => `${d.file}:${d.line} ${d.kind}`);
    expect(unclassified).toEqual([]);
  });
});
