/**
 * Cuts a byte stream into complete lines. A line is complete only when its `\n` has been seen:
 * whatever follows the last newline is a line still being written and is never handed out.
 * Lines longer than `maxLineBytes` are reported with `text: null` and never held in memory whole.
 * A line longer than `holdBytes` (but within the limit) is not held either: it is reported
 * `deferred`, with its offset and length, for the caller to read once it is known to fit.
 */

const NL = 0x0a;
const CR = 0x0d;

export interface RawLine {
  /** 0-based index of the line in the file. */
  index: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Bytes of the line including its newline. */
  bytes: number;
  /** The line without its newline (and without a trailing `\r`); null when oversized or deferred. */
  text: string | null;
  /** Longer than the cutter holds, within the limit: read bytes [offset, offset + bytes) yourself. */
  deferred?: true;
}

/** The text of a line's bytes: without its newline and a trailing `\r`. */
export function lineText(bytes: Buffer): string {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === NL) end -= 1;
  if (end > 0 && bytes[end - 1] === CR) end -= 1;
  return bytes.toString('utf8', 0, end);
}

/** A UTF-8 byte order mark at the start of a file is an encoding artefact, never content. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export class LineCutter {
  private carry: Buffer | null = null;
  private carryOffset: number;
  private skipping = false;
  private skippedBytes = 0;
  /** The line being written is longer than holdBytes: only its length is kept. */
  private deferring = false;
  private deferredBytes = 0;
  private nextIndex: number;

  constructor(
    startOffset: number,
    startIndex: number,
    private readonly maxLineBytes: number,
    private readonly holdBytes = Number.POSITIVE_INFINITY,
  ) {
    this.carryOffset = startOffset;
    this.nextIndex = startIndex;
  }

  /** Byte offset just past the last complete line handed out. */
  get offset(): number {
    return this.carryOffset;
  }

  /** Index the next complete line will get. */
  get lineIndex(): number {
    return this.nextIndex;
  }

  /** Bytes after the last newline: a line still being written. */
  get pendingBytes(): number {
    if (this.skipping) return this.skippedBytes;
    return this.deferring ? this.deferredBytes : (this.carry?.length ?? 0);
  }

  push(chunk: Buffer): RawLine[] {
    const out: RawLine[] = [];
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(NL, pos);
      if (nl === -1) {
        this.hold(chunk.subarray(pos));
        break;
      }
      const piece = chunk.subarray(pos, nl);
      const lineBytes = this.pendingBytes + piece.length + 1;
      if (this.skipping || lineBytes - 1 > this.maxLineBytes) {
        out.push({ index: this.nextIndex, offset: this.carryOffset, bytes: lineBytes, text: null });
      } else if (this.deferring) {
        out.push({ index: this.nextIndex, offset: this.carryOffset, bytes: lineBytes, text: null, deferred: true });
      } else {
        const whole = this.carry ? Buffer.concat([this.carry, piece]) : piece;
        const end = whole.length > 0 && whole[whole.length - 1] === CR ? whole.length - 1 : whole.length;
        out.push({ index: this.nextIndex, offset: this.carryOffset, bytes: lineBytes, text: whole.toString('utf8', 0, end) });
      }
      this.nextIndex += 1;
      this.carryOffset += lineBytes;
      this.carry = null;
      this.skipping = false;
      this.skippedBytes = 0;
      this.deferring = false;
      this.deferredBytes = 0;
      pos = nl + 1;
    }
    return out;
  }

  /**
   * The partial last line, for `--final` builds that take it as complete. Null when there is
   * none or it is oversized.
   */
  takePending(): RawLine | null {
    if (this.skipping) return null;
    if (this.deferring) {
      const line: RawLine = { index: this.nextIndex, offset: this.carryOffset, bytes: this.deferredBytes, text: null, deferred: true };
      this.nextIndex += 1;
      this.carryOffset += this.deferredBytes;
      this.deferring = false;
      this.deferredBytes = 0;
      return line;
    }
    if (!this.carry || this.carry.length === 0) return null;
    const whole = this.carry;
    const end = whole[whole.length - 1] === CR ? whole.length - 1 : whole.length;
    const line: RawLine = { index: this.nextIndex, offset: this.carryOffset, bytes: whole.length, text: whole.toString('utf8', 0, end) };
    this.nextIndex += 1;
    this.carryOffset += whole.length;
    this.carry = null;
    return line;
  }

  private hold(rest: Buffer): void {
    if (this.skipping) {
      this.skippedBytes += rest.length;
      return;
    }
    const total = this.pendingBytes + rest.length;
    if (total > this.maxLineBytes) {
      this.skipping = true;
      this.skippedBytes = total;
      this.carry = null;
      this.deferring = false;
      return;
    }
    if (this.deferring || total > this.holdBytes) {
      this.deferring = true;
      this.deferredBytes = total;
      this.carry = null;
      return;
    }
    // Copy: the caller may reuse its read buffer.
    this.carry = this.carry ? Buffer.concat([this.carry, rest]) : Buffer.from(rest);
  }
}
