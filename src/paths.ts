import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the installed package lives: schemas, the skill and the service templates ship with it.
 * Found by walking up from this module (dist/, src/ under vitest, or .bench/src/) to the folder
 * that holds our package.json and schemas/.
 */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'schemas'))) return dir;
    const up = dirname(dir);
    if (up === dir) return join(dirname(fileURLToPath(import.meta.url)), '..');
    dir = up;
  }
}

export const PACKAGE_ROOT = packageRoot();
export const SCHEMA_DIR = join(PACKAGE_ROOT, 'schemas');
export const CONFIG_SCHEMA_PATH = join(SCHEMA_DIR, 'handoff.config.schema.json');
export const CLI_PATH = join(PACKAGE_ROOT, 'dist', 'cli.js');
/** Claude Code's status line in POSIX sh (see docs/HOOKS.md). */
export const STATUSLINE_SCRIPT = join(PACKAGE_ROOT, 'hooks', 'handoff-statusline.sh');

let version: string | null = null;
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
