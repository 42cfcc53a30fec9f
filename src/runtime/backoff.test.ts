import { describe, expect, it } from 'vitest';
import { backoffDelay, withJitter } from './backoff.ts';

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    const policy = { initialMs: 5, maxMs: 5 * 60_000 };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(policy, n))).toEqual([5, 10, 20, 40, 80]);
    expect(backoffDelay(policy, 17)).toBe(300_000);
    expect(backoffDelay(policy, 10_000)).toBe(300_000);
    expect(backoffDelay(policy, 0)).toBe(0);
  });

  it('jitters between half and all of the delay', () => {
    expect(withJitter(1000, () => 0)).toBe(500);
    expect(withJitter(1000, () => 1)).toBe(1000);
  });
});
