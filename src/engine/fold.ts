import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { sha256Hex } from '../core/canonical.js';
import { parseTextTranscript } from '../core/harness/text.js';
import { ingestTextTurn } from '../core/ingest.js';
import { withoutBom } from '../core/lines.js';
import { toolSection } from '../core/render/tools-md.js';
import type { SessionState } from '../core/state.js';
import { initialState } from '../core/state.js';
import { chainLine } from '../core/timeline.js';
import type { Turn } from '../core/types.js';
import { CorruptLineError } from '../errors.js';
import type { Manifest, StateAt } from '../store/manifest.js';
import type { AppendBuffer } from './append.js';
import { askGit } from './git.js';
import type { ReadOptions } from './read-source.js';
import { readNewLines } from './read-source.js';
import { readTextFile } from './source.js';
import type { Ctx, EngineDeps, ReadResult } from './types.js';

/**
 * Step 3 of a build: read the new bytes and fold them into the state (the pure core does the
 * folding), chaining each new turn onto the timeline and queueing its lines for the commit.
 */

export async function readNew(deps: EngineDeps, ctx: Ctx, state: SessionState, start: { offset: number; lines: number }, head0: string, hash: Hash, append: AppendBuffer | null, subagentFile: boolean): Promise<ReadResult> {
  let head = head0;
  const onTurn = async (t: Turn): Promise<void> => {
    if (ctx.git === undefined && state.meta.cwd !== undefined) askGit(deps, ctx, state.meta.cwd);
    const { bytes, h } = chainLine(head, t);
    head = h;
    // Every tool call: TOOL turns, and agent turns that also carry a call.
    if (append) await append.add(bytes, t.tool !== undefined ? toolSection(t) : null);
  };
  if (ctx.isText) {
    const raw = ctx.text ?? (await readTextFile(ctx.path));
    hash.update(raw);
    const n = await foldText(deps, state, raw, onTurn);
    return { offset: raw.length, lines: state.lines, size: raw.length, mtimeMs: ctx.mtimeMs, pendingBytes: 0, newTurns: n, corrupt: null, head, rawSha: sha256Hex(raw), hash };
  }
  const allowBad = ctx.req.allowBadLines === true || deps.config.options.watch.allow_bad_lines;
  const out = await readNewLines(ctx.path, start, state, hash, readOptions(deps, ctx, allowBad, subagentFile), onTurn);
  const corrupt = out.corrupt ? new CorruptLineError(ctx.path, out.corrupt.line, out.corrupt.offset, out.corrupt.reason, out.corrupt.hint) : null;
  return { offset: out.offset, lines: out.lines, size: out.size, mtimeMs: out.mtimeMs, pendingBytes: out.pendingBytes, newTurns: out.newTurns, corrupt, head, rawSha: null, hash: out.hash };
}

/** A text transcript is parsed whole: its turns, folded into the state. */
async function foldText(deps: EngineDeps, state: SessionState, raw: Buffer, onTurn: (t: Turn) => void | Promise<void>): Promise<number> {
  const text = raw.toString('utf8');
  state.harness = 'text';
  const parsed = parseTextTranscript(withoutBom(text));
  let n = 0;
  for (const t of parsed.turns) {
    const kept = ingestTextTurn(state, t, deps.redactor);
    if (kept) {
      n += 1;
      await onTurn(kept);
    }
  }
  state.skipped = parsed.skipped;
  state.lines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return n;
}

/** A lost or damaged state file: fold the committed bytes [0, offset) again, writing nothing. */
export async function replay(deps: EngineDeps, ctx: Ctx, m: Manifest): Promise<SessionState> {
  const state = initialState();
  if (m.objective_override) state.objectiveOverride = m.objective_override;
  await foldCommitted(deps, ctx, m, state, () => undefined);
  return state;
}

/**
 * The turns the committed bytes [0, offset) of a session's transcript fold into, with their
 * full texts: what `verify --source` proves the timeline's lines against (a cut text by its
 * length and sha256).
 */
export async function replayTurns(deps: EngineDeps, ctx: Ctx, m: Manifest, onTurn: (t: Turn) => void): Promise<void> {
  await foldCommitted(deps, ctx, m, initialState(), onTurn);
}

/** Folds the committed bytes [0, offset) of the transcript into `state` again, writing nothing. */
async function foldCommitted(deps: EngineDeps, ctx: Ctx, m: Manifest, state: SessionState, onTurn: (t: Turn) => void): Promise<void> {
  const src = m.sources[0];
  if (!src) return;
  if (ctx.isText) {
    await foldText(deps, state, (ctx.text ?? (await readTextFile(ctx.path))).subarray(0, src.offset), onTurn);
    return;
  }
  await readNewLines(ctx.path, { offset: 0, lines: 0 }, state, createHash('sha256'), { ...readOptions(deps, ctx, true, m.parent_session !== null), limit: src.offset, final: true }, onTurn);
}

/**
 * A state read from disk that is behind the commit (a lazy build left it, commit.ts): the source's
 * bytes [at, committed offset) folded into it again, writing nothing (their turns are in
 * timeline.jsonl and TOOLS.md already). The fold is a function of the bytes alone, so the state
 * becomes the one the last commit rendered; a request's changes (objective, model) are never left
 * behind (commit.ts writes the state with them).
 */
export async function catchUp(deps: EngineDeps, ctx: Ctx, m: Manifest, state: SessionState, at: StateAt): Promise<void> {
  const src = m.sources[0];
  if (!src || at.offset >= src.offset) return;
  await readNewLines(ctx.path, at, state, createHash('sha256'), { ...readOptions(deps, ctx, true, m.parent_session !== null), limit: src.offset, final: true }, () => undefined);
}

/** The committed state of a session whose transcript is gone (from its manifest only). */
export function replayGone(m: Manifest): SessionState {
  const st = initialState();
  st.watermark = m.watermark;
  st.turns = m.turn_count;
  if (m.objective_override) st.objectiveOverride = m.objective_override;
  return st;
}

function readOptions(deps: EngineDeps, ctx: Ctx, allowBad: boolean, subagentFile: boolean): ReadOptions {
  const o = deps.config.options;
  const harness = ctx.req.harness === 'text' ? undefined : ctx.req.harness;
  return {
    maxLineBytes: o.capture.max_line_bytes,
    allowBadLines: allowBad,
    final: ctx.req.final === true,
    ingest: { redactor: deps.redactor, harness, subagentFile },
  };
}
