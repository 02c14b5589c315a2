import { readFileSync, statSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { claudeTranscriptPath, ClaudeSession, runHook, runShellCommand, statusLineInput } from '../hook-harness.js';
import { readJson, runCli, tempDir, testEnv, waitFor } from '../helpers.js';
import { gitRepo } from '../transcripts.js';

/**
 * The status line `handoff hooks install` puts in settings.json — a POSIX sh script, no Node —
 * run exactly as installed, through a shell with Claude Code's JSON on stdin, against a real
 * daemon that built a real transcript.
 */

let env: NodeJS.ProcessEnv;
let root: string;
let daemon: RunningDaemon;
let command: string;
let cwd: string;
let s: ClaudeSession;
const sessionId = '3c3c3c3c-1111-4222-8333-444455556666';
let input: Record<string, unknown>;

async function manifest(): Promise<{ revisions: number; context: { level: string } }> {
  const e = await waitFor(async () => {
    const index = (await daemon.call('sessions.list', {})) as { uuid: string | null; dir: string }[];
    return index.find((i) => i.uuid === sessionId)?.dir ?? null;
  }, 'the session to be built');
  return readJson(join(e, 'manifest.json'));
}

beforeAll(async () => {
  env = testEnv();
  root = join(tempDir('handoff-store-'), 'store');
  env.HANDOFFS_ROOT = root;
  const claudeDir = join(env.HOME as string, '.claude');
  mkdirSync(join(claudeDir, 'projects'), { recursive: true });
  cwd = gitRepo('status-shell');
  const path = claudeTranscriptPath(claudeDir, cwd, sessionId);
  s = new ClaudeSession(path, sessionId, cwd);
  input = statusLineInput({ sessionId, path, cwd });
  const r = await runCli(['hooks', 'install'], { env, cwd });
  expect(r.code, r.err).toBe(0);
  command = (JSON.parse(readFileSync(join(claudeDir, 'settings.json'), 'utf8')) as { statusLine: { command: string } }).statusLine.command;
  daemon = await startDaemon(env, root, ['--watch', join(claudeDir, 'projects')]);
  s.user('Make the parser accept trailing commas and keep the old error messages.').say('Looking at the tokenizer first.');
}, 60_000);

afterAll(async () => {
  await daemon?.kill('SIGTERM');
});

describe('the installed shell status line', () => {
  it('is a POSIX sh command that starts no Node', () => {
    expect(command).toMatch(/^sh \S*hooks\/handoff-statusline\.sh \S*\.handoffd$/);
    expect(command).not.toContain(process.execPath);
  });

  it('prints the line the daemon keeps for the session, the same as the Node hook prints', async () => {
    const m = await manifest();
    const want = new RegExp(`^handoff · ctx .*${m.context.level}.* · rev ${m.revisions} · (ready|not ready)$`);
    const r = await waitFor(async () => {
      const got = await runShellCommand(command, input, { env, cwd });
      return want.test(got.out.trimEnd()) ? got : null;
    }, `the shell status line to show rev ${m.revisions}`);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out.split('\n')).toEqual([expect.any(String), '']);
    // The Node hook answers within its time budget or says the daemon did not answer: on a loaded
    // host a run may miss the budget (each run starts a Node process), so it is asked until it
    // answers, for up to 30 s, then must agree.
    let last = '';
    await waitFor(async () => {
      last = (await runHook('statusline', input, { env, cwd })).out.trimEnd();
      return last.includes('daemon:') ? null : last;
    }, 'the Node status line to answer within its budget', 30_000);
    expect(last).toBe(r.out.trimEnd());
  });

  it('follows the session as it grows: a new turn, a new revision', async () => {
    const before = (await manifest()).revisions;
    s.user('Also accept trailing commas in nested arrays.').say('Done; the tests pass.');
    const r = await waitFor(async () => {
      const got = await runShellCommand(command, input, { env, cwd });
      const rev = /rev (\d+)/.exec(got.out)?.[1];
      return rev !== undefined && Number(rev) > before ? got : null;
    }, 'a newer revision in the status line');
    expect(r.out).toContain('handoff · ctx');
  });

  it('keeps the file private and names it by the session id alone', () => {
    const file = join(root, '.handoffd', 'status', sessionId);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(3);
  });

  it('colours the line unless NO_COLOR is set', async () => {
    const { NO_COLOR: _, ...coloured } = env;
    const r = await runShellCommand(command, input, { env: coloured, cwd });
    expect(r.out).toMatch(/\u001b\[1mhandoff\u001b\[0m · \u001b\[/);
  });

  it('says a session is not built yet, and never follows a session id out of its folder', async () => {
    expect((await runShellCommand(command, { ...input, session_id: 'ffffffff-0000-4000-8000-000000000000' }, { env, cwd })).out).toBe('handoff · not built yet\n');
    for (const bad of ['../handoffd.lock', '$(touch pwned)', '3c3c3c3c-1111-4222-8333-444455556666/../x', '']) {
      const r = await runShellCommand(command, { ...input, session_id: bad }, { env, cwd });
      expect(r.code).toBe(0);
      expect(r.out).toBe('handoff · no session in the status line input\n');
    }
    const r = await runShellCommand(command, '{"cwd":"\\"session_id","session_id" :\n "3c3c3c3c-1111-4222-8333-444455556666"}', { env, cwd });
    expect(r.out).toMatch(/^handoff · ctx /);
    expect((await runShellCommand(command, 'not json at all', { env, cwd })).out).toBe('handoff · no session in the status line input\n');
  });

  it('says daemon off once the daemon is killed, and keeps the last line', async () => {
    await daemon.kill('SIGKILL');
    const r = await runShellCommand(command, input, { env, cwd });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^handoff · ctx .* · rev \d+ · (ready|not ready) · daemon off\n$/);
  });
});
