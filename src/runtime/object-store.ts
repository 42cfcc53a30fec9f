// The informer's cache: objects as received, by namespace then name, with secondary indexes.
//
// No key string is made per object: a `namespace/name` string for each of 60,000 cached objects
// (10,000 Deployments) cost about 80 bytes apiece, a concatenated string and the flat copy hashing
// made of it, about 5 MiB in all (BENCHMARKS.md, 2026-11-26). The namespace's map is the namespace index,
// and the other indexes hold the objects themselves.
import type { DeepReadonly, KubeObject } from './types.ts';

/** Computes the values under which an object is indexed. */
export type IndexFunction<T extends KubeObject = KubeObject> = (object: DeepReadonly<T>) => readonly string[];

/** The index every store has besides 'namespace', which its layout answers. */
export const builtInIndexes: Record<string, IndexFunction> = {
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

const namespaceIndex = 'namespace';

export class ObjectStore<T extends KubeObject> {
  /** Namespace ('' for cluster-scoped objects) to name to object. */
  readonly #namespaces = new Map<string, Map<string, DeepReadonly<T>>>();
  #size = 0;
  readonly #indexers: Map<string, IndexFunction<T>>;
  /** Index value to the objects under it: one as itself, more as a Set (most values have one: an owner's uid, say). */
  readonly #indexes = new Map<string, Map<string, DeepReadonly<T> | Set<DeepReadonly<T>>>>();

  constructor(indexers: Record<string, IndexFunction<T>>) {
    this.#indexers = new Map(Object.entries(indexers).filter(([name]) => name !== namespaceIndex));
    for (const name of this.#indexers.keys()) this.#indexes.set(name, new Map());
  }

  get size(): number {
    return this.#size;
  }

  get(namespace: string, name: string): DeepReadonly<T> | undefined {
    return this.#namespaces.get(namespace)?.get(name);
  }

  *values(): IterableIterator<DeepReadonly<T>> {
    for (const objects of this.#namespaces.values()) yield* objects.values();
  }

  inNamespace(namespace: string): DeepReadonly<T>[] {
    return [...(this.#namespaces.get(namespace)?.values() ?? [])];
  }

  /** Adds an index after the fact, indexing what is already stored. */
  addIndex(name: string, indexer: IndexFunction<T>): void {
    if (this.hasIndex(name)) return;
    this.#indexers.set(name, indexer);
    this.#indexes.set(name, new Map());
    for (const object of this.values()) this.#indexOne(name, indexer, object);
  }

  hasIndex(name: string): boolean {
    return name === namespaceIndex || this.#indexes.has(name);
  }

  byIndex(name: string, value: string): DeepReadonly<T>[] {
    if (name === namespaceIndex) return this.inNamespace(value);
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`no index named ${JSON.stringify(name)}; declare it when creating the informer`);
    const objects = index.get(value);
    if (objects === undefined) return [];
    return objects instanceof Set ? [...objects] : [objects];
  }

  /** Stores the object and returns the one it replaced. */
  upsert(object: DeepReadonly<T>): DeepReadonly<T> | undefined {
    const namespace = object.metadata?.namespace ?? '';
    let objects = this.#namespaces.get(namespace);
    if (!objects) this.#namespaces.set(namespace, (objects = new Map()));
    const name = object.metadata?.name ?? '';
    const previous = objects.get(name);
    if (previous) this.#unindex(previous);
    else this.#size++;
    objects.set(name, object);
    for (const [indexName, indexer] of this.#indexers) this.#indexOne(indexName, indexer, object);
    return previous;
  }

  delete(namespace: string, name: string): DeepReadonly<T> | undefined {
    const objects = this.#namespaces.get(namespace);
    const previous = objects?.get(name);
    if (!objects || !previous) return undefined;
    this.#unindex(previous);
    objects.delete(name);
    if (objects.size === 0) this.#namespaces.delete(namespace);
    this.#size--;
    return previous;
  }

  #indexOne(name: string, indexer: IndexFunction<T>, object: DeepReadonly<T>): void {
    const index = this.#indexes.get(name)!;
    for (const value of indexer(object)) {
      const held = index.get(value);
      if (held === undefined || held === object) index.set(value, object);
      else if (held instanceof Set) held.add(object);
      else index.set(value, new Set([held, object]));
    }
  }

  #unindex(object: DeepReadonly<T>): void {
    for (const [name, indexer] of this.#indexers) {
      const index = this.#indexes.get(name)!;
      for (const value of indexer(object)) {
        const held = index.get(value);
        if (held === object) index.delete(value);
        else if (held instanceof Set) {
          held.delete(object);
          if (held.size === 1) index.set(value, held.values().next().value!);
        }
      }
    }
  }
}
