/**
 * A bounded in-process cache whose entries expire: when full, the oldest
 * entry goes (never the whole cache, so a flood of new keys cannot flush the
 * hot ones).
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { readonly value: V; readonly until: number }>()

  constructor(
    private readonly maxEntries: number,
    /** Epoch milliseconds now (the service's Clock, so tests can move it). */
    private readonly now: () => number = Date.now
  ) {}

  /** The value, while it has not expired. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key)
    return entry !== undefined && entry.until > this.now() ? entry.value : undefined
  }

  /** Keeps `value` until the epoch millisecond `until`. */
  set(key: K, value: V, until: number): void {
    this.entries.delete(key)
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next()
      if (!oldest.done) this.entries.delete(oldest.value)
    }
    this.entries.set(key, { value, until })
  }

  delete(key: K): void {
    this.entries.delete(key)
  }

  /** The value even if expired (to reuse what survives a refresh). */
  stale(key: K): V | undefined {
    return this.entries.get(key)?.value
  }
}
