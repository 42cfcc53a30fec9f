import { describe, expect, it } from 'vitest';
import { organizationPolicySchema } from '../../api/index.ts';
import { appliedHashOf } from '../../runtime/applied-hash.ts';
import { admittedNamespacesOf, reachesNothing, renderOrganization } from './render.ts';

const namespace = { name: 'org-a', uid: '0f0c1a52-7a47-4c36-9d36-4a8d2c6f7b10' };

describe('renderOrganization', () => {
  it('renders nothing for an empty policy', () => {
    expect(renderOrganization(namespace, organizationPolicySchema.parse({}), reachesNothing)).toEqual({
      resourceQuota: undefined,
      limitRange: undefined,
      networkPolicy: undefined,
      registryCredentials: undefined,
    });
  });

  it('renders the quota and the container limits as given, owned by the namespace', () => {
    const { resourceQuota, limitRange } = renderOrganization(
      namespace,
      organizationPolicySchema.parse({
        resourceQuota: { pods: '10' },
        limitRange: { defaultRequest: { cpu: '50m' }, max: { memory: '2Gi' } },
      }),
      reachesNothing,
    );
    expect(resourceQuota?.spec).toEqual({ hard: { pods: '10' } });
    expect(resourceQuota?.metadata?.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Namespace', name: 'org-a', uid: namespace.uid }]);
    expect(limitRange?.spec).toEqual({ limits: [{ type: 'Container', defaultRequest: { cpu: '50m' }, max: { memory: '2Gi' } }] });
    expect(appliedHashOf(resourceQuota)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('keeps pods to their namespace, cluster DNS and the outside but the blocked networks, per address family', () => {
    const { networkPolicy } = renderOrganization(
      namespace,
      organizationPolicySchema.parse({
        networkPolicy: {
          blockedCidrs: ['10.244.0.0/16', '169.254.169.254/32', 'fd00::/8'],
          ingressFromNamespaces: [{ 'kubernetes.io/metadata.name': 'gateway' }],
        },
      }),
      reachesNothing,
    );
    expect(networkPolicy?.spec).toEqual({
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [{ podSelector: {} }, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'gateway' } } }] }],
      egress: [
        { to: [{ podSelector: {} }] },
        {
          to: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
              podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
            },
          ],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ],
        },
        {
          to: [
            { ipBlock: { cidr: '0.0.0.0/0', except: ['10.244.0.0/16', '169.254.169.254/32'] } },
            { ipBlock: { cidr: '::/0', except: ['fd00::/8'] } },
          ],
        },
      ],
    });
  });

  it("admits the installation's own namespaces, once each, before those the policy lists", () => {
    const { networkPolicy } = renderOrganization(
      namespace,
      organizationPolicySchema.parse({
        networkPolicy: { blockedCidrs: [], ingressFromNamespaces: [{ 'kubernetes.io/metadata.name': 'gateway' }, { team: 'edge' }] },
      }),
      { admittedNamespaces: ['kube-system', 'gateway'], databaseAddresses: [] },
    );
    const named = (name: string) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } });
    expect((networkPolicy?.spec as { ingress: unknown[] }).ingress).toEqual([
      { from: [{ podSelector: {} }, named('kube-system'), named('gateway'), { namespaceSelector: { matchLabels: { team: 'edge' } } }] },
    ]);
  });

  it("lets database pods alone reach the installation's addresses, each on its one port, even inside the blocked networks", () => {
    const blocking = organizationPolicySchema.parse({
      networkPolicy: { blockedCidrs: ['10.0.0.0/8', 'fd00::/8'], ingressFromNamespaces: [] },
    });
    const reach = {
      admittedNamespaces: [],
      databaseAddresses: [
        { ip: '10.243.0.1', port: 6443 },
        { ip: 'fd00::7', port: 443 },
      ],
    };
    const { networkPolicy, databaseNetworkPolicy } = renderOrganization(namespace, blocking, reach);
    expect(databaseNetworkPolicy?.metadata).toMatchObject({ name: 'berth-organization-databases', namespace: 'org-a' });
    expect(databaseNetworkPolicy?.spec).toEqual({
      podSelector: { matchExpressions: [{ key: 'cnpg.io/cluster', operator: 'Exists' }] },
      policyTypes: ['Egress'],
      egress: [
        { to: [{ ipBlock: { cidr: '10.243.0.1/32' } }], ports: [{ protocol: 'TCP', port: 6443 }] },
        { to: [{ ipBlock: { cidr: 'fd00::7/128' } }], ports: [{ protocol: 'TCP', port: 443 }] },
      ],
    });
    // Every other pod stays out of the blocked networks, these addresses included.
    const egress = (networkPolicy?.spec as { egress: unknown[] }).egress;
    expect(egress).toHaveLength(3);
    expect(egress[2]).toEqual({
      to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }, { ipBlock: { cidr: '::/0', except: ['fd00::/8'] } }],
    });
    // Nothing blocked, or nothing to reach: no second policy.
    expect(renderOrganization(namespace, organizationPolicySchema.parse({}), reach).databaseNetworkPolicy).toBeUndefined();
    expect(renderOrganization(namespace, blocking, reachesNothing).databaseNetworkPolicy).toBeUndefined();
  });

  it("admits the installation's own parts: its relays, and CloudNativePG's operator where the cluster serves it", () => {
    expect(admittedNamespacesOf({ relays: ['kube-system', undefined, 'gateway', 'kube-system'] })).toEqual(['kube-system', 'gateway']);
    expect(admittedNamespacesOf({ relays: ['gateway'], databaseOperator: 'cnpg-system' })).toEqual(['gateway', 'cnpg-system']);
    expect(admittedNamespacesOf({ relays: [], databaseOperator: 'gateway' })).toEqual(['gateway']);
  });

  it('renders the registry credential as a pull secret for the registry host, the same at every pass', () => {
    const registry = { host: '10.243.0.1:5001', username: 'berth-organization', password: 'bor_x.y' };
    const { registryCredentials } = renderOrganization(namespace, organizationPolicySchema.parse({}), reachesNothing, registry);
    expect(registryCredentials?.type).toBe('kubernetes.io/dockerconfigjson');
    const config = JSON.parse(Buffer.from(registryCredentials?.data?.['.dockerconfigjson'] ?? '', 'base64').toString());
    expect(config).toEqual({
      auths: {
        '10.243.0.1:5001': {
          username: 'berth-organization',
          password: 'bor_x.y',
          auth: Buffer.from('berth-organization:bor_x.y').toString('base64'),
        },
      },
    });
    expect(appliedHashOf(registryCredentials)).toBe(
      appliedHashOf(renderOrganization(namespace, organizationPolicySchema.parse({}), reachesNothing, registry).registryCredentials),
    );
  });
});
