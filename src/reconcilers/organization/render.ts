// The objects Berth keeps in one organization namespace: a ResourceQuota, a LimitRange and a
// NetworkPolicy from the organization policy, and the organization's registry credential (a pull secret
// the kubelet and the organization's builds use), each named berth-organization, the NetworkPolicy of its
// database pods (berth-organization-databases) and the platform's licence key of the reference's agent
// server (berth-agent-server-license); labelled as Berth's, owned by the Namespace (they go with it). A
// part the installation leaves out renders nothing. Pure.
import type { V1LimitRange, V1ObjectMeta, V1ResourceQuota, V1Secret } from '@kubernetes/client-node';
import {
  agentServerLicenseKey,
  agentServerLicenseSecretName,
  managedSecretLabels,
  organizationPolicyObjectName,
  type OrganizationPolicy,
} from '../../api/index.ts';
import { withAppliedHash } from '../../runtime/applied-hash.ts';
import { labelSelectorOf } from '../../runtime/label-selector.ts';
import { clusterDnsEgress } from '../../api/cluster-dns.ts';

/** The label that marks what Berth made, and what its informers of these kinds select. */
export const policyObjectLabels = {
  'app.kubernetes.io/managed-by': 'berth',
  'app.kubernetes.io/component': 'organization-policy',
} as const;
export const policyObjectSelector = labelSelectorOf(policyObjectLabels);

/** A NetworkPolicy as the API server reads it (client-node's type spells `from` as `_from`). */
export interface NetworkPolicyManifest {
  apiVersion: 'networking.k8s.io/v1';
  kind: 'NetworkPolicy';
  metadata: V1ObjectMeta;
  spec: object;
}

export interface OwnerNamespace {
  name: string;
  uid: string;
}

function metadata(namespace: OwnerNamespace, name = organizationPolicyObjectName) {
  return {
    name,
    namespace: namespace.name,
    labels: { ...policyObjectLabels },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: namespace.name, uid: namespace.uid }],
  };
}

export function renderResourceQuota(namespace: OwnerNamespace, policy: OrganizationPolicy): V1ResourceQuota | undefined {
  if (!policy.resourceQuota) return undefined;
  return withAppliedHash({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: metadata(namespace), spec: { hard: policy.resourceQuota } });
}

export function renderLimitRange(namespace: OwnerNamespace, policy: OrganizationPolicy): V1LimitRange | undefined {
  if (!policy.limitRange) return undefined;
  return withAppliedHash({
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: metadata(namespace),
    spec: { limits: [{ type: 'Container', ...policy.limitRange }] },
  });
}

/** Every address of one family but the blocked networks. */
function outside(cidr: string, except: string[]) {
  return { ipBlock: { cidr, ...(except.length > 0 ? { except } : {}) } };
}

/** The namespace with this name, by the label the API server gives every namespace. */
function namespaceNamed(name: string): Record<string, string> {
  return { 'kubernetes.io/metadata.name': name };
}

/** What runs in namespaces of its own and reaches organization pods, as the installation is configured. */
export interface InstallationParts {
  /** The namespaces whose pods carry apps' requests to them: the activator's proxy, the Gateway, the
   * proxies of --proxy-namespace. */
  relays: readonly (string | undefined)[];
  /** CloudNativePG's operator, where the cluster serves its Cluster: it checks each database instance. */
  databaseOperator?: string;
}

/** The namespaces whose pods every organization's NetworkPolicy admits, whatever its
 * ingressFromNamespaces say: the installation's own parts. Pure. */
export function admittedNamespacesOf({ relays, databaseOperator }: InstallationParts): string[] {
  return [...new Set([...relays, databaseOperator].filter((name): name is string => Boolean(name)))];
}

/** An address and TCP port of the installation's own that organizations' database pods reach whatever
 * the blocked networks: the API server, the backup store. */
export interface ReachedAddress {
  ip: string;
  port: number;
}

/** Egress to one address's TCP port. */
function toAddress({ ip, port }: ReachedAddress) {
  return { to: [{ ipBlock: { cidr: `${ip}/${ip.includes(':') ? 128 : 32}` } }], ports: [{ protocol: 'TCP', port }] };
}

/** What every organization's NetworkPolicies give the installation's own parts: the namespaces whose
 * pods reach the organization's (admittedNamespacesOf), and the addresses its database pods reach
 * whatever blockedCidrs say. */
export interface InstallationReach {
  admittedNamespaces: readonly string[];
  databaseAddresses: readonly ReachedAddress[];
}

export const reachesNothing: InstallationReach = { admittedNamespaces: [], databaseAddresses: [] };

/**
 * The organization's NetworkPolicy. Besides its own namespace and the policy's ingressFromNamespaces,
 * the namespaces of the installation's own parts reach its pods (`admittedNamespaces`,
 * admittedNamespacesOf: its activator's proxy, its Gateway, CloudNativePG's operator): an installation
 * never has to list what its own configuration names, a dev_zero app's URL answers under the default
 * policy, and a database on CloudNativePG becomes Ready.
 */
