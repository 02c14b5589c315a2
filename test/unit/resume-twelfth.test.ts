import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { built } from './ledger-helper.js';
import { call, result, say, user } from './claude-records.js';

/**
 * Rules from the twelfth reading (docs/FIDELITY.md): writes that failed and were made later are
 * said however full the handoff is, not hidden behind a bare "None".
 */

const failedThenRedone = (): Record<string, unknown>[] => [
  call('p1', 'Edit', { file_path: '/nonexistent/w/app/layout.tsx', old_string: 'old title', new_string: 'new title' }),
  result('p1', 'String to replace not found in file.', { is_error: true }),
  call('p2', 'Edit', { file_path: '/nonexistent/w/app/layout.tsx', old_string: 'title', new_string: 'new title' }),
  result('p2', 'The file /nonexistent/w/app/layout.tsx has been updated successfully.'),
];

function notChanged(md: string): string {
  const repo = sections(md).get('Repository Evidence') ?? '';
  return repo.slice(repo.indexOf('### Writes that did not happen'), repo.indexOf('### Commits'));
}

describe('a write that failed and was made later', () => {
  it('is named with both lines in a handoff with room, and in both payloads', () => {
    const r = built(user('u1', 'Fix the page title'), ...failedThenRedone(), say('a1', 'Title fixed.'));
    expect(notChanged(r.md)).toMatch(/None left undone\. \*verified\* — 1 file\(s\) had a write that was refused or failed,? .*written successfully after it .*: `app\/layout\.tsx` 3 → 5\./);
    for (const p of [r.summary, r.llm] as { files_redone: unknown }[]) expect(p.files_redone).toEqual([{ path: '/nonexistent/w/app/layout.tsx', line: 3, redone_line: 5 }]);
  });

  it('is still counted, with its line, however near its size budget the handoff is', () => {
    // Long sessions of growing size: many long requests, files and agent messages fill every
    // section, and the budget levels cut them; the redone write is said at each size.
    for (const [n, tail] of [30, 45, 60, 75, 90].flatMap((n) => [0, 40, 80, 120, 160, 200, 240].map((t) => [n, t] as const))) {
      const filler: Record<string, unknown>[] = [];
      for (let i = 0; i < n; i += 1) {
        filler.push(user(`q${i}`, `Request ${i}: ${'please also reconsider the layout of the pricing tables and their footnotes '.repeat(6)}`));
        filler.push(call(`w${i}`, 'Write', { file_path: `/nonexistent/w/src/module-${i}/component-with-a-long-name-${i}.tsx`, content: `export const value${i} = ${i};\n` }));
        filler.push(result(`w${i}`, `File created successfully at: /nonexistent/w/src/module-${i}/component-with-a-long-name-${i}.tsx`));
        filler.push(say(`s${i}`, `Step ${i} done: ${'the component now renders its rows with the new spacing and the footnotes below. '.repeat(5)}`));
      }
      const r = built(user('u0', 'Rework the pricing page'), ...filler, ...failedThenRedone(), say('a1', `All done. ${'x'.repeat(tail)}`));
      const at = 1 + 4 * n + 2;
      expect(Buffer.byteLength(r.md)).toBeLessThanOrEqual(16000);
      const text = notChanged(r.md);
      expect(text, `n=${n} tail=${tail}`).toMatch(/None left undone\. \*verified\* — 1 file\(s\) had a write that was refused or failed,? .*written successfully after it/);
      expect(text, `n=${n} tail=${tail}`).toContain(`${at}`);
    }
  });
});

describe("a check's runs without a verdict", () => {
  const meta = { timestamp: '2026-02-23T11:54:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.125.0', originator: 'codex_cli_rs' } };
  const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
  const shell = (id: string, command: string, output: string) => [item({ type: 'function_call', name: 'shell', call_id: id, arguments: JSON.stringify({ command: ['bash', '-lc', command] }) }), item({ type: 'function_call_output', call_id: id, output })];

  it('are counted apart from its passes and failures; a selection of no test is a failure that opens none', () => {
    const r = built(
      meta,
      { timestamp: '2026-02-23T11:55:00Z', type: 'event_msg', payload: { type: 'user_message', message: 'Add the link tests' } },
      // No exit code recorded, no summary line: no verdict.
      ...shell('t0', 'uv run pytest test/test_link.py -v 2>&1 | head -3', 'collecting ... collected 3 items'),
      ...shell('t1', 'uv run pytest test/test_link.py -v -m unit', JSON.stringify({ output: '============ test session starts ============\ncollecting ... collected 3 items / 3 deselected / 0 selected\n\n============ 3 deselected in 0.58s ============', metadata: { exit_code: 5 } })),
      ...shell('t2', 'uv run pytest test/test_link.py -v', JSON.stringify({ output: '============ 1 failed, 2 passed in 0.40s ============', metadata: { exit_code: 1 } })),
      ...shell('t3', 'uv run pytest test/test_link.py -v', JSON.stringify({ output: '============ 3 passed in 0.30s ============', metadata: { exit_code: 0 } })),
    );
    const verification = sections(r.md).get('Verification') ?? '';
    expect(verification).toMatch(/\| 4 \(2 failed, 1 without a verdict\) \|/);
    const targets = (r.llm as { check_targets: { runs: number; failed: number; undecided?: number }[] }).check_targets;
    expect(targets[0]).toMatchObject({ runs: 4, failed: 2, undecided: 1 });
    // The failure the later pass closed is listed as fixed; the empty selection is in neither list.
    const summary = r.summary as { fixed_failures: { line: number }[]; open_failures: unknown[] };
    expect(summary.open_failures).toEqual([]);
    expect(summary.fixed_failures.map((f) => f.line)).toEqual([8]);
  });
});

