import { isAbsolute, resolve } from 'node:path';

/**
 * What a harness sends a hook on stdin (Claude Code and Codex share these names; docs/HOOKS.md
 * lists the versions they were checked against). Every field is optional here: a hook run by
 * hand, or by a harness version that renamed a field, still gets an answer.
 */
export interface HookInput {
  sessionId: string | null;
  transcriptPath: string | null;
  cwd: string | null;
  /** SessionStart: startup, resume, clear or compact. */
  source: string | null;
  /** PreCompact: manual or auto. */
  trigger: string | null;
  hookEventName: string | null;
  /** Whether stdin held a JSON object. */
  parsed: boolean;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

export function parseHookInput(raw: string, fallbackCwd: string): HookInput {
  let v: unknown = null;
  try {
    v = raw.trim().length > 0 ? JSON.parse(raw) : null;
  } catch {
    v = null;
  }
  const o = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  // The status line's input nests the folders under `workspace`.
  const workspace = typeof o.workspace === 'object' && o.workspace !== null ? (o.workspace as Record<string, unknown>) : {};
  const cwd = text(o.cwd) ?? text(workspace.current_dir) ?? null;
  const transcript = text(o.transcript_path);
  const base = cwd ?? fallbackCwd;
  return {
    sessionId: text(o.session_id),
    transcriptPath: transcript === null ? null : isAbsolute(transcript) ? transcript : resolve(base, transcript),
    cwd,
    source: text(o.source),
    trigger: text(o.trigger),
    hookEventName: text(o.hook_event_name),
    parsed: typeof v === 'object' && v !== null && !Array.isArray(v),
  };
}

/** Reads stdin to its end, or gives up at the deadline (a terminal, or a harness that never closes it). */
export function readStdin(stream: NodeJS.ReadStream, timeoutMs: number): Promise<string> {
  if (stream.isTTY) return Promise.resolve('');
  return new Promise((done) => {
    let data = '';
    let ended = false;
    const finish = (): void => {
      clearTimeout(timer);
      stream.removeAllListeners('data');
      // A stdin left open would keep the process alive after the answer is printed.
      if (!ended) stream.destroy();
      done(data);
    };
    const timer = setTimeout(finish, Math.max(0, timeoutMs));
    timer.unref();
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (data += d));
    stream.once('end', () => {
      ended = true;
      finish();
    });
    stream.once('error', finish);
  });
}
