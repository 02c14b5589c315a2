/**
 * The two ways every collection of the carried state stays bounded, deterministically, so a
 * session read in one go and one read in many pieces end in the same state.
 */

/** Drops a record's oldest keys (insertion order) past `max`. */
export function trimRecord<T>(rec: Record<string, T>, max: number): void {
  const keys = Object.keys(rec);
  for (let i = 0; i < keys.length - max; i += 1) delete rec[keys[i] as string];
}

/**
 * The keys of records written only through setBounded, in Object.keys order (`order[head..]`).
 * Listing a full record's keys to find its oldest costs a pass over all of them, and the records
 * of tool calls gain a key on every call: the order is kept beside the record instead. A record
 * whose order this cannot follow (a key that is an array index, which Object.keys lists first,
 * or `__proto__`) is listed the slow way, as trimRecord does.
 */
interface Order {
  keys: string[];
  head: number;
}
const orders = new WeakMap<object, Order>();

/** Keys Object.keys does not list in insertion order, or at all. */
const UNORDERED = /^(?:0|[1-9]\d*)$|^__proto__$/;

/**
 * `rec[key] = value`, then `trimRecord(rec, max)`: the same keys in the same order. Only for
 * records that gain keys through this function alone and lose them only by its bound.
 */
export function setBounded<T>(rec: Record<string, T>, key: string, value: T, max: number): void {
  const order = orders.get(rec);
  if (Object.hasOwn(rec, key)) {
    rec[key] = value; // a key set again keeps its place
    if (order === undefined) trimRecord(rec, max);
    return;
  }
  rec[key] = value;
  if (order === undefined || UNORDERED.test(key)) {
    orders.delete(rec);
    trimRecord(rec, max);
    const keys = Object.keys(rec);
    if (!keys.some((k) => UNORDERED.test(k))) orders.set(rec, { keys, head: 0 });
    return;
  }
  order.keys.push(key);
  while (order.keys.length - order.head > max) delete rec[order.keys[order.head++] as string];
  if (order.head > 1024) {
    order.keys = order.keys.slice(order.head);
    order.head = 0;
  }
}

/** Appends, dropping the oldest entries past `max`. */
export function pushBounded<T>(arr: T[], item: T, max: number): void {
  arr.push(item);
  // shift() lets V8 trim the front in place; splice would move every element, every turn.
  while (arr.length > max) arr.shift();
}
