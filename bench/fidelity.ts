import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { COUNT_KEYS, pct, score, SHARE_KEYS, TARGETS, total } from './fidelity-score.js';
import type { Card, Scores } from './fidelity-score.js';
import { PROJECT } from './generate.js';

/**
 * `npm run fidelity [-- --json] [-- --write] [-- --misses]`: builds every transcript that has a
 * truth card into a temporary store and scores its HANDOFF.summary.json against the card.
 * `--write` puts the table into docs/FIDELITY.md between its markers.
 */

const args = new Set(process.argv.slice(2));
const CORPUS = join(PROJECT, '..', 'shared', 'corpus');
const TRUTH = join(CORPUS, 'truth');
const CLI = join(PROJECT, 'dist', 'cli.js');

interface Row {
  card: string;
  scores: Scores;
}

function cards(): { file: string; card: Card }[] {
  const out: { file: string; card: Card }[] = [];
  for (const h of ['claude-code', 'codex']) {
    const dir = join(TRUTH, h);
    if (!existsSync(dir)) continue;
    for (const n of readdirSync(dir).sort()) {
      if (n.endsWith('.json')) out.push({ file: join(dir, n), card: JSON.parse(readFileSync(join(dir, n), 'utf8')) as Card });
    }
  }
  return out;
}

async function buildOne(card: Card): Promise<Record<string, unknown>> {
  const root = await mkdtemp(join(tmpdir(), 'handoff-fidelity-'));
  try {
    const home = await mkdtemp(join(tmpdir(), 'handoff-fidelity-home-'));
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), HANDOFFS_ROOT: root, NO_COLOR: '1' };
    const out = execFileSync(process.execPath, [CLI, 'build', join(CORPUS, card.transcript), '--json'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const dir = (JSON.parse(out) as { dir: string }).dir;
    const summary = JSON.parse(readFileSync(join(dir, 'HANDOFF.summary.json'), 'utf8')) as Record<string, unknown>;
    await rm(home, { recursive: true, force: true });
    return summary;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const short = (t: string): string => basename(t, '.jsonl').replace(/^handgemacht-ai__claude-code-log__test__test_data__real_projects__/, '').replace(/^jnarowski__agentcmd__packages__agent-cli-sdk__tests__fixtures__/, 'agentcmd:').slice(0, 48);

function table(rows: Row[]): string {
  const head = ['card', ...SHARE_KEYS, ...COUNT_KEYS];
  const fmt = (s: Omit<Scores, 'misses'>): string[] => [...SHARE_KEYS.map((k) => pct(s[k])), ...COUNT_KEYS.map((k) => String(s[k]))];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${[r.card, ...fmt(r.scores)].join(' | ')} |`);
  const t = total(rows.map((r) => r.scores));
  lines.push(`| **all ${rows.length} cards** | ${fmt(t).map((x) => `**${x}**`).join(' | ')} |`);
  const tgt = ['target', ...SHARE_KEYS.map((k) => (TARGETS[k] === 0 ? '—' : `≥ ${Math.round(TARGETS[k] * 100)} %`)), ...COUNT_KEYS.map(() => '0')];
  lines.push(`| ${tgt.join(' | ')} |`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  if (!existsSync(TRUTH)) {
    process.stderr.write(`fidelity: no truth cards at ${TRUTH}; nothing scored\n`);
    process.exitCode = 4;
    return;
  }
  const rows: Row[] = [];
  for (const { card } of cards()) rows.push({ card: short(card.transcript), scores: score(card, await buildOne(card)) });
  if (args.has('--json')) {
    process.stdout.write(`${JSON.stringify({ cards: rows, total: total(rows.map((r) => r.scores)) }, null, 2)}\n`);
    return;
  }
  const text = table(rows);
  process.stdout.write(`${text}\n`);
  if (args.has('--misses')) {
    for (const r of rows) {
      if (r.scores.misses.length === 0) continue;
      process.stdout.write(`\n${r.card}\n${r.scores.misses.map((m) => `  - ${m}`).join('\n')}\n`);
    }
  }
  if (args.has('--write')) {
    const doc = join(PROJECT, 'docs', 'FIDELITY.md');
    const body = readFileSync(doc, 'utf8');
    const start = '<!-- fidelity:begin -->';
    const end = '<!-- fidelity:end -->';
    const i = body.indexOf(start);
    const j = body.indexOf(end);
    if (i === -1 || j === -1) throw new Error(`${doc} lacks the ${start} / ${end} markers`);
    writeFileSync(doc, `${body.slice(0, i + start.length)}\n${text}\n${body.slice(j)}`);
  }
}

await main();
