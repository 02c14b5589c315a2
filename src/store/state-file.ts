import { promisify } from 'node:util';
import { brotliCompressSync, brotliDecompress, brotliDecompressSync, constants, gunzip, gunzipSync, gzipSync } from 'node:zlib';

/**
 * The carried state's bytes on disk, by the file's name: brotli since store format 5
 * (`.json.br`), gzip in formats 3 and 4 (`.json.gz`), plain JSON before. A store keeps the state
 * file its last build wrote, so all three are read; only brotli is written (docs/FORMAT.md).
 *
 * Brotli at quality 5 makes the state about 30 % smaller than gzip at level 1 (1.63 → 1.13 MB
 * on the 124 sessions of a 60 MiB benchmark store) for about 2.5 times the compression time,
 * which a live refresh pays once in several commits (the state is left behind in between,
 * commit.ts). It runs on the calling thread: on the thread pool, each pool thread's allocator kept
 * the encoder's memory, and a cold build's peak RSS rose by about 10 MB (198 against 188 MB).
 */

const unbrotliAsync = promisify(brotliDecompress);
const gunzipAsync = promisify(gunzip);

export const STATE_QUALITY = 5;

type Codec = 'br' | 'gz' | 'plain';

export function stateCodec(name: string): Codec {
  return name.endsWith('.br') ? 'br' : name.endsWith('.gz') ? 'gz' : 'plain';
}

/** A 256 KiB window: the same bytes as the default 4 MiB one for states of this size, with half the encoder's memory. */
const STATE_WINDOW_BITS = 18;

function brotliOptions(size: number): { params: Record<number, number> } {
  return { params: { [constants.BROTLI_PARAM_QUALITY]: STATE_QUALITY, [constants.BROTLI_PARAM_LGWIN]: STATE_WINDOW_BITS, [constants.BROTLI_PARAM_SIZE_HINT]: size, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };
}

/** The state's JSON (UTF-8), compressed as a state file of this version is written. */
export function encodeState(json: Buffer): Buffer {
  return brotliCompressSync(json, brotliOptions(json.length));
}

/** A state file's JSON, as its name says it was written. */
export async function decodeState(name: string, raw: Buffer): Promise<Buffer> {
  const codec = stateCodec(name);
  return codec === 'br' ? unbrotliAsync(raw) : codec === 'gz' ? gunzipAsync(raw) : raw;
}

/** decodeState, at once (tests and tools that read a store). */
export function decodeStateSync(name: string, raw: Buffer): Buffer {
  const codec = stateCodec(name);
  return codec === 'br' ? brotliDecompressSync(raw) : codec === 'gz' ? gunzipSync(raw) : raw;
}

/** A state file's bytes for the JSON given, as its name says (tests that write an older store). */
export function encodeStateSync(name: string, json: string | Buffer): Buffer {
  const buf = typeof json === 'string' ? Buffer.from(json) : json;
  const codec = stateCodec(name);
  return codec === 'br' ? brotliCompressSync(buf, brotliOptions(buf.length)) : codec === 'gz' ? gzipSync(buf, { level: 1 }) : buf;
}
