import { TOOLS_TEXT } from '../../src/core/excerpt.js';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { score } from '../../bench/fidelity-score.js';
import type { Card } from '../../bench/fidelity-score.js';
import { Redactor } from '../../src/core/redact.js';
import { corpusFiles, corpusPresent, CORPUS, readJson, runCli, tempDir, testEnv } from '../helpers.js';

/**
 * Fidelity over the real corpus: what a handoff says about a transcript is compared with what
 * this test reads from the transcript itself, with nothing but JSON.parse — none of the
 * product's readers. When ../shared/corpus is absent the suite says so and skips.
 */

if (!corpusPresent) {
  console.warn(`[fidelity] SKIPPED: the shared corpus is not at ${CORPUS}; the fidelity suite did not run`);
}

const EMPTY = /2c5941bd-b9de-41d6-9414-221d175776f7/;
const MALFORMED = /__malformed__/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Command {
  tool: string;
  command: string;
  /** The record holds nothing but tool calls, so its turn is a TOOL turn (SPEC §3 rule 1). */
  toolTurn: boolean;
  /** Runs a shell command: a code-mode script only when it calls tools.exec_command. */
  shell: boolean;
}

interface Expected {
  model: string | null;
  used: number | null;
  /** Codex only: the window the telemetry reports. */
  window: number | null;
  edited: Set<string>;
  commands: Command[];
  /** Shell calls whose arguments cannot be read (the corpus's sanitized Codex files). */
  unrecoverable: number;
}

function records(file: string): Obj[] {
  const out: Obj[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const o = JSON.parse(line) as unknown;
      if (isObj(o)) out.push(o);
    } catch {
      // Blank, unfinished or corrupt lines carry nothing to compare.
    }
  }
  return out;
}

const EDIT_PATH: Record<string, string> = { Edit: 'file_path', MultiEdit: 'file_path', Write: 'file_path', NotebookEdit: 'notebook_path' };

function claudeExpected(recs: Obj[]): Expected {
  const e: Expected = { model: null, used: null, window: null, edited: new Set(), commands: [], unrecoverable: 0 };
  // A subagent's own transcript is on the side chain throughout: every line of it is its own.
  const flagged = recs.filter((r) => typeof r.isSidechain === 'boolean');
  const ownSidechain = flagged.length > 0 && flagged.every((r) => r.isSidechain === true);
  for (const r of recs) {
    const msg = r.message;
    if (r.type !== 'assistant' || !isObj(msg)) continue;
    const main = ownSidechain || r.isSidechain !== true;
    // `<synthetic>` marks a message Claude Code wrote itself (an API error notice), not a model.
    if (main && typeof msg.model === 'string' && msg.model !== '<synthetic>') e.model = msg.model;
    const u = msg.usage;
    // Nor is its usage (zeros) a reading of the context: no model was sent it.
    if (main && msg.model !== '<synthetic>' && isObj(u) && typeof u.input_tokens === 'number') {
      e.used = u.input_tokens + (Number(u.cache_creation_input_tokens) || 0) + (Number(u.cache_read_input_tokens) || 0);
    }
    const blocks = Array.isArray(msg.content) ? msg.content.filter(isObj) : [];
    const toolTurn = blocks.length > 0 && blocks.every((b) => b.type === 'tool_use');
    for (const b of blocks) {
      if (b.type !== 'tool_use' || !isObj(b.input)) continue;
      const name = String(b.name);
      const key = EDIT_PATH[name];
      if (key !== undefined && typeof b.input[key] === 'string') e.edited.add(b.input[key] as string);
      if (name === 'Bash' && typeof b.input.command === 'string') e.commands.push({ tool: name, command: b.input.command, toolTurn, shell: true });
    }
  }
  return e;
}

const PATCH_HEADER = /^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;

