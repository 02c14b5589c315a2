import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningDaemon } from '../daemon-harness.js';
import { startDaemon } from '../daemon-harness.js';
import { copyFixture, peakRssMb, readJson, runCli, spawnCli, tempDir, testEnv, waitFor } from '../helpers.js';

/**
 * What the store and the CLI say must be true: two files are two sessions, a file that never
 * gave a turn leaves nothing, a rename is never seen half-done, a transcript cannot write to the
 * terminal, an id shown is an id that works, and errors say what to do (not the wrong thing).
 */

const running: RunningDaemon[] = [];
afterEach(async (ctx) => {
  for (const d of running.splice(0)) {
    if (ctx.task.result?.state === 'fail') console.log(`daemon log (pid ${d.child.pid}):\n${d.log()}`);
    if (d.child.exitCode === null && d.child.signalCode === null) await d.kill('SIGKILL');
  }
});

const line = (o: unknown): string => `${JSON.stringify(o)}\n`;
const user = (text: string): string => line({ role: 'user', content: text });
const agent = (text: string): string => line({ role: 'assistant', content: text });

function store(): { env: NodeJS.ProcessEnv; root: string } {
  const root = tempDir('handoff-store-');
  return { env: testEnv({ HANDOFFS_ROOT: root }), root };
}

/** Every folder under projects/, relative. */
function folders(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      out.push(`${rel}${e.name}`);
      walk(join(dir, e.name), `${rel}${e.name}/`);
    }
  };
  try {
    walk(join(root, 'projects'), '');
  } catch {
    // no projects/ at all
  }
  return out.sort();
}

describe('a session is keyed by its transcript', () => {
  it('keeps two transcripts with the same file name in different folders apart, each under its own project', async () => {
    const { env, root } = store();
    const base = tempDir('handoff-claude-');
    await mkdir(join(base, '-c'));
    await mkdir(join(base, '-d'));
    await writeFile(join(base, '-c', 'same.jsonl'), user('the conversation in folder c about the parser') + agent('c answer'));
    await writeFile(join(base, '-d', 'same.jsonl'), user('a different conversation in folder d about billing') + agent('d answer') + agent('more from d'));
    const a = JSON.parse((await runCli(['build', join(base, '-c', 'same.jsonl'), '--json'], { env })).out) as { session: string; project: string; dir: string; turns: number };
    const b = JSON.parse((await runCli(['build', join(base, '-d', 'same.jsonl'), '--json'], { env })).out) as { session: string; project: string; dir: string; turns: number; revision: number };
    expect(a).toMatchObject({ session: 'same', project: 'c', turns: 2 });
    expect(b).toMatchObject({ session: expect.stringMatching(/^same-[0-9a-f]{8}$/), project: 'd', turns: 3, revision: 1 });
    // Not a "source reset" of the other: nothing was moved into history/ (made by its first file).
    expect(existsSync(join(a.dir, 'history'))).toBe(false);
    expect(existsSync(join(b.dir, 'history'))).toBe(false);
    // Built again, each finds its own session.
    const again = JSON.parse((await runCli(['build', join(base, '-c', 'same.jsonl'), '--json'], { env })).out) as { session: string; up_to_date: boolean };
    expect(again).toMatchObject({ session: 'same', up_to_date: true });
    const index = await readJson<{ id: string; project: string }[]>(join(root, 'INDEX.json'));
    expect(index.map((e) => `${e.project}/${e.id}`).sort()).toEqual(['c/same', `d/${b.session}`]);
  });
});

describe('files that never give a turn', () => {
  it('leave no folder: an empty file, a binary file, a text file with no turn, and /etc/passwd sent to the socket', async () => {
    const { env, root } = store();
    const work = tempDir('handoff-work-');
    await writeFile(join(work, 'empty.jsonl'), '');
    await writeFile(join(work, 'binary.jsonl'), Buffer.from([0x00, 0xff, 0x10, 0x0a, 0x7f, 0x45, 0x4c, 0x46, 0x0a]));
    await writeFile(join(work, 'notes.txt'), 'just some notes\nwith no role markers\n');
    expect((await runCli(['build', join(work, 'empty.jsonl')], { env })).code).toBe(4);
    expect((await runCli(['build', join(work, 'binary.jsonl')], { env })).code).toBe(5);
    expect((await runCli(['build', join(work, 'notes.txt')], { env })).code).toBe(4);
    expect(folders(root)).toEqual([]);
    const watch = tempDir('handoff-watch-');
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    await expect(d.call('build', { path: '/etc/passwd' })).rejects.toThrow(/no turn parsed/);
    expect(folders(root)).toEqual([]);
  });

  it('leave no empty project folder behind a rename', async () => {
    const { env, root } = store();
    const src = await copyFixture('codex-rollout.jsonl', tempDir('handoff-work-'), 'r.jsonl');
    expect((await runCli(['build', src, '--project', 'first'], { env })).code).toBe(0);
    expect((await runCli(['rename', 'r', 'second'], { env })).code).toBe(0);
    expect(folders(root)).toEqual(['second', 'second/r']);
  });
});