export function renderNetworkPolicy(
  namespace: OwnerNamespace,
  policy: OrganizationPolicy,
  { admittedNamespaces }: InstallationReach = reachesNothing,
): NetworkPolicyManifest | undefined {
  const network = policy.networkPolicy;
  if (!network) return undefined;
  const sameNamespace = { podSelector: {} };
  const admitted = uniqueLabelSets([...admittedNamespaces.map(namespaceNamed), ...network.ingressFromNamespaces]);
  return withAppliedHash({
    apiVersion: 'networking.k8s.io/v1' as const,
    kind: 'NetworkPolicy' as const,
    metadata: metadata(namespace),
    spec: {
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [sameNamespace, ...admitted.map((matchLabels) => ({ namespaceSelector: { matchLabels } }))] }],
      egress: [
        { to: [sameNamespace] },
        clusterDnsEgress,
        {
          to: [
            outside(
              '0.0.0.0/0',
              network.blockedCidrs.filter((c) => !c.includes(':')),
            ),
            outside(
              '::/0',
              network.blockedCidrs.filter((c) => c.includes(':')),
            ),
          ],
        },
      ],
    },
  });
}

/** The second NetworkPolicy's name: egress alone, for the organization's database pods. */
export const databasePolicyName = `${organizationPolicyObjectName}-databases`;

/** What CloudNativePG labels each pod of a Cluster with, its instances' and its jobs' (initdb,
 * recovery) alike. */
const databasePodSelector = { matchExpressions: [{ key: 'cnpg.io/cluster', operator: 'Exists' }] };

/**
 * Where the organization's database pods go whatever blockedCidrs say (NetworkPolicies add up): each of
 * `databaseAddresses` on its one port, and nothing more. Their instance manager reads its Cluster from
 * the API server, and they archive and back up into the backup store; a platform that blocks the nodes'
 * or the storage network (as it should, for the apps' sake) still has databases that start and are
 * backed up, while the apps' pods stay out of both. Undefined without a NetworkPolicy (nothing is
 * blocked) or such addresses.
 */
export function renderDatabaseNetworkPolicy(
  namespace: OwnerNamespace,
  policy: OrganizationPolicy,
  { databaseAddresses }: InstallationReach = reachesNothing,
): NetworkPolicyManifest | undefined {
  if (!policy.networkPolicy || databaseAddresses.length === 0) return undefined;
  return withAppliedHash({
    apiVersion: 'networking.k8s.io/v1' as const,
    kind: 'NetworkPolicy' as const,
    metadata: metadata(namespace, databasePolicyName),
    spec: { podSelector: databasePodSelector, policyTypes: ['Egress'], egress: databaseAddresses.map(toAddress) },
  });
}

/** Each label set once, in the order first given. */
function uniqueLabelSets(sets: readonly Record<string, string>[]): Record<string, string>[] {
  const seen = new Set<string>();
  return sets.filter((set) => {
    const key = JSON.stringify(Object.entries(set).sort(([a], [b]) => a.localeCompare(b)));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The organization's registry: its host, and the credential its token endpoint knows the organization by. */
export interface OrganizationRegistry {
  host: string;
  username: string;
  password: string;
}

/** A kubernetes.io/dockerconfigjson Secret: the kubelet pulls with it (imagePullSecrets), and a build
 * mounts it as its Docker config (BuildKit pushes with it, the fetch step reads sources with it). */
export function renderRegistryCredentials(namespace: OwnerNamespace, registry: OrganizationRegistry | undefined): V1Secret | undefined {
  if (!registry) return undefined;
  const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64');
  const config = { auths: { [registry.host]: { username: registry.username, password: registry.password, auth } } };
  return withAppliedHash({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: { ...metadata(namespace), labels: { ...policyObjectLabels, ...managedSecretLabels } },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  });
}

/** The platform's licence key for the reference's agent server image (base64, as its Secret holds it),
 * where the organization's agent servers read it (src/api/agent-server-license.ts). Undefined while the
 * installation names none or its Secret has none. */
export function renderAgentServerLicense(namespace: OwnerNamespace, licenseData: string | undefined): V1Secret | undefined {
  if (!licenseData) return undefined;
  return withAppliedHash({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { ...metadata(namespace), name: agentServerLicenseSecretName, labels: { ...policyObjectLabels, ...managedSecretLabels } },
    data: { [agentServerLicenseKey]: licenseData },
  });
}

/** Every object Berth keeps in one organization namespace, by kind; undefined where the installation has no such part. */
export function renderOrganization(
  namespace: OwnerNamespace,
  policy: OrganizationPolicy,
  reach: InstallationReach,
  registry?: OrganizationRegistry,
  agentServerLicense?: string,
) {
  return {
    resourceQuota: renderResourceQuota(namespace, policy),
    limitRange: renderLimitRange(namespace, policy),
    networkPolicy: renderNetworkPolicy(namespace, policy, reach),
    databaseNetworkPolicy: renderDatabaseNetworkPolicy(namespace, policy, reach),
    registryCredentials: renderRegistryCredentials(namespace, registry),
    agentServerLicense: renderAgentServerLicense(namespace, agentServerLicense),
  };
}
