import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, testEnv } from '../helpers.js';

/**
 * Valid JSON lines a hostile or broken writer can produce: a tool input nested thousands deep,
 * call ids named like Object.prototype's members. Each transcript is built with the CLI, and the
 * store it writes must pass `verify`.
 */

const deep = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const cl = (o: Record<string, unknown>): string => JSON.stringify({ sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-01-01T00:00:00Z', parentUuid: null, ...o });
const cx = (type: string, payload: Record<string, unknown>): string => JSON.stringify({ timestamp: '2026-01-01T00:00:01.000Z', type, payload });

async function buildAndVerify(name: string, lines: string[], config?: Record<string, unknown>): Promise<{ built: string; timeline: string }> {
  const env = testEnv({ HANDOFFS_ROOT: tempDir('handoff-store-') });
  if (config) {
    await mkdir(join(env.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    await writeFile(join(env.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify(config));
  }
  const file = join(tempDir('handoff-src-'), name);
  await writeFile(file, `${lines.join('\n')}\n`);
  const b = await runCli(['build', file, '--json'], { env });
  expect(b.code, b.err).toBe(0);
  const v = await runCli(['verify', '--all'], { env });
  expect(v.code, `${v.out}${v.err}`).toBe(0);
  const show = await runCli(['show', JSON.parse(b.out).session, '--timeline'], { env });
  return { built: b.out, timeline: show.out };
}

describe('hostile but valid lines', () => {
  it('builds a Claude tool call whose input nests 10,000 deep, with every turn around it', async () => {
    const lines = [
      cl({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'first request' } }),
      cl({ type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: '@@' }] } }).replace('"@@"', deep(10_000)),
      cl({ type: 'user', uuid: 'u2', message: { role: 'user', content: 'second request' } }),
    ];
    const r = await buildAndVerify('deep.jsonl', lines);
    expect(JSON.parse(r.built).turns).toBe(3);
  });

  it('builds Codex calls whose arguments nest 10,000 deep', async () => {
    const lines = [
      cx('session_meta', { id: '0199aaaa-0000-7000-8000-00000000000c', cwd: '/nonexistent/w', originator: 'codex_cli_rs', cli_version: '0.40.0' }),
      cx('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'run it' }] }),
      cx('response_item', { type: 'function_call', name: 'shell', arguments: deep(10_000), call_id: 'call_1' }),
      cx('response_item', { type: 'custom_tool_call', name: 'apply_patch', input: '@@', call_id: 'call_2' }).replace('"@@"', deep(10_000)),
      cx('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }),
    ];
    await buildAndVerify('rollout-2026-01-01T00-00-00-0199aaaa-0000-7000-8000-00000000000c.jsonl', lines);
  });

  it('builds Codex calls whose ids are named like members of every object', async () => {
    for (const id of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const lines = [
        cx('session_meta', { id: '0199aaaa-0000-7000-8000-00000000000d', cwd: '/nonexistent/w', originator: 'codex_cli_rs', cli_version: '0.40.0' }),
        cx('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'run the tests' }] }),
        cx('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["bash","-lc","npm test"]}', call_id: 'call_1' }),
        cx('response_item', { type: 'function_call_output', call_id: id, output: '{"output":"ok","metadata":{"exit_code":0}}' }),
        cx('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["bash","-lc","ls"]}', call_id: id }),
        cx('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'tests pass' }] }),
      ];
      const r = await buildAndVerify('rollout-2026-01-01T00-00-00-0199aaaa-0000-7000-8000-00000000000d.jsonl', lines);
      expect(r.timeline, id).not.toContain('undefined');
    }
  });
});

describe("special files where a transcript's folder names a file to read", () => {
  const session = (cwd: string): string[] => [
    cl({ cwd, type: 'user', uuid: 'u1', message: { role: 'user', content: 'hello there, a real request' } }),
    cl({ cwd, type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] } }),
  ];

  it('does not read a FIFO or a device as the handoff.config.json above the folder (it would block or never end)', async () => {
    for (const kind of ['fifo', 'zero']) {
      const evil = tempDir('handoff-evil-');
      await mkdir(join(evil, 'work', 'app'), { recursive: true });
      if (kind === 'fifo') execFileSync('mkfifo', [join(evil, 'handoff.config.json')]);
      else await symlink('/dev/zero', join(evil, 'handoff.config.json'));
      const r = await buildAndVerify('t.jsonl', session(join(evil, 'work', 'app')));
      expect(JSON.parse(r.built).project, kind).toBe('app');
    }
  });

  it('reads no FIFO in a repository: its HEAD, its config', async () => {
    for (const file of ['HEAD', 'config']) {
      const repo = join(tempDir('handoff-evil-'), 'repo');
      execFileSync('git', ['init', '-q', repo]);
      const target = join(repo, '.git', file);
      execFileSync('rm', [target]);
      execFileSync('mkfifo', [target]);
      const t0 = Date.now();
      await buildAndVerify('t.jsonl', session(repo), { git: { timeout_ms: 1000 } });
      // git itself may still wait for a FIFO it reads: the build waits out git's timeout, no more.
      expect(Date.now() - t0, file).toBeLessThan(10_000);
    }
  });
});
