import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GateResult } from '../../core/quality.js';
import { runGate } from '../../core/quality.js';
import { CheckFailedError, EXIT, NotFoundError } from '../../errors.js';
import { FILES } from '../../store/layout.js';
import { bool } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { paint } from '../io.js';
import { openSession } from '../store.js';

/**
 * The quality gate of seeds 002/003 over the HANDOFF.md on disk now, not the one the last build
 * rendered: a hand-edit that breaks the handoff is caught here. The texts of HANDOFF.llm.json's
 * turns go through the second secret scan too, since an agent reads them as well.
 */

async function turnTexts(dir: string): Promise<string[]> {
  let raw: string;
  try {
    raw = await readFile(join(dir, FILES.llm), 'utf8');
  } catch {
    return [];
  }
  try {
    const llm = JSON.parse(raw) as { turns?: { text?: unknown }[] };
    return (llm.turns ?? []).map((t) => (typeof t.text === 'string' ? t.text : ''));
  } catch {
    // Not JSON any more: scan it as text rather than skip what it holds.
    return [raw];
  }
}

function print(io: Io, id: string, g: GateResult): void {
  const w = Math.max(...g.checks.map((c) => c.name.length));
  for (const c of g.checks) io.out(`${c.ok ? paint(io, 'green', 'ok  ') : paint(io, 'red', 'FAIL')}  ${c.name.padEnd(w)}  ${c.detail}`);
  io.out(g.transfer_ready ? `${id}: transfer-ready` : `${id}: not transfer-ready (${g.failed.length} of ${g.checks.length} checks failed: ${g.failed.join(', ')})`);
}

export const checkCommand: Command = {
  name: 'check',
  maxArgs: 1,
  summary: 'run the quality gate: exit 0 when a handoff is ready to transfer, 1 naming each failed check',
  usage: 'handoff check <id-prefix> [--json]',
  example: 'handoff check 0d3a',
  details:
    'Checks the HANDOFF.md on disk: an objective, exactly one executable next action, repository evidence\n' +
    'verified or explicitly unavailable, every "passed" backed by a recorded result, no credential (a second,\n' +
    'independent scan that also reads the turns of HANDOFF.llm.json), partial work stated, every section present.',
  options: {},
  async run(io, args) {
    const { entry: e } = await openSession(io, args, checkCommand);
    const path = join(e.dir, FILES.handoff);
    let md: string;
    try {
      md = await readFile(path, 'utf8');
    } catch {
      throw new NotFoundError(`${path} is missing`, { hint: `rebuild it with \`handoff build ${e.source?.path ?? '<transcript>'}\`` });
    }
    const g = runGate(md, await turnTexts(e.dir));
    if (bool(args, 'json')) io.out(JSON.stringify({ session: e.id, handoff: path, transfer_ready: g.transfer_ready, checks: g.checks, failed: g.failed }, null, 2));
    else print(io, e.id, g);
    if (g.transfer_ready) return EXIT.OK;
    throw new CheckFailedError(`${e.id} is not ready to transfer: ${g.failed.join(', ')} failed`, {
      hint: 'fix what each failed check names (or let the session run on), then rebuild and check again',
      details: { failed: g.failed },
    });
  },
};
