import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, testEnv } from '../helpers.js';
import { claudeTranscript, gitRepo, writeTranscript } from '../transcripts.js';

interface CheckJson {
  session: string;
  transfer_ready: boolean;
  checks: { name: string; ok: boolean; detail: string }[];
  failed: string[];
}

const ALL_CHECKS = ['objective_present', 'single_next_action', 'repository_evidence', 'passed_claims_backed', 'no_secrets', 'partial_work_stated', 'sections_complete'];

async function build(env: NodeJS.ProcessEnv, id: string, cwd: string, request: string): Promise<string> {
  const src = writeTranscript(`${id}.jsonl`, claudeTranscript({ sessionId: id, cwd, request }));
  const r = await runCli(['build', src, '--json'], { env });
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { dir: string }).dir;
}

describe('handoff check', () => {
  it('passes a session with an objective, an in-progress todo and verified repository evidence', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    await build(env, 'ready', gitRepo(), 'Make the JSON parser accept trailing commas in arrays');
    const r = await runCli(['check', 'ready'], { env });
    expect(r.code, r.out + r.err).toBe(0);
    for (const name of ALL_CHECKS) expect(r.out).toMatch(new RegExp(`^ok {4}${name} +\\S`, 'm'));
    expect(r.out).toMatch(/^ok {4}repository_evidence +verified at build time$/m);
    expect(r.out).toMatch(/^ok {4}passed_claims_backed +1 passed result\(s\), each with the line of its recorded result$/m);
    expect(r.out.trim().split('\n').pop()).toBe('ready: transfer-ready');
    const j = JSON.parse((await runCli(['check', 'ready', '--json'], { env })).out) as CheckJson;
    expect(j).toMatchObject({ session: 'ready', transfer_ready: true, failed: [] });
    expect(j.checks.map((c) => c.name)).toEqual(ALL_CHECKS);
  });

  it('fails with exit 1, naming the check, when the objective is removed from HANDOFF.md by hand', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const dir = await build(env, 'edited', gitRepo(), 'Make the JSON parser accept trailing commas in arrays');
    const path = join(dir, 'HANDOFF.md');
    const md = await readFile(path, 'utf8');
    const edited = md.replace(/(## Objective \(verbatim\)\n\n)[\s\S]*?(\n## User requests)/, '$1None\n$2');
    expect(edited).not.toBe(md);
    await writeFile(path, edited);
    const r = await runCli(['check', 'edited'], { env });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAIL {2}objective_present +no objective/m);
    expect(r.out).toMatch(/^edited: not transfer-ready \(1 of 7 checks failed: objective_present\)$/m);
    expect(r.err).toMatch(/edited is not ready to transfer: objective_present failed/);
    const j = await runCli(['check', 'edited', '--json'], { env });
    expect(j.code).toBe(1);
    expect((JSON.parse(j.out) as CheckJson).failed).toEqual(['objective_present']);
  });

  it('fails a session whose transcript has no real request and no next step', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const src = writeTranscript(
      'vague.jsonl',
      [
        // An IDE notice is context the harness added, not a request.
        { type: 'user', sessionId: 'vague', cwd: '/nowhere/vague', message: { role: 'user', content: '<ide_opened_file>The user opened the file /nowhere/vague/a.ts in the IDE.</ide_opened_file>' } },
        { type: 'assistant', sessionId: 'vague', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] } },
      ]
        .map((o) => `${JSON.stringify(o)}\n`)
        .join(''),
    );
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const r = await runCli(['check', 'vague', '--json'], { env });
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out) as CheckJson;
    expect(j.transfer_ready).toBe(false);
    expect(j.failed).toEqual(['objective_present', 'single_next_action']);
    expect(j.checks.find((c) => c.name === 'single_next_action')?.detail).toBe('the next action is unknown');
  });

  it('catches a credential pasted into HANDOFF.md by hand with its second, independent scan', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const dir = await build(env, 'leaky', gitRepo(), 'Make the JSON parser accept trailing commas in arrays');
    const path = join(dir, 'HANDOFF.md');
    const token = ['gh', 'p_', 'Q7'.repeat(18)].join('');
    await writeFile(path, (await readFile(path, 'utf8')).replace('## Unknowns\n', `## Unknowns\n\nthe deploy token is ${token}\n`));
    const r = await runCli(['check', 'leaky'], { env });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAIL {2}no_secrets +second scan found 1: github_token$/m);
    expect(r.out).not.toContain(token);
  });
});
