// The host a Deployment's customUrl claims, and who may claim it: a host is claimed once across the
// installation (the first claim keeps it, whatever the age of the Deployment that makes a later one),
// never one of Berth's own, and within the domains the installation allows. The HTTP API refuses a claim before writing (409, 422); the controller refuses
// a claim applied with kubectl (Stalled) and makes no Ingress for it. Pure.

/** A host claim the controller accepted, and since when: kept in the Deployment's status, which only
 * Berth writes, for as long as its customUrl names that host. */
export interface RecordedHostClaim {
  readonly host: string;
  readonly claimedAt: string;
}

/** What a claim is read from: a Deployment, as stored or as cached. */
export interface HostClaim {
  readonly metadata: {
    readonly uid?: string;
    readonly name?: string;
    readonly creationTimestamp?: unknown;
    readonly deletionTimestamp?: unknown;
  };
  readonly spec?: { readonly sourceConfig?: { readonly customUrl?: string } };
  readonly status?: {
    readonly customHostClaim?: RecordedHostClaim;
    readonly conditions?: readonly { readonly type: string; readonly status: string }[];
  };
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

/** Whether `host` is `domain` or under it (`*.example.com` and `.example.com` name example.com). */
export function hostWithin(host: string, domain: string): boolean {
  const bare = domain.toLowerCase().replace(/^\*?\./, '');
  return host === bare || host.endsWith(`.${bare}`);
}

/** The earlier of two Deployments keeps a name both claim (names never change): by creation time, then
 * by uid, so every replica agrees. */
export function claimedBefore(a: Pick<HostClaim, 'metadata'>, b: Pick<HostClaim, 'metadata'>): boolean {
  const at = (d: Pick<HostClaim, 'metadata'>) => String(d.metadata.creationTimestamp ?? '');
  return at(a) < at(b) || (at(a) === at(b) && (a.metadata.uid ?? '') < (b.metadata.uid ?? ''));
}

/**
 * Whether a's claim of `host` came before b's: a claim the controller accepted (recorded) before one it
 * did not, then the earlier record, then (between claims not recorded yet, as when two arrive at once)
 * the earlier Deployment; the uid breaks ties, so every replica agrees. A Deployment's own age counts
 * only there: an old Deployment whose customUrl moves to a host another holds makes a new claim.
 */
export function hostClaimedBefore(a: HostClaim, b: HostClaim, host: string): boolean {
  const rank = (d: HostClaim) => {
    const recorded = d.status?.customHostClaim?.host === host ? d.status.customHostClaim.claimedAt : undefined;
    return [recorded ? '0' : '1', recorded ?? String(d.metadata.creationTimestamp ?? ''), d.metadata.uid ?? ''] as const;
  };
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! < rb[i]!;
  return false;
}

/** The claim to record after a pass: the one recorded while the customUrl keeps its host, a new one
 * from `now` once the controller accepts a new host (`refused` false), none without a customUrl. */
export function nextHostClaim(
  previous: RecordedHostClaim | undefined,
  host: string | undefined,
  refused: boolean,
  now: string,
): RecordedHostClaim | undefined {
  if (!host) return undefined;
  if (previous?.host === host) return previous;
  return refused ? undefined : { host, claimedAt: now };
}

/** The reasons a pass halts at or before the customUrl's host is judged (choose-revisions.ts): a pass
 * halted by one of them has not accepted its host. */
export const hostRefusalReasons: ReadonlySet<string> = new Set([
  'ReplicaCapExceeded',
  'QuotaExceeded',
  'VolumeNotAllowed',
  'SecretReserved',
  'NameTaken',
  'NameReserved',
  'HostReserved',
  'HostNotAllowed',
  'HostClaimed',
  'HostOwnershipUnproven',
  'CustomHostLimit',
]);

export type HostRefusal = { reason: 'HostNotAllowed' | 'HostReserved' | 'HostClaimed'; message: string };

/**
 * Why `deployment` may not claim its customUrl's host, or undefined. `claimants` are the Deployments
 * that claim the same host (the index's answer; the deployment itself may be among them). Another
 * tenant's claim is never named.
 */
export function hostRefusal(deployment: HostClaim, claimants: readonly HostClaim[], policy: HostPolicy): HostRefusal | undefined {
  const host = customHostOf(deployment);
  if (!host) return undefined;
  return hostPolicyRefusal(host, policy) ?? hostClaimRefusal(deployment, claimants, host);
}

/** Why the installation lets no deployment claim `host` (reserved, outside the allowed domains), or undefined. */
export function hostPolicyRefusal(host: string, policy: HostPolicy): HostRefusal | undefined {
  if (policy.reservedHosts.some((reserved) => reserved.toLowerCase() === host)) {
    return { reason: 'HostReserved', message: `custom_url host ${host} is reserved by this installation` };
  }
  const appsDomain = policy.reservedDomains?.find((domain) => hostWithin(host, domain));
  if (appsDomain) {
    return {
      reason: 'HostReserved',
      message: `custom_url host ${host} is under ${appsDomain}, where this installation names every deployment's own URL`,
    };
  }
  if (policy.allowedDomains.length > 0 && !policy.allowedDomains.some((domain) => hostWithin(host, domain))) {
    return {
      reason: 'HostNotAllowed',
      message: `custom_url host ${host} is outside the domains this installation allows: ${policy.allowedDomains.join(', ')}`,
    };
  }
  return undefined;
}

/** Why another claimant keeps `host` from `deployment` (an earlier claim), or undefined. Where the
 * installation asks for proof of ownership, only a claimant that proved it is told. */
export function hostClaimRefusal(deployment: HostClaim, claimants: readonly HostClaim[], host: string): HostRefusal | undefined {
  const earlier = claimants.find(
    (other) =>
      other.metadata.uid !== deployment.metadata.uid &&
      customHostOf(other) === host &&
      (!deployment.metadata.uid || hostClaimedBefore(other, deployment, host)),
  );
  return earlier ? { reason: 'HostClaimed', message: `custom_url host ${host} is claimed by another deployment` } : undefined;
}

/**
 * Why a deployment may not claim one more custom host in its organization, or undefined:
 * `organizationDeployments` lists the organization's Deployments (read only for a new claim under a cap). Each host takes a listener of the shared Gateway or
 * one of its shards (gateway-shards.ts), and a name on the organization's certificate. A host already recorded as this deployment's claim
 * is never refused (no flapping). Pure.
 */
export function customHostLimitRefusal(
  deployment: HostClaim,
  organizationDeployments: () => readonly HostClaim[],
  maxCustomHosts: number | undefined,
): { reason: 'CustomHostLimit'; message: string } | undefined {
  const host = customHostOf(deployment);
  if (maxCustomHosts === undefined || !host || deployment.status?.customHostClaim?.host === host) return undefined;
  const others = organizationDeployments();
  // Claims recorded, and those not recorded yet of earlier Deployments that are not Stalled: of claims
  // made at once, the earlier Deployments' count first, so a burst cannot pass the cap before the
  // records land; one refused (for its host or otherwise) holds nothing.
  const pending = (other: HostClaim) =>
    claimedBefore(other, deployment) && !other.status?.conditions?.some((c) => c.type === 'Stalled' && c.status === 'True');
  const held = new Set(
    others
      .filter((other) => other.metadata.name !== deployment.metadata.name && !other.metadata.deletionTimestamp)
      .map((other) => other.status?.customHostClaim?.host ?? (pending(other) ? customHostOf(other) : undefined))
      .filter((claimed): claimed is string => claimed !== undefined),
  );
  if (held.has(host) || held.size < maxCustomHosts) return undefined;
  return {
    reason: 'CustomHostLimit',
    message: `the organization already holds ${held.size} custom URL hosts, the most this installation allows one organization (${maxCustomHosts}): free one first`,
  };
}
