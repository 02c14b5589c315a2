import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir, listDir, writeAtomic } from '../store/files.js';
import { FILES } from '../store/layout.js';
import { HISTORY_MODE } from '../store/permissions.js';
import { utcStamp } from './session.js';

/**
 * history/: immutable copies, never deleted (SPEC §4). `<UTC stamp>-<session>.md` is a
 * finalized HANDOFF.md; `<UTC stamp>-<session>-checkpoint.md` a checkpoint with its note.
 * A name already taken gets a counter: an existing history file is never overwritten.
 */

export interface HistoryRequest {
  kind: 'finalize' | 'checkpoint';
  reason: string;
  note?: string | undefined;
}

export async function readHistory(dir: string): Promise<string[]> {
  return (await listDir(join(dir, FILES.history))).filter((n) => n.endsWith('.md')).sort();
}

export function historyName(dir: string, dirName: string, req: HistoryRequest, now: Date): string {
  const base = `${utcStamp(now)}-${dirName}${req.kind === 'checkpoint' ? '-checkpoint' : ''}`;
  let name = `${base}.md`;
  for (let i = 2; existsSync(join(dir, FILES.history, name)); i += 1) name = `${base}-${i}.md`;
  return name;
}

export function historyContent(req: HistoryRequest, handoffMd: string, now: Date, revision: number): string {
  if (req.kind === 'finalize') return handoffMd;
  const note = req.note ? `: ${req.note.replace(/\r?\n/g, ' ')}` : '';
  return `<!-- checkpoint ${now.toISOString()} revision ${revision}${note} -->\n\n> **Checkpoint** at ${now.toISOString()} (revision ${revision})${note}\n\n${handoffMd}`;
}

export async function writeHistory(dir: string, name: string, content: string): Promise<void> {
  await ensureDir(join(dir, FILES.history));
  await writeAtomic(join(dir, FILES.history, name), content, HISTORY_MODE);
}
