import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { defaultOptions, schemaDefaults } from '../../src/config.js';
import { CONFIG_SCHEMA_PATH } from '../../src/paths.js';

/** Defaults are filled in without ajv when there is no config file; they must be ajv's own. */

const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as Parameters<typeof schemaDefaults>[0];

function ajvDefaults(doc: Record<string, unknown>): Record<string, unknown> {
  const v = new Ajv({ allErrors: true, useDefaults: true, strict: false }).compile(schema);
  expect(v(doc), JSON.stringify(v.errors)).toBe(true);
  return doc;
}

describe('config defaults', () => {
  it('are the ones ajv fills into an empty file', () => {
    expect(defaultOptions()).toEqual(ajvDefaults({}));
  });

  it('fill a partial file the way ajv does, keeping what it sets', () => {
    const partial = () => ({ watch: { debounce_ms: 50 }, hooks: { on_start: 'never' }, context: { thresholds: { yellow: 0.3, orange: 0.5, red: 0.6 } } });
    expect(schemaDefaults(schema, partial())).toEqual(ajvDefaults(partial()));
  });

  it('include the hook options with their documented defaults', () => {
    expect(defaultOptions().hooks).toEqual({ on_start: 'offer', on_compact: 'inject', checkpoint_before_compact: true, token_budget: 2000, time_budget_ms: 300, offer_max_age_h: 72 });
  });

  it('hand out a fresh object every time (a caller cannot change another caller\'s defaults)', () => {
    const a = defaultOptions();
    a.watch.debounce_ms = 1;
    expect(defaultOptions().watch.debounce_ms).not.toBe(1);
  });
});
