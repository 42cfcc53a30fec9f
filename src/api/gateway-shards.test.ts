import { describe, expect, it } from 'vitest';
import {
  listenerOrganization,
  organizationTlsNames,
  renderCustomHostListener,
  renderOrganizationListener,
  type AppTls,
} from './app-tls.ts';
import { parseAppUrlTemplate, type AppUrlTemplate } from './app-urls.ts';
import {
  gatewayShardIndex,
  gatewayShardName,
  organizationShards,
  placeListeners,
  renderGatewayListenerPatch,
  routeListenerName,
  shardListeners,
} from './gateway-shards.ts';

const tls: AppTls = {
  issuer: { kind: 'ClusterIssuer', name: 'local-ca' },
  gateway: { namespace: 'kube-system', name: 'berth' },
  appUrls: parseAppUrlTemplate('https://{deployment}.{organization}.localhost:18443/') as AppUrlTemplate,
};

/** The listeners an organization wants: its wildcard and one per custom host. */
const wantedBy = (organization: string, hosts: number) => [
  renderOrganizationListener(tls, organization),
  ...Array.from({ length: hosts }, (_, i) => renderCustomHostListener(tls, organization, `h${i}.${organization}.example.com`)),
];

/** Places every organization's listeners in turn, as their passes would, onto the shards so far. */
function placeAll(organizations: [string, number][], limit?: number, start = new Map<number, string[]>()): Map<number, string[]> {
  const shards = new Map(start);
  for (const [organization, hosts] of organizations) {
    const names = organizationTlsNames(organization);
    for (const [index, listeners] of placeListeners(shards, names.ownsListener, wantedBy(organization, hosts), limit)) {
      const others = (shards.get(index) ?? []).filter((name) => !names.ownsListener(name));
      shards.set(index, [...others, ...listeners.map((listener) => listener.name)]);
    }
  }
  return shards;
}

describe('gateway shards', () => {
  it('are the Gateway itself and <gateway>-N, nothing else', () => {
    expect([0, 1, 12].map((i) => gatewayShardName('berth', i))).toEqual(['berth', 'berth-1', 'berth-12']);
    expect(['berth', 'berth-1', 'berth-12'].map((name) => gatewayShardIndex('berth', name))).toEqual([0, 1, 12]);
    for (const name of ['berth-0', 'berth-01', 'berth-x', 'berth-1-2', 'other', 'berthy-1', 'berth-'])
      expect(gatewayShardIndex('berth', name)).toBeUndefined();
  });

  it('hold 100 custom hosts of 10 organizations beside their wildcards, none with more than 64 listeners', () => {
    const shards = placeAll(
      Array.from({ length: 10 }, (_, i): [string, number] => [`org-${i}`, 10]),
      undefined,
      new Map([[0, ['web']]]),
    );
    expect([...shards.keys()].sort()).toEqual([0, 1]);
    expect(shards.get(0)).toHaveLength(64);
    expect(shards.get(1)).toHaveLength(110 + 1 - 64);
    expect(new Set([...shards.values()].flat()).size).toBe(111);
  });

  it('keep a listener where it is while it serves, fill a freed place first, and let a shard empty', () => {
    const first = placeAll(
      [
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ],
      2,
    );
    expect(Object.fromEntries(first)).toEqual({
      0: ['https-a', organizationTlsNames('a').customListener('h0.a.example.com')],
      1: ['https-b', organizationTlsNames('b').customListener('h0.b.example.com')],
      2: ['https-c', organizationTlsNames('c').customListener('h0.c.example.com')],
    });
    // a gives up its custom host: its wildcard stays on shard 0; d's first listener takes the freed place.
    const after = placeAll(
      [
        ['a', 0],
        ['d', 1],
      ],
      2,
      first,
    );
    expect(after.get(0)).toEqual(['https-a', 'https-d']);
    expect(after.get(1)).toEqual(first.get(1));
    expect(after.get(3)).toEqual([organizationTlsNames('d').customListener('h0.d.example.com')]);
    // An organization that goes leaves every shard it was on with none of its listeners.
    expect(placeListeners(after, organizationTlsNames('c').ownsListener, [], 2)).toEqual(new Map([[2, []]]));
  });

  it("are read from the cached Gateways of the configured one's name, a deleting one left out", () => {
    const gateway = (name: string, listeners: string[], deleting = false) => ({
      metadata: { name, ...(deleting ? { deletionTimestamp: new Date('2026-12-06T00:00:00Z') } : {}) },
      spec: { listeners: listeners.map((l) => ({ name: l })) },
    });
    const read = shardListeners('berth', [
      gateway('berth', ['web']),
      gateway('berth-1', ['https-a']),
      gateway('berth-2', ['x'], true),
      gateway('other', ['y']),
    ]);
    expect(Object.fromEntries(read)).toEqual({ 0: ['web'], 1: ['https-a'] });
    // A Deployment's pass reads where its organization's listeners are, off the configured Gateway.
    const custom = organizationTlsNames('a').customListener('shop.example.com');
    const cached = [gateway('berth', ['web', 'https-b']), gateway('berth-1', ['https-a', 'https-ab']), gateway('berth-2', [custom])];
    expect(organizationShards('berth', cached, 'a')).toEqual(
      new Map([
        ['https-a', 'berth-1'],
        [custom, 'berth-2'],
      ]),
    );
    expect(organizationShards('berth', cached, 'b')).toEqual(new Map());
  });

  it('name the organization whose listener each is, and no other', () => {
    expect(listenerOrganization('https-acme')).toBe('acme');
    expect(listenerOrganization(organizationTlsNames('acme-2').customListener('a.example.com'))).toBe('acme-2');
    for (const name of ['web', 'https-', 'https-acme.x', 'https-Acme', 'http-acme']) expect(listenerOrganization(name)).toBeUndefined();
  });
});

describe('a route', () => {
  it("is served by its organization's wildcard listener under it, else by its custom host's own", () => {
    expect(routeListenerName(tls, 'acme', 'shop.acme.localhost')).toBe('https-acme');
    expect(routeListenerName(tls, 'acme', 'Shop.ACME.localhost')).toBe('https-acme');
    expect(routeListenerName(tls, 'acme', 'a.shop.acme.localhost')).toBe(
      organizationTlsNames('acme').customListener('a.shop.acme.localhost'),
    );
    expect(routeListenerName(tls, 'acme', 'shop.example.com')).toBe(organizationTlsNames('acme').customListener('shop.example.com'));
  });
});

describe('the patch of a shard', () => {
  it('is the listeners alone on the configured Gateway, none to remove them', () => {
    const listener = renderOrganizationListener(tls, 'acme');
    expect(renderGatewayListenerPatch(tls, 0, [listener], 'traefik')).toEqual({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'berth', namespace: 'kube-system' },
      spec: { listeners: [listener] },
    });
    expect(renderGatewayListenerPatch(tls, 0, []).spec.listeners).toEqual([]);
  });

  it("makes a shard of the configured Gateway's class, labelled as its", () => {
    expect(renderGatewayListenerPatch(tls, 2, [], 'traefik')).toMatchObject({
      metadata: { name: 'berth-2', namespace: 'kube-system', labels: { 'berth.dev/gateway-shard-of': 'berth' } },
      spec: { gatewayClassName: 'traefik', listeners: [] },
    });
  });
});
