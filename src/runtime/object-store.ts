// The informer's cache: objects as received, keyed `namespace/name`, with secondary indexes.
import type { DeepReadonly, KubeObject } from './types.ts';
import { keyString, objectKey } from './types.ts';

/** Computes the values under which an object is indexed. */
export type IndexFunction = (object: DeepReadonly<KubeObject>) => readonly string[];

export const builtInIndexes: Record<string, IndexFunction> = {
  namespace: (object) => (object.metadata?.namespace ? [object.metadata.namespace] : []),
  owner: (object) => (object.metadata?.ownerReferences ?? []).map((ref) => ref.uid),
};

/** By metadata.uid: for readers that are handed an object's id (the HTTP API), declared where needed. */
export const uidIndex: IndexFunction = (object) => (object.metadata?.uid ? [object.metadata.uid] : []);

export function labelIndex(labelKey: string): IndexFunction {
  return (object) => {
    const value = object.metadata?.labels?.[labelKey];
    return value === undefined ? [] : [value];
  };
}

export class ObjectStore<T extends KubeObject> {
  readonly #objects = new Map<string, DeepReadonly<T>>();
  readonly #indexers: Map<string, IndexFunction>;
  /** Index value to the keys under it: one key as itself, more as a Set (most values have one: an owner's uid, say). */
  readonly #indexes = new Map<string, Map<string, string | Set<string>>>();

  constructor(indexers: Record<string, IndexFunction>) {
    this.#indexers = new Map(Object.entries(indexers));
    for (const name of this.#indexers.keys()) this.#indexes.set(name, new Map());
  }

  get size(): number {
    return this.#objects.size;
  }

  get(key: string): DeepReadonly<T> | undefined {
    return this.#objects.get(key);
  }

  keys(): IterableIterator<string> {
    return this.#objects.keys();
  }

  values(): IterableIterator<DeepReadonly<T>> {
    return this.#objects.values();
  }

  /** Adds an index after the fact, indexing what is already stored. */
  addIndex(name: string, indexer: IndexFunction): void {
    if (this.#indexers.has(name)) return;
    this.#indexers.set(name, indexer);
    this.#indexes.set(name, new Map());
    for (const [key, object] of this.#objects) this.#indexOne(name, indexer, key, object);
  }

  hasIndex(name: string): boolean {
    return this.#indexes.has(name);
  }

  byIndex(name: string, value: string): DeepReadonly<T>[] {
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`no index named ${JSON.stringify(name)}; declare it when creating the informer`);
    const keys = index.get(value);
    if (keys === undefined) return [];
    const found: DeepReadonly<T>[] = [];
    for (const key of typeof keys === 'string' ? [keys] : keys) {
      const object = this.#objects.get(key);
      if (object) found.push(object);
    }
    return found;
  }

  /** Stores the object and returns the one it replaced. */
  upsert(object: DeepReadonly<T>): DeepReadonly<T> | undefined {
    const key = keyString(objectKey(object));
    const previous = this.#objects.get(key);
    if (previous) this.#unindex(key, previous);
    this.#objects.set(key, object);
    this.#index(key, object);
    return previous;
  }

  delete(key: string): DeepReadonly<T> | undefined {
    const previous = this.#objects.get(key);
    if (!previous) return undefined;
    this.#unindex(key, previous);
    this.#objects.delete(key);
    return previous;
  }

  #index(key: string, object: DeepReadonly<T>): void {
    for (const [name, indexer] of this.#indexers) this.#indexOne(name, indexer, key, object);
  }

  #indexOne(name: string, indexer: IndexFunction, key: string, object: DeepReadonly<T>): void {
    const index = this.#indexes.get(name)!;
    for (const value of indexer(object)) {
      const keys = index.get(value);
      if (keys === undefined || keys === key) index.set(value, key);
      else if (typeof keys === 'string') index.set(value, new Set([keys, key]));
      else keys.add(key);
    }
  }

  #unindex(key: string, object: DeepReadonly<T>): void {
    for (const [name, indexer] of this.#indexers) {
      const index = this.#indexes.get(name)!;
      for (const value of indexer(object)) {
        const keys = index.get(value);
        if (keys === key) index.delete(value);
        else if (typeof keys === 'object') {
          keys.delete(key);
          if (keys.size === 1) index.set(value, keys.values().next().value!);
        }
      }
    }
  }
}