describe('a file "created" over one that was there', () => {
  const session = (status: string): Record<string, unknown>[] => [
    user('u1', 'Add the team route'),
    call('w1', 'Write', { file_path: '/nonexistent/w/app/api/teams/route.ts', content: 'export const GET = 1;\n' }),
    result('w1', 'File created successfully at: /nonexistent/w/app/api/teams/route.ts'),
    call('g1', 'Bash', { command: 'git status --short' }),
    result('g1', status),
    say('a1', 'Route added.'),
  ];

  it('is said written over when the session\'s git status shows it modified', () => {
    const r = built(...session(' M app/api/teams/route.ts\n?? notes.txt'));
    expect(sections(r.md).get('Repository Evidence')).toMatch(/\| `app\/api\/teams\/route\.ts` \| written over \(it was there: git status at line 5 shows it modified\) \|/);
    const f = (r.summary as { files_changed: { path: string; how: string; existed_line?: number }[] }).files_changed[0];
    expect(f).toMatchObject({ how: 'write', existed_line: 5 });
  });

  it('stays created when git status shows it new', () => {
    for (const status of ['?? app/api/teams/route.ts', 'A  app/api/teams/route.ts', 'AM app/api/teams/route.ts']) {
      const r = built(...session(status));
      expect(sections(r.md).get('Repository Evidence'), status).toMatch(/\| `app\/api\/teams\/route\.ts` \| create \|/);
    }
  });
});

describe('a file the session deleted that a later call shows there again', () => {
  const session = (...after: Record<string, unknown>[]): Record<string, unknown>[] => [
    user('u1', 'Refetch the data from scratch'),
    call('d1', 'Bash', { command: 'rm data/raw/prs.json' }),
    result('d1', ''),
    call('f1', 'Bash', { command: 'python src/fetch.py' }),
    result('f1', 'fetched 8738 PRs'),
    ...after,
    say('a1', 'Data refetched.'),
  ];
  const how = (r: { md: string }): string => /\| `data\/raw\/prs\.json` \| ([^|]+) \|/.exec(sections(r.md).get('Repository Evidence') ?? '')?.[1]?.trim() ?? '';

  it('is no longer said deleted once an ls of its folder lists it', () => {
    const listing = 'total 22952\ndrwxr-xr-x@ 8 me  staff      256 Apr 26 15:25 .\n-rw-r--r--@ 1 me  staff        3 Apr 26 15:25 issues.json\n-rw-r--r--@ 1 me  staff  9504678 Apr 26 15:33 prs.json';
    const r = built(...session(call('l1', 'Bash', { command: 'ls -la /nonexistent/w/data/raw/ 2>/dev/null && ls -la /nonexistent/w/data/' }), result('l1', listing)));
    expect(how(r)).toBe('deleted, then there again (line 7 shows it: something the session ran made it again)');
    expect((r.summary as { files_changed: Record<string, unknown>[] }).files_changed[0]).toMatchObject({ how: 'delete', reappeared_line: 7 });
  });

  it('nor once it is read', () => {
    const r = built(...session(call('r1', 'Read', { file_path: '/nonexistent/w/data/raw/prs.json' }), result('r1', '     1→[{"number": 1}]')));
    expect(how(r)).toMatch(/^deleted, then there again \(line 7/);
  });

  it('stays deleted when a listing of another folder has a file of its name', () => {
    const r = built(...session(call('l1', 'Bash', { command: 'ls -l backup/' }), result('l1', '-rw-r--r-- 1 me staff 12 Apr 26 15:33 prs.json')));
    expect(how(r)).toBe('deleted');
  });
});
