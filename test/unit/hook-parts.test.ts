import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { offerText } from '../../src/core/offer.js';
import { compactTokens, statusLine } from '../../src/core/statusline.js';
import { codexFeatureFlag, codexSupport } from '../../src/hooks/codex.js';
import { parseHookInput } from '../../src/hooks/input.js';
import { hookCommand, planFor, shellWord, statusLineCommand } from '../../src/hooks/install.js';
import { hookOutput } from '../../src/hooks/run.js';
import { tempDir } from '../helpers.js';

describe('the hook input', () => {
  it('reads what Claude Code sends to SessionStart', () => {
    const i = parseHookInput(JSON.stringify({ session_id: 'abc', transcript_path: '/h/.claude/projects/-w-p/abc.jsonl', cwd: '/w/p', hook_event_name: 'SessionStart', source: 'compact' }), '/x');
    expect(i).toEqual({ sessionId: 'abc', transcriptPath: '/h/.claude/projects/-w-p/abc.jsonl', cwd: '/w/p', source: 'compact', trigger: null, hookEventName: 'SessionStart', parsed: true });
  });

  it('reads the status line\'s input, whose folder sits under workspace', () => {
    const i = parseHookInput(JSON.stringify({ session_id: 'abc', transcript_path: 'rel/abc.jsonl', workspace: { current_dir: '/w/p', project_dir: '/w' }, model: { id: 'claude-opus-4-1' } }), '/x');
    expect(i.cwd).toBe('/w/p');
    expect(i.transcriptPath).toBe('/w/p/rel/abc.jsonl');
  });

  it('answers with nothing known for empty or broken stdin, without throwing', () => {
    for (const raw of ['', 'not json', '[1,2]', 'null']) {
      const i = parseHookInput(raw, '/x');
      expect(i.sessionId).toBeNull();
      expect(i.parsed).toBe(false);
    }
    expect(parseHookInput('{}', '/x').parsed).toBe(true);
  });
});

describe('what a hook prints', () => {
  it('wraps session-start context the way both harnesses read it', () => {
    expect(JSON.parse(hookOutput('session-start', 'claude', 'ctx'))).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'ctx' } });
    expect(JSON.parse(hookOutput('session-start', 'codex', 'ctx'))).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'ctx' } });
  });

  it('prints nothing at all when there is nothing to add, and nothing for pre-compact', () => {
    expect(hookOutput('session-start', 'claude', null)).toBe('');
    expect(hookOutput('pre-compact', 'claude', 'x')).toBe('');
    expect(hookOutput('statusline', 'claude', 'handoff · rev 2')).toBe('handoff · rev 2');
  });
});

describe('the status line', () => {
  const facts = { level: 'orange', used: 116_000, limit: 200_000, ratio: 0.58, revision: 42, transferReady: true, daemon: 'live' as const };

  it('shows pressure, revision and readiness in one line', () => {
    expect(statusLine({ kind: 'session', facts }, false)).toBe('handoff · ctx 58% orange 116k/200k · rev 42 · ready');
    expect(statusLine({ kind: 'session', facts: { ...facts, transferReady: false, daemon: 'off' } }, false)).toBe('handoff · ctx 58% orange 116k/200k · rev 42 · not ready · daemon off');
    expect(statusLine({ kind: 'session', facts: { ...facts, daemon: 'busy' } }, false)).toBe('handoff · ctx 58% orange 116k/200k · rev 42 · ready · daemon busy');
    expect(statusLine({ kind: 'session', facts: { ...facts, level: 'unknown', used: null, limit: null, ratio: null } }, false)).toBe('handoff · ctx unknown · rev 42 · ready');
    expect(statusLine({ kind: 'not-built', daemon: 'live' }, false)).toBe('handoff · not built yet');
  });

  it('colours the pressure level, and prints no escape code without colour', () => {
    expect(statusLine({ kind: 'session', facts }, true)).toContain('\u001b[38;5;208mctx 58% orange 116k/200k\u001b[0m');
    // eslint-disable-next-line no-control-regex
    expect(statusLine({ kind: 'session', facts }, false)).not.toMatch(/\u001b/);
  });

  it('writes token counts short', () => {
    expect([compactTokens(950), compactTokens(52_814), compactTokens(1_000_000), compactTokens(1_500_000)]).toEqual(['950', '53k', '1M', '1.5M']);
  });
});

