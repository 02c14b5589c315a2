import { isObj, num, str } from './harness/extract.js';

/**
 * The handoff as a model reads it right after a compaction: the facts of HANDOFF.summary.json
 * (and HANDOFF.llm.json where the summary has no such field yet), most important first, cut to a
 * token budget, with the absolute path of HANDOFF.md for the rest. Pure: the payloads come in as
 * parsed JSON and are read defensively, because they change shape between versions (a field this
 * reads may be missing, or hold something else, in a store written by another version).
 */

/** Tokens are estimated, not counted: 3 characters a token over-counts prose and fits code and paths. */
export const CHARS_PER_TOKEN = 3;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export interface DigestOptions {
  budgetTokens: number;
  /** Absolute path of the session's HANDOFF.md. */
  handoffPath: string;
  /** Why the agent gets it: its conversation was just compacted, or a compacted session was resumed. */
  reason: 'compact' | 'resume';
  /** Set when the handoff could not be brought up to date first: it may miss the last lines. */
  stale?: string | null;
}

export interface Digest {
  text: string;
  tokens: number;
  /** Section keys, in the order they appear. */
  included: string[];
  /** Sections that appear with some of their items left out. */
  shortened: string[];
  /** Sections that had something to say but did not fit at all. */
  omitted: string[];
}

/** Where a fact sits: a 1-based transcript line (summary fields) or a seq (older payload fields). */
type Ref = { line: number } | { seq: number };

interface Item {
  text: string;
  ref?: Ref | undefined;
}

interface Section {
  key: string;
  title: string;
  items: Item[];
  /** Which items to keep when not all fit: the first ones, or the latest ones. */
  keep: 'first' | 'last';
  /** How an item is written; a bullet by default. */
  style?: 'bullet' | 'plain' | 'quote';
  /** The most of the budget a list may take, so one long list cannot crowd out the rest. */
  share?: number;
}

const CAP = { objective: 800, next: 500, failure: 300, request: 300, state: 600, claim: 300, check: 160, path: 200, commit: 120, plan: 160 } as const;

// ------------------------------------------------------------------ reading the payloads

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function refOf(o: Record<string, unknown>, lineKey = 'line', seqKey = 'seq'): Ref | undefined {
  const line = num(o[lineKey]);
  if (line !== undefined) return { line };
  const seq = num(o[seqKey]);
  return seq === undefined ? undefined : { seq };
}

function refText(r: Ref | undefined): string {
  if (r === undefined) return '';
  return 'line' in r ? `line ${r.line}` : `seq ${r.seq}`;
}

