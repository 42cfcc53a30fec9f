// TLS for the apps' https:// URLs. Each organization gets one wildcard certificate,
// `*.<organization>.<domain>`, asked of the installation's cert-manager issuer, and one HTTPS listener of
// that host on the installation's Gateway, which terminates TLS with it. Both live in the Gateway's
// namespace, out of the organization's reach: no team can read another's key, or its own. A listener
// admits routes from its organization's namespace only. Names and objects, pure.
import type { AppUrlTemplate } from './app-urls.ts';

/** The cert-manager issuer that signs the apps' certificates: `ClusterIssuer/<name>`, or `Issuer/<name>` in
 * the Gateway's namespace. */
export interface TlsIssuer {
  kind: 'ClusterIssuer' | 'Issuer';
  name: string;
}

export interface AppTls {
  issuer: TlsIssuer;
  gateway: { namespace: string; name: string };
  appUrls: AppUrlTemplate;
}

/** On a Certificate Berth asks for: the organization it serves. */
export const tlsOrganizationLabel = 'berth.dev/tls-for-organization';

export const certificateKind = { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', plural: 'certificates' } as const;
export const gatewayKind = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', plural: 'gateways' } as const;

/** `ClusterIssuer/<name>` or `Issuer/<name>`, or why not. */
export function parseTlsIssuer(text: string): TlsIssuer | { error: string } {
  const match = /^(ClusterIssuer|Issuer)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(text.trim());
  if (!match || match[2]!.length > 253) return { error: `expected ClusterIssuer/<name> or Issuer/<name>, got ${JSON.stringify(text)}` };
  return { kind: match[1] as TlsIssuer['kind'], name: match[2]! };
}

/** The names of an organization's TLS objects: its Certificate and Secret, and its Gateway listener. */
export function organizationTlsNames(organization: string) {
  return {
    certificate: `berth-apps-${organization}`,
    secret: `berth-apps-${organization}-tls`,
    listener: `https-${organization}`,
    /** The field manager that owns the listener on the Gateway, and nothing else there. */
    fieldManager: `berth-tls-${organization}`,
  };
}

/** The host every Deployment of the organization is under: `*.<organization>.<domain>`. */
export function organizationWildcardHost(tls: AppTls, organization: string): string {
  return `*.${organization}.${tls.appUrls.domain}`;
}

/** The port of the HTTPS listeners: the URL's, else 443. */
function listenerPort(tls: AppTls): number {
  return Number(tls.appUrls.port ?? 443);
}

export function renderOrganizationCertificate(tls: AppTls, organization: string) {
  const names = organizationTlsNames(organization);
  return {
    apiVersion: certificateKind.apiVersion,
    kind: certificateKind.kind,
    metadata: {
      name: names.certificate,
      namespace: tls.gateway.namespace,
      labels: { [tlsOrganizationLabel]: organization, 'app.kubernetes.io/managed-by': 'berth' },
    },
    spec: {
      secretName: names.secret,
      dnsNames: [organizationWildcardHost(tls, organization)],
      issuerRef: { group: 'cert-manager.io', kind: tls.issuer.kind, name: tls.issuer.name },
      privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
      usages: ['digital signature', 'key encipherment', 'server auth'],
    },
  };
}

/** The organization's HTTPS listener, every field the API server would default written out, so the
 * Gateway's listener compares equal to it once applied. */
export function renderOrganizationListener(tls: AppTls, organization: string) {
  const names = organizationTlsNames(organization);
  return {
    name: names.listener,
    hostname: organizationWildcardHost(tls, organization),
    port: listenerPort(tls),
    protocol: 'HTTPS',
    tls: { mode: 'Terminate', certificateRefs: [{ group: '', kind: 'Secret', name: names.secret }] },
    allowedRoutes: {
      namespaces: { from: 'Selector', selector: { matchLabels: { 'kubernetes.io/metadata.name': organization } } },
      kinds: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' }],
    },
  };
}

/** What the organization's field manager applies to the Gateway: its listener, or none to remove it. */
export function renderGatewayListenerPatch(tls: AppTls, listener: ReturnType<typeof renderOrganizationListener> | undefined) {
  return {
    apiVersion: gatewayKind.apiVersion,
    kind: gatewayKind.kind,
    metadata: { name: tls.gateway.name, namespace: tls.gateway.namespace },
    spec: { listeners: listener ? [listener] : [] },
  };
}
