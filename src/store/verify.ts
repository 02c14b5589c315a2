import { existsSync } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { sha256Hex } from '../core/canonical.js';
import { extractContract, generatedPart } from '../core/contract.js';
import { frontMatterToSession, payloadToSession, PENDING, sealedHandoffMd, sealedPayload } from '../core/successor.js';
import { readToSession } from './to-session.js';
import { MANIFEST_SHA_PLACEHOLDER } from '../core/render/input.js';
import { checkChain } from '../core/timeline.js';
import type { Turn } from '../core/types.js';
import { hashPrefix, listDir, readRegular, readRegularText, sha256File } from './files.js';
import type { Layout } from './layout.js';
import { FILES, stateFileName } from './layout.js';
import type { Manifest } from './manifest.js';
import { manifestHash } from './manifest.js';
import { firstError, validator } from './schemas.js';
import { notJsonReason } from '../core/ingest.js';

/**
 * verify (SPEC §5): recompute every digest the manifest seals and say which check failed. This
 * is damage detection, not authentication: anyone who can write the store can reseal it.
 */

export interface VerifyReport {
  id: string;
  dir: string;
  ok: boolean;
  checks: string[];
  /** Reasons the session failed (first one first). */
  failures: string[];
  /** Facts that are not failures: an edited evidence contract, a source that is gone. */
  notes: string[];
  sourceGone: boolean;
  /**
   * The renders are those of a later build that did not commit (killed, or out of disk space,
   * after its renders and before its manifest): not damage. The session's next build commits
   * them (the daemon retries it; the transcript's bytes past the manifest are read again).
   */
  uncommitted?: true;
}

/** The revision a render says it is of: HANDOFF.md's front matter, a payload's provenance. */
function renderRevision(file: string, text: string): number | null {
  if (file === FILES.handoff) {
    const m = /^revision: (\d+)$/m.exec(text);
    return m === null ? null : Number(m[1]);
  }
  try {
    const r = (JSON.parse(text) as { provenance?: { revision?: unknown } }).provenance?.revision;
    return typeof r === 'number' ? r : null;
  } catch {
    return null;
  }
}

/**
 * Every timeline line against the turn the transcript yields at its place: the same seq, class
 * and time, and the same text — or, for a text kept as head and tail, the same length and sha256.
 */
async function proveTurns(m: Manifest, lines: readonly string[], turns: NonNullable<VerifyOptions['turns']>): Promise<string | null> {
  let i = 0;
  let problem: string | null = null;
  try {
    await turns(m, (t) => {
      if (problem !== null) return;
      const raw = lines[i];
      i += 1;
      if (raw === undefined) {
        problem = `the transcript yields more turns than timeline.jsonl's ${lines.length}`;
        return;
      }
      const r = JSON.parse(raw) as { seq: number; class: string; ts: string | null; text: string; text_bytes?: number; text_sha256?: string };
      const same = r.seq === t.seq && r.class === t.class && r.ts === t.ts && (r.text_sha256 === undefined ? r.text === t.text : r.text_sha256 === sha256Hex(t.text) && r.text_bytes === Buffer.byteLength(t.text));
      if (!same) problem = `timeline line ${i} (seq ${r.seq}) is not what the transcript says at that turn (if the redaction patterns changed since the build, build the session afresh)`;
    });
  } catch (e) {
    return `the transcript could not be read again: ${(e as Error).message}`;
  }
  if (problem === null && i !== lines.length) problem = `the transcript yields ${i} turns, timeline.jsonl holds ${lines.length}`;
  return problem;
}

const LINE_CHUNK_BYTES = 16 << 10;

/**
 * The lines of a file, split as readline splits them (\n, \r\n or \r), read in small chunks
 * into one buffer. readline's async iterator would set up a queue of 2,048 slots per file:
 * `verify --all` over 5,000 sessions made 160 MB of garbage that way, and the daemon's memory
 * grew with it.
 */
export async function readLines(path: string, onLine: (l: string) => void, limit = Number.POSITIVE_INFINITY): Promise<void> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(LINE_CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let left = limit;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, left), null);
      if (bytesRead === 0) break;
      left -= bytesRead;
      rest = cutLines(rest + decoder.write(buf.subarray(0, bytesRead)), onLine);
    }
    rest += decoder.end();
    if (rest.endsWith('\r')) onLine(rest.slice(0, -1));
    else if (rest.length > 0) onLine(rest);
  } finally {
    await fh.close();
  }
}

function residue(file: string, bytes: number): string {
  return `${file} holds ${bytes} bytes past the commit: a build was interrupted before its manifest; the next build removes them (\`handoff build <transcript>\`, or the daemon's next refresh)`;
}

/** Hands over every complete line of `text`; returns the unfinished rest (a \r at the end may begin a \r\n). */
export function cutLines(text: string, onLine: (l: string) => void): string {
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c !== 10 && c !== 13) continue;
    if (c === 13 && i + 1 === text.length) break;
    onLine(text.slice(start, i));
    if (c === 13 && text.charCodeAt(i + 1) === 10) i += 1;
    start = i + 1;
  }
  return text.slice(start);
}

