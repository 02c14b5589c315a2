import { describe, expect, it } from 'vitest';
import { codeModeCalls } from '../../src/core/harness/code-mode.js';
import { dependenciesChanged, gitLogTop } from '../../src/core/shell.js';
import { call, result, say, todos, todosDone, user } from './claude-records.js';
import { built } from './ledger-helper.js';

/**
 * The fortieth stop's reading (docs/FIDELITY.md): eight readers of handoffs cut where no earlier
 * reading cut them (posthog at 765, edgerunner at 520, rave-era at 380, agentcmd's Codex rollout
 * at 250, localpush at 1850 and its other rollout at 300, raze whole, claude-code-log's worktrees
 * whole).
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });
/** A Write of a file under the session's folder, and its result. */
const write = (id: string, path: string, content = 'x\n') => [call(id, 'Write', { file_path: `/nonexistent/w/${path}`, content }), result(id, `File created successfully at: /nonexistent/w/${path}`)];
const meta = { timestamp: '2026-07-10T18:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/nonexistent/w', cli_version: '0.144.1', originator: 'codex_cli_rs' } };
const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-07-10T18:00:10Z', type: 'response_item', payload });
const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-07-10T18:00:10Z', type: 'event_msg', payload });
const script = (id: string, input: string) => item({ type: 'custom_tool_call', status: 'completed', call_id: id, name: 'exec', input });
const output = (id: string, text: string) => item({ type: 'custom_tool_call_output', call_id: id, output: [{ type: 'input_text', text: 'Script completed\nWall time 1.9 seconds\nOutput:\n' }, { type: 'input_text', text }] });

interface Files {
  files_changed: { path: string; line: number; how: string }[];
}

describe("a code-mode command's folder and its package manager's summary (edgerunner at 486: «web/package.json … latest write line 222»)", () => {
  const install = (cmd: string, workdir?: string) => `const r = await tools.exec_command(${JSON.stringify({ cmd, ...(workdir === undefined ? {} : { workdir }), yield_time_ms: 30000 })});\ntext(r.output);\n`;

  it('reads the folder each command names', () => {
    expect(codeModeCalls(install('npm test', '/w/web')).workdirs).toEqual(['/w/web']);
    expect(codeModeCalls(install('npm test')).workdirs).toEqual([undefined]);
  });

  it('places the manifest in the folder the command ran in, and claims it by npm’s own summary when no exit code is given', () => {
    const { summary } = built<Files>(
      meta,
      event({ type: 'user_message', message: 'add a browser check to the web app' }),
      script('x1', install('npm install --save-dev playwright-core', '/nonexistent/w/web')),
      output('x1', '\nadded 2 packages, and audited 49 packages in 2s\n\nfound 0 vulnerabilities\n'),
    );
    expect(summary.files_changed.map((f) => [f.path, f.line])).toEqual([
      ['/nonexistent/w/web/package.json', 4],
      ['/nonexistent/w/web/package-lock.json', 4],
    ]);
  });

  it('claims nothing when npm says it changed nothing or failed, nor a file a command writes without a verdict', () => {
    for (const out of ['\nup to date, audited 49 packages in 1s\n', 'npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/playwright-corx\n']) {
      const { summary } = built<Files>(meta, event({ type: 'user_message', message: 'add it' }), script('x1', install('npm install --save-dev playwright-corx', '/nonexistent/w/web')), output('x1', out));
      expect(summary.files_changed, out).toEqual([]);
    }
    const { summary } = built<Files>(meta, event({ type: 'user_message', message: 'note it' }), script('x1', install('npm i zod && echo done > notes.txt', '/nonexistent/w/web')), output('x1', 'added 1 package in 1s\ndone\n'));
    expect(summary.files_changed.map((f) => f.path)).toEqual(['/nonexistent/w/web/package.json', '/nonexistent/w/web/package-lock.json']);
  });

  it('keeps the turn’s folder when the commands of one script name different folders, or a patch shares the script', () => {
    const two = `const a = await tools.exec_command({"cmd":"echo a > a.txt","workdir":"/nonexistent/w/web"});\nconst b = await tools.exec_command({"cmd":"echo b > b.txt","workdir":"/nonexistent/w/api"});\ntext(a.output + b.output);`;
    expect(codeModeCalls(two).workdirs).toEqual(['/nonexistent/w/web', '/nonexistent/w/api']);
    const { summary } = built<Files>(meta, event({ type: 'user_message', message: 'write them' }), script('x1', two), output('x1', 'Exit code: 0\n'));
    expect(summary.files_changed.map((f) => f.path).sort()).toEqual(['/nonexistent/w/a.txt', '/nonexistent/w/b.txt']);
  });

  it.each([
    ['added 2 packages, and audited 49 packages in 2s', true],
    ['removed 1 package, and audited 48 packages in 1s', true],
    ['success Saved 1 new dependency.', true],
    ['devDependencies:\n+ vitest 4.1.12', true],
    ['      Adding serde v1.0.219 to dependencies', true],
    ['    Removing serde from dev-dependencies', true],
    ['up to date, audited 49 packages in 1s', false],
    ['Done in 1.2s', false],
    ['the build added 2 packages to the bundle', false],
  ])('%j says the dependencies changed: %s', (out, changed) => {
    expect(dependenciesChanged(out)).toBe(changed);
  });
});

