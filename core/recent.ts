/**
 * The last `limit` values made for distinct keys (oldest made first out). For per-level facts that
 * several trials of the same level ask for while other levels are in flight around them: a level's
 * up to 3 trials do not come back to back once engines hold more than one job (pipelined
 * dispatch), so a one-entry "last level" cache would miss.
 */
export class Recent<K, V> {
  private readonly values = new Map<K, V>();
  constructor(private readonly limit: number) {}

  get(key: K, make: (key: K) => V): V {
    if (this.values.has(key)) return this.values.get(key) as V;
    const value = make(key);
    this.values.set(key, value);
    if (this.values.size > this.limit) this.values.delete(this.values.keys().next().value as K);
    return value;
  }

  clear(): void {
    this.values.clear();
  }
}
