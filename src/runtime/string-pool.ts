// Cached objects repeat the same strings thousands of times (namespace, apiVersion, label values,
// condition reasons and messages, image names, timestamps), and JSON.parse gives every occurrence a
// copy of its own. The informers pass each object they store through one pool, so equal strings share
// one copy. The pool is bounded: when full it starts over, which only means later copies are not
// shared with earlier ones. resourceVersions are never pooled: each is unique and soon replaced.
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
  readonly #pool = new Map<string, string>();
  readonly #maxEntries: number;
  readonly #maxLength: number;

  constructor(options: StringPoolOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 20_000;
    this.#maxLength = options.maxLength ?? 256;
  }

  get size(): number {
    return this.#pool.size;
  }

  intern(value: string): string {
    if (value.length > this.#maxLength) return value;
    const pooled = this.#pool.get(value);
    if (pooled !== undefined) return pooled;
    if (this.#pool.size >= this.#maxEntries) this.#pool.clear();
    this.#pool.set(value, value);
    return value;
  }

  /** Replaces, in place, every string in a JSON value (object members and array items) with its pooled copy. */
  internAll<T>(value: T): T {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'string') value[i] = this.intern(item);
        else if (item !== null && typeof item === 'object') this.internAll(item);
      }
    } else if (value !== null && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      for (const key in object) {
        const member = object[key];
        if (typeof member === 'string') {
          if (key !== 'resourceVersion') object[key] = this.intern(member);
        } else if (member !== null && typeof member === 'object') this.internAll(member);
      }
    }
    return value;
  }
}

/** The pool every informer of the process shares. */
export const cacheStringPool = new StringPool();
