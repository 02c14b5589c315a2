#!/usr/bin/env node
/**
 * Regenerates the option tables of docs/CONFIG.md from schemas/handoff.config.schema.json, so
 * the reference cannot drift from the schema that validates every config file. Only the text
 * between OPTIONS_BEGIN and OPTIONS_END is rewritten; the prose around it is hand-written.
 *
 *   node scripts/gen-config-doc.mjs           rewrite docs/CONFIG.md (npm run docs:config)
 *   node scripts/gen-config-doc.mjs --check   exit 1 when docs/CONFIG.md is out of date
 *
 * Plain Node, no dependencies. `renderOptions` is pure (schema in, Markdown out) so the unit test
 * test/unit/docs-config.test.ts can compare it with the committed doc; files are read and written
 * only when this file is run directly.
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const OPTIONS_BEGIN = '<!-- options:begin -->';
export const OPTIONS_END = '<!-- options:end -->';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_PATH = join(ROOT, 'schemas', 'handoff.config.schema.json');
export const DOC_PATH = join(ROOT, 'docs', 'CONFIG.md');

/** A branch is an object whose keys the schema names; everything else is an option (a leaf). */
function isBranch(node) {
  return node !== null && typeof node === 'object' && node.properties !== undefined && typeof node.properties === 'object';
}

/**
 * Every option of `schema` in schema order: `{ path, node, section }`, where `path` is the dotted
 * path (`watch.debounce_ms`) and `section` the top-level key it sits under ('' for top-level options).
 */
export function leafOptions(schema) {
  const out = [];
  const walk = (node, prefix, section) => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (isBranch(child)) walk(child, path, section === null ? key : section);
      else out.push({ path, node: child, section: section ?? '' });
    }
  };
  walk(schema, '', null);
  return out;
}

/** Markdown table cells: no raw pipes, no angle brackets a renderer would take for HTML. */
function cell(text) {
  return String(text).replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\s*\n\s*/g, ' ');
}

function code(text) {
  // Backticks inside a code span would end it; none of our values hold one, but stay safe.
  return `\`${String(text).replace(/`/g, "'").replace(/\|/g, '\\|')}\``;
}

function typeOf(node) {
  if (node === undefined || node === null) return 'any';
  if (Array.isArray(node.oneOf)) return node.oneOf.map(typeOf).join(' or ');
  if (Array.isArray(node.anyOf)) return node.anyOf.map(typeOf).join(' or ');
  if (node.type === 'array') return `array of ${typeOf(node.items)}`;
  if (node.type === 'object' && node.additionalProperties && typeof node.additionalProperties === 'object') {
    return `object of ${typeOf(node.additionalProperties)}`;
  }
  if (node.type !== undefined) return Array.isArray(node.type) ? node.type.join(' or ') : node.type;
  if (Array.isArray(node.enum)) return [...new Set(node.enum.map((v) => (v === null ? 'null' : typeof v)))].join(' or ');
  return 'any';
}

/** The checks of one schema node, in words: `≥ 0`, `≤ 60000`, `one of …`, `matches …`. */
function checksOf(node) {
  if (node === undefined || node === null || typeof node !== 'object') return [];
  const out = [];
  if (node.minimum !== undefined) out.push(`≥ ${node.minimum}`);
  if (node.exclusiveMinimum !== undefined) out.push(`> ${node.exclusiveMinimum}`);
  if (node.maximum !== undefined) out.push(`≤ ${node.maximum}`);
  if (node.exclusiveMaximum !== undefined) out.push(`< ${node.exclusiveMaximum}`);
  if (node.minLength !== undefined) out.push(node.minLength === 1 ? 'non-empty' : `length ≥ ${node.minLength}`);
  if (node.maxLength !== undefined) out.push(`length ≤ ${node.maxLength}`);
  if (node.pattern !== undefined) out.push(`matches ${code(node.pattern)}`);
  if (Array.isArray(node.enum)) out.push(`one of ${node.enum.map((v) => code(v)).join(', ')}`);
  if (node.minItems !== undefined) out.push(`at least ${node.minItems} item(s)`);
  if (node.maxItems !== undefined) out.push(`at most ${node.maxItems} item(s)`);
  if (node.uniqueItems === true) out.push('no duplicates');
  return out;
}

/** An object shape in one line: `{pattern (required; non-empty), name (matches …)}`. */
function shapeOf(node) {
  const required = new Set(node.required ?? []);
  const keys = Object.keys(node.properties ?? {}).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const parts = keys.map((k) => {
    const child = node.properties[k];
    const notes = [...(required.has(k) ? ['required'] : []), typeOf(child), ...checksOf(child)];
    return `${code(k)} (${notes.join('; ')})`;
  });
  const extra = node.additionalProperties === false ? '' : ', other keys allowed';
  return `{${parts.join(', ')}${extra}}`;
}

