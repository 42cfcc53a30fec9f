import { describe, expect, it } from 'vitest';
import {
  claimedNames,
  gatewayNameClaimants,
  gatewayNameRefusal,
  gatewayNames,
  indexNameStems,
  nameClaimants,
  nameRefusal,
  type NameClaim,
} from './name-claims.ts';

const deployment = (name: string, uid: string, creationTimestamp = '2026-11-26T10:00:00Z'): NameClaim => ({
  metadata: { name, namespace: 'org', uid, creationTimestamp },
});

/** The nameStemIndex over `stored`, as an informer holds it. */
function indexOf(stored: NameClaim[]): (key: string) => NameClaim[] {
  const index = new Map<string, NameClaim[]>();
  for (const object of stored) for (const key of indexNameStems(object)) index.set(key, [...(index.get(key) ?? []), object]);
  return (key) => index.get(key) ?? [];
}

/** The claimants an index lookup finds for `name` among `stored`. */
function claimantsOf(name: string, stored: NameClaim[]): NameClaim[] {
  return nameClaimants('org', name, indexOf(stored));
}

describe('name claims', () => {
  it('a deployment claims the names of its children', () => {
    expect(claimedNames('shop')).toEqual([
      'shop',
      'shop-queue',
      'shop-canary',
      'shop-postgres',
      'shop-redis',
      'shop-secrets',
      'shop-custom',
    ]);
  });

  it('indexes most deployments by one stem, and one whose children are cut and hashed by each child name', () => {
    expect(indexNameStems(deployment('shop', 'u1'))).toEqual(['org/shop', 'gateway:org-shop']);
    expect(indexNameStems(deployment('a.b', 'u1'))).toEqual(['org/a-b', 'org/a.b', 'gateway:org-a-b']);
    const long = `shop-${'x'.repeat(50)}`;
    expect(indexNameStems(deployment(long, 'u1'))).toEqual([
      ...claimedNames(long).map((child) => `org/${child}`),
      ...gatewayNames('org', long).map((name) => `gateway:${name}`),
    ]);
    expect(claimedNames(long).some((child) => /-[0-9a-f]{8}-postgres$/.test(child))).toBe(true);
  });

  it('finds a long name whose cut child name another deployment takes whole, both ways', () => {
    const long = deployment(`shop-${'x'.repeat(50)}`, 'u1');
    const postgres = claimedNames(long.metadata.name!).find((child) => child.endsWith('-postgres') && child.length <= 52)!;
    const squatter = deployment(postgres, 'u2', '2026-11-26T11:00:00Z');
    expect(claimantsOf(postgres, [long, squatter])).toEqual(expect.arrayContaining([long, squatter]));
    expect(nameRefusal(squatter, claimantsOf(postgres, [long, squatter]))?.reason).toBe('NameTaken');
    expect(claimantsOf(long.metadata.name!, [long, squatter])).toEqual(expect.arrayContaining([long, squatter]));
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

describe('gatewayNameRefusal', () => {
  const at = (namespace: string, name: string, uid: string, createdAt: string) => ({
    metadata: { namespace, name, uid, creationTimestamp: createdAt },
  });
  const corpWeb = at('acme', 'corp-web', 'a', '2026-11-26T10:00:00Z');
  const web = at('acme-corp', 'web', 'b', '2026-11-26T11:00:00Z');

  it('refuses the later of two deployments of different namespaces that the Gateway would name alike', () => {
    expect(gatewayNames('acme', 'corp-web')).toContain('acme-corp-web');
    expect(gatewayNames('acme-corp', 'web')).toContain('acme-corp-web');
    const claimants = gatewayNameClaimants('acme-corp', 'web', indexOf([corpWeb, web]));
    expect(claimants).toEqual(expect.arrayContaining([corpWeb, web]));
    expect(gatewayNameClaimants('acme', 'corp-web', indexOf([corpWeb, web]))).toEqual(expect.arrayContaining([corpWeb, web]));
    expect(gatewayNameRefusal(web, claimants)?.reason).toBe('GatewayNameTaken');
    expect(gatewayNameRefusal(corpWeb, claimants)).toBeUndefined();
    // A new deployment (no uid yet) is refused by any claimant.
    expect(gatewayNameRefusal({ metadata: { namespace: 'acme-corp', name: 'web' } }, [corpWeb])?.message).toBe(
      'the name web in namespace acme-corp would be acme-corp-web at the Gateway, which a deployment of another organization already is; choose another name',
    );
  });

  it('folds runs of dashes as the Gateway does: `corp--web` of `acme` is `acme-corp-web` there too', () => {
    const folded = at('acme', 'corp--web', 'f', '2026-11-26T12:00:00Z');
    expect(gatewayNames('acme', 'corp--web')).toContain('acme-corp-web');
    const claimants = gatewayNameClaimants('acme', 'corp--web', indexOf([web, folded]));
    expect(claimants).toEqual(expect.arrayContaining([web, folded]));
    expect(gatewayNameRefusal(folded, claimants)?.reason).toBe('GatewayNameTaken');
    // The other way round: the folded name first keeps it.
    const earlyFolded = at('acme', 'corp--web', 'g', '2026-11-26T09:00:00Z');
    expect(gatewayNameRefusal(web, gatewayNameClaimants('acme-corp', 'web', indexOf([web, earlyFolded])))?.reason).toBe('GatewayNameTaken');
  });

  it('leaves deployments of one namespace to the child-name rule, and different names alone', () => {
    expect(
      gatewayNameRefusal(at('acme', 'web', 'c', '2026-11-26T12:00:00Z'), [at('acme', 'web2', 'd', '2026-11-26T09:00:00Z')]),
    ).toBeUndefined();
    expect(gatewayNameClaimants('acme-corp', 'shop', indexOf([corpWeb]))).toEqual([]);
    // A custom route's name (`-custom`) collides across namespaces too.
    const custom = at('acme', 'corp-web-custom', 'e', '2026-11-26T09:00:00Z');
    expect(gatewayNameClaimants('acme-corp', 'web', indexOf([custom, web]))).toEqual(expect.arrayContaining([custom]));
  });
});
