import { escapeControls } from '../core/control-chars.js';
import type { PressureLevel } from '../core/pressure.js';
import type { Io } from './io.js';
import { paint } from './io.js';

/** Terminal formatting: relative times, pressure colours, tables that fit the width. */

export function ago(iso: string | null | undefined, now: Date): string {
  if (!iso) return '-';
  const s = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  if (!Number.isFinite(s)) return '-';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1 << 30) return `${(n / (1 << 20)).toFixed(1)} MB`;
  return `${(n / (1 << 30)).toFixed(2)} GB`;
}

const PRESSURE_COLOUR = { green: 'green', yellow: 'yellow', orange: 'magenta', red: 'red', unknown: 'gray' } as const;

export function pressureCell(io: Pick<Io, 'color'>, level: PressureLevel, ratio?: number | null): string {
  const text = ratio === null || ratio === undefined ? level : `${level} ${Math.round(ratio * 100)}%`;
  return paint(io, PRESSURE_COLOUR[level], text);
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
export const visible = (s: string): number => s.replace(ANSI, '').length;

function clip(s: string, width: number): string {
  if (visible(s) <= width) return s;
  const plain = s.replace(ANSI, '');
  return `${plain.slice(0, Math.max(1, width - 1))}…`;
}

/**
 * A table that fits `columns`: when it is too wide, the columns listed in `shrink` (by index,
 * first listed shrinks first) are clipped with an ellipsis, none below its `minWidths` entry
 * (8 when not given). A table that still does not fit is printed wider than the terminal rather
 * than cut below those widths: an id cut short would name the wrong session.
 */
export function fitTable(header: readonly string[], rows: readonly (readonly string[])[], columns: number, shrink: readonly number[], minWidths: readonly (number | undefined)[] = []): string {
  const widths = header.map((h, i) => Math.max(visible(h), ...rows.map((r) => visible(r[i] ?? ''))));
  const total = (): number => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  for (const i of shrink) {
    const over = total() - columns;
    if (over <= 0) break;
    const w = widths[i] ?? 0;
    widths[i] = Math.max(Math.min(w, Math.max(minWidths[i] ?? 8, visible(header[i] ?? ''))), w - over);
  }
  const render = (cells: readonly string[]): string =>
    cells
      .map((c, i) => {
        const w = widths[i] ?? 0;
        const t = clip(c, w);
        return i === cells.length - 1 ? t : t + ' '.repeat(Math.max(0, w - visible(t)));
      })
      .join('  ');
  return [render(header), ...rows.map(render)].join('\n');
}

/** A title is what tells a retitled session apart at a glance: it keeps this much of its width. */
export const TITLE_MIN_WIDTH = 20;

/**
 * Session ids as `status` and `list` show them: each at least as long as the shortest prefix
 * that names it alone among `all` (git-style), so a clipped id is still one `handoff show` takes.
 * Returns the ids (control characters made visible) and the narrowest the column may get.
 */
export function idColumn(ids: readonly string[], unique: ReadonlyMap<string, string>): { cells: string[]; minWidth: number } {
  let minWidth = 8;
  const cells = ids.map((id) => {
    const shown = escapeControls(id);
    const u = escapeControls(unique.get(id) ?? id);
    minWidth = Math.max(minWidth, u.length < shown.length ? u.length + 1 : shown.length);
    return shown;
  });
  return { cells, minWidth };
}