function argv(cmd: unknown): string | null {
  if (!Array.isArray(cmd) || !cmd.every((c) => typeof c === 'string')) return null;
  const [sh, flag, script] = cmd as string[];
  if (cmd.length === 3 && /(^|\/)(ba|z|)sh$/.test(sh ?? '') && /^-\w*c$/.test(flag ?? '')) return script ?? null;
  return (cmd as string[]).join(' ');
}

function codexCommand(name: string, args: unknown): string | null {
  if (name === 'exec') return typeof args === 'string' ? args : null;
  let parsed: unknown = args;
  if (typeof args === 'string') {
    try {
      parsed = JSON.parse(args);
    } catch {
      return null;
    }
  }
  if (!isObj(parsed)) return null;
  if (typeof parsed.cmd === 'string') return parsed.cmd;
  if (typeof parsed.command === 'string') return parsed.command;
  return argv(parsed.command);
}

function codexExpected(recs: Obj[]): Expected {
  const e: Expected = { model: null, used: null, window: null, edited: new Set(), commands: [], unrecoverable: 0 };
  for (const r of recs) {
    const p = isObj(r.payload) ? r.payload : {};
    if (r.type === 'turn_context' && typeof p.model === 'string') e.model = p.model;
    if (r.type === 'event_msg' && p.type === 'token_count' && isObj(p.info)) {
      const last = p.info.last_token_usage;
      // A count of nothing (0 tokens, the window 0 too: a fixture's placeholder) is no reading.
      if (isObj(last) && typeof last.total_tokens === 'number' && last.total_tokens > 0) {
        e.used = last.total_tokens;
        e.window = typeof p.info.model_context_window === 'number' ? p.info.model_context_window : null;
      }
      // Codex 0.50 and before (FORMATS.md): `info{prompt, completion}`, the last request's tokens in and out.
      if (last === undefined && typeof p.info.prompt === 'number') e.used = p.info.prompt + (typeof p.info.completion === 'number' ? p.info.completion : 0);
    }
    if (r.type !== 'response_item' || (p.type !== 'function_call' && p.type !== 'custom_tool_call')) continue;
    const name = String(p.name);
    const args = p.type === 'custom_tool_call' ? p.input : p.arguments;
    if (name === 'apply_patch') {
      const text = typeof args === 'string' ? args : '';
      for (const m of text.matchAll(PATCH_HEADER)) e.edited.add((m[1] ?? m[2] ?? '').trim());
      if (!text.includes('*** ')) {
        try {
          const inner = JSON.parse(text) as unknown;
          if (isObj(inner) && typeof inner.input === 'string') for (const m of inner.input.matchAll(PATCH_HEADER)) e.edited.add((m[1] ?? m[2] ?? '').trim());
        } catch {
          // Sanitized: the patch text is gone.
        }
      }
    }
    if (!['exec_command', 'shell', 'exec', 'shell_command'].includes(name)) continue;
    const command = codexCommand(name, args);
    if (command === null) e.unrecoverable += 1;
    else e.commands.push({ tool: name, command, toolTurn: true, shell: name !== 'exec' || command.includes('tools.exec_command(') });
  }
  return e;
}

interface Built {
  manifest: { model: string | null; context: { used: number | null; limit: number | null; limit_source: string | null }; redactions: number };
  llm: { files_touched: { path: string }[]; files_changed: { path: string }[]; files_not_changed: { path: string }[]; files_redone: { path: string; line: number }[]; checks: { command: string }[]; counts: { commands: number } };
  summary: Record<string, unknown>;
  tools: string;
  timeline: string;
  frontMatter: Map<string, string>;
  md: string;
  mdBytes: number;
}