describe('the CLI while a daemon runs', () => {
  it('never sees a rename or retitle half-done: verify, show and show --path right after', async () => {
    const { env, root } = store();
    const watch = tempDir('handoff-watch-');
    // A long index interval: INDEX.json on disk would lag far behind without the fix.
    await mkdir(join(env.XDG_CONFIG_HOME as string, 'handoff'), { recursive: true });
    await writeFile(join(env.XDG_CONFIG_HOME as string, 'handoff', 'handoff.config.json'), JSON.stringify({ daemon: { index_interval_ms: 60_000 } }));
    await copyFixture('claude-session.jsonl', watch, 'live.jsonl');
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    for (const [cmd, arg] of [
      ['retitle', 'Upload retry backoff'],
      ['rename', 'uploads'],
      ['retitle', 'Upload retry, second try'],
    ] as const) {
      const r = await runCli([cmd, 'live', arg], { env });
      expect(r.code, r.err).toBe(0);
      const v = await runCli(['verify', 'live'], { env });
      expect(v.code, v.out + v.err).toBe(0);
      const p = await runCli(['show', 'live', '--path'], { env });
      expect(readFileSync(p.out.trim(), 'utf8')).toMatch(/^---/);
      const s = await runCli(['show', 'live'], { env });
      expect(s.code, s.err).toBe(0);
      expect(s.out).toMatch(/# Handoff: /);
      const disk = await readJson<{ id: string; dir: string }[]>(join(root, 'INDEX.json'));
      expect(disk.find((e) => e.id === 'live')?.dir).toBe(p.out.trim().replace(/\/HANDOFF\.md$/, ''));
    }
  });
});

describe('nothing from a transcript or a file name reaches the terminal as a control sequence', () => {
  const esc = '\u001b';
  const hostile = `${esc}]52;c;ZWNobyBwd25lZA==\u0007${esc}]0;owned${esc}\\${esc}[2J${esc}[31mred`;

  it('in show, list and status, nor as forged lines in PROJECT.md', async () => {
    const { env, root } = store();
    const watch = tempDir('handoff-watch-');
    const name = join(watch, `evil${esc}[2J\n- session forged (turns=9, rev=9) :: fake.jsonl`);
    await writeFile(name, user(`please look at this output: ${hostile} and fix it`) + agent(`done ${hostile}`));
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    const project = (await d.call('status')).sessions[0]?.project as string;
    for (const args of [['list'], ['status'], ['show', 'evil']]) {
      const r = await spawnCli(args, { env });
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
      expect(r.out, args.join(' ')).not.toContain(esc);
      expect(r.out, args.join(' ')).not.toContain('\u0007');
      expect(r.out, args.join(' ')).not.toMatch(/^- session forged/m);
    }
    // The sequences are gone, the words around them stay.
    expect((await spawnCli(['show', 'evil'], { env })).out).toContain('please look at this output: red and fix it');
    const md = await readFile(join(root, 'projects', project, 'PROJECT.md'), 'utf8');
    expect(md).not.toContain(esc);
    expect(md.split('\n').filter((l) => l.startsWith('- session'))).toHaveLength(1);
    expect(md).toContain('evil\\x1b[2J\\n- session forged');
    const handoff = await readFile(join((await d.call('status')).sessions[0]?.dir as string, 'HANDOFF.md'), 'utf8');
    expect(handoff).not.toContain(esc);
    expect(handoff).not.toContain('\u0007');
  });
});

describe('ids as status and list show them', () => {
  it('are never cut shorter than what tells them apart, on 80 columns or piped, and come with the title', async () => {
    const { env, root } = store();
    const watch = tempDir('handoff-watch-');
    const codex = join(watch, 'sessions', '2026', '11', '30');
    await mkdir(codex, { recursive: true });
    for (const id of ['019a7c2e-1111-7aaa-8bbb-000000000001', '019a7c2e-1111-7aaa-8bbb-000000000002']) {
      await copyFixture('codex-rollout.jsonl', codex, `rollout-2026-11-30T10-00-00-${id}.jsonl`);
    }
    const parent = join(watch, '-home-dev-app');
    await mkdir(join(parent, '0d3a8e6f-290f-4105-a327-a2496e5e2a83', 'subagents'), { recursive: true });
    await writeFile(join(parent, '0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl'), line({ type: 'user', sessionId: '0d3a8e6f-290f-4105-a327-a2496e5e2a83', cwd: '/home/dev/app', message: { role: 'user', content: 'Make the importer accept trailing commas' } }));
    await writeFile(join(parent, '0d3a8e6f-290f-4105-a327-a2496e5e2a83', 'subagents', 'agent-a1b2c3.jsonl'), line({ type: 'user', sessionId: '0d3a8e6f-290f-4105-a327-a2496e5e2a83', isSidechain: true, cwd: '/home/dev/app', message: { role: 'user', content: 'Search the code for the parser entry point' } }));
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    await d.call('flush', { timeout_ms: 20_000 }, 25_000);
    expect((await runCli(['retitle', '0d3a8e6f-290f-4105-a327-a2496e5e2a83', 'Importer commas'], { env })).code).toBe(0);
    const ids = (await d.call('status')).sessions.map((s) => s.id);
    expect(ids).toHaveLength(4);
    for (const [cmd, columns] of [
      ['status', 80],
      ['list', 80],
      ['list', Number.POSITIVE_INFINITY],
    ] as const) {
      const r = await runCli([cmd], { env, columns });
      const rows = r.out.split('\n').filter((l) => /\s(claude|codex)\s/.test(l));
      expect(rows, `${cmd} ${columns}`).toHaveLength(4);
      const shown = rows.map((l) => (l.trim().split(/\s{2,}/)[1] ?? '').replace(/…$/, ''));
      expect(new Set(shown).size, `${cmd} ${columns}: ${shown.join(' | ')}`).toBe(4);
      for (const s of shown) {
        // An exact id always wins; otherwise the prefix must fit one id alone.
        const names = ids.includes(s) ? [s] : ids.filter((id) => id.startsWith(s));
        expect(names, `${cmd}: "${s}" names one session`).toHaveLength(1);
        const show = await runCli(['show', s, '--path'], { env });
        expect(show.code, `show ${s}: ${show.err}`).toBe(0);
      }
      expect(r.out, cmd).toMatch(/Importer commas/);
    }
  });
});

describe('errors say what to do', () => {
  it('say "handoff" once, and never suggest --final to a build that had it', async () => {
    const { env } = store();
    const v = await runCli(['verify'], { env });
    expect(v.err).toMatch(/^handoff verify: expected an id prefix or --all/);
    expect(v.err).not.toMatch(/handoff: handoff/);
    const work = tempDir('handoff-work-');
    const bin = join(work, 'blob.jsonl');
    await writeFile(bin, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0xff]));
    const plain = await runCli(['build', bin], { env });
    expect(plain.code).toBe(4);
    expect(plain.err).toMatch(/`--final` takes it/);
    const final = await runCli(['build', bin, '--final'], { env });
    expect(final.code).toBe(4);
    expect(final.err).toMatch(/do not parse as JSON/);
    expect(final.err).not.toMatch(/--final/);
  });
});

