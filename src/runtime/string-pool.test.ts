import { describe, expect, it } from 'vitest';
import { StringPool } from './string-pool.ts';

describe('StringPool', () => {
  it('gives equal strings one copy, in place, at any depth, but never a resourceVersion', () => {
    const pool = new StringPool();
    const a = JSON.parse('{"metadata":{"namespace":"team-a","resourceVersion":"12"},"list":["x",{"y":"team-a"}],"n":1,"z":null}');
    const b = JSON.parse('{"metadata":{"namespace":"team-a","resourceVersion":"12"}}');
    expect(pool.internAll(a)).toBe(a);
    pool.internAll(b);
    expect(a).toEqual({ metadata: { namespace: 'team-a', resourceVersion: '12' }, list: ['x', { y: 'team-a' }], n: 1, z: null });
    expect(pool.size).toBe(2); // 'team-a' and 'x'
  });

  it('starts over when full and leaves long strings alone', () => {
    const pool = new StringPool({ maxEntries: 2, maxLength: 5 });
    pool.intern('a');
    pool.intern('b');
    expect(pool.size).toBe(2);
    pool.intern('c');
    expect(pool.size).toBe(1);
    expect(pool.intern('long string')).toBe('long string');
    expect(pool.size).toBe(1);
  });
});