describe('a file a patch deleted, then added (rave-era at 272: README.md «create», a tracked file written over)', () => {
  it('is written over, not created, though the event keeps one entry for it', () => {
    const { summary } = built<Files>(
      { ...meta, payload: { ...meta.payload, cwd: 'C:\\w' } },
      event({ type: 'user_message', message: 'rewrite the readme' }),
      item({ type: 'custom_tool_call', status: 'completed', call_id: 'p1', name: 'apply_patch', input: '*** Begin Patch\n*** Delete File: README.md\n*** Add File: README.md\n+# Web MVP\n*** End Patch\n' }),
      event({ type: 'patch_apply_end', call_id: 'p1', stdout: 'Success. Updated the following files:\nA README.md\nD README.md\n', stderr: '', success: true, changes: { 'C:\\w\\README.md': { type: 'add', content: '# Web MVP\n' } } }),
      item({ type: 'custom_tool_call_output', call_id: 'p1', output: 'Success. Updated the following files:\nA README.md\nD README.md\n' }),
    );
    expect(summary.files_changed.map((f) => f.how)).toEqual(['write']);
  });

  it('a file only added is still created', () => {
    const { summary } = built<Files>(
      meta,
      event({ type: 'user_message', message: 'add a readme' }),
      item({ type: 'custom_tool_call', status: 'completed', call_id: 'p1', name: 'apply_patch', input: '*** Begin Patch\n*** Add File: README.md\n+# Web MVP\n*** End Patch\n' }),
      event({ type: 'patch_apply_end', call_id: 'p1', stdout: 'Success. Updated the following files:\nA README.md\nD docs/README.md\n', stderr: '', success: true, changes: { '/nonexistent/w/README.md': { type: 'add', content: '# Web MVP\n' }, '/nonexistent/w/docs/README.md': { type: 'delete', content: 'x' } } }),
    );
    expect(summary.files_changed.map((f) => [f.path, f.how]).sort()).toEqual([
      ['/nonexistent/w/README.md', 'create'],
      ['/nonexistent/w/docs/README.md', 'delete'],
    ]);
  });
});

describe('edits run as commands that did not apply (agentcmd at 171: «4 of them file edits (`apply_patch`), whose files are under Files changed», one rejected)', () => {
  const patch = (id: string, file: string) => item({ type: 'function_call', name: 'shell', call_id: id, arguments: JSON.stringify({ command: ['apply_patch', `*** Begin Patch\n*** Add File: ${file}\n+export {};\n*** End Patch\n`] }) });
  const done = (id: string, text: string) => item({ type: 'function_call_output', call_id: id, output: JSON.stringify({ output: text, metadata: { exit_code: text.startsWith('Success') ? 0 : 1 } }) });

  it('are counted apart, and sent to Writes that did not happen', () => {
    const { md } = built(
      meta,
      event({ type: 'user_message', message: 'add the hooks' }),
      patch('p1', 'src/a.ts'),
      done('p1', 'Success. Updated the following files:\nA src/a.ts\n'),
      patch('p2', 'src/b.ts'),
      item({ type: 'function_call_output', call_id: 'p2', output: 'exec command rejected by user' }),
    );
    expect(md).toContain('Other shell commands: 2 (all of them file edits (`apply_patch`), whose files are under Files changed (1 did not apply: see Writes that did not happen);');
  });

  it('none applied: their files are not said to be under Files changed', () => {
    const { md } = built(meta, event({ type: 'user_message', message: 'add the hook' }), patch('p2', 'src/b.ts'), item({ type: 'function_call_output', call_id: 'p2', output: 'exec command rejected by user' }));
    expect(md).toContain('(all of them file edits (`apply_patch`) (none applied: see Writes that did not happen);');
  });
});

