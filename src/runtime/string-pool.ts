// Cached objects repeat the same strings thousands of times (namespace, apiVersion, label values,
// condition reasons and messages, image names, timestamps), and JSON.parse gives every occurrence a
// copy of its own. Each string of an object an informer stores goes through one pool (on the subtree
// pool's walk, subtree-pool.ts), so equal strings share one copy. The pool is bounded: when full it
// starts over, which only means later copies are not shared with earlier ones.
//
// The bound is small on purpose. Most strings of a cache are unique (uids, hashes, cluster IPs), and a
// pool that keeps them all costs more than it shares: at 10,000 Deployments it held 150,000 strings,
// and with 20,000 entries Berth settled about 7 MiB smaller (BENCHMARKS.md, section 5). The repeated
// strings come back into the pool right after it starts over, and most repeats are near each other
// (objects of one list page).
export interface StringPoolOptions {
  /** Entries before the pool starts over. */
  maxEntries?: number;
  /** Longer strings are left alone: a long string is rarely repeated. */
  maxLength?: number;
}

export class StringPool {
  readonly #ids = new Map<string, number>();
  #strings: string[] = [];
  /** The number of #strings[0]: numbers go on rising when the pool starts over, so none names two strings. */
  #firstId = 0;
  readonly #maxEntries: number;
  readonly #maxLength: number;

  constructor(options: StringPoolOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 20_000;
    this.#maxLength = options.maxLength ?? 256;
  }

  get size(): number {
    return this.#strings.length;
  }

  /**
   * The number of `value`'s pooled copy (pooling it now when it is not yet): equal strings have one
   * until the pool starts over, and a number never names another string, before or after. Undefined
   * for a string too long to pool.
   */
  idOf(value: string): number | undefined {
    if (value.length > this.#maxLength) return undefined;
    let id = this.#ids.get(value);
    if (id !== undefined) return id;
    if (this.#strings.length >= this.#maxEntries) {
      this.#firstId += this.#strings.length;
      this.#ids.clear();
      this.#strings = [];
    }
    id = this.#firstId + this.#strings.length;
    this.#ids.set(value, id);
    this.#strings.push(value);
    return id;
  }

  /** The pooled copy numbered `id` by idOf (in the pool since it last started over). */
  pooled(id: number): string {
    return this.#strings[id - this.#firstId]!;
  }
}

/** The pool every informer of the process shares. */
export const cacheStringPool = new StringPool();