export interface VerifyOptions {
  /** Re-hash the transcript bytes [0, offset), and prove every timeline line against them. */
  source: boolean;
  /** The turns the transcript's committed bytes fold into (the engine's replay), for `source`. */
  turns?: ((m: Manifest, onTurn: (t: Turn) => void) => Promise<void>) | undefined;
}

export async function verifySession(dir: string, opts: VerifyOptions, knownAs = '?'): Promise<VerifyReport> {
  try {
    return await verifyOne(dir, opts, knownAs);
  } catch (e) {
    // A file that cannot be read the way its check reads it (a folder in its place, an I/O
    // error): this session fails, saying so, and `--all` goes on with the others.
    const err = e as NodeJS.ErrnoException;
    return { id: knownAs, dir, ok: false, checks: [], failures: [`a file of the session could not be read: ${err.path ?? ''}${err.path ? ': ' : ''}${err.code ?? err.message}`], notes: [], sourceGone: false };
  }
}

async function verifyOne(dir: string, opts: VerifyOptions, knownAs: string): Promise<VerifyReport> {
  const report: VerifyReport = { id: knownAs, dir, ok: false, checks: [], failures: [], notes: [], sourceGone: false };
  const fail = (reason: string): VerifyReport => {
    report.failures.push(reason);
    return report;
  };
  let m: Manifest;
  try {
    m = JSON.parse(await readRegularText(join(dir, FILES.manifest))) as Manifest;
  } catch (e) {
    return fail(`manifest.json is missing or not JSON (${notJsonReason(e)})`);
  }
  report.id = typeof m.session === 'string' ? m.session : knownAs;
  if (manifestHash(m) !== m.manifest_sha256) return fail('manifest_sha256 does not match the manifest (a field was edited)');
  report.checks.push('manifest');

  const timeline = join(dir, FILES.timeline);
  let size: number;
  try {
    const st = await lstat(timeline);
    if (!st.isFile()) return fail(`timeline.jsonl is ${st.isSymbolicLink() ? 'a symbolic link' : st.isDirectory() ? 'a folder' : 'not a regular file'}, not the file the manifest records`);
    size = st.size;
  } catch {
    return fail('timeline.jsonl is missing');
  }
  if (size < m.timeline_bytes) return fail(`timeline.jsonl is ${size} bytes, the manifest records ${m.timeline_bytes}`);
  // Bytes past the commit are what a build killed before its manifest appended: the next build
  // cuts them away (docs/FORMAT.md). What is committed is checked; the rest is noted.
  if (size > m.timeline_bytes) report.notes.push(residue(FILES.timeline, size - m.timeline_bytes));
  const lines: string[] = [];
  let count = 0;
  await readLines(
    timeline,
    (l) => {
      count += 1;
      lines.push(l);
    },
    m.timeline_bytes,
  );
  if (count !== m.turn_count) return fail(`timeline.jsonl has ${count} lines, turn_count is ${m.turn_count}`);
  const chain = checkChain(lines);
  if (!chain.ok) return fail(chain.reason ?? 'timeline hash chain broken');
  if (chain.head !== m.timeline_head) return fail('the timeline hash chain does not end at timeline_head');
  report.checks.push(`timeline(${count})`, 'chain');

  let llm: unknown;
  try {
    llm = JSON.parse(await readRegularText(join(dir, FILES.llm)));
  } catch (e) {
    return fail(`HANDOFF.llm.json is missing or not JSON (${notJsonReason(e)})`);
  }
  const v = validator('handoff.llm');
  if (!v(llm)) return fail(`HANDOFF.llm.json does not match schemas/handoff.llm.schema.json at ${firstError(v)}`);
  report.checks.push('llm-schema');

  for (const [file, expect] of Object.entries(m.render_sha256)) {
    const path = join(dir, file);
    let got: string;
    try {
      if (file === FILES.tools) {
        const toolsSize = (await stat(path)).size;
        if (toolsSize > m.tools_bytes) report.notes.push(residue(FILES.tools, toolsSize - m.tools_bytes));
        got = toolsSize > m.tools_bytes ? (await hashPrefix(path, m.tools_bytes)).digest('hex') : await sha256File(path);
      } else {
        const text = await readRegularText(path);
        if (!text.includes(m.manifest_sha256)) {
          const revision = renderRevision(file, text);
          // A later build wrote its state file before its renders (src/engine/commit.ts): both
          // there, and the manifest older, is a build that stopped short of its commit.
          if (revision === null || revision <= m.revisions || !existsSync(join(dir, stateFileName(revision)))) return fail(`${file} does not name this revision's manifest sha256`);
          report.uncommitted = true;
          return fail(`${file} is of revision ${revision}, a build after the committed revision ${m.revisions} that did not commit (killed, or out of disk space, before its manifest): the session's next build commits it`);
        }
        const blanked = text.split(m.manifest_sha256).join(MANIFEST_SHA_PLACEHOLDER);
        // A successor stamped after the build is not part of the seal (checked below instead).
        got = sha256Hex(file === FILES.handoff ? generatedPart(sealedHandoffMd(blanked)) : sealedPayload(blanked));
      }
    } catch {
      return fail(`${file} is missing`);
    }
    if (got !== expect) return fail(`${file} does not match its render_sha256 (it was edited or is from another build)`);
  }
  report.checks.push(`renders(${Object.keys(m.render_sha256).length})`);

  try {
    const state = await readRegular(join(dir, m.state_file));
    if (sha256Hex(state) !== m.state_sha256) return fail(`${m.state_file} does not match state_sha256`);
    report.checks.push('state');
  } catch {
    return fail(`the build state ${m.state_file} is missing`);
  }

  const md = await readRegularText(join(dir, FILES.handoff));
  const contract = extractContract(md);
  if (m.evidence_contract_sha256 === undefined) {
    if (contract !== null) report.notes.push('evidence contract added by hand since the last build (carried on the next build)');
    else report.checks.push('contract=none');
  } else if (contract === null || sha256Hex(contract) !== m.evidence_contract_sha256) {
    report.notes.push('evidence contract edited by hand since the last build (carried, not flagged)');
  } else {
    report.checks.push('contract');
  }

  const successor = await checkSuccessor(dir, md);
  if (successor.fail) return fail(successor.fail);
  if (successor.check) report.checks.push(successor.check);

  if (opts.source) {
    for (const s of m.sources) {
      let st: Awaited<ReturnType<typeof stat>> | null = null;
      try {
        st = await stat(s.path);
      } catch {
        st = null;
      }
      if (st === null) {
        report.sourceGone = true;
        report.notes.push(`SOURCE-GONE ${s.path} (the transcript was deleted; the handoff stays)`);
        continue;
      }
      // A FIFO or a device at the transcript's path would block the open for good (no writer).
      if (!st.isFile()) {
        report.notes.push(`SOURCE-NOT-A-FILE ${s.path} (something other than a regular file is at the transcript's path now: not read)`);
        continue;
      }
      const h = (await hashPrefix(s.path, s.offset)).digest('hex');
      if (h !== s.raw_sha256) return fail(`source ${s.path}: bytes [0, ${s.offset}) no longer hash to raw_sha256 (the transcript was rewritten)`);
      report.checks.push('source');
      if (opts.turns && s === m.sources[0]) {
        const problem = await proveTurns(m, lines, opts.turns);
        if (problem !== null) return fail(problem);
        report.checks.push(`turns(${count})`);
      }
    }
  }
  report.ok = true;
  return report;
}

