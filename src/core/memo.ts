/**
 * A pure function's answers for the last `max` keys it was asked, the oldest forgotten first:
 * for texts that come back build after build (a line's kind and tool name, a window's turns).
 */
export class Memo<V> {
  private readonly answers = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string, compute: (key: string) => V): V {
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    const v = compute(key);
    this.answers.set(key, v);
    if (this.answers.size > this.max) this.answers.delete(this.answers.keys().next().value as string);
    return v;
  }
}
