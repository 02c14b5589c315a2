/**
 * Background jobs: a command started in the background or under a monitor keeps running while the
 * agent works, and its progress arrives as notifications. A successor must know which jobs are
 * still running, what they run, and the last progress they reported (with its line). Pure parsing.
 */

export const JOB_LIMITS = { JOBS: 30, COMMAND_CHARS: 300, EVENT_CHARS: 240 } as const;

export interface Job {
  id: string;
  /** The line of the call that started it. */
  line: number;
  tool: string;
  command: string;
  description?: string;
  /** `ended`: it stopped running, how is not recorded (a Codex session that answered a poll without an exit code). */
  status: 'running' | 'completed' | 'failed' | 'stopped' | 'ended';
  endLine?: number;
  lastEvent?: { line: number; text: string };
  /** A foreground shell Claude Code moved to the background when it outlived its call ("Command running in background with ID"). */
  moved?: true;
  /** When a Claude Code Monitor stops on its own: its start's time plus the timeout its result gave ("timeout 900000ms"). */
  timeoutAt?: string;
  /**
   * The line of the session's own kill by name of it (`pkill -f fetch.py`) before its end: a job
   * that "failed with exit code 144" then was stopped, not failed (posthog at 162).
   */
  killedAt?: number;
}

/** A job that ended (how is not recorded) on a line of output that is an error: a Codex session's last poll printed it (edgerunner at 399: «Error: Operation not permitted (os error 1)»). */
export function endedOnError(j: Job): boolean {
  return j.status === 'ended' && j.lastEvent !== undefined && ERROR_END.test(j.lastEvent.text);
}

/**
 * A last line that says the command failed: an error, a build that failed, a host the network could
 * not resolve (edgerunner at 420: cargo's «warning: build failed, waiting for other jobs to finish»
 * and curl's «[6] Couldn't resolve host name», beside «Error: Operation not permitted»).
 */
const ERROR_END = /^\s*Error\b|\berror(?:\[\w+\])?:|\bbuild failed\b|\bCould(?:n't| not) resolve host\b/;

/** The id a harness gives a job it started: "running in background with ID: x", "Monitor started (task x". */
export function startedJobId(output: string): string | null {
  const m = /\bin background with ID:\s*([\w-]{2,64})|\bMonitor started \(task ([\w-]{2,64})/.exec(output);
  return m?.[1] ?? m?.[2] ?? runningSession(output);
}

/**
 * The session of a Codex command still running when its call (or a poll of it) answered: the
 * header's "Process running with session ID N", or code mode's `SESSION_ID=N`, which its script
 * prints last when the command has not exited.
 */
export function runningSession(output: string): string | null {
  const m = /^Process running with session ID (\d{1,12})$/m.exec(output.slice(0, 400)) ?? /(?:^|\n)SESSION_ID=(\d{1,12})\s*$/.exec(output.slice(-40));
  return m?.[1] ?? null;
}

/** A Codex session's exit: "Process exited with code N" in its answer's header. */
export function sessionExit(output: string): number | null {
  const m = /^Process exited with code (-?\d{1,4})$/m.exec(output.slice(0, 400));
  return m?.[1] === undefined ? null : Number(m[1]);
}

/** The last line of a command's output with words in it, as a job's latest progress. */
export function lastOutputLine(output: string): string | null {
  const lines = output.replace(/\r/g, '\n').split('\n');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const t = (lines[i] as string).replace(/\s+/g, ' ').trim();
    if (/[\p{L}\p{N}]/u.test(t) && !/^SESSION_ID=\d+$/.test(t) && !/^(?:Script completed|Wall time|Output:|Chunk ID|Original token count|Process (?:running|exited))\b/.test(t)) return t.length <= JOB_LIMITS.EVENT_CHARS ? t : `${t.slice(0, JOB_LIMITS.EVENT_CHARS - 1)}…`;
  }
  return null;
}

/** The key a shell moved to the background is followed by in the ledger's `cells` (which Codex code mode's cells share). */
export const shellCell = (shellId: string): string => `shell:${shellId}`;

/** A job a stop call ended: "Successfully stopped task: x", "Successfully killed shell: x". */
export function stoppedJobId(output: string): string | null {
  return /\bSuccessfully (?:stopped task|killed shell):?\s*([\w-]{2,64})/.exec(output)?.[1] ?? null;
}

export interface JobNotice {
  id: string;
  status?: Job['status'];
  text?: string;
}

const tag = (block: string, name: string): string | undefined => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(block)?.[1]?.trim();
const unescape = (s: string): string => s.replace(/&gt;/g, '>').replace(/&lt;/g, '<').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

/** A notice's opening tag and its task id: what is left of a notice cut before its end. */
const NOTICE_HEAD = /^\s*<task-notification>\s*<task-id>([^<\s]{1,80})<\/task-id>/;

/**
 * The job a text that is a notice (it starts with `<task-notification>`) is about, also when the
 * text was cut before the notice's closing tag (the window keeps a turn's head only); else null.
 */
export function noticeJobId(text: string): string | null {
  if (!text.trimStart().startsWith('<task-notification>')) return null;
  return jobNotices(text)[0]?.id ?? NOTICE_HEAD.exec(text)?.[1] ?? null;
}

/** Every `<task-notification>` block in a text: the job, its new status and what it reported. */
export function jobNotices(text: string): JobNotice[] {
  const out: JobNotice[] = [];
  for (const m of text.matchAll(/<task-notification>([\s\S]*?)<\/task-notification>/g)) {
    const block = m[1] ?? '';
    const id = tag(block, 'task-id');
    if (id === undefined) continue;
    const n: JobNotice = { id };
    const status = tag(block, 'status');
    if (status === 'completed') n.status = 'completed';
    else if (status === 'failed' || status === 'killed') n.status = status === 'killed' ? 'stopped' : 'failed';
    const said = tag(block, 'event') ?? tag(block, 'summary');
    if (said !== undefined && said.length > 0) {
      const t = unescape(said).replace(/\s+/g, ' ').trim();
      n.text = t.length <= JOB_LIMITS.EVENT_CHARS ? t : `${t.slice(0, JOB_LIMITS.EVENT_CHARS - 1)}…`;
    }
    out.push(n);
  }
  return out;
}

/** Two commands that start one program the same way (their first five words): a restart, whatever flags follow. */
export function sameProgram(a: string, b: string): boolean {
  const head = (c: string): string => c.trim().split(/\s+/).slice(0, 5).join(' ');
  return head(a) === head(b);
}