async function build(file: string): Promise<Built> {
  const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-fidelity-') });
  const r = await runCli(['build', file, '--json', ...(MALFORMED.test(file) ? ['--allow-bad-lines'] : [])], { env });
  expect(r.code, r.err).toBe(0);
  const dir = (JSON.parse(r.out) as { dir: string }).dir;
  const md = await readFile(join(dir, 'HANDOFF.md'), 'utf8');
  const fm = new Map((/^---\n([\s\S]*?)\n---/.exec(md)?.[1] ?? '').split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)] as [string, string]));
  return {
    manifest: await readJson(join(dir, 'manifest.json')),
    llm: await readJson(join(dir, 'HANDOFF.llm.json')),
    summary: await readJson(join(dir, 'HANDOFF.summary.json')),
    tools: await readFile(join(dir, 'TOOLS.md'), 'utf8'),
    timeline: await readFile(join(dir, 'timeline.jsonl'), 'utf8'),
    frontMatter: fm,
    md,
    mdBytes: Buffer.byteLength(md),
  };
}

/**
 * The truth cards' rule (corpus/truth/README.md): the store joins a relative path to the folder it
 * was written in, so a handoff's path names an edited file when one ends with the other at a `/`.
 */
function sameFile(stored: string, edited: string): boolean {
  const a = stored.replace(/\\/g, '/');
  const b = edited.replace(/\\/g, '/');
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}

const yamlString = (v: string | number | null): string => (v === null ? 'null' : typeof v === 'number' ? String(v) : v);

const files = corpusFiles().filter((f) => !EMPTY.test(f));
const redactor = new Redactor([]);
const harnessOf = (f: string): 'claude' | 'codex' => (f.includes('/codex/') ? 'codex' : 'claude');

describe.skipIf(!corpusPresent)('fidelity: a handoff agrees with an independent reading of its transcript', () => {
  describe.each(files.map((f) => [basename(f), f]))('%s', (_name, file) => {
    const recs = records(file);
    const want = harnessOf(file) === 'codex' ? codexExpected(recs) : claudeExpected(recs);
    // Built once for both tests: the suite runs beside timing-sensitive daemon tests.
    let once: Promise<Built> | null = null;
    const built = (): Promise<Built> => (once ??= build(file));

    it('reports the model and the context tokens the transcript records', async () => {
      const b = await built();
      expect(b.manifest.model).toBe(want.model);
      expect(b.frontMatter.get('model')).toBe(yamlString(want.model));
      expect(b.manifest.context.used).toBe(want.used);
      expect(b.frontMatter.get('context_used_tokens')).toBe(yamlString(want.used));
      if (want.window !== null && want.window > 0) {
        expect(b.manifest.context).toMatchObject({ limit: want.window, limit_source: 'telemetry' });
        expect(b.frontMatter.get('context_limit_tokens')).toBe(String(want.window));
      }
    });

    it('accounts for every edit call and keeps every shell command, redacted as the store redacts', async () => {
      const b = await built();
      // Signal first, noise cut: a handoff of any corpus session reads in one sitting.
      expect(b.mdBytes).toBeLessThanOrEqual(16 * 1024);
      // Every file an edit call named is either changed, not changed (with the reason), or the
      // call had no recorded result; none disappears.
      const touched = b.llm.files_touched.map((f) => f.path);
      expect([...want.edited].filter((f) => !touched.some((t) => sameFile(t, f)))).toEqual([]);
      const accounted = [...b.llm.files_changed, ...b.llm.files_not_changed].map((f) => f.path);
      const unaccounted = [...want.edited].filter((f) => !accounted.some((a) => sameFile(a, f)));
      expect(unaccounted.length, `edits with neither outcome: ${unaccounted.slice(0, 5).join(', ')}`).toBeLessThanOrEqual(Math.ceil(want.edited.size * 0.1));
      // Code-mode scripts whose tools.exec_command argument is not a JSON literal (built in a variable,
      // a template string) are not read as commands; they stay tool turns with their script in full.
      const shells = want.commands.filter((c) => c.shell).length;
      expect(b.llm.counts.commands).toBeGreaterThanOrEqual(shells - Math.ceil(shells * 0.05));
      // TOOLS.md holds every TOOL turn (SPEC §4); a record that mixes text with a tool call is an
      // AGENT turn (SPEC §3), whose full text is in the timeline instead. The comparison redacts
      // the expected text with the product's redactor: a credential in a command is never stored.
      // A long text is kept as its head and tail (docs/FORMAT.md): its head must be there.
      const missing = want.commands.filter((c) => {
        const whole = redactor.redact(`${c.tool}: ${c.command}`).text;
        const text = whole.length <= TOOLS_TEXT.max ? whole : whole.slice(0, TOOLS_TEXT.head / 2);
        return !(c.toolTurn ? b.tools : b.timeline).includes(c.toolTurn ? text : JSON.stringify(text).slice(1, -1));
      });
      expect(missing.map((c) => c.command.slice(0, 80))).toEqual([]);
      // A write that failed and was made later is said, never hidden behind a bare "None" (a
      // full handoff of a Codex session on Windows did, its two failed patches redone file by file).
      const notDone = b.md.slice(b.md.indexOf('### Writes that did not happen'), b.md.indexOf('### Commits made'));
      if (b.llm.files_redone.length > 0) {
        expect(notDone).toMatch(/\d+ file\(s\) had a write that was refused or failed,? .*written successfully after it/);
        expect(b.llm.files_redone.some((f) => new RegExp(`\\b${f.line}\\b`).test(notDone))).toBe(true);
      }
    });
  });

  it('recovers every Codex shell command whose arguments survive, and says how many do not', async () => {
    const codex = files.filter((f) => harnessOf(f) === 'codex');
    let recoverable = 0;
    let unrecoverable = 0;
    let kept = 0;
    for (const f of codex) {
      const want = codexExpected(records(f));
      recoverable += want.commands.length;
      unrecoverable += want.unrecoverable;
      if (want.unrecoverable === 0) continue;
      // The sanitized calls are still there as tool turns, with the placeholder the corpus holds.
      const b = await build(f);
      kept += b.tools.split('[REDACTED_ARGUMENTS').length - 1;
    }
    // The corpus is sanitized: most Codex shell calls carry "[REDACTED_ARGUMENTS …]" (331 of 333
    // when this was written), so only the recoverable ones are compared, file by file, above.
    const tally = `${recoverable} Codex shell command(s) recoverable, ${unrecoverable} sanitized`;
    expect(recoverable, tally).toBeGreaterThan(0);
    expect(kept, tally).toBeGreaterThanOrEqual(unrecoverable);
  });
});

