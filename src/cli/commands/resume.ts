import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Engine } from '../../engine/index.js';
import { gitProbe } from '../../engine/index.js';
import { inferProject } from '../../engine/identity.js';
import type { ResolvedConfig } from '../../config.js';
import { redactedGit } from '../../core/evidence.js';
import { Redactor } from '../../core/redact.js';
import type { DriftReport } from '../../core/drift.js';
import { compareGit, describeBranch, describeDirty } from '../../core/drift.js';
import type { GitEvidence } from '../../core/evidence.js';
import { sections } from '../../core/quality.js';
import { resumeInstruction } from '../../core/render/handoff-md.js';
import { EXIT, NotFoundError, UsageError } from '../../errors.js';
import type { IndexEntry } from '../../store/index-file.js';
import { FILES } from '../../store/layout.js';
import { readManifest } from '../../store/manifest.js';
import { bool } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { paint } from '../io.js';
import { openStore, resolvePrefix } from '../store.js';

/**
 * `handoff resume`: what an agent needs before it continues someone else's session — the
 * resume instruction, the handoff's path, its Next Action, and whether the repository still
 * looks the way the handoff recorded it. Read-only: it never changes the store or the repository.
 */

interface NextAction {
  text: string;
  rule: string | null;
  label: string | null;
  line: number | null;
}

/** The most recently updated session of the project the current folder belongs to. */
async function latest(io: Io, config: ResolvedConfig, engine: Engine): Promise<IndexEntry> {
  const { project, source } = await inferProject(undefined, io.cwd, io.cwd, gitProbe(config));
  const mine = engine.index.all().filter((e) => e.project === project);
  // A subagent's transcript grows with its parent's; the session to resume is the parent.
  const main = mine.filter((e) => e.parent_session === null);
  const pick = (main.length > 0 ? main : mine).sort((a, b) => b.updated.localeCompare(a.updated) || a.id.localeCompare(b.id))[0];
  if (!pick) {
    const how = source === 'config' ? 'the project_name of a handoff.config.json above it' : source === 'git' ? 'its git top-level' : 'its folder name';
    throw new NotFoundError(`no sessions of project "${project}" in ${config.root} (project inferred from ${io.cwd} by ${how})`, {
      hint: 'run it from the project\'s folder, or name the session: `handoff resume <id-prefix>` (`handoff list` shows every session and its project)',
    });
  }
  return pick;
}

/** The Next Action from HANDOFF.llm.json, else the first line of HANDOFF.md's section. */
async function nextAction(dir: string, md: string): Promise<NextAction> {
  try {
    const llm = JSON.parse(await readFile(join(dir, FILES.llm), 'utf8')) as { next_action?: Partial<NextAction> };
    const n = llm.next_action;
    if (n && typeof n.text === 'string') return { text: n.text, rule: n.rule ?? null, label: n.label ?? null, line: n.line ?? null };
  } catch {
    // Fall back to what the Markdown says.
  }
  const text = (sections(md).get('Next Action') ?? '').split('\n').find((l) => l.trim().length > 0) ?? 'unknown';
  return { text: text.trim(), rule: null, label: null, line: null };
}

const short = (v: string | null, field: string): string => (v === null ? '-' : field === 'head' ? v.slice(0, 12) : v);

function gitView(g: GitEvidence): Record<string, unknown> {
  return { status: g.status, reason: g.reason, cwd: g.cwd, repository: g.top, branch: describeBranch(g), head: g.head, dirty: g.dirty, state: describeDirty(g), captured_at: g.captured_at };
}