function alternativeOf(node) {
  if (isBranch(node)) return `an object ${shapeOf(node)}`;
  const checks = checksOf(node);
  return checks.length > 0 ? `a ${typeOf(node)} (${checks.join(', ')})` : `a ${typeOf(node)}`;
}

function constraintsOf(node) {
  const out = checksOf(node);
  if (node.type === 'array' && node.items) {
    const items = node.items;
    if (Array.isArray(items.oneOf)) out.push(`each item is ${items.oneOf.map(alternativeOf).join(', or ')}`);
    else if (isBranch(items)) out.push(`each item is an object ${shapeOf(items)}`);
    else {
      const checks = checksOf(items);
      if (checks.length > 0) out.push(`each item ${checks.join(', ')}`);
    }
  }
  if (node.type === 'object' && node.additionalProperties && typeof node.additionalProperties === 'object') {
    const checks = checksOf(node.additionalProperties);
    out.push(`any key; each value ${[typeOf(node.additionalProperties), ...checks].join(', ')}`);
  }
  return out;
}

function defaultOf(node) {
  return node.default === undefined ? '(unset)' : code(JSON.stringify(node.default));
}

function sectionTitle(key, node) {
  const about = node?.description ? ` — ${cell(node.description)}` : '';
  return key === '' ? '### Top-level options' : `### \`${key}\`${about}`;
}

/**
 * The Markdown that goes between the markers: one table per top-level section, in schema order,
 * options that sit directly at the top level first. Deterministic: same schema, same bytes.
 */
export function renderOptions(schema) {
  const leaves = leafOptions(schema);
  const sections = [];
  if (leaves.some((l) => l.section === '')) sections.push('');
  for (const [key, node] of Object.entries(schema.properties ?? {})) if (isBranch(node)) sections.push(key);
  const lines = [
    '<!-- Generated from schemas/handoff.config.schema.json by `npm run docs:config`; edit the schema, not this table. -->',
    '',
  ];
  for (const section of sections) {
    lines.push(sectionTitle(section, section === '' ? null : schema.properties[section]), '');
    lines.push('| Option | Type | Default | Constraints | Description |', '|---|---|---|---|---|');
    for (const leaf of leaves.filter((l) => l.section === section)) {
      const constraints = constraintsOf(leaf.node);
      lines.push(
        `| ${code(leaf.path)} | ${cell(typeOf(leaf.node))} | ${defaultOf(leaf.node)} | ${constraints.length > 0 ? constraints.join('; ') : '—'} | ${leaf.node.description ? cell(leaf.node.description) : '—'} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** `doc` with the text between the markers replaced by `body`; throws when a marker is missing. */
export function replaceOptions(doc, body) {
  const begin = doc.indexOf(OPTIONS_BEGIN);
  const end = doc.indexOf(OPTIONS_END);
  if (begin === -1 || end === -1 || end < begin) {
    throw new Error(`expected the markers ${OPTIONS_BEGIN} and ${OPTIONS_END} (in that order) in the doc`);
  }
  return `${doc.slice(0, begin + OPTIONS_BEGIN.length)}\n${body}${OPTIONS_END}${doc.slice(end + OPTIONS_END.length)}`;
}

/** The text between the markers as it stands in `doc` (null when a marker is missing). */
export function currentOptions(doc) {
  const begin = doc.indexOf(OPTIONS_BEGIN);
  const end = doc.indexOf(OPTIONS_END);
  if (begin === -1 || end === -1 || end < begin) return null;
  return doc.slice(begin + OPTIONS_BEGIN.length + 1, end);
}

function main(argv) {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'));
  const doc = readFileSync(DOC_PATH, 'utf8');
  const next = replaceOptions(doc, renderOptions(schema));
  if (argv.includes('--check')) {
    if (next === doc) return 0;
    process.stderr.write(`${DOC_PATH} is out of date with ${SCHEMA_PATH}: run \`npm run docs:config\`\n`);
    return 1;
  }
  if (next === doc) {
    process.stdout.write(`${DOC_PATH} is up to date\n`);
    return 0;
  }
  writeFileSync(DOC_PATH, next);
  process.stdout.write(`rewrote the option tables of ${DOC_PATH}\n`);
  return 0;
}

function isEntry() {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntry()) process.exitCode = main(process.argv.slice(2));