const TRUTH = join(CORPUS, 'truth');

function cards(): [string, Card][] {
  const out: [string, Card][] = [];
  for (const h of ['claude-code', 'codex']) {
    const dir = join(TRUTH, h);
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
    } catch {
      continue;
    }
    for (const n of names) out.push([n, JSON.parse(readFileSync(join(dir, n), 'utf8')) as Card]);
  }
  return out;
}

describe.skipIf(!corpusPresent)('truth cards: a handoff makes no false claim about a real session', () => {
  it.each(cards())('%s', async (_name, card) => {
    const b = await build(join(CORPUS, card.transcript));
    const s = score(card, b.summary);
    const falseClaims = s.misses.filter((m) => /^FALSE/.test(m));
    expect(falseClaims).toEqual([]);
    expect(s.files_false + s.checks_false_pass + s.closed_shown_open).toBe(0);
    // The facts a resuming agent starts from are right.
    expect(s.objective.hit, s.misses.join('\n')).toBe(1);
    expect(s.end.hit, s.misses.join('\n')).toBe(1);
    expect(s.model.hit).toBe(1);
    // What is still broken, and what to do next: every failure the card holds open is open in the
    // handoff (a rule that stopped counting one went unnoticed here once), and the next action is
    // one the card allows.
    expect(s.open_failures.hit, s.misses.join('\n')).toBe(s.open_failures.of);
    expect(s.next_action.hit, s.misses.join('\n')).toBe(1);
  });
});
