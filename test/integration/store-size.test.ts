import { createHash } from 'node:crypto';
import { appendFile, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/store/manifest.js';
import { seal, serializeManifest } from '../../src/store/manifest.js';
import { copyFixture, readLines, runCli, tempDir, testEnv } from '../helpers.js';

/** A Bash call and its result, in Claude Code's shape, the result `output` long. */
function longToolCall(output: string): string {
  const base = { parentUuid: 'x', isSidechain: false, userType: 'external', cwd: '/home/dev/uploader', sessionId: '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f', version: '2.0.55', gitBranch: 'main' };
  const call = { ...base, type: 'assistant', uuid: 'big-a', timestamp: '2026-03-01T09:10:00.000Z', message: { role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 'toolu_big', name: 'Bash', input: { command: 'cat build.log' } }] } };
  const result = { ...base, type: 'user', uuid: 'big-u', timestamp: '2026-03-01T09:10:01.000Z', message: { role: 'user', content: [{ tool_use_id: 'toolu_big', type: 'tool_result', content: output }] } };
  return `${JSON.stringify(call)}\n${JSON.stringify(result)}\n`;
}

async function setup(): Promise<{ env: NodeJS.ProcessEnv; work: string; src: string }> {
  const root = tempDir('handoff-store-');
  const work = tempDir('handoff-work-');
  const src = await copyFixture('claude-session.jsonl', work);
  return { env: testEnv({ HANDOFFS_ROOT: root }), work, src };
}

describe('a store a fraction of the transcripts', () => {
  it('keeps a long text as its head and tail with its full length and sha256, and verify --source proves it against the transcript', async () => {
    const { env, src } = await setup();
    const middle = 'MIDDLE-OF-THE-LOG '.repeat(400);
    const output = `first line of the log\n${middle}\nlast line: 3 passed ✓`;
    await appendFile(src, longToolCall(output));
    const built = await runCli(['build', src, '--json'], { env });
    expect(built.code).toBe(0);
    const dir = (JSON.parse(built.out) as { dir: string }).dir;

    const lines = (await readLines(join(dir, 'timeline.jsonl'))).map((l) => JSON.parse(l) as { text: string; text_bytes?: number; text_sha256?: string });
    const cut = lines.find((l) => l.text_sha256 !== undefined);
    expect(cut).toBeDefined();
    expect(cut?.text.startsWith('first line of the log')).toBe(true);
    expect(cut?.text.endsWith('last line: 3 passed ✓')).toBe(true);
    expect(cut?.text).not.toContain(middle);
    expect(cut?.text_bytes).toBe(Buffer.byteLength(output));
    expect(cut?.text_sha256).toBe(createHash('sha256').update(output).digest('hex'));
    const tools = await readFile(join(dir, 'TOOLS.md'), 'utf8');
    expect(tools).toContain('first line of the log');
    expect(tools).toContain(`sha256 ${cut?.text_sha256 ?? ''}`);
    expect(tools).not.toContain(middle);

    const v = await runCli(['verify', 'claude-session', '--source'], { env });
    expect(v.out).toMatch(/^PASS claude-session \[.*source, turns\(\d+\)\]/);
    expect(v.code).toBe(0);
  });

  it('verify --source fails, naming the line, when the timeline no longer says what the transcript says', async () => {
    const { env, work, src } = await setup();
    expect((await runCli(['build', src], { env })).code).toBe(0);
    // The same store read with another redaction rule: the transcript now yields other text.
    await writeFile(join(work, 'handoff.config.json'), JSON.stringify({ redaction: { patterns: [{ name: 'backoff', pattern: 'exponential' }] } }));
    const v = await runCli(['verify', 'claude-session', '--source'], { env, cwd: work });
    expect(v.code).toBe(1);
    expect(v.out).toMatch(/FAIL claude-session: timeline line \d+ \(seq \d+\) is not what the transcript says/);
  });

  it('keeps the carried state compressed, and reads a plain state of an older store as it is, upgrading it on the next build', async () => {
    const { env, src } = await setup();
    const built = await runCli(['build', src, '--json'], { env });
    expect(built.code).toBe(0);
    const dir = (JSON.parse(built.out) as { dir: string }).dir;
    const m = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest & { redactions: number };
    expect(m.state_file).toMatch(/^\.state-\d{8}\.json\.gz$/);
    const state = JSON.parse(gunzipSync(await readFile(join(dir, m.state_file))).toString('utf8')) as { v: number; redactions: number };

    // The store as format 2 wrote it: the state as plain JSON. A mark in it shows it was read, not rebuilt from the transcript.
    const plain = JSON.stringify({ ...state, redactions: state.redactions + 1000 });
    const oldName = m.state_file.replace(/\.gz$/, '');
    await writeFile(join(dir, oldName), plain);
    await rm(join(dir, m.state_file));
    const { manifest_sha256: _sealed, ...rest } = m;
    await writeFile(join(dir, 'manifest.json'), serializeManifest(seal({ ...rest, state_file: oldName, state_sha256: createHash('sha256').update(plain).digest('hex') })));

    await appendFile(src, longToolCall('one more result'));
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const after = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest & { redactions: number };
    expect(after.redactions).toBe(m.redactions + 1000);
    expect(after.state_file).toMatch(/\.json\.gz$/);
    expect((await readdir(dir)).filter((n) => n.startsWith('.state-'))).toEqual([after.state_file]);
    const v = await runCli(['verify', 'claude-session'], { env });
    expect(v.code).toBe(0);
  });
});
