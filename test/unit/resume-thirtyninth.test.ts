import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { shellWrites } from '../../src/core/shell.js';
import { agent, call, edit, result, say, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/**
 * The thirty-ninth stop's reading (docs/FIDELITY.md): seven readers of handoffs cut where no
 * earlier reading cut them (posthog at 647, edgerunner at 332, rave-era at 494, agentcmd's Codex
 * rollout at 421, localpush at 1400, deep-manifest whole, claude-code-log's sample at 202).
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });

describe('a dependency added in a folder an option names', () => {
  it.each([
    ['npm --prefix web install zod', ['web/package.json', 'web/package-lock.json']],
    ['npm install zod --prefix=web/', ['web/package.json', 'web/package-lock.json']],
    ['pnpm -C web add zod', ['web/package.json', 'web/pnpm-lock.yaml']],
    ['pnpm add zod --dir=web', ['web/package.json', 'web/pnpm-lock.yaml']],
    ['yarn --cwd web add zod', ['web/package.json', 'web/yarn.lock']],
    ['cargo add serde --manifest-path api/Cargo.toml', ['api/Cargo.toml']],
    ['uv add --directory api httpx', ['api/pyproject.toml', 'api/uv.lock']],
    ['poetry -C api add httpx', ['api/pyproject.toml', 'api/poetry.lock']],
    ['go -C svc get example.com/x@v1.2.0', ['svc/go.mod', 'svc/go.sum']],
    // After a `cd`, only a folder given whole is known.
    ['cd /tmp && npm --prefix /w/web i zod', ['/w/web/package.json', '/w/web/package-lock.json']],
  ])('%s rewrites %j', (command, files) => {
    expect(shellWrites(command).map((w) => w.path)).toEqual(files);
  });

  it.each(['cd web && npm --prefix sub i zod', 'npm --prefix web install', 'npm --prefix a --prefix b i zod', 'npm i -g zod --prefix x', 'pnpm -C web install'])('%s rewrites no manifest a handoff can name', (command) => {
    expect(shellWrites(command)).toEqual([]);
  });

  it('is a changed file of the session, at its result', () => {
    const { summary } = built<{ files_changed: { path: string; line: number }[] }>(user('u1', 'add zod to the web app'), bash('b1', 'npm --prefix web install zod'), result('b1', 'added 1 package in 2s'));
    expect(summary.files_changed.map((f) => f.path)).toEqual(['/nonexistent/w/web/package.json', '/nonexistent/w/web/package-lock.json']);
  });
});

describe('the Verification table (edgerunner at 332)', () => {
  const run = (id: string, command: string, out: string) => [call(id, 'Bash', { command }), result(id, out)];

  it('says that a check run after a step that is none counts with the check run alone', () => {
    const { md } = built(
      user('u1', 'fix the build'),
      edit('e1', 'src/lib.rs'),
      updated('e1', 'src/lib.rs'),
      ...run('b1', 'cargo test --workspace', 'error: could not compile `core`'),
      ...run('b2', 'cargo fmt --all && cargo test --workspace', 'test result: ok. 6 passed; 0 failed; 0 ignored'),
      say('a1', 'Done.'),
    );
    const table = sections(md).get('Verification') ?? '';
    expect(table).toContain("a command that runs one check after steps that are none, as a formatter that rewrites files, counts with that check's other runs");
    expect(table).toMatch(/`cargo fmt --all && cargo test --workspace` \| passed .*\| 2 \(1 failed\) \|/);
  });

  it('says nothing of it when no row is such a command', () => {
    const { md } = built(user('u1', 'fix the build'), ...run('b1', 'cargo test --workspace', 'test result: ok. 6 passed; 0 failed; 0 ignored'), say('a1', 'Done.'));
    expect(sections(md).get('Verification')).not.toContain('steps that are none');
  });
});

describe('a long request the Next Action quotes (rave-era at 480)', () => {
  it('says where the middle it cuts is', () => {
    const long = `We are implementing the next core feature: EVENT REGISTRATION. ${'PHASE: show a form with name, email and telegram username. '.repeat(12)}OUTPUT: 1. What was added 2. Files changed`;
    const { md } = built(user('u1', long), bash('b1', 'ls app/events'), result('b1', 'page.tsx'));
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain(' … ');
    expect(next).toContain('OUTPUT: 1. What was added 2. Files changed»; its middle is cut here: the whole request is line 1 of the transcript)');
  });

  it('says nothing of it when the request is quoted whole', () => {
    const { md } = built(user('u1', 'Add a Register button to the event page'), bash('b1', 'ls app/events'), result('b1', 'page.tsx'));
    expect(sections(md).get('Next Action')).not.toContain('its middle is cut');
  });
});

describe('a go-ahead after a message that asked nothing (agentcmd at 277)', () => {
  const NEXT = 'Not yet. The API is in place, but the sheet still loads the whole list. Next steps: 1) add a hook that loads one team 2) drop the broad invalidations.';

  it('points to the next steps the agent set out, when no request since asked for other work', () => {
    const { md } = built(
      user('u1', 'Is this done?'),
      say('a1', NEXT),
      user('u2', 'continue'),
      bash('b1', 'ls src/hooks'),
      result('b1', 'useTeams.ts'),
      user('u3', 'Can you auto accept all changes for the rest of this session?'),
      say('a2', "I can't turn on automatic acceptance. I'll keep walking through changes as we go."),
      user('u4', 'ok continue'),
      bash('b2', 'ls src/app'),
      result('b2', 'page.tsx'),
    );
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain('(line 8: «ok continue»); a go-ahead after a message that asked nothing: what it goes on with is likely the next steps the agent set out at line 2: «Not yet. The API is in place');
  });

  it('says nothing of them when a request since asked for other work, or none set out steps', () => {
    const other = built(user('u1', 'Is this done?'), say('a1', NEXT), user('u2', 'Rename the settings page to Preferences'), say('a2', 'Renamed.'), user('u3', 'ok continue'), bash('b1', 'ls'), result('b1', 'x'));
    expect(sections(other.md).get('Next Action')).not.toContain('next steps the agent set out');
    const none = built(user('u1', 'Is this done?'), say('a1', 'Yes, the sheet loads one team now.'), user('u2', 'ok continue'), bash('b1', 'ls'), result('b1', 'x'));
    expect(sections(none.md).get('Next Action')).not.toContain('next steps the agent set out');
  });
});

describe('a file an echo of literal words wrote (posthog at 457)', () => {
  it('says the text it holds, so that a stub is not taken for data', () => {
    const { md } = built(user('u1', 'fetch the data'), bash('b1', 'echo "[]" > data/raw/issues.json && echo "[]" > data/raw/org_members.json'), result('b1', ''));
    expect(md).toMatch(/\| `data\/raw\/issues\.json` \| write \| 3 \| the text «\[\]» \|/);
    expect(md).toMatch(/\| `data\/raw\/org_members\.json` \| write \| 3 \| the text «\[\]» \|/);
  });

  it('says an echo of nothing wrote an empty line', () => {
    const { md } = built(user('u1', 'write it'), bash('b1', 'echo > out.txt'), result('b1', ''));
    expect(md).toMatch(/\| `out\.txt` \| write \| 3 \| an empty line \|/);
  });

  it.each([
    ['echo "$TOKEN" > out.txt', 'a variable'],
    ['echo -e "a\\nb" > out.txt', 'an escape'],
    ['echo $(date) > out.txt', 'a substitution'],
    ['cat a.txt > out.txt', 'no echo'],
    [`echo "${'x'.repeat(70)}" > out.txt`, 'a long text'],
    ['echo "a > b" > out.txt', 'a `>` inside quotes'],
  ])('%s (%s): says nothing of the text', (command) => {
    const { md } = built(user('u1', 'write it'), bash('b1', command), result('b1', ''));
    expect(md).toMatch(/\| `out\.txt` \| write \| 3 \|  \|/);
  });
});

describe('files staged by name, then committed by a later command (FundWise at 222 and 226)', () => {
  it('are committed at that commit, though another listing came after it', () => {
    const { md } = built(
      user('u1', 'ship FW-005'),
      call('w1', 'Write', { file_path: '/nonexistent/w/scripts/ready.mjs', content: 'x' }),
      result('w1', 'File created successfully at: /nonexistent/w/scripts/ready.mjs'),
      call('w2', 'Write', { file_path: '/nonexistent/w/docs/ready.md', content: 'x' }),
      result('w2', 'File created successfully at: /nonexistent/w/docs/ready.md'),
      call('w3', 'Write', { file_path: '/nonexistent/w/ROADMAP.md', content: 'x' }),
      result('w3', 'The file /nonexistent/w/ROADMAP.md has been updated successfully.'),
      bash('b1', 'git add scripts/ready.mjs docs/ready.md && git status --short'),
      result('b1', ' M ROADMAP.md\nA  docs/ready.md\nA  scripts/ready.mjs'),
      bash('b2', 'git commit -m "feat: readiness"'),
      result('b2', '[main f8e6fe0] feat: readiness\n 2 files changed, 40 insertions(+)\n create mode 100644 docs/ready.md\n create mode 100755 scripts/ready.mjs'),
      bash('b3', 'git status --short'),
      result('b3', ' M ROADMAP.md'),
    );
    expect(md).toContain('2 committed at line 11 (staged by name for it, and git counted as many files changed)');
    expect(md).not.toContain('which may have taken them');
  });
});

describe("a subagent's report that says what it changed (FundWise at 18)", () => {
  const task = agent('a-t1', [{ type: 'tool_use', id: 't1', name: 'Task', input: { description: 'Research partners', prompt: 'Research the card partners and add a brief to ROADMAP.md', subagent_type: 'general-purpose' } }]);

  it('is quoted where the handoff says the subagent may have written files this transcript does not show', () => {
    const { md } = built(user('u1', 'Research the partners'), task, result('t1', 'Brief added to `ROADMAP.md` (new "Visa Frontier" subsection under Phase 3).\n\nKey findings:\n- KAST: verified.'), say('a1', 'Done.'));
    expect(md).toContain('(its report: line 3; it says «Brief added to `ROADMAP.md` (new "Visa Frontier" subsection under Phase 3).»), may have written files');
  });

  it('quotes nothing of a report that says no change', () => {
    const { md } = built(user('u1', 'Research the partners'), task, result('t1', 'Key findings:\n- KAST: verified.\n- Avici: a Solana neobank.'), say('a1', 'Here is what I found.'));
    expect(md).not.toContain('it says «');
  });
});
