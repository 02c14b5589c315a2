/**
 * Merging handoff's hook entries into a harness's settings document (Claude Code's settings.json,
 * Codex's hooks.json: both `{"hooks": {<Event>: [{matcher?, hooks: [{type, command, timeout}]}]}}`)
 * and taking exactly them out again. Pure: documents in, documents out; the file work, backups and
 * the install record are in install.ts.
 */

import { jsonErrorReason } from '../core/ingest.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface HookEntry {
  /** The harness's event name: SessionStart, PreCompact. */
  event: string;
  /** Omitted from the group when null (every source or trigger). */
  matcher: string | null;
  command: string;
  /** Seconds, as both harnesses read it. */
  timeout: number;
}

export interface Plan {
  entries: HookEntry[];
  /** Claude Code only: the status line command. */
  statusLine: string | null;
}

export type StatusLineOutcome = 'added' | 'present' | 'updated' | 'kept-existing' | 'none';

export interface MergeResult {
  doc: JsonObject;
  added: HookEntry[];
  present: HookEntry[];
  /** An entry of ours with another command (an older install, another node) rewritten. */
  updated: HookEntry[];
  statusLine: StatusLineOutcome;
  /** The command of a statusLine that is not ours and was kept. */
  existingStatusLine: string | null;
  changed: boolean;
}

/**
 * A command handoff wrote: `<node> <…/cli.js> hook <event>`, `handoff hook <event>`, or the shell
 * status line `sh <…/hooks/handoff-statusline.sh> <run dir>`.
 */