describe("the calls after the agent's last message count a file a command's output says it wrote (posthog at 687: «changed 2 files», Files changed showing a third)", () => {
  it('counts it', () => {
    const { md } = built(
      user('u1', 'build the dashboard'),
      say('a1', 'I will rerun the analysis and refresh the app.'),
      bash('b1', 'python src/analyze.py'),
      result('b1', 'Filtered PRs: 2812 of 3105\nSaved scores for 139 engineers -> /nonexistent/w/data/scores.json\n'),
      call('e1', 'Write', { file_path: '/nonexistent/w/app.py', content: 'import streamlit\n' }),
      result('e1', 'File created successfully at: /nonexistent/w/app.py'),
    );
    expect(md).toMatch(/which changed 2 files \(the latest `app\.py`, line \d+\)/);
  });
});

describe('an open item that names a stub an `echo` wrote (posthog at 458: «`issues.json` written»)', () => {
  it('says the text it wrote', () => {
    const { md } = built(
      user('u1', 'fetch the data'),
      todos('t1', [['Fetch the issues into issues.json', 'pending']]),
      todosDone('t1'),
      bash('b1', 'echo "[]" > data/raw/issues.json'),
      result('b1', ''),
    );
    expect(md).toContain('`issues.json` written (line 5: the text «[]»)');
  });
});

describe('a search given some paths that are not there (raze at 17: «Failed, then passed over … `rg --files … libs/agno/agno/embedder libs/agno/agno/media`»)', () => {
  const missed = 'rg: libs/agno/agno/embedder: No such file or directory (os error 2)\nrg: libs/agno/agno/media: No such file or directory (os error 2)\n';

  it('is no failure when it listed what the other paths hold', () => {
    const { md, summary } = built<{ passed_over: unknown[] }>(
      user('u1', 'review the plan'),
      bash('b1', 'rg --files libs/agno/agno/vectordb libs/agno/agno/embedder libs/agno/agno/media'),
      result('b1', `Exit code 2\n${missed}libs/agno/agno/vectordb/base.py\nlibs/agno/agno/vectordb/pgvector/pgvector.py\n`, { is_error: true }),
      say('a1', 'The embedders live elsewhere; reading the vector stores first.'),
    );
    expect(summary.passed_over).toEqual([]);
    expect(md).not.toContain('Failed, then passed over');
  });

  it('is still one when it found nothing else, or printed another error', () => {
    for (const out of [missed, `${missed}rg: libs/agno/agno/vectordb/x.py: Permission denied (os error 13)\nlibs/agno/agno/vectordb/base.py\n`]) {
      const { md } = built(user('u1', 'review the plan'), bash('b1', 'rg --files libs/agno/agno/vectordb libs/agno/agno/embedder libs/agno/agno/media'), result('b1', `Exit code 2\n${out}`, { is_error: true }), say('a1', 'Going on.'));
      expect(md, out).toContain('Failed, then passed over');
    }
  });
});

describe("git's own log format (deep-manifest at 72: «its latest `git log` of HEAD (line 27) began with `5db6b2a`»)", () => {
  it('reads `commit <hash>` and the indented subject as HEAD', () => {
    expect(gitLogTop('git log -1 --stat', 'commit 1d28f1efd0865ace184f697d2d2e31498a97a7bb\nAuthor: A <a@b.c>\nDate:   Sat Nov 29 16:23:20 2025 +0100\n\n    milestone: project health check status report\n\n README.md | 2 +-\n')).toEqual({ hash: '1d28f1efd0865ace184f697d2d2e31498a97a7bb', subject: 'milestone: project health check status report' });
    expect(gitLogTop('git log --oneline -3', '5db6b2a docs: reorganize\n1a2b3c4 init\n')).toEqual({ hash: '5db6b2a', subject: 'docs: reorganize' });
    // Not HEAD's: another ref, or a log cut by a filter.
    expect(gitLogTop('git log -1 main', 'commit 1d28f1efd0865ace184f697d2d2e31498a97a7bb\nAuthor: A <a@b.c>\n\n    x\n')).toBeNull();
  });
});

