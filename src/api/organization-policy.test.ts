import { describe, expect, it } from 'vitest';
import { replicaCapExcess } from './organization-policy.ts';

describe('replicaCapExcess', () => {
  it('names the first scale field above the cap, and nothing without a cap or an excess', () => {
    expect(replicaCapExcess({ minScale: 1, maxScale: 9, queueMaxScale: 20 }, 5)).toEqual({
      field: 'maxScale',
      value: 9,
      message: "must be at most 5: this installation's cap on one deployment's replicas",
    });
    expect(replicaCapExcess({ minScale: 1, maxScale: 5, queueMaxScale: 6 }, 5)?.field).toBe('queueMaxScale');
    expect(replicaCapExcess({ maxScale: 5 }, 5)).toBeUndefined();
    expect(replicaCapExcess({ maxScale: 10_000 }, undefined)).toBeUndefined();
    expect(replicaCapExcess(undefined, 5)).toBeUndefined();
  });
});
