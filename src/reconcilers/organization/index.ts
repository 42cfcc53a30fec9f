// The organization controller: every organization namespace (labelled berth.dev/organization-id) in
// Berth's scope gets the installation's ResourceQuota, LimitRange and NetworkPolicies
// (src/api/organization-policy.ts) and, with a registry, the organization's registry credential; an
// object Berth made for a part the installation no longer has, or in a namespace that is no longer an
// organization's, is deleted. With TLS for the apps' URLs, each organization also gets its wildcard
// Certificate and HTTPS listener on the Gateway (tls.ts). Objects are compared by the hash of what
// was applied, so a pass that finds them as rendered writes nothing; a deleted one comes back at once.
import type { V1Namespace, V1Secret } from '@kubernetes/client-node';
import { mintOrganizationToken, organizationUsername } from '../../registry/tokens.ts';
import {
  agentServerLicenseKey,
  agentServerLicenseSecretName,
  fieldManager,
  labels as apiLabels,
  organizationPolicyObjectName,
  podSecurityLabels,
  type AppTls,
  type HostPolicy,
  type OrganizationPolicy,
} from '../../api/index.ts';
import {
  applyObject,
  secretKind,
  watch,
  type Controller,
  type DeepReadonly,
  type Informer,
  type KubeObject,
  type Manager,
  type ResourceKind,
} from '../../runtime/index.ts';
import { databasePolicyName, policyObjectSelector, reachesNothing, renderOrganization, type InstallationReach } from './render.ts';
import { heldCustomHosts, keepOrganizationTls, organizationTlsCaches } from './tls.ts';
import { keepRendered } from './keep.ts';