describe('a check older than the last check run, before files it checks changed (edgerunner at 620: «No test … ran after the last file change (line 621)», the tests last run at 361)', () => {
  it('is dated, with how many files it checks changed since', () => {
    const { md } = built(
      user('u1', 'harden the backend'),
      ...write('w1', 'src/engine.rs'),
      bash('t1', 'cargo test --workspace'),
      result('t1', 'test result: ok. 6 passed; 0 failed; 0 ignored'),
      ...write('w2', 'src/engine.rs', 'fn a() { b() }\n'),
      ...write('w3', 'src/risk.rs'),
      bash('c1', 'cargo check --workspace'),
      result('c1', 'Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.90s'),
      ...write('w4', 'src/server.rs'),
    );
    expect(md).toContain('No test, build, type check or lint ran after the last file change (line 13)');
    expect(md).toContain('`cargo test --workspace` last ran at line 5, before files it checks changed (3 files since, the latest at line 13: server.rs)');
    // The last check is dated by the sentence itself.
    expect(md).not.toContain('`cargo check --workspace` last ran');
  });
});

describe("files a check's tools never read (edgerunner at 222: `cargo check` dated by `tsconfig.app.json`)", () => {
  it('are not counted among the files it checks', () => {
    const { md } = built(
      user('u1', 'build the engine and its web page'),
      ...write('w1', 'src/lib.rs'),
      bash('t1', 'cargo test'),
      result('t1', 'test result: ok. 2 passed; 0 failed; 0 ignored'),
      ...write('w2', 'web/tsconfig.app.json'),
      ...write('w3', 'web/index.html'),
      bash('c1', 'cargo check'),
      result('c1', 'Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.90s'),
      ...write('w4', 'src/main.rs'),
    );
    expect(md).toContain('`cargo test` last ran at line 5, before files it checks changed (1 file since, the latest at line 13: main.rs)');
  });
});

describe('no commit and no git command (FundWise at 136: «Commits made in this session: None seen», eight files changed, the next feature to be committed apart)', () => {
  it('says the session made none, and why that is known', () => {
    const { md } = built(user('u1', 'write the ADRs'), ...write('w1', 'docs/adr/0021-gtm.md'), say('a1', 'Wrote ADR 0021.'));
    expect(md).toContain('### Commits made in this session\n\nNone (the session ran no git command).');
  });

  it('says only "None seen" when a git command ran, and nothing more when no file changed', () => {
    const ran = built(user('u1', 'write the ADRs'), ...write('w1', 'docs/adr/0021-gtm.md'), bash('g1', 'git status --short'), result('g1', '?? docs/adr/0021-gtm.md\n'));
    expect(ran.md).not.toContain('the session ran no git command');
    const none = built(user('u1', 'what is in the ADRs?'), say('a1', 'Three decisions.'));
    expect(none.md).not.toContain('the session ran no git command');
  });
});

describe("a failed type check whose errors name files no write touched since (agentcmd at 665: «whether they fix it is not known», `route.ts` never edited after)", () => {
  const tsc = 'Exit code 2\nsrc/hooks/useTeam.ts(99,5): error TS2322: Type mismatch.\nsrc/app/api/teams/[id]/route.ts(20,3): error TS2322: Type Err<unknown> is not assignable.\n';

  it('names them beside the files written after it', () => {
    const { md } = built(user('u1', 'fix the types'), bash('t1', 'pnpm check-types'), result('t1', tsc, { is_error: true }), ...write('w1', 'src/hooks/useTeam.ts'));
    expect(md).toContain("whether that change fixes it is not known; of the files its errors name, no write touched `route.ts` since");
  });

  it('says nothing of them when every file it names was written since, or none was', () => {
    const all = built(user('u1', 'fix the types'), bash('t1', 'pnpm check-types'), result('t1', tsc, { is_error: true }), ...write('w1', 'src/hooks/useTeam.ts'), ...write('w2', 'src/app/api/teams/[id]/route.ts'));
    expect(all.md).not.toContain('of the files its errors name');
    const none = built(user('u1', 'fix the types'), bash('t1', 'pnpm check-types'), result('t1', tsc, { is_error: true }), ...write('w1', 'src/lib/other.ts'));
    expect(none.md).not.toContain('of the files its errors name');
  });
});

describe("a file written after a failed check, named apart from another changed file of its name (edgerunner at 781: «`Cargo.toml` was changed after it», not the root's)", () => {
  it('keeps as many folders as set it apart', () => {
    const { md } = built(
      user('u1', 'add the proof worker'),
      ...write('w1', 'Cargo.toml', '[workspace]\n'),
      bash('c1', 'cargo check --workspace'),
      result('c1', 'Exit code 101\nerror[E0433]: failed to resolve: use of undeclared crate or module `uuid`\nerror: could not compile `edgerunner` due to 1 previous error', { is_error: true }),
      ...write('w2', 'crates/edgerunner-service/Cargo.toml', '[dependencies]\nuuid.workspace = true\n'),
    );
    expect(md).toContain('`edgerunner-service/Cargo.toml` was changed after it (line 7)');
  });
});
