import type { BuildResult, SessionChange } from '../engine/index.js';
import type { Parsed } from './args.js';
import { withDaemon } from './daemon-link.js';
import type { Io } from './io.js';
import { flushIndex, loadConfig, openWriter } from './store.js';

/**
 * retitle, rename, finalize, checkpoint: through the daemon's queue when it runs, else here.
 * Either way the same engine code makes the change.
 */
export async function updateSession(io: Io, args: Parsed, prefix: string, change: SessionChange): Promise<BuildResult> {
  const config = loadConfig(io, args);
  return withDaemon(
    config,
    async (c) => {
      const id = prefix;
      let r: Record<string, unknown>;
      if (change.history?.kind === 'finalize') r = await c.call('finalize', { id }, 0);
      else if (change.history?.kind === 'checkpoint') r = await c.call('checkpoint', { id, ...(change.history.note ? { note: change.history.note } : {}) }, 0);
      else r = await c.call('session.update', { id, ...(change.title === undefined ? {} : { title: change.title }), ...(change.project === undefined ? {} : { project: change.project }) }, 0);
      return r as unknown as BuildResult;
    },
    async () => {
      const { engine, writer } = await openWriter(io, config, `handoff ${change.history?.kind ?? (change.title !== undefined ? 'retitle' : 'rename')}`);
      try {
        const e = engine.index.resolve(prefix, config.root);
        const r = await engine.update(e.dir, change);
        await flushIndex(config, engine.index);
        return r;
      } finally {
        writer.release();
      }
    },
  );
}
