import { describe, expect, it } from 'vitest';
import { childNames, routeServiceNames } from './child-names.ts';
import { claimedNames, indexNameStems, nameClaimants, nameRefusal, type NameClaim } from './name-claims.ts';

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
      'shop-postgres-tls',
      'shop-db-1',
      'shop-db-1-rw',
      'shop-db-1-ro',
      'shop-db-1-r',
      'shop-db-2',
      'shop-db-2-rw',
      'shop-db-2-ro',
      'shop-db-2-r',
      'shop-redis',
      'shop-secrets',
      'shop-custom',
    ]);
  });

  it("refuses a later deployment named like the Services CloudNativePG gives an earlier one's database", () => {
    const shop = deployment('shop', 'u1');
    const squatter = deployment('shop-db-1-rw', 'u2', '2026-11-26T11:00:00Z');
    expect(nameRefusal(squatter, claimantsOf('shop-db-1-rw', [shop, squatter]))).toMatchObject({
      reason: 'NameTaken',
      message: expect.stringContaining('shop-db-1-rw'),
    });
  });

  it('indexes most deployments by one stem, and one whose children are cut and hashed by each child name', () => {
    expect(indexNameStems(deployment('shop', 'u1'))).toEqual(['org/shop']);
    expect(indexNameStems(deployment('a.b', 'u1'))).toEqual(['org/a-b', 'org/a.b']);
    const long = `shop-${'x'.repeat(50)}`;
    expect(indexNameStems(deployment(long, 'u1'))).toEqual(claimedNames(long).map((child) => `org/${child}`));
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

/** A backend's name as Traefik's Gateway provider writes it: `<namespace>-<service>-http-<port>`, every
 * run of characters other than letters and digits folded into one dash. */
const atGateway = (namespace: string, service: string) =>
  `${namespace}-${service}-http-80`
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join('-');

describe('route Services', () => {
  const acmeCorpWeb = { namespace: 'acme', name: 'corp-web', uid: '5e0c6d2a-0000-4000-8000-000000000001' };
  const acmeCorpFolded = { namespace: 'acme', name: 'corp--web', uid: '5e0c6d2a-0000-4000-8000-000000000002' };
  const corpWeb = { namespace: 'acme-corp', name: 'web', uid: '5e0c6d2a-0000-4000-8000-000000000003' };

  it('named after the deployment, two organizations would share one backend at the Gateway', () => {
    const names = [acmeCorpWeb, acmeCorpFolded, corpWeb].map((d) => atGateway(d.namespace, childNames(d.name).application));
    expect(new Set(names).size).toBe(1);
  });

  it('named from the uid, each deployment has a backend of its own, and its canary another', () => {
    const backends = [acmeCorpWeb, acmeCorpFolded, corpWeb].flatMap((d) => {
      const route = routeServiceNames(d.uid);
      return [atGateway(d.namespace, route.stable), atGateway(d.namespace, route.canary)];
    });
    expect(new Set(backends).size).toBe(6);
    expect(routeServiceNames(corpWeb.uid)).toEqual(routeServiceNames(corpWeb.uid));
    expect(routeServiceNames(corpWeb.uid).stable).toMatch(/^b[0-9a-f]{12}$/);
  });

  it('reserves their form: a deployment named like one is refused, before any child is written', () => {
    const squatter = deployment(routeServiceNames('victim').stable, 'u1');
    expect(nameRefusal(squatter, [])).toEqual({
      reason: 'NameReserved',
      message: expect.stringContaining('has the form of the Services Berth routes through'),
    });
    expect(nameRefusal(deployment(`c${'0'.repeat(12)}`, 'u2'), [])?.reason).toBe('NameReserved');
    expect(nameRefusal(deployment('b0123456789ab-x', 'u3'), [])).toBeUndefined();
    expect(nameRefusal(deployment('beef', 'u4'), [])).toBeUndefined();
  });
});
