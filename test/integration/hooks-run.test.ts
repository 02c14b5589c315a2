import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/core/digest.js';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { claudeTranscriptPath, ClaudeSession, preCompactInput, runHook, sessionStartInput, statusLineInput } from '../hook-harness.js';
import { readJson, runCli, tempDir, testEnv, waitFor } from '../helpers.js';
import { gitRepo } from '../transcripts.js';

/**
 * Every hook run as Claude Code runs it — a child process, the harness's JSON on stdin — against a
 * real daemon reading a real transcript that grows by appends and then compacts.
 */

interface Session {
  s: ClaudeSession;
  sessionId: string;
  path: string;
  cwd: string;
}

let root: string;
let env: NodeJS.ProcessEnv;
let daemon: RunningDaemon;
let claudeDir: string;
let uploader: Session;
let translator: Session;

function session(cwd: string, sessionId: string, dir = claudeDir): Session {
  const path = claudeTranscriptPath(dir, cwd, sessionId);
  return { s: new ClaudeSession(path, sessionId, cwd), sessionId, path, cwd };
}

/** The session's folder in the store, once the daemon has built it. */
async function built(x: Session, minTurns = 1): Promise<string> {
  return waitFor(async () => {
    const index = (await daemon.call('sessions.list', {})) as { uuid: string | null; dir: string; turns: number }[];
    const e = index.find((i) => i.uuid === x.sessionId);
    return e && e.turns >= minTurns ? e.dir : null;
  }, `the daemon to build ${x.sessionId}`).catch((e: Error) => {
    throw new Error(`${e.message}\n${daemon.log().slice(-3000)}`);
  });
}

function additionalContext(out: string): string {
  const parsed = JSON.parse(out) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  expect(parsed.hookSpecificOutput.hookEventName).toBe('SessionStart');
  return parsed.hookSpecificOutput.additionalContext;
}

