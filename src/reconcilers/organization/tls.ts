// An organization's TLS (src/api/app-tls.ts): its wildcard Certificate and HTTPS listener on the
// Gateway, and, while its Deployments hold custom_url hosts, one Certificate naming them and a listener
// per host; kept while the namespace is an organization's and removed with it. A custom host gets a
// certificate only once its claim holds (the rule the HTTP API and the Deployment's controller apply),
// so no team is ever issued another's host. Read from the caches; written only when they differ from
// what is rendered. The listeners are applied by a field manager of the organization's own, so the
// Gateway's other listeners are never touched.
import {
  certificateKind,
  customHostIndex,
  customHostLimitRefusal,
  customHostOf,
  deploymentKind,
  gatewayKind,
  gatewayShardIndex,
  hostRefusal,
  indexCustomHost,
  organizationTlsNames,
  renderCustomHostListener,
  renderCustomHostsCertificate,
  renderOrganizationCertificate,
  renderOrganizationListener,
  tlsOrganizationLabel,
  type AppTls,
  type Deployment,
  type GatewayListener,
  type GatewayObject,
  type HostPolicy,
} from '../../api/index.ts';
import {
  deleteObject,
  secretKind,
  watch,
  type DeepReadonly,
  type Informer,
  type KubeObject,
  type Manager,
  optional,
  unlessStatusOnly,
} from '../../runtime/index.ts';
import { withAppliedHash } from '../../runtime/applied-hash.ts';
import { keepRendered } from './keep.ts';
import { keepListeners } from './listeners.ts';

export interface OrganizationTlsCaches {
  certificates: Informer<KubeObject>;
  gateways: Informer<GatewayObject>;
  deployments: Informer<Deployment>;
}

type Key = { namespace: string; name: string };

/** The caches TLS reads, and how their events map to organizations: a Certificate to its own, the
 * Gateway and its shards to every one (they carry all their listeners; a shard's status, which its
 * implementation writes often, to none), a Deployment whose custom host or its recorded
 * claim comes or goes to its namespace. */
export function organizationTlsCaches(manager: Manager, tls: AppTls, organizations: () => string[], namespaces?: string[]) {
  const caches: OrganizationTlsCaches = {
    certificates: organizationCertificates(manager, tls),
    gateways: gatewayShards(manager, tls),
    // The Deployments' controller's cache, shared: the same scope, and the index it keeps too.
    deployments: manager.informer<Deployment>(deploymentKind, {
      ...optional('namespaces', namespaces),
      indexes: { [customHostIndex]: indexCustomHost },
    }),
  };
  const toNamespace = (name: string): Key => ({ namespace: '', name });
  const claimOf = (d: DeepReadonly<Deployment>) =>
    `${customHostOf(d) ?? ''} ${d.status?.customHostClaim?.host ?? ''} ${d.metadata?.deletionTimestamp ? 'deleting' : ''} ${d.metadata?.creationTimestamp ?? ''}`;
  const watches = [
    watch({
      informer: caches.certificates,
      map: (o) => [toNamespace(o.metadata?.labels?.[tlsOrganizationLabel] ?? '')],
    }),
    watch({
      informer: caches.gateways,
      map: (o) => (gatewayShardIndex(tls.gateway.name, o.metadata?.name ?? '') !== undefined ? organizations().map(toNamespace) : []),
      changed: unlessStatusOnly,
    }),
    watch({
      informer: caches.deployments,
      map: (d) => [toNamespace(d.metadata?.namespace ?? '')],
      changed: (d, previous) => claimOf(d) !== claimOf(previous),
    }),
  ];
  return { caches, watches };
}

/** The Gateways of the configured one's namespace, its shards among them: one cache, shared with the
 * Deployments' controller, whose routes name the shard that serves their host. */
export function gatewayShards(manager: Manager, tls: AppTls): Informer<GatewayObject> {
  return manager.informer<GatewayObject>(gatewayKind, { namespaces: [tls.gateway.namespace] });
}

/** The organizations' Certificates, in the Gateway's namespace: one cache, shared with the Deployments'
 * controller, which reports their readiness. */
export function organizationCertificates(manager: Manager, tls: AppTls): Informer<KubeObject> {
  return manager.informer(certificateKind, { namespaces: [tls.gateway.namespace], labelSelector: tlsOrganizationLabel });
}

/** The custom_url hosts of the organization's Deployments whose claims hold, sorted: claims the
 * Deployment's controller accepted and recorded in the status (after the organization proved it owns
 * the host, where the installation asks), still within the installation's rules and the organization's
 * `maxCustomHosts`. */
export function heldCustomHosts(
  deployments: Pick<Informer<Deployment>, 'list' | 'byIndex'>,
  organization: string,
  policy: HostPolicy,
  maxCustomHosts?: number,
): string[] {
  const hosts = new Set<string>();
  const all = deployments.list(organization);
  for (const deployment of all) {
    const host = customHostOf(deployment);
    if (!host || deployment.metadata.deletionTimestamp || deployment.status?.customHostClaim?.host !== host) continue;
    if (hostRefusal(deployment, deployments.byIndex(customHostIndex, host), policy)) continue;
    if (!customHostLimitRefusal(deployment, () => all, maxCustomHosts)) hosts.add(host);
  }
  return [...hosts].sort();
}

/** Keeps the organization's Certificates and listeners for its custom hosts, or removes them all
 * (`wanted` undefined: no longer an organization). */
export async function keepOrganizationTls(
  manager: Manager,
  tls: AppTls,
  caches: OrganizationTlsCaches,
  organization: string,
  wanted: { customHosts: readonly string[] } | undefined,
): Promise<void> {
  const names = organizationTlsNames(organization);
  const hosts = wanted?.customHosts ?? [];
  await keepCertificate(manager, tls, caches, names.certificate, names.secret, wanted && renderOrganizationCertificate(tls, organization));
  const custom = wanted && hosts.length > 0 ? renderCustomHostsCertificate(tls, organization, hosts) : undefined;
  await keepCertificate(manager, tls, caches, names.customCertificate, names.customSecret, custom);

  const listeners: GatewayListener[] = wanted
    ? [renderOrganizationListener(tls, organization), ...hosts.map((host) => renderCustomHostListener(tls, organization, host))]
    : [];
  await keepListeners(manager, tls, caches.gateways, organization, listeners);
}

async function keepCertificate(
  manager: Manager,
  tls: AppTls,
  caches: OrganizationTlsCaches,
  name: string,
  secret: string,
  rendered: object | undefined,
): Promise<void> {
  const at = (objectName: string) => ({ namespace: tls.gateway.namespace, name: objectName });
  const current = caches.certificates.get(tls.gateway.namespace, name);
  const certificate = rendered && withAppliedHash(rendered as KubeObject);
  // cert-manager leaves the key's Secret behind unless told otherwise; it is the organization's key.
  if (await keepRendered(manager, certificateKind, at(name), current, certificate))
    await deleteObject(manager.kubeConfig, secretKind, at(secret));
}
