import { createHash } from 'node:crypto';
import { appendFile, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical.js';
import { TIMELINE_TEXT, TIMELINE_TOOL_TEXT, TOOLS_TEXT, excerpt } from '../../src/core/excerpt.js';
import { toolSection } from '../../src/core/render/tools-md.js';
import { LIMITS } from '../../src/core/state.js';
import { chainLine, checkChain } from '../../src/core/timeline.js';
import type { Turn } from '../../src/core/types.js';
import type { Manifest } from '../../src/store/manifest.js';
import { seal, serializeManifest } from '../../src/store/manifest.js';
import { decodeStateSync, encodeStateSync } from '../../src/store/state-file.js';
import { copyFixture, readJson, readLines, runCli, tempDir, testEnv } from '../helpers.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

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
    // The digest is the timeline line's; TOOLS.md's note says only how much was cut.
    expect(tools).toMatch(/\[… \d+ characters cut …\]/);
    expect(tools).not.toContain(cut?.text_sha256 ?? '');
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

  it('keeps the carried state compressed, and reads the plain state of format 2 and the gzip state of formats 3 and 4 as they are, upgrading them on the next build', async () => {
    for (const [format, ext] of [
      ['2', ''],
      ['3', '.gz'],
    ] as const) {
      const { env, src } = await setup();
      const built = await runCli(['build', src, '--json'], { env });
      expect(built.code).toBe(0);
      const dir = (JSON.parse(built.out) as { dir: string }).dir;
      const m = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest & { redactions: number };
      expect(m.state_file).toMatch(/^\.state-\d{8}\.json\.br$/);
      const raw = await readFile(join(dir, m.state_file));
      const json = decodeStateSync(m.state_file, raw);
      // Brotli, and smaller than the gzip of formats 3 and 4 (level 1).
      expect(raw.length).toBeLessThan(encodeStateSync('x.json.gz', json).length);
      const state = JSON.parse(json.toString('utf8')) as { v: number; redactions: number };

      // The store as format 2 (plain JSON) or 3 (gzip) wrote it. A mark in it shows it was read, not rebuilt from the transcript.
      const oldName = m.state_file.replace(/\.br$/, ext);
      const old = encodeStateSync(oldName, JSON.stringify({ ...state, redactions: state.redactions + 1000 }));
      await writeFile(join(dir, oldName), old);
      await rm(join(dir, m.state_file));
      const { manifest_sha256: _sealed, ...rest } = m;
      await writeFile(join(dir, 'manifest.json'), serializeManifest(seal({ ...rest, state_file: oldName, state_sha256: createHash('sha256').update(old).digest('hex') })));

      await appendFile(src, longToolCall('one more result'));
      expect((await runCli(['build', src], { env })).code).toBe(0);
      const after = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest & { redactions: number };
      expect(after.redactions, `format ${format}`).toBe(m.redactions + 1000);
      expect(after.state_file).toMatch(/\.json\.br$/);
      expect((await readdir(dir)).filter((n) => n.startsWith('.state-'))).toEqual([after.state_file]);
      const v = await runCli(['verify', 'claude-session'], { env });
      expect(v.code).toBe(0);
    }
  });
});

/** What the store keeps of each turn (docs/FORMAT.md, store format 4). */

