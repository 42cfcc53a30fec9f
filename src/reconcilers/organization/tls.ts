// An organization's TLS (src/api/app-tls.ts): its wildcard Certificate and its HTTPS listener on the
// Gateway, kept while the namespace is an organization's and removed with it. Read from the caches;
// written only when they differ from what is rendered. The listener is applied by a field manager of
// the organization's own, so the Gateway's other listeners are never touched.
import {
  certificateKind,
  fieldManager,
  gatewayKind,
  organizationTlsNames,
  renderGatewayListenerPatch,
  renderOrganizationCertificate,
  renderOrganizationListener,
  tlsOrganizationLabel,
  type AppTls,
} from '../../api/index.ts';
import { applyObject, deleteObject, type DeepReadonly, type Informer, type KubeObject, type Manager } from '../../runtime/index.ts';
import { appliedHashOf, withAppliedHash } from '../deployment/compare.ts';

export interface OrganizationTlsCaches {
  certificates: Informer<KubeObject>;
  gateways: Informer<KubeObject>;
}

/** The caches of the Gateway's namespace, and how their events map to organizations: a Certificate to
 * its own, the Gateway to every one (it carries all their listeners). */
export function organizationTlsCaches(manager: Manager, tls: AppTls, organizations: () => string[]) {
  const caches: OrganizationTlsCaches = {
    certificates: organizationCertificates(manager, tls),
    gateways: manager.informer(gatewayKind, { namespaces: [tls.gateway.namespace] }),
  };
  const toNamespace = (name: string) => ({ namespace: '', name });
  const watches = [
    {
      informer: caches.certificates,
      map: (o: DeepReadonly<KubeObject>) => [toNamespace(o.metadata?.labels?.[tlsOrganizationLabel] ?? '')],
    },
    {
      informer: caches.gateways,
      map: (o: DeepReadonly<KubeObject>) => (o.metadata?.name === tls.gateway.name ? organizations().map(toNamespace) : []),
    },
  ];
  return { caches, watches };
}

/** The organizations' Certificates, in the Gateway's namespace: one cache, shared with the Deployments'
 * controller, which reports their readiness. */
export function organizationCertificates(manager: Manager, tls: AppTls): Informer<KubeObject> {
  return manager.informer(certificateKind, { namespaces: [tls.gateway.namespace], labelSelector: tlsOrganizationLabel });
}

/** Keeps (`wanted`) or removes the organization's Certificate and listener. */
export async function keepOrganizationTls(
  manager: Manager,
  tls: AppTls,
  caches: OrganizationTlsCaches,
  organization: string,
  wanted: boolean,
): Promise<void> {
  const names = organizationTlsNames(organization);
  const at = (name: string) => ({ namespace: tls.gateway.namespace, name });
  const certificate = wanted ? withAppliedHash(renderOrganizationCertificate(tls, organization)) : undefined;
  const current = caches.certificates.get(tls.gateway.namespace, names.certificate);
  if (certificate && appliedHashOf(current) !== appliedHashOf(certificate as KubeObject))
    await applyObject(manager.kubeConfig, certificate as KubeObject, fieldManager);
  if (!certificate && current) {
    await deleteObject(manager.kubeConfig, certificateKind, at(names.certificate));
    // cert-manager leaves the key's Secret behind unless told otherwise; it is the organization's key.
    await deleteObject(manager.kubeConfig, { apiVersion: 'v1', kind: 'Secret', plural: 'secrets' }, at(names.secret));
  }

  const listener = wanted ? renderOrganizationListener(tls, organization) : undefined;
  const gateway = caches.gateways.get(tls.gateway.namespace, tls.gateway.name) as DeepReadonly<{ spec?: { listeners?: unknown[] } }>;
  const present = gateway?.spec?.listeners?.find((l) => (l as { name?: string }).name === names.listener);
  if (!gateway || (listener ? includes(present, listener) : !present)) return;
  await applyObject(manager.kubeConfig, renderGatewayListenerPatch(tls, listener) as KubeObject, names.fieldManager);
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
