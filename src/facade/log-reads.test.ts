import { describe, expect, it } from 'vitest';
import { inTurns, Limiter, LimiterFullError, logReadLimits, perReadBytes } from './log-reads.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('perReadBytes', () => {
  it('shares the request budget, within the floor and the ceiling of one read', () => {
    expect(perReadBytes(1)).toBe(logReadLimits.maxReadBytes);
    expect(perReadBytes(16)).toBe(1024 * 1024);
    expect(perReadBytes(logReadLimits.maxReads)).toBe(logReadLimits.minReadBytes);
    expect(perReadBytes(logReadLimits.maxReads) * logReadLimits.maxReads).toBeLessThanOrEqual(logReadLimits.requestBytes);
  });
});

describe('Limiter', () => {
  it('runs so many at once, queues so many more, and refuses the rest with a 503', async () => {
    const limiter = new Limiter(2, 1);
    const releases: (() => void)[] = [];
    let running = 0;
    let most = 0;
    const task = () =>
      limiter.run('org', async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
      });
    const started = [task(), task(), task()];
    await tick();
    expect(running).toBe(2);
    await expect(task()).rejects.toBeInstanceOf(LimiterFullError);
    await expect(task()).rejects.toMatchObject({ statusCode: 503 });
    while (releases.length > 0 || running > 0) {
      releases.shift()?.();
      await tick();
    }
    await Promise.all(started);
    expect(most).toBe(2);
    // Every slot is free again.
    await Promise.all([limiter.run('org', async () => 1), limiter.run('org', async () => 2), limiter.run('org', async () => 3)]);
  });

  it('frees the slot of a task that failed', async () => {
    const limiter = new Limiter(1, 0);
    await expect(limiter.run('org', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run('org', async () => 'next')).toBe('next');
  });

  it("keeps room for other organizations when one fills its share, and gives each a turn before one's second", async () => {
    const limiter = new Limiter(1, 8, 2);
    const order: string[] = [];
    let release = () => {};
    const holder = limiter.run('noisy', () => new Promise<void>((resolve) => (release = resolve)));
    await tick();
    const task = (key: string) => limiter.run(key, async () => void order.push(key));
    const queued = [task('noisy'), task('noisy')];
    await expect(task('noisy')).rejects.toBeInstanceOf(LimiterFullError);
    queued.push(task('quiet'), task('other'));
    release();
    await Promise.all([holder, ...queued]);
    expect(order).toEqual(['noisy', 'quiet', 'other', 'noisy']);
  });
});

describe('inTurns', () => {
  it('keeps the order of the results and never runs more than asked at once', async () => {
    let running = 0;
    let most = 0;
    const works = [30, 10, 20, 5, 15].map((ms, i) => async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running -= 1;
      return i;
    });
    expect(await inTurns(works, 2)).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect(await inTurns([], 4)).toEqual([]);
  });
});
