/**
 * The two ways every collection of the carried state stays bounded, deterministically, so a
 * session read in one go and one read in many pieces end in the same state.
 */

/** Drops a record's oldest keys (insertion order) past `max`. */
export function trimRecord<T>(rec: Record<string, T>, max: number): void {
  const keys = Object.keys(rec);
  for (let i = 0; i < keys.length - max; i += 1) delete rec[keys[i] as string];
}

/** Appends, dropping the oldest entries past `max`. */
export function pushBounded<T>(arr: T[], item: T, max: number): void {
  arr.push(item);
  // shift() lets V8 trim the front in place; splice would move every element, every turn.
  while (arr.length > max) arr.shift();
}
