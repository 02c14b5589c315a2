import { describe, expect, it } from 'vitest';
import type { JsonObject, Plan } from '../../src/hooks/settings.js';
import { hasAnyOurs, inspect, isOurCommand, mergeHooks, parseSettings, removeHooks, serialize, textStyle } from '../../src/hooks/settings.js';

/** Merging handoff's entries into a harness's settings document and taking them out again. */

const START = "/usr/bin/node '/opt/hand off/dist/cli.js' hook session-start";
const COMPACT = "/usr/bin/node '/opt/hand off/dist/cli.js' hook pre-compact";
const LINE = "/usr/bin/node '/opt/hand off/dist/cli.js' hook statusline";

const plan: Plan = {
  entries: [
    { event: 'SessionStart', matcher: 'startup|resume|clear|compact', command: START, timeout: 10 },
    { event: 'PreCompact', matcher: null, command: COMPACT, timeout: 10 },
  ],
  statusLine: LINE,
};

/** A settings.json as people have them: permissions, env, another tool's hooks on the same event. */
function realShaped(): JsonObject {
  return {
    $schema: 'https://json.schemastore.org/claude-code-settings.json',
    permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./.env)'] },
    env: { FOO: 'bar' },
    hooks: {
      PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write "$CLAUDE_FILE_PATHS"' }] }],
      SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'other-memory-tool inject' }] }],
    },
    model: 'opus',
  };
}

describe('mergeHooks', () => {
  it('adds the entries after other tools\' hooks and keeps every other key in its place', () => {
    const r = mergeHooks(realShaped(), plan);
    expect(Object.keys(r.doc)).toEqual(['$schema', 'permissions', 'env', 'hooks', 'model', 'statusLine']);
    const hooks = r.doc.hooks as Record<string, JsonObject[]>;
    expect(Object.keys(hooks)).toEqual(['PostToolUse', 'SessionStart', 'PreCompact']);
    expect(hooks.SessionStart?.[0]).toEqual({ matcher: 'startup', hooks: [{ type: 'command', command: 'other-memory-tool inject' }] });
    expect(hooks.SessionStart?.[1]).toEqual({ matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: START, timeout: 10 }] });
    expect(hooks.PreCompact).toEqual([{ hooks: [{ type: 'command', command: COMPACT, timeout: 10 }] }]);
    expect(r.doc.statusLine).toEqual({ type: 'command', command: LINE, padding: 0 });
    expect(r.added).toHaveLength(2);
    expect(r.statusLine).toBe('added');
    expect(r.changed).toBe(true);
  });

  it('never replaces a statusLine that is not its own, and says which one it kept', () => {
    const doc = { ...realShaped(), statusLine: { type: 'command', command: '~/.claude/my-line.sh', padding: 1 } };
    const r = mergeHooks(doc, plan);
    expect(r.doc.statusLine).toEqual({ type: 'command', command: '~/.claude/my-line.sh', padding: 1 });
    expect(r.statusLine).toBe('kept-existing');
    expect(r.existingStatusLine).toBe('~/.claude/my-line.sh');
  });

  it('changes nothing the second time', () => {
    const once = mergeHooks(realShaped(), plan);
    const twice = mergeHooks(once.doc, plan);
    expect(twice.changed).toBe(false);
    expect(twice.doc).toEqual(once.doc);
    expect(twice.present).toHaveLength(2);
    expect(twice.statusLine).toBe('present');
  });

  it('rewrites an earlier install\'s command (another node) instead of adding a second one', () => {
    const old = mergeHooks(realShaped(), { entries: plan.entries.map((e) => ({ ...e, command: e.command.replace('/usr/bin/node', '/old/node') })), statusLine: LINE.replace('/usr/bin/node', '/old/node') });
    const r = mergeHooks(old.doc, plan);
    expect(r.updated).toHaveLength(2);
    expect(r.statusLine).toBe('updated');
    const hooks = r.doc.hooks as Record<string, JsonObject[]>;
    expect(hooks.SessionStart).toHaveLength(2);
    expect(JSON.stringify(r.doc)).not.toContain('/old/node');
  });

  it('starts a file that has no hooks at all', () => {
    const r = mergeHooks({}, plan);
    expect(Object.keys(r.doc)).toEqual(['hooks', 'statusLine']);
  });
});

