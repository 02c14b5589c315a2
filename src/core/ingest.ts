import { classify } from './classify.js';
import { stripControls } from './control-chars.js';
import { cutBeforeRedaction, headEnd, SURROGATE_ESCAPE, tailStart, wellFormed } from './cut.js';
import { readClaude } from './harness/claude.js';
import { readCodex } from './harness/codex.js';
import { voteHarness } from './harness/detect.js';
import { isBlank, isObj } from './harness/extract.js';
import { readGeneric } from './harness/generic.js';
import type { RawLine } from './lines.js';
import { withoutBom } from './lines.js';
import { applyFact, noteTurn } from './reduce.js';
import type { Redactor } from './redact.js';
import type { SessionState } from './state.js';
import type { Harness, Observation, Turn } from './types.js';
import { sha256Hex } from './canonical.js';
import { TYPED_SECRET } from './harness/requests.js';
import { startedJobId } from './jobs.js';
import { generated, mentionedSecret, plainPrinted, printedSecrets, printsHow, printsPassword, readsSecretFile, readsSecretOrCopy, secretWord, writtenSecrets } from './redaction/printed.js';

export interface IngestOptions {
  redactor: Redactor;
  /** Force a harness instead of detecting it from the lines. */
  harness?: Exclude<Harness, 'text'> | undefined;
  /** The file is a subagent's own transcript: its sidechain lines are its main chain. */
  subagentFile?: boolean;
}

export interface CorruptLine {
  line: number;
  offset: number;
  reason: string;
  /** The fix, when the line says more than "not JSON" (a transcript written in UTF-16). */
  hint?: string;
}

export type IngestOutcome = { turn: Turn | null } | { corrupt: CorruptLine };

function observe(harness: Exclude<Harness, 'text'>, obj: Record<string, unknown>, st: SessionState): Observation {
  switch (harness) {
    case 'claude':
      return readClaude(obj);
    case 'codex':
      return readCodex(obj, st.codex);
    default:
      return readGeneric(obj);
  }
}

/**
 * A tool result's output is kept only to decide a check's outcome and quote the line that says
 * what failed: test runners print their verdict at the end, so the head and the tail are kept.
 */
const FACT_OUTPUT_CHARS = 2000;

/** Verdict lines from the middle of a long output (a test matrix prints one per job). */
const VERDICT_WORD = /fail|error|passed|succeeded|Diff in|would reformat|vulnerabilit|test result|Finished/gi;
const VERDICT_LINES = 40;

/** A line ends at any of the characters that end one for `.`, `^` and `$` of a multiline pattern. */
const endsLine = (c: number): boolean => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/**
 * The lines of `text` that hold a verdict word, each whole (what `/^.*(?:word|…).*$/gim` finds),
 * at most VERDICT_LINES. The words are looked for, not the lines: a line pattern backtracks over
 * every line of a long output, most of which hold no verdict.
 */
export function verdictLines(text: string): string[] {
  const out: string[] = [];
  const word = VERDICT_WORD;
  word.lastIndex = 0;
  for (let m = word.exec(text); m !== null; m = word.exec(text)) {
    let start = m.index;
    while (start > 0 && !endsLine(text.charCodeAt(start - 1))) start -= 1;
    let end = m.index + m[0].length;
    while (end < text.length && !endsLine(text.charCodeAt(end))) end += 1;
    out.push(cutBeforeRedaction(text.slice(start, end), 200));
    if (out.length >= VERDICT_LINES) break;
    word.lastIndex = end;
  }
  return out;
}

