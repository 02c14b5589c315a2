/** Names that become paths: session directories and project folders (SPEC §3). */

import { sha256Hex } from './canonical.js';

const RESERVED = new Set(['.', '..', '']);
const MAX_NAME_BYTES = 200;

/** Session directory name: every character outside [\w.-] becomes `_`; never `.`/`..`. */
export function sessionDirName(id: string): string {
  let name = id.replace(/[^\w.-]/g, '_');
  if (RESERVED.has(name) || /^\.+$/.test(name)) name = `_${name}`;
  if (name.length > MAX_NAME_BYTES) name = name.slice(0, MAX_NAME_BYTES);
  return name;
}

/** Project slug: lower case, runs of other characters become `-`, never empty or a dot name. */
export function slugify(name: string, fallback = 'unsorted'): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 100);
  return s.length === 0 || RESERVED.has(s) ? fallback : s;
}

/**
 * The slug of a name, redacted by `clean` before and after: lower-casing and joining runs of other
 * characters with `-` may form a credential the name's own characters did not ("deepseek sk 9f3a…"
 * → `deepseek-sk-9f3a…`, a full-width `ｋｅｙ－…` → `key-…`). Such a slug is the redacted one, told
 * apart from others by a short hash of what it was.
 */
export function safeSlug(name: string, clean: (text: string) => string, fallback?: string): string {
  const s = slugify(clean(name), fallback);
  const again = clean(s);
  return again === s ? s : slugify(`${again}-${sha256Hex(s).slice(0, 8)}`, fallback);
}

/** The session id of a subagent file: `<parent id>.<file stem>`. */
export function subagentSessionId(parentId: string, stem: string): string {
  return `${parentId}.${stem}`;
}

/** File name without its `.jsonl`/`.txt`/`.md` extension. */
export function fileStem(fileName: string): string {
  return fileName.replace(/\.(jsonl|txt|md)$/i, '');
}

/** A directory name inside the project folder that cannot escape it. */
export function isSafeDirName(name: string): boolean {
  return name.length > 0 && !name.includes('/') && !name.includes('\\') && !name.includes('\0') && !RESERVED.has(name) && !/^\.+$/.test(name);
}
