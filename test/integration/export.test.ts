import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/store/manifest.js';
import { seal, serializeManifest } from '../../src/store/manifest.js';
import { copyFixture, readJson, ROOT, runCli, tempDir, testEnv } from '../helpers.js';

/** A validator of our own, so the test does not trust the product's schema loading. */
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'handoff.schema.json'), 'utf8')) as { required: string[] };
const validate = addFormats(new Ajv({ allErrors: true, strict: true })).compile(schema);

const REQUIRED = ['schema_version', 'handoff_id', 'mission_id', 'task_id', 'created_at', 'updated_at', 'source', 'state', 'next_action'];

async function built(fixture: string): Promise<{ env: NodeJS.ProcessEnv; dir: string; id: string }> {
  const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
  const src = await copyFixture(fixture, tempDir('handoff-work-'));
  const r = await runCli(['build', src, '--json'], { env });
  expect(r.code, r.err).toBe(0);
  const j = JSON.parse(r.out) as { dir: string; session: string };
  return { env, dir: j.dir, id: j.session };
}

async function exported(env: NodeJS.ProcessEnv, id: string): Promise<Record<string, any>> {
  const r = await runCli(['export', id], { env });
  expect(r.code, r.err).toBe(0);
  expect(r.out).toMatch(/^\{\n {2}"schema_version": "1\.0",/);
  return JSON.parse(r.out) as Record<string, any>;
}

describe('the interchange schema', () => {
  it('requires exactly the keys of the contract v1.0 and documents every property', () => {
    expect(schema.required).toEqual(REQUIRED);
    const undocumented: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const props = (node as { properties?: Record<string, unknown> }).properties;
      for (const [k, v] of Object.entries(props ?? {})) {
        if (typeof (v as { description?: unknown }).description !== 'string') undocumented.push(`${path}/${k}`);
        walk(v, `${path}/${k}`);
      }
      for (const k of ['items', 'definitions', 'oneOf', 'allOf']) {
        const child = (node as Record<string, unknown>)[k];
        if (Array.isArray(child)) child.forEach((c, i) => walk(c, `${path}/${k}[${i}]`));
        else if (k === 'definitions' && child) for (const [n, d] of Object.entries(child)) walk(d, `${path}/definitions/${n}`);
        else walk(child, `${path}/${k}`);
      }
    };
    walk(schema, '');
    expect(undocumented).toEqual([]);
  });
});

