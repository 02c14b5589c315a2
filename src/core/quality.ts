import { splitAtContract } from './contract.js';
import { Memo } from './memo.js';
import { scanForSecrets } from './secret-scan.js';

/**
 * The quality gate of seeds 002/003, limited to what a program can decide. It reads the
 * rendered HANDOFF.md (not the session state), so a hand-edit that breaks the handoff is caught
 * by `handoff check` just as a build would catch it.
 */

export interface GateCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface GateResult {
  transfer_ready: boolean;
  checks: GateCheck[];
  failed: string[];
}

/**
 * The body of each `## ` section of a HANDOFF.md, keyed by heading (the contract excluded). A
 * `## ` line inside a fenced block is text, not a heading: the agent's last message, quoted
 * verbatim, is often Markdown with headings of its own.
 */
export function sections(md: string): Map<string, string> {
  const out = new Map<string, string>();
  let title: string | null = null;
  let body: string[] = [];
  // The open fence's run of backticks: a fence closes with a line of at least as many, alone.
  let fence = 0;
  const flush = (): void => {
    if (title !== null) out.set(title.replace(/ \(last \d+ of \d+ turns\)$/, ''), body.join('\n').trim());
  };
  for (const line of md.split('\n')) {
    const ticks = /^`{3,}/.exec(line)?.[0].length ?? 0;
    if (fence === 0 && ticks > 0) fence = ticks;
    else if (fence > 0 && ticks >= fence && line.trim().length === ticks) fence = 0;
    else if (fence === 0 && line.startsWith('## ')) {
      flush();
      title = line.slice(3).trim();
      body = [];
      continue;
    }
    body.push(line);
  }
  flush();
  return out;
}

/**
 * The kinds of credential each short text holds, for the texts scanned lately: every refresh of
 * a session scans its window of recent turns again, and all but the newest were scanned before.
 */
const SCANNED_TEXT_CHARS = 2000;
// Up to twice this many texts are remembered (two generations): at most 8 MB of text.
const scannedKinds = new Memo<readonly string[]>(2048);
const scanKinds = (text: string): readonly string[] => scanForSecrets(text).map((h) => h.kind);

function kindsIn(text: string): readonly string[] {
  return text.length > SCANNED_TEXT_CHARS ? scanKinds(text) : scannedKinds.get(text, scanKinds);
}

const isNone = (body: string | undefined): boolean => body === undefined || body.trim() === '' || body.trim() === 'None';

export function runGate(md: string, extraTexts: readonly string[] = []): GateResult {
  const s = sections(md);
  const checks: GateCheck[] = [];
  const add = (name: string, ok: boolean, detail: string): void => void checks.push({ name, ok, detail });

  const objective = s.get('Objective (verbatim)');
  // A handoff that could not read one says so, *unknown* (older ones wrote None).
  const noObjective = isNone(objective) || (objective ?? '').trim().startsWith('*unknown*');
  add('objective_present', !noObjective, noObjective ? 'no objective: the transcript has no user request that could be read' : 'objective recorded');

  const next = s.get('Next Action') ?? '';
  const nextLine = next.split('\n').find((l) => l.trim().length > 0) ?? '';
  const nextLines = next.split('\n\n')[0]?.split('\n').filter((l) => l.trim().length > 0) ?? [];
  const executable = nextLine.length > 0 && !nextLine.startsWith('unknown');
  add('single_next_action', executable && nextLines.length === 1, !executable ? 'the next action is unknown' : nextLines.length === 1 ? 'exactly one next action' : `${nextLines.length} next actions; exactly one is required`);

  const repo = s.get('Repository Evidence') ?? '';
  const repoOk = /^\*verified\* at build time/m.test(repo) || /repository state unavailable: .+/.test(repo);
  add('repository_evidence', repoOk, repoOk ? (repo.startsWith('*verified*') ? 'verified at build time' : 'explicitly unavailable, with the reason') : 'neither verified nor explicitly unavailable');

  const ver = s.get('Verification') ?? '';
  const rows = ver.split('\n').filter((l) => /^\|.*\| passed \|/.test(l));
  const unbacked = rows.filter((l) => !/\| line \d+/.test(l));
  add('passed_claims_backed', unbacked.length === 0, unbacked.length === 0 ? `${rows.length} passed result(s), each with the line of its recorded result` : `${unbacked.length} "passed" claim(s) without the line of a recorded result`);

  const hits = [...scanForSecrets(md).map((h) => h.kind), ...extraTexts.flatMap(kindsIn)];
  add('no_secrets', hits.length === 0, hits.length === 0 ? 'second scan found no credential' : `second scan found ${hits.length}: ${[...new Set(hits)].join(', ')}`);

  const failures = s.get('Failures And Blockers');
  const partialStated = failures !== undefined && s.has('User requests and corrections') && s.has('Unknowns') && /How it ended: /.test(s.get('State right now (verbatim tail)') ?? '');
  add('partial_work_stated', partialStated, partialStated ? 'requests, how the session ended, failures and unknowns are stated' : 'the requests, how the session ended, the failures or the unknowns are missing');

  const contract = splitAtContract(md);
  add('sections_complete', contract !== null && s.has('Resume Instructions'), contract ? 'every section present' : 'the evidence contract section is missing');

  const failed = checks.filter((c) => !c.ok).map((c) => c.name);
  return { transfer_ready: failed.length === 0, checks, failed };
}
