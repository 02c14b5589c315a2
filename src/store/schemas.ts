import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { SCHEMA_DIR } from '../paths.js';

/** JSON Schemas in schemas/ are the single source of every payload's shape. */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const compiled = new Map<string, ValidateFunction>();
let ajv: Ajv | null = null;

export type SchemaName = 'handoff.summary' | 'handoff.llm' | 'handoff' | 'handoff.config';

export function validator(name: SchemaName): ValidateFunction {
  const hit = compiled.get(name);
  if (hit) return hit;
  ajv ??= addFormats(new Ajv({ allErrors: true, strict: false }));
  const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, `${name}.schema.json`), 'utf8')) as object;
  const v = ajv.compile(schema);
  compiled.set(name, v);
  return v;
}

/** The first schema violation, readable: `/next_action/text: must NOT have fewer than 1 characters`. */
export function firstError(v: ValidateFunction): string {
  const e = v.errors?.[0];
  if (!e) return 'invalid';
  return `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`;
}
