// Names of everything a Deployment owns. Each is derived from the Deployment's name alone (and the
// revision digest), so a controller that restarts, retries or reads a stale cache computes the same name
// and meets AlreadyExists or an idempotent apply instead of making a duplicate.
import { createHash } from 'node:crypto';

/** Kubernetes' limit for names that become DNS labels (Services, label values, Job and pod names). */
const dnsLabelLimit = 63;

/**
 * StatefulSet names stay 11 characters short of a DNS label: the StatefulSet controller labels each pod
 * with `controller-revision-hash: <name>-<10 chars>`, which must itself fit in 63.
 */
const statefulSetNameLimit = 52;

/** CloudNativePG refuses a Cluster named longer than 50 characters (its validating webhook). */
const postgresClusterNameLimit = 50;

function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * `<base><suffix>` when that fits in `limit`; otherwise the base is cut and a hash of the whole base is
 * inserted, so two long names that share a prefix still get different results.
 */
export function boundedName(base: string, suffix: string, limit = dnsLabelLimit): string {
  const whole = `${base}${suffix}`;
  if (whole.length <= limit) return whole;
  const hash = shortHash(base);
  const room = limit - suffix.length - hash.length - 1;
  const cut = base.slice(0, Math.max(room, 0)).replace(/[-.]+$/, '');
  return `${cut}-${hash}${suffix}`;
}

/**
 * A Deployment's name is a DNS subdomain (dots allowed, up to 253 characters), while Service and pod
 * names must be DNS labels starting with a letter. Names that already qualify are kept as they are.
 */
export function dnsLabelBase(name: string): string {
  const dotless = name.replaceAll('.', '-');
  return /^[a-z]/.test(dotless) ? dotless : `b-${dotless}`;
}

/** A label value holds 63 characters; longer Deployment names are cut with a hash so they stay distinct. */
export function deploymentLabelValue(deploymentName: string): string {
  return boundedName(deploymentName, '');
}

export function revisionName(deploymentName: string, digest: string): string {
  return boundedName(deploymentName, `-${digest.slice(0, 10)}`);
}

/** The immutable Secret holding a revision's secret values as they were when it was made: its pods read them there. */
export function revisionSecretsName(revision: string): string {
  return boundedName(revision, '-env');
}

/** The Job that runs a revision's pre-deploy command (render/pre-deploy.ts), beside its pods. */
export function preDeployJobName(revision: string): string {
  return boundedName(revision, '-pre-deploy');
}

/** The port of the application's Service, where routes send its traffic (its pods listen on their own). */
export const applicationServicePort = 80;

export function childNames(deploymentName: string) {
  const base = dnsLabelBase(deploymentName);
  const postgres = boundedName(base, '-postgres', statefulSetNameLimit);
  return {
    application: boundedName(base, ''),
    queueWorker: boundedName(base, '-queue'),
    /** The new revision's Deployment and Service while a canary runs (sourceConfig.canary). */
    canary: boundedName(base, '-canary'),
    postgres,
    /** The volume claim the Postgres StatefulSet makes for its one replica: the data. */
    postgresClaim: `data-${postgres}-0`,
    postgresCredentials: boundedName(base, '-postgres'),
    /** The database server's certificate and key (render/postgres.ts). */
    postgresTls: boundedName(base, '-postgres-tls'),
    /** The database's CloudNativePG Cluster, where that is the database's engine (render/postgres-cluster.ts):
     * the first of its generations (a restore makes the next). */
    postgresCluster: boundedName(base, '-db-1', postgresClusterNameLimit),
    /** The Cluster a restore makes while the other serves (reconcilers/database-restore): the two take
     * turns, so a Deployment has at most a serving database and the one its last restore retired. */
    postgresClusterSpare: boundedName(base, '-db-2', postgresClusterNameLimit),
    redis: boundedName(base, '-redis', statefulSetNameLimit),
    redisCredentials: boundedName(base, '-redis'),
    ingress: boundedName(base, ''),
    /** The HTTPRoute of the customUrl's host and path (the Deployment's own URL has the route named `ingress`). */
    customRoute: boundedName(base, '-custom'),
    /** Written by the HTTP facade: the values of `spec.secrets` entries without a `valueFrom`. */
    secrets: `${deploymentName}-secrets`,
    /** Same name as the Deployment, as the interface promises. */
    tracingProject: deploymentName,
  };
}

/** The names CloudNativePG gives a Cluster's own Services: the primary (rw), the replicas (ro), any (r). */
export function postgresClusterServiceNames(cluster: string): string[] {
  return [`${cluster}-rw`, `${cluster}-ro`, `${cluster}-r`];
}

/** The volume claim of a Cluster's first instance (`<cluster>-1`): the data. */
export function postgresClusterClaimName(cluster: string): string {
  return `${cluster}-1`;
}

/** The Services the Gateway's routes send requests to: the application's pods, and a canary's. */
export interface RouteServices {
  stable: string;
  canary: string;
}

/**
 * Route Services are named from the Deployment's uid (docs/route-names.md). The Gateway names a backend
 * `<namespace>-<service>-http-<port>` and folds each run of dashes into one, so a name made from the
 * Deployment's name would let `corp--web` in one organization take `web` in another's. Behind a fixed,
 * dashless `-[bc]<12 hex>` the namespace is read back exactly: no choice of names can make two equal.
 */
export function routeServiceNames(uid: string): RouteServices {
  const hash = shortHash(uid, 12);
  return { stable: `b${hash}`, canary: `c${hash}` };
}

/** What follows the route Services' first letter (b: the application's pods, c: the canary's). */
export const routeServiceHashPattern = '[0-9a-f]{12}';

/** The names route Services take: no Deployment may be named like one (name-claims.ts). */
export const routeServiceNamePattern = new RegExp(`^[bc]${routeServiceHashPattern}$`);

export function buildJobName(revision: string): string {
  return boundedName(revision, '-build');
}
