import type { FileHandle } from 'node:fs/promises';
import { access, constants, realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { sha256Hex } from '../core/canonical.js';
import { isJsonlPath } from '../core/harness/detect.js';
import { NoTurnsError, SourceError } from '../errors.js';
import { NotRegularFile, openRegular } from '../store/files.js';
import type { SourceRecord } from '../store/manifest.js';
import type { BuildRequest, Ctx, ReadResult } from './types.js';

/**
 * Step 1 of a build: the transcript as this build sees it — one stat, taken once — and whether
 * it still continues what the store read of it (SPEC §5's source reset detection).
 */

const FINGERPRINT_BYTES = 1024;
const TEXT_MAX_BYTES = 64 << 20;

/**
 * A transcript's read that failed: the file went away (or its rights did) between the stat that
 * started the build and the read, which is no bug of handoffd but a transcript deleted, moved
 * or rotated while it was read. The build stops with the file named; what is committed stays.
 */
export function unreadable(path: string, e: unknown, when = ''): SourceError {
  const code = (e as NodeJS.ErrnoException).code;
  const denied = code === 'EACCES' || code === 'EPERM';
  return new SourceError(`${path}: cannot read transcript${when}: ${code === 'ENOENT' ? 'no such file' : denied ? 'permission denied' : String(code ?? (e as Error).message)}`, {
    hint: code === 'ENOENT' ? (when === '' ? 'check the path; `handoff list` shows the sessions already built' : 'it was deleted or moved while it was read: the handoff keeps what was committed, and the file is read again if it comes back') : denied ? `let this user read it (\`chmod u+r ${path}\`)` : 'check the file permissions',
    cause: e,
    details: { file: path, errno: code ?? 'EIO' },
  });
}

/** Opens a transcript for a read that follows the build's stat. */
export async function openTranscript(path: string): Promise<FileHandle> {
  try {
    return await openRegular(path);
  } catch (e) {
    throw unreadable(path, e, e instanceof NotRegularFile ? ' (it was replaced by a special file while the build read it)' : ' (it went away while the build read it)');
  }
}

export async function openSource(req: BuildRequest): Promise<Ctx> {
  // One file, one key: a transcript reached through a link or a relative path is the same session.
  const given = resolve(req.source);
  const path = await realpath(given).catch(() => given);
  let st;
  try {
    st = await stat(path);
    if (st.isFile()) await access(path, constants.R_OK);
  } catch (e) {
    throw unreadable(path, e);
  }
  if (!st.isFile()) {
    throw new SourceError(`${path}: expected a transcript file, found a ${st.isDirectory() ? 'folder' : 'special file'}`, { hint: 'pass the transcript file itself', details: { file: path } });
  }
  return { req, path, size: st.size, dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs, isText: !isJsonlPath(path), gone: false };
}

/** A transcript that no longer exists (or cannot be read): the build re-renders what is committed. */
export function goneSource(req: BuildRequest, path: string): Ctx {
  return { req, path, size: 0, dev: 0, ino: 0, mtimeMs: 0, isText: !isJsonlPath(path), gone: true };
}

/** Source reset detection (SPEC §5): shrink, a replaced file, or different first bytes. */
export async function continuity(ctx: Ctx, src: SourceRecord): Promise<string | null> {
  if (ctx.size < src.offset) return `the transcript shrank from ${src.offset} to ${ctx.size} bytes`;
  if (src.path === ctx.path && (src.dev !== ctx.dev || src.ino !== ctx.ino)) return 'the transcript was replaced by another file (new inode)';
  if (src.fingerprint_bytes > 0 && (await fingerprint(ctx.path, src.fingerprint_bytes)) !== src.fingerprint) {
    return 'the first bytes of the transcript changed';
  }
  return null;
}

/** What the manifest records of the source after this build (offset, digest, identity). */
export async function sourceRecord(ctx: Ctx, read: ReadResult, rawSha: string, prev: SourceRecord | null, reset: string | null): Promise<SourceRecord> {
  const fpBytes = Math.min(read.offset, FINGERPRINT_BYTES);
  return {
    path: ctx.path,
    dev: ctx.dev,
    ino: ctx.ino,
    fingerprint: fpBytes === 0 ? sha256Hex('') : await fingerprint(ctx.path, fpBytes),
    fingerprint_bytes: fpBytes,
    offset: read.offset,
    raw_sha256: rawSha,
    lines: read.lines,
    size: read.size,
    mtime_ms: read.mtimeMs,
    resets: (prev?.resets ?? 0) + (reset === null ? 0 : 1),
  };
}

async function fingerprint(path: string, bytes: number): Promise<string> {
  const fh = await openTranscript(path);
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return sha256Hex(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

export async function readTextFile(path: string): Promise<Buffer> {
  const { size } = await stat(path);
  if (size > TEXT_MAX_BYTES) {
    throw new SourceError(`${path}: a text transcript of ${size} bytes is larger than the ${TEXT_MAX_BYTES} bytes read whole`, {
      hint: 'text transcripts are read whole on every build; convert large ones to JSONL (.jsonl), which is read incrementally',
      details: { file: path },
    });
  }
  const fh = await openTranscript(path);
  try {
    return await fh.readFile();
  } catch (e) {
    throw unreadable(path, e, ' (it went away while the build read it)');
  } finally {
    await fh.close();
  }
}

/** Why no turn came out of a new transcript, and what to do: never `--final` to a build that had it. */
export function noTurns(ctx: Ctx, read: ReadResult, oversized = 0, maxLineBytes = 0): NoTurnsError {
  const final = ctx.req.final === true;
  const waiting = read.pendingBytes > 0 ? ` (${read.pendingBytes} bytes of an unfinished last line ${final ? 'do not parse as JSON' : 'wait for their newline'})` : '';
  // Lines longer than capture.max_line_bytes are skipped unread: said, with the setting that skips them.
  const skipped = oversized > 0 ? `; ${oversized} line(s) longer than capture.max_line_bytes (${maxLineBytes} bytes) were skipped unread` : '';
  const notTranscript = 'check that this is a Claude Code, Codex, JSONL or role-marked text transcript (`--harness` forces a reader)';
  return new NoTurnsError(`${ctx.path}: no turn parsed from ${read.lines} line(s)${waiting}${skipped}`, {
    hint: oversized > 0 ? 'raise capture.max_line_bytes in the config to read such lines (docs/CONFIG.md), or remove them' : read.pendingBytes === 0 || final ? notTranscript : 'if that last line is complete, `--final` takes it; otherwise wait for the agent to finish writing it',
    details: { file: ctx.path, lines: read.lines },
  });
}