describe('the offer to a new session', () => {
  it('names the session, its objective, next action and handoff path in a few lines', () => {
    const text = offerText(
      {
        id: '5f0c1d2e',
        harness: 'claude',
        project: 'uploader',
        turns: 1432,
        updated: '2026-03-01T08:00:00.000Z',
        transferReady: true,
        handoffPath: '/h/.handoffs/projects/uploader/5f0c1d2e/HANDOFF.md',
        summary: { session: { title: 'Upload retry backoff' }, objective: 'Make the upload retry use exponential backoff.', next_action: { text: 'Fix the failing retry test', line: 111 } },
      },
      new Date('2026-03-01T10:00:00.000Z'),
    );
    const lines = text.split('\n');
    expect(lines.length).toBeLessThanOrEqual(6);
    expect(text).toContain('session 5f0c1d2e (claude, "Upload retry backoff", 1432 turns, last active 2 h ago; transfer-ready)');
    expect(text).toContain('- objective: Make the upload retry use exponential backoff.');
    expect(text).toContain('- next action: Fix the failing retry test (line 111)');
    expect(text).toContain('- handoff: /h/.handoffs/projects/uploader/5f0c1d2e/HANDOFF.md');
  });
});

describe('Codex versions', () => {
  it('refuses a Codex without hooks, and says why', () => {
    const s = codexSupport('codex-cli 0.113.0');
    expect(s.hooks).toBe(false);
    expect(s.notes[0]).toMatch(/no hooks \(they arrived in 0\.114\.0\)/);
    expect(planFor('codex', { node: '/n', cli: '/c', root: null }, s).entries).toEqual([]);
  });

  it('installs only SessionStart where no hook runs after a compaction, and says so plainly', () => {
    const s = codexSupport('codex-cli 0.120.3');
    expect(s).toMatchObject({ hooks: true, featureKey: 'codex_hooks', sources: ['startup', 'resume', 'clear'], preCompact: false, compactSource: false });
    expect(s.notes[0]).toMatch(/cannot come back by itself/);
    const p = planFor('codex', { node: '/n', cli: '/c', root: null }, s);
    expect(p.entries.map((e) => [e.event, e.matcher])).toEqual([['SessionStart', 'startup|resume|clear']]);
    expect(p.statusLine).toBeNull();
  });

  it('uses SessionStart with source compact and PreCompact where Codex has them', () => {
    const s = codexSupport('codex-cli 0.153.3');
    expect(s).toMatchObject({ featureKey: 'hooks', preCompact: true, compactSource: true });
    const p = planFor('codex', { node: '/n', cli: '/c', root: null }, s);
    expect(p.entries.map((e) => [e.event, e.matcher, e.command])).toEqual([
      ['SessionStart', 'startup|resume|clear|compact', '/n /c hook session-start --harness codex'],
      ['PreCompact', null, '/n /c hook pre-compact --harness codex'],
    ]);
  });

  it('assumes a current Codex when none is found, and says so', () => {
    const s = codexSupport(null);
    expect(s.compactSource).toBe(true);
    expect(s.notes[0]).toMatch(/codex was not found on PATH/);
  });

  it('reads the hooks switch from config.toml', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const f = join(dir, 'config.toml');
    writeFileSync(f, 'model = "gpt-5"\n[features]\n# hooks = true\ncodex_hooks = false\n[profiles.x]\nhooks = true\n');
    expect(await codexFeatureFlag(f)).toEqual({ key: 'codex_hooks', value: false });
    writeFileSync(f, 'features.hooks = true\n');
    expect(await codexFeatureFlag(f)).toEqual({ key: 'hooks', value: true });
    expect(await codexFeatureFlag(join(dir, 'missing.toml'))).toBeNull();
  });
});

describe('installed commands', () => {
  it('quote paths for the shell that runs them', () => {
    expect(shellWord('/usr/bin/node')).toBe('/usr/bin/node');
    expect(shellWord("/opt/it's here/cli.js")).toBe(`'/opt/it'\\''s here/cli.js'`);
    expect(hookCommand({ node: '/n', cli: '/c d/cli.js', root: '/r oot' }, 'claude', 'statusline')).toBe("/n '/c d/cli.js' hook statusline --root '/r oot'");
  });

  it('make the status line a sh script reading the store\'s runtime folder, or the Node hook without one', () => {
    const parts = { node: '/n', cli: '/c/cli.js', root: null, shellStatusLine: { script: "/p q/hooks/handoff-statusline.sh", runDir: "/h/it's/.handoffd" } };
    expect(statusLineCommand(parts)).toBe(`sh '/p q/hooks/handoff-statusline.sh' '/h/it'\\''s/.handoffd'`);
    expect(planFor('claude', parts, null).statusLine).toBe(statusLineCommand(parts));
    expect(statusLineCommand({ ...parts, shellStatusLine: null })).toBe('/n /c/cli.js hook statusline');
  });
});

describe('reading an installed command back', () => {
  it('splits it into the words the shell sees', async () => {
    const { shellWords } = await import('../../src/hooks/install.js');
    expect(shellWords("/n '/c d/cli.js' hook statusline --root '/it'\\''s'")).toEqual(['/n', '/c d/cli.js', 'hook', 'statusline', '--root', "/it's"]);
    expect(shellWords(hookCommand({ node: '/usr/bin/node', cli: "/o p/it's/cli.js", root: null }, 'codex', 'pre-compact'))).toEqual(['/usr/bin/node', "/o p/it's/cli.js", 'hook', 'pre-compact', '--harness', 'codex']);
  });
});
