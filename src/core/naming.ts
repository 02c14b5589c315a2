/** Names that become paths: session directories and project folders (SPEC §3). */

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
