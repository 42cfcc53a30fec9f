// Cached objects of one kind repeat whole parts of each other: every application's pod template has
// the same probe, ports, resources and security context, the children of one Deployment the same
// labels and owner reference, and JSON.parse gives each occurrence objects of its own. The informers
// pass each object they store through one pool of parts, so equal parts (objects and arrays, equal
// member by member) share one copy. That is safe because nothing changes a cached object
// (DeepReadonly; copy before changing): a shared part is frozen, so a write that slipped past the
// types throws instead of changing every object that shares it.
//
// The walk makes no garbage of its own, so that it adds nothing to the start's peak: a part is found
// by a hash of its members (strings by their number in the string pool, parts by their own hash) and
// then compared member by member, its parts by identity. A part that holds a `resourceVersion` (an
// object's metadata) is unique, and so is every part that holds one, or a string too long for the
// string pool: they are never pooled. The strings the walk meets go through the string pool
// (string-pool.ts), so one walk of each object does both. Like the string pool, the pool is bounded
// and starts over when full; two parts with the same hash keep the first one pooled.
import { cacheStringPool, type StringPool } from './string-pool.ts';

export interface SubtreePoolOptions {
  /** Parts before the pool starts over. */
  maxEntries?: number;
}

// Tags mixed in before each member's value, so that a string, a number and a part never hash alike.
const Tag = { Array: 1, Object: 2, Name: 3, String: 4, Number: 5, Part: 6, True: 7, False: 8, Null: 9 } as const;

/** One step of FNV-1a over 32-bit words. */
function mix(hash: number, word: number): number {
  return Math.imul(hash ^ word, 0x01000193);
}

function numberWord(value: number): number {
  return Number.isInteger(value) ? value | 0 : Math.trunc(value * 1_000_003) | 0;
}

/** Same members (names and values, parts by identity); order aside, which the hash already took in. */
function sameMembers(a: object, b: object): boolean {
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
  let count = 0;
  for (const name in x) {
    if (x[name] !== y[name] || !Object.hasOwn(y, name)) return false;
    count++;
  }
  for (const _name in y) count--;
  return count === 0;
}

export class SubtreePool {
  readonly #strings: StringPool;
  readonly #parts = new Map<number, object>();
  readonly #maxEntries: number;
  /** The hash of the part #share answered last; undefined when it cannot be pooled. */
  #sharedHash: number | undefined;

  constructor(strings: StringPool, options: SubtreePoolOptions = {}) {
    this.#strings = strings;
    this.#maxEntries = options.maxEntries ?? 20_000;
  }

  get size(): number {
    return this.#parts.size;
  }

  /**
   * Replaces, in place, each part of a JSON value (not the value itself) with the pooled equal part,
   * and each string with its pooled copy (but a resourceVersion: each is unique and soon replaced).
   */
  shareParts<T>(value: T): T {
    if (value !== null && typeof value === 'object') this.#shareMembers(value);
    return value;
  }

  /** Shares `part`'s members; answers the pooled equal part (`part` itself if none), its hash in #sharedHash. */
  #share(part: object): object {
    const hash = this.#shareMembers(part);
    this.#sharedHash = hash;
    if (hash === undefined) return part;
    const pooled = this.#parts.get(hash);
    if (pooled !== undefined) {
      if (sameMembers(pooled, part)) return pooled;
      this.#sharedHash = undefined;
      return part;
    }
    if (this.#parts.size >= this.#maxEntries) this.#parts.clear();
    this.#parts.set(hash, Object.freeze(part));
    return part;
  }

  /** Pools each member (strings and parts) in place; answers the part's hash, undefined when it cannot be pooled. */
  #shareMembers(part: object): number | undefined {
    const isArray = Array.isArray(part);
    // A frozen part is already pooled (an object walked twice): its members are hashed, not replaced.
    const writable = !Object.isFrozen(part);
    let hash: number | undefined = isArray ? Tag.Array : Tag.Object;
    const members = part as Record<string, unknown>;
    for (const name in members) {
      const member = members[name];
      if (!isArray && hash !== undefined) {
        const nameId = name === 'resourceVersion' ? undefined : this.#strings.idOf(name);
        hash = nameId === undefined ? undefined : mix(mix(hash, Tag.Name), nameId);
      }
      if (typeof member === 'string') {
        if (name === 'resourceVersion') continue;
        const id = this.#strings.idOf(member);
        if (id === undefined) hash = undefined;
        else {
          // Always written: `!==` compares strings by value, so it cannot tell the pooled copy from another.
          if (writable) members[name] = this.#strings.pooled(id);
          if (hash !== undefined) hash = mix(mix(hash, Tag.String), id);
        }
      } else if (member !== null && typeof member === 'object') {
        const shared = this.#share(member);
        if (shared !== member && writable) members[name] = shared;
        const partHash = this.#sharedHash;
        if (hash !== undefined) hash = partHash === undefined ? undefined : mix(mix(hash, Tag.Part), partHash);
      } else if (hash !== undefined) hash = this.#mixPrimitive(hash, member);
    }
    return hash;
  }

  #mixPrimitive(hash: number, value: unknown): number {
    if (typeof value === 'number') return mix(mix(hash, Tag.Number), numberWord(value));
    if (value === true) return mix(hash, Tag.True);
    if (value === false) return mix(hash, Tag.False);
    return mix(hash, Tag.Null);
  }
}

/** The pool every informer of the process shares. */
export const cacheSubtreePool = new SubtreePool(cacheStringPool);