describe('timeline.jsonl keeps more of what the user and the agent said than of tool output', () => {
  it('keeps a 400-character USER turn whole and cuts a TOOL turn of the same length to head and tail', () => {
    const text = `${'a'.repeat(200)}${'b'.repeat(200)}`;
    const user = JSON.parse(chainLine('', { seq: 0, ts: null, class: 'USER', text }).bytes.toString()) as Record<string, unknown>;
    expect(user.text).toBe(text);
    expect(user.text_sha256).toBeUndefined();
    const tool = JSON.parse(chainLine('', { seq: 1, ts: null, class: 'TOOL', text, tool: { name: 'Bash', id: 't1', ok: true } }).bytes.toString()) as Record<string, string | number>;
    expect(tool.text).toBe(`${'a'.repeat(TIMELINE_TOOL_TEXT.head)}\n[… ${400 - TIMELINE_TOOL_TEXT.head - TIMELINE_TOOL_TEXT.tail} characters cut …]\n${'b'.repeat(TIMELINE_TOOL_TEXT.tail)}`);
    // The note no longer repeats the digest: the line's own members carry it.
    expect(tool.text_sha256).toBe(sha(text));
    expect(tool.text_bytes).toBe(400);
  });

  it('cuts a text only where the cut line is shorter than the whole one, for every class and length', () => {
    for (const cls of ['USER', 'AGENT', 'TOOL', 'THOUGHT', 'OTHER'] as const) {
      const lim = cls === 'USER' || cls === 'AGENT' ? TIMELINE_TEXT : TIMELINE_TOOL_TEXT;
      for (let n = lim.max + 1; n <= lim.max + 64; n += 1) {
        const turn: Turn = { seq: 7, ts: '2026-01-01T00:00:00.000Z', class: cls, text: 'x'.repeat(n) };
        const cut = chainLine('', turn).bytes.length;
        // The same line with the text kept whole and without the digest members.
        const whole = Buffer.byteLength(JSON.stringify({ class: cls, h: 'h'.repeat(64), seq: 7, text: turn.text, ts: turn.ts })) + 1;
        expect(cut, `${cls} ${n}`).toBeLessThan(whole);
      }
    }
    for (let n = TOOLS_TEXT.max + 1; n <= TOOLS_TEXT.max + 64; n += 1) {
      const text = 'y'.repeat(n);
      expect(excerpt(text, TOOLS_TEXT).text.length, `TOOLS.md ${n}`).toBeLessThan(n);
      expect(toolSection({ seq: 1, ts: null, class: 'TOOL', text, tool: { name: 'Bash', id: 't', ok: true } })).toContain('characters cut …]');
    }
  });
});

/** A session of one request and two notices of a background job; its HANDOFF.md. */
async function jobSession(session: string, request: string, content: (n: number) => string): Promise<string> {
  const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
  const src = join(tempDir('handoff-work-'), `${session}.jsonl`);
  const notice = (n: number): Record<string, unknown> => ({ type: 'queue-operation', operation: 'enqueue', timestamp: `2026-03-01T09:00:0${n}.000Z`, sessionId: session, content: content(n) });
  const user = { type: 'user', uuid: 'u1', sessionId: session, timestamp: '2026-03-01T09:00:00.000Z', cwd: '/home/dev/jobs', message: { role: 'user', content: request } };
  await writeFile(src, [user, notice(1), notice(2)].map((l) => `${JSON.stringify(l)}\n`).join(''));
  const r = await runCli(['build', src, '--json'], { env });
  expect(r.code, r.err).toBe(0);
  return readFile(join((JSON.parse(r.out) as { dir: string }).dir, 'HANDOFF.md'), 'utf8');
}

describe("HANDOFF.md's recent timeline", () => {
  it("still reads a background job's notices from the window, which keeps 300 characters of them", async () => {
    const content = (n: number): string => `<task-notification>\n<task-id>job7a</task-id>\n<status>running</status>\n<summary>Background command "Watch the upload tests" wrote ${n} more lines of output</summary>\n</task-notification>`;
    expect(content(1).length).toBeGreaterThan(LIMITS.WINDOW_TOOL_TEXT_CHARS + 20);
    const md = await jobSession('jobs-session', 'Keep the upload tests running in the background and tell me when they settle.', content);
    expect(md).toMatch(/2 notifications of job job7a, the last: Background command "Watch the upload tests" wrote 2 more lines/);
  });

  it('groups notices longer than the window keeps by the task id at their head', async () => {
    const content = (n: number): string => `<task-notification>\n<task-id>job9b</task-id>\n<output-file>/tmp/agent-runs/${'x'.repeat(260)}/job9b.output</output-file>\n<status>completed</status>\n<summary>Run ${n} of the fetcher finished</summary>\n</task-notification>`;
    expect(content(1).length).toBeGreaterThan(LIMITS.WINDOW_TEXT_CHARS);
    const md = await jobSession('long-jobs', 'Run the fetcher in the background twice and report.', content);
    expect(md).toMatch(/\| 2–3 \| OTHER \| 2 notifications of job job9b \|/);
  });
});

describe('a timeline written in store format 3', () => {
  it('chains on: a line with the long note, then a new line in format 4, check as one chain', () => {
    const full = 'z'.repeat(1000);
    // A line as format 3 wrote it: the note repeated the full text's length and sha256.
    const old = { class: 'TOOL', seq: 0, text: `${'z'.repeat(180)}\n[… 740 characters cut: the full text is 1000 bytes, sha256 ${sha(full)} …]\n${'z'.repeat(80)}`, text_bytes: 1000, text_sha256: sha(full), tool: { id: 't0', name: 'Bash', ok: true }, ts: null };
    const h0 = sha(canonicalJson(old));
    const line0 = canonicalJson({ ...old, h: h0 });
    const next = chainLine(h0, { seq: 1, ts: null, class: 'TOOL', text: full, tool: { name: 'Bash', id: 't1', ok: true } });
    expect(next.bytes.toString()).toContain('[… 780 characters cut …]');
    expect(checkChain([line0, next.bytes.toString().trimEnd()])).toEqual({ ok: true, lines: 2, head: next.h });
  });
});

