import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the installed package lives: schemas, the skill and the service templates ship with it. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_DIR = join(PACKAGE_ROOT, 'schemas');
export const CONFIG_SCHEMA_PATH = join(SCHEMA_DIR, 'handoff.config.schema.json');
export const CLI_PATH = join(PACKAGE_ROOT, 'dist', 'cli.js');

let version: string | null = null;
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
