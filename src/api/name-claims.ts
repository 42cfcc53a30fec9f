// The object names a Deployment's children take in its namespace, claimed once. Children are named
// after their Deployment (src/api/child-names.ts), so two Deployments can ask for the same child name:
// `a`'s queue worker and a Deployment named `a-queue`; `a.b` and `a-b`, whose dots become dashes. Both
// cannot be served: the earlier keeps the names (as a host claim is settled), the HTTP API refuses the
// later one before writing (409), and the controller stalls one applied with kubectl (NameTaken) before
// it writes a child. Pure.
import { childNames, dnsLabelBase, postgresClusterServiceNames, routeServiceNamePattern } from './child-names.ts';
import { claimedBefore } from './custom-hosts.ts';

/** What a claim is read from: a Deployment, as stored or as cached (a new one has no uid yet). */
export interface NameClaim {
  readonly metadata: { readonly name?: string; readonly namespace?: string; readonly uid?: string; readonly creationTimestamp?: unknown };
}

/**
 * The informer index of Deployments by `<namespace>/<stem>`, the stem being what their children's names
 * are made from: the name as a DNS label (and the name itself, when they differ). A Deployment whose
 * children's names are cut and hashed (a long name) is indexed by each of those names instead. A lookup
 * turns a child name back into the stems that could make it (stemCandidates), so most Deployments take
 * one key where a key per child name took ten: about 20 MiB at 10,000
 * Deployments, in each of the controller's and the HTTP API's caches (BENCHMARKS.md, section 5).
 */
export const nameStemIndex = 'berth.dev/name-stem';

/** What the children add to a stem (child-names.ts): all to the DNS-label base but `-secrets`, which
 * follows the name as it is. */
const childSuffixes = [
  '-queue',
  '-canary',
  '-postgres',
  '-postgres-tls',
  '-db-1',
  ...postgresClusterServiceNames('-db-1'),
  '-db-2',
  ...postgresClusterServiceNames('-db-2'),
  '-redis',
  '-custom',
  '-secrets',
];

export function indexNameStems(object: unknown): string[] {
  const { name, namespace = '' } = (object as NameClaim).metadata;
  if (!name) return [];
  const base = dnsLabelBase(name);
  const made = (child: string) => child === `${name}-secrets` || child === base || childSuffixes.some((suffix) => child === base + suffix);
  const children = claimedNames(name);
  const whole = children.every(made);
  const stems = whole ? [...new Set([base, name])] : children;
  return stems.map((stem) => `${namespace}/${stem}`);
}

/** The stems that could make `child`: itself, and itself less each suffix it ends with. */
function stemCandidates(child: string): string[] {
  return [
    child,
    ...childSuffixes
      .filter((suffix) => child.length > suffix.length && child.endsWith(suffix))
      .map((suffix) => child.slice(0, -suffix.length)),
  ];
}

/** The names a Deployment's children take (of any kind: a Secret and a Service may share one, but a
 * rule that needs no kind is one a user can read). */
export function claimedNames(deploymentName: string): string[] {
  const names = childNames(deploymentName);
  return [
    ...new Set([
      names.application,
      names.queueWorker,
      names.canary,
      names.postgres,
      names.postgresCredentials,
      names.postgresTls,
      // The CloudNativePG Cluster and the Services its operator names after it, whatever the engine: a
      // rule that needs no engine is one a user can read.
      names.postgresCluster,
      ...postgresClusterServiceNames(names.postgresCluster),
      names.postgresClusterSpare,
      ...postgresClusterServiceNames(names.postgresClusterSpare),
      names.redis,
      names.redisCredentials,
      names.secrets,
      names.customRoute,
    ]),
  ];
}

/** Whether a Deployment's children would take a name of the form route Services take (child-names.ts):
 * Berth would then apply one Deployment's Service over another's. */
export function isRouteServiceName(deploymentName: string): boolean {
  return claimedNames(deploymentName).some((child) => routeServiceNamePattern.test(child));
}

export const reservedNameMessage =
  'has the form of the Services Berth routes through (b or c and 12 hexadecimal digits); choose another name';

/**
 * Why `deployment` may not take its children's names, or undefined: `claimants` are the Deployments of
 * the index for any of those names (the deployment itself may be among them).
 */
export function nameRefusal(
  deployment: NameClaim,
  claimants: readonly NameClaim[],
): { reason: 'NameTaken' | 'NameReserved'; message: string } | undefined {
  const name = deployment.metadata.name ?? '';
  if (isRouteServiceName(name)) return { reason: 'NameReserved', message: `the name ${name} ${reservedNameMessage}` };
  const mine = new Set(claimedNames(name));
  const earlier = claimants.find(
    (other) =>
      other.metadata.uid !== deployment.metadata.uid &&
      other.metadata.name !== name &&
      (!deployment.metadata.uid || claimedBefore(other, deployment)),
  );
  if (!earlier) return undefined;
  const shared = claimedNames(earlier.metadata.name ?? '').filter((child) => mine.has(child));
  return {
    reason: 'NameTaken',
    message: `the name ${name} would give its objects the name ${shared.join(', ')}, which deployment ${earlier.metadata.name} already uses; choose another name`,
  };
}

/** The Deployments of the namespace that take any of a deployment's child names, from lookups of the
 * nameStemIndex (the deployment itself among them when it is stored). */
export function nameClaimants<T extends NameClaim>(namespace: string, deploymentName: string, byIndex: (key: string) => readonly T[]): T[] {
  const mine = new Set(claimedNames(deploymentName));
  const found = new Set<T>();
  for (const child of mine) for (const stem of stemCandidates(child)) for (const other of byIndex(`${namespace}/${stem}`)) found.add(other);
  return [...found].filter((other) => claimedNames(other.metadata.name ?? '').some((child) => mine.has(child)));
}
