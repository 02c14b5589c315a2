import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../src/core/analysis.js';
import type { Analysis } from '../../src/core/analysis.js';
import { gitUnavailable } from '../../src/core/evidence.js';
import type { GitEvidence } from '../../src/core/evidence.js';
import { noteCall, noteResult } from '../../src/core/ledger.js';
import { renderAll } from '../../src/core/render/index.js';
import type { Ledger } from '../../src/core/ledger.js';
import type { Pressure } from '../../src/core/pressure.js';
import type { SessionState } from '../../src/core/state.js';
import { expect } from 'vitest';
import { validator } from '../../src/store/schemas.js';
import { tempDir } from '../helpers.js';
import { jsonl } from './ingest-helper.js';
import { renderInput } from './render-input.js';

/** The reading-rule tests' shared steps: a shell call and its result, an analysis, a transcript on disk. */

export const NO_PRESSURE = { used: null, limit: null, ratio: null, level: 'unknown', limit_source: null } as unknown as Pressure;

/** The analysis of a state with no repository to read and no telemetry. */
export function analysed(st: SessionState, git: GitEvidence = gitUnavailable('no-cwd', 'no cwd', null, null)): Analysis {
  return analyze(st, git, NO_PRESSURE);
}

let calls = 0;
/** A shell call at `line` and its result on the next line. */
export function ran(l: Ledger, line: number, command: string, exitCode: number, output = ''): void {
  const id = `r${(calls += 1)}`;
  noteCall(l, { id, name: 'Bash', line, command });
  noteResult(l, { id, line: line + 1, ok: exitCode === 0, exitCode, output });
}

/** The records as a transcript file of their own, in a fresh folder. */
export function transcriptFile(...records: unknown[]): string {
  const path = join(tempDir('handoff-rule-'), 's.jsonl');
  writeFileSync(path, jsonl(...records));
  return path;
}

/** What a build renders for the records as a transcript (HANDOFF.md and both payloads). */
export function rendered(...records: unknown[]): ReturnType<typeof renderAll> {
  return renderAll(renderInput(transcriptFile(...records)));
}

/** HANDOFF.md and both payloads for the records, each payload checked against its schema. */
export function built<P = Record<string, unknown>>(...records: Record<string, unknown>[]): { md: string; summary: P; llm: P } {
  const r = rendered(...records);
  const summary = JSON.parse(r.summaryJson.toString('utf8')) as P;
  const llm = JSON.parse(r.llmJson.toString('utf8')) as P;
  expect(validator('handoff.summary')(summary)).toBe(true);
  expect(validator('handoff.llm')(llm)).toBe(true);
  return { md: r.handoffMd, summary, llm };
}
