import type { DecodedView } from './view.js';

/** A range of the decoded text that holds a credential. */
export interface Span {
  start: number;
  end: number;
  kind: string;
  /** Lower wins where ranges overlap from the same start: a provider's own kind beats a label's. */
  priority: number;
}

/** A value a secret-naming label stood before that the redactor kept (decoded-text coordinates until mapped). */
export interface Kept {
  /** Where the label starts. */
  at: number;
  start: number;
  end: number;
  name: string;
  because: string;
}

export const PRIORITY = { provider: 0, key: 1, url: 2, command: 3, name: 4, custom: 5 } as const;

export const TAG_PREFIX = '[REDACTED:';
export const tag = (kind: string): string => `${TAG_PREFIX}${kind}]`;

/**
 * What the detectors found in one text. Overlapping ranges merge into one, named after the range
 * that starts first (of equal starts, the one of lowest priority number), so a credential found
 * by three rules counts once.
 */
export class Findings {
  private readonly spans: Span[] = [];
  /**
   * How far a rule that reads around its literal has read, by rule: a hit before that is inside
   * what it read already, and is passed over (each character is read a bounded number of times).
   */
  readonly readTo = new Map<string, number>();
  /** When auditing: values that a secret-naming label stood before, kept, and why. */
  readonly kept: Kept[] | null;
  /** The text speaks of base64 or of a secret: its base64 runs are worth decoding (encoded.ts). */
  base64Hint = false;

  constructor(
    readonly text: string,
    audit = false,
  ) {
    this.kept = audit ? [] : null;
  }

  add(start: number, end: number, kind: string, priority: number): void {
    if (end <= start) return;
    // A tag left by an earlier pass is not a credential.
    if (this.text.startsWith(TAG_PREFIX, start)) return;
    this.spans.push({ start, end, kind, priority });
  }

  get size(): number {
    return this.spans.length;
  }

  merged(): Span[] {
    const order = this.spans.map((s, i) => ({ s, i })).sort((a, b) => a.s.start - b.s.start || a.s.priority - b.s.priority || a.i - b.i);
    const out: Span[] = [];
    for (const { s } of order) {
      const last = out[out.length - 1];
      if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
      else out.push({ ...s });
    }
    return out;
  }
}

/** The merged ranges in input coordinates, widened to whole escape sequences, in order. */
export function inputSpans(view: DecodedView, found: Findings): Span[] {
  const out: Span[] = [];
  let pos = 0;
  for (const s of found.merged()) {
    const [from, to] = view.source(s.start, s.end);
    // Two decoded ranges can widen onto the same escape sequence: the later one starts after it.
    const start = Math.max(from, pos);
    if (to <= start) continue;
    out.push({ ...s, start, end: to });
    pos = to;
  }
  return out;
}

/** The input with every range replaced by its tag. */
export function applySpans(input: string, spans: readonly Span[]): string {
  let out = '';
  let pos = 0;
  for (const s of spans) {
    out += input.slice(pos, s.start) + tag(s.kind);
    pos = s.end;
  }
  return out + input.slice(pos);
}
