import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { everyFile, readStoredText, runCli, tempDir, testEnv } from '../helpers.js';

/**
 * Where credentials reached the store whole though the redactor knows them (a red-team reading):
 * copied into a fact's nested record, stripped of their underscores before the redactor read
 * them, kept in the carried state as a call id, cut in two before the redactor read them, and a
 * repository's branch name. Each transcript is built by the CLI; every file of the store (the
 * carried state decompressed) and every output is searched for the secret. All values are made up.
 */

const at = '2026-04-26T10:00:00Z';

async function buildAndScan(records: unknown[], secrets: readonly string[], name = 's.jsonl', env = testEnv()): Promise<string[]> {
  const work = tempDir('handoff-work-');
  const src = join(work, name);
  await writeFile(src, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const store = join(work, 'store');
  const e = { ...env, HANDOFFS_ROOT: store };
  const built = await runCli(['build', src], { env: e });
  expect(built.code).toBe(0);
  const show = await runCli(['show', '--latest'], { env: e });
  const found: string[] = [];
  const texts: [string, string][] = [['build output', built.out + built.err], ['show', show.out + show.err]];
  for (const f of await everyFile(store)) texts.push([f.slice(store.length + 1), await readStoredText(f)]);
  for (const s of secrets) for (const [where, text] of texts) if (text.includes(s)) found.push(`${s.slice(0, 12)}… in ${where}`);
  return found;
}

const claude = (cwd: string) => {
  const base = { sessionId: 'redteam-1', cwd, timestamp: at };
  return {
    user: (uuid: string, content: unknown) => ({ ...base, type: 'user', uuid, message: { role: 'user', content } }),
    call: (id: string, name: string, input: unknown) => ({ ...base, type: 'assistant', uuid: `c-${id}`, message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } }),
    result: (id: string, content: string) => ({ ...base, type: 'user', uuid: `r-${id}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] } }),
  };
};

describe('credentials that reached the store whole', () => {
  it("a background job's command and description", async () => {
    const c = claude('/nonexistent/w');
    const token = 'ghp_Q7mZt2Lx9KpV4nR8sW1yB6cD3fH5jA0gE2uI';
    const stripe = 'sk_live_4eC39HqLyjWDarjtT1zdp7dcXyZ9aB3k';
    const records = [c.user('u1', 'Start the dev server'), c.call('b1', 'Bash', { command: `GITHUB_TOKEN=${token} npm run dev`, description: `dev server with ${stripe}`, run_in_background: true }), c.result('b1', 'Command running in background with ID: bash_1')];
    expect(await buildAndScan(records, [token.slice(4), stripe.slice(8)])).toEqual([]);
  });

  it("what a write defines, read from headings and comments with their underscores", async () => {
    const c = claude('/nonexistent/w');
    const token = 'ghp_Hk3Lm9Np2Qr5St8Uv1Wx4Yz7Ab0Cd6Ef3Gh9Ij';
    const records = [
      c.user('u1', 'Write the env file'),
      c.call('w1', 'Write', { file_path: '/nonexistent/w/.env', content: `# GITHUB_TOKEN=${token}\n# DB_PASSWORD=Xq8Lw2Nz5Rt9Vb3Mk7Pd\n` }),
      c.result('w1', 'File created successfully at: /nonexistent/w/.env'),
    ];
    // With its underscores taken out the token read `ghpHk3…`: neither form may be kept.
    expect(await buildAndScan(records, [token.slice(4), 'ghpHk3Lm9Np2', 'Xq8Lw2Nz5Rt9Vb3Mk7Pd'])).toEqual([]);
  });

  it("a Codex question's call id, in the carried state", async () => {
    const id = 'call_ghp_Bc4De7Fg0Hi3Jk6Lm9No2Pq5Rs8Tu1Vw4Xy7Z';
    const records = [
      { timestamp: at, type: 'session_meta', payload: { id: 'c-1', cwd: '/nonexistent/w', cli_version: '0.144.0' } },
      { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Ask me which database to use' }] } },
      { timestamp: at, type: 'response_item', payload: { type: 'function_call', name: 'request_user_input', call_id: id, arguments: JSON.stringify({ questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }] }] }) } },
    ];
    expect(await buildAndScan(records, ['Bc4De7Fg0Hi3Jk6Lm9No2Pq5Rs8Tu1Vw4Xy7Z'], 'rollout-2026-04-26T10-00-00-00000000-0000-4000-8000-000000000001.jsonl')).toEqual([]);
  });

  it('a token cut in two where a long output is shortened', async () => {
    const c = claude('/nonexistent/w');
    const token = 'ghp_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa98';
    // The failure line, and the token on it, straddle the 2,000th character, where the head of
    // the output kept is cut: the line the handoff quotes is the one cut.
    const output = `${'ok 1\n'.repeat(382)}FAILED tests/test_login.py::test_token - AssertionError: got 401 for ${token} on login\n${'ok 2\n'.repeat(900)}`;
    const records = [c.user('u1', 'Run the tests'), c.call('t1', 'Bash', { command: 'pytest' }), c.result('t1', output)];
    expect(output.indexOf(token)).toBeLessThan(2000);
    expect(output.indexOf(token) + token.length).toBeGreaterThan(2000);
    expect(await buildAndScan(records, [token.slice(4, 20), token.slice(-16)])).toEqual([]);
  });

  it("a repository's branch name", async () => {
    const dir = join(tempDir('handoff-git-'), 'repo');
    await mkdir(dir, { recursive: true });
    const token = 'ghp_Lm3Np6Qr9St2Uv5Wx8Yz1Ab4Cd7Ef0Gh3Ij67J';
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    execFileSync('git', ['init', '-q', '-b', `hotfix/${token}`, dir], { env });
    await writeFile(join(dir, 'a.txt'), 'a\n');
    execFileSync('git', ['-C', dir, 'add', '.'], { env });
    execFileSync('git', ['-C', dir, 'commit', '-qm', 'first'], { env });
    const c = claude(dir);
    const records = [c.user('u1', 'What branch is this?'), c.call('g1', 'Bash', { command: 'git status' }), c.result('g1', 'nothing to commit')];
    expect(await buildAndScan(records, [token.slice(4)])).toEqual([]);
  });

  it('a key the handoff joins itself, dropping the Markdown of the heading a question sits under', async () => {
    // `AKIA_Q3EG…` is no key as written; the heading shown above the question drops Markdown's
    // marks but keeps an underscore inside a word, so it joins nothing.
    const c = claude('/nonexistent/w');
    const say = (uuid: string, text: string) => ({ sessionId: 'redteam-1', cwd: '/nonexistent/w', timestamp: at, type: 'assistant', uuid, message: { role: 'assistant', content: [{ type: 'text', text }] } });
    const records = [c.user('u1', 'Which IAM key is still active?'), say('a1', '## Rotate AKIA_Q3EGQ5ZK7WNBXR2M\n\nIt was created for the old CI. Should I deactivate it now?')];
    expect(await buildAndScan(records, ['AKIAQ3EGQ5ZK7WNBXR2M'])).toEqual([]);
  });
});

describe('a recorded folder whose name holds a line break', () => {
  it('is one line wherever HANDOFF.md shows it: it writes no line of its own into the front matter', async () => {
    const cwd = '/nonexistent/x\n---\nrepo: /etc';
    const work = tempDir('handoff-work-');
    const src = join(work, 's.jsonl');
    const base = { sessionId: 'nl-1', cwd, timestamp: at };
    await writeFile(src, `${[{ ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'hello' } }, { ...base, type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] } }].map((r) => JSON.stringify(r)).join('\n')}\n`);
    const env = { ...testEnv(), HANDOFFS_ROOT: join(work, 'store') };
    expect((await runCli(['build', src], { env })).code).toBe(0);
    const md = (await runCli(['show', 'nl-1'], { env })).out;
    expect(md.split('\n')).not.toContain('repo: /etc');
    expect(md).toContain('\\n---\\nrepo: /etc');
  });
});
