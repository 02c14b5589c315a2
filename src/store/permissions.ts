import { shellWord } from '../core/harness/extract.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RESERVED_ROOT_NAMES } from './layout.js';

/**
 * A store quotes sessions verbatim (credentials redacted, the rest not): its files are created
 * 0600 and its folders 0700 whatever the mode of the folder they go into. A store folder that
 * already existed open to other users is reported with the fix, never changed behind the
 * user's back.
 */

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
/** History copies: private and read-only. */
export const HISTORY_MODE = 0o400;

export interface Exposure {
  path: string;
  mode: number;
  message: string;
  fix: string;
}

/** The store root or its projects/ folder when group or others may enter or read it; else null. */
export function storeExposure(root: string): Exposure | null {
  for (const path of [root, join(root, 'projects')]) {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) {
      return {
        path,
        mode,
        message: `${path} is open to other users (mode ${mode.toString(8).padStart(3, '0')}): they can read what the handoffs quote of your sessions`,
        // Quoted: a root with a space would otherwise make the pasted command change other paths.
        fix: storeOwnsFolder(root) ? `chmod -R go-rwx ${shellWord(root)}` : `give the store a folder of its own (--root, HANDOFFS_ROOT or storage.path, e.g. ~/.handoffs): ${root} is not one (it holds other files, or is not a folder), and changing its mode is not the store's to advise`,
      };
    }
  }
  return null;
}

/**
 * Whether the root is a folder holding nothing but the store (so closing it to others is safe
 * advice): `chmod -R` on `/`, a home folder or `/dev/null` given as a root would break the system.
 */
function storeOwnsFolder(root: string): boolean {
  try {
    return readdirSync(root).every((n) => RESERVED_ROOT_NAMES.has(n) || n === 'handoff.config.json' || n.startsWith('.handoff'));
  } catch {
    return false;
  }
}
