import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ResolvedConfig } from '../config.js';
import { homeDir } from '../config.js';
import { callDaemon } from '../control/client.js';
import { MAX_SOCKET_PATH_BYTES } from '../control/socket-path.js';
import { DaemonNotRunningError } from '../errors.js';
import { isTranscript } from '../watch/scan.js';
import type { Facts } from './checks.js';

/** The facts `handoff doctor` judges, read from this machine. */

const REQUIRED_NODE = '20.19.0';
const COUNT_LIMIT = 200_000;

async function countTree(root: string): Promise<{ transcripts: number; folders: number }> {
  let transcripts = 0;
  let folders = 0;
  const walk = async (dir: string): Promise<void> => {
    if (transcripts + folders > COUNT_LIMIT) return;
    folders += 1;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) await walk(join(dir, e.name));
      else if (isTranscript(e.name)) transcripts += 1;
    }
  };
  await walk(root);
  return { transcripts, folders };
}

function readNumber(path: string): number | null {
  try {
    const n = Number(readFileSync(path, 'utf8').trim());
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function claudeSettings(env: NodeJS.ProcessEnv): Facts['claude'] {
  const dirs = (env.CLAUDE_CONFIG_DIR ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (dirs.length === 0) dirs.push(join(homeDir(env), '.claude'));
  return dirs.map((d) => {
    const settings = join(d, 'settings.json');
    if (!existsSync(settings)) return { settings, cleanupPeriodDays: null, exists: false };
    try {
      const v = (JSON.parse(readFileSync(settings, 'utf8')) as { cleanupPeriodDays?: unknown }).cleanupPeriodDays;
      return { settings, cleanupPeriodDays: typeof v === 'number' ? v : null, exists: true };
    } catch {
      return { settings, cleanupPeriodDays: null, exists: true };
    }
  });
}

export async function gatherFacts(
  config: ResolvedConfig | null,
  configError: string | null,
  env: NodeJS.ProcessEnv,
  service: () => Promise<Facts['service']>,
  hooks: () => Promise<Facts['hooks']> = async () => [],
  configHint: string | null = null,
): Promise<Facts> {
  const root = config?.root ?? join(homeDir(env), '.handoffs');
  let mode: number | null = null;
  let exists = false;
  try {
    mode = statSync(root).mode;
    exists = true;
  } catch {
    // not created yet
  }
  const watch: Facts['watch'] = [];
  for (const path of config?.watchPaths ?? []) {
    if (existsSync(path)) watch.push({ path, exists: true, ...(await countTree(path)) });
    else watch.push({ path, exists: false, transcripts: 0, folders: 0 });
  }
  const maxWatches = readNumber('/proc/sys/fs/inotify/max_user_watches');
  const maxInstances = readNumber('/proc/sys/fs/inotify/max_user_instances');
  const socketPath = config?.socketPath ?? join(root, '.handoffd', 'handoffd.sock');
  let daemon: Facts['daemon'] = { running: false };
  try {
    const hello = await callDaemon(socketPath, 'hello', undefined, 3000);
    const status = await callDaemon(socketPath, 'status', undefined, 5000);
    daemon = { running: true, pid: hello.pid, version: hello.version, files: status.files };
  } catch (e) {
    daemon = e instanceof DaemonNotRunningError ? { running: false } : { running: false, error: (e as Error).message };
  }
  return {
    node: { version: process.versions.node, required: REQUIRED_NODE },
    config: { file: config?.file ?? null, error: configError, hint: configHint },
    store: { root, exists, writable: exists && writable(root), mode, parentWritable: writable(existsSync(dirname(root)) ? dirname(root) : homeDir(env)) },
    socket: { path: socketPath, bytes: Buffer.byteLength(socketPath), limit: MAX_SOCKET_PATH_BYTES },
    watch,
    inotify: maxWatches !== null && maxInstances !== null ? { maxUserWatches: maxWatches, maxUserInstances: maxInstances } : null,
    daemon,
    service: await service(),
    claude: claudeSettings(env),
    hooks: await hooks(),
  };
}