export const namespaceKind: ResourceKind = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
const networkPolicyKind = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', plural: 'networkpolicies' };
const policyKinds = {
  resourceQuota: { apiVersion: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas' },
  limitRange: { apiVersion: 'v1', kind: 'LimitRange', plural: 'limitranges' },
  networkPolicy: networkPolicyKind,
  databaseNetworkPolicy: networkPolicyKind,
  registryCredentials: secretKind,
  agentServerLicense: secretKind,
} satisfies Record<string, ResourceKind>;

/** Each part's name in the namespace: berth-organization, but for the database pods' policy and the licence copy. */
const partNames: Record<keyof typeof policyKinds, string> = {
  resourceQuota: organizationPolicyObjectName,
  limitRange: organizationPolicyObjectName,
  networkPolicy: organizationPolicyObjectName,
  databaseNetworkPolicy: databasePolicyName,
  registryCredentials: organizationPolicyObjectName,
  agentServerLicense: agentServerLicenseSecretName,
};

export { gatewayShards, organizationCertificates } from './tls.ts';

export interface OrganizationControllerOptions {
  policy: OrganizationPolicy;
  /** Berth's registry for organizations' sources and images: its host and the key its credentials are signed with. */
  registry?: { host: string; key: Buffer };
  /** What the organization's NetworkPolicies give the installation's own parts (render.ts): the
   * namespaces admitted whatever its ingressFromNamespaces say (admittedNamespacesOf), and the addresses
   * its database pods reach whatever its blockedCidrs say (the API server, the backup store). */
  reach?: InstallationReach;
  /** Only these namespaces (Berth's --watch-namespaces). Default: all. */
  namespaces?: string[];
  /** TLS for the apps' URLs: a Certificate and a Gateway listener per organization, and for its
   * custom_url hosts whose claims hold under `hostPolicy`, within the organization's `maxCustomHosts`. */
  tls?: { config: AppTls; hostPolicy: HostPolicy; maxCustomHosts?: number | undefined };
  /** The platform's Secret holding the reference's agent server licence key, copied to each organization. */
  agentServerLicense?: { namespace: string; name: string };
}

/** Whether the namespace is this Berth's to keep: in its --watch-namespaces, or any without them. A
 * namespace outside them is another installation's, whatever it holds on a shared Gateway. */
function inScope(name: string, scope: readonly string[] | undefined): boolean {
  return !scope || scope.includes(name);
}

/** Whether the namespace is a live organization's in this scope (none: any). */
export function isOrganization(
  namespace: DeepReadonly<V1Namespace> | undefined,
  scope: readonly string[] | undefined,
): namespace is DeepReadonly<V1Namespace> {
  return Boolean(
    namespace &&
    !namespace.metadata?.deletionTimestamp &&
    namespace.metadata?.labels?.[apiLabels.organizationId] &&
    inScope(namespace.metadata.name ?? '', scope),
  );
}

export function registerOrganizationController(manager: Manager, options: OrganizationControllerOptions): Controller {
  const scope = options.namespaces ? { namespaces: options.namespaces } : {};
  const registry = options.registry;
  const registryFor = (namespace: { name: string; uid: string }) =>
    registry && {
      host: registry.host,
      username: organizationUsername,
      password: mintOrganizationToken(registry.key, { namespace: namespace.name, namespaceUid: namespace.uid }),
    };
  // The facade's namespace cache, shared: organizations are few, and one list serves both.
  const namespaces = manager.informer<V1Namespace>(namespaceKind);
  const children = Object.fromEntries(
    Object.entries(policyKinds).map(([part, kind]) => [part, manager.informer(kind, { ...scope, labelSelector: policyObjectSelector })]),
  ) as Record<keyof typeof policyKinds, Informer<KubeObject>>;
  const toNamespace = (object: DeepReadonly<KubeObject>) => [{ namespace: '', name: object.metadata?.namespace ?? '' }];
  const organizations = () =>
    namespaces
      .list()
      .filter((namespace) => isOrganization(namespace, options.namespaces))
      .map((namespace) => namespace.metadata!.name!);
  const tls = options.tls && organizationTlsCaches(manager, options.tls.config, organizations, options.namespaces);
  const license = options.agentServerLicense;
  const licenseSource = license && manager.informer<V1Secret>(secretKind, { namespaces: [license.namespace] });
  const licenseData = () => license && licenseSource?.get(license.namespace, license.name)?.data?.[agentServerLicenseKey];
  // A new or rotated key reaches every organization.
  const licenseWatch = licenseSource
    ? [
        watch({
          informer: licenseSource,
          map: (secret) => (secret.metadata?.name === license!.name ? organizations().map((name) => ({ namespace: '', name })) : []),
        }),
      ]
    : [];
  const controller = manager.addController({
    name: 'organization',
    informer: namespaces,
    watches: [...Object.values(children).map((informer) => ({ informer, map: toNamespace })), ...licenseWatch, ...(tls?.watches ?? [])],
    reconcile: async ({ name }) => {
      // Another Berth's organization's Certificate, seen in the shared Gateway namespace, is not this one's to remove.
      if (!inScope(name, options.namespaces)) return;
      const namespace = namespaces.get('', name);
      const owner = isOrganization(namespace, options.namespaces) ? { name, uid: namespace.metadata!.uid! } : undefined;
      const desired = owner
        ? renderOrganization(owner, options.policy, options.reach ?? reachesNothing, registryFor(owner), licenseData())
        : {};
      if (owner && options.policy.podSecurity) await enforcePodSecurity(manager, namespace!, podSecurityLabels(options.policy.podSecurity));
      for (const part of Object.keys(policyKinds) as (keyof typeof policyKinds)[]) {
        const wanted = desired[part as keyof typeof desired];
        const current = children[part].get(name, partNames[part]);
        const exactly = policyKinds[part] === networkPolicyKind ? specOf : undefined;
        await keepRendered(manager, policyKinds[part], { namespace: name, name: partNames[part] }, current, wanted as KubeObject, exactly);
      }
      if (tls) {
        const { config, hostPolicy, maxCustomHosts } = options.tls!;
        const wanted = owner ? { customHosts: heldCustomHosts(tls.caches.deployments, name, hostPolicy, maxCustomHosts) } : undefined;
        await keepOrganizationTls(manager, config, tls.caches, name, wanted);
      }
    },
  });
  return controller;
}

/** The NetworkPolicies are kept as rendered to the letter: a policy edited to select no pod, or with a rule
 * added, under the hash Berth wrote, is put back. */
const specOf = (object: DeepReadonly<KubeObject>) => (object as { spec?: unknown }).spec;

/** Its own field manager: the namespace's other labels (the organization's id) are not this one's to keep. */
const podSecurityManager = `${fieldManager}-pod-security`;

/** The namespace's Pod Security labels as the policy says, written only when one differs. Leaving
 * podSecurity out of the policy later leaves the labels in place (the platform team's to remove). */
async function enforcePodSecurity(manager: Manager, namespace: DeepReadonly<V1Namespace>, wanted: Record<string, string>): Promise<void> {
  const current = namespace.metadata?.labels ?? {};
  if (Object.entries(wanted).every(([key, value]) => current[key] === value)) return;
  await applyObject(
    manager.kubeConfig,
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace.metadata!.name!, labels: wanted } } as KubeObject,
    podSecurityManager,
  );
}
