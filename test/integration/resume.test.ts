import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, testEnv } from '../helpers.js';
import { claudeTranscript, git, gitRepo, writeTranscript } from '../transcripts.js';

interface ResumeJson {
  session: string;
  project: string;
  handoff: string;
  instruction: string;
  next_action: { text: string; source: string | null; label: string | null };
  drift: { status: string; items: { field: string; recorded: string | null; now: string | null }[]; summary: string; recorded: Record<string, unknown>; now: Record<string, unknown> };
}

async function session(env: NodeJS.ProcessEnv, repo: string, id: string, request = 'Make the JSON parser accept trailing commas in arrays'): Promise<{ dir: string; src: string }> {
  const src = writeTranscript(`${id}.jsonl`, claudeTranscript({ sessionId: id, cwd: repo, request }));
  const r = await runCli(['build', src, '--json'], { env });
  expect(r.code, r.err).toBe(0);
  return { src, dir: (JSON.parse(r.out) as { dir: string }).dir };
}

async function resume(env: NodeJS.ProcessEnv, args: string[], cwd?: string): Promise<ResumeJson> {
  const r = await runCli(['resume', ...args, '--json'], { env, ...(cwd === undefined ? {} : { cwd }) });
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as ResumeJson;
}

describe('handoff resume', () => {
  it('prints the resume instruction, the handoff path and its Next Action, and says "no drift" when nothing moved', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const repo = gitRepo();
    const { dir } = await session(env, repo, 'aaaa1111');
    const r = await runCli(['resume', 'aaaa'], { env });
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe(`Resume from ${join(dir, 'HANDOFF.md')}: verify drift, then continue its Next Action.`);
    expect(r.out).toContain(`handoff:     ${join(dir, 'HANDOFF.md')}`);
    expect(r.out).toMatch(/^next action: Continue the plan step: Make the parser accept trailing commas {2}\[reported — plan step, line 2\]$/m);
    expect(r.out).toMatch(new RegExp(`^ {2}repository {2}${repo} → ${repo}$`, 'm'));
    expect(r.out).toMatch(/^ {2}branch {6}main → main$/m);
    expect(r.out).toMatch(/^no drift: repository, branch, HEAD and dirty state are as recorded$/m);
    expect(r.out).not.toMatch(/DRIFT/);
    const j = await resume(env, ['aaaa']);
    expect(j.drift).toMatchObject({ status: 'none', items: [] });
    expect(j.drift.now).toMatchObject({ repository: repo, branch: 'main', head: git(repo, 'rev-parse', 'HEAD'), dirty: false });
    expect(j.instruction).toBe(lines[0]);
    // The same instruction ends HANDOFF.md, so a reader of either gets the same words.
    const md = (await runCli(['show', 'aaaa'], { env })).out;
    expect(md).toContain(`Resume instruction: \`${j.instruction}\``);
  });

  it('reports a new branch, a new HEAD and a clean tree turned dirty as material drift', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const repo = gitRepo();
    await session(env, repo, 'bbbb2222');
    const recordedHead = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'feature/commas');
    await writeFile(join(repo, 'src', 'parse.ts'), 'export const parse = (s: string) => JSON.parse(s.replace(/,\\s*]/g, "]"));\n');
    git(repo, 'commit', '-q', '-am', 'accept trailing commas');
    await writeFile(join(repo, 'NOTES.md'), 'scratch\n');
    const nowHead = git(repo, 'rev-parse', 'HEAD');
    const j = await resume(env, ['bbbb']);
    expect(j.drift.status).toBe('drift');
    expect(j.drift.items).toEqual([
      { field: 'branch', recorded: 'main', now: 'feature/commas' },
      { field: 'head', recorded: recordedHead, now: nowHead },
      { field: 'dirty', recorded: 'clean', now: 'dirty (0 changed, 1 untracked)' },
    ]);
    const text = (await runCli(['resume', 'bbbb'], { env })).out;
    expect(text).toMatch(/^ {2}branch {6}main → feature\/commas {2}DRIFT$/m);
    expect(text).toContain(`HEAD        ${recordedHead.slice(0, 12)} → ${nowHead.slice(0, 12)}  DRIFT`);
    expect(text).toMatch(/^ {2}dirty {7}clean → dirty \(0 changed, 1 untracked\) {2}DRIFT$/m);
    expect(text).toMatch(/^drift: 3 material change\(s\): branch, head, dirty — report it before acting; never reset/m);
  });

  it('prints the Next Action with the rule and the line that chose it', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const repo = gitRepo();
    const id = 'bbbb2222';
    const base = { sessionId: id, cwd: repo, version: '2.0.55', gitBranch: 'main', isSidechain: false };
    const src = writeTranscript(`${id}.jsonl`, [
      { ...base, type: 'user', uuid: 'u1', timestamp: '2026-11-30T03:00:01.000Z', message: { role: 'user', content: 'Add a subtract function next to add' } },
      { ...base, type: 'assistant', uuid: 'a1', timestamp: '2026-11-30T03:00:05.000Z', message: { id: 'msg_1', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: 'Done: sub is exported next to add.' }] } },
    ].map((l) => `${JSON.stringify(l)}\n`).join(''));
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const r = await runCli(['resume', id], { env });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^next action: Nothing is pending: the last request \(line 1: «Add a subtract function next to add»\) was answered \(line 2\)\. Wait for the user's next request\. {2}\[inferred — nothing pending, line 2\]$/m);
    expect((await resume(env, [id])).next_action).toMatchObject({ rule: 'nothing_pending', label: 'inferred', line: 2 });
  });

  it('does not call a tree that stays dirty drift, but does report the folder gone', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const repo = gitRepo();
    await writeFile(join(repo, 'wip.txt'), 'work in progress\n');
    await session(env, repo, 'cccc3333');
    await writeFile(join(repo, 'more.txt'), 'more work\n');
    expect((await resume(env, ['cccc'])).drift).toMatchObject({ status: 'none', items: [] });
    await rm(repo, { recursive: true, force: true });
    const gone = await resume(env, ['cccc']);
    expect(gone.drift.status).toBe('drift');
    expect(gone.drift.items).toEqual([{ field: 'cwd', recorded: repo, now: null }]);
    expect((await runCli(['resume', 'cccc'], { env })).out).toMatch(/^drift: the recorded working folder is gone: /m);
  });

  it('--latest picks the most recently updated session of the project the current folder belongs to', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    const repo = gitRepo('widget-shop');
    const other = gitRepo('billing');
    const first = await session(env, repo, 'dddd4444');
    await session(env, repo, 'eeee5555', 'Add a search box to the product list page');
    await session(env, other, 'ffff6666', 'Export invoices as CSV for the accountants');
    const inSub = join(repo, 'src');
    expect((await resume(env, ['--latest'], inSub)).session).toBe('eeee5555');
    expect((await resume(env, ['--latest'], other)).session).toBe('ffff6666');
    // The first session moves on: now it is the latest of its project.
    await writeFile(first.src, `${claudeTranscript({ sessionId: 'dddd4444', cwd: repo, request: 'Make the JSON parser accept trailing commas in arrays' })}${JSON.stringify({ type: 'user', sessionId: 'dddd4444', cwd: repo, message: { role: 'user', content: 'and objects too, please' } })}\n`);
    expect((await runCli(['build', first.src], { env })).code).toBe(0);
    const latest = await resume(env, ['--latest'], inSub);
    expect(latest).toMatchObject({ session: 'dddd4444', project: 'widget-shop' });
    expect(latest.handoff).toBe(join(first.dir, 'HANDOFF.md'));
  });

  it('--latest exits 4 naming the project when that project has no sessions', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    await session(env, gitRepo(), 'gggg7777');
    const elsewhere = join(tempDir('handoff-cwd-'), 'Garden Planner');
    await mkdir(elsewhere);
    const r = await runCli(['resume', '--latest'], { env, cwd: elsewhere });
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/no sessions of project "garden-planner" in .+ \(project inferred from .+Garden Planner by its folder name\)/);
    expect(r.err).toMatch(/fix: .*handoff resume <id-prefix>/);
  });

  it('is a usage error with neither or both of an id prefix and --latest', async () => {
    const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
    expect((await runCli(['resume'], { env })).code).toBe(2);
    const both = await runCli(['resume', 'abc', '--latest'], { env });
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/give an id prefix or --latest, not both/);
  });
});
