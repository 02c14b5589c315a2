import { join } from 'node:path';
import { homeDir } from '../../config.js';
import { EXIT, UsageError } from '../../errors.js';
import { PACKAGE_ROOT, packageVersion } from '../../paths.js';
import type { SkillHarness } from '../../skill/install.js';
import { checkInstall, defaultSkillDir, installSkill, SKILL_HARNESSES } from '../../skill/install.js';
import { bool, str } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { paint } from '../io.js';

export const skillCommand: Command = {
  name: 'skill',
  maxArgs: 1,
  summary: 'install the handoff skill for Claude Code, Codex or other agents',
  usage: 'handoff skill install [--harness claude|codex|agents] [--dir DIR] [--json]',
  example: 'handoff skill install --harness claude',
  details: 'Copies skill/ (SKILL.md and its templates) and writes .handoff-install.json beside SKILL.md; `handoff verify --install DIR` checks the copy later.',
  options: {
    harness: { type: 'string', arg: 'H', description: `where it goes: ${SKILL_HARNESSES.join(', ')} (default claude)` },
    dir: { type: 'string', arg: 'DIR', description: 'install into this folder instead' },
  },
  async run(io, args) {
    const [sub] = args.positionals;
    if (sub !== 'install') throw new UsageError(`handoff skill: expected "install", found ${sub === undefined ? 'nothing' : `"${sub}"`}`, { hint: `usage: ${skillCommand.usage}` });
    const harness = (str(args, 'harness') ?? 'claude') as SkillHarness;
    if (!SKILL_HARNESSES.includes(harness)) throw new UsageError(`handoff skill install: --harness must be one of ${SKILL_HARNESSES.join(', ')}, found "${harness}"`, { hint: 'or use --dir DIR' });
    const dir = str(args, 'dir');
    const target = dir ?? defaultSkillDir(harness, io.env, homeDir(io.env));
    const record = await installSkill({ source: join(PACKAGE_ROOT, 'skill'), target, harness: dir ? 'custom' : harness, version: packageVersion(), now: io.now() });
    if (bool(args, 'json')) io.out(JSON.stringify(record, null, 2));
    else io.out(`installed the handoff skill (${record.file_count} files) into ${target}\ncheck it any time: handoff verify --install ${target}`);
    return EXIT.OK;
  },
};

export async function verifyInstall(io: Io, dir: string, json: boolean): Promise<number> {
  const r = await checkInstall(dir);
  if (json) io.out(JSON.stringify(r, null, 2));
  else if (r.status === 'pass') io.out(`${paint(io, 'green', 'PASS')} ${dir} [${r.checked} files match .handoff-install.json]`);
  else if (r.status === 'no-record') {
    io.out(`NO-RECORD ${dir}: no .handoff-install.json (installed before install records existed); ${r.checked} files present${r.problems.length ? `; ${r.problems.join('; ')}` : ''} — neither pass nor fail`);
  } else io.out(`${paint(io, 'red', 'FAIL')} ${dir}: ${r.problems.join('; ')}`);
  return r.status === 'fail' ? EXIT.FAILED : EXIT.OK;
}
