/**
 * JSON text of a large value in pieces, so a big answer (`status` or `sessions.list` of a store
 * of thousands of sessions, `verify --all`) is encoded between other work instead of in one
 * stretch that keeps every other client waiting. The text is exactly JSON.stringify's for plain
 * data (objects, arrays, strings, numbers, booleans, null; undefined members left out).
 */

const LARGE_ARRAY = 256;

/** Worth encoding in pieces: an array, or an object holding one, of more than LARGE_ARRAY items. */
export function isLarge(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > LARGE_ARRAY;
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some((v) => Array.isArray(v) && v.length > LARGE_ARRAY);
}

/** Pieces of JSON text whose concatenation is JSON.stringify(value); arrays item by item. */
export function* jsonPieces(value: unknown, depth = 2): Generator<string> {
  if (depth === 0 || value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) yield ',';
      const item: unknown = value[i];
      yield item === undefined || typeof item === 'function' ? 'null' : JSON.stringify(item);
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function') continue;
    yield `${first ? '' : ','}${JSON.stringify(k)}:`;
    first = false;
    yield* jsonPieces(v, depth - 1);
  }
  yield '}';
}
