import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/CONFIG.md's option tables are generated from the config schema by
 * scripts/gen-config-doc.mjs; this keeps the committed doc and the schema from drifting apart.
 */

interface Generator {
  OPTIONS_BEGIN: string;
  OPTIONS_END: string;
  renderOptions(schema: unknown): string;
  replaceOptions(doc: string, body: string): string;
  currentOptions(doc: string): string | null;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// Imported by URL: the script is plain JavaScript with no type declarations.
const gen = (await import(pathToFileURL(join(ROOT, 'scripts', 'gen-config-doc.mjs')).href)) as Generator;

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  [key: string]: unknown;
}

const SCHEMA_FILE = join(ROOT, 'schemas', 'handoff.config.schema.json');
const DOC_FILE = join(ROOT, 'docs', 'CONFIG.md');
const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as SchemaNode;
const doc = readFileSync(DOC_FILE, 'utf8');

/** Every option path of the schema, found independently of the generator: a leaf has no `properties`. */
function leafPaths(node: SchemaNode, prefix = ''): string[] {
  return Object.entries(node.properties ?? {}).flatMap(([key, child]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    return child.properties ? leafPaths(child, path) : [path];
  });
}

function missingFromDoc(s: SchemaNode, text: string): string[] {
  return leafPaths(s).filter((p) => !text.includes(`\`${p}\``));
}

describe('docs/CONFIG.md', () => {
  it('holds exactly the option tables the generator renders from the schema', () => {
    const current = gen.currentOptions(doc);
    expect(current, `docs/CONFIG.md has no ${gen.OPTIONS_BEGIN} … ${gen.OPTIONS_END} block`).not.toBeNull();
    expect(current, 'docs/CONFIG.md is out of date with schemas/handoff.config.schema.json: run `npm run docs:config`').toBe(gen.renderOptions(schema));
  });

  it('names every leaf option of the schema', () => {
    const paths = leafPaths(schema);
    // Guards the walker itself: nested sections and a top-level option are all reached.
    expect(paths).toEqual(expect.arrayContaining(['handoff_dir', 'storage.path', 'watch.debounce_ms', 'context.thresholds.red', 'redaction.patterns', 'daemon.request_timeout_ms']));
    expect(missingFromDoc(schema, doc), 'options missing from docs/CONFIG.md: run `npm run docs:config`').toEqual([]);
  });

  it('notices an option the doc does not list yet', () => {
    const grown = structuredClone(schema);
    const watch = grown.properties?.watch;
    if (!watch?.properties) throw new Error('expected a watch section in the schema');
    watch.properties.poll_ms = { type: 'integer', minimum: 1, default: 100, description: 'Polling period.' };
    expect(missingFromDoc(grown, doc)).toContain('watch.poll_ms');
    const table = gen.renderOptions(grown);
    expect(table).not.toBe(gen.currentOptions(doc));
    expect(table).toContain('| `watch.poll_ms` | integer | `100` | ≥ 1 | Polling period. |');
  });

  it('rewrites only the text between the markers', () => {
    const next = gen.replaceOptions(doc, 'TABLE\n');
    const begin = doc.indexOf(gen.OPTIONS_BEGIN) + gen.OPTIONS_BEGIN.length;
    const end = doc.indexOf(gen.OPTIONS_END);
    expect(next.slice(0, begin)).toBe(doc.slice(0, begin));
    expect(next.endsWith(doc.slice(end))).toBe(true);
    expect(gen.currentOptions(next)).toBe('TABLE\n');
  });

  it('refuses a doc without the markers', () => {
    expect(() => gen.replaceOptions('# no markers here\n', 'x')).toThrow(/options:begin/);
    expect(gen.currentOptions('# no markers here\n')).toBeNull();
  });
});
