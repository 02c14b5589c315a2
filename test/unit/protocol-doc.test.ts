import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, MAX_REQUEST_BYTES, METHOD_NAMES, PROTOCOL_FIELDS, RPC_ERRORS, SESSION_STATES } from '../../src/control/protocol.js';
import { ROOT } from '../helpers.js';

/**
 * docs/PROTOCOL.md is for people writing clients; src/control/protocol.ts is the truth. This
 * keeps the doc's method list, every field table and the error codes equal to the module's.
 * A table that lists fields follows a `<!-- fields: NAME -->` marker; its first column names the
 * fields in backticks.
 */

const doc = readFileSync(join(ROOT, 'docs', 'PROTOCOL.md'), 'utf8');

/** The rows of the Markdown table that follows `<!-- fields: name -->`. */
function table(name: string): string[][] {
  const at = doc.indexOf(`<!-- fields: ${name} -->`);
  if (at === -1) throw new Error(`docs/PROTOCOL.md has no <!-- fields: ${name} --> marker`);
  const rows: string[][] = [];
  for (const line of doc.slice(at).split('\n').slice(1)) {
    if (line.trim() === '' && rows.length === 0) continue;
    if (!line.startsWith('|')) break;
    if (/^\|[-| ]+\|$/.test(line)) continue;
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
  }
  return rows.slice(1); // the header
}

const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
const names = (name: string): string[] => table(name).flatMap((r) => ticked(r[0] ?? '')).sort();
const sorted = (xs: readonly string[]): string[] => [...xs].sort();

/** The top-level keys of a `{a, b: {c}, d?}` shape. */
function shapeKeys(text: string): string[] {
  const inner = /`\{(.*)\}`/.exec(text)?.[1] ?? '';
  let depth = 0;
  let flat = '';
  for (const ch of inner) {
    if (ch === '{') depth += 1;
    else if (ch === '}') depth -= 1;
    else if (depth === 0) flat += ch;
  }
  return flat
    .split(',')
    .map((k) => k.replace(/[:?].*$/, '').trim())
    .filter((k) => k.length > 0)
    .sort();
}

describe('docs/PROTOCOL.md', () => {
  it('lists exactly the methods of the protocol module', () => {
    expect(names('methods')).toEqual(sorted(METHOD_NAMES));
  });

  for (const group of ['hello', 'status', 'watch', 'backfill', 'errors', 'memory', 'event_loop', 'connections', 'session', 'sessionError'] as const) {
    it(`names exactly the fields of ${group}`, () => {
      expect(names(group)).toEqual(sorted(PROTOCOL_FIELDS[group]));
    });
  }

  it('names every session state', () => {
    expect(names('states')).toEqual(sorted(SESSION_STATES));
  });

  it('lists every notification with exactly its params', () => {
    const rows = table('events');
    expect(rows.map((r) => ticked(r[0] ?? '')[0]).sort()).toEqual(sorted(EVENT_NAMES));
    for (const r of rows) {
      const event = ticked(r[0] ?? '')[0] as keyof typeof PROTOCOL_FIELDS.events;
      expect(shapeKeys(r[1] ?? ''), event).toEqual(sorted(PROTOCOL_FIELDS.events[event]));
    }
  });

  it('lists every JSON-RPC error code the daemon sends', () => {
    expect(
      table('rpc-errors')
        .map((r) => Number(ticked(r[0] ?? '')[0]))
        .sort(),
    ).toEqual(Object.values(RPC_ERRORS).sort());
  });

  it('states the request size limit, and that the request timer starts at the first byte of a line', () => {
    expect(doc).toContain(`${MAX_REQUEST_BYTES.toLocaleString('en-US')} bytes`);
    expect(doc).not.toMatch(/timer restarts/);
    expect(doc).toMatch(/from the first byte of the line/);
  });

  it('names the socket of a store other than the default under XDG_RUNTIME_DIR', () => {
    expect(doc).toMatch(/handoffd-<12 hex digits of sha256\(root\)>\.sock/);
  });
});
