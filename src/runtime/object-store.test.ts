import { describe, expect, it } from 'vitest';
import { builtInIndexes, labelIndex, ObjectStore } from './object-store.ts';
import type { KubeObject } from './types.ts';
import { copiesInHeap } from '../../test/support/heap.ts';

const object = (namespace: string, name: string, labels: Record<string, string> = {}, owners: string[] = []): KubeObject => ({
  metadata: { namespace, name, labels, ownerReferences: owners.map((uid) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid })) },
});

describe('ObjectStore', () => {
  it('keeps indexes in step with upserts and deletes', () => {
    const store = new ObjectStore<KubeObject>({ ...builtInIndexes, app: labelIndex('app') });
    store.upsert(object('a', 'one', { app: 'x' }, ['u1']));
    store.upsert(object('b', 'two', { app: 'x' }, ['u1', 'u2']));
    expect(store.byIndex('namespace', 'a').map((o) => o.metadata?.name)).toEqual(['one']);
    expect(store.byIndex('owner', 'u1').map((o) => o.metadata?.name)).toEqual(['one', 'two']);
    expect(store.byIndex('app', 'x')).toHaveLength(2);

    const previous = store.upsert(object('b', 'two', { app: 'y' }, ['u2']));
    expect(previous?.metadata?.labels).toEqual({ app: 'x' });
    expect(store.byIndex('app', 'x').map((o) => o.metadata?.name)).toEqual(['one']);
    expect(store.byIndex('owner', 'u1').map((o) => o.metadata?.name)).toEqual(['one']);
    expect(store.byIndex('owner', 'u2').map((o) => o.metadata?.labels)).toEqual([{ app: 'y' }]);

    store.delete('a', 'one');
    expect(store.byIndex('app', 'x')).toEqual([]);
    expect(store.byIndex('namespace', 'a')).toEqual([]);
    expect(store.get('a', 'one')).toBeUndefined();
    expect(store.size).toBe(1);
  });

  it('keeps a value with one object and one with many apart, through every transition', () => {
    const store = new ObjectStore<KubeObject>(builtInIndexes);
    const names = () =>
      store
        .byIndex('owner', 'u')
        .map((o) => o.metadata?.name)
        .sort();
    for (const name of ['a', 'b', 'c']) store.upsert(object('n', name, {}, ['u']));
    store.upsert(object('n', 'a', {}, ['u']));
    expect(names()).toEqual(['a', 'b', 'c']);
    store.delete('n', 'b');
    store.delete('n', 'c');
    expect(names()).toEqual(['a']);
    store.upsert(object('n', 'd', {}, ['u']));
    expect(names()).toEqual(['a', 'd']);
    store.delete('n', 'a');
    store.delete('n', 'd');
    expect(names()).toEqual([]);
    store.upsert(object('n', 'e', {}, ['u']));
    expect(names()).toEqual(['e']);
  });

  it('holds objects of each namespace apart, and cluster-scoped ones under the namespace ""', () => {
    const store = new ObjectStore<KubeObject>(builtInIndexes);
    store.upsert(object('a', 'same'));
    store.upsert(object('b', 'same'));
    store.upsert({ metadata: { name: 'node-1' } });
    expect(store.size).toBe(3);
    expect(store.get('a', 'same')?.metadata?.namespace).toBe('a');
    expect(store.get('', 'node-1')?.metadata?.name).toBe('node-1');
    expect(store.inNamespace('b').map((o) => o.metadata?.namespace)).toEqual(['b']);
    expect([...store.values()].map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name}`).sort()).toEqual([
      '/node-1',
      'a/same',
      'b/same',
    ]);
    expect(store.delete('a', 'missing')).toBeUndefined();
    expect(store.delete('c', 'same')).toBeUndefined();
    expect(store.size).toBe(3);
  });

  it('makes no namespace/name string for what it stores', async () => {
    const store = new ObjectStore<KubeObject>(builtInIndexes);
    const namespace = `team-${Math.random().toString(36).slice(2)}`;
    for (let i = 0; i < 20; i++) store.upsert(object(namespace, `app-${i}`, {}, [`owner-${i}`]));
    // Lookups too: a key made by concatenation is flattened (a string of its own) when compared.
    for (let i = 0; i < 20; i++) expect(store.get(namespace, `app-${i}`)?.metadata?.name).toBe(`app-${i}`);
    expect(store.byIndex('owner', 'owner-7')).toHaveLength(1);
    expect(await copiesInHeap(`${namespace}/app-7`)).toBe(0);
  });

  it('indexes what it already holds when an index is added later, and names a missing index', () => {
    const store = new ObjectStore<KubeObject>(builtInIndexes);
    store.upsert(object('a', 'one', { tier: 'db' }));
    store.addIndex('tier', labelIndex('tier'));
    expect(store.byIndex('tier', 'db').map((o) => o.metadata?.name)).toEqual(['one']);
    expect(() => store.byIndex('nope', 'x')).toThrow('no index named "nope"');
  });

  it('returns the stored object itself, not a copy', () => {
    const store = new ObjectStore<KubeObject>(builtInIndexes);
    const stored = object('a', 'one');
    store.upsert(stored);
    expect(store.get('a', 'one')).toBe(stored);
  });
});
