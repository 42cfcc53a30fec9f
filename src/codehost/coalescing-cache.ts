// A small cache for code-host answers: a value lives `ttlMs` after it was loaded, callers asking for a
// key while it loads share the one request (a page of the UI fanning out does not fan out to GitHub),
// and failures are not kept, so the next caller tries again.

export interface CoalescingCacheOptions {
  ttlMs: number;
  /** Bounds memory: beyond this many keys the oldest entries go first. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry<V> {
  value: Promise<V>;
  /** Set once the load succeeded; until then the entry is in flight and never expires. */
  expiresAt: number | undefined;
}

export class CoalescingCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: CoalescingCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    const cached = this.#entries.get(key);
    if (cached && (cached.expiresAt === undefined || cached.expiresAt > this.#now())) return cached.value;

    const entry: Entry<V> = { value: load(), expiresAt: undefined };
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    entry.value.then(
      () => {
        entry.expiresAt = this.#now() + this.#ttlMs;
      },
      () => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      },
    );
    this.#evictBeyondCapacity();
    return entry.value;
  }

  /** Forgets every key starting with `prefix` (an integration's entries when it changes or goes away). */
  forget(prefix: string): void {
    for (const key of this.#entries.keys()) if (key.startsWith(prefix)) this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  #evictBeyondCapacity(): void {
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) return;
      this.#entries.delete(key);
    }
  }
}