function headAndTail(v: string): string {
  if (v.length <= 2 * FACT_OUTPUT_CHARS) return v;
  // Cut between words: a redaction's tag stays whole.
  const head = headEnd(v, FACT_OUTPUT_CHARS);
  const tail = tailStart(v, FACT_OUTPUT_CHARS);
  const verdicts = verdictLines(v.slice(head, tail));
  const kept = verdicts.length === 0 ? '' : `${verdicts.join('\n')}\n…\n`;
  return `${v.slice(0, head)}\n…\n${kept}${v.slice(tail)}`;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * The longest text a line's string is redacted whole at: a longer one (a line of tens of MB is
 * valid JSON up to `max_line_bytes`) is read as its first 768 Ki and last 256 Ki characters around
 * a note, cut where no credential is split. Every store keeps far less of a text than this (a
 * timeline line 600 characters, a tool output's fact 4,000); what it bounds is the time one line
 * holds the daemon's thread, which grew with the line (50 MB: 17 to 30 s, the socket unanswered).
 */
const TEXT_READ_CHARS = 1 << 20;

function bounded(v: string): string {
  if (v.length <= TEXT_READ_CHARS) return v;
  const head = headEnd(v, (TEXT_READ_CHARS * 3) / 4);
  const tail = tailStart(v, TEXT_READ_CHARS / 4);
  return `${v.slice(0, head)}\n[… ${tail - head} characters not read: a text this long is read as its head and tail …]\n${v.slice(tail)}`;
}

/** How many typed secrets a session remembers (SessionState.typed). */
const TYPED_SECRETS = 16;
/** A typed secret too short to tell from a word by its digest is not looked for again. */
const TYPED_MIN_CHARS = 6;

/** A typed secret as the state keeps it: its length and five hex digits of its sha256. */
function typedDigest(v: string): string {
  const t = v.trim();
  return `${t.length}:${sha256Hex(`handoffd typed secret\n${t}`).slice(0, 5)}`;
}

/**
 * A word a typed secret is looked for as: what stands between spaces, quotes, `=`, `:`, brackets and
 * separators, and `→`, which parts the line number Claude Code's Read puts before each line.
 */
const TYPED_WORD = /[^\s'"`=:;,(){}[\]<>|&\\«»“”‘’→]+/g;
const WORD_CHAR = `[^\\s'"\`=:;,(){}[\\]<>|&\\\\«»“”‘’→]`;

/**
 * The words `maskTyped` must look at: those as long as a remembered secret (and a few characters of
 * a sentence's punctuation after it). A word of another length is passed over by the regular
 * expression, not by a call per word: a long tool output is mostly short words.
 */
function wordsBetween(min: number, max: number): RegExp {
  return new RegExp(`(?<!${WORD_CHAR})${WORD_CHAR}{${min},${max + 5}}(?!${WORD_CHAR})`, 'g');
}

/**
 * A text with every word that is a typed secret masked: a word as long as one is hashed and its
 * digest looked up (only in a session where one was typed, which is rare).
 */
function maskTyped(text: string, typed: readonly Mask[], words: RegExp = TYPED_WORD): { text: string; count: number } {
  let count = 0;
  // A word is hashed only when a remembered secret is as long and, for the remembered kinds that
  // only take such words, it is one: prose goes by at the cost of a length lookup and a regex test.
  const tagOf = (w: string): string | null => {
    for (const t of typed) if (t.lengths.has(w.length) && (t.gate === undefined || t.gate(w)) && t.digests.has(typedDigest(w))) return t.tag;
    return null;
  };
  const out = text.replace(words, (w: string, at: number) => {
    if (w.length < TYPED_MIN_CHARS) return w;
    const tag = tagOf(w);
    if (tag !== null) {
      count += 1;
      return tag;
    }
    // In JSON-escaped text a word after `\n` begins with its `n`: the secret is the rest.
    if (at > 0 && text[at - 1] === '\\' && /^[nrt]/.test(w)) {
      const rest = tagOf(w.slice(1));
      if (rest !== null) {
        count += 1;
        return w[0] + rest;
      }
    }
    // A sentence's full stop or a bracket after it is no part of it ("… the webhook with <secret>."),
    // nor Markdown's emphasis around it ("used **<secret>** for the call").
    const m = /^([*_~]*)(.*?)([*_~]*[.,!?)\]]*)$/s.exec(w);
    if (m === null || (m[1] === '' && m[3] === '')) return w;
    const core = m[2] as string;
    if (core.length < TYPED_MIN_CHARS) return w;
    const cut = tagOf(core);
    if (cut === null) return w;
    count += 1;
    return `${m[1]}${cut}${m[3]}`;
  });
  return { text: out, count };
}

