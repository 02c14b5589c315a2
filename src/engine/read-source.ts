import type { Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { CorruptLine, IngestOptions } from '../core/ingest.js';
import { ingestLine } from '../core/ingest.js';
import type { RawLine } from '../core/lines.js';
import { LineCutter, lineText } from '../core/lines.js';
import type { SessionState } from '../core/state.js';
import type { Turn } from '../core/types.js';
import { openTranscript } from './source.js';

/**
 * Reads a transcript from its cursor to the end of what was written when the read began, in
 * bounded chunks, folding each complete line into the state and hashing exactly the consumed
 * bytes. A line still being written stays unread; a corrupt line stops the read at its first
 * byte unless bad lines are allowed.
 *
 * Memory stays flat whatever the lines: a line longer than HOLD_BYTES is never gathered from
 * the chunks it spans. Its end is found first; then it is skipped (past capture.max_line_bytes)
 * or read in one piece. The bytes of a line still open at a chunk's end are hashed ahead into a
 * copy of the running hash, so no chunk is kept for hashing either.
 */

const CHUNK_BYTES = 4 << 20;
const HOLD_BYTES = 1 << 20;

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
  /** The file's modification time, from the same stat as `size`. */
  mtimeMs: number;
  pendingBytes: number;
  newTurns: number;
  corrupt: CorruptLine | null;
  /** Corrupt lines counted and skipped under allowBadLines. */
  badLines: CorruptLine[];
  /** The running hash of bytes [0, offset): continue from this one, not from the one passed in. */
  hash: Hash;
}

/**
 * sha256 of exactly the consumed bytes. `hash` covers [0, hashedTo); `ahead`, when set, is a copy
 * that also covers the bytes of the open line read so far, [hashedTo, chunk start).
 */
class ConsumedHash {
  private ahead: Hash | null = null;
  private hashedTo: number;

  constructor(
    public hash: Hash,
    start: number,
  ) {
    this.hashedTo = start;
  }

  /** Moves the hash to `target`, a line boundary inside the chunk [chunkStart, …). */
  to(target: number, chunk: Buffer, chunkStart: number): void {
    if (target <= this.hashedTo) return;
    if (this.ahead) {
      this.hash = this.ahead;
      this.ahead = null;
      this.hash.update(chunk.subarray(0, target - chunkStart));
    } else this.hash.update(chunk.subarray(this.hashedTo - chunkStart, target - chunkStart));
    this.hashedTo = target;
  }

  /** The open line was taken after all (`--final`): the hash ahead is the hash of it. */
  takeAhead(target: number): void {
    if (this.ahead) this.hash = this.ahead;
    this.ahead = null;
    this.hashedTo = target;
  }

  /** The rest of the chunk belongs to a line still open: hash it ahead, in a copy. */
  carry(chunk: Buffer, chunkStart: number): void {
    const from = Math.max(this.hashedTo, chunkStart) - chunkStart;
    if (from >= chunk.length) return;
    this.ahead ??= this.hash.copy();
    this.ahead.update(chunk.subarray(from));
  }
}

async function readAt(fh: FileHandle, offset: number, bytes: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(bytes);
  let got = 0;
  while (got < bytes) {
    const { bytesRead } = await fh.read(buf, got, bytes - got, offset + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** The byte before `offset` is not a newline and the byte at it is one. */
async function endsOpenLine(fh: FileHandle, offset: number): Promise<boolean> {
  const two = Buffer.alloc(2);
  const { bytesRead } = await fh.read(two, 0, 2, offset - 1);
  return bytesRead === 2 && two[0] !== 0x0a && two[1] === 0x0a;
}

export async function readNewLines(
  path: string,
  start: { offset: number; lines: number },
  st: SessionState,
  hash: Hash,
  opts: ReadOptions,
  onTurn: (t: Turn) => void | Promise<void>,
): Promise<ReadOutcome> {
  const fh = await openTranscript(path);
  try {
    const stat = await fh.stat();
    const size = Math.min(stat.size, opts.limit ?? Number.MAX_SAFE_INTEGER);
    // A last line taken without its newline (`--final`) ends at `offset`: the newline the agent
    // writes after it ends that line, not an empty one, or every later line would be counted one off.
    if (start.offset > 0 && start.offset < size && (await endsOpenLine(fh, start.offset))) {
      hash.update('\n');
      start = { offset: start.offset + 1, lines: start.lines };
    }
    const cutter = new LineCutter(start.offset, start.lines, opts.maxLineBytes, HOLD_BYTES);
    const consumed = new ConsumedHash(hash, start.offset);
    let pos = start.offset;
    let newTurns = 0;
    let corrupt: CorruptLine | null = null;
    const badLines: CorruptLine[] = [];

    /** A deferred line's text, read in one piece now that it is known to fit. */
    const resolved = async (line: RawLine): Promise<RawLine> => (line.deferred ? { index: line.index, offset: line.offset, bytes: line.bytes, text: lineText(await readAt(fh, line.offset, line.bytes)) } : line);

    const consume = async (lines: RawLine[]): Promise<boolean> => {
      for (const raw of lines) {
        const line = await resolved(raw);
        const r = ingestLine(st, line, opts.ingest);
        if ('corrupt' in r) {
          if (!opts.allowBadLines) {
            st.lines = line.index;
            corrupt = r.corrupt;
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

    // One buffer for every chunk: nothing keeps a chunk past its turn (the cutter copies what it
    // holds, the hash takes bytes as they pass), so a long read leaves no trail of garbage.
    const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(1, size - pos)));
    while (pos < size) {
      const want = Math.min(buf.length, size - pos);
      const { bytesRead } = await fh.read(buf, 0, want, pos);
      if (bytesRead === 0) break;
      const chunk = bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
      const chunkStart = pos;
      pos += bytesRead;
      const ok = await consume(cutter.push(chunk));
      if (!ok) {
        consumed.to((corrupt as CorruptLine | null)?.offset ?? cutter.offset, chunk, chunkStart);
        break;
      }
      consumed.to(cutter.offset, chunk, chunkStart);
      consumed.carry(chunk, chunkStart);
    }
    let offset = corrupt ? (corrupt as CorruptLine).offset : cutter.offset;
    if (!corrupt && opts.final && cutter.pendingBytes > 0) {
      const pending = cutter.takePending();
      const last = pending ? await resolved(pending) : null;
      if (last?.text != null) {
        let parses = true;
        try {
          JSON.parse(last.text);
        } catch {
          parses = false;
        }
        if (parses) {
          await consume([last]);
          // The hash ahead already holds the line's bytes: they are the rest of what was read.
          offset = cutter.offset;
          consumed.takeAhead(offset);
        }
      }
    }
    return {
      offset,
      lines: st.lines,
      size,
      mtimeMs: stat.mtimeMs,
      pendingBytes: corrupt ? 0 : Math.max(0, size - offset),
      newTurns,
      corrupt,
      badLines,
      hash: consumed.hash,
    };
  } finally {
    await fh.close();
  }
}
