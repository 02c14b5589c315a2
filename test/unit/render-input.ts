import { resolveConfig } from '../../src/config.js';
import { gitUnavailable } from '../../src/core/evidence.js';
import { computePressure } from '../../src/core/pressure.js';
import type { RenderInput } from '../../src/core/render/input.js';
import { ingestFile } from './ingest-helper.js';

const config = resolveConfig({ cwd: '/nonexistent', env: { HOME: '/nonexistent-home' } });

/** What a build would hand the renders for a transcript folded by the pure core, with no store and no repository. */
export function renderInput(path: string): RenderInput {
  const { state } = ingestFile(path);
  return {
    session: 'test-session',
    uuid: null,
    harness: state.harness ?? 'claude',
    project: 'test',
    chainId: '0123456789abcdef0123456789abcdef',
    title: state.meta.title ?? null,
    createdAt: '2026-01-01T00:00:00.000Z',
    generatedAt: '2026-01-01T00:00:01.000Z',
    revision: 3,
    root: '/store',
    dir: '/store/projects/test/test-session',
    sources: [{ path, offset: 1, size: 1 }],
    rawSha256: 'a'.repeat(64),
    manifestSha256: 'b'.repeat(64),
    git: gitUnavailable('no-cwd', 'the transcript names no folder', null, null),
    pressure: computePressure(state, config.pressure),
    contract: null,
    parentSession: null,
    childSessions: [],
    redactions: state.redactions,
    history: [],
    state,
  };
}

