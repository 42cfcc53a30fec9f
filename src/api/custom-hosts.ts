// The host a Deployment's customUrl claims, and who may claim it: a host is claimed once across the
// installation (the earliest Deployment keeps it), never one of Berth's own, and within the domains the
// installation allows. The HTTP API refuses a claim before writing (409, 422); the controller refuses
// a claim applied with kubectl (Stalled) and makes no Ingress for it. Pure.

/** What a claim is read from: a Deployment, as stored or as cached. */
export interface HostClaim {
  readonly metadata: { readonly uid?: string; readonly creationTimestamp?: unknown };
  readonly spec?: { readonly sourceConfig?: { readonly customUrl?: string } };
}

export interface CustomUrlRoute {
  host: string;
  path: string;
}

/** `https://api.example.com/app` and `api.example.com` both name a host; undefined when it names none. */
export function parseCustomUrl(customUrl: string): CustomUrlRoute | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(customUrl) ? customUrl : `https://${customUrl}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return undefined;
  }
  if (!url.hostname || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(url.hostname) || /^\d+(\.\d+){3}$/.test(url.hostname)) return undefined;
  return { host: url.hostname.toLowerCase(), path: url.pathname || '/' };
}

/** What an installation allows: custom URL hosts under these domains (any when empty), and hosts no
 * Deployment may claim (Berth's own API's). */
export interface HostPolicy {
  allowedDomains: readonly string[];
  reservedHosts: readonly string[];
  /** Domains whose hosts Berth gives Deployments itself (the apps domain of their URLs): none may be claimed. */
  reservedDomains?: readonly string[];
}

export const openHostPolicy: HostPolicy = { allowedDomains: [], reservedHosts: [] };

/** The informer index of Deployments by the host their customUrl claims. */
export const customHostIndex = 'berth.dev/custom-host';

export function customHostOf(deployment: HostClaim): string | undefined {
  const customUrl = deployment.spec?.sourceConfig?.customUrl;
  return customUrl ? parseCustomUrl(customUrl)?.host : undefined;
}

export function indexCustomHost(object: unknown): string[] {
  const host = customHostOf(object as HostClaim);
  return host ? [host] : [];
}

/** Whether `host` is `domain` or under it. */
function within(host: string, domain: string): boolean {
  const bare = domain.toLowerCase().replace(/^\*?\./, '');
  return host === bare || host.endsWith(`.${bare}`);
}

/** The earlier of two claims keeps what both claim: by creation time, then by uid, so every replica agrees. */
export function claimedBefore(a: Pick<HostClaim, 'metadata'>, b: Pick<HostClaim, 'metadata'>): boolean {
  const at = (d: Pick<HostClaim, 'metadata'>) => String(d.metadata.creationTimestamp ?? '');
  return at(a) < at(b) || (at(a) === at(b) && (a.metadata.uid ?? '') < (b.metadata.uid ?? ''));
}

export type HostRefusal = { reason: 'HostNotAllowed' | 'HostReserved' | 'HostClaimed'; message: string };

/**
 * Why `deployment` may not claim its customUrl's host, or undefined. `claimants` are the Deployments
 * that claim the same host (the index's answer; the deployment itself may be among them). Another
 * tenant's claim is never named.
 */
export function hostRefusal(deployment: HostClaim, claimants: readonly HostClaim[], policy: HostPolicy): HostRefusal | undefined {
  const host = customHostOf(deployment);
  if (!host) return undefined;
  if (policy.reservedHosts.some((reserved) => reserved.toLowerCase() === host)) {
    return { reason: 'HostReserved', message: `custom_url host ${host} is reserved by this installation` };
  }
  const appsDomain = policy.reservedDomains?.find((domain) => within(host, domain));
  if (appsDomain) {
    return {
      reason: 'HostReserved',
      message: `custom_url host ${host} is under ${appsDomain}, where this installation names every deployment's own URL`,
    };
  }
  if (policy.allowedDomains.length > 0 && !policy.allowedDomains.some((domain) => within(host, domain))) {
    return {
      reason: 'HostNotAllowed',
      message: `custom_url host ${host} is outside the domains this installation allows: ${policy.allowedDomains.join(', ')}`,
    };
  }
  const earlier = claimants.find(
    (other) =>
      other.metadata.uid !== deployment.metadata.uid &&
      customHostOf(other) === host &&
      (!deployment.metadata.uid || claimedBefore(other, deployment)),
  );
  return earlier ? { reason: 'HostClaimed', message: `custom_url host ${host} is claimed by another deployment` } : undefined;
}
