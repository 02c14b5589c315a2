import { isMainThread } from 'node:worker_threads';

/**
 * Crash points for the crash-safety tests. When HANDOFF_CRASH_AT names a point, the process
 * sends itself a real SIGKILL there — the one place outside the CLI and the signal path that
 * ends the process, and only ever under that test-only variable. HANDOFF_WORKER_EXIT_AT does
 * the same to a build worker alone (pool.ts): the thread ends there, the process carries on.
 */

export const CRASH_POINTS = [
  'after-cutback',
  'mid-append',
  'after-append',
  'after-state',
  'after-renders',
  'after-manifest',
  'after-reset-copy',
  'after-change-marker',
  'after-move',
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];

const AT = process.env.HANDOFF_CRASH_AT;
const WORKER_AT = isMainThread ? undefined : process.env.HANDOFF_WORKER_EXIT_AT;

export function crashPoint(name: CrashPoint): void {
  if (AT === name) process.kill(process.pid, 'SIGKILL');
  // In a worker thread, process.exit ends that thread only.
  if (WORKER_AT === name) process.exit(70);
}