beforeAll(async () => {
  env = testEnv();
  root = join(tempDir('handoff-store-'), 'store');
  claudeDir = join(env.HOME as string, '.claude');
  env.HANDOFFS_ROOT = root;
  // Timing is the benchmark's business; here the budget is wide so a loaded machine cannot flake the
  // facts. The daemon refreshes a session at most every 3 s: lines appended right before a hook runs
  // reach the handoff only if the hook makes the daemon catch up.
  mkdirSync(join(env.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
  writeFileSync(join(env.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ hooks: { time_budget_ms: 15_000 }, watch: { debounce_ms: 3000 } }));
  uploader = session(gitRepo('uploader'), '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f');
  translator = session(gitRepo('translator'), '9a8b7c6d-1111-4222-8333-944455556666');
  mkdirSync(join(claudeDir, 'projects'), { recursive: true });
  daemon = await startDaemon(env, root, ['--watch', join(claudeDir, 'projects')]);
  translator.s.user('Translate the README into German, keeping the code blocks as they are.').say('I will start with the introduction.');
  uploader.s
    .user('Make the upload retry use exponential backoff and keep the tests green.')
    .todos([
      { content: 'Read the retry loop', status: 'completed' },
      { content: 'Add exponential backoff', status: 'in_progress' },
      { content: 'Run the test suite', status: 'pending' },
    ]);
  await built(uploader);
  uploader.s.bash('npm test -- retry', 'FAIL src/retry.test.ts > retry > expected 200, received 100', true).say('The first delay must be 200 ms; I will start the backoff at 200.');
  await built(translator);
  await built(uploader, 6);
}, 60_000);

afterAll(async () => {
  await daemon?.kill('SIGTERM');
});

describe('session-start after a compaction, with the daemon running', () => {
  it('gives the session its own handoff back: objective, next action, open failures, the newest lines, within the budget', async () => {
    // The last request and the compaction land just before the hook runs: the hook must catch up on them.
    uploader.s.user('Keep the maximum delay at 30 seconds.').compact('auto', 'This session is being continued from a previous conversation. Summary: backoff work.');
    const r = await runHook('session-start', sessionStartInput(uploader, 'compact'), { env, cwd: uploader.cwd });
    expect(r.code).toBe(0);
    const text = additionalContext(r.out);
    const dir = await built(uploader);
    const summary = await readJson<{ objective: string; next_action: { text: string } }>(join(dir, 'HANDOFF.summary.json'));
    expect(text).toContain(summary.objective);
    expect(text).toContain('Make the upload retry use exponential backoff');
    expect(text).toContain(summary.next_action.text);
    expect(text).toContain('expected 200, received 100');
    expect(text).toContain('Keep the maximum delay at 30 seconds.');
    expect(text).toContain(join(dir, 'HANDOFF.md'));
    expect(text).not.toContain('Translate the README');
    expect(text).not.toContain('Note:');
    expect(estimateTokens(text)).toBeLessThanOrEqual(2000);
  });

  it('keeps to a smaller token budget set in the config', async () => {
    const small = testEnv({ HANDOFFS_ROOT: root });
    mkdirSync(join(small.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    writeFileSync(join(small.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ hooks: { token_budget: 300, time_budget_ms: 15_000 } }));
    const r = await runHook('session-start', sessionStartInput(uploader, 'compact'), { env: small, cwd: uploader.cwd });
    const text = additionalContext(r.out);
    expect(estimateTokens(text)).toBeLessThanOrEqual(300);
    expect(text).toContain('Make the upload retry use exponential backoff');
  });

  it('gives a resumed session its handoff only when it was compacted', async () => {
    const compacted = await runHook('session-start', sessionStartInput(uploader, 'resume'), { env, cwd: uploader.cwd });
    expect(additionalContext(compacted.out)).toContain('This session was resumed after a compaction');
    const fresh = await runHook('session-start', sessionStartInput(translator, 'resume'), { env, cwd: translator.cwd });
    expect(fresh.code).toBe(0);
    expect(fresh.out).toBe('');
  });

  it('exits 0 with valid output when the time budget is too small for the daemon to answer', async () => {
    const tight = testEnv({ HANDOFFS_ROOT: root });
    mkdirSync(join(tight.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    writeFileSync(join(tight.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ hooks: { time_budget_ms: 50 } }));
    const r = await runHook('session-start', sessionStartInput(uploader, 'compact'), { env: tight, cwd: uploader.cwd });
    expect(r.code).toBe(0);
    if (r.out !== '') additionalContext(r.out);
  });
});

describe('pre-compact, with the daemon running', () => {
  it('keeps a checkpoint of the handoff in history/ before the compaction, and prints nothing', async () => {
    uploader.s.say('Now changing the maximum delay.');
    const r = await runHook('pre-compact', preCompactInput(uploader, 'auto'), { env, cwd: uploader.cwd });
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    const dir = await built(uploader);
    const checkpoints = readdirSync(join(dir, 'history')).filter((f) => f.endsWith('-checkpoint.md'));
    expect(checkpoints.length).toBeGreaterThanOrEqual(1);
    const latest = readFileSync(join(dir, 'history', checkpoints.sort().at(-1) as string), 'utf8');
    expect(latest).toContain('before an automatic compaction');
    expect(latest).toContain('Now changing the maximum delay.');
  });
});

describe('statusline, with the daemon running', () => {
  it('prints one line with the pressure, the revision and readiness of this session', async () => {
    const dir = await built(uploader);
    const r = await runHook('statusline', statusLineInput(uploader), { env, cwd: uploader.cwd });
    expect(r.code).toBe(0);
    const manifest = await readJson<{ revisions: number; context: { level: string } }>(join(dir, 'manifest.json'));
    expect(r.out.trimEnd().split('\n')).toHaveLength(1);
    expect(r.out).toMatch(new RegExp(`^handoff · ctx .*${manifest.context.level}.* · rev ${manifest.revisions} · (ready|not ready)\\n?$`));
    // eslint-disable-next-line no-control-regex
    expect(r.out).not.toMatch(/\u001b/);
  });

  it('colours it when NO_COLOR is not set', async () => {
    const { NO_COLOR: _, ...coloured } = env;
    const r = await runHook('statusline', statusLineInput(uploader), { env: coloured, cwd: uploader.cwd });
    expect(r.out).toMatch(/\u001b\[/);
  });

  it('says when a session is not built yet', async () => {
    const r = await runHook('statusline', statusLineInput({ sessionId: 'not-there-0000', path: join(claudeDir, 'projects', 'x', 'not-there-0000.jsonl'), cwd: uploader.cwd }), { env, cwd: uploader.cwd });
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe('handoff · not built yet');
  });
});

describe('session-start of a new or cleared session', () => {
  it('offers the project\'s unclaimed handoff, records the new session once its transcript appears, and offers it no more', async () => {
    const next = session(uploader.cwd, '11111111-2222-4333-8444-555555555555');
    const r = await runHook('session-start', sessionStartInput(next, 'clear'), { env, cwd: next.cwd });
    expect(r.code).toBe(0);
    const offer = additionalContext(r.out);
    const dir = await built(uploader);
    expect(offer).toContain(`session ${(await readJson<{ session: string }>(join(dir, 'manifest.json'))).session}`);
    expect(offer).toContain('Make the upload retry use exponential backoff');
    expect(offer).toContain(join(dir, 'HANDOFF.md'));
    expect(offer.split('\n').length).toBeLessThanOrEqual(6);
    expect(offer).not.toContain('Translate the README');
    const record = await readJson<{ offers: { session: string; transcript_path: string }[] }>(join(dir, 'to-session.json'));
    expect(record.offers.map((o) => o.session)).toEqual([next.sessionId]);

    // The new session writes its first lines: it has taken the handoff over.
    next.s.user('Add jitter to the retry delays.');
    const third = session(uploader.cwd, '22222222-3333-4444-8555-666666666666');
    const again = await runHook('session-start', sessionStartInput(third, 'startup'), { env, cwd: third.cwd });
    expect(again.code).toBe(0);
    expect(again.out).not.toContain('Make the upload retry use exponential backoff');
  });

  it('writes the session that took the handoff over into HANDOFF.md\'s front matter and the payloads, and verify still passes', async () => {
    const dir = await built(uploader);
    const next = session(uploader.cwd, '11111111-2222-4333-8444-555555555555');
    const id = (await readJson<{ session: string }>(join(dir, 'manifest.json'))).session;
    // The daemon stamps it once it has built the new session's first turn.
    const md = await waitFor(() => {
      const text = readFileSync(join(dir, 'HANDOFF.md'), 'utf8');
      return text.includes(`to_session: ${next.sessionId}`) ? text : null;
    }, 'to_session in the front matter', 20_000);
    expect(md).toMatch(new RegExp(`^to_session: ${next.sessionId} {2}# took this handoff over: offered \\S+ \\(claude, clear\\), recorded in to-session\\.json$`, 'm'));
    for (const file of ['HANDOFF.summary.json', 'HANDOFF.llm.json']) {
      expect((await readJson<{ to_session: unknown }>(join(dir, file))).to_session).toEqual({ session: next.sessionId, harness: 'claude', source: 'clear', offered_at: expect.any(String), recorded_in: 'to-session.json' });
    }
    const v = await runCli(['verify', id], { env });
    expect(v.code, v.out + v.err).toBe(0);
    expect(v.out).toMatch(/^PASS .*to_session/);

    // A build of the offered session renders `pending` again; the daemon stamps it again at once.
    const rev = (await readJson<{ revisions: number }>(join(dir, 'manifest.json'))).revisions;
    uploader.s.say('Backoff now starts at 200 ms.');
    await waitFor(async () => (await readJson<{ revisions: number }>(join(dir, 'manifest.json'))).revisions > rev, 'a rebuild of the offered session', 20_000);
    await waitFor(() => readFileSync(join(dir, 'HANDOFF.md'), 'utf8').includes(`to_session: ${next.sessionId}`), 'the stamp after the rebuild', 20_000);
    expect((await runCli(['verify', id], { env })).code).toBe(0);
    // Whatever the daemon still has queued (a second build of the appended turn, its stamp) runs
    // before the files are forged below: one rewritten after the forgery would verify again.
    expect((await runCli(['status', '--wait'], { env })).code).toBe(0);

    // The stamp is outside the digests, but not free text: it must name a recorded offer.
    const stamped = readFileSync(join(dir, 'HANDOFF.md'), 'utf8');
    writeFileSync(join(dir, 'HANDOFF.md'), stamped.replace(`to_session: ${next.sessionId}`, 'to_session: 99999999-0000-4000-8000-000000000000'));
    const bad = await runCli(['verify', id], { env });
    expect(bad.code).toBe(1);
    expect(bad.out + bad.err).toContain(`HANDOFF.md names to_session 99999999-0000-4000-8000-000000000000 but HANDOFF.summary.json names ${next.sessionId}`);
    const summary = readFileSync(join(dir, 'HANDOFF.summary.json'), 'utf8');
    writeFileSync(join(dir, 'HANDOFF.summary.json'), summary.replace(`"session":"${next.sessionId}"`, '"session":"99999999-0000-4000-8000-000000000000"'));
    const forged = await runCli(['verify', id], { env });
    expect(forged.code).toBe(1);
    expect(forged.out + forged.err).toContain('names to_session 99999999-0000-4000-8000-000000000000, which to-session.json does not record');
    writeFileSync(join(dir, 'HANDOFF.summary.json'), summary);
    writeFileSync(join(dir, 'HANDOFF.md'), stamped);
    expect((await runCli(['verify', id], { env })).code).toBe(0);
  });

  it('offers only sessions active within hooks.offer_max_age_h, judged by the transcript\'s last write', async () => {
    const old = session(gitRepo('archive'), '77777777-8888-4999-8aaa-bbbbbbbbbbbb');
    // Written aside and moved in with its old mtime, so the daemon never sees it younger.
    const aside = new ClaudeSession(`${old.path}.part`, old.sessionId, old.cwd);
    aside.user('Migrate the archive job to the new queue and keep the old one running meanwhile.').say('Starting with the producer.');
    const fiveDaysAgo = new Date(Date.now() - 5 * 86_400_000);
    utimesSync(`${old.path}.part`, fiveDaysAgo, fiveDaysAgo);
    renameSync(`${old.path}.part`, old.path);
    await built(old, 2);
    const next = session(old.cwd, '88888888-9999-4aaa-8bbb-cccccccccccc');
    const r = await runHook('session-start', sessionStartInput(next, 'startup'), { env, cwd: old.cwd });
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    const wide = testEnv({ HANDOFFS_ROOT: root });
    mkdirSync(join(wide.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    writeFileSync(join(wide.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ hooks: { offer_max_age_h: 24 * 7, time_budget_ms: 15_000 } }));
    const offered = await runHook('session-start', sessionStartInput(next, 'startup'), { env: wide, cwd: old.cwd });
    expect(offered.err).toBe("");
    expect(additionalContext(offered.out)).toContain('last active 5 days ago');
  });

  it('offers nothing in a project with no handoff', async () => {
    const elsewhere = session(gitRepo('empty-project'), '33333333-4444-4555-8666-777777777777');
    const r = await runHook('session-start', sessionStartInput(elsewhere, 'startup'), { env, cwd: elsewhere.cwd });
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
  });

  it('offers nothing when hooks.on_start is never', async () => {
    const quiet = testEnv({ HANDOFFS_ROOT: root });
    mkdirSync(join(quiet.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    writeFileSync(join(quiet.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ hooks: { on_start: 'never', time_budget_ms: 15_000 } }));
    const r = await runHook('session-start', sessionStartInput(session(translator.cwd, '44444444-5555-4666-8777-888888888888'), 'startup'), { env: quiet, cwd: translator.cwd });
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
  });
});

describe('hooks without a daemon', () => {
  let alone: NodeJS.ProcessEnv;
  let s: Session;

  beforeAll(() => {
    alone = testEnv({ HANDOFFS_ROOT: join(tempDir('handoff-store-'), 'store') });
    s = session(gitRepo('uploader'), '55555555-6666-4777-8888-999999999999', join(alone.HOME as string, '.claude'));
    s.s.user('Make the upload retry use exponential backoff and keep the tests green.').bash('npm test -- retry', 'FAIL src/retry.test.ts > retry > expected 200, received 100', true).compact('manual', 'Summary.');
  });

  it('builds a small session directly and gives its handoff back after a compaction', async () => {
    const r = await runHook('session-start', sessionStartInput(s, 'compact'), { env: alone, cwd: s.cwd });
    expect(r.code).toBe(0);
    const text = additionalContext(r.out);
    expect(text).toContain('Make the upload retry use exponential backoff');
    expect(text).toContain('expected 200, received 100');
  });

  it('writes the pre-compact checkpoint itself', async () => {
    const r = await runHook('pre-compact', preCompactInput(s, 'manual'), { env: alone, cwd: s.cwd });
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/checkpoint written to history\//);
  });

  it('records the session that took the handoff over in HANDOFF.md itself, and verify passes', async () => {
    const dir = (await readJson<{ uuid: string | null; dir: string }[]>(join(alone.HANDOFFS_ROOT as string, 'INDEX.json'))).find((e) => e.uuid === s.sessionId)?.dir as string;
    const next = session(s.cwd, '66666666-7777-4888-8999-aaaaaaaaaaaa', join(alone.HOME as string, '.claude'));
    const offered = await runHook('session-start', sessionStartInput(next, 'clear'), { env: alone, cwd: next.cwd });
    expect(offered.err).toBe("");
    expect(additionalContext(offered.out)).toContain('Make the upload retry use exponential backoff');
    expect(readFileSync(join(dir, 'HANDOFF.md'), 'utf8')).toMatch(/^to_session: pending$/m);
    next.s.user('Add jitter to the retry delays.');
    // The next hook that comes across the taken handoff is the store's writer: it stamps it.
    const third = session(s.cwd, '77777777-8888-4999-8aaa-cccccccccccc', join(alone.HOME as string, '.claude'));
    const again = await runHook('session-start', sessionStartInput(third, 'startup'), { env: alone, cwd: third.cwd });
    expect(again.code).toBe(0);
    expect(readFileSync(join(dir, 'HANDOFF.md'), 'utf8')).toMatch(new RegExp(`^to_session: ${next.sessionId} {2}# took this handoff over`, 'm'));
    expect((await readJson<{ to_session: { session: string } }>(join(dir, 'HANDOFF.summary.json'))).to_session.session).toBe(next.sessionId);
    const id = (await readJson<{ session: string }>(join(dir, 'manifest.json'))).session;
    const v = await runCli(['verify', id], { env: alone });
    expect(v.code, v.out + v.err).toBe(0);
    expect(v.out).toMatch(/^PASS .*to_session/);
  });

  it('says in the status line that no daemon refreshes the handoff', async () => {
    const r = await runHook('statusline', statusLineInput(s), { env: alone, cwd: s.cwd });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^handoff · ctx .* · rev \d+ · .*daemon off\n?$/);
  });
});

describe('a daemon that holds the store but does not answer in time', () => {
  it('is never bypassed: the hooks only read, and say the daemon is busy', async () => {
    const e = testEnv({ HANDOFFS_ROOT: join(tempDir('handoff-store-'), 'store') });
    const runtime = join(e.HANDOFFS_ROOT as string, '.handoffd');
    mkdirSync(runtime, { recursive: true });
    // Accepts connections and never answers: a daemon stuck in a long build.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(join(runtime, 'handoffd.sock'), resolve));
    try {
      const s = session(gitRepo('uploader'), '66666666-7777-4888-8999-aaaaaaaaaaaa', join(e.HOME as string, '.claude'));
      s.s.user('Make the upload retry use exponential backoff and keep the tests green.').compact('auto', 'Summary.');
      const start = await runHook('session-start', sessionStartInput(s, 'compact'), { env: e, cwd: s.cwd });
      expect(start.code).toBe(0);
      expect(start.out).toBe('');
      const pre = await runHook('pre-compact', preCompactInput(s, 'auto'), { env: e, cwd: s.cwd });
      expect(pre.code).toBe(0);
      expect(pre.err).toMatch(/no checkpoint/);
      const line = await runHook('statusline', statusLineInput(s), { env: e, cwd: s.cwd });
      expect(line.out.trim()).toBe('handoff · not built yet · daemon busy');
      expect(existsSync(join(e.HANDOFFS_ROOT as string, 'projects'))).toBe(false);
    } finally {
      silent.close();
    }
  });
});

describe('every hook exits 0 with valid output whatever it is given', () => {
  const cases: [string, (home: string) => NodeJS.ProcessEnv, string | null][] = [
    ['a store root that is a file', (h) => {
      const file = join(h, 'not-a-folder');
      writeFileSync(file, 'x');
      return { HANDOFFS_ROOT: file };
    }, null],
    ['a store whose INDEX.json and payloads are garbage', (h) => {
      const r = join(h, 'broken-store');
      mkdirSync(join(r, 'projects', 'p', 's'), { recursive: true });
      writeFileSync(join(r, 'INDEX.json'), '{not json');
      writeFileSync(join(r, 'projects', 'p', 's', 'HANDOFF.summary.json'), '[[[');
      return { HANDOFFS_ROOT: r };
    }, null],
    ['an invalid config file', (h) => {
      mkdirSync(join(h, '.config', 'handoff'), { recursive: true });
      writeFileSync(join(h, '.config', 'handoff', 'handoff.config.json'), '{"hooks": {"token_budget": "lots"}}');
      return {};
    }, null],
    ['stdin that is not JSON', () => ({}), 'this is not json'],
    ['empty stdin', () => ({}), ''],
  ];

  it.each(cases)('with %s', async (_name, setup, raw) => {
    const base = testEnv();
    const e = { ...base, ...setup(base.HOME as string) };
    const target = { sessionId: 'abcdef00-0000-4000-8000-000000000000', path: join(base.HOME as string, 'missing.jsonl'), cwd: base.HOME as string };
    for (const [event, input] of [
      ['session-start', sessionStartInput(target, 'compact')],
      ['session-start', sessionStartInput(target, 'startup')],
      ['pre-compact', preCompactInput(target, 'auto')],
      ['statusline', statusLineInput(target)],
    ] as const) {
      const r = await runHook(event, input, { env: e, cwd: base.HOME as string, ...(raw === null ? {} : { rawStdin: raw }) });
      expect(r.code, `${event}: ${r.err}`).toBe(0);
      if (event === 'statusline') expect(r.out).toMatch(/^handoff( ·|\b)/);
      else if (r.out !== '') additionalContext(r.out);
    }
  });

  it('with an unknown event or option, which a newer install may have written', async () => {
    const e = testEnv();
    const unknown = await runHook('post-compact', {}, { env: e, cwd: e.HOME as string });
    expect(unknown.code).toBe(0);
    expect(unknown.out).toBe('');
    expect(unknown.err).toMatch(/unknown event "post-compact"/);
    const option = await runHook('statusline', {}, { env: e, cwd: e.HOME as string, args: ['--no-such-option'] });
    expect(option.code).toBe(0);
    expect(existsSync(join(e.HOME as string, '.handoffs'))).toBe(false);
  });
});
