import { readFileSync } from 'node:fs';

/**
 * Descriptors kept free of socket clients: builds (a transcript, a temp file, an append), the
 * watcher, the log and the lock need them, and a build that hits EMFILE fails. So does a build
 * worker's start: it reads its modules, many at once. Under `ulimit -n 128` with every connection
 * taken, a worker started with 64 kept failed with EMFILE and one with 72 did not (the graph grows
 * with the code): 96 leaves room.
 */
export const FD_RESERVE = 96;

/** The soft open-file limit of this process (Linux: /proc/self/limits), or null where unknown. */
export function openFileLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    if (soft === undefined) return null;
    return soft === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(soft);
  } catch {
    return null;
  }
}

/** daemon.max_connections, lowered when the open-file limit leaves too few descriptors. */
export function connectionCap(configured: number, limit = openFileLimit()): { max: number; lowered: boolean } {
  if (limit === null || !Number.isFinite(limit)) return { max: configured, lowered: false };
  const room = Math.max(4, limit - FD_RESERVE);
  return room < configured ? { max: room, lowered: true } : { max: configured, lowered: false };
}
