// Whether a relay's pods (the activator's, a proxy's) can open a connection to an app's pods under the
// NetworkPolicies of the app's namespace: NetworkPolicy v1 ingress, evaluated as the API defines it and
// kube-router enforces it, in three values. What Berth cannot see (a relay pod's labels or addresses, a
// namespace not cached, an unknown operator) is `unknown`, never `blocked`: only a sure answer changes a
// Deployment's status (docs/blocked-path.md). Pure.

export interface LabelSelector {
  matchLabels?: Readonly<Record<string, string>>;
  matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] }[];
}
export interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: readonly string[] };
}
export interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
/** A NetworkPolicy as the API serves it (`from`, not client-node's `_from`). */
export interface NetworkPolicyObject {
  metadata?: { name?: string; namespace?: string };
  spec?: {
    podSelector?: LabelSelector;
    policyTypes?: readonly string[];
    ingress?: readonly { from?: readonly PolicyPeer[]; ports?: readonly PolicyPort[] }[];
    egress?: readonly unknown[];
  };
}
/** Labels as far as they are known: with `complete` false, a key absent here may still be there. */
export interface KnownLabels {
  labels: Readonly<Record<string, string>>;
  complete: boolean;
}
export interface Relay {
  role: 'activator' | 'proxy';
  namespace: string;
  /** From the Namespace cache; otherwise only `kubernetes.io/metadata.name`, which the API server sets. */
  namespaceLabels: KnownLabels;
}
export interface AppPods {
  namespace: string;
  labels: Readonly<Record<string, string>>;
  port: { number: number; name?: string; protocol: string };
}
export type PathVerdict = { kind: 'open' } | { kind: 'unknown' | 'blocked'; policies: string[] };

type Tri = boolean | 'unknown';
const and = (a: Tri, b: Tri): Tri => (a === false || b === false ? false : a === true && b === true ? true : 'unknown');
const any = (values: readonly Tri[]): Tri => (values.includes(true) ? true : values.includes('unknown') ? 'unknown' : false);

/** What Berth knows of a namespace's labels without its Namespace object. */
export function namespaceNameOnly(namespace: string): KnownLabels {
  return { labels: { 'kubernetes.io/metadata.name': namespace }, complete: false };
}

/** Whether `selector` selects an object with `known` labels; `{}` (or none) selects everything. */
export function selectorMatches(selector: LabelSelector | undefined, known: KnownLabels): Tri {
  const { labels, complete } = known;
  const absent = (matches: boolean): Tri => (complete ? matches : 'unknown');
  const has = (key: string) => Object.hasOwn(labels, key);
  const requirements: Tri[] = [
    ...Object.entries(selector?.matchLabels ?? {}).map(([key, value]) => (has(key) ? labels[key] === value : absent(false))),
    ...(selector?.matchExpressions ?? []).map(({ key, operator, values = [] }): Tri => {
      switch (operator) {
        case 'In':
          return has(key) ? values.includes(labels[key] ?? '') : absent(false);
        case 'NotIn':
          return has(key) ? !values.includes(labels[key] ?? '') : absent(true);
        case 'Exists':
          return has(key) ? true : absent(false);
        case 'DoesNotExist':
          return has(key) ? false : absent(true);
        default:
          return 'unknown';
      }
    }),
  ];
  return requirements.reduce<Tri>(and, true);
}

/** The API's default: a policy without policyTypes affects Ingress (and Egress if it has egress rules). */
function affectsIngress(policy: NetworkPolicyObject): boolean {
  const types = policy.spec?.policyTypes ?? [];
  return types.length === 0 || types.includes('Ingress');
}

function peerAdmits(peer: PolicyPeer, policyNamespace: string, relay: Relay): Tri {
  // The relay pods' addresses are not known here, whatever the block and its exceptions.
  if (peer.ipBlock) return 'unknown';
  if (!peer.namespaceSelector && !peer.podSelector) return 'unknown';
  const namespace: Tri = peer.namespaceSelector
    ? selectorMatches(peer.namespaceSelector, relay.namespaceLabels)
    : relay.namespace === policyNamespace;
  // The relay pods' labels are not known: only `{}` surely selects them.
  const pods: Tri = peer.podSelector ? selectorMatches(peer.podSelector, { labels: {}, complete: false }) : true;
  return and(namespace, pods);
}

function portAdmits(port: PolicyPort, target: AppPods['port']): Tri {
  if ((port.protocol ?? 'TCP') !== target.protocol) return false;
  if (port.port === undefined) return true;
  if (typeof port.port === 'number') return target.number >= port.port && target.number <= (port.endPort ?? port.port);
  // A named port is resolved on the target pod.
  return port.port === target.name;
}

/** Whether `relay`'s pods can reach `app`'s pods through these NetworkPolicies (any namespace's given). */
export function ingressPath(policies: readonly NetworkPolicyObject[], app: AppPods, relay: Relay): PathVerdict {
  const appLabels = { labels: app.labels, complete: true };
  const isolating = policies.filter(
    (policy) =>
      policy.metadata?.namespace === app.namespace &&
      affectsIngress(policy) &&
      selectorMatches(policy.spec?.podSelector, appLabels) === true,
  );
  if (isolating.length === 0) return { kind: 'open' };
  const rules = isolating.flatMap((policy) => policy.spec?.ingress ?? []);
  const admitted = any(
    rules.map((rule) =>
      and(
        (rule.from ?? []).length === 0 ? true : any((rule.from ?? []).map((peer) => peerAdmits(peer, app.namespace, relay))),
        (rule.ports ?? []).length === 0 ? true : any((rule.ports ?? []).map((port) => portAdmits(port, app.port))),
      ),
    ),
  );
  if (admitted === true) return { kind: 'open' };
  const names = isolating.map((policy) => policy.metadata?.name ?? '').sort();
  return { kind: admitted === 'unknown' ? 'unknown' : 'blocked', policies: names };
}

const relayRole: Record<Relay['role'], string> = {
  activator: 'the activator, which holds requests while the app scales from zero',
  proxy: 'the proxy that carries requests to the app',
};

/** Why requests through the URL never arrive, and what admits them: names at most 5 policies. */
export function pathBlockedMessage(policies: readonly string[], relay: Relay, app: AppPods): string {
  const shown = policies.slice(0, 5).join(', ');
  const more = policies.length > 5 ? ` and ${policies.length - 5} more` : '';
  const port = `${app.port.protocol} port ${app.port.number}${app.port.name ? ` (${app.port.name})` : ''}`;
  return (
    `The NetworkPolicies that select this deployment's pods (${shown}${more}) admit no connection from ` +
    `namespace ${relay.namespace}, where ${relayRole[relay.role]} runs, on ${port}: requests through the URL time out. ` +
    `Admit namespace ${relay.namespace} in a NetworkPolicy that selects these pods.`
  );
}
