import { describe, expect, it } from 'vitest';
import { renderNetworkPolicy } from '../reconcilers/organization/render.ts';
import { hardenedOrganizationPolicy } from './organization-policy.ts';
import {
  ingressPath,
  namespaceNameOnly,
  pathBlockedMessage,
  type AppPods,
  type NetworkPolicyObject,
  type PolicyPeer,
  type PolicyPort,
  type Relay,
} from './network-path.ts';

const app: AppPods = { namespace: 'acme', labels: { app: 'web', tier: 'app' }, port: { number: 8000, name: 'http', protocol: 'TCP' } };
const cachedRelay: Relay = {
  role: 'activator',
  namespace: 'keda',
  namespaceLabels: { labels: { 'kubernetes.io/metadata.name': 'keda', edge: 'true' }, complete: true },
};
const uncachedRelay: Relay = { role: 'activator', namespace: 'keda', namespaceLabels: namespaceNameOnly('keda') };

const policy = (name: string, spec: NetworkPolicyObject['spec'], namespace = 'acme'): NetworkPolicyObject => ({
  metadata: { name, namespace },
  spec,
});
const denyAll = policy('deny-all', { podSelector: {}, policyTypes: ['Ingress'] });
const admitting = (peer: PolicyPeer, ports?: PolicyPort[]) =>
  policy('admit', { podSelector: {}, ingress: [{ from: [peer], ...(ports ? { ports } : {}) }] });
const verdict = (policies: NetworkPolicyObject[], relay = cachedRelay) => ingressPath(policies, app, relay).kind;

describe('ingressPath: which policies isolate the pods', () => {
  it('is open with no policy, one that selects other pods, or one of another namespace', () => {
    expect(verdict([])).toBe('open');
    expect(verdict([policy('other', { podSelector: { matchLabels: { app: 'db' } }, policyTypes: ['Ingress'] })])).toBe('open');
    expect(verdict([policy('elsewhere', { podSelector: {}, policyTypes: ['Ingress'] }, 'other')])).toBe('open');
  });

  it('is blocked by a default deny, naming it', () => {
    expect(ingressPath([denyAll], app, cachedRelay)).toEqual({ kind: 'blocked', policies: ['deny-all'] });
  });

  it('takes Ingress as implied without policyTypes, and never from an Egress-only policy', () => {
    expect(verdict([policy('egress-rules', { podSelector: {}, egress: [{}] })])).toBe('blocked');
    expect(verdict([policy('egress-only', { podSelector: {}, policyTypes: ['Egress'], ingress: [] })])).toBe('open');
  });

  it('reads an empty rule as admitting all, and no rule as admitting none', () => {
    expect(verdict([policy('all', { podSelector: {}, ingress: [{}] })])).toBe('open');
    expect(verdict([policy('none', { podSelector: {}, ingress: [] })])).toBe('blocked');
  });
});

