import { escapeControls, stripControls } from '../../core/control-chars.js';
import { EXIT, UsageError } from '../../errors.js';
import type { VerifyReport } from '../../store/verify.js';
import { verifySession, verifyTargets } from '../../store/verify.js';
import { bool, str } from '../args.js';
import type { Command } from '../command.js';
import { paint } from '../io.js';
import { resolveIn } from '../../store/index-store.js';
import { daemonIfRunning } from '../daemon-link.js';
import { loadConfig, openStore, resolvePrefix } from '../store.js';
import { verifyInstall } from './skill.js';

export const verifyCommand: Command = {
  name: 'verify',
  maxArgs: 1,
  summary: 'recompute every digest of a handoff (or all of them) and say what does not match',
  usage: 'handoff verify <id-prefix> | --all [--source] [--json]  ·  handoff verify --install DIR',
  example: 'handoff verify 0d3a8e6f --source',
  details:
    'Checks the manifest hash, the timeline hash chain and line count, HANDOFF.llm.json against its schema,\n' +
    'every render digest and the build state. --source also re-hashes the transcript bytes the handoff was\n' +
    'built from and reads their turns again, proving every timeline line (a long text kept as head and tail\n' +
    'by its length and sha256); a transcript deleted since is reported SOURCE-GONE, which is not a failure.\n' +
    'Exit 0 pass, 1 fail, 3 ambiguous prefix, 4 no match or no handoffs.',
  options: {
    all: { type: 'boolean', description: 'verify every session of the store' },
    source: { type: 'boolean', description: 'also re-hash the transcript bytes [0, offset) and prove every timeline line against them' },
    install: { type: 'string', arg: 'DIR', description: 'verify an installed skill folder against its install record' },
  },
  async run(io, args) {
    const install = str(args, 'install');
    if (install !== undefined) return verifyInstall(io, install, bool(args, 'json'));
    const all = bool(args, 'all');
    const prefix = args.positionals[0];
    if (!all && prefix === undefined) throw new UsageError('handoff verify: expected an id prefix or --all', { hint: `usage: ${verifyCommand.usage}` });
    if (all && prefix !== undefined) throw new UsageError('handoff verify: give an id prefix or --all, not both', { hint: `usage: ${verifyCommand.usage}` });
    const source = bool(args, 'source');
    const config = loadConfig(io, args);
    const daemon = await daemonIfRunning(config);
    let reports: VerifyReport[];
    if (daemon) {
      // In the daemon's queue: no build is half-way through a session while it is checked.
      try {
        reports = (await daemon.call('verify', all ? { all: true, source } : { id: prefix as string, source }, 0)) as VerifyReport[];
      } finally {
        daemon.close();
      }
      if (reports.length === 0) resolveIn([], '', config.root); // throws the "no handoffs" error
    } else {
      const { engine } = await openStore(io, args);
      const listed = all ? engine.index.all().sort((a, b) => a.id.localeCompare(b.id)) : [resolvePrefix(engine.index, prefix as string, config.root)];
      if (listed.length === 0) resolvePrefix(engine.index, '', config.root); // throws the "no handoffs" error
      reports = [];
      // A session a killed retitle or rename moved is verified where it is, not failed where it was.
      const targets: { id: string; dir: string }[] = [];
      for (const e of listed) targets.push({ id: e.id, dir: (await engine.current(e)).dir });
      for (const t of all ? await verifyTargets(engine.layout, targets) : targets) reports.push(await verifySession(t.dir, { source, turns: (m, on) => engine.turnsOf(m, on) }, t.id));
    }
    if (bool(args, 'json')) io.out(JSON.stringify(all ? reports : reports[0], null, 2));
    else for (const r of reports) io.out(line(io, r));
    return reports.every((r) => r.ok) ? EXIT.OK : EXIT.FAILED;
  },
};

/**
 * A build does not repair a session whose files no longer match what was sealed (that would
 * launder the change): it comes back from a backup, or starts afresh from its transcript.
 */
const VERIFY_FIX =
  'restore the session folder from a backup; or move it aside and run `handoff build <transcript>` to build it afresh (copy a hand-written evidence contract across yourself)';

/** Renders of a build that did not commit are not damage: the next build commits them. */
const UNCOMMITTED_FIX =
  'free disk space if the store is full, then let the daemon retry the session (`handoff status` shows its error), or run `handoff build <transcript>`; nothing needs restoring';

function line(io: Parameters<Command['run']>[0], r: VerifyReport): string {
  const notes = r.notes.map((n) => `\n  note: ${escapeControls(n)}`).join('');
  const id = escapeControls(r.id);
  if (r.ok) return `${paint(io, 'green', 'PASS')} ${id} [${r.checks.join(', ')}]${notes}`;
  return `${paint(io, 'red', 'FAIL')} ${id}: ${stripControls(r.failures[0] ?? 'unknown reason')}${notes}\n  fix: ${r.uncommitted ? UNCOMMITTED_FIX : VERIFY_FIX}`;
}
