import { describe, expect, it } from 'vitest';
import { computeLinks, type IndexEntry, jaccard, keywords } from '../../src/store/index-file.js';

function entry(id: string, project: string, objective: string | null): IndexEntry {
  return {
    id,
    uuid: null,
    chain_id: id,
    project,
    harness: 'claude',
    turns: 1,
    revisions: 1,
    updated: '2026-11-29T00:00:00.000Z',
    manifest_sha256: '0'.repeat(64),
    pressure: 'green',
    transfer_ready: false,
    source_state: 'present',
    title: null,
    dir: `/store/projects/${project}/${id}`,
    parent_session: null,
    objective,
    source: null,
  };
}

describe('keywords (SPEC §5 links/)', () => {
  it('keeps words of four or more letters, lower-cased, minus the stop list', () => {
    // "fix", "the", "AST" are too short; "please", "also", "make", "sure" are stop words.
    expect([...keywords('Please fix the Parser: tokens, AST and the lexer; also make sure tests pass')].sort()).toEqual(['lexer', 'parser', 'pass', 'tests', 'tokens']);
  });
  it('is empty for no text', () => {
    expect(keywords('').size).toBe(0);
  });
});

describe('jaccard', () => {
  it.each([
    [['a', 'b'], ['a', 'b'], 1],
    [['a', 'b'], ['c', 'd'], 0],
    [['a', 'b', 'c'], ['b', 'c', 'd'], 0.5],
    [[], ['a'], 0],
  ])('%j vs %j → %d', (a, b, want) => {
    expect(jaccard(new Set(a), new Set(b))).toBe(want);
  });
});

describe('computeLinks', () => {
  const shared = 'migrate the billing ledger schema to postgres with rollback scripts';
  it('links a session to another project whose objectives overlap enough, with score and shared words', async () => {
    const links = await computeLinks([entry('s1', 'api', shared), entry('s2', 'worker', `${shared} and queue retries`), entry('s3', 'web', 'render landing page hero banner carousel')], 0.06);
    expect([...links.keys()].sort()).toEqual(['api', 'worker']);
    const toWorker = links.get('worker') ?? [];
    expect(toWorker).toHaveLength(1);
    expect(toWorker[0]).toMatch(/^- api\/s1 \(score 0\.\d{3}\): shared keywords .*billing.*ledger/);
    expect(links.get('api')?.[0]).toMatch(/^- worker\/s2 /);
    expect(links.has('web')).toBe(false);
  });

  it('respects the minimum score and the three-keyword minimum', async () => {
    const entries = [entry('s1', 'api', shared), entry('s2', 'worker', `${shared} and queue retries`)];
    expect((await computeLinks(entries, 0.99)).size).toBe(0);
    expect((await computeLinks([entry('s1', 'api', 'billing ledger'), entry('s2', 'worker', 'billing ledger postgres')], 0)).size).toBe(0);
    expect((await computeLinks([entry('s1', 'api', null), entry('s2', 'worker', shared)], 0)).size).toBe(0);
  });

  it('never links a project to itself and is deterministic whatever the input order', async () => {
    const entries = [entry('b', 'api', shared), entry('a', 'api', shared), entry('c', 'worker', shared), entry('d', 'ops', shared)];
    const one = await computeLinks(entries, 0.06);
    const two = await computeLinks([...entries].reverse(), 0.06);
    expect([...one.entries()].sort()).toEqual([...two.entries()].sort());
    for (const [project, lines] of one) for (const line of lines) expect(line).not.toMatch(new RegExp(`^- ${project}/`));
    expect(one.get('ops')).toEqual([expect.stringMatching(/^- api\/a /), expect.stringMatching(/^- api\/b /), expect.stringMatching(/^- worker\/c /)]);
  });
});