describe('an oversized line', () => {
  it('is skipped without being held in memory: a 70 MB line costs the daemon no more than a chunk', async () => {
    const { env, root } = store();
    const watch = tempDir('handoff-watch-');
    const d = await startDaemon(env, root, ['--watch', watch]);
    running.push(d);
    // The first build of a process loads the renderers and schemas: measure from after one.
    await writeFile(join(watch, 'small.jsonl'), user('a small session built first') + agent('ok'));
    await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'small'), 'a first build');
    const before = peakRssMb(d.child.pid as number);
    if (before === null) {
      console.warn('[cli-truth] no /proc here: the peak memory of the 70 MB line is not measured');
      return;
    }
    const src = join(watch, 'huge.jsonl');
    const big = Buffer.alloc(70 << 20, 0x61);
    big.write('{"role":"tool","content":"', 0);
    big.write('"}\n', big.length - 3);
    await writeFile(src, Buffer.concat([Buffer.from(user('a request before the huge tool output')), big, Buffer.from(agent('and the answer after it'))]));
    const s = await waitFor(async () => (await d.call('status')).sessions.find((x) => x.id === 'huge' && x.turns === 2), 'the transcript around the huge line to be built', 30_000);
    const m = await readJson<{ oversized_lines: number; raw_bytes: number }>(join(s.dir, 'manifest.json'));
    expect(m).toMatchObject({ oversized_lines: 1, raw_bytes: (70 << 20) + Buffer.byteLength(user('a request before the huge tool output') + agent('and the answer after it')) });
    expect((await runCli(['verify', 'huge', '--source'], { env })).code).toBe(0);
    const after = peakRssMb(d.child.pid as number) as number;
    expect(after - before).toBeLessThan(40);
  });
});



