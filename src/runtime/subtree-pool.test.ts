import { describe, expect, it } from 'vitest';
import { StringPool } from './string-pool.ts';
import { SubtreePool } from './subtree-pool.ts';
import { copiesInHeap } from '../../test/support/heap.ts';

const pod = (name: string, uid: string) =>
  JSON.parse(
    JSON.stringify({
      metadata: { name, uid, labels: { app: name } },
      spec: { containers: [{ name: 'app', ports: [{ containerPort: 8080, protocol: 'TCP' }], probe: { path: '/', period: 1 } }] },
    }),
  );

describe('SubtreePool', () => {
  it('leaves one copy of a string that many objects hold, in the parts it pools and the ones it cannot', async () => {
    const pool = new SubtreePool(new StringPool());
    const namespace = `team-${Math.random().toString(36).slice(2)}-namespace`;
    const objects = Array.from({ length: 50 }, (_, i) =>
      JSON.parse(JSON.stringify({ metadata: { name: `o${i}`, namespace, resourceVersion: `${i}` }, spec: { namespace } })),
    );
    expect(await copiesInHeap(namespace)).toBeGreaterThanOrEqual(100);
    for (const object of objects) pool.shareParts(object);
    // The pooled copy, and the test's own.
    expect(await copiesInHeap(namespace)).toBe(2);
    expect(objects.map((o) => o.metadata.namespace)).toEqual(Array(50).fill(namespace));
  });

  it('walks an object whose parts are already pooled again without a write to them', () => {
    const pool = new SubtreePool(new StringPool());
    const [a, b] = [pod('a', 'u1'), pod('a', 'u1')];
    pool.shareParts(a);
    pool.shareParts(b);
    expect(() => pool.shareParts(b)).not.toThrow();
    expect(b.spec).toBe(a.spec);
  });

  it('gives equal parts of different objects one frozen copy, and leaves values and the objects themselves as they were', () => {
    const pool = new SubtreePool(new StringPool());
    const [a, b] = [pod('a', 'u1'), pod('b', 'u2')];
    const [copyA, copyB] = [structuredClone(a), structuredClone(b)];
    expect(pool.shareParts(a)).toBe(a);
    pool.shareParts(b);
    expect(a).toEqual(copyA);
    expect(b).toEqual(copyB);
    expect(b.spec).toBe(a.spec);
    expect(Object.isFrozen(a.spec.containers[0].ports)).toBe(true);
    expect(() => {
      a.spec.containers[0].probe.period = 2;
    }).toThrow(TypeError);
    expect(Object.isFrozen(a)).toBe(false);
  });

  it('never pools a part that holds a resourceVersion, nor the parts around it, but shares what is inside', () => {
    const pool = new SubtreePool(new StringPool());
    const [a, b] = [pod('same', 'u1'), pod('same', 'u1')];
    a.metadata.resourceVersion = b.metadata.resourceVersion = '7';
    pool.shareParts(a);
    pool.shareParts(b);
    expect(b.metadata).not.toBe(a.metadata);
    expect(Object.isFrozen(a.metadata)).toBe(false);
    expect(b.metadata.labels).toBe(a.metadata.labels);
    expect(b.metadata.resourceVersion).toBe('7');
  });

  it('gives equal strings one copy, at any depth, but never a resourceVersion', () => {
    const text = '{"metadata":{"namespace":"team-a","resourceVersion":"12"},"list":["x",{"y":"team-a","n":1}]}';
    const [a, b] = [JSON.parse(text), JSON.parse(text)];
    const strings = new StringPool();
    const shared = new SubtreePool(strings);
    shared.shareParts(a);
    shared.shareParts(b);
    // A string's identity cannot be seen from JavaScript; the pool's count can: one copy of each value,
    // and of the member names met before a part is known to be unique. Never the resourceVersion.
    expect(strings.size).toBe(['metadata', 'namespace', 'team-a', 'x', 'y', 'n'].length);
    expect(b.list).toBe(a.list);
    expect(b.metadata).not.toBe(a.metadata);
    expect(b).toEqual(JSON.parse(text));
  });

  it('tells apart values that print alike: strings, numbers, booleans and null, member names and order', () => {
    const pool = new SubtreePool(new StringPool());
    const values = [
      { v: '1' },
      { v: 1 },
      { v: 'true' },
      { v: true },
      { v: null },
      { v: 'null' },
      { w: 1 },
      { a: 1, b: 2 },
      { b: 2, a: 1 },
      ['1'],
      [1],
      [[1]],
      [{}],
      [[]],
    ];
    const holder = JSON.parse(JSON.stringify(values.map((value) => ({ value }))));
    const again = JSON.parse(JSON.stringify(holder));
    pool.shareParts({ holder });
    pool.shareParts({ again });
    for (let i = 0; i < values.length; i++) {
      expect(again[i].value).toEqual(values[i]);
      expect(again[i].value).toBe(holder[i].value);
    }
  });

  it('starts over when full, and does not pool a part that holds a string too long for the string pool', () => {
    const pool = new SubtreePool(new StringPool({ maxLength: 20 }), { maxEntries: 2 });
    pool.shareParts({ a: { x: 1 }, b: { y: 2 } });
    expect(pool.size).toBe(2);
    pool.shareParts({ c: { z: 3 } });
    expect(pool.size).toBe(1);
    const long = { text: 'a string longer than the bound', inner: { n: 1 } };
    pool.shareParts({ long });
    expect(Object.isFrozen(long)).toBe(false);
    expect(Object.isFrozen(long.inner)).toBe(true);
  });

  it('keeps the first of two different parts whose hashes collide, and shares neither wrongly', () => {
    const pool = new SubtreePool(new StringPool());
    // Members hash as 32-bit words: 2^32 apart, two integers are one word.
    const [a, b] = [{ part: { n: 1 } }, { part: { n: 1 + 2 ** 32 } }];
    pool.shareParts(a);
    pool.shareParts(b);
    expect(b.part).not.toBe(a.part);
    expect(b.part.n).toBe(1 + 2 ** 32);
    expect(Object.isFrozen(b.part)).toBe(false);
  });
});
