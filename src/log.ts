import { pino } from 'pino';
import type { Logger } from 'pino';
import pretty from 'pino-pretty';

/** The daemon's logs: pino JSON lines on stdout; human-readable on a terminal or with --pretty. */
export function createLogger(opts: { level: string; pretty: boolean; destination?: NodeJS.WritableStream }): Logger {
  const base = { level: opts.level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime };
  if (opts.pretty) {
    // One readable line per event: every message already says what its fields hold.
    const stream = pretty({ colorize: process.stdout.isTTY === true && !process.env.NO_COLOR, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', hideObject: true, sync: true, ...(opts.destination ? { destination: opts.destination } : {}) });
    return pino(base, stream);
  }
  return pino(base, (opts.destination ?? process.stdout) as pino.DestinationStream);
}

export type { Logger };