/**
 * A memory of secrets (SessionState.typed, .printed, .labelled) with `fresh` digests added, the
 * latest `limit` kept: the same array when none is new, so what is built from it is built once.
 */
function remember(list: string[] | undefined, fresh: readonly string[], limit: number): string[] | undefined {
  const had = new Set(list ?? []);
  const added = fresh.filter((d, i) => !had.has(d) && fresh.indexOf(d) === i);
  return added.length === 0 ? list : [...(list ?? []), ...added].slice(-limit);
}

/** How many secrets printed alone a session remembers (SessionState.printed), and how many calls that print one. */
const PRINTED_SECRETS = 64;
/** How many printed secrets of plain words a session remembers (SessionState.plain): few, each looked for in every word of its length. */
const PLAIN_SECRETS = 8;
const SECRET_CALLS = 16;
/** What a secret a command printed alone is masked as. */
const PRINTED_SECRET = '[REDACTED:printed_secret]';
/** A secret word only its label gave away, where it comes again bare; how many a session remembers. */
const LABELLED_SECRET = '[REDACTED:labelled_secret]';
const LABELLED_SECRETS = 64;

/**
 * Calls of commands that print a secret alone, and reads of files that hold one, are remembered by
 * their id; what their result prints is then remembered as a secret, before any text of the line is
 * redacted (src/core/redaction/printed.ts). Read from the facts as the reader gave them, before the
 * redactor saw them: a command's words are its own.
 */
