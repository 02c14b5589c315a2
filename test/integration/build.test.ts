import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, copyFixture, readJson, readLines, runCli, tempDir, testEnv } from '../helpers.js';

async function setup(): Promise<{ env: NodeJS.ProcessEnv; root: string; work: string }> {
  const root = tempDir('handoff-store-');
  const env = testEnv({ HANDOFFS_ROOT: root });
  const work = tempDir('handoff-work-');
  return { env, root, work };
}

describe('handoff build', () => {
  it('builds a Claude transcript into a sealed session directory, then reports up-to-date', async () => {
    const { env, root, work } = await setup();
    const src = await copyFixture('claude-session.jsonl', work);
    const first = await runCli(['build', src, '--json'], { env });
    expect(first.code).toBe(0);
    const r = JSON.parse(first.out) as Record<string, unknown>;
    expect(r).toMatchObject({ session: 'claude-session', project: 'uploader', revision: 1, turns: 15, new_turns: 15, up_to_date: false, watermark: 15 });
    const dir = r.dir as string;
    expect(dir).toBe(join(root, 'projects', 'uploader', 'claude-session'));
    for (const f of ['manifest.json', 'timeline.jsonl', 'TOOLS.md', 'HANDOFF.md', 'HANDOFF.summary.json', 'HANDOFF.llm.json']) {
      await expect(readFile(join(dir, f))).resolves.toBeTruthy();
    }
    const again = await runCli(['build', src], { env });
    expect(again.code).toBe(0);
    expect(again.out.trim()).toBe('handoff: up-to-date (claude-session, watermark 15, rev 1)');
    const index = await readJson<unknown[]>(join(root, 'INDEX.json'));
    expect(index).toHaveLength(1);
    expect(await readFile(join(root, 'projects', 'uploader', 'PROJECT.md'), 'utf8')).toBe(
      '# Project: uploader\n\n## Sessions\n\n- session claude-session (turns=15, rev=1) :: Make the upload retry use exponential backoff and keep the tests green.\n',
    );
  });

  it('appends only new turns, keeps a half-written last line out and takes it with --final', async () => {
    const { env, work } = await setup();
    const src = join(work, 's.jsonl');
    await writeFile(src, '{"role":"user","content":"Please write the release notes for 2.0"}\n{"role":"assistant","content":"Draft');
    const a = await runCli(['build', src, '--json'], { env });
    expect(a.code).toBe(0);
    expect(JSON.parse(a.out)).toMatchObject({ turns: 1, watermark: 0 });
    expect(a.err).toMatch(/has no newline yet and was not read/);
    const b = await runCli(['build', src], { env });
    expect(b.out).toMatch(/^handoff: up-to-date \(s, watermark 0, rev 1\)/);
    const c = await runCli(['build', src, '--final', '--json'], { env });
    expect(c.code).toBe(0);
    // The unfinished line is not JSON yet, so even --final leaves it.
    expect(JSON.parse(c.out)).toMatchObject({ up_to_date: true });
    await appendFile(src, ' ready"}');
    const d = await runCli(['build', src, '--final', '--json'], { env });
    expect(JSON.parse(d.out)).toMatchObject({ turns: 2, new_turns: 1, revision: 2 });
    const dir = (JSON.parse(d.out) as { dir: string }).dir;
    const lines = (await readLines(join(dir, 'timeline.jsonl'))).map((l) => JSON.parse(l) as { seq: number; text: string });
    expect(lines.map((l) => [l.seq, l.text])).toEqual([
      [0, 'Please write the release notes for 2.0'],
      [1, 'Draft ready'],
    ]);
  });

  it('replays a last line taken with --final when its state file is lost, so nothing is counted twice', async () => {
    const { env, work } = await setup();
    const src = join(work, 'fin.jsonl');
    await writeFile(src, '{"role":"user","content":"Please write the release notes for 2.0"}\n{"role":"assistant","content":"Draft ready"}');
    const a = JSON.parse((await runCli(['build', src, '--final', '--json'], { env })).out) as { dir: string; turns: number };
    expect(a.turns).toBe(2);
    // A power failure can lose the (not fsynced) state file: the next build folds the committed bytes again.
    for (const f of await readdir(a.dir)) if (f.startsWith('.state-')) await rm(join(a.dir, f));
    await appendFile(src, '\n{"role":"user","content":"Now the changelog"}\n');
    const b = await runCli(['build', src, '--json'], { env });
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(b.out)).toMatchObject({ turns: 3, new_turns: 1 });
    expect((await readLines(join(a.dir, 'timeline.jsonl'))).map((l) => (JSON.parse(l) as { text: string }).text)).toEqual(['Please write the release notes for 2.0', 'Draft ready', 'Now the changelog']);
    const v = await runCli(['verify', 'fin', '--source'], { env });
    expect(v.code, v.out).toBe(0);
  });

  it('refuses a file of the store itself (its own timeline is no transcript), exit 2, building nothing', async () => {
    const root = tempDir('handoff-store-');
    const env = testEnv({ HANDOFFS_ROOT: root });
    const src = await copyFixture('claude-session.jsonl', tempDir('handoff-src-'), 'own.jsonl');
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const dir = (await readJson<{ dir: string }[]>(join(root, 'INDEX.json')))[0]?.dir as string;
    const r = await runCli(['build', join(dir, 'timeline.jsonl')], { env });
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(dir, 'timeline.jsonl')} is inside the store (${root}), not a transcript`);
    expect((await readJson<unknown[]>(join(root, 'INDEX.json'))).length).toBe(1);
  });

  it('reads a transcript that starts with a UTF-8 byte order mark', async () => {
    const { env, work } = await setup();
    const src = join(work, 'bom.jsonl');
    await writeFile(src, '\ufeff{"session":"with-bom","role":"user","content":"Summarise the design document"}\n{"role":"assistant","content":"Three points."}\n');
    const r = await runCli(['build', src, '--json'], { env });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ session: 'with-bom', turns: 2 });
    const txt = join(work, 'bom.txt');
    await writeFile(txt, '\ufeffUser: Rename the flag everywhere please\nAssistant: Done.\n');
    const t = await runCli(['build', txt, '--json'], { env });
    expect(t.code, t.err).toBe(0);
    expect(JSON.parse(t.out)).toMatchObject({ turns: 2 });
    const first = JSON.parse((await readLines(join((JSON.parse(t.out) as { dir: string }).dir, 'timeline.jsonl')))[0] ?? '{}') as { class: string; text: string };
    expect(first).toMatchObject({ class: 'USER', text: 'Rename the flag everywhere please' });
  });

  it('exits 4 for a transcript with no turn, writing nothing', async () => {
    const { env, root, work } = await setup();
    const src = join(work, 'empty.jsonl');
    await writeFile(src, '');
    const r = await runCli(['build', src], { env });
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/no turn parsed/);
    expect(r.err).toMatch(/fix: check that this is a Claude Code, Codex, JSONL or role-marked text transcript/);
    expect(await readFile(join(root, 'INDEX.json'), 'utf8').catch(() => null)).toBeNull();
    // Its only line still waits for its newline: the fix is --final, not another reader.
    await writeFile(src, '{"role":"user","content":"Please write the release notes"}');
    const partial = await runCli(['build', src], { env });
    expect(partial.code).toBe(4);
    expect(partial.err).toMatch(/\(\d+ bytes of an unfinished last line wait for their newline\)\n {2}fix: if that last line is complete, `--final` takes it/);
    expect((await runCli(['build', src, '--final'], { env })).code).toBe(0);
  });

  it('exits 5 on a corrupt line, naming file, line and byte offset; --allow-bad-lines counts and skips it', async () => {
    const { env, work } = await setup();
    const src = join(work, 'bad.jsonl');
    const first = '{"role":"user","content":"first request of this session"}\n';
    await writeFile(src, `${first}{oops}\n{"role":"assistant","content":"done"}\n`);
    const r = await runCli(['build', src], { env });
    expect(r.code).toBe(5);
    expect(r.err).toContain(`${src}:2: line 2 (byte offset ${Buffer.byteLength(first)}) is not valid JSON`);
    expect(r.err).toMatch(/fix: repair or delete that line/);
    const ok = await runCli(['build', src, '--allow-bad-lines', '--json'], { env });
    expect(ok.code).toBe(0);
    const out = JSON.parse(ok.out) as { dir: string; turns: number };
    expect(out.turns).toBe(2);
    const m = await readJson<{ bad_lines: number; watermark: number }>(join(out.dir, 'manifest.json'));
    expect(m.bad_lines).toBe(1);
    expect(m.watermark).toBe(2);
  });

  it('says that lines longer than capture.max_line_bytes were skipped when they leave no turn, and how to read them', async () => {
    const { env, work } = await setup();
    await writeFile(join(work, 'handoff.config.json'), JSON.stringify({ capture: { max_line_bytes: 1024 } }));
    const src = join(work, 'long.jsonl');
    await writeFile(src, `${JSON.stringify({ type: 'user', sessionId: 's', message: { role: 'user', content: 'x'.repeat(4096) } })}\n`);
    const r = await runCli(['build', src], { env, cwd: work });
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('no turn parsed from 1 line(s); 1 line(s) longer than capture.max_line_bytes (1024 bytes) were skipped unread');
    expect(r.err).toContain('raise capture.max_line_bytes');
  });

  it('says that a line longer than capture.max_line_bytes was skipped when other lines leave turns, where it is, and in the handoff', async () => {
    const { env, work } = await setup();
    await writeFile(join(work, 'handoff.config.json'), JSON.stringify({ capture: { max_line_bytes: 1024 } }));
    const src = join(work, 'long.jsonl');
    const line = (uuid: string, content: string) => `${JSON.stringify({ type: 'user', sessionId: 's', uuid, message: { role: 'user', content } })}\n`;
    const first = line('u1', 'fix the parser');
    await writeFile(src, `${first}${line('u2', 'x'.repeat(4096))}${line('u3', 'and the lexer')}`);
    const r = await runCli(['build', src, '--json'], { env, cwd: work });
    expect(r.code, r.err).toBe(0);
    // The turn lost is said: the line, its byte offset, its size and how to read it.
    expect(r.err).toMatch(new RegExp(`line 2 \\(at byte ${Buffer.byteLength(first)}, \\d+ bytes\\) longer than capture.max_line_bytes skipped unread: its turn is not in the handoff`));
    const dir = (JSON.parse(r.out) as { dir: string }).dir;
    const md = await readFile(join(dir, 'HANDOFF.md'), 'utf8');
    expect(md).toMatch(/1 line\(s\) of the transcript longer than capture.max_line_bytes were skipped unread \(the latest: line 2, at byte \d+, \d+ bytes\): what they held is not in this handoff/);
  });

  it('ends quietly when its reader goes away (`handoff show … | true`), with no stack trace', async () => {
    const { env, work } = await setup();
    const src = await copyFixture('claude-session.jsonl', work);
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const r = spawnSync('bash', ['-c', `set -o pipefail; node ${JSON.stringify(CLI)} show claude-session | true`], { env: env as NodeJS.ProcessEnv, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it("never quotes a redaction pattern of one's own back in a config error, nor the text around a JSON syntax error", async () => {
    const { env, work } = await setup();
    const cfg = join(work, 'handoff.config.json');
    await writeFile(cfg, JSON.stringify({ redaction: { patterns: [{ name: 'acme', pattern: 'acme-internal-[0-9]{8}', flags: 'gi' }] } }));
    const bad = await runCli(['config'], { env, cwd: work });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`${cfg}: invalid config at /redaction/patterns/0`);
    expect(bad.err).not.toContain('acme-internal');
    await writeFile(cfg, '{"redaction": {"patterns": [{"name": "acme", "pattern": "acme-internal-[0-9]{8}",}]}}');
    const syntax = await runCli(['config'], { env, cwd: work });
    expect(syntax.code).toBe(2);
    expect(syntax.err).toContain(`${cfg}: invalid config at /: expected JSON`);
    expect(syntax.err).not.toContain('acme-internal');
  });

  it('exits 2 on an invalid config, naming the file, the JSON pointer and the fix', async () => {
    const { env, work } = await setup();
    const cfg = join(work, 'handoff.config.json');
    await writeFile(cfg, JSON.stringify({ watch: { debounce_ms: 'fast' } }));
    const r = await runCli(['config'], { env, cwd: work });
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${cfg}: invalid config at /watch/debounce_ms: expected a value of type integer, found "fast"`);
    expect(r.err).toMatch(/fix: /);
    // A value quoted back is cut where it splits no token: the token is then redacted whole.
    const token = 'ghp_Wq3Er7Ty1Ui5Op9As3Df7Gh1Jk5Lz9Xc3Vb7N';
    await writeFile(cfg, JSON.stringify({ watch: { paths: `notes on the watch folders we use, to keep for later: ${token} and more` } }));
    const q = await runCli(['config'], { env, cwd: work });
    expect(q.code).toBe(2);
    expect(q.err).toContain('invalid config at /watch/paths');
    expect(q.err).not.toMatch(/Wq3Er7Ty1Ui5/);
    await writeFile(cfg, '{"linking": {"enabled": true,}}');
    const s = await runCli(['config'], { env, cwd: work });
    expect(s.code).toBe(2);
    expect(s.err).toContain(`${cfg}: invalid config at /: expected JSON`);
    await writeFile(cfg, JSON.stringify({ colour: 'blue' }));
    const t = await runCli(['config'], { env, cwd: work });
    expect(t.code).toBe(2);
    expect(t.err).toContain('invalid config at /colour: expected no key "colour" (unknown option)');
  });

  it('exits 3 for an ambiguous prefix and 4 for no match or no handoffs', async () => {
    const { env, work } = await setup();
    const none = await runCli(['show', 'abc'], { env });
    expect(none.code).toBe(4);
    expect(none.err).toMatch(/no handoffs in/);
    for (const name of ['alpha-one', 'alpha-two']) {
      const p = join(work, `${name}.jsonl`);
      await writeFile(p, '{"role":"user","content":"a request long enough to count"}\n');
      expect((await runCli(['build', p], { env })).code).toBe(0);
    }
    const amb = await runCli(['show', 'alpha'], { env });
    expect(amb.code).toBe(3);
    expect(amb.err).toMatch(/"alpha" matches 2 sessions/);
    const miss = await runCli(['show', 'zzz'], { env });
    expect(miss.code).toBe(4);
    const hit = await runCli(['show', 'alpha-t', '--path'], { env });
    expect(hit.code).toBe(0);
    expect(hit.out.trim()).toMatch(/alpha-two\/HANDOFF\.md$/);
  });

  it('reads text transcripts whole and keeps turns from repeating by the watermark', async () => {
    const { env, work } = await setup();
    const src = await copyFixture('text-session.txt', work);
    const a = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { turns: number; dir: string };
    expect(a.turns).toBe(4);
    await appendFile(src, 'User: one more thing — update the changelog too\n');
    const b = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { turns: number; new_turns: number };
    expect(b).toMatchObject({ turns: 5, new_turns: 1 });
    expect((await runCli(['build', src], { env })).out).toMatch(/up-to-date/);
  });

  it('files a subagent transcript as <parent>.<stem> and lists it in the parent handoff', async () => {
    const { env, work } = await setup();
    const projectDir = join(work, '.claude', 'projects', '-home-dev-uploader');
    const parentId = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
    await mkdir(join(projectDir, parentId, 'subagents'), { recursive: true });
    const parent = await copyFixture('claude-session.jsonl', projectDir, `${parentId}.jsonl`);
    const child = join(projectDir, parentId, 'subagents', 'agent-a1b2c3.jsonl');
    await writeFile(
      child,
      `${JSON.stringify({ parentUuid: null, isSidechain: true, sessionId: parentId, agentId: 'a1b2c3', cwd: '/home/dev/uploader', type: 'user', message: { role: 'user', content: 'Find every caller of retry() and list them.' }, uuid: 'x1' })}\n`,
    );
    expect((await runCli(['build', parent], { env })).code).toBe(0);
    const c = JSON.parse((await runCli(['build', child, '--json'], { env })).out) as { session: string; project: string };
    expect(c).toMatchObject({ session: `${parentId}.agent-a1b2c3`, project: 'uploader' });
    // A prefix of the parent id also names the child: exact ids always win.
    expect((await runCli(['show', parentId.slice(0, 8)], { env })).code).toBe(3);
    const md = (await runCli(['show', parentId], { env })).out;
    expect(md).toContain(`\`${parentId}.agent-a1b2c3\` — handoff:`);
    const childMd = (await runCli(['show', `${parentId}.agent`], { env })).out;
    expect(childMd).toContain(`This session is a subagent of \`${parentId}\``);
    expect(childMd).toMatch(/## Objective \(verbatim\)\n\n```text\nFind every caller/);
  });

  it('files a subagent under its parent\'s project when the parent\'s file bears another name, whatever folder the subagent ran in', async () => {
    const { env, work } = await setup();
    const parentId = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
    // Both copied out of Claude Code's folders under other names, as a test corpus does; the
    // subagent ran in a worktree of its own, whose folder would name another project.
    const parent = join(work, 'exported-lead-session.jsonl');
    await writeFile(parent, `${JSON.stringify({ type: 'user', uuid: 'p1', sessionId: parentId, cwd: '/home/dev/uploader', message: { role: 'user', content: 'Have three teammates research the retry logic' } })}\n`);
    const child = join(work, 'exported-lead-session__subagents__agent-a1b2c3.jsonl');
    await writeFile(child, `${JSON.stringify({ parentUuid: null, isSidechain: true, sessionId: parentId, agentId: 'a1b2c3', cwd: '/home/dev/uploader/.claude/worktrees/agent-a1b2c3', type: 'user', message: { role: 'user', content: 'Find every caller of retry() and list them.' }, uuid: 'x1' })}\n`);
    const out = (await runCli(['build', parent, child, '--json'], { env })).out.trim().split('\n').map((l) => JSON.parse(l) as { session: string; project: string });
    expect(out.map((r) => [r.session, r.project])).toEqual([
      ['exported-lead-session', 'uploader'],
      [`${parentId}.agent-a1b2c3`, 'uploader'],
    ]);
  });

  it('knows a subagent transcript by its content under any file name, and reads its lines as its own', async () => {
    const { env, work } = await setup();
    const parentId = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
    const line = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: true, sessionId: parentId, agentId: 'c8d9b115', cwd: '/home/dev/uploader', gitBranch: 'main', ...o });
    const usage = { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 41000, output_tokens: 300 };
    // Copied out of its parent's folder under another name, as an export or a test corpus does.
    const child = join(work, 'exported-helper-run.jsonl');
    await writeFile(
      child,
      [
        line({ parentUuid: null, uuid: 'x1', timestamp: '2026-04-01T10:00:00Z', type: 'user', message: { role: 'user', content: 'Find every caller of retry() and list them.' } }),
        line({ parentUuid: 'x1', uuid: 'x2', timestamp: '2026-04-01T10:00:05Z', type: 'assistant', message: { role: 'assistant', model: 'claude-haiku-4-5-20251001', content: [{ type: 'text', text: 'retry() is called from upload.ts and queue.ts. Shall I change both?' }], usage } }),
      ].join('\n') + '\n',
    );
    const c = JSON.parse((await runCli(['build', child, '--json'], { env })).out) as { session: string; dir: string };
    expect(c.session).toBe(`${parentId}.agent-c8d9b115`);
    const md = await readFile(join(c.dir, 'HANDOFF.md'), 'utf8');
    expect(md).toContain('model: claude-haiku-4-5-20251001');
    expect(md).toContain('context_used_tokens: 41010');
    expect(md).toMatch(/## Objective \(verbatim\)\n\n```text\nFind every caller of retry\(\) and list them\.\n```\n\n\*reported\* — the task the session that started this subagent \(`5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f`\) gave it \(line 1\)/);
    expect(md).toContain(`every message this subagent was sent by the session that started it (\`${parentId}\`)`);
    const s = await readJson<{ next_action: { rule: string; line: number; text: string } }>(join(c.dir, 'HANDOFF.summary.json'));
    expect(s.next_action).toMatchObject({ rule: 'subagent_report', line: 2 });
    expect(s.next_action.text).toContain('ending with a question for it: «Shall I change both?»');
    // The session id names no secret: `verify` prints it as it is.
    const v = await runCli(['verify', '--all'], { env });
    expect(v.out).toContain(`PASS ${parentId}.agent-c8d9b115 [`);
  });

  it('reads a transcript that only starts on the side chain as a main session', async () => {
    const { env, work } = await setup();
    const src = join(work, 'session.jsonl');
    const base = { sessionId: 'ses_small', cwd: '/home/dev/uploader' };
    await writeFile(
      src,
      [
        { ...base, isSidechain: true, type: 'system', uuid: 'sys1', content: 'session start' },
        { ...base, isSidechain: false, type: 'user', uuid: 'u1', parentUuid: 'sys1', message: { role: 'user', content: 'Hello' } },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n') + '\n',
    );
    const c = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { session: string; dir: string };
    expect(c.session).toBe('session');
    expect(await readFile(join(c.dir, 'HANDOFF.md'), 'utf8')).not.toContain('This session is a subagent');
  });

  it('says the objective is unknown, not None, when a subagent transcript lacks its prompt', async () => {
    const { env, work } = await setup();
    const parentId = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
    const child = join(work, 'agent-run.jsonl');
    await writeFile(child, `${JSON.stringify({ parentUuid: null, isSidechain: true, sessionId: parentId, agentId: 'c8d9b115', cwd: '/home/dev/uploader', uuid: 'x2', type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'upload.ts calls retry() twice.' }] } })}\n`);
    const c = JSON.parse((await runCli(['build', child, '--json'], { env })).out) as { dir: string };
    const md = await readFile(join(c.dir, 'HANDOFF.md'), 'utf8');
    expect(md).toContain(`## Objective (verbatim)\n\n*unknown* — this subagent's transcript does not hold the task it was given: the session that started it (\`${parentId}\`) holds the call that did`);
    expect(md).toMatch(/## Next Action\n\nThis is a subagent's transcript, finished: its last message \(line 1\) is its report/);
  });

  it('retitles and renames a session, keeping INDEX.json and PROJECT.md true', async () => {
    const { env, root, work } = await setup();
    const src = await copyFixture('codex-rollout.jsonl', work);
    const built = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { dir: string };
    expect(built.dir).toBe(join(root, 'projects', 'billing', 'codex-rollout'));
    const t = await runCli(['retitle', 'codex', 'Invoice currency column'], { env });
    expect(t.code).toBe(0);
    const titled = join(root, 'projects', 'billing', 'invoice-currency-column');
    const m = await readJson<{ titled_from: string[]; title: string; revisions: number }>(join(titled, 'manifest.json'));
    expect(m).toMatchObject({ titled_from: ['codex-rollout'], title: 'Invoice currency column', revisions: 2 });
    expect(await readFile(join(titled, 'HANDOFF.md'), 'utf8')).toMatch(/^# Handoff: Invoice currency column$/m);
    const r = await runCli(['rename', 'codex', 'payments'], { env });
    expect(r.code).toBe(0);
    const moved = join(root, 'projects', 'payments', 'invoice-currency-column');
    const m2 = await readJson<{ project: string; prev_project: string; revisions: number }>(join(moved, 'manifest.json'));
    expect(m2).toMatchObject({ project: 'payments', prev_project: 'billing', revisions: 3 });
    const index = await readJson<{ id: string; project: string; dir: string }[]>(join(root, 'INDEX.json'));
    expect(index).toEqual([expect.objectContaining({ id: 'codex-rollout', project: 'payments', dir: moved })]);
    expect(await readFile(join(root, 'projects', 'payments', 'PROJECT.md'), 'utf8')).toContain('- session codex-rollout (turns=');
    // A project left with no session leaves no folder behind (not even a PROJECT.md listing nothing).
    expect(existsSync(join(root, 'projects', 'billing'))).toBe(false);
    expect((await runCli(['verify', 'codex'], { env })).code).toBe(0);
    // A later build of the same transcript lands in the renamed place.
    await appendFile(src, `${JSON.stringify({ timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and the backfill?' }] } })}\n`);
    const again = JSON.parse((await runCli(['build', src, '--json'], { env })).out) as { dir: string; revision: number };
    expect(again).toMatchObject({ dir: moved, revision: 4 });
  });
});
