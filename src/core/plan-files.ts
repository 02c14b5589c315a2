/**
 * The files a plan says it will change: the items of its "Files to Modify" section (or "Files to
 * change", "Critical files", "Files"), each the first path an item names. A plan that names its
 * files this way sets out what the work is; one of them the session never wrote is work left
 * undone, or dropped without a word (deep-manifest's approved plan listed README.md and an
 * integration test, and neither was written).
 */

/** A Markdown code fence's line (```` ``` ```` or `~~~`), which opens or closes a block. */
const FENCE = /^ {0,3}(?:```|~~~)/;

/** A plan's lines outside its code blocks (the fences' own lines left out), each with its offset in the text. */
export function* linesOutsideFences(text: string): Generator<{ line: string; at: number }> {
  let fenced = false;
  let at = 0;
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) fenced = !fenced;
    else if (!fenced) yield { line, at };
    at += line.length + 1;
  }
}

/**
 * The Markdown headings of a plan from offset `from` on, outside its code blocks (the first 20,
 * each to 100 characters): of a plan cut to its head, the steps only the transcript holds
 * (deep-manifest at 120: «### 8. Update `process_input()`», the step in progress). A line begun
 * before `from` is the head's.
 */
export function headingsFrom(text: string, from: number): string[] {
  const out: string[] = [];
  for (const { line, at } of linesOutsideFences(text)) {
    if (at < from || !/^#{1,6}[ \t]+\S/.test(line)) continue;
    const h = line.trim();
    out.push(h.length <= 100 ? h : `${h.slice(0, 99)}…`);
    if (out.length === 20) break;
  }
  return out;
}

/** A heading (`## Files to Modify`, `**Files to change:**`) that opens a list of the files a plan will touch. */
const FILES_HEADING = /^(?:#{1,6}\s+|\*\*|__)?\s*(?:\d+\.\s*)?(?:(?:critical|key|affected|modified|changed|new)\s+)?files?\b(?:\s+(?:to|that\s+will|we\s+will|I\s+will)\s+(?:be\s+)?(?:modify|modified|change|changed|create|created|edit|edited|update|updated|touch|touched|add|added))?(?:\s*\([^)]*\))?\s*:?\s*(?:\*\*|__)?\s*:?\s*$/i;
const HEADING = /^(?:#{1,6}\s+\S|\*\*[^*]+\*\*\s*:?\s*$|__[^_]+__\s*:?\s*$)/;
const ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;
/** A token that names a file: a path with a slash, or a name with an extension (`README.md`). */
const PATH = /^(?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.[\]-]+)*\.[A-Za-z0-9]{1,10}$|^(?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.[\]-]+)+\/?$/;
const MAX_FILES = 40;
/** An item the plan makes conditional on the file being there, or optional. */
const CONDITIONAL = /\((?:only\s+)?if\s+(?:it\s+)?(?:exists|present|any|there|needed)\)|\(optional\)/i;

/**
 * `files`: what the plan will change; `conditional`: the files it touches only if they exist, or
 * as optional (`deep_manifest.md` - update the spec (if exists)), kept apart: no work left.
 */
export function planFiles(text: string): { files: string[]; conditional: string[] } {
  const out: string[] = [];
  const conditional: string[] = [];
  let inFiles = false;
  for (const { line: raw } of linesOutsideFences(text)) {
    const line = raw.trimEnd();
    if (FILES_HEADING.test(line.trim())) {
      inFiles = true;
      continue;
    }
    if (HEADING.test(line.trim())) {
      inFiles = false;
      continue;
    }
    if (!inFiles) continue;
    const item = ITEM.exec(line);
    if (item === null) continue;
    const body = item[1] as string;
    const ticked = /`([^`\n]{1,300})`/.exec(body)?.[1];
    const first = (ticked ?? body.split(/\s+/)[0] ?? '').replace(/^\*\*|\*\*$/g, '').replace(/[:,]$/, '').trim();
    if (!PATH.test(first) || /^https?:/i.test(first)) continue;
    // A file the plan touches only if it is there (`deep_manifest.md` - update the spec (if exists)):
    // not written, it may not exist; no work left is read from it, but it is counted apart.
    const into = CONDITIONAL.test(body) ? conditional : out;
    if (!into.includes(first)) into.push(first);
    if (out.length >= MAX_FILES) break;
  }
  return { files: out, conditional: conditional.slice(0, MAX_FILES) };
}

/** Of the files a plan names, those the session never wrote (matched by the path's tail: a plan names them from the repository's root). */
export function notWritten(files: readonly string[], written: readonly string[]): string[] {
  const slash = (p: string): string => p.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/$/, '');
  const paths = written.map(slash);
  return files.filter((f) => {
    const name = slash(f);
    // A name without an extension may be a folder (`tests/e2e`): any file under it counts.
    const folder = f.endsWith('/') || !/\.[A-Za-z0-9]{1,10}$/.test(name);
    return !paths.some((p) => p === name || p.endsWith(`/${name}`) || (folder && (p.startsWith(`${name}/`) || p.includes(`/${name}/`))));
  });
}