describe('ingressPath: peers', () => {
  it('reads a podSelector alone as the policy namespace only', () => {
    expect(verdict([admitting({ podSelector: {} })])).toBe('blocked');
  });

  it('admits every namespace with an empty namespaceSelector', () => {
    expect(verdict([admitting({ namespaceSelector: {} })])).toBe('open');
  });

  it('matches the relay namespace by its name label, cached or not', () => {
    const byName = (name: string) => admitting({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } });
    expect(verdict([byName('keda')])).toBe('open');
    expect(verdict([byName('keda')], uncachedRelay)).toBe('open');
    expect(verdict([byName('kube-system')])).toBe('blocked');
    expect(verdict([byName('kube-system')], uncachedRelay)).toBe('blocked');
  });

  it('ANDs the two selectors of one peer, and ORs separate peers', () => {
    const keda = { matchLabels: { 'kubernetes.io/metadata.name': 'keda' } };
    expect(verdict([admitting({ namespaceSelector: keda, podSelector: {} })])).toBe('open');
    expect(verdict([admitting({ namespaceSelector: keda, podSelector: { matchLabels: { app: 'x' } } })])).toBe('unknown');
    const other = { matchLabels: { 'kubernetes.io/metadata.name': 'other' } };
    expect(verdict([admitting({ namespaceSelector: other, podSelector: { matchLabels: { app: 'x' } } })])).toBe('blocked');
    const separate = policy('separate', {
      podSelector: {},
      ingress: [{ from: [{ namespaceSelector: keda }, { podSelector: { matchLabels: { app: 'x' } } }] }],
    });
    expect(verdict([separate])).toBe('open');
  });

  it('knows a label the relay namespace lacks only when the namespace is cached', () => {
    const edge = admitting({ namespaceSelector: { matchLabels: { edge: 'true' } } });
    expect(verdict([edge])).toBe('open');
    expect(
      verdict([edge], { ...cachedRelay, namespaceLabels: { labels: { 'kubernetes.io/metadata.name': 'keda' }, complete: true } }),
    ).toBe('blocked');
    expect(verdict([edge], uncachedRelay)).toBe('unknown');
  });

  it('evaluates matchExpressions, an absent key matching NotIn and DoesNotExist', () => {
    const expression = (operator: string, values?: string[]) =>
      admitting({ namespaceSelector: { matchExpressions: [{ key: 'edge', operator, ...(values ? { values } : {}) }] } });
    expect(verdict([expression('In', ['true'])])).toBe('open');
    expect(verdict([expression('NotIn', ['true'])])).toBe('blocked');
    expect(verdict([expression('Exists')])).toBe('open');
    expect(verdict([expression('DoesNotExist')])).toBe('blocked');
    const absent = { ...cachedRelay, namespaceLabels: { labels: {}, complete: true } };
    expect(verdict([expression('NotIn', ['true'])], absent)).toBe('open');
    expect(verdict([expression('DoesNotExist')], absent)).toBe('open');
    expect(verdict([expression('Gt', ['1'])])).toBe('unknown');
  });

  it('never says blocked where an ipBlock may admit the relay', () => {
    expect(verdict([admitting({ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } })])).toBe('unknown');
    expect(verdict([denyAll, admitting({ ipBlock: { cidr: '10.0.0.0/8' } })])).toBe('unknown');
  });
});

describe('ingressPath: ports', () => {
  const keda = { namespaceSelector: {} };
  it.each([
    [[{ port: 8000 }], 'open'],
    [[{ port: 9090 }], 'blocked'],
    [[{ port: 'http' }], 'open'],
    [[{ port: 'metrics' }], 'blocked'],
    [[{ protocol: 'UDP', port: 8000 }], 'blocked'],
    [[{ port: 7000, endPort: 8080 }], 'open'],
    [[{}], 'open'],
    [[{ protocol: 'UDP' }], 'blocked'],
  ] as [PolicyPort[], string][])('ports %j: %s', (ports, expected) => {
    expect(verdict([admitting(keda, ports)])).toBe(expected);
  });
});

describe('ingressPath: policies add up', () => {
  const owner = { name: 'acme', uid: 'u' };
  it('is open beside a default deny when another policy admits the relay', () => {
    expect(verdict([denyAll, admitting({ namespaceSelector: {} })])).toBe('open');
  });

  it("is open beside a default deny under the organization's policy that names the relay, and blocked without it", () => {
    const rendered = (relays: string[]) =>
      renderNetworkPolicy(owner, hardenedOrganizationPolicy, { admittedNamespaces: relays, databaseAddresses: [] }) as NetworkPolicyObject;
    expect(verdict([denyAll, rendered(['keda'])])).toBe('open');
    expect(ingressPath([denyAll, rendered([])], app, cachedRelay)).toEqual({
      kind: 'blocked',
      policies: ['berth-organization', 'deny-all'],
    });
  });
});

describe('pathBlockedMessage', () => {
  it('names the policies (five at most), the relay and the port', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const message = pathBlockedMessage(names, cachedRelay, app);
    expect(message).toContain('(a, b, c, d, e and 2 more)');
    expect(message).toContain('namespace keda, where the activator');
    expect(message).toContain('TCP port 8000 (http)');
  });
});
