/**
 * A pure function's answers for the keys it was asked lately: for texts that come back build
 * after build (a line's kind and tool name, a window's turns).
 *
 * Two generations, not a queue: answers go into the young map; when it holds `max`, it becomes
 * the old one and the previous old one is dropped. A hit in the old map moves the answer back to
 * the young one. So between `max` and `2 × max` of the latest keys are remembered, and a miss
 * costs one insert, not an insert plus the removal of the oldest key (a backfill asks about
 * every line's time and call id once, and most of those asks miss).
 */
export class Memo<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string, compute: (key: string) => V): V {
    const known = this.young.get(key);
    if (known !== undefined) return known;
    const older = this.old.get(key);
    const v = older !== undefined ? older : compute(key);
    if (this.young.size >= this.max) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, v);
    return v;
  }
}
