import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { renderAll } from '../../src/core/render/index.js';
import { jsonl } from './ingest-helper.js';
import type { RenderInput } from '../../src/core/render/input.js';
import { renderInput } from './render-input.js';
import { tempDir } from '../helpers.js';

/** HANDOFF.md keeps to its budget (16,000 bytes) by giving up the least needed parts first. */
describe("HANDOFF.md's budget", () => {
  const session = (requests: number, chars: number): string => {
    const dir = tempDir('handoff-budget-');
    const lines: unknown[] = [];
    for (let i = 0; i < requests; i += 1) {
      const at = `2026-04-26T10:${String(i % 60).padStart(2, '0')}:00Z`;
      lines.push({ type: 'user', uuid: `u${i}`, sessionId: 's', cwd: '/w', timestamp: at, message: { role: 'user', content: `request ${i}: ${'please change the report layout '.repeat(chars / 32)}` } });
      lines.push({ type: 'assistant', uuid: `a${i}`, parentUuid: `u${i}`, sessionId: 's', cwd: '/w', timestamp: at, message: { role: 'assistant', content: [{ type: 'text', text: `Done with request ${i}.` }] } });
    }
    const path = join(dir, 'session.jsonl');
    writeFileSync(path, jsonl(...lines));
    return path;
  };
  const timelineRows = (md: string): string | undefined => /## Recent timeline \(last (\d+) of \d+ turns\)/.exec(md)?.[1];

  it('shows the last 15 turns when it fits', () => {
    const md = renderAll(renderInput(session(20, 64))).handoffMd;
    expect(timelineRows(md)).toBe('15');
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(16_000);
  });

  it('gives up the oldest rows of the recent timeline when every level is still too long', () => {
    const md = renderAll(renderInput(session(40, 560))).handoffMd;
    expect(timelineRows(md)).toBe('8');
    expect(md).toContain('request 39:');
  });

  it("then shows a long objective's head and end, and says the summary holds it", () => {
    // Twenty requests fit with a short objective; a 3,800-character brief first makes it too long.
    const path = session(20, 400);
    const brief = `${'Write the grant draft from the project files and the history. '.repeat(60)}Do not submit it.`;
    const first = `${JSON.stringify({ type: 'user', uuid: 'u0', sessionId: 's', cwd: '/w', timestamp: '2026-04-26T09:59:00Z', message: { role: 'user', content: brief } })}\n`;
    writeFileSync(path, first + readFileSync(path, 'utf8'));
    const out = renderAll(renderInput(path));
    expect(Buffer.byteLength(out.handoffMd)).toBeLessThanOrEqual(16_000);
    expect(out.handoffMd).toMatch(new RegExp(`\\*reported\\* — the user's first request \\(line 1\\); its first \\d+ and last \\d+ of ${brief.length} characters, to keep this file short: HANDOFF\\.summary\\.json's \`objective\` holds all of it`));
    // The brief's closing constraint is in what is shown.
    expect(sections(out.handoffMd).get('Objective (verbatim)')).toContain('Do not submit it.');
    expect((JSON.parse(out.summaryJson.toString('utf8')) as { objective: string }).objective).toBe(brief);
  });

  it('lists the latest ten of twenty changed files when the shorter timeline is still too long', () => {
    const path = session(40, 560);
    const writes: unknown[] = [];
    for (let i = 0; i < 25; i += 1) {
      const at = `2026-04-26T11:${String(i).padStart(2, '0')}:00Z`;
      const file = `/w/src/module-${String(i).padStart(2, '0')}-with-a-long-descriptive-name.ts`;
      writes.push({ type: 'assistant', uuid: `w${i}`, sessionId: 's', cwd: '/w', timestamp: at, message: { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Write', input: { file_path: file, content: `export const value${i} = ${i};\n` } }] } });
      writes.push({ type: 'user', uuid: `r${i}`, sessionId: 's', cwd: '/w', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `File created successfully at: ${file}` }] } });
    }
    writeFileSync(path, readFileSync(path, 'utf8') + jsonl(...writes));
    const md = renderAll(renderInput(path)).handoffMd;
    expect(timelineRows(md)).toBe('8');
    expect(md).toContain('module-24-with-a-long-descriptive-name.ts');
    expect(md).toContain('module-15-with-a-long-descriptive-name.ts');
    // The table has rows for the latest ten; the room left names some of the others, latest first.
    expect(md).toContain('| `src/module-15-with-a-long-descriptive-name.ts` |');
    expect(md).not.toContain('| `src/module-14-with-a-long-descriptive-name.ts` |');
    expect(md).toMatch(/\n15 more, each with its lines in HANDOFF\.summary\.json(\.|: `src\/module-14-with-a-long-descriptive-name\.ts`)/);
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(16000);
  });

  it('keeps, at its tightest, how a fixed failure was got past: the command that fixed it', () => {
    const path = session(40, 560);
    const at = '2026-04-26T11:00:00Z';
    const run = (id: string, command: string, output: string, isError: boolean): unknown[] => [
      { type: 'assistant', uuid: `c${id}`, sessionId: 's', cwd: '/w', timestamp: at, message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] } },
      { type: 'user', uuid: `r${id}`, sessionId: 's', cwd: '/w', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: isError }] } },
    ];
    const failed = run('t1', 'pnpm build', 'Exit code 1\nThis project is configured to use yarn because /home/u/package.json has a "packageManager" field', true);
    const fixed = run('t2', 'COREPACK_ENABLE_PROJECT_SPEC=0 pnpm build', '✓ Compiled successfully in 17.3s', false);
    writeFileSync(path, readFileSync(path, 'utf8') + jsonl(...failed, ...fixed));
    const md = renderAll(renderInput(path)).handoffMd;
    expect(timelineRows(md)).toBe('8');
    expect(md).toMatch(/- line \d+, a later run passed at line \d+ \(`COREPACK_ENABLE_PROJECT_SPEC=0 pnpm build`: it ran with `COREPACK_ENABLE_PROJECT_SPEC=0` set, which the failed run lacked — later runs need it too\): /);
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(16000);
  });

  /** Forty long requests and replies, and 25 files written at long paths: every level is too long. */
  const crowded = (requests = 40): string => {
    const dir = tempDir('handoff-budget-');
    const lines: unknown[] = [];
    const at = (i: number): string => `2026-04-26T10:${String(i % 60).padStart(2, '0')}:00Z`;
    for (let i = 0; i < requests; i += 1) {
      lines.push({ type: 'user', uuid: `u${i}`, sessionId: 's', cwd: '/w', timestamp: at(i), message: { role: 'user', content: `request ${i}: ${'please change the report layout '.repeat(18)}` } });
      lines.push({ type: 'assistant', uuid: `a${i}`, parentUuid: `u${i}`, sessionId: 's', cwd: '/w', timestamp: at(i), message: { role: 'assistant', content: [{ type: 'text', text: `Done with request ${i}. ${'The layout now follows the grid of the design. '.repeat(30)}` }] } });
    }
    for (let i = 0; i < 25; i += 1) {
      const file = `/w/src/${'deeply-nested-folder/'.repeat(7)}module-${String(i).padStart(2, '0')}.ts`;
      lines.push({ type: 'assistant', uuid: `w${i}`, sessionId: 's', cwd: '/w', timestamp: at(i), message: { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Write', input: { file_path: file, content: `export const aVeryLongConstantNameForTheValue${i} = ${i};\n` } }] } });
      lines.push({ type: 'user', uuid: `r${i}`, sessionId: 's', cwd: '/w', timestamp: at(i), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `File created successfully at: ${file}` }] } });
    }
    const path = join(dir, 'session.jsonl');
    writeFileSync(path, jsonl(...lines));
    return path;
  };

  it('shows the last 5 turns when every other step still leaves it too long', () => {
    const md = renderAll(renderInput(crowded())).handoffMd;
    expect(timelineRows(md)).toBe('5');
    expect(md).toContain("- source transcript: under Provenance");
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(16000);
  });

  /** The session's handoff as if its store and its transcript lay at paths `n` folders deep, as on a CI runner. */
  const deep = (source: string, n: number): { md: string; long: string } => {
    const input = renderInput(source);
    const root = `/home/runner/work/${'a-long-workspace-folder/'.repeat(n)}store`;
    const long = `/home/runner/work/${'checkout-of-the-shared-corpus/'.repeat(n)}session.jsonl`;
    const md = renderAll({ ...input, root, dir: `${root}/projects/test/test-session`, sources: [{ ...(input.sources[0] as RenderInput['sources'][number]), path: long }] }).handoffMd;
    return { md, long };
  };

  it("says the transcript's path once, under Provenance, before it gives up anything else", () => {
    // A CI runner's store and checkout: each path was written twice, and the 16,000 bytes held
    // on a laptop were passed there.
    const { md, long } = deep(crowded(), 12);
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(16000);
    expect(md).toContain('- source transcript: under Provenance');
    expect(md).toContain(`- source: \`${long}\``);
  });

  it('lists the latest five changed files when nothing else it gives up is left', () => {
    // Paths of some 3,600 characters each, near PATH_MAX: every other step is used up.
    const { md } = deep(crowded(3), 120);
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(16000);
    expect(md).toContain('Left out to keep this file within 16000 bytes: timeline.jsonl');
    // The table keeps the latest five (module-24 to module-20); the room left names some others.
    expect(md).toContain('module-20.ts` |');
    expect(md).not.toContain('module-19.ts` |');
  });

  it('keeps the latest two failures fixed during the session when the latest five files still leave it too long', () => {
    // agentcmd's Codex rollout at a CI runner's paths: six fixed failures of long commands took the room.
    const path = crowded(3);
    const at = '2026-04-26T11:00:00Z';
    const lines: unknown[] = [];
    for (let i = 0; i < 8; i += 1) {
      const cmd = `pnpm --filter @repo/${'a-long-package-name-'.repeat(4)}${i} check-types`;
      for (const [id, out, err] of [[`f${i}`, `Exit code 2\nsrc/app/api/teams/[id]/route.ts(20,5): error TS2322: ${'Type mismatch in the handler. '.repeat(4)}`, true], [`p${i}`, 'Done in 4.1s', false]] as const) {
        lines.push({ type: 'assistant', uuid: `c${id}`, sessionId: 's', cwd: '/w', timestamp: at, message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: cmd } }] } });
        lines.push({ type: 'user', uuid: `r${id}`, sessionId: 's', cwd: '/w', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: out, is_error: err }] } });
      }
    }
    writeFileSync(path, readFileSync(path, 'utf8') + jsonl(...lines));
    // Paths some 2,600 characters long: 16,248 bytes with the five fixed failures a tight level keeps.
    const { md } = deep(path, 88);
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(16000);
    expect(md).toContain("- … and 6 earlier, each in HANDOFF.summary.json's `fixed_failures`");
    // Past every other step, the Next Action keeps its first clauses, and says where the rest is.
    const action = md.slice(md.indexOf('## Next Action'), md.indexOf('## Claims to double-check'));
    expect(action).toMatch(/^## Next Action\n\nContinue the user's last request[^\n]* … \(the rest: HANDOFF\.summary\.json's `next_action`\)\n/);
    // Cut outside the request's quote: every «…» it opens is closed.
    const kept = action.split('\n')[2] ?? '';
    expect(kept.split('«').length).toBe(kept.split('»').length);
  });
});
