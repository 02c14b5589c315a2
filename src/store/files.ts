import { createHash, randomBytes } from 'node:crypto';
import type { Hash } from 'node:crypto';
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { chmodSync, closeSync, constants, fstatSync, fsyncSync, openSync, readSync, realpathSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { StoreWriteError } from '../errors.js';
import { Slicer } from '../slice.js';
import { STRAY_TEMP_RE } from './layout.js';
import { DIR_MODE, FILE_MODE } from './permissions.js';

const HASH_CHUNK_BYTES = 1 << 20;
/** `O_NOFOLLOW` where the platform has it (Linux, macOS; not Windows, where links need privilege). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/**
 * Opening a FIFO for reading waits for a writer, forever if none comes, and a device never ends:
 * a file read by path is opened without waiting (`O_NONBLOCK`, no effect on a regular file) and
 * read only when the open file is a regular one. A path checked by `stat` can become a FIFO before
 * it is opened (a transcript, a config file swapped under the daemon).
 */
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Thrown for a path that is not a regular file when it is opened; `code` says so like a system error. */
export class NotRegularFile extends Error {
  readonly code = 'ENOTREG';
  constructor(readonly path: string) {
    super(`not a regular file (a FIFO, a device, a socket or a folder), so it is not read`);
    this.name = 'NotRegularFile';
  }
}

/** Opens a regular file for reading, never waiting on a FIFO; throws NotRegularFile for anything else. */
export async function openRegular(path: string): Promise<FileHandle> {
  const fh = await open(path, constants.O_RDONLY | NONBLOCK);
  try {
    if (!(await fh.stat()).isFile()) throw new NotRegularFile(path);
    return fh;
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/**
 * A store file's bytes, read only when it is a regular file: a FIFO put where the store keeps a
 * file would block the read, and with it every build and the daemon's answers. Throws
 * NotRegularFile (code ENOTREG) for anything else, ENOENT when it is not there.
 */
export async function readRegular(path: string): Promise<Buffer> {
  const fh = await openRegular(path);
  try {
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** readRegular, as UTF-8 text. */
export async function readRegularText(path: string): Promise<string> {
  return (await readRegular(path)).toString('utf8');
}

/** openRegular, synchronous: the file descriptor of a regular file opened for reading. */
export function openRegularSync(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new NotRegularFile(path);
    return fd;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** A regular file's text, read whole if it is at most `maxBytes` (a config file: /dev/zero never ends). */
export function readRegularTextSync(path: string, maxBytes: number): string {
  const fd = openRegularSync(path);
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) throw new Error(`${path}: ${size} bytes, more than the ${maxBytes} a file of this kind may hold`);
    const buf = Buffer.alloc(size);
    let n = 0;
    while (n < size) {
      const r = readSync(fd, buf, n, size - n, n);
      if (r === 0) break;
      n += r;
    }
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
/**
 * A build writes a dozen files in a row, each synchronously (see writeAtomic): once they have
 * held the event loop for a slice, the next write lets it run first, so a socket request never
 * waits for a whole build's writes.
 */
const writes = new Slicer();

/**
 * Low-level file operations of the store. Every failure names the path and the fix. Files are
 * created 0600 and folders 0700 (see permissions.ts), whatever the folder they go into allows.
 */

const WRITE_HINTS: Record<string, string> = {
  ENOSPC: 'free disk space on the store volume; the previous manifest stays in force and the build is retried',
  EDQUOT: 'raise the disk quota or free space; the previous manifest stays in force',
  EACCES: 'fix the permissions of the store folder (it must be writable by this user)',
  EPERM: 'fix the permissions of the store folder (it must be writable by this user)',
  EROFS: 'the store is on a read-only filesystem: point HANDOFFS_ROOT or --root at a writable folder',
  // A plain file where the store keeps a folder (`<root>/.handoffd`, a project's folder).
  EEXIST: 'a file stands where a folder is expected: move that file aside (or remove it)',
  ENOTDIR: 'a file stands where a folder is expected on the way to it: move that file aside (or remove it)',
};

export function writeError(op: string, path: string, e: unknown): StoreWriteError {
  const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
  return new StoreWriteError(`cannot ${op} ${path}: ${code} (${(e as Error).message})`, {
    hint: WRITE_HINTS[code] ?? 'check the store folder and disk; the previous manifest stays in force',
    cause: e,
    details: { path, errno: code },
  });
}

/**
 * Atomic replace (temp file + rename): a reader sees the old file or the new one, never a mix.
 * `fsync` is for commit points (the manifest): renders and state are rewritten on every build
 * and checked against the manifest when a session is opened, so they skip it.
 */
export async function writeAtomic(path: string, data: string | Buffer, mode = FILE_MODE, fsync = true, followLink = false): Promise<void> {
  try {
    // The synchronous form: a build runs one at a time, and each of the dozen small steps of an
    // atomic write would otherwise wait for a thread-pool round trip (measured: 2.2 ms a file
    // async, 0.3 ms sync, on the benchmark machine; see docs/PERFORMANCE.md).
    await writes.tick();
    writeFileAtomicSync(path, data, mode, fsync, followLink);
  } catch (e) {
    throw writeError('write', path, e);
  }
}

/**
 * write-file-atomic's synchronous steps, without its exit handler. It registers a handler with
 * signal-exit for every file, to remove the temp file should a signal end the process half-way;
 * but no signal handler can run while a synchronous write holds the thread, so the handler never
 * ran, and registering it started and stopped a dozen signal watchers per file: 5,000 builds made
 * about 80 MB of garbage that way, the largest single part of what the daemon's collector cleared
 * during a backfill. A temp file a SIGKILL leaves (`<name>.<uint32>`, as write-file-atomic names
 * them) is removed by the daemon's start-up sweep (STRAY_TEMP_RE), as before.
 */
function writeFileAtomicSync(path: string, data: string | Buffer, mode: number, fsync: boolean, followLink: boolean): void {
  let target = path;
  // A file of the store that is a symbolic link is replaced by the file (the rename takes the
  // link's place), never written through: a link planted in a session folder would otherwise have
  // a build overwrite whatever it points to. Only a file outside the store (a skill's install
  // record, in a folder a user may keep in a dotfiles repository) follows its link, as
  // write-file-atomic does.
  if (followLink) {
    try {
      target = realpathSync.native(path);
    } catch {
      // Not there yet.
    }
  }
  const tmp = `${target}.${randomBytes(4).readUInt32BE(0)}`;
  let fd: number | null = openSync(tmp, 'w', mode);
  try {
    writeAll(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (fsync) fsyncSync(fd);
    closeSync(fd);
    fd = null;
    chmodSync(tmp, mode); // exactly this mode, whatever the umask took away
    renameSync(tmp, target);
  } catch (e) {
    if (fd !== null) {
      try {
        closeSync(fd);
      } catch {
        // Already closed by the failure.
      }
    }
    try {
      unlinkSync(tmp);
    } catch {
      // Never created, or gone.
    }
    throw e;
  }
}

/**
 * `writeAtomic` for a large file (INDEX.json of thousands of sessions): the same temp file,
 * fsync and rename, each step on the thread pool. Megabytes written and flushed synchronously
 * would stall the daemon's socket for as long as the disk takes.
 */
export async function writeAtomicLarge(path: string, data: string | Buffer, mode = FILE_MODE): Promise<void> {
  try {
    // write-file-atomic writes through a symbolic link: one put in the file's place goes first,
    // so the file takes the link's place (as writeAtomic's rename does).
    if ((await lstat(path).catch(() => null))?.isSymbolicLink() === true) await unlink(path);
    await writeFileAtomic(path, data, { mode, fsync: true, chown: false as unknown as { uid: number; gid: number } });
  } catch (e) {
    throw writeError('write', path, e);
  }
}

export async function ensureDir(path: string, mode = DIR_MODE): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode });
  } catch (e) {
    throw writeError('create folder', path, await trueCause(path, mode, e));
  }
}

/**
 * Node 20's recursive mkdir says ENOENT for a folder a read-only or full file system refused
 * (EROFS, ENOSPC, EDQUOT), whose fix is another than a missing parent's: a plain mkdir of the
 * folder, whose parent is there, says why.
 */
async function trueCause(path: string, mode: number, e: unknown): Promise<unknown> {
  if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return e;
  // Up to the first folder that is there: making its child says why the file system refused.
  for (let p = path, i = 0; i < 32 && dirname(p) !== p; i += 1, p = dirname(p)) {
    try {
      await mkdir(p, { mode });
      return e;
    } catch (again) {
      const code = (again as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      return code === 'EEXIST' ? e : again;
    }
  }
  return e;
}

/**
 * Every byte written, or an error: one write may take fewer bytes than it was given (a disk with
 * room for one block more takes that block), and the next says why (ENOSPC). A file renamed into
 * place after one short write would be a truncated handoff that nothing reports.
 */
function writeAll(fd: number, buf: Buffer): void {
  let done = 0;
  while (done < buf.length) {
    const n = writeSync(fd, buf, done, buf.length - done);
    if (n <= 0) throw Object.assign(new Error('the write took no bytes'), { code: 'EIO' });
    done += n;
  }
}

/**
 * Appends bytes. Not flushed to disk: a process killed at any instruction loses nothing (the
 * page cache survives it), and after a power failure a timeline shorter than its manifest says
 * is detected when the session is opened and rebuilt from the transcript.
 */
export async function appendDurable(path: string, data: string | Buffer, create = false): Promise<void> {
  if (data.length === 0 && !create) return;
  let fd: number | null = null;
  try {
    // Never through a symbolic link (ELOOP): a session is opened with its appended files checked
    // (cutBack), so a link here is one planted since.
    // Nor into a FIFO (opened without waiting for a reader, and refused): a write would block.
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | NONBLOCK, FILE_MODE);
    if (!fstatSync(fd).isFile()) throw new NotRegularFile(path);
    writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
  } catch (e) {
    throw writeError('append to', path, e);
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * Cuts a file back to `bytes` (the length a manifest recorded); creates it when missing. A name
 * that holds anything but a regular file (a symbolic link, a folder) is not the store's file: an
 * error without an errno, which opening a session takes for damage (rebuilt, never written through).
 */
export async function cutBack(path: string, bytes: number): Promise<boolean> {
  let st: Stats | null;
  try {
    st = await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw writeError('read', path, e);
    st = null;
  }
  if (st !== null && !st.isFile()) throw new Error(`${path} is ${st.isSymbolicLink() ? 'a symbolic link' : st.isDirectory() ? 'a folder' : 'not a regular file'}, not the file the manifest records (the store never writes through one)`);
  const size = st === null ? null : st.size;
  if (size === bytes) return false;
  try {
    if (size === null) {
      if (bytes > 0) throw new Error(`${path} is missing but the manifest records ${bytes} bytes`);
      return false;
    }
    if (size < bytes) throw new Error(`${path} has ${size} bytes but the manifest records ${bytes}`);
    await truncateNoFollow(path, bytes);
  } catch (e) {
    if (e instanceof Error && !(e as NodeJS.ErrnoException).code) throw e;
    throw writeError('cut back', path, e);
  }
  return true;
}

/**
 * sha256 of bytes [0, length) of a file, read through one reused buffer (a stream would leave a
 * fresh chunk per read for the collector: tens of MB of garbage on a large transcript); returns
 * the live Hash to continue from.
 */
export async function hashPrefix(path: string, length: number): Promise<Hash> {
  const h = createHash('sha256');
  if (length === 0) return h;
  const fh = await openRegular(path);
  try {
    const buf = Buffer.allocUnsafe(Math.min(HASH_CHUNK_BYTES, length));
    for (let pos = 0; pos < length; ) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, length - pos), pos);
      // Shorter than asked (cut meanwhile): the digest will not match, which is how callers see it.
      if (bytesRead === 0) break;
      h.update(buf.subarray(0, bytesRead));
      pos += bytesRead;
    }
  } finally {
    await fh.close();
  }
  return h;
}

export async function sha256File(path: string): Promise<string> {
  return (await hashPrefix(path, (await stat(path)).size)).digest('hex');
}

/**
 * A small file at a path a transcript names (a `handoff.config.json` above its folder, a
 * repository's `.git/HEAD` or config), read only when it is a regular file of at most `maxBytes`:
 * a FIFO there would block the read for good (it is opened without waiting for a writer), a link
 * to `/dev/zero` would never end. Otherwise it throws, with the code ENOENT, ENOTREG or EFBIG.
 */
export async function readSmallFile(path: string, maxBytes = SMALL_FILE_BYTES): Promise<string> {
  const fh = await open(path, SMALL_FILE_FLAGS);
  try {
    const st = await fh.stat();
    notSmall(path, st.isFile(), st.size, maxBytes);
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** readSmallFile, synchronously (config discovery runs before anything is asynchronous). */
export function readSmallFileSync(path: string, maxBytes = SMALL_FILE_BYTES): string {
  const fd = openSync(path, SMALL_FILE_FLAGS);
  try {
    const st = fstatSync(fd);
    notSmall(path, st.isFile(), st.size, maxBytes);
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

const SMALL_FILE_BYTES = 1 << 20;
/** Opened without waiting for a FIFO's writer and without taking a terminal (where the system has the flags). */
const SMALL_FILE_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function notSmall(path: string, isFile: boolean, size: number, maxBytes: number): void {
  if (!isFile) throw Object.assign(new Error(`${path} is not a regular file`), { code: 'ENOTREG' });
  if (size > maxBytes) throw Object.assign(new Error(`${path} holds ${size} bytes, more than the ${maxBytes} read here`), { code: 'EFBIG' });
}

export async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

export async function listDir(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw e;
  }
}

export async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw writeError('remove', path, e);
  }
}

/** Truncates a file, never through a symbolic link (ELOOP). */
async function truncateNoFollow(path: string, bytes: number): Promise<void> {
  const fh = await open(path, constants.O_WRONLY | NOFOLLOW | NONBLOCK);
  try {
    if (!(await fh.stat()).isFile()) throw new NotRegularFile(path);
    await fh.truncate(bytes);
  } finally {
    await fh.close();
  }
}

/**
 * Copies a file into place atomically (temp + rename), so a crash never leaves half a copy. Only
 * a regular file is copied (false otherwise): a link in a session folder may point anywhere, and
 * what it points to is not the store's to keep.
 */
export async function copyAtomic(from: string, to: string): Promise<boolean> {
  const tmp = `${to}.${process.pid}.tmp`;
  try {
    if (!(await lstat(from)).isFile()) return false;
    await mkdir(dirname(to), { recursive: true, mode: DIR_MODE });
    await copyFile(from, tmp);
    await chmod(tmp, FILE_MODE);
    await rename(tmp, to);
    return true;
  } catch (e) {
    await rm(tmp, { force: true });
    throw writeError('copy to', to, e);
  }
}

export async function moveDir(from: string, to: string): Promise<void> {
  try {
    await mkdir(dirname(to), { recursive: true, mode: DIR_MODE });
    await rename(from, to);
  } catch (e) {
    throw writeError('move', from, e);
  }
}

/** Removes temp files a killed writer left behind in one folder. Returns how many. */
export async function sweepStrayTemps(dir: string, names?: readonly string[]): Promise<number> {
  let n = 0;
  for (const name of names ?? (await listDir(dir))) {
    if (STRAY_TEMP_RE.test(name) || name.endsWith('.tmp')) {
      await rm(join(dir, name), { force: true });
      n += 1;
    }
  }
  return n;
}

/** Removes a folder if it is empty; anything else (not empty, gone) leaves it as it is. */
export async function removeEmptyDir(path: string): Promise<boolean> {
  try {
    await rmdir(path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') return false;
    throw writeError('remove the empty folder', path, e);
  }
}
