import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { HandoffError } from '../../src/errors.js';
import { CorruptLineError, ERROR_CLASSES, EXIT } from '../../src/errors.js';

/** STYLE.md: "a test keeps the codes and docs in sync" — every error class is in docs/ERRORS.md. */

const DOC = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'ERRORS.md'), 'utf8');

function instance(cls: (typeof ERROR_CLASSES)[number]): HandoffError {
  if (cls === CorruptLineError) return new CorruptLineError(join('/tmp', 'session.jsonl'), 3, 120, 'Unexpected token');
  const Plain = cls as new (message: string, opts?: { hint?: string; details?: Record<string, unknown>; cause?: unknown }) => HandoffError;
  return new Plain(`a ${cls.name} for the test`, { hint: 'the fix', details: { file: '/tmp/x' }, cause: new Error('underneath') });
}

/** The cells of every table row whose first cell is `code` (the class table should hold exactly one). */
function docRows(code: string): string[][] {
  return DOC.split('\n')
    .filter((l) => l.startsWith(`| \`${code}\` |`))
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
}

const errors = ERROR_CLASSES.map((cls) => ({ cls, e: instance(cls) }));

describe('error classes and docs/ERRORS.md', () => {
  it('covers more than a handful of classes (the list itself is not empty)', () => {
    expect(ERROR_CLASSES.length).toBeGreaterThanOrEqual(10);
  });

  it.each(errors.map(({ cls, e }) => [cls.name, e] as const))('%s is documented with its code and exit code', (name, e) => {
    const rows = docRows(e.code);
    expect(rows, `docs/ERRORS.md needs exactly one table row starting with \`${e.code}\``).toHaveLength(1);
    const [code, cls, exit] = rows[0] as string[];
    expect(code).toBe(`\`${e.code}\``);
    expect(cls).toBe(`\`${name}\``);
    expect(exit, `docs/ERRORS.md gives ${e.code} the wrong exit code`).toBe(String(e.exitCode));
  });

  it('lists no code in its class table that no class has', () => {
    const known = new Set(errors.map(({ e }) => e.code));
    const documented = [...DOC.matchAll(/^\| `(HANDOFF_ERR_[A-Z_]+)` \| `\w+` \|/gm)].map((m) => m[1]);
    expect(documented.length).toBe(known.size);
    expect(documented.filter((c) => !known.has(c as string))).toEqual([]);
  });

  it('gives every class a unique, well-formed code and a known exit code', () => {
    const codes = errors.map(({ e }) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const { e } of errors) {
      expect(e.code).toMatch(/^HANDOFF_ERR_[A-Z_]+$/);
      expect(Object.values(EXIT)).toContain(e.exitCode);
      expect(e.exitCode).not.toBe(EXIT.OK);
    }
  });

  it.each(errors.map(({ cls, e }) => [cls.name, e] as const))('%s survives JSON.stringify with code, name, message and exit', (name, e) => {
    const back = JSON.parse(JSON.stringify(e)) as Record<string, unknown>;
    expect(back).toMatchObject({ code: e.code, name, message: e.message, exit: e.exitCode });
    expect(back.hint).toBe(e.hint);
    expect(back.details).toEqual(e.details);
    expect(back).not.toHaveProperty('cause');
    expect(e).toBeInstanceOf(Error);
  });

  it('keeps the position of a corrupt line in its details', () => {
    const e = new CorruptLineError('/tmp/t.jsonl', 7, 4096, 'Unexpected end of JSON input');
    expect(e.toJSON()).toMatchObject({ code: 'HANDOFF_ERR_CORRUPT_LINE', exit: 5, details: { file: '/tmp/t.jsonl', line: 7, offset: 4096 } });
    expect(e.message).toContain('byte offset 4096');
  });

  it('documents the CLI exit codes 0 to 7', () => {
    const table = DOC.slice(DOC.indexOf('## Exit codes'), DOC.indexOf('## How an error looks'));
    for (const code of Object.values(EXIT)) expect(table).toMatch(new RegExp(`^\\| ${code} \\| \\S`, 'm'));
  });
});