const OURS = /(?:^|[\s'"/])(?:handoff|cli\.js)['"]?\s+hook\s+(?:session-start|pre-compact|statusline)\b/;
const OUR_SCRIPT = /^sh\s.*\/hooks\/handoff-statusline\.sh\b/;

export function isOurCommand(command: unknown): boolean {
  return typeof command === 'string' && (OURS.test(command) || OUR_SCRIPT.test(command));
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const clone = <T>(v: T): T => structuredClone(v);

function groupsOf(doc: JsonObject, event: string): Json[] | null {
  const hooks = doc.hooks;
  if (!isObject(hooks)) return null;
  const groups = hooks[event];
  return Array.isArray(groups) ? groups : null;
}

function handlersOf(group: Json): Json[] {
  return isObject(group) && Array.isArray(group.hooks) ? group.hooks : [];
}

function commandOf(handler: Json): string | null {
  return isObject(handler) && typeof handler.command === 'string' ? handler.command : null;
}

function matcherOf(group: Json): string | null {
  return isObject(group) && typeof group.matcher === 'string' && group.matcher.length > 0 ? group.matcher : null;
}

export function groupFor(e: HookEntry): JsonObject {
  return { ...(e.matcher === null ? {} : { matcher: e.matcher }), hooks: [{ type: 'command', command: e.command, timeout: e.timeout }] };
}

/** Whether the entry is there exactly: our command, in a group with our matcher. */
function hasExactly(doc: JsonObject, e: HookEntry): boolean {
  return (groupsOf(doc, e.event) ?? []).some((g) => matcherOf(g) === e.matcher && handlersOf(g).some((h) => commandOf(h) === e.command));
}

/**
 * Takes our handlers out of an event (those `keep` does not spare), dropping a group they leave
 * empty and an event they leave without groups. Other tools' handlers stay where they are.
 */
function dropOurs(doc: JsonObject, event: string, isOurs: (command: string) => boolean): number {
  const groups = groupsOf(doc, event);
  if (!groups) return 0;
  let removed = 0;
  const kept: Json[] = [];
  for (const g of groups) {
    if (!isObject(g) || !Array.isArray(g.hooks)) {
      kept.push(g);
      continue;
    }
    const handlers = g.hooks.filter((h) => {
      const c = commandOf(h);
      const ours = c !== null && isOurs(c);
      if (ours) removed += 1;
      return !ours;
    });
    if (handlers.length === g.hooks.length) kept.push(g);
    else if (handlers.length > 0) kept.push({ ...g, hooks: handlers });
  }
  const hooks = doc.hooks as JsonObject;
  if (kept.length > 0) hooks[event] = kept;
  else delete hooks[event];
  return removed;
}

export function mergeHooks(original: JsonObject, plan: Plan): MergeResult {
  const doc = clone(original);
  const out: MergeResult = { doc, added: [], present: [], updated: [], statusLine: 'none', existingStatusLine: null, changed: false };
  for (const e of plan.entries) {
    if (hasExactly(doc, e)) {
      out.present.push(e);
      continue;
    }
    const hadOurs = dropOurs(doc, e.event, isOurCommand) > 0;
    if (!isObject(doc.hooks)) doc.hooks = {};
    const hooks = doc.hooks as JsonObject;
    const groups = Array.isArray(hooks[e.event]) ? (hooks[e.event] as Json[]) : [];
    hooks[e.event] = [...groups, groupFor(e)];
    (hadOurs ? out.updated : out.added).push(e);
  }
  if (plan.statusLine !== null) {
    const current = doc.statusLine;
    const command = isObject(current) ? current.command : undefined;
    if (current === undefined || current === null) {
      doc.statusLine = { type: 'command', command: plan.statusLine, padding: 0 };
      out.statusLine = 'added';
    } else if (command === plan.statusLine) {
      out.statusLine = 'present';
    } else if (isOurCommand(command) && isObject(current)) {
      doc.statusLine = { ...current, command: plan.statusLine };
      out.statusLine = 'updated';
    } else {
      out.statusLine = 'kept-existing';
      out.existingStatusLine = typeof command === 'string' ? command : JSON.stringify(current);
    }
  }
  out.changed = out.added.length + out.updated.length > 0 || out.statusLine === 'added' || out.statusLine === 'updated';
  return out;
}

export interface RemoveResult {
  doc: JsonObject;
  removed: number;
  statusLineRemoved: boolean;
}

/**
 * Takes out the commands `mine` picks (with an install record: exactly those it lists), and the
 * `hooks` key when it is left empty and was not there before.
 */
export function removeHooks(original: JsonObject, mine: (command: string) => boolean, hooksKeyExisted: boolean): RemoveResult {
  const doc = clone(original);
  let removed = 0;
  if (isObject(doc.hooks)) {
    for (const event of Object.keys(doc.hooks)) removed += dropOurs(doc, event, mine);
    if (!hooksKeyExisted && Object.keys(doc.hooks).length === 0) delete doc.hooks;
  }
  let statusLineRemoved = false;
  if (isObject(doc.statusLine) && typeof doc.statusLine.command === 'string' && mine(doc.statusLine.command)) {
    delete doc.statusLine;
    statusLineRemoved = true;
  }
  return { doc, removed, statusLineRemoved };
}

/** Whether any command of ours is in the document (hooks or status line). */
export function hasAnyOurs(doc: JsonObject): boolean {
  const probe = removeHooks(doc, isOurCommand, true);
  return probe.removed > 0 || probe.statusLineRemoved;
}

export interface Present {
  /** Each planned entry: whether it is there exactly. */
  entries: { entry: HookEntry; present: boolean }[];
  statusLine: 'ours' | 'other' | 'none';
  /** Commands of ours in the file that the plan does not have (a stale install). */
  strays: string[];
}

export function inspect(doc: JsonObject, plan: Plan): Present {
  const planned = new Set(plan.entries.map((e) => e.command));
  const strays: string[] = [];
  if (isObject(doc.hooks)) {
    for (const event of Object.keys(doc.hooks)) {
      for (const g of groupsOf(doc, event) ?? []) for (const h of handlersOf(g)) {
        const c = commandOf(h);
        if (c !== null && isOurCommand(c) && !planned.has(c)) strays.push(c);
      }
    }
  }
  const sl = isObject(doc.statusLine) ? doc.statusLine.command : undefined;
  return {
    entries: plan.entries.map((entry) => ({ entry, present: hasExactly(doc, entry) })),
    statusLine: sl === undefined ? 'none' : isOurCommand(sl) ? 'ours' : 'other',
    strays,
  };
}

// ------------------------------------------------------------------ text

export interface TextStyle {
  indent: string;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

/** The indentation, line ends and final newline of a JSON text, so a rewrite looks like the original. */
export function textStyle(text: string): TextStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /\n([ \t]+)["}\]]/.exec(text);
  return { indent: m?.[1] ?? '  ', eol, finalNewline: text.length === 0 || /\r?\n$/.test(text) };
}

export function serialize(doc: JsonObject, style: TextStyle): string {
  const body = JSON.stringify(doc, null, style.indent).replace(/\n/g, style.eol);
  return style.finalNewline ? `${body}${style.eol}` : body;
}

export type Parsed = { ok: true; doc: JsonObject; empty: boolean } | { ok: false; why: string };

/** Strict JSON (the harnesses read strict JSON): an object, or an empty file. */
export function parseSettings(text: string): Parsed {
  if (text.trim().length === 0) return { ok: true, doc: {}, empty: true };
  let v: unknown;
  try {
    v = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    return { ok: false, why: `it is not strict JSON (${jsonErrorReason(e)}); comments and trailing commas are not allowed` };
  }
  if (!isObject(v)) return { ok: false, why: `it holds ${Array.isArray(v) ? 'an array' : typeof v}, not a JSON object` };
  return { ok: true, doc: v, empty: false };
}