/** One line of plain text: control characters out, whitespace runs folded, long text cut. */
function oneLine(s: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Text kept on several lines (the agent's last message), its start cut when long. */
function block(s: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const clean = s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').replace(/\n{3,}/g, '\n\n').trim();
  return clean.length <= max ? clean : `…${clean.slice(clean.length - max + 1)}`;
}

const withRef = (text: string, r: Ref | undefined): string => (r ? `${refText(r)}: ${text}` : text);

function objective(s: Record<string, unknown>): Item | null {
  const text = str(s.objective);
  if (!text) return null;
  const line = num(s.objective_line);
  return { text: oneLine(text, CAP.objective), ref: line === undefined ? undefined : { line } };
}

function nextAction(s: Record<string, unknown>): { item: Item; about: string } | null {
  const n = isObj(s.next_action) ? s.next_action : null;
  const text = n ? str(n.text) : undefined;
  if (!n || !text) return null;
  const rule = str(n.rule) ?? (str(n.source) && n.source !== 'unknown' ? str(n.source) : undefined);
  const ref = refOf(n);
  const about = [rule ? `rule: ${rule.replace(/_/g, ' ')}` : null, refText(ref) || null, str(n.label) ?? null].filter((x) => x !== null).join(', ');
  return { item: { text: oneLine(text, CAP.next) }, about };
}

function openFailures(s: Record<string, unknown>, llm: Record<string, unknown> | null): Item[] {
  if (Array.isArray(s.open_failures)) {
    return s.open_failures.filter(isObj).map((f) => ({ text: oneLine(str(f.text) ?? '', CAP.failure), ref: refOf(f) }));
  }
  return arr(llm?.failures)
    .filter(isObj)
    .map((f) => {
      const what = str(f.tool) ?? str(f.kind)?.replace(/_/g, ' ') ?? 'failure';
      const code = num(f.exit_code);
      return { text: oneLine(`${what}${code === undefined ? '' : ` (exit ${code})`}: ${str(f.text) ?? ''}`, CAP.failure), ref: refOf(f) };
    });
}

/** A message that is nothing but a harness's wrapper tags (`<command-name>/clear</command-name>`). */
const WRAPPER_ONLY = /^(?:<([a-z][\w-]*)>[^<]*<\/\1>\s*)+$/;

function requests(s: Record<string, unknown>, llm: Record<string, unknown> | null): { items: Item[]; title: string } {
  if (Array.isArray(s.requests)) {
    return { title: 'User requests and corrections', items: s.requests.filter(isObj).map((r) => ({ text: oneLine(str(r.text) ?? '', CAP.request), ref: refOf(r) })) };
  }
  // Older payloads have no request list: the user's messages among the recent turns stand in.
  const items = arr(llm?.turns)
    .filter(isObj)
    .filter((t) => t.class === 'USER' && typeof t.text === 'string' && t.text.trim().length > 0 && !WRAPPER_ONLY.test(t.text.trim()))
    .map((t) => ({ text: oneLine(str(t.text) ?? '', CAP.request), ref: refOf(t) }));
  return { title: 'The user\'s recent messages', items };
}

function stateNow(s: Record<string, unknown>): { text: string | null; end: string } {
  const end = isObj(s.end) && str(s.end.kind) ? `ended: ${str(s.end.kind)}${num(s.end.line) === undefined ? '' : `, line ${num(s.end.line)}`}` : '';
  const text = str(s.state_now);
  return { text: text ? block(text, CAP.state) : null, end };
}

function contradictions(s: Record<string, unknown>): Item[] {
  return arr(s.contradictions)
    .filter(isObj)
    .map((c) => {
      const claim = num(c.claim_line);
      const evidence = num(c.evidence_line);
      const where = [claim === undefined ? null : `claim line ${claim}`, evidence === undefined ? null : `evidence line ${evidence}`].filter((x) => x !== null).join(', ');
      return { text: oneLine(`${str(c.text) ?? ''}${where ? ` (${where})` : ''}`, CAP.claim + 40) };
    });
}

/** Test, build, type-check and lint runs; older payloads table every command, so these are picked out. */
const CHECK_LIKE = /\b(test|tests|pytest|jest|vitest|mocha|cargo (?:test|build|check|clippy)|go (?:test|build|vet)|npm (?:run )?(?:test|build|lint|check|typecheck)|pnpm (?:run )?(?:test|build|lint)|yarn (?:test|build|lint)|make\b|tsc\b|mvn|gradle|ruff|mypy|eslint|prettier --check|rspec|ctest|phpunit|tox|nox|bun test|deno test)\b/i;

function checks(s: Record<string, unknown>, llm: Record<string, unknown> | null): Item[] {
  const outcomeWord = (o: string | undefined): string => (o === 'fail' || o === 'failed' ? 'FAIL' : o === 'pass' || o === 'passed' ? 'pass' : 'unknown');
  if (Array.isArray(s.checks)) {
    return s.checks.filter(isObj).map((c) => ({ text: `${outcomeWord(str(c.outcome))} \`${oneLine(str(c.command) ?? '', CAP.check)}\``, ref: refOf(c) }));
  }
  // Latest run of each command first, failures ahead of the rest.
  const latest = new Map<string, Record<string, unknown>>();
  for (const c of arr(llm?.verification).filter(isObj)) {
    const cmd = str(c.command);
    if (cmd && CHECK_LIKE.test(cmd)) {
      latest.delete(cmd);
      latest.set(cmd, c);
    }
  }
  return [...latest.values()]
    .reverse()
    .sort((a, b) => Number(b.result === 'failed') - Number(a.result === 'failed'))
    .map((c) => ({ text: `${outcomeWord(str(c.result))} \`${oneLine(str(c.command) ?? '', CAP.check)}\``, ref: refOf(c, 'line', 'result_seq') ?? refOf(c) }));
}

function filesChanged(s: Record<string, unknown>, llm: Record<string, unknown> | null): { items: Item[]; title: string } {
  if (Array.isArray(s.files_changed)) {
    return {
      title: 'Files changed',
      items: s.files_changed.filter(isObj).map((f) => ({ text: `${oneLine(str(f.path) ?? '', CAP.path)}${str(f.how) ? ` (${oneLine(str(f.how) ?? '', 40)})` : ''}`, ref: refOf(f) })),
    };
  }
  const items = arr(llm?.files_touched)
    .filter(isObj)
    .map((f) => ({ text: `${oneLine(str(f.path) ?? '', CAP.path)}${str(f.tool) ? ` (${str(f.tool)})` : ''}`, ref: refOf(f, 'line', 'last_seq') }))
    .reverse();
  return { title: 'Files the session wrote to (attempts; HANDOFF.md says which writes succeeded)', items };
}

function filesNotChanged(s: Record<string, unknown>): Item[] {
  return arr(s.files_not_changed)
    .filter(isObj)
    .map((f) => ({ text: `${oneLine(str(f.path) ?? '', CAP.path)}: ${oneLine(str(f.reason) ?? 'not written', 120)}`, ref: refOf(f) }));
}

function commits(s: Record<string, unknown>): Item[] {
  return arr(s.commits)
    .filter(isObj)
    .map((c) => {
      const pushed = c.pushed === true ? 'pushed' : c.pushed === false ? 'NOT pushed' : 'push unknown';
      return { text: `${(str(c.hash) ?? '').slice(0, 10)} ${oneLine(str(c.subject) ?? '', CAP.commit)} (${pushed})`, ref: refOf(c) };
    });
}

function plan(llm: Record<string, unknown> | null): Item[] {
  const cs = isObj(llm?.current_state) ? llm.current_state : null;
  if (!cs) return [];
  const list = (key: string, mark: string): Item[] => arr(cs[key]).filter((t): t is string => typeof t === 'string').map((t) => ({ text: `${mark} ${oneLine(t, CAP.plan)}` }));
  return [...list('in_progress', '[~]'), ...list('not_started', '[ ]'), ...list('completed', '[x]')];
}

function repository(s: Record<string, unknown>): string | null {
  const g = isObj(s.git) ? s.git : null;
  if (!g || g.status !== 'ok') return null;
  const branch = str(g.branch) ?? 'a detached HEAD';
  const head = (str(g.head) ?? '').slice(0, 10);
  const dirty = g.dirty === true ? `, uncommitted changes in ${num(g.changed_total) ?? '?'} file(s)` : g.dirty === false ? ', clean' : '';
  return `${str(g.repo) ?? '?'}: ${branch}${head ? ` at ${head}` : ''}${dirty} (checked when the handoff was built)`;
}

// ------------------------------------------------------------------ writing it

function renderItem(i: Item, style: Section['style']): string {
  const text = withRef(i.text, i.ref);
  if (style === 'plain') return text;
  if (style === 'quote') return text.split('\n').map((l) => `> ${l}`).join('\n');
  return `- ${text}`;
}

function renderSection(title: string, lines: readonly string[]): string {
  return `\n## ${title}\n${lines.join('\n')}\n`;
}

function header(s: Record<string, unknown>, opts: DigestOptions): string {
  const session = isObj(s.session) ? s.session : {};
  const prov = isObj(s.provenance) ? s.provenance : {};
  const name = str(session.title) ?? str(session.id) ?? 'this session';
  const rev = num(prov.revision);
  const turns = num(prov.total_turns);
  const why = opts.reason === 'compact' ? 'Your conversation was just compacted.' : 'This session was resumed after a compaction.';
  const lines = [
    `# Handoff of this session: ${oneLine(name, 100)}`,
    `${why} This is its handoff, built from the transcript by handoffd without an LLM${rev === undefined ? '' : ` (revision ${rev}${turns === undefined ? '' : `, ${turns} turns`})`}. Facts cite their transcript line; where the compaction summary disagrees, trust these. All of it: ${opts.handoffPath}`,
  ];
  if (opts.stale) lines.push(`Note: ${opts.stale}`);
  return `${lines.join('\n')}\n`;
}

/** The sections in priority order; empty ones are dropped. */
function sections(s: Record<string, unknown>, llm: Record<string, unknown> | null): Section[] {
  const out: Section[] = [];
  const obj = objective(s);
  if (obj) out.push({ key: 'objective', title: `Objective${obj.ref ? ` (${refText(obj.ref)})` : ''}`, items: [{ text: obj.text }], keep: 'first', style: 'plain' });
  const next = nextAction(s);
  if (next) out.push({ key: 'next_action', title: `Next action${next.about ? ` (${next.about})` : ''}`, items: [next.item], keep: 'first', style: 'plain' });
  out.push({ key: 'open_failures', title: 'Open failures (no later run fixed them)', items: openFailures(s, llm), keep: 'last', share: 0.25 });
  const req = requests(s, llm);
  out.push({ key: 'requests', title: req.title, items: req.items, keep: 'last', share: 0.3 });
  const now = stateNow(s);
  if (now.text) out.push({ key: 'state_now', title: `State right now (the last message${now.end ? `; ${now.end}` : ''})`, items: [{ text: now.text }], keep: 'last', style: 'quote', share: 0.2 });
  out.push({ key: 'contradictions', title: 'Claims to double-check (the evidence contradicts them)', items: contradictions(s), keep: 'last', share: 0.15 });
  out.push({ key: 'checks', title: 'Checks (latest outcome)', items: checks(s, llm), keep: 'first', share: 0.15 });
  const changed = filesChanged(s, llm);
  out.push({ key: 'files_changed', title: changed.title, items: changed.items, keep: 'first', share: 0.15 });
  out.push({ key: 'files_not_changed', title: 'Writes that did not happen', items: filesNotChanged(s), keep: 'first', share: 0.1 });
  out.push({ key: 'commits', title: 'Commits', items: commits(s), keep: 'last', share: 0.1 });
  out.push({ key: 'plan', title: 'The agent\'s plan (its latest todo list)', items: plan(llm), keep: 'first', share: 0.15 });
  const repo = repository(s);
  if (repo) out.push({ key: 'repository', title: 'Repository', items: [{ text: repo }], keep: 'first', style: 'plain' });
  return out.filter((x) => x.items.length > 0);
}

/**
 * The most items of a section that fit in `room` characters, with a line saying how many were
 * left out. Single-item sections (objective, next action, state) are cut in their text instead.
 */
function fit(sec: Section, room: number): { text: string; cut: boolean } | null {
  const lines = sec.items.map((i) => renderItem(i, sec.style));
  const full = renderSection(sec.title, lines);
  if (full.length <= room) return { text: full, cut: false };
  if (sec.items.length === 1) {
    const only = sec.items[0] as Item;
    const spare = room - renderSection(sec.title, ['']).length - 12;
    if (spare < 80) return null;
    const cut = sec.style === 'quote' ? `…${only.text.slice(only.text.length - spare)}` : `${only.text.slice(0, spare)}…`;
    return { text: renderSection(sec.title, [renderItem({ ...only, text: cut }, sec.style)]), cut: true };
  }
  for (let k = lines.length - 1; k >= 1; k -= 1) {
    const kept = sec.keep === 'first' ? lines.slice(0, k) : lines.slice(lines.length - k);
    const more = `- … ${lines.length - k} ${sec.keep === 'first' ? 'more' : 'earlier'} in HANDOFF.md`;
    const text = renderSection(sec.title, sec.keep === 'first' ? [...kept, more] : [more, ...kept]);
    if (text.length <= room) return { text, cut: true };
  }
  return null;
}

const NAMES: Record<string, string> = {
  objective: 'objective',
  next_action: 'next action',
  open_failures: 'open failures',
  requests: 'requests',
  state_now: 'state right now',
  contradictions: 'claims to double-check',
  checks: 'checks',
  files_changed: 'files changed',
  files_not_changed: 'writes that did not happen',
  commits: 'commits',
  plan: 'plan',
  repository: 'repository',
};

/** Said when the full list of what was cut does not fit. */
const shortClosing = (budgetTokens: number): string => `\n(Cut to ${budgetTokens} tokens; HANDOFF.md has the rest.)\n`;

function closing(budgetTokens: number, omitted: readonly string[], shortened: readonly string[], room = Infinity): string {
  if (omitted.length + shortened.length === 0) return '';
  const long = longClosing(budgetTokens, omitted, shortened);
  return long.length <= room ? long : shortClosing(budgetTokens);
}

function longClosing(budgetTokens: number, omitted: readonly string[], shortened: readonly string[]): string {
  const names = (keys: readonly string[]): string => keys.map((k) => NAMES[k] ?? k).join(', ');
  return `\n(Cut to ${budgetTokens} tokens.${omitted.length ? ` Left out: ${names(omitted)}.` : ''}${shortened.length ? ` Shortened: ${names(shortened)}.` : ''} HANDOFF.md has all of it.)\n`;
}

export function buildDigest(summary: unknown, llm: unknown, opts: DigestOptions): Digest {
  const s = isObj(summary) ? summary : {};
  const l = isObj(llm) ? llm : null;
  const budget = Math.max(1, opts.budgetTokens) * CHARS_PER_TOKEN;
  const head = header(s, opts);
  const all = sections(s, l);
  const order = new Map(all.map((sec, i) => [sec.key, i]));
  const byOrder = (keys: string[]): string[] => keys.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  const parts: { key: string; text: string; cut: boolean }[] = [];
  const omitted: string[] = [];
  // Room is kept for the line that says what was cut (its short form when the budget is tight).
  const reserve = Math.max(shortClosing(opts.budgetTokens).length, Math.min(longClosing(opts.budgetTokens, all.map((x) => x.key), []).length, Math.floor(budget * 0.1)));
  let used = head.length + reserve;
  for (const sec of all) {
    const got = fit(sec, Math.min(budget - used, sec.share === undefined ? Infinity : Math.floor(budget * sec.share)));
    if (!got) {
      omitted.push(sec.key);
      continue;
    }
    parts.push({ key: sec.key, ...got });
    used += got.text.length;
  }
  // The closing line must fit too: the least important sections make room for it.
  const shortened = parts.filter((p) => p.cut).map((p) => p.key);
  const body = head + parts.map((p) => p.text).join('');
  let text = body + closing(opts.budgetTokens, byOrder(omitted), shortened, budget - body.length);
  // A header longer than a tiny budget is cut too: the budget is a promise.
  if (text.length > budget) text = `${text.slice(0, budget - 2)}…\n`;
  return { text, tokens: estimateTokens(text), included: parts.map((p) => p.key), shortened, omitted };
}
