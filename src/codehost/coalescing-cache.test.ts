import { describe, expect, it } from 'vitest';
import { CoalescingCache } from './coalescing-cache.ts';

describe('CoalescingCache', () => {
  it('shares one load between concurrent callers and keeps the value for its TTL', async () => {
    let clock = 0;
    let loads = 0;
    const cache = new CoalescingCache<number>({ ttlMs: 1000, now: () => clock });
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('k', load), cache.get('k', load), cache.get('k', load)])).toEqual([1, 1, 1]);
    clock = 999;
    expect(await cache.get('k', load)).toBe(1);
    clock = 1001;
    expect(await cache.get('k', load)).toBe(2);
  });

  it('keeps no failure', async () => {
    const cache = new CoalescingCache<string>({ ttlMs: 1000 });
    await expect(cache.get('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('k', async () => 'up')).toBe('up');
  });

  it('forgets by prefix and drops the oldest beyond capacity', async () => {
    const cache = new CoalescingCache<string>({ ttlMs: 1000, maxEntries: 2 });
    await cache.get('a/1', async () => 'a');
    await cache.get('b/1', async () => 'b');
    await cache.get('c/1', async () => 'c');
    expect(cache.size).toBe(2);
    expect(await cache.get('a/1', async () => 'a again')).toBe('a again');
    cache.forget('a/');
    expect(await cache.get('a/1', async () => 'a third time')).toBe('a third time');
  });
});