describe('removeHooks', () => {
  it('takes out exactly what was added and leaves other tools\' entries as they were', () => {
    const installed = mergeHooks(realShaped(), plan).doc;
    const mine = new Set([START, COMPACT, LINE]);
    const r = removeHooks(installed, (c) => mine.has(c), true);
    expect(r.doc).toEqual(realShaped());
    expect(r.removed).toBe(2);
    expect(r.statusLineRemoved).toBe(true);
  });

  it('drops the hooks key it created, and keeps one that was there', () => {
    const installed = mergeHooks({ model: 'opus' }, plan).doc;
    expect(removeHooks(installed, isOurCommand, false).doc).toEqual({ model: 'opus' });
    expect(removeHooks(installed, isOurCommand, true).doc).toEqual({ model: 'opus', hooks: {} });
  });

  it('leaves a command that only looks alike', () => {
    const doc: JsonObject = { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo handoff is great' }, { type: 'command', command: START }] }] } };
    const r = removeHooks(doc, isOurCommand, true);
    expect(r.doc).toEqual({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo handoff is great' }] }] } });
  });
});

describe('recognising handoff\'s commands', () => {
  it.each([
    ['handoff hook session-start', true],
    ["/usr/bin/node '/opt/x/dist/cli.js' hook pre-compact --harness codex", true],
    ['/home/me/.nvm/versions/node/v20/bin/handoff hook statusline', true],
    ['sh /usr/lib/node_modules/handoffd/hooks/handoff-statusline.sh /home/me/.handoffs/.handoffd', true],
    ["sh '/opt/my tools/handoffd/hooks/handoff-statusline.sh' '/home/me/my store/.handoffd'", true],
    ['~/.claude/statusline.sh', false],
    ['sh ~/.claude/hooks/statusline.sh', false],
    ['my-handoff-wrapper start', false],
    ['handoff hooks install', false],
    ['echo hook session-start', false],
  ])('%s → %s', (command, ours) => {
    expect(isOurCommand(command)).toBe(ours);
  });

  it('finds a stray command of an older install', () => {
    const old = mergeHooks({}, { entries: [{ ...plan.entries[0], command: 'handoff hook session-start' } as Plan['entries'][number]], statusLine: null }).doc;
    expect(inspect(old, plan).strays).toEqual(['handoff hook session-start']);
    expect(hasAnyOurs(old)).toBe(true);
    expect(hasAnyOurs(realShaped())).toBe(false);
  });
});

describe('settings text', () => {
  it('keeps the file\'s indentation, line ends and final newline', () => {
    const four = '{\r\n    "model": "opus"\r\n}\r\n';
    const style = textStyle(four);
    expect(style).toEqual({ indent: '    ', eol: '\r\n', finalNewline: true });
    expect(serialize({ model: 'opus' }, style)).toBe(four);
    expect(textStyle('{\n\t"a": 1\n}').indent).toBe('\t');
    expect(textStyle('{\n\t"a": 1\n}').finalNewline).toBe(false);
  });

  it('takes strict JSON only, and an empty file as an empty object', () => {
    expect(parseSettings('')).toEqual({ ok: true, doc: {}, empty: true });
    expect(parseSettings('{ "a": 1, // no\n }')).toMatchObject({ ok: false, why: expect.stringMatching(/not strict JSON/) });
    expect(parseSettings('[1]')).toMatchObject({ ok: false, why: 'it holds an array, not a JSON object' });
    expect(parseSettings('\uFEFF{"a":1}')).toMatchObject({ ok: true, doc: { a: 1 } });
  });
});
