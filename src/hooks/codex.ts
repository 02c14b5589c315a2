import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/**
 * What the installed Codex can do with hooks, by version. The version boundaries come from
 * Codex's release notes, pull requests and issues (docs/HOOKS.md lists the sources and what could
 * not be confirmed); when a boundary is uncertain the later version is taken, so that handoff never
 * writes an event an older Codex would reject.
 */

export interface CodexSupport {
  /** `codex --version`, or the one given with --codex-version; null when Codex was not found. */
  version: string | null;
  hooks: boolean;
  /** The `[features]` key that turns hooks on: `codex_hooks` before 0.129, `hooks` since. */
  featureKey: 'hooks' | 'codex_hooks';
  /** SessionStart sources this version sends. */
  sources: string[];
  preCompact: boolean;
  /** Whether a compaction is followed by SessionStart with source `compact` (context comes back). */
  compactSource: boolean;
  notes: string[];
}

/** Hooks (SessionStart, Stop) arrived in 0.114.0 behind `[features] codex_hooks = true`. */
const HOOKS_SINCE = [0, 114, 0];
const CLEAR_SINCE = [0, 120, 0];
const HOOKS_KEY_SINCE = [0, 129, 0];
/** PreCompact, and SessionStart with source `compact` after a compaction. */
const COMPACT_SINCE = [0, 139, 0];

export function parseVersion(text: string): number[] | null {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function atLeast(v: number[], min: number[]): boolean {
  for (let i = 0; i < 3; i += 1) if ((v[i] ?? 0) !== (min[i] ?? 0)) return (v[i] ?? 0) > (min[i] ?? 0);
  return true;
}

export function codexSupport(versionText: string | null): CodexSupport {
  const v = versionText === null ? null : parseVersion(versionText);
  if (v === null) {
    return {
      version: versionText,
      hooks: true,
      featureKey: 'hooks',
      sources: ['startup', 'resume', 'clear', 'compact'],
      preCompact: true,
      compactSource: true,
      notes: [`${versionText === null ? 'codex was not found on PATH' : `cannot read a version in "${versionText}"`}: installed for Codex 0.139 or later; give --codex-version if yours is older`],
    };
  }
  const version = v.join('.');
  if (!atLeast(v, HOOKS_SINCE)) {
    return { version, hooks: false, featureKey: 'codex_hooks', sources: [], preCompact: false, compactSource: false, notes: [`Codex ${version} has no hooks (they arrived in 0.114.0): upgrade Codex, or resume by hand with \`handoff resume --latest\``] };
  }
  const compact = atLeast(v, COMPACT_SINCE);
  const sources = ['startup', 'resume', ...(atLeast(v, CLEAR_SINCE) ? ['clear'] : []), ...(compact ? ['compact'] : [])];
  const notes: string[] = [];
  if (!compact) notes.push(`Codex ${version} runs no hook after a compaction, so the handoff cannot come back by itself then (Codex 0.139 and later can): upgrade Codex, or after a compaction tell the agent to run \`handoff resume --latest\``);
  return { version, hooks: true, featureKey: atLeast(v, HOOKS_KEY_SINCE) ? 'hooks' : 'codex_hooks', sources, preCompact: compact, compactSource: compact, notes };
}

/** `codex --version`, or null when there is no codex to ask. */
export function codexVersion(env: NodeJS.ProcessEnv, timeoutMs = 3000): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('codex', ['--version'], { env, timeout: timeoutMs, encoding: 'utf8' }, (err, stdout) => {
      resolve(err ? null : stdout.trim() || null);
    });
  });
}

/**
 * The `[features]` switch in Codex's config.toml, read line by line (a full TOML parser for one
 * key is not worth a dependency): true, false, or null when the file does not set it.
 */
export async function codexFeatureFlag(configToml: string): Promise<{ key: string; value: boolean } | null> {
  let text: string;
  try {
    text = await readFile(configToml, 'utf8');
  } catch {
    return null;
  }
  let table = '';
  let found: { key: string; value: boolean } | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header?.[1]) {
      table = header[1].trim();
      continue;
    }
    const kv = /^(hooks|codex_hooks)\s*=\s*(true|false)$/.exec(line);
    if (table === 'features' && kv?.[1]) found = { key: kv[1], value: kv[2] === 'true' };
    const dotted = /^features\.(hooks|codex_hooks)\s*=\s*(true|false)$/.exec(line);
    if (table === '' && dotted?.[1]) found = { key: dotted[1], value: dotted[2] === 'true' };
  }
  return found;
}
