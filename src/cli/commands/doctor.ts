import type { ResolvedConfig } from '../../config.js';
import type { CheckLine, Facts } from '../../doctor/checks.js';
import { diagnose } from '../../doctor/checks.js';
import { gatherFacts } from '../../doctor/gather.js';
import { EXIT, HandoffError } from '../../errors.js';
import { serviceStatus } from '../../service/manage.js';
import { bool } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { paint } from '../io.js';
import { loadConfig } from '../store.js';
import { hookFacts } from './hooks.js';
import { serviceContext } from './service.js';

export const doctorCommand: Command = {
  name: 'doctor',
  maxArgs: 0,
  summary: 'check this machine: Node, store, watch folders, inotify limits, daemon, service, hooks, Claude retention',
  usage: 'handoff doctor [--json]',
  example: 'handoff doctor',
  details: 'Each line is ok, warn or fail, with its fix. Exit 1 when any check fails.',
  options: {},
  async run(io, args) {
    let config: ResolvedConfig | null = null;
    let configError: string | null = null;
    let configHint: string | null = null;
    try {
      config = loadConfig(io, args);
    } catch (e) {
      if (!(e instanceof HandoffError)) throw e;
      configError = e.message;
      configHint = e.hint ?? null;
    }
    const facts = await gatherFacts(config, configError, io.env, () => service(io, args), () => hookFacts(io, args), configHint);
    const lines = diagnose(facts);
    if (bool(args, 'json')) io.out(JSON.stringify({ checks: lines, facts }, null, 2));
    else io.out(render(io, lines));
    return lines.some((l) => l.verdict === 'fail') ? EXIT.FAILED : EXIT.OK;
  },
};

async function service(io: Io, args: Parameters<Command['run']>[1]): Promise<Facts['service']> {
  try {
    const s = await serviceStatus(serviceContext(io, args));
    return { supported: true, installed: s.installed, enabled: s.enabled, active: s.active, ...(s.notes.length > 0 ? { note: s.notes.join('; ') } : {}) };
  } catch (e) {
    return { supported: false, installed: false, enabled: 'unknown', active: 'unknown', note: (e as Error).message };
  }
}

const MARK: Record<CheckLine['verdict'], ['green' | 'yellow' | 'red', string]> = { ok: ['green', 'ok  '], warn: ['yellow', 'warn'], fail: ['red', 'FAIL'] };

export function render(io: Pick<Io, 'color'>, lines: readonly CheckLine[]): string {
  const width = Math.max(...lines.map((l) => l.name.length));
  const out: string[] = [];
  for (const l of lines) {
    const [colour, word] = MARK[l.verdict];
    out.push(`${paint(io, colour, word)}  ${l.name.padEnd(width)}  ${l.message}`);
    if (l.fix && l.verdict !== 'ok') out.push(`${' '.repeat(6 + width)}  fix: ${l.fix}`);
  }
  const fails = lines.filter((l) => l.verdict === 'fail').length;
  const warns = lines.filter((l) => l.verdict === 'warn').length;
  out.push('', fails > 0 ? paint(io, 'red', `${fails} check(s) failed, ${warns} warning(s)`) : `all checks passed${warns > 0 ? ` (${warns} warning${warns === 1 ? '' : 's'})` : ''}`);
  return out.join('\n');
}
