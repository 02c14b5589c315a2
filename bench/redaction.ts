import { Redactor } from '../src/core/redact.js';
import { loadSources } from './generate.js';
import { median, round } from './metrics.js';
import type { FalsePositiveFigures } from './redaction-sample.js';
import { falsePositives } from './redaction-sample.js';
import { turnTexts } from './turn-texts.js';

/**
 * The redactor's figures: its speed on the text of the real transcripts (what it sees in a
 * build), its speed on inputs built to make a backtracking pattern or a careless scanner
 * explode (linear time shown, not assumed), and its false positives on the real corpus.
 */

const MiB = 2 ** 20;

export interface RedactionFigures {
  mb_s: number;
  corpus_mb: number;
  /** The slowest of the adversarial inputs, and which it was. */
  worst_mb_s: number;
  worst_case: string;
  /** The same input at a quarter of the size: a rate that holds as the input grows is linear time. */
  worst_quarter_mb_s: number;
  adversarial_mb: number;
  adversarial: Record<string, number>;
  fp: FalsePositiveFigures;
}

/**
 * MB per second of this process's CPU time (median of runs): the redactor is pure computation,
 * and on a shared host the time other processes hold the cores is not the redactor's.
 */
/**
 * CPU-time MB/s of redacting `texts`, `passes` times a run. Each pass has a redactor of its own:
 * a redactor remembers the texts it saw lately (a refresh meets the same texts again), and a
 * pass that found its texts remembered would measure that memory, not the rules.
 */
function speed(texts: readonly string[], runs: number, passes: number): number {
  const mb = texts.reduce((a, t) => a + Buffer.byteLength(t), 0) / MiB;
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const redactors = Array.from({ length: passes }, () => new Redactor());
    const t0 = process.cpuUsage();
    for (const r of redactors) for (const t of texts) r.redact(t);
    const d = process.cpuUsage(t0);
    samples.push((passes * mb) / ((d.user + d.system) / 1e6));
  }
  return round(median(samples), 1);
}

/** About `bytes` of `unit` repeated: each a shape that a super-linear rule would choke on. */
function adversarial(bytes: number): Record<string, string> {
  const fill = (unit: string): string => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
  const b64 = 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk';
  return {
    'one long word': fill('a'),
    'prefixes with no body': fill('sk-ghp_AKIAxoxb-eyJ '),
    'labels with no value': fill('password=password: token token '),
    'argument arrays of flags with nothing to find': fill('["a", "-b", '),
    'answers to questions that name no secret': fill('"which password, which token, which key?"="'),
    'CSV-like headers on one long line': fill('"which password, which token, which key?" x'),
    'a run of backslashes': fill('\\'),
    'escapes everywhere': fill('\\n\\"\\u0041\\\\'),
    'commands with no password': fill('mysql -u root -p '),
    'BEGIN markers with no end': fill('-----BEGIN RSA PRIVATE KEY-----\n'),
    'URLs with no @': fill('https://user:pass'),
    'base64 key-width lines': fill(`${b64.slice(0, 64)}\n`),
    'a CSV with a secret column': `User,Password\n${fill('bob,Zx8Qw2Lm4N\n')}`,
    'JSON pairs on one line': fill('{"api_key": "a9F3kQ7zLm2Xp8Rt", "key": team.key} '),
    'table headers on one line': fill('| password | token | '),
    'a table with a secret column': `| User | Password |\n|---|---|\n${fill('| bob | Zx8Qw2Lm4N |\n')}`,
    'cookie members with no object': fill('"domain": "x", "name": "sid", '),
    'cookie flags with no line': fill('\tTRUE\tFALSE'),
    'Secret kinds with no data': fill('kind: Secret\n'),
    'pgpass with no entries': fill('~/.pgpass '),
    'random_password with no state': fill('"random_password" '),
    'Discord-like starts': fill('MTA4NjQ2NjY0ODc2NDg2NjYz.'),
    // The decoding of encoded runs (src/core/redaction/encoded.ts): one endless percent-encoded run, and printable base64 runs after `secret`.
    'percent escapes with no end': fill('%3A%40%22'),
    'printable base64 runs beside secret': fill('secret UGFzc3dvcmQ6IGh1bnRlcjI= '),
    'Secret data lines padded to 4 KB': fill(`kind: Secret\ndata:\n${` k: x${' '.repeat(4090)}y\n`.repeat(4)}`),
    'table rows padded to 4 KB': `| Email | Password |\n|---|---|\n${fill(`| a@b.c | ${' '.repeat(4000)}x |\n`)}`,
    // The tenth and eleventh red teams' rules that look ahead for a closing mark or back for a line start.
    'braced values with no close': fill('Pwd={abc '),
    'CDATA with no end': fill('<password><![CDATA[x '),
    'two-column names on one long line': fill('password  value '),
    'JWK markers with no object': fill('"kty" "d": "abc" '),
  };
}

export function redactionFigures(quick: boolean): RedactionFigures {
  const r = new Redactor();
  const texts = turnTexts(loadSources().sources);
  const mbS = speed(texts, quick ? 3 : 7, 4);
  const adv: Record<string, number> = {};
  const size = quick ? MiB / 2 : 2 * MiB;
  for (const [name, text] of Object.entries(adversarial(size))) adv[name] = speed([text], 3, 1);
  const [worstCase, worst] = Object.entries(adv).reduce((a, b) => (b[1] < a[1] ? b : a));
  const quarter = adversarial(size / 4)[worstCase] as string;
  return {
    mb_s: mbS,
    corpus_mb: round(texts.reduce((a, t) => a + Buffer.byteLength(t), 0) / MiB, 1),
    worst_mb_s: worst,
    worst_case: worstCase,
    worst_quarter_mb_s: speed([quarter], 3, 4),
    adversarial_mb: round(size / MiB, 1),
    adversarial: adv,
    fp: falsePositives(r),
  };
}

const pct = (n: number, d: number): string => (d === 0 ? '0 of 0' : `${n} of ${d} (${round((100 * n) / d, 1)} %)`);

export function redactionMarkdown(f: RedactionFigures): string {
  const fp = f.fp;
  const kept = Object.entries(fp.keptBecause).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
  const classes = Object.entries(fp.sampleClasses).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
  return `**${f.mb_s} MB/s** (per second of CPU time) on the text of the real transcripts (${f.corpus_mb} MB, every built-in rule checked; target ≥ 40 MB/s).
On inputs built to make a careless pattern blow up (${Object.keys(f.adversarial).length} shapes: long words, prefixes and
labels with no value, runs of backslashes and escapes, markers with no end, ...) the slowest runs at
**${f.worst_mb_s} MB/s** (${f.worst_case}, ${f.adversarial_mb} MB), and at ${f.worst_quarter_mb_s} MB/s on a quarter of it: the rate holds as the
input grows, so the time is linear, shown rather than assumed.

False positives on the real corpus (docs/SECURITY.md says how code is told from credentials):

| figure | value |
|---|---|
| credentials removed | ${fp.removed} |
| **removals that hit code** | **${pct(fp.code, fp.removed)}** |
| removals that hit anything but a credential | ${pct(fp.notCredential, fp.removed)} |
| removals not yet classified | ${fp.unclassified} |
| values after a secret-naming label kept | ${fp.kept} (${kept}) |
| classified sample (test/fixtures/redaction-sample.json) | ${fp.sample} sites: ${classes}; sampled credentials kept: ${fp.missed} |`;
}
