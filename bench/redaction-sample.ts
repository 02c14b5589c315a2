import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ingestLine } from '../src/core/ingest.js';
import { LineCutter } from '../src/core/lines.js';
import type { Redactor } from '../src/core/redact.js';
import { initialState } from '../src/core/state.js';
import { CORPUS, PROJECT } from './generate.js';

/**
 * The redactor's decisions on the real corpus, read in place: every credential it removes and
 * every value after a secret-naming label it keeps, located by transcript and line, so that a
 * hand-classified sample (test/fixtures/redaction-sample.json) can say which decisions were
 * right. Shared by `npm run bench` (the false-positive figures) and the conformance suite.
 */

export const SAMPLE_FILE = join(PROJECT, 'test', 'fixtures', 'redaction-sample.json');

export type SampleClass = 'credential' | 'code' | 'placeholder' | 'masked' | 'docs' | 'log' | 'prose' | 'public-id';

export interface Sample {
  /** `claude-code/<name>.jsonl` or `codex/<name>.jsonl`, under the corpus folder. */
  file: string;
  /** 1-based line of the transcript. */
  line: number;
  /** The secret-naming label, as the transcript spells it. */
  name: string;
  class: SampleClass;
  why: string;
}

export interface Decision {
  file: string;
  line: number;
  /** The text of the turn that line makes (what the redactor sees). */
  text: string;
  start: number;
  end: number;
  /** A kind for a removed credential; `kept: <reason>` for a kept value. */
  kind: string;
  /** For a kept value: the label before it. */
  name?: string;
}

export function loadSample(): Sample[] {
  return (JSON.parse(readFileSync(SAMPLE_FILE, 'utf8')) as { samples: Sample[] }).samples;
}

/** Each line's turn text, as the readers extract it before redaction. */
export function* corpusTurns(root = CORPUS): Generator<{ file: string; line: number; text: string }> {
  const passthrough = { redact: (text: string) => ({ text, count: 0 }) } as unknown as Redactor;
  for (const dir of ['claude-code', 'codex']) {
    if (!existsSync(join(root, dir))) continue;
    for (const name of readdirSync(join(root, dir)).sort()) {
      if (!name.endsWith('.jsonl')) continue;
      const st = initialState();
      const cutter = new LineCutter(0, 0, 64 << 20);
      for (const line of cutter.push(readFileSync(join(root, dir, name)))) {
        const r = ingestLine(st, line, { redactor: passthrough });
        if ('turn' in r && r.turn) yield { file: `${dir}/${name}`, line: line.index + 1, text: r.turn.text };
      }
    }
  }
}

export function corpusDecisions(redactor: Redactor, root = CORPUS): { removed: Decision[]; kept: Decision[] } {
  const removed: Decision[] = [];
  const kept: Decision[] = [];
  for (const t of corpusTurns(root)) {
    const a = redactor.audit(t.text);
    for (const s of a.found) removed.push({ ...t, start: s.start, end: s.end, kind: s.kind });
    for (const k of a.kept) kept.push({ ...t, start: k.start, end: k.end, kind: `kept: ${k.because}`, name: k.name });
  }
  return { removed, kept };
}

/** The sample entry a removal falls under: same line, its label within the 200 characters before it. */
export function classify(d: Decision, samples: readonly Sample[]): Sample | undefined {
  return samples.find((s) => s.file === d.file && s.line === d.line && labelBefore(d.text, s.name, d.start));
}

function labelBefore(text: string, name: string, at: number): boolean {
  const i = text.lastIndexOf(name, at);
  return i !== -1 && at - i <= 200;
}

export interface FalsePositiveFigures {
  removed: number;
  /** Removals whose sample class is code. */
  code: number;
  /** Removals whose sample class is anything but a credential. */
  notCredential: number;
  /** Removals no sample entry classifies yet. */
  unclassified: number;
  kept: number;
  keptBecause: Record<string, number>;
  sample: number;
  sampleClasses: Record<string, number>;
  /** Sampled credentials the redactor kept. */
  missed: number;
}

export function falsePositives(redactor: Redactor, root = CORPUS): FalsePositiveFigures {
  const samples = loadSample();
  const { removed, kept } = corpusDecisions(redactor, root);
  const classes = removed.map((d) => classify(d, samples)?.class);
  const keptBecause: Record<string, number> = {};
  for (const k of kept) keptBecause[k.kind.replace('kept: ', '')] = (keptBecause[k.kind.replace('kept: ', '')] ?? 0) + 1;
  const sampleClasses: Record<string, number> = {};
  for (const s of samples) sampleClasses[s.class] = (sampleClasses[s.class] ?? 0) + 1;
  const removedAt = new Set(removed.map((d) => `${d.file}:${d.line}`));
  return {
    removed: removed.length,
    code: classes.filter((c) => c === 'code').length,
    notCredential: classes.filter((c) => c !== undefined && c !== 'credential').length,
    unclassified: classes.filter((c) => c === undefined).length,
    kept: kept.length,
    keptBecause,
    sample: samples.length,
    sampleClasses,
    missed: samples.filter((s) => s.class === 'credential' && !removedAt.has(`${s.file}:${s.line}`)).length,
  };
}
