// TLS for the apps' https:// URLs. Each organization gets one wildcard certificate,
// `*.<organization>.<domain>`, asked of the installation's cert-manager issuer, and one HTTPS listener of
// that host on the installation's Gateway, which terminates TLS with it; with custom_url hosts, one more
// certificate naming them all and a listener per host. All live in the Gateway's namespace, out of the
// organization's reach: no team can read another's key, or its own. A listener admits routes from its
// organization's namespace only. Names and objects, pure.
import { createHash } from 'node:crypto';
import type { AppUrlTemplate } from './app-urls.ts';
import type { KubeObject } from '../runtime/index.ts';

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
  /** The most listeners Berth lets one Gateway hold before it places them on a shard (gateway-shards.ts):
   * Gateway API's 64 by default. */
  listenersPerGateway?: number;
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

/** The names of an organization's TLS objects: its Certificates and Secrets, and its Gateway listeners.
 * A namespace name has no dot, so `https-<organization>.` begins no other organization's listener. */
export function organizationTlsNames(organization: string) {
  return {
    certificate: `berth-apps-${organization}`,
    secret: `berth-apps-${organization}-tls`,
    listener: `https-${organization}`,
    customCertificate: `berth-custom-${organization}`,
    customSecret: `berth-custom-${organization}-tls`,
    /** The listener of one custom_url host. */
    customListener: (host: string) => `https-${organization}.${createHash('sha256').update(host).digest('hex').slice(0, 12)}`,
    /** Whether a listener of the Gateway is one of the organization's. */
    ownsListener: (name: string) => name === `https-${organization}` || name.startsWith(`https-${organization}.`),
    /** The field manager that owns the organization's listeners on the Gateway, and nothing else there. */
    fieldManager: `berth-tls-${organization}`,
  };
}

/** The organization whose listener this is (organizationTlsNames), if it is one's. */
export function listenerOrganization(listener: string): string | undefined {
  return /^https-([a-z0-9]([-a-z0-9]*[a-z0-9])?)(\.[0-9a-f]{12})?$/.exec(listener)?.[1];
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
  return renderCertificate(tls, organization, names.certificate, names.secret, [organizationWildcardHost(tls, organization)]);
}

/** One certificate for every custom_url host the organization's Deployments hold (sorted). */
export function renderCustomHostsCertificate(tls: AppTls, organization: string, hosts: readonly string[]) {
  const names = organizationTlsNames(organization);
  return renderCertificate(tls, organization, names.customCertificate, names.customSecret, [...hosts].sort());
}

function renderCertificate(tls: AppTls, organization: string, name: string, secretName: string, dnsNames: string[]) {
  return {
    apiVersion: certificateKind.apiVersion,
    kind: certificateKind.kind,
    metadata: {
      name,
      namespace: tls.gateway.namespace,
      labels: { [tlsOrganizationLabel]: organization, 'app.kubernetes.io/managed-by': 'berth' },
    },
    spec: {
      secretName,
      dnsNames,
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
  return renderListener(tls, organization, names.listener, organizationWildcardHost(tls, organization), names.secret);
}

/** The listener of one custom_url host, with the organization's custom hosts' certificate. */
export function renderCustomHostListener(tls: AppTls, organization: string, host: string) {
  const names = organizationTlsNames(organization);
  return renderListener(tls, organization, names.customListener(host), host, names.customSecret);
}

export type GatewayListener = ReturnType<typeof renderListener>;

/** A Gateway as Berth reads it: its listeners, by name. */
export interface GatewayObject extends KubeObject {
  spec?: { gatewayClassName?: string; listeners?: { name?: string }[] };
}

function renderListener(tls: AppTls, organization: string, name: string, hostname: string, secret: string) {
  return {
    name,
    hostname,
    port: listenerPort(tls),
    protocol: 'HTTPS',
    tls: { mode: 'Terminate', certificateRefs: [{ group: '', kind: 'Secret', name: secret }] },
    allowedRoutes: {
      namespaces: { from: 'Selector', selector: { matchLabels: { 'kubernetes.io/metadata.name': organization } } },
      kinds: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' }],
    },
  };
}
