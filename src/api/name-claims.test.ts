import { describe, expect, it } from 'vitest';
import { claimedNames, indexChildNames, nameClaimants, nameRefusal, type NameClaim } from './name-claims.ts';

const deployment = (name: string, uid: string, creationTimestamp = '2026-11-26T10:00:00Z'): NameClaim => ({
  metadata: { name, namespace: 'org', uid, creationTimestamp },
});

/** The claimants an index lookup finds for `name` among `stored`. */
function claimantsOf(name: string, stored: NameClaim[]): NameClaim[] {
  const index = new Map<string, NameClaim[]>();
  for (const object of stored) for (const key of indexChildNames(object)) index.set(key, [...(index.get(key) ?? []), object]);
  return nameClaimants('org', name, (key) => index.get(key) ?? []);
}

describe('name claims', () => {
  it('a deployment claims the names of its children', () => {
    expect(claimedNames('shop')).toEqual(['shop', 'shop-queue', 'shop-postgres', 'shop-redis', 'shop-secrets', 'shop-custom']);
    expect(indexChildNames(deployment('shop', 'u1'))).toContain('org/shop-queue');
  });

  it("refuses a new deployment whose name is an existing one's queue worker, and says which", () => {
    const shop = deployment('shop', 'u1');
    expect(nameRefusal({ metadata: { name: 'shop-queue', namespace: 'org' } }, claimantsOf('shop-queue', [shop]))).toEqual({
      reason: 'NameTaken',
      message: 'the name shop-queue would give its objects the name shop-queue, which deployment shop already uses; choose another name',
    });
  });

  it("refuses a dotted name whose children are a dashed name's", () => {
    const dashed = deployment('a-b', 'u1');
    expect(nameRefusal({ metadata: { name: 'a.b', namespace: 'org' } }, claimantsOf('a.b', [dashed]))?.reason).toBe('NameTaken');
  });

  it('lets names through that share a prefix but no child name', () => {
    const stored = [deployment('shop', 'u1'), deployment('shopping', 'u2')];
    expect(nameRefusal({ metadata: { name: 'shop-2', namespace: 'org' } }, claimantsOf('shop-2', stored))).toBeUndefined();
  });

  it('between two stored claims the earlier keeps the names, whatever order they are looked at in', () => {
    const first = deployment('shop', 'u2', '2026-11-26T10:00:00Z');
    const second = deployment('shop-queue', 'u1', '2026-11-26T10:00:01Z');
    const stored = [first, second];
    expect(nameRefusal(first, claimantsOf('shop', stored))).toBeUndefined();
    expect(nameRefusal(second, claimantsOf('shop-queue', stored))?.message).toContain('deployment shop already uses');
  });
});
