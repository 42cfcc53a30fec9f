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
  hostRefusal,
  indexCustomHost,
  organizationTlsNames,
  renderCustomHostListener,
  renderCustomHostsCertificate,
  renderGatewayListenerPatch,
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
  applyObject,
  deleteObject,
  secretKind,
  watch,
  type DeepReadonly,
  type Informer,
  type KubeObject,
  type Manager,
  optional,
} from '../../runtime/index.ts';
import { withAppliedHash } from '../../runtime/applied-hash.ts';
import { keepRendered } from './keep.ts';

export interface OrganizationTlsCaches {
  certificates: Informer<KubeObject>;
  gateways: Informer<GatewayObject>;
  deployments: Informer<Deployment>;
}

type Key = { namespace: string; name: string };

/** The caches TLS reads, and how their events map to organizations: a Certificate to its own, the
 * Gateway to every one (it carries all their listeners), a Deployment whose custom host or its recorded
 * claim comes or goes to its namespace. */
export function organizationTlsCaches(manager: Manager, tls: AppTls, organizations: () => string[], namespaces?: string[]) {
  const caches: OrganizationTlsCaches = {
    certificates: organizationCertificates(manager, tls),
    gateways: manager.informer<GatewayObject>(gatewayKind, { namespaces: [tls.gateway.namespace] }),
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
      map: (o) => (o.metadata?.name === tls.gateway.name ? organizations().map(toNamespace) : []),
    }),
    watch({
      informer: caches.deployments,
      map: (d) => [toNamespace(d.metadata?.namespace ?? '')],
      changed: (d, previous) => claimOf(d) !== claimOf(previous),
    }),
  ];
  return { caches, watches };
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
  const gateway = caches.gateways.get(tls.gateway.namespace, tls.gateway.name);
  if (!gateway) return;
  const present = (gateway.spec?.listeners ?? []).filter((listener) => names.ownsListener(listener.name ?? ''));
  const same =
    present.length === listeners.length &&
    listeners.every((listener) =>
      includes(
        present.find((p) => p.name === listener.name),
        listener,
      ),
    );
  if (!same) await applyObject(manager.kubeConfig, renderGatewayListenerPatch(tls, listeners) as KubeObject, names.fieldManager);
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

/** Whether `actual` has every field of `wanted`, with the same values (lists compared item by item). */
export function includes(actual: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted))
    return Array.isArray(actual) && actual.length === wanted.length && wanted.every((item, i) => includes(actual[i], item));
  if (wanted && typeof wanted === 'object')
    return (
      !!actual &&
      typeof actual === 'object' &&
      Object.entries(wanted).every(([key, value]) => includes((actual as Record<string, unknown>)[key], value))
    );
  return actual === wanted;
}
