import { describe, expect, it } from 'vitest';
import { createKeyedSerializer } from './keyed-serializer.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('createKeyedSerializer', () => {
  it('runs one job per key at a time, in arrival order, and keys in parallel', async () => {
    const serialize = createKeyedSerializer();
    const log: string[] = [];
    let runningForA = 0;
    let mostForA = 0;
    const job = (key: string, n: number) =>
      serialize(key, async () => {
        if (key === 'a') mostForA = Math.max(mostForA, ++runningForA);
        log.push(`${key}${n} start`);
        await tick();
        log.push(`${key}${n} end`);
        if (key === 'a') runningForA--;
        return n;
      });
    const results = await Promise.all([job('a', 1), job('a', 2), job('b', 1), job('a', 3)]);
    expect(results).toEqual([1, 2, 1, 3]);
    expect(mostForA).toBe(1);
    expect(log.filter((line) => line.startsWith('a'))).toEqual(['a1 start', 'a1 end', 'a2 start', 'a2 end', 'a3 start', 'a3 end']);
    expect(log.indexOf('b1 start')).toBeLessThan(log.indexOf('a1 end'));
  });

  it('goes on with the next job when one fails, and passes the failure to its caller', async () => {
    const serialize = createKeyedSerializer();
    const failed = serialize('a', async () => {
      throw new Error('boom');
    });
    const next = serialize('a', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });
});
