import type { Hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { CorruptLine, IngestOptions } from '../core/ingest.js';
import { ingestLine } from '../core/ingest.js';
import { LineCutter } from '../core/lines.js';
import type { SessionState } from '../core/state.js';
import type { Turn } from '../core/types.js';

/**
 * Reads a transcript from its cursor to the end of what was written when the read began, in
 * bounded chunks, folding each complete line into the state and hashing exactly the consumed
 * bytes. A line still being written stays unread; a corrupt line stops the read at its first
 * byte unless bad lines are allowed.
 */

const CHUNK_BYTES = 4 << 20;

export interface ReadOptions {
  maxLineBytes: number;
  allowBadLines: boolean;
  /** Take a final line without its newline as complete when it parses. */
  final: boolean;
  /** Read no further than this byte (replaying committed bytes). */
  limit?: number;
  ingest: IngestOptions;
}

export interface ReadOutcome {
  offset: number;
  lines: number;
  size: number;
  pendingBytes: number;
  newTurns: number;
  corrupt: CorruptLine | null;
  /** Corrupt lines counted and skipped under allowBadLines. */
  badLines: CorruptLine[];
}

export async function readNewLines(
  path: string,
  start: { offset: number; lines: number },
  st: SessionState,
  hash: Hash,
  opts: ReadOptions,
  onTurn: (t: Turn) => void | Promise<void>,
): Promise<ReadOutcome> {
  const fh = await open(path, 'r');
  try {
    const size = Math.min((await fh.stat()).size, opts.limit ?? Number.MAX_SAFE_INTEGER);
    const cutter = new LineCutter(start.offset, start.lines, opts.maxLineBytes);
    const held: { start: number; buf: Buffer }[] = [];
    let hashedTo = start.offset;
    let pos = start.offset;
    let newTurns = 0;
    let corrupt: CorruptLine | null = null;
    const badLines: CorruptLine[] = [];

    const hashTo = (target: number): void => {
      while (held.length > 0 && hashedTo < target) {
        const h = held[0] as { start: number; buf: Buffer };
        const end = h.start + h.buf.length;
        const from = hashedTo - h.start;
        const to = Math.min(end, target) - h.start;
        if (to > from) hash.update(h.buf.subarray(from, to));
        hashedTo = h.start + to;
        if (hashedTo >= end) held.shift();
        else break;
      }
    };

    const consume = async (lines: ReturnType<LineCutter['push']>): Promise<boolean> => {
      for (const line of lines) {
        const r = ingestLine(st, line, opts.ingest);
        if ('corrupt' in r) {
          if (!opts.allowBadLines) {
            st.lines = line.index;
            corrupt = r.corrupt;
            hashTo(line.offset);
            return false;
          }
          st.bad += 1;
          badLines.push(r.corrupt);
          continue;
        }
        if (r.turn) {
          newTurns += 1;
          await onTurn(r.turn);
        }
      }
      return true;
    };

    while (pos < size) {
      const want = Math.min(CHUNK_BYTES, size - pos);
      const buf = Buffer.allocUnsafe(want);
      const { bytesRead } = await fh.read(buf, 0, want, pos);
      if (bytesRead === 0) break;
      const chunk = bytesRead === want ? buf : buf.subarray(0, bytesRead);
      held.push({ start: pos, buf: chunk });
      pos += bytesRead;
      if (!(await consume(cutter.push(chunk)))) break;
      hashTo(cutter.offset);
    }
    let offset = corrupt ? (corrupt as CorruptLine).offset : cutter.offset;
    if (!corrupt && opts.final && cutter.pendingBytes > 0) {
      const last = cutter.takePending();
      if (last?.text != null) {
        let parses = true;
        try {
          JSON.parse(last.text);
        } catch {
          parses = false;
        }
        if (parses) {
          await consume([last]);
          offset = cutter.offset;
          hashTo(offset);
        }
      }
    }
    return {
      offset,
      lines: st.lines,
      size,
      pendingBytes: corrupt ? 0 : Math.max(0, size - offset),
      newTurns,
      corrupt,
      badLines,
    };
  } finally {
    await fh.close();
  }
}
