/**
 * Scores one handoff against one truth card (`../shared/corpus/truth/README.md` defines the
 * fields and the scores). Pure: the card, the handoff's HANDOFF.summary.json and its HANDOFF.md
 * in, numbers out. `npm run fidelity` prints them; the conformance suite asserts the false-claim
 * counts are zero over the whole corpus.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface Card {
  transcript: string;
  harness: string;
  model: string | null;
  context: { used: number | null; limit: number | null };
  objective: { line: number; keywords: string[] };
  requests: { line: number; keywords: string[] }[];
  files_changed: (string | { path: string; line?: number })[];
  files_not_changed: (string | { path: string; line?: number })[];
  checks: { line: number; command: string; outcome: 'pass' | 'fail' }[];
  open_failures: { line: number; keywords: string[] }[];
  closed_failures: { line: number; keywords: string[] }[];
  commits: { hash: string; keywords?: string[]; pushed: boolean | null }[];
  end: { kind: string; line: number };
  next_action: { keywords_any: string[]; why?: string };
  contradictions: { claim_line: number; evidence_line: number; claim: string }[];
}

/** A fraction with its parts, so totals are sums of parts and not means of ratios. */
export interface Share {
  hit: number;
  of: number;
}

export interface Scores {
  objective: Share;
  requests: Share;
  files_recall: Share;
  files_false: number;
  checks_recall: Share;
  checks_false_pass: number;
  open_failures: Share;
  closed_shown_open: number;
  commits: Share;
  end: Share;
  next_action: Share;
  contradictions: Share;
  model: Share;
  context: Share;
  /** What missed, for a reader of the report. */
  misses: string[];
}

const lower = (s: string): string => s.toLowerCase();
const says = (text: string, keywords: readonly string[]): boolean => keywords.every((k) => lower(text).includes(lower(k)));
const saysAny = (text: string, keywords: readonly string[]): boolean => keywords.some((k) => lower(text).includes(lower(k)));

function cardPath(p: string | { path: string }): string {
  return typeof p === 'string' ? p : p.path;
}