describe('handoff export', () => {
  it.each([
    ['claude-session.jsonl', 'claude', '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f'],
    ['codex-rollout.jsonl', 'codex', '019d0000-1111-7222-8333-444455556666'],
  ])('exports %s as a document valid against schemas/handoff.schema.json', async (fixture, harness, uuid) => {
    const { env, dir, id } = await built(fixture);
    const doc = await exported(env, id);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    for (const key of REQUIRED) expect(doc, key).toHaveProperty(key);
    const m = await readJson<Manifest>(join(dir, 'manifest.json'));
    expect(doc).toMatchObject({ schema_version: '1.0', handoff_id: id, mission_id: m.chain_id, task_id: uuid, created_at: m.created_at, updated_at: m.updated_at });
    expect(doc.source).toMatchObject({ harness, raw_sha256: m.raw_sha256, manifest_sha256: m.manifest_sha256, revision: 1, transcripts: [{ path: m.sources[0]?.path }] });
    const llm = await readJson(join(dir, 'HANDOFF.llm.json'));
    expect(doc.state).toMatchObject({ objective: llm.objective, state_now: llm.state_now, current_state: llm.current_state, pressure: m.context });
    const n = llm.next_action as { text: string; rule: string; label: string; line: number | null };
    // The interchange contract keeps its v1.0 shape: the rule is its source, seq the 0-based line.
    expect(doc.next_action).toEqual({ text: n.text, source: n.rule, label: n.label, seq: n.line === null ? null : n.line - 1 });
    expect(doc.evidence.verification).toEqual(llm.verification);
    expect(doc.evidence.files_touched).toEqual(llm.files_touched);
    expect(doc.errors).toEqual(llm.failures);
    expect(doc.permissions.reset_or_discard_changes).toBe('forbidden');
    expect(doc.artifacts.map((a: { role: string }) => a.role)).toEqual(['handoff_md', 'summary_json', 'llm_json', 'timeline', 'tools_md', 'manifest']);
    const md = await readFile(join(dir, 'HANDOFF.md'));
    expect(doc.artifacts[0]).toMatchObject({ path: join(dir, 'HANDOFF.md'), bytes: md.length, media_type: 'text/markdown' });
  });

  it('carries history copies and a hand-authored evidence contract, parsed by key', async () => {
    const { env, dir, id } = await built('claude-session.jsonl');
    const path = join(dir, 'HANDOFF.md');
    const contract = 'RESULT: backoff implemented, one test red\nVALIDATION: npm test -- retry (exit 1 at seq 11)\n  the other suites were not run\nFOLLOW_UP: start the backoff at 200 ms';
    await writeFile(path, (await readFile(path, 'utf8')).replace(/(## Evidence contract \(hand-authored — preserved across rebuilds\)\n\n)None\n/, `$1${contract}\n`));
    expect((await runCli(['finalize', id], { env })).code).toBe(0);
    const doc = await exported(env, id);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(doc.evidence.evidence_contract).toEqual({
      text: contract,
      fields: { RESULT: ['backoff implemented, one test red'], VALIDATION: ['npm test -- retry (exit 1 at seq 11)', 'the other suites were not run'], FOLLOW_UP: ['start the backoff at 200 ms'] },
    });
    expect(doc.checkpoint.latest).toMatchObject({ kind: 'finalize', revision: 2 });
    expect(doc.checkpoint.latest.file).toMatch(new RegExp(`^${dir}/history/\\d{8}T\\d{6}Z-claude-session\\.md$`));
    expect(doc.artifacts.filter((a: { role: string }) => a.role === 'history')).toHaveLength(1);
  });

  it('refuses to print a document that breaks the contract, naming where', async () => {
    const { env, dir, id } = await built('codex-rollout.jsonl');
    const p = join(dir, 'manifest.json');
    const m = await readJson<Manifest>(p);
    // Sealed again: a manifest whose seal fails is refused before the export is made (crash.test.ts).
    const { manifest_sha256: old, ...rest } = m;
    const resealed = seal({ ...rest, created_at: 'last Tuesday' });
    await writeFile(p, serializeManifest(resealed));
    // The renders name the manifest they were sealed with: named the new one, the store is whole again.
    for (const f of ['HANDOFF.md', 'HANDOFF.summary.json', 'HANDOFF.llm.json']) {
      const text = await readFile(join(dir, f), 'utf8');
      await writeFile(join(dir, f), text.split(old).join(resealed.manifest_sha256));
    }
    const r = await runCli(['export', id], { env });
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/the export of codex-rollout does not match schemas\/handoff\.schema\.json at \/created_at: must match format "date-time"/);
    expect(r.err).toMatch(/fix: nothing was printed/);
  });

  it('refuses a damaged HANDOFF.llm.json with the fix', async () => {
    const { env, dir, id } = await built('claude-session.jsonl');
    const p = join(dir, 'HANDOFF.llm.json');
    const llm = await readJson(p);
    delete llm.next_action;
    await writeFile(p, JSON.stringify(llm));
    const r = await runCli(['export', id], { env });
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/HANDOFF\.llm\.json does not match schemas\/handoff\.llm\.schema\.json/);
  });

  it('exports one commit: the committed part of the timeline, never renders of a build that has not committed', async () => {
    const { env, dir, id } = await built('claude-session.jsonl');
    const m = await readJson<Manifest>(join(dir, 'manifest.json'));
    // What a build appends before its commit is not the handoff's yet.
    await appendFile(join(dir, 'timeline.jsonl'), '{"seq":99,"class":"USER","text":"not committed"}\n');
    const doc = await exported(env, id);
    const timeline = (doc.artifacts as { role: string; bytes: number; sha256: string }[]).find((a) => a.role === 'timeline');
    const committed = (await readFile(join(dir, 'timeline.jsonl'))).subarray(0, m.timeline_bytes);
    expect(timeline).toMatchObject({ bytes: m.timeline_bytes, sha256: createHash('sha256').update(committed).digest('hex') });
    // Renders a build replaced before it stopped short of its manifest: export waits, then says so.
    const p = join(dir, 'HANDOFF.summary.json');
    await writeFile(p, (await readFile(p, 'utf8')).split(m.manifest_sha256).join('f'.repeat(64)));
    const r = await runCli(['export', id], { env });
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/its renders are not those of its manifest after 20 reads \(a build is writing it, or one stopped before its commit\)/);
  });
});
