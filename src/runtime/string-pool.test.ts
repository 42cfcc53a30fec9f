import { describe, expect, it } from 'vitest';
import { StringPool } from './string-pool.ts';

describe('StringPool', () => {
  it('starts over when full and leaves long strings alone', () => {
    const pool = new StringPool({ maxEntries: 2, maxLength: 5 });
    pool.idOf('a');
    pool.idOf('b');
    expect(pool.size).toBe(2);
    pool.idOf('c');
    expect(pool.size).toBe(1);
    expect(pool.idOf('long string')).toBeUndefined();
    expect(pool.size).toBe(1);
  });

  it('numbers equal strings alike and answers the pooled copy for a number', () => {
    const pool = new StringPool({ maxLength: 5 });
    const id = pool.idOf('team');
    expect(pool.idOf(['te', 'am'].join(''))).toBe(id);
    expect(pool.idOf('other')).not.toBe(id);
    expect(pool.pooled(id!)).toBe('team');
    expect(pool.idOf('too long')).toBeUndefined();
  });

  it('never gives a number to two strings, even after it starts over', () => {
    const pool = new StringPool({ maxEntries: 2 });
    const first = [pool.idOf('a'), pool.idOf('b')];
    const later = [pool.idOf('c'), pool.idOf('d'), pool.idOf('a')];
    expect(new Set([...first, ...later]).size).toBe(5);
    expect(pool.pooled(later[2]!)).toBe('a');
  });
});
