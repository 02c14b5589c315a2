import { open } from 'node:fs/promises';
import { basename, dirname, sep } from 'node:path';
import { projectNameAbove } from '../config.js';
import { escapeControls } from '../core/control-chars.js';
import { isObj, str } from '../core/harness/extract.js';
import { withoutBom } from '../core/lines.js';
import { fileStem, safeSlug, subagentSessionId } from '../core/naming.js';
import type { GitProbe } from '../git/evidence.js';
import type { ProjectSource } from '../store/manifest.js';

/**
 * Who a transcript belongs to, decided from its path and its first lines (SPEC §3): session id,
 * native uuid, subagent parentage, and the project it files under.
 */

const PEEK_BYTES = 256 * 1024;
/** Read first: most transcripts' first lines fit; the rest of PEEK_BYTES is read only when they do not. */
const PEEK_FIRST_BYTES = 32 * 1024;
const PEEK_LINES = 200;

export interface Peek {
  /** The `session` field of the first JSONL line. */
  firstSession: string | null;
  /** Claude's sessionId or Codex's session_meta id. */
  nativeId: string | null;
  cwd: string | null;
  forkedFrom: string | null;
  /**
   * Claude Code: whether every line read that has `isSidechain` has it true (a subagent's own
   * transcript is on its side chain throughout), and the `agentId` of the first.
   */
  sidechain: boolean | null;
  agentId: string | null;
}

/**
 * Reads the first complete lines of a file (bounded) for identity fields. Lines are decoded one at
 * a time as they are needed: most transcripts tell all in their first line or two, and decoding
 * and splitting the whole window cost a cold build about a millisecond a file.
 */
export async function peek(path: string): Promise<Peek> {
  const out: Peek = { firstSession: null, nativeId: null, cwd: null, forkedFrom: null, sidechain: null, agentId: null };
  let buf = await readHead(path, PEEK_FIRST_BYTES);
  if (buf === null) return out;
  let first = true;
  let start = 0;
  for (let n = 0; n < PEEK_LINES; n += 1) {
    let end = buf.indexOf(10, start);
    if (end === -1 && buf.length === PEEK_FIRST_BYTES) {
      // A first line longer than the first read (a Codex session's instructions): read the window.
      buf = (await readHead(path, PEEK_BYTES)) ?? buf;
      end = buf.indexOf(10, start);
    }
    if (end === -1) break; // the last piece may be incomplete
    const line = start === 0 ? withoutBom(buf.toString('utf8', 0, end)) : buf.toString('utf8', start, end);
    start = end + 1;
    if (line.trim().length === 0) continue;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch {
      first = false;
      continue;
    }
    if (!isObj(obj)) continue;
    if (first) {
      out.firstSession = str(obj.session) ?? null;
      first = false;
    }
    const payload = isObj(obj.payload) ? obj.payload : undefined;
    if (out.nativeId === null) {
      if (obj.type === 'session_meta' && payload) out.nativeId = str(payload.id) ?? str(payload.session_id) ?? null;
      else if (typeof obj.sessionId === 'string') out.nativeId = obj.sessionId;
    }
    if (obj.type === 'session_meta' && payload && out.forkedFrom === null) out.forkedFrom = str(payload.forked_from_id) ?? null;
    if (out.cwd === null) out.cwd = str(obj.cwd) ?? str(payload?.cwd) ?? null;
    if (typeof obj.isSidechain === 'boolean') {
      if (out.sidechain === null) out.agentId = str(obj.agentId) ?? null;
      // A subagent's own transcript is on the side chain throughout: one main-chain line says otherwise.
      out.sidechain = obj.isSidechain && out.sidechain !== false;
    }
    // A transcript that starts on the side chain is read on (to its bound) for a main-chain line.
    if (out.nativeId !== null && out.cwd !== null && out.sidechain !== true && !first) break;
  }
  return out;
}

/** The first `bytes` of a file (fewer when it is shorter), or null when it cannot be read. */
async function readHead(path: string, bytes: number): Promise<Buffer | null> {
  let fh;
  try {
    fh = await open(path, 'r');
    const window = Buffer.allocUnsafe(bytes);
    const { bytesRead } = await fh.read(window, 0, bytes, 0);
    return window.subarray(0, bytesRead);
  } catch {
    return null;
  } finally {
    await fh?.close();
  }
}

