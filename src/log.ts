import { pino } from 'pino';
import type { Logger } from 'pino';
import pretty from 'pino-pretty';

/**
 * The daemon's logs: pino JSON lines on stdout; human-readable on a terminal or with --pretty.
 * Every record passes `redact` as the JSON line pino wrote, before any sink (or the pretty
 * printer) sees it: a credential quoted in an error, a path or a field never reaches the log.
 */
export function createLogger(opts: { level: string; pretty: boolean; destination?: NodeJS.WritableStream; redact?: (jsonLine: string) => string }): Logger {
  const base = { level: opts.level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime };
  const sink = (s: NodeJS.WritableStream): pino.DestinationStream => {
    const redact = opts.redact;
    return redact ? { write: (line: string) => void s.write(redact(line)) } : (s as pino.DestinationStream);
  };
  if (opts.pretty) {
    // One readable line per event: every message already says what its fields hold.
    const stream = pretty({ colorize: process.stdout.isTTY === true && !process.env.NO_COLOR, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', hideObject: true, sync: true, ...(opts.destination ? { destination: opts.destination } : {}) });
    return pino(base, sink(stream));
  }
  return pino(base, sink(opts.destination ?? process.stdout));
}

export type { Logger };