/** One path ends with the other at a `/` boundary (README: relative paths join the cwd). */
export function samePath(a: string, b: string): boolean {
  const x = a.replace(/\\/g, '/').replace(/^\.\//, '');
  const y = b.replace(/\\/g, '/').replace(/^\.\//, '');
  if (x === y) return true;
  const [long, short] = x.length >= y.length ? [x, y] : [y, x];
  return long.endsWith(short) && long[long.length - short.length - 1] === '/';
}

const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function score(card: Card, summary: Obj): Scores {
  const misses: string[] = [];
  const share = (hit: number, of: number): Share => ({ hit, of });

  const objective = str(summary.objective);
  const objHit = says(objective, card.objective.keywords) ? 1 : 0;
  if (!objHit) misses.push(`objective: wanted ${JSON.stringify(card.objective.keywords)} (line ${card.objective.line}), got ${JSON.stringify(objective.slice(0, 120))} (line ${String(summary.objective_line)})`);

  const requests = arr(summary.requests).map((r) => str(r.text));
  let reqHit = 0;
  for (const r of card.requests) {
    if (requests.some((t) => says(t, r.keywords))) reqHit += 1;
    else misses.push(`request at line ${r.line} ${JSON.stringify(r.keywords)} not listed`);
  }

  const changed = arr(summary.files_changed).map((f) => str(f.path));
  let filesHit = 0;
  for (const f of card.files_changed) {
    const p = cardPath(f);
    if (changed.some((c) => samePath(c, p))) filesHit += 1;
    else misses.push(`changed file not listed: ${p}`);
  }
  let filesFalse = 0;
  for (const f of card.files_not_changed) {
    const p = cardPath(f);
    if (changed.some((c) => samePath(c, p))) {
      filesFalse += 1;
      misses.push(`FALSE: ${p} listed as changed, but its write did not happen`);
    }
  }

  const checks = arr(summary.checks);
  let checksHit = 0;
  let falsePass = 0;
  for (const c of card.checks) {
    const mine = checks.find((x) => x.line === c.line);
    if (mine) checksHit += 1;
    else misses.push(`check at line ${c.line} not listed: ${c.command.slice(0, 80)}`);
    if (mine && mine.outcome === 'pass' && c.outcome === 'fail') {
      falsePass += 1;
      misses.push(`FALSE PASS: line ${c.line} ${c.command.slice(0, 80)}`);
    }
  }

  const open = arr(summary.open_failures);
  const openText = (o: Obj): string => str(o.text);
  let openHit = 0;
  for (const f of card.open_failures) {
    if (open.some((o) => o.line === f.line || says(openText(o), f.keywords))) openHit += 1;
    else misses.push(`open failure at line ${f.line} ${JSON.stringify(f.keywords)} not listed`);
  }
  let closedOpen = 0;
  for (const f of card.closed_failures) {
    if (open.some((o) => o.line === f.line)) {
      closedOpen += 1;
      misses.push(`FALSE OPEN: the failure at line ${f.line} ${JSON.stringify(f.keywords)} was resolved later`);
    }
  }

  const commits = arr(summary.commits);
  let commitHit = 0;
  for (const c of card.commits) {
    const mine = commits.find((x) => {
      const h = str(x.hash);
      return h.length >= 7 && (c.hash.startsWith(h) || h.startsWith(c.hash));
    });
    if (mine && mine.pushed === c.pushed) commitHit += 1;
    else misses.push(`commit ${c.hash} ${mine ? `pushed=${String(mine.pushed)}, card says ${String(c.pushed)}` : 'not listed'}`);
  }

  const end = isObj(summary.end) ? summary.end : {};
  const endHit = end.kind === card.end.kind ? 1 : 0;
  if (!endHit) misses.push(`end: card ${card.end.kind} (line ${card.end.line}), handoff ${String(end.kind)} (line ${String(end.line)})`);

  const na = isObj(summary.next_action) ? summary.next_action : {};
  const naText = str(na.text);
  const naHit = na.label !== 'unknown' && na.rule !== 'unknown' && saysAny(naText, card.next_action.keywords_any) ? 1 : 0;
  if (!naHit) misses.push(`next action: wanted one of ${JSON.stringify(card.next_action.keywords_any)}, got ${JSON.stringify(naText.slice(0, 160))}`);

  const contra = arr(summary.contradictions);
  let contraHit = 0;
  for (const c of card.contradictions) {
    if (contra.some((x) => x.evidence_line === c.evidence_line)) contraHit += 1;
    else misses.push(`contradiction not flagged: claim ${c.claim_line}, evidence ${c.evidence_line}`);
  }

  const session = isObj(summary.session) ? summary.session : {};
  const modelHit = session.model === card.model ? 1 : 0;
  if (!modelHit) misses.push(`model: card ${String(card.model)}, handoff ${String(session.model)}`);
  const ctx = isObj(summary.context) ? summary.context : {};
  const ctxHit = ctx.used === card.context.used && (card.context.limit === null || ctx.limit === card.context.limit) ? 1 : 0;
  if (!ctxHit) misses.push(`context: card ${JSON.stringify(card.context)}, handoff used ${String(ctx.used)} limit ${String(ctx.limit)}`);

  return {
    objective: share(objHit, 1),
    requests: share(reqHit, card.requests.length),
    files_recall: share(filesHit, card.files_changed.length),
    files_false: filesFalse,
    checks_recall: share(checksHit, card.checks.length),
    checks_false_pass: falsePass,
    open_failures: share(openHit, card.open_failures.length),
    closed_shown_open: closedOpen,
    commits: share(commitHit, card.commits.length),
    end: share(endHit, 1),
    next_action: share(naHit, 1),
    contradictions: share(contraHit, card.contradictions.length),
    model: share(modelHit, 1),
    context: share(ctxHit, 1),
    misses,
  };
}

export const SHARE_KEYS = ['objective', 'requests', 'files_recall', 'checks_recall', 'open_failures', 'commits', 'end', 'next_action', 'contradictions', 'model', 'context'] as const;
export const COUNT_KEYS = ['files_false', 'checks_false_pass', 'closed_shown_open'] as const;

/** The issue's targets over all cards: a share at least this, a count at most this. */
export const TARGETS: Record<(typeof SHARE_KEYS)[number] | (typeof COUNT_KEYS)[number], number> = {
  objective: 1,
  requests: 0.9,
  files_recall: 0.95,
  checks_recall: 0.9,
  open_failures: 0,
  commits: 0,
  end: 0.9,
  next_action: 0.9,
  contradictions: 0.6,
  model: 0,
  context: 0,
  files_false: 0,
  checks_false_pass: 0,
  closed_shown_open: 0,
};

export function total(all: readonly Scores[]): Omit<Scores, 'misses'> {
  const sum = (k: (typeof SHARE_KEYS)[number]): Share => ({ hit: all.reduce((n, s) => n + s[k].hit, 0), of: all.reduce((n, s) => n + s[k].of, 0) });
  const count = (k: (typeof COUNT_KEYS)[number]): number => all.reduce((n, s) => n + s[k], 0);
  return {
    objective: sum('objective'),
    requests: sum('requests'),
    files_recall: sum('files_recall'),
    files_false: count('files_false'),
    checks_recall: sum('checks_recall'),
    checks_false_pass: count('checks_false_pass'),
    open_failures: sum('open_failures'),
    closed_shown_open: count('closed_shown_open'),
    commits: sum('commits'),
    end: sum('end'),
    next_action: sum('next_action'),
    contradictions: sum('contradictions'),
    model: sum('model'),
    context: sum('context'),
  };
}

export const pct = (s: Share): string => (s.of === 0 ? '—' : `${Math.round((100 * s.hit) / s.of)} %`);