/**
 * A stamped `to_session` must name a session to-session.json records an offer to, and HANDOFF.md
 * and the summary must agree: the stamp is outside the digests, so this is its provenance check.
 */
async function checkSuccessor(dir: string, md: string): Promise<{ fail?: string; check?: string }> {
  const named = frontMatterToSession(md);
  const summary = await readRegularText(join(dir, FILES.summary)).catch(() => '');
  const inSummary = payloadToSession(summary);
  if (named === null || named === PENDING) {
    return inSummary === null ? {} : { fail: `HANDOFF.summary.json names to_session ${inSummary} but HANDOFF.md says ${named ?? 'nothing'}` };
  }
  if (inSummary !== null && inSummary !== named) return { fail: `HANDOFF.md names to_session ${named} but HANDOFF.summary.json names ${inSummary}` };
  const record = await readToSession(dir);
  if (!record?.offers.some((o) => o.session === named)) return { fail: `HANDOFF.md names to_session ${named}, which to-session.json does not record as offered this handoff` };
  return { check: 'to_session' };
}

/**
 * What `verify --all` checks: every session the index lists, and every folder of the store that
 * holds a session's files without a manifest the index could list (deleted, replaced by a folder,
 * damaged before the index was rebuilt from the manifests): such a folder is reported as the
 * failure it is, named by its folder, instead of passed over.
 */
export async function verifyTargets(layout: Layout, listed: readonly { id: string; dir: string }[]): Promise<{ id: string; dir: string }[]> {
  const known = new Set(listed.map((e) => e.dir));
  const orphans: { id: string; dir: string }[] = [];
  for (const project of await listDir(layout.projectsDir)) {
    for (const name of await listDir(layout.projectDir(project))) {
      const dir = layout.sessionDir(project, name);
      if (known.has(dir) || !SESSION_FILES.some((f) => existsSync(join(dir, f)))) continue;
      orphans.push({ id: name, dir });
    }
  }
  return [...listed, ...orphans.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0))];
}

const SESSION_FILES = [FILES.manifest, FILES.timeline, FILES.tools, FILES.handoff, FILES.summary, FILES.llm];
