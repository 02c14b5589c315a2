import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { StatusFacts } from '../core/statusline.js';
import { statusLine } from '../core/statusline.js';
import { ensureDir, listDir, removeFile, writeAtomic } from '../store/files.js';

/**
 * The status line without Node: for each live top-level Claude Code session the daemon keeps
 * `<store>/.handoffd/status/<session id>`, two lines (coloured, plain), which the installed
 * `hooks/handoff-statusline.sh` prints with shell builtins alone. A file is keyed by the id the
 * harness sends (the transcript's uuid), so a retitle or a rename (which move the session's
 * folder) never strands it; it is rewritten only when its text changes, and files of sessions
 * quiet for STALE_MS are swept.
 */

/** What a harness's session id must look like to name a file: nothing that can leave the folder. */
export const STATUS_KEY_RE = /^[A-Za-z0-9_-]{1,128}$/;
/** A session whose transcript has not moved for this long gets no file, and its file goes. */
export const STALE_MS = 24 * 3600 * 1000;
/** The texts written, remembered to skip unchanged rewrites; bounded like the daemon's hot set. */
const MAX_REMEMBERED = 4096;

export interface StatusSubject {
  /** The id the harness sends as session_id (Claude Code: the transcript's uuid). */
  key: string | null;
  harness: string;
  topLevel: boolean;
  /** When its transcript last changed (ms since the epoch). */
  activeMs: number;
  facts: Omit<StatusFacts, 'daemon'>;
}

export function statusText(facts: Omit<StatusFacts, 'daemon'>): string {
  const state = { kind: 'session' as const, facts: { ...facts, daemon: 'live' as const } };
  return `${statusLine(state, true)}\n${statusLine(state, false)}\n`;
}

export class StatusFiles {
  private readonly written = new Map<string, string>();
  private ready = false;

  constructor(private readonly dir: string) {}

  /** The file a subject gets, or null when it gets none (not Claude Code, a subagent, quiet, an odd id). */
  fileFor(s: StatusSubject, nowMs = Date.now()): string | null {
    if (s.harness !== 'claude' || !s.topLevel || s.key === null || !STATUS_KEY_RE.test(s.key)) return null;
    if (nowMs - s.activeMs > STALE_MS) return null;
    return join(this.dir, s.key);
  }

  /** Writes the subject's line when it changed; returns whether it wrote. */
  async update(s: StatusSubject): Promise<boolean> {
    const file = this.fileFor(s);
    if (file === null) return false;
    const text = statusText(s.facts);
    if (this.written.get(file) === text) return false;
    if (!this.ready) {
      await ensureDir(this.dir);
      this.ready = true;
    }
    // Not flushed to disk: the line is rewritten on the next build, and lost only with the machine.
    await writeAtomic(file, text, 0o600, false);
    this.written.delete(file);
    this.written.set(file, text);
    if (this.written.size > MAX_REMEMBERED) this.written.delete(this.written.keys().next().value as string);
    return true;
  }

  /** A session whose transcript is gone shows nothing any more. */
  async remove(key: string | null): Promise<void> {
    if (key === null || !STATUS_KEY_RE.test(key)) return;
    const file = join(this.dir, key);
    this.written.delete(file);
    await removeFile(file);
  }

  /** Removes the files of sessions quiet for STALE_MS, and temp files of an interrupted write. */
  async sweep(nowMs = Date.now()): Promise<number> {
    let n = 0;
    for (const name of await listDir(this.dir)) {
      const file = join(this.dir, name);
      const st = await stat(file).catch(() => null);
      if (st === null || !st.isFile()) continue;
      if (STATUS_KEY_RE.test(name) && nowMs - st.mtimeMs <= STALE_MS) continue;
      await removeFile(file).catch(() => undefined);
      this.written.delete(file);
      n += 1;
    }
    return n;
  }
}
