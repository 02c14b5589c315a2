import type { EventName } from '../../control/protocol.js';
import { DaemonNotRunningError, EXIT } from '../../errors.js';
import { bool } from '../args.js';
import type { Command } from '../command.js';
import { renderEvent, renderStatus } from '../status-view.js';
import { helloDaemon } from '../daemon-link.js';
import { loadConfig } from '../store.js';

const WAIT_TIMEOUT_MS = 10 * 60_000;

export const statusCommand: Command = {
  name: 'status',
  maxArgs: 0,
  summary: 'ask the daemon what it is doing: sessions, pressure, lag, backfill, halted sessions',
  usage: 'handoff status [--wait] [--follow] [--json]',
  example: 'handoff status --follow',
  details: '--wait first waits until every watched transcript is read to its end (flush); --follow then prints\nrefreshes as they happen until Ctrl-C. Exit 6 when no daemon runs, or when it goes away while followed; 7 when one holds the store but answers nothing (stopped).',
  options: {
    wait: { type: 'boolean', description: 'wait until every transcript is read to its end, then report' },
    follow: { type: 'boolean', description: 'stream refreshes, pressure changes and errors as they happen' },
  },
  async run(io, args) {
    const config = loadConfig(io, args);
    const json = bool(args, 'json');
    // Where this process looks, or where the store's lock says its daemon listens (daemon-link.ts).
    // A daemon that is stopped (SIGSTOP) or whose thread is held accepts the connection and
    // answers nothing: asked first with a short wait, so `status` says so instead of hanging. One
    // that turns the connection away in a burst of clients is asked again.
    const { client } = await helloDaemon(config);
    try {
      if (bool(args, 'wait')) await client.call('flush', { timeout_ms: WAIT_TIMEOUT_MS }, WAIT_TIMEOUT_MS + 5000);
      if (!bool(args, 'follow')) {
        const s = await client.call('status');
        io.out(json ? JSON.stringify(s, null, 2) : renderStatus(io, s));
        return EXIT.OK;
      }
      client.onNotification((event: EventName, params) => {
        io.out(json ? JSON.stringify({ event, ...params }) : renderEvent(io, event, params));
      });
      const hello = await client.call('hello');
      const closed = new Promise<'closed'>((resolve) => client.onClose(() => resolve('closed')));
      await client.call('subscribe', {});
      io.err('following refreshes (Ctrl-C to stop)…');
      const how = await Promise.race([closed, io.interrupted.then(() => 'interrupted' as const)]);
      if (how === 'interrupted') return EXIT.OK;
      // The daemon went away (stopped, or killed): following is over, and the exit code says so.
      throw new DaemonNotRunningError(`the daemon (pid ${hello.pid}) went away: it closed the connection on ${config.socketPath}`, {
        hint: '`handoff status` tells whether one runs again; start it with `handoff daemon` (a service restarts on its own)',
        details: { socket: config.socketPath, pid: hello.pid },
      });
    } finally {
      client.close();
    }
  },
};