function printText(io: Io, r: { entry: IndexEntry; path: string; next: NextAction; recorded: GitEvidence; now: GitEvidence; drift: DriftReport }): void {
  const { entry, path, next, recorded, now, drift } = r;
  // With no source the text itself already says it is unknown and why.
  const sourced = next.label !== null && next.rule !== null && next.rule !== 'unknown';
  const how = sourced ? `  [${next.label} — ${(next.rule ?? '').replace(/_/g, ' ')}${next.line === null ? '' : `, line ${next.line}`}]` : '';
  io.out(resumeInstruction(path));
  io.out('');
  io.out(`session:     ${entry.id} (project ${entry.project}, rev ${entry.revisions}, updated ${entry.updated})`);
  io.out(`handoff:     ${path}`);
  io.out(`next action: ${next.text}${how}`);
  io.out('');
  io.out(`repository state, recorded ${recorded.captured_at ?? '(unknown time)'} → now:`);
  const drifted = new Set(drift.items.map((i) => i.field));
  const rows: [string, string, string | null, string | null][] = [
    ['folder', 'cwd', recorded.cwd, now.status === 'cwd-gone' ? 'gone' : now.cwd],
    ['repository', 'repository', recorded.top ?? `none (${recorded.status})`, now.top ?? `none (${now.status})`],
    ['branch', 'branch', describeBranch(recorded), describeBranch(now)],
    ['HEAD', 'head', recorded.head, now.head],
    ['dirty', 'dirty', describeDirty(recorded), describeDirty(now)],
  ];
  for (const [label, field, was, is] of rows) {
    const mark = drifted.has(field as DriftReport['items'][number]['field']) ? `  ${paint(io, 'red', 'DRIFT')}` : '';
    io.out(`  ${label.padEnd(10)}  ${short(was, field)} → ${short(is, field)}${mark}`);
  }
  if (drift.status === 'none') io.out(`no drift: ${drift.summary}`);
  else if (drift.status === 'unknown') io.out(`drift unknown: ${drift.summary}; check the repository by hand before acting`);
  else io.out(`${paint(io, 'yellow', 'drift')}: ${drift.summary} — report it before acting; never reset, check out or discard changes to recreate the recorded state`);
}

export const resumeCommand: Command = {
  name: 'resume',
  maxArgs: 1,
  summary: "print a handoff's resume instruction, its Next Action and how the repository drifted since",
  usage: 'handoff resume <id-prefix> | --latest [--json]',
  example: 'handoff resume --latest',
  details:
    '--latest takes the most recently updated session of the project the current folder belongs to\n' +
    '(inferred as a build would: project_name of a config above it, its git top-level, its name).\n' +
    'Drift compares repository, branch, HEAD and clean/dirty now with what the handoff recorded; it changes nothing.',
  options: {
    latest: { type: 'boolean', description: "the latest session of this folder's project" },
  },
  async run(io, args) {
    const prefix = args.positionals[0];
    const useLatest = bool(args, 'latest');
    if (useLatest === (prefix !== undefined)) {
      throw new UsageError(`handoff resume: give an id prefix or --latest${useLatest ? ', not both' : ''}`, { hint: `usage: ${resumeCommand.usage}` });
    }
    const { config, engine } = await openStore(io, args);
    const entry = await engine.current(useLatest ? await latest(io, config, engine) : resolvePrefix(engine.index, prefix as string, config.root));
    const manifest = await readManifest(entry.dir);
    if (!manifest) throw new NotFoundError(`${entry.dir} has no manifest.json`, { hint: '`handoff verify --all` reports damaged sessions' });
    const path = join(entry.dir, FILES.handoff);
    const md = await readFile(path, 'utf8').catch(() => '');
    const next = await nextAction(entry.dir, md);
    // Redacted as a build redacts the capture it records (the configured patterns too): compared
    // raw, a branch a pattern redacts always read as drift, and was printed whole.
    const now = redactedGit(new Redactor(config.redactionPatterns), await gitProbe(config).capture(manifest.cwd));
    const drift = compareGit(manifest.git, now);
    if (bool(args, 'json')) {
      io.out(
        JSON.stringify(
          { session: entry.id, project: entry.project, handoff: path, instruction: resumeInstruction(path), next_action: next, drift: { ...drift, recorded: gitView(manifest.git), now: gitView(now) } },
          null,
          2,
        ),
      );
    } else printText(io, { entry, path, next, recorded: manifest.git, now, drift });
    return EXIT.OK;
  },
};