/** Named like a Claude subagent's transcript (whether it is one takes its first lines to tell). */
export function maybeSubagent(path: string): boolean {
  return /^agent-[\w-]+\.jsonl$/.test(basename(path));
}

export interface SubagentInfo {
  parentId: string;
  /** The name the session id is made from: the file's stem, or `agent-<agentId>` for a subagent's transcript known by its content. */
  stem: string;
}

/**
 * Claude subagent files: `<session uuid>/subagents/agent-*.jsonl` (newer) or `agent-*.jsonl`
 * beside the sessions (older, whose lines carry the parent's sessionId). A file named otherwise
 * (copied, exported, renamed) is a subagent's by its content: every line peek read is on the side
 * chain, and they carry the parent's sessionId. Read as a main session, every line of it would be
 * a subagent's, and its handoff would have no request, reply or model of its own.
 */
export function subagentOf(path: string, p: Peek): SubagentInfo | null {
  const stem = fileStem(basename(path));
  if (!maybeSubagent(path)) {
    if (p.sidechain !== true || p.nativeId === null || p.nativeId === stem) return null;
    return { parentId: p.nativeId, stem: p.agentId !== null && /^[\w-]{1,64}$/.test(p.agentId) ? `agent-${p.agentId}` : stem };
  }
  const parentDir = dirname(path);
  if (basename(parentDir) === 'subagents') return { parentId: basename(dirname(parentDir)), stem };
  if (p.nativeId !== null && p.nativeId !== stem) return { parentId: p.nativeId, stem };
  return null;
}

export interface Identity {
  path: string;
  id: string;
  uuid: string | null;
  parent: string | null;
  subagentFile: boolean;
}

/**
 * An id made from a file name or a line of the transcript is shown in terminals, PROJECT.md and
 * HANDOFF.md: any control character in it becomes a visible escape (`\x1b`, `\n`).
 */
export function identify(path: string, p: Peek, sessionFlag: string | undefined): Identity {
  const stem = fileStem(basename(path));
  const sub = subagentOf(path, p);
  if (sub) {
    const id = sessionFlag ?? subagentSessionId(sub.parentId, sub.stem);
    return { path, id: escapeControls(id), uuid: sub.stem, parent: escapeControls(sub.parentId), subagentFile: true };
  }
  // A file named `.jsonl` has no stem, and a line may name an empty session: the id is never empty (its handoff would fail its schema).
  const named = p.firstSession !== null && p.firstSession !== '' ? p.firstSession : stem !== '' ? stem : basename(path);
  return { path, id: escapeControls(sessionFlag ?? named), uuid: p.nativeId, parent: null, subagentFile: false };
}

/** The harness folder a transcript sits in: Claude's encoded-cwd folder, or the parent folder. */
export function harnessFolder(path: string): string | null {
  const parts = dirname(path).split(sep);
  const i = parts.lastIndexOf('projects');
  if (i !== -1 && parts[i - 1]?.endsWith('.claude') && parts[i + 1]) return parts[i + 1] ?? null;
  const parent = basename(dirname(path));
  return parent.length > 0 && parent !== sep ? parent : null;
}

export interface ProjectChoice {
  project: string;
  source: ProjectSource;
}

/**
 * SPEC §3 project inference, in order; the result is a slug. `clean` redacts a name before it
 * becomes a folder (a folder named after a token must not become a project named after it).
 */
export async function inferProject(projectFlag: string | undefined, cwd: string | null, path: string, git: GitProbe, clean: (name: string) => string = (n) => n): Promise<ProjectChoice> {
  const slug = (name: string): string => safeSlug(name, clean);
  if (projectFlag) return { project: slug(projectFlag), source: 'flag' };
  if (cwd) {
    const named = projectNameAbove(cwd);
    if (named) return { project: slug(named), source: 'config' };
    const top = await git.topLevel(cwd);
    if (top) return { project: slug(basename(top)), source: 'git' };
    const base = basename(cwd);
    if (base.length > 0) return { project: slug(base), source: 'cwd' };
  }
  const folder = harnessFolder(path);
  if (folder) return { project: slug(folder), source: 'harness-folder' };
  return { project: 'unsorted', source: 'unsorted' };
}

/** A project chosen without a cwd may be refined once the transcript records one. */
export function isProvisional(source: ProjectSource): boolean {
  return source === 'harness-folder' || source === 'unsorted';
}
