/** Small, safe Markdown builders: fences that cannot be closed by their content, table cells. */

export function fence(text: string, info = 'text'): string {
  let longest = 0;
  // Only a run of three or more backticks can close a fence: most text has none.
  if (text.includes('```')) for (const m of text.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  const ticks = '`'.repeat(Math.max(3, longest + 1));
  return `${ticks}${info}\n${text}\n${ticks}`;
}

/** One table cell: single line, pipes escaped, bounded. */
export function cell(text: string, max = 200): string {
  let s = text.replace(/\r?\n/g, ' ⏎ ').replace(/\s+/g, ' ').trim();
  if (s.length > max) s = `${s.slice(0, max - 1)}…`;
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

/**
 * Inline code that survives backticks inside. Its text is as written, pipes too: a command a
 * reader copies from a sentence must run as it ran (`rg "a|b"`, not `rg "a\|b"`). In a table
 * row, `inCell` escapes them.
 */
export function code(text: string, max = 200): string {
  let s = text.replace(/\r?\n/g, ' ⏎ ').trim();
  if (s.length > max) s = `${s.slice(0, max - 1)}…`;
  let longest = 0;
  for (const m of s.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const ticks = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${s}${pad}${ticks}`;
}

/**
 * Markdown (inline code, a path) put in a table row: a pipe would end the cell, so each is escaped,
 * inside code spans too (GitHub's tables read `\|` as `|` there). Not for `cell`'s output, which is escaped already.
 */
export function inCell(md: string): string {
  return md.replace(/\|/g, '\\|');
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

export function bullets(items: readonly string[]): string {
  return items.map((i) => `- ${i.replace(/\r?\n/g, ' ')}`).join('\n');
}

/** A YAML scalar: JSON strings, numbers, booleans and null are valid YAML 1.2 as written. */
export function yamlValue(v: string | number | boolean | null): string {
  if (v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return /^[A-Za-z0-9_./:@+-]+$/.test(v) && !/^(true|false|null|yes|no|on|off|~|[-+]?[\d.]+(e[-+]?\d+)?)$/i.test(v) && !v.includes(': ')
    ? v
    : JSON.stringify(v);
}