describe('HANDOFF.llm.json', () => {
  it('lists each tool call once, with how its result ended, and keeps less of tool output than of words', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const work = tempDir('handoff-work-');
    const src = join(work, 'size-session.jsonl');
    const output = `FAIL src/a.test.ts ${'-'.repeat(400)}`;
    const words = `I will now run the tests. ${'w'.repeat(280)}`;
    const lines = [
      { type: 'user', uuid: 'u1', sessionId: 'size-session', timestamp: '2026-03-01T09:00:00.000Z', cwd: work, message: { role: 'user', content: 'Run the test suite and fix what fails.' } },
      { type: 'assistant', uuid: 'a1', sessionId: 'size-session', timestamp: '2026-03-01T09:00:01.000Z', cwd: work, message: { role: 'assistant', model: 'claude-sonnet-4', content: [{ type: 'text', text: words }] } },
      { type: 'assistant', uuid: 'a2', sessionId: 'size-session', timestamp: '2026-03-01T09:00:02.000Z', cwd: work, message: { role: 'assistant', model: 'claude-sonnet-4', content: [{ type: 'tool_use', id: 'toolu_size_1', name: 'Bash', input: { command: 'npm test' } }] } },
      { type: 'user', uuid: 'u2', sessionId: 'size-session', timestamp: '2026-03-01T09:00:03.000Z', cwd: work, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_size_1', is_error: true, content: output }] } },
      { type: 'assistant', uuid: 'a3', sessionId: 'size-session', timestamp: '2026-03-01T09:00:04.000Z', cwd: work, message: { role: 'assistant', model: 'claude-sonnet-4', content: [{ type: 'tool_use', id: 'toolu_size_2', name: 'Read', input: { file_path: 'src/a.ts' } }] } },
    ];
    await writeFile(src, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const r = await runCli(['build', src, '--json'], { env });
    expect(r.code, r.err).toBe(0);
    const dir = (JSON.parse(r.out) as { dir: string }).dir;
    const llm = await readJson<{
      turns: { seq: number; class: string; text: string; tool?: { id: string } }[];
      tool_calls: { seq: number; name: string; id: string; ok: boolean | null }[];
      timeline_ref: { text_chars_per_turn: number; other_text_chars_per_turn: number };
    }>(join(dir, 'HANDOFF.llm.json'));
    expect(llm.tool_calls).toEqual([
      { seq: 2, name: 'Bash', id: 'toolu_size_1', ok: false },
      { seq: 4, name: 'Read', id: 'toolu_size_2', ok: null },
    ]);
    // Both turns of the first call are still in the window, each with its tool.
    expect(llm.turns.filter((t) => t.tool?.id === 'toolu_size_1').map((t) => t.seq)).toEqual([2, 3]);
    expect(llm.timeline_ref).toMatchObject({ text_chars_per_turn: LIMITS.WINDOW_TEXT_CHARS, other_text_chars_per_turn: LIMITS.WINDOW_TOOL_TEXT_CHARS });
    expect(llm.turns.find((t) => t.seq === 1)?.text).toBe(words.slice(0, LIMITS.WINDOW_TEXT_CHARS - 1) + '…');
    expect(llm.turns.find((t) => t.seq === 3)?.text.length).toBeLessThanOrEqual(LIMITS.WINDOW_TOOL_TEXT_CHARS);
    // Both payloads are one line of compact JSON.
    for (const f of ['HANDOFF.llm.json', 'HANDOFF.summary.json']) {
      const raw = await readFile(join(dir, f), 'utf8');
      expect(raw.endsWith('}\n') && raw.indexOf('\n') === raw.length - 1, f).toBe(true);
    }
    const timeline = (await readLines(join(dir, 'timeline.jsonl'))).map((l) => JSON.parse(l) as { seq: number; text: string; text_sha256?: string });
    expect(timeline.find((t) => t.seq === 1)?.text).toBe(words);
    expect(timeline.find((t) => t.seq === 3)?.text_sha256).toBe(sha(output));
  });
});
