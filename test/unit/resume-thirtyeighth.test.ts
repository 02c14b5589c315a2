import { describe, expect, it } from 'vitest';
import { call, result, say, user } from './claude-records.js';
import { built } from './ledger-helper.js';
import { shellWrites } from '../../src/core/shell.js';

/**
 * The thirty-eighth stop's reading (docs/FIDELITY.md): a file a program the session ran says it
 * wrote (posthog at 1219: `python src/analyze.py` printed `Saved scores for 183 engineers ->
 * …/data/scores.json`, and the handoff's changed files did not name it).
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });
type Row = { path: string; line: number; how: string; said_by_output?: true };
const changed = (...records: Record<string, unknown>[]) => built<{ files_changed: Row[] }>(user('u1', 'rerun the analysis'), ...records);

describe("a file a command's output says it wrote", () => {
  it('is a changed file, at the result that says so, and the handoff says how it knows', () => {
    const { md, summary } = changed(
      bash('b1', 'source .venv/bin/activate && python src/analyze.py 2>&1 | tail -50'),
      result('b1', 'Filtered PRs: 7982 of 8738\nSaved scores for 183 engineers -> /w/data/scores.json\n\nTop 10 by impact:'),
    );
    expect(summary.files_changed).toEqual([{ path: '/w/data/scores.json', line: 3, how: 'write', said_by_output: true }]);
    expect(md).toContain('write (the output of a command the session ran says so)');
    expect(md).toContain("writes whose result succeeded (edits, patches, shell commands that plainly write, and files a command's output says it wrote)");
  });

  it.each([
    ['Wrote 12 rows to out/report.csv', '/nonexistent/w/out/report.csv'],
    ['Results written to reports/q3.json.', '/nonexistent/w/reports/q3.json'],
    ['✔ Created dist/bundle.js (12.4 kB)', '/nonexistent/w/dist/bundle.js'],
    ['Exported: build/model.onnx', '/nonexistent/w/build/model.onnx'],
    ['[INFO] Saved checkpoint as ckpt/epoch-3.pt', '/nonexistent/w/ckpt/epoch-3.pt'],
    ['Saved the plan to: plan.out', '/nonexistent/w/plan.out'],
    ['created dist/bundle.js in 120ms', '/nonexistent/w/dist/bundle.js'],
    ['Wrote to /nonexistent/w/package.json:', '/nonexistent/w/package.json'],
  ])('«%s» names %s', (line, path) => {
    const { summary } = changed(bash('b1', 'python run.py'), result('b1', `starting\n${line}\ndone`));
    expect(summary.files_changed.map((f) => f.path)).toEqual([path]);
  });

  it.each([
    ['a command that only reads a log', 'Saved model to models/best.pt', 'tail -n 20 logs/train.log'],
    ["git's records", '[main 1a2b3c4] Saved config to settings.json', 'git commit -am "Saved config to settings.json"'],
    ['another machine', 'Wrote 3 rows to out/report.csv', "ssh prod 'python run.py'"],
    ['a test run (what the code under test prints)', 'Wrote 3 rows to out/report.csv\n1 passed in 0.1s', 'pytest -s tests/test_report.py'],
    ['a dry run', '[DRY RUN] Wrote out/report.csv', 'python run.py --dry-run'],
    ['a link', 'Created symlink /etc/systemd/system/multi-user.target.wants/app.service → /etc/systemd/system/app.service.', 'systemctl enable app'],
    ['a table', 'Exported 120 rows to public.users', 'python export.py'],
    ['an address', 'Saved report to ops@example.com', 'python mail.py'],
    ['a folder named before', 'Saved checkpoint in checkpoints/ as epoch_3.pt', 'python train.py'],
    ['a path relative to a folder the command moved to', 'Wrote src/api.ts', 'cd web && npm run gen'],
    ['a write a later line says failed', 'Saved summary to out/summary.json\nError: disk quota exceeded while writing out/summary.json', 'python scripts/export.py || true'],
    ['a name in a sentence', 'Created in Node.js\nGenerated with love', 'node scripts/banner.js'],
    ['a run that printed an error after', 'Written build/config.json\nTraceback (most recent call last):\n  File "x.py", line 3\nPermissionError: [Errno 13] Permission denied', 'python x.py 2>&1 | tail -5'],
  ])('%s is no file written', (_what, line, command) => {
    const { summary } = changed(bash('b1', command), result('b1', line));
    expect(summary.files_changed.filter((f) => f.said_by_output)).toEqual([]);
  });

  it.each([
    ['a URL', 'Created pull request https://github.com/acme/web/pull/12'],
    ['a folder', 'Created a new Next.js app in /w/my-app.'],
    ['a file in /tmp', 'Wrote /tmp/scratch.json'],
    ['a task, not a file', 'Task #9 created successfully: Deploy to Streamlit Cloud'],
    ['a count', 'Generated 5 files in dist/'],
    ['words after the path', '✔ Generated Prisma Client (v5.22.0) to ./node_modules/@prisma/client in 60ms'],
    ['a sentence that only speaks of a write', 'The report will be written to out/report.csv tomorrow'],
  ])('%s is no file written', (_what, line) => {
    const { summary } = changed(bash('b1', 'python run.py'), result('b1', line));
    expect(summary.files_changed).toEqual([]);
  });

  it('a failed command, or one that writes the file itself, adds no report of its own', () => {
    const failed = changed(bash('b1', 'python run.py'), result('b1', 'Wrote out/a.json\nTraceback (most recent call last):\nValueError: x', { is_error: true }));
    expect(failed.summary.files_changed).toEqual([]);
    const redirected = changed(bash('b1', 'python run.py > out/a.json && echo "Wrote out/a.json"'), result('b1', 'Wrote out/a.json'));
    expect(redirected.summary.files_changed).toEqual([{ path: '/nonexistent/w/out/a.json', line: 3, how: 'write' }]);
  });

  it('an output naming more files than a report would is read as a listing', () => {
    const many = Array.from({ length: 12 }, (_, i) => `Wrote out/part-${i}.json`).join('\n');
    const { summary } = changed(bash('b1', 'python split.py'), result('b1', many));
    expect(summary.files_changed).toEqual([]);
  });
});

describe('a command that adds or removes a dependency by name', () => {
  it.each([
    ['npm install --save-dev playwright-core', ['package.json', 'package-lock.json']],
    ['npm uninstall playwright-core', ['package.json', 'package-lock.json']],
    ['pnpm add -D vitest', ['package.json', 'pnpm-lock.yaml']],
    ['npm install --omit dev zod', ['package.json', 'package-lock.json']],
    ['npm install --no-package-lock zod', ['package.json']],
    ['yarn add zod', ['package.json', 'yarn.lock']],
    ['bun add hono', ['package.json']],
    ['cargo add serde --features derive', ['Cargo.toml']],
    ['uv add httpx', ['pyproject.toml', 'uv.lock']],
    ['poetry remove requests', ['pyproject.toml', 'poetry.lock']],
    ['go get github.com/spf13/cobra@v1.8.0', ['go.mod', 'go.sum']],
  ])('%s rewrites %j', (command, files) => {
    expect(shellWrites(command).map((w) => w.path)).toEqual(files);
  });

  it.each(['npm install', 'npm ci', 'npm i -g typescript', 'npm install --no-save left-pad', 'pnpm --filter web add zod', 'pnpm add zod --filter web', 'npm install -w web zod', 'yarn install', 'uv sync', 'cargo build', 'go get', 'npm install --omit dev', 'npm install --loglevel verbose', 'npm i -D tsx --location=global', 'uv add --script s.py httpx', 'GO111MODULE=off go get github.com/x/y',
    // After a `cd`, the manifest may be in a folder above (a workspace's member): not placed.
    'cd web && pnpm add -D vitest', 'cd src && cargo add serde'])('%s rewrites none of the folder it runs in', (command) => {
    expect(shellWrites(command)).toEqual([]);
  });

  it('is a change of the session, at its result (edgerunner at 486 and 528)', () => {
    const { summary } = changed(bash('b1', 'npm install --save-dev playwright-core'), result('b1', 'added 1 package, and audited 120 packages in 2s'));
    expect(summary.files_changed.map((f) => [f.path, f.how])).toEqual([
      ['/nonexistent/w/package.json', 'edit'],
      ['/nonexistent/w/package-lock.json', 'edit'],
    ]);
  });
});

describe("a program's output file is no change of the code", () => {
  it('a check that passed before it is still the latest after the last change', () => {
    const { md } = changed(
      call('e1', 'Edit', { file_path: '/nonexistent/w/src/analyze.py', old_string: 'a', new_string: 'b' }),
      result('e1', 'The file /nonexistent/w/src/analyze.py has been updated.'),
      bash('t1', 'pytest -q'),
      result('t1', '3 passed in 0.2s'),
      bash('b1', 'python src/analyze.py'),
      result('b1', 'Saved scores for 183 engineers -> /nonexistent/w/data/scores.json'),
    );
    expect(md).toContain('data/scores.json');
    expect(md).not.toContain('after the last file change (line 7');
  });
});

describe("the agent's last message, and the files changed after it", () => {
  const plan = say('a1', "I'm going to patch the formatting helpers and remove the fake polling now.");
  it('says how many files the calls after it changed: what it says it will do may be done (rave-era at 208)', () => {
    const { md } = changed(
      plan,
      call('e1', 'Edit', { file_path: '/nonexistent/w/src/format.ts', old_string: 'a', new_string: 'b' }),
      result('e1', 'The file /nonexistent/w/src/format.ts has been updated.'),
      call('e2', 'Edit', { file_path: '/nonexistent/w/src/card.tsx', old_string: 'a', new_string: 'b' }),
      result('e2', 'The file /nonexistent/w/src/card.tsx has been updated.'),
    );
    expect(md).toContain('the session went on after it with 2 tool call(s), up to line 5, which changed 2 files (the latest `card.tsx`, line 6): what it says it will do may be done since (see Recent timeline)');
  });

  it('says nothing of changes when the calls after it changed none', () => {
    const { md } = changed(plan, bash('b1', 'ls src'), result('b1', 'format.ts\ncard.tsx'));
    expect(md).toContain('the session went on after it with 1 tool call(s), up to line 3 (see Recent timeline)');
  });
});

describe("a package manager's error a pipe hid from the exit code", () => {
  it('leaves the manifest and the lock file not known to be written', () => {
    const { summary, md } = built<{ files_changed: Row[]; files_not_changed: { path: string }[] }>(
      user('u1', 'upgrade react'),
      bash('b1', 'npm install react@19 2>&1 | tail -5'),
      result('b1', 'npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! A complete log of this run can be found in: /home/dev/.npm/_logs/x.log'),
    );
    expect(summary.files_changed).toEqual([]);
    expect(summary.files_not_changed.map((f) => f.path)).toEqual(['/nonexistent/w/package.json', '/nonexistent/w/package-lock.json']);
    expect(md).toContain('may have done part of it first');
    const ok = changed(bash('b1', 'npm install zod 2>&1 | tail -3'), result('b1', 'added 1 package, and audited 120 packages in 2s'));
    expect(ok.summary.files_changed.map((f) => f.path)).toEqual(['/nonexistent/w/package.json', '/nonexistent/w/package-lock.json']);
  });
});