function notePrinted(obs: Observation, st: SessionState): void {
  // A call's id as the state keeps it: a digest, so that no text of the transcript's reaches the
  // state unredacted (an id is the harness's, but a line can say anything).
  const callKey = (id: string): string => sha256Hex(`handoffd call\n${id}`).slice(0, 16);
  // The mark a remembered call or shell carries (`v`, `m`, `p` or none), or null when it is not remembered.
  const markOf = (key: string): string | null => {
    for (const k of st.secretCalls ?? []) if (k.startsWith(key) && k.length - key.length <= 1) return k.slice(key.length);
    return null;
  };
  const keep = (key: string, mark: string): void => {
    st.secretCalls = [...(st.secretCalls ?? []), `${key}${mark}`].slice(-SECRET_CALLS);
  };
  for (const f of obs.facts) {
    if (f.t === 'wait') {
      // A poll of a shell that prints a secret (Claude Code's `BashOutput`, `TaskOutput`): its result is read so too.
      const mark = markOf(callKey(`shell ${f.cell.replace(/^shell:/, '')}`));
      if (mark !== null) keep(callKey(f.id), mark);
      continue;
    }
    if (f.t === 'tool_call') {
      // A call that prints values some of which may be secrets is kept with a mark: of its output,
      // only the generated-looking words are taken (`v`), and not a digest or a public id when the
      // call only names a secret's source (`m`).
      const how = f.command !== undefined ? printsHow(f.command) : f.read !== undefined && readsSecretOrCopy(f.read) ? 'secret' : null;
      // `p`: a secret printed by a name that says password (`printenv DB_PASSWORD`), which a person
      // may have made up short (`hunter2`): a one-word output of 6 or 7 characters is taken too.
      if (how !== null) keep(callKey(f.id), how === 'values' ? 'v' : how === 'mentioned' ? 'm' : how === 'secret' && f.command !== undefined && printsPassword(f.command) ? 'p' : '');
      // Codex's `write_stdin` to a running session that prints a secret: its answer is that session's output.
      else if (f.polls !== undefined) {
        const mark = markOf(callKey(`shell ${f.polls.session}`));
        if (mark !== null) keep(callKey(f.id), mark);
      }
      // A file whose name says it holds a secret, written by an edit tool: the call's text is its
      // input (`Write {"file_path": …, "content": "…"}`), short for such a file.
      // JSON's escapes are undone first: `"content":"a\nSummer2024!#x"` holds the word after the `\n`.
      const tool = f.writes !== undefined && obs.text.length <= 2000 && f.writes.some((w) => readsSecretFile(w.path)) ? printedSecrets(obs.text.replace(/\\[nrt]/g, '\n').replace(/\\"/g, '"')) : [];
      const written = [...tool, ...(f.command === undefined ? [] : writtenSecrets(f.command))];
      st.printed = remember(st.printed, written.map(typedDigest), PRINTED_SECRETS);
    } else if (f.t === 'tool_result' && f.output !== undefined && st.secretCalls !== undefined) {
      const key = callKey(f.id);
      const password = st.secretCalls.includes(`${key}p`);
      const secret = password || st.secretCalls.includes(key);
      const mentioned = !secret && st.secretCalls.includes(`${key}m`);
      if (!secret && !mentioned && !st.secretCalls.includes(`${key}v`)) continue;
      // Still running, or moved to the background: what it prints comes by later polls of its shell.
      const shell = startedJobId(f.output);
      if (shell !== null) keep(callKey(`shell ${shell}`), password ? 'p' : secret ? '' : mentioned ? 'm' : 'v');
      const words = printedSecrets(f.output).filter((w) => secret || (mentioned ? mentionedSecret(w) : generated(w)));
      st.printed = remember(st.printed, words.map(typedDigest), PRINTED_SECRETS);
      if (secret) st.plain = remember(st.plain, plainPrinted(f.output, password).map(typedDigest), PLAIN_SECRETS);
    }
  }
}

/** Remembered secrets of one kind, as `maskTyped` looks for them; `gate`: what every one of them is (printed.ts secretWord). */
interface Mask {
  digests: ReadonlySet<string>;
  lengths: ReadonlySet<number>;
  tag: string;
  gate?: (w: string) => boolean;
}

const maskSet = (digests: readonly string[] | undefined, tag: string, gate?: (w: string) => boolean): Mask[] =>
  digests === undefined || digests.length === 0 ? [] : [{ digests: new Set(digests), lengths: new Set(digests.map((d) => Number(d.slice(0, d.indexOf(':'))))), tag, ...(gate === undefined ? {} : { gate }) }];

/** A session's masks and the words they look at, built again only when one of its memories changed. */
type Masks = { sets: Mask[]; words: RegExp } | null;
const builtMasks = new WeakMap<SessionState, { from: readonly (string[] | undefined)[]; masks: Masks }>();

function masksOf(st: SessionState): Masks {
  const from = [st.typed, st.printed, st.labelled, st.plain];
  const was = builtMasks.get(st);
  if (was !== undefined && was.from.every((x, i) => x === from[i])) return was.masks;
  const sets = [...maskSet(st.typed, TYPED_SECRET), ...maskSet(st.printed, PRINTED_SECRET, secretWord), ...maskSet(st.labelled, LABELLED_SECRET, secretWord), ...maskSet(st.plain, PRINTED_SECRET)];
  const lengths = sets.flatMap((t) => [...t.lengths]);
  const masks = sets.length === 0 ? null : { sets, words: wordsBetween(Math.max(TYPED_MIN_CHARS, Math.min(...lengths)), Math.max(...lengths)) };
  builtMasks.set(st, { from, masks });
  return masks;
}

/** Redacts every string an observation carries before anything is kept. */
function sanitize(obs: Observation, st: SessionState, redactor: Redactor): void {
  // Secrets the user typed on this line are remembered first: the line's other texts may repeat them.
  if (obs.typed !== undefined) {
    st.typed = remember(st.typed, obs.typed.filter((v) => v.trim().length >= TYPED_MIN_CHARS).map(typedDigest), TYPED_SECRETS);
    delete obs.typed;
  }
  if (obs.facts.length > 0) notePrinted(obs, st);
  let typed = masksOf(st);
  // Control sequences go first, so none can split a credential the redactor must see whole.
  const clean = (v: string): string => {
    const r = redactor.redact(stripControls(bounded(v)));
    st.redactions += r.count;
    // A word only its label gave away is remembered, and masked where it comes bare, in this text too.
    if (r.bare !== undefined) {
      st.labelled = remember(st.labelled, r.bare.map(typedDigest), LABELLED_SECRETS);
      typed = masksOf(st);
    }
    if (typed === null) return r.text;
    const m = maskTyped(r.text, typed.sets, typed.words);
    st.redactions += m.count;
    return m.text;
  };
  // Read with what the line says beside it (a shell call's description), which is not kept, when
  // that names an AWS key id: the one rule that reads a value by what another field holds.
  const aside = obs.aside !== undefined && AWS_KEY_ID.test(obs.aside) ? obs.aside : undefined;
  delete obs.aside;
  obs.text = aside === undefined ? clean(obs.text) : cleanBeside(aside, obs.text, clean);
  // Names and ids copied from the line reach the timeline, TOOLS.md and the manifest too.
  obs.kind = clean(obs.kind);
  // A time in ISO 8601 form holds digits and separators only: no credential fits in it, and
  // each line's is new, so the redactor's memory of short texts would only miss.
  if (obs.ts !== null && !ISO_TIME.test(obs.ts)) obs.ts = clean(obs.ts);
  if (obs.unknown !== undefined) obs.unknown = clean(obs.unknown);
  if (obs.tool) obs.tool = { ...obs.tool, name: clean(obs.tool.name), id: safeKey(clean(obs.tool.id)) };
  for (const f of obs.facts) {
    // Keys rather than entries: facts come in many shapes, and listing pairs of each is a slow
    // path of the engine. Only the current key is written, so reading it here reads what the
    // fact held when the loop began.
    const rec = f as Record<string, unknown>;
    // Fields redacted with their neighbour are not redacted again (a second pass over a redaction's tag is no fixed point).
    const pair = JOINT[f.t];
    const done = pair === undefined ? null : redactJointly(rec, pair, clean);
    if (f.t === 'tool_call' && typeof rec.job === 'object' && rec.job !== null) {
      const job = rec.job as Record<string, unknown>;
      const both = redactJointly(job, ['description', 'command'], clean);
      // Whatever else a job carries is redacted as every string is.
      rec.job = both === null ? cleanDeep(job, clean, 0) : { ...(cleanDeep(Object.fromEntries(Object.entries(job).filter(([k]) => !both.includes(k))), clean, 0) as object), description: job.description, command: job.command };
    }
    const beside = aside !== undefined && f.t === 'tool_call' && typeof rec.command === 'string' ? cleanBeside(aside, rec.command, clean) : null;
    if (beside !== null) rec.command = beside;
    for (const k of Object.keys(rec)) {
      if (k === 't' || (done !== null && done.includes(k)) || (k === 'command' && beside !== null) || (k === 'job' && f.t === 'tool_call')) continue;
      const v = rec[k];
      // Each removal counts, so a credential both in a turn and in its fact counts twice.
      // An output is redacted whole, then cut: a cut first may part a value from its label on a
      // long line, and the part kept would be a value the redactor cannot tell from any word. The
      // whole is the turn's text, just redacted: the redactor remembers it.
      if (typeof v === 'string') rec[k] = KEY_FIELDS.has(k) ? safeKey(clean(v)) : k === 'output' ? headAndTail(clean(v)) : clean(v);
      else if (typeof v === 'object' && v !== null) rec[k] = cleanDeep(v, clean, 0);
    }
  }
}

/**
 * Fields of one call that may name a credential in one and give it in the other: a task's subject
 * and its description, a subagent's description and its prompt, a background job's description and
 * its command ("Wire AKIA… into CI" and "Paste <the secret key> into the settings"). When one names
 * an AWS key id, they are redacted as one text, then parted again (redactJointly); redacted apart,
 * the second held a bare value the redactor cannot tell from any word.
 */
const JOINT: Partial<Record<string, readonly [string, string]>> = { task_create: ['subject', 'description'], subagent: ['description', 'prompt'] };
/** Between the two fields while they are redacted together: no credential spans it, and no field holds it. */
const FIELD_BREAK = '\n\n§§ handoffd: the next field §§\n\n';

/** An AWS access key id: its secret key is told from any other 40 characters by the id near it (src/core/redaction/providers.ts). */
const AWS_KEY_ID = /(?:AKIA|ASIA)[A-Z0-9]{16}/;

/** Two texts redacted as one, then parted again; null when they cannot be (a removal took the break with it). */
function cleanTogether(x: string, y: string, clean: (s: string) => string): [string, string] | null {
  if (x.includes(FIELD_BREAK) || y.includes(FIELD_BREAK)) return null;
  const both = clean(`${x}${FIELD_BREAK}${y}`);
  const at = both.indexOf(FIELD_BREAK);
  return at === -1 || both.indexOf(FIELD_BREAK, at + 1) !== -1 ? null : [both.slice(0, at), both.slice(at + FIELD_BREAK.length)];
}

/** `text` redacted as read after `aside`; `text` redacted alone when the two cannot be parted again. */
function cleanBeside(aside: string, text: string, clean: (s: string) => string): string {
  return cleanTogether(aside, text, clean)?.[1] ?? clean(text);
}

/**
 * The two fields redacted as one text, when the first names an AWS key id (the one rule that
 * reads a value by what stands near it and may stand in the other field: the label rules stop at
 * a line's end, and a text-wide rule, such as the reading of base64 in a text that speaks of a
 * secret, would reach from one field into the other — the twenty-fifth red team's 26 false
 * positives). The keys it redacted, or null when it left both to be redacted alone.
 */
function redactJointly(rec: Record<string, unknown>, [a, b]: readonly [string, string], clean: (s: string) => string): string[] | null {
  const x = rec[a];
  const y = rec[b];
  if (typeof x !== 'string' || typeof y !== 'string' || !AWS_KEY_ID.test(`${x} ${y}`)) return null;
  // Left unparted, each is then redacted alone.
  const both = cleanTogether(x, y, clean);
  if (both === null) return null;
  [rec[a], rec[b]] = both;
  return [a, b];
}

/** The fields of a fact that the state keys records by (call ids, message ids). */
const KEY_FIELDS = new Set(['id', 'call', 'cell', 'uuid', 'parent', 'parentUuid', 'leaf', 'forkedFrom']);

/**
 * An id the state may key a record by, safe as a key of a plain object: an id named like one of
 * Object.prototype's members (`constructor`, `toString`, `__proto__`) would read that member, or
 * set the record's prototype, where no record was ever written. Such an id (never a real
 * harness's: theirs are random) gets a trailing `_`.
 */
export function safeKey(id: string): string {
  return PROTO_NAMES.has(id) ? `${id}_` : id;
}
/** Object.prototype's members by name (a Set: `id in Object.prototype` interns every id it is asked about). */
const PROTO_NAMES: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__']);

/** How deep a fact's values are cleaned: facts are a few levels deep; anything deeper is dropped. */
const FACT_DEPTH = 8;

/**
 * Every string a fact holds, at any depth (a write's path and what it defines, a background job's
 * command and description, a todo item), cleaned: a fact's shape never decides what the redactor
 * reads. A copy; numbers, booleans and null as they are.
 */
function cleanDeep(v: object, clean: (s: string) => string, depth: number): unknown {
  if (depth >= FACT_DEPTH) return null;
  if (Array.isArray(v)) return v.map((item: unknown) => (typeof item === 'string' ? clean(item) : typeof item === 'object' && item !== null ? cleanDeep(item, clean, depth + 1) : item));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    out[k] = typeof x === 'string' ? clean(x) : typeof x === 'object' && x !== null ? cleanDeep(x, clean, depth + 1) : x;
  }
  return out;
}

/**
 * A time the front matter may give: ISO 8601 whose month, day, hour, minute and second are in
 * range (not `2026-13-45T99:99:99Z`), as V8's own parser checks them; one test per line, no parse.
 */
const VALID_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** Whether time `a` is before time `b`: as text when both are UTC ISO 8601 of one shape (nearly always), else as dates. */
function earlier(a: string, b: string): boolean {
  if (a.length === b.length && a.endsWith('Z') && b.endsWith('Z')) return a < b;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return Number.isFinite(ta) && Number.isFinite(tb) ? ta < tb : false;
}

/** Distinct unknown record types kept per session; the rest count as `(other)`. */
const MAX_UNKNOWN_TYPES = 100;

/** A record type is a short name; anything else (free text, a credential) is counted, not kept. */
function unknownTypeKey(st: SessionState, type: string): string {
  if (!/^[A-Za-z0-9_.:/-]{1,64}$/.test(type)) return '(other)';
  if (st.unknownTypes[type] === undefined && Object.keys(st.unknownTypes).length >= MAX_UNKNOWN_TYPES) return '(other)';
  return type;
}

/** Every string of a parsed value with a surrogate standing alone made U+FFFD (as an invalid UTF-8 byte already is). */
function wellFormedValue(v: unknown): unknown {
  if (typeof v === 'string') return wellFormed(v);
  if (Array.isArray(v)) return v.map(wellFormedValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[wellFormed(k)] = wellFormedValue(x);
    return out;
  }
  return v;
}

/**
 * JSON.parse's complaint without the excerpt of the line V8 quotes in it ("Unexpected token 'A',
 * "AKIAIOSFOD"... is not valid JSON"): a corrupt line may hold a credential, and this reason travels
 * to logs, the socket and the terminal.
 */
export function jsonErrorReason(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  const pos = /at position (\d+)/.exec(m)?.[1];
  let what = 'unexpected character';
  if (/end of JSON input|Unterminated string/i.test(m)) what = 'the value ends before it is complete';
  else if (/non-whitespace character after JSON/i.test(m)) what = 'unexpected text after the value';
  else if (/Bad control character/i.test(m)) what = 'a control character inside a string';
  else if (/Bad escaped character|Bad Unicode escape/i.test(m)) what = 'a bad escape inside a string';
  return pos === undefined ? what : `${what} (at character ${pos})`;
}

/** Why a file could not be read as JSON: a parse error without V8's excerpt, any other error as it is (a read's). */
export function notJsonReason(e: unknown): string {
  return e instanceof SyntaxError ? jsonErrorReason(e) : e instanceof Error ? e.message : String(e);
}

/**
 * A line with a NUL between its characters was written in UTF-16 (Windows PowerShell's `>` and
 * `Out-File` write it): it is not JSON as read, and the fix is to convert it, not to repair it.
 */
function utf16(text: string): { reason: string; hint: string } | null {
  let nuls = 0;
  const n = Math.min(text.length, 400);
  for (let i = 0; i < n; i += 1) if (text.charCodeAt(i) === 0) nuls += 1;
  if (nuls * 3 < n) return null;
  return {
    reason: 'it has a NUL byte between every two characters: the transcript is written in UTF-16, not UTF-8',
    hint: 'convert the transcript to UTF-8 (`iconv -f UTF-16 -t UTF-8 <file> > <copy>`) and build the copy; Claude Code and Codex write UTF-8, so something else rewrote this file',
  };
}

/**
 * Folds one complete line into the session state, returning the turn it emits (if any). The
 * state is mutated in place; callers work on a copy and keep it only when the build commits.
 */
export function ingestLine(st: SessionState, line: RawLine, opts: IngestOptions): IngestOutcome {
  st.lines = line.index + 1;
  if (line.text === null) {
    st.oversized += 1;
    st.oversizedAt = { line: line.index + 1, offset: line.offset, bytes: line.bytes };
    st.skipped += 1;
    return { turn: null };
  }
  if (line.text.trim().length === 0) {
    st.skipped += 1;
    return { turn: null };
  }
  let parsed: unknown;
  // A byte-order mark is an encoding artefact, never content: at the file's start, and at a line's
  // where transcripts were joined (`cat a.jsonl b.jsonl`, the second written with one).
  const raw = withoutBom(line.text);
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    const wide = utf16(raw);
    return { corrupt: { line: line.index + 1, offset: line.offset, reason: wide?.reason ?? jsonErrorReason(e), ...(wide ? { hint: wide.hint } : {}) } };
  }
  // A surrogate written as an escape may stand alone (`"\ud800"`): kept so, it would go into the
  // store's JSON as an escape other readers refuse (jq: "Invalid \uXXXX\uXXXX surrogate pair").
  if (SURROGATE_ESCAPE.test(raw)) {
    try {
      parsed = wellFormedValue(parsed);
    } catch (e) {
      if (e instanceof RangeError) return { corrupt: { line: line.index + 1, offset: line.offset, reason: `the line is nested too deep to read (${e.message})` } };
      throw e;
    }
  }
  if (!isObj(parsed)) {
    st.skipped += 1;
    return { turn: null };
  }
  if (st.harness === null) {
    const vote = opts.harness ?? voteHarness(parsed);
    if (vote === null) {
      st.skipped += 1;
      return { turn: null };
    }
    st.harness = vote;
  }
  const harness = st.harness === 'text' ? 'generic' : st.harness;
  let obs: Observation;
  try {
    obs = observe(harness, parsed, st);
    sanitize(obs, st, opts.redactor);
  } catch (e) {
    // A line nested deeper than a reader's recursion goes (valid JSON, which JSON.parse reads
    // without recursing) is a line that cannot be read: said as one, with its line and offset.
    if (e instanceof RangeError) return { corrupt: { line: line.index + 1, offset: line.offset, reason: `the line is nested too deep to read (${e.message})` } };
    throw e;
  }
  const seqField = parsed.seq;
  const seq = typeof seqField === 'number' && Number.isFinite(seqField) ? seqField : line.index;
  const main = opts.subagentFile === true || obs.sidechain !== true;
  if (obs.unknown !== undefined) {
    const key = unknownTypeKey(st, obs.unknown);
    st.unknownTypes[key] = (st.unknownTypes[key] ?? 0) + 1;
  }
  // Only a line that is a turn gives a time (the front matter's first_turn_at and last_turn_at): a
  // Codex token count written after the last turn is no turn of the session's.
  if (obs.ts !== null && !isBlank(obs.text) && VALID_TIME.test(obs.ts)) {
    // The earliest and the latest time, not the first and last line's: records are not always
    // written in time order (Claude Code writes a session's leading summaries and notes after
    // lines they precede). A notice (a local command's caveat, a command's wrapper) is no turn:
    // it gives the first time only when nothing came before it (Claude Code 1.0 stamped a caveat
    // written after the session's last turn with a time before its first).
    if (st.meta.firstTs === undefined || (obs.notice !== true && earlier(obs.ts, st.meta.firstTs))) st.meta.firstTs = obs.ts;
    if (st.meta.lastTs === undefined || !earlier(obs.ts, st.meta.lastTs)) st.meta.lastTs = obs.ts;
  }
  for (const fact of obs.facts) applyFact(st, fact, seq, main, line.index + 1, obs.ts ?? undefined);
  if (isBlank(obs.text) || seq <= st.watermark) {
    st.skipped += 1;
    return { turn: null };
  }
  const turn: Turn = { seq, ts: obs.ts, class: classify(obs), text: obs.text };
  if (obs.tool) {
    const name = obs.tool.name || st.toolNames[obs.tool.id] || 'tool';
    turn.tool = obs.tool.ok === undefined ? { name, id: obs.tool.id } : { name, id: obs.tool.id, ok: obs.tool.ok };
  } else if (turn.class === 'TOOL') {
    turn.tool = { name: obs.kind || 'tool', id: '' };
  }
  // Generic JSONL has no harness knowledge of wrappers: a user turn is a request as it stands.
  if (harness === 'generic' && turn.class === 'USER' && obs.notice !== true) applyFact(st, { t: 'request', text: turn.text, kind: 'request' }, seq, main, line.index + 1);
  noteTurn(st, turn, main, obs.notice === true, line.index + 1, obs.context === true);
  return { turn };
}

/** Folds turns of the text format (which carry no facts) into the state. */
export function ingestTextTurn(st: SessionState, turn: Turn, redactor: Redactor): Turn | null {
  if (turn.seq <= st.watermark) return null;
  const r = redactor.redact(stripControls(turn.text));
  st.redactions += r.count;
  const t: Turn = { ...turn, text: r.text };
  if (t.class === 'USER') applyFact(st, { t: 'request', text: t.text, kind: 'request' }, t.seq, true, t.seq + 1);
  noteTurn(st, t, true, false);
  return t;
}
