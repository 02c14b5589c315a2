import { describe, expect, it } from 'vitest';
import { call, edit, result, say, todos, todosDone, updated, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/**
 * Rules from the twenty-sixth reading (docs/FIDELITY.md): five sessions cut in the middle, each
 * handoff read alone, then against its transcript.
 */

const ask = (text: string) => user('u1', text);
/** A `###` section of HANDOFF.md, up to the next heading. */
const sub = (md: string, title: string): string => md.split(`### ${title}\n`)[1]?.split(/\n#{2,3} /)[0]?.trim() ?? '';
const bash = (id: string, command: string) => call(id, 'Bash', { command, timeout: 30000 });

describe('a shell Claude Code moved to the background when it outlived its call', () => {
  const install = 'uv tool uninstall extractor && uv cache clean && uv tool install .';
  const moved = [ask('Reinstall the tool'), bash('b1', install), result('b1', 'Command running in background with ID: 7d95c5')];
  const poll = (id: string, status: string, more = '') => [call(id, 'BashOutput', { bash_id: '7d95c5' }), result(id, `<status>${status}</status>\n\n<stderr>\nUninstalled 1 executable: extract\nClearing cache at: /home/u/.cache/uv\n</stderr>${more}\n\n<timestamp>2025-11-17T11:48:29.318Z</timestamp>`)];

  it('is a background job still running, with what its last poll printed', () => {
    const { md, summary } = built(...moved, ...poll('p1', 'running'), ...poll('p2', 'running'));
    const jobs = sub(md, 'Background jobs');
    expect(jobs).toContain('moved there by Claude Code when the command outlived its call');
    expect(jobs).toContain(`**running, no end recorded** \`7d95c5\` (Bash, started line 2): \`${install}\` — last progress (line 7): «Clearing cache at: /home/u/.cache/uv»`);
    expect((summary as { jobs: { id: string; status: string }[] }).jobs).toEqual([expect.objectContaining({ id: '7d95c5', status: 'running', line: 2 })]);
  });

  it('ends with the poll that no longer says running, failed by its exit code', () => {
    const { summary } = built(...moved, ...poll('p1', 'running'), ...poll('p2', 'completed', '\n\n<exit_code>2</exit_code>'), say('a1', 'The install failed.'));
    expect((summary as { jobs: { id: string; status: string; end_line: number }[] }).jobs).toEqual([expect.objectContaining({ id: '7d95c5', status: 'failed', end_line: 7 })]);
  });
});

describe("a subagent of a kind given no tool that writes (Claude Code's Plan and Explore)", () => {
  const launch = (type: string) => call('t1', 'Task', { description: 'Explore project structure for packaging', subagent_type: type, prompt: 'Look at pyproject.toml and the main script; report the entry points.' });
  const report = result('t1', 'I read pyproject.toml and extract.py. You should update pyproject.toml to add an entry point and change the module name.');

  it('is not said to have written or committed what its own transcript would show', () => {
    const { md, llm } = built(ask('Make it installable'), launch('Plan'), report, edit('e1', 'pyproject.toml'), updated('e1', 'pyproject.toml'), say('a1', 'Done.'));
    expect(md).not.toContain('may have written others');
    expect(md).not.toContain('may have committed');
    expect((llm as { subagents: { launched: { read_only?: true }[] } }).subagents.launched[0]?.read_only).toBe(true);
  });

  it('unlike a general agent whose report says it changed a file', () => {
    const { md } = built(ask('Make it installable'), launch('general-purpose'), report, edit('e1', 'pyproject.toml'), updated('e1', 'pyproject.toml'), say('a1', 'Done.'));
    expect(md).toContain('may have written others');
  });
});

describe('Current State from a list written before the latest request, files written after it', () => {
  it('says both', () => {
    const { md } = built(
      ask('Refactor the team sheet'),
      todos('t1', [['Add backend support', 'completed'], ['Refactor TeamSheet', 'pending']]),
      todosDone('t1'),
      user('u2', 'ok continue'),
      edit('e1', 'src/TeamSheet.tsx'),
      updated('e1', 'src/TeamSheet.tsx'),
      edit('e2', 'src/hooks.ts'),
      updated('e2', 'src/hooks.ts'),
    );
    expect(md).toContain("from the agent's latest todo/plan list (line 2) — written before the latest request (line 4), so it may be out of date, and 2 file(s) were written after it (the latest at line 8)");
  });
});

describe('Files changed, against the commits the session made', () => {
  const commit = (id: string, hash: string, subject: string) => [bash(id, `git commit -m "${subject}"`), result(id, `[master ${hash}] ${subject}\n 1 file changed, 2 insertions(+)`)];

  it('marks what was written after the last commit, and a file dirty before the session that a commit followed', () => {
    const { md } = built(
      ask('Tidy up, commit, then add tar support'),
      bash('s1', 'git status --short'),
      result('s1', ' M .gitignore'),
      edit('e0', '.gitignore'),
      updated('e0', '.gitignore'),
      ...commit('c1', '17015f9', 'docs: reorganize'),
      edit('e1', 'deep_manifest.py'),
      updated('e1', 'deep_manifest.py'),
      call('w1', 'Write', { file_path: '/home/u/.claude/plans/plan.md', content: '# Plan' }),
      result('w1', 'File created successfully at: /home/u/.claude/plans/plan.md'),
    );
    const files = sub(md, 'Files changed in this session');
    expect(files).toContain("| `deep_manifest.py` | edit (after the session's last commit, line 7) |");
    expect(files).toContain('(already uncommitted before the session: line 3; a commit of the session followed, line 7)');
    expect(files).toContain('| `/home/u/.claude/plans/plan.md` | create |');
  });

  it('marks nothing when the session made no commit', () => {
    const { md } = built(ask('Add tar support'), edit('e1', 'deep_manifest.py'), updated('e1', 'deep_manifest.py'));
    expect(sub(md, 'Files changed in this session')).toContain('| `deep_manifest.py` | edit |');
  });
});

describe('a file the session wrote whole over one git tracked, then edited', () => {
  it('still says it was written over, with the edit after (agentcmd: `*** Add File` over a tracked route, then a patch)', () => {
    const { md } = built(
      ask('Add the team route'),
      call('w1', 'Write', { file_path: '/nonexistent/w/src/route.ts', content: 'export const GET = 1;' }),
      result('w1', 'File created successfully at: /nonexistent/w/src/route.ts'),
      bash('s1', 'git status -sb'),
      result('s1', '## main\n M src/route.ts'),
      edit('e1', 'src/route.ts'),
      updated('e1', 'src/route.ts'),
    );
    expect(sub(md, 'Files changed in this session')).toContain('| `src/route.ts` | written over (it was there: git status at line 5 shows it modified), then edit | 7 (2 writes, the first at 3) |');
  });
});

describe('a background job that reported after the agent\'s last message', () => {
  const start = [
    ask('Fetch the data, then score it'),
    call('b1', 'Bash', { command: 'python fetch.py', run_in_background: true }),
    result('b1', 'Command running in background with ID: btk1'),
  ];
  const notice = (status: string) => user('n1', `<task-notification>\n<task-id>btk1</task-id>\n<status>${status}</status>\n<summary>Background command "python fetch.py" ${status}: ALL DONE</summary>\n</task-notification>`);

  it('ends the session mid-work: the agent had not taken it in (posthog cut at 1216)', () => {
    const { md } = built(...start, say('a1', 'Issues done. Now fetching CODEOWNERS.'), notice('completed'));
    expect(md).toContain("**How it ended: mid-work** (line 5) — *inferred*: a background job (btk1) ended after the agent's last message (line 5), and the agent had not answered it");
  });

  it('unlike one the agent answered', () => {
    const { md } = built(...start, notice('completed'), say('a1', 'The fetch is done; scoring next time.'));
    expect(md).toContain('**How it ended: done** (line 5)');
  });
});

describe('a background server killed by the pid a process listing showed', () => {
  const server = [
    ask('Run the backend'),
    call('b1', 'Bash', { command: 'cargo run -p edgerunner -- serve --bind 127.0.0.1:8080 --journal data/runs/latest.jsonl', run_in_background: true }),
    result('b1', 'Command running in background with ID: s1'),
    bash('p1', 'ps -axo pid,command | grep edgerunner'),
    result('p1', '89604 /Applications/Chrome --screenshot=/tmp/x.png http://127.0.0.1:8080\n89483 target/debug/edgerunner serve --bind 127.0.0.1:8080 --journal data/runs/latest.jsonl'),
  ];
  type Jobs = { jobs: { id: string; status: string; end_line: number | null }[] };

  it('is stopped by the kill (edgerunner: the handoff said the server still ran)', () => {
    const { summary } = built(...server, bash('k1', 'kill 89483'), result('k1', ''), say('a1', 'Stopped it.'));
    expect((summary as Jobs).jobs).toEqual([expect.objectContaining({ id: 's1', status: 'stopped', end_line: 7 })]);
  });

  it("is still running after a kill of another process's pid", () => {
    const { summary } = built(...server, bash('k1', 'kill 89604'), result('k1', ''), say('a1', 'Closed Chrome.'));
    expect((summary as Jobs).jobs).toEqual([expect.objectContaining({ id: 's1', status: 'running' })]);
  });
});

describe('Checks Not Run, when the transcript ends on a write with no result', () => {
  const before = [ask('Make images safe'), edit('e1', 'src/a.ts'), updated('e1', 'src/a.ts'), bash('t1', 'npm run build'), result('t1', 'Compiled successfully.\nexit 0')];

  it('says no check has seen it (rave-era: "None" beside a build that passed before the patch)', () => {
    const { md } = built(...before, edit('e2', 'src/safe-image.tsx'));
    expect(sub(md, 'Checks Not Run')).toContain('No test, build, type check or lint ran after the write the transcript ends on (line 6): it has no result, so whether it applied is not known, and no check has seen it');
  });

  it('says nothing of it when the write has its result and a check followed', () => {
    const { md } = built(...before, edit('e2', 'src/safe-image.tsx'), updated('e2', 'src/safe-image.tsx'), bash('t2', 'npm run build'), result('t2', 'Compiled successfully.\nexit 0'));
    expect(sub(md, 'Checks Not Run')).not.toContain('the write the transcript ends on');
  });
});
