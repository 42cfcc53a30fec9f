// The object names a Deployment's children take in its namespace, claimed once. Children are named
// after their Deployment (src/api/child-names.ts), so two Deployments can ask for the same child name:
// `a`'s queue worker and a Deployment named `a-queue`; `a.b` and `a-b`, whose dots become dashes. Both
// cannot be served: the earlier keeps the names (as a host claim is settled), the HTTP API refuses the
// later one before writing (409), and the controller stalls one applied with kubectl (NameTaken) before
// it writes a child. Pure.
import { childNames, dnsLabelBase } from './child-names.ts';
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
 * one key where a key per child name and per Gateway name took eleven: about 20 MiB at 10,000
 * Deployments, in each of the controller's and the HTTP API's caches (BENCHMARKS.md, section 5).
 */
export const nameStemIndex = 'berth.dev/name-stem';

/** What the children add to a stem (child-names.ts): all to the DNS-label base but `-secrets`, which
 * follows the name as it is. */
const childSuffixes = ['-queue', '-canary', '-postgres', '-redis', '-custom', '-secrets'];

export function indexNameStems(object: unknown): string[] {
  const { name, namespace = '' } = (object as NameClaim).metadata;
  if (!name) return [];
  const base = dnsLabelBase(name);
  const made = (child: string) => child === `${name}-secrets` || child === base || childSuffixes.some((suffix) => child === base + suffix);
  const children = claimedNames(name);
  const whole = children.every(made);
  const stems = whole ? [...new Set([base, name])] : children;
  // And the names the Gateway gives them (gatewayNames): the application's, which the others extend, or
  // each one for a name cut and hashed.
  const atGateway = gatewayNames(namespace, name);
  return [...stems.map((stem) => `${namespace}/${stem}`), ...(whole ? atGateway.slice(0, 1) : atGateway).map(gatewayIndexKey)];
}

/** The index key of a name at the Gateway: apart from the `<namespace>/<stem>` keys (it has no slash). */
const gatewayIndexKey = (gatewayName: string) => `gateway:${gatewayName}`;

/**
 * A name as Traefik writes it into its configuration (its provider's Normalize): every run of characters
 * that are neither letters nor digits becomes one dash, and none leads or trails. `corp--web` is
 * `corp-web` there.
 */
export function gatewayFolded(name: string): string {
  return name
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join('-');
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
      names.redis,
      names.redisCredentials,
      names.secrets,
      names.customRoute,
    ]),
  ];
}

/**
 * Why `deployment` may not take its children's names, or undefined: `claimants` are the Deployments of
 * the index for any of those names (the deployment itself may be among them).
 */
export function nameRefusal(deployment: NameClaim, claimants: readonly NameClaim[]): { reason: 'NameTaken'; message: string } | undefined {
  const name = deployment.metadata.name ?? '';
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

/**
 * The names a Gateway and its metrics give a Deployment's Service and routes: `<namespace>-<name>`, as
 * Traefik names a backend (`<namespace>-<service>-http-<port>`) and a route (`httproute-<namespace>-
 * <route>-...`), folded as it folds them (gatewayFolded), merging equal ones; the application's first.
 * Namespaces hold dashes, so `acme`'s `corp-web` and `acme-corp`'s `web` would share one, and so would
 * `acme`'s `corp--web`: the later of two such Deployments is refused, as a child name is.
 */
export function gatewayNames(namespace: string, deploymentName: string): string[] {
  const names = childNames(deploymentName);
  return [
    ...new Set([names.application, names.ingress, names.canary, names.customRoute].map((name) => gatewayFolded(`${namespace}-${name}`))),
  ];
}

/**
 * Why `deployment` may not take the names the Gateway would give it, or undefined: `claimants` are the
 * Deployments of the index for any of those names; another that came first refuses it (of its own
 * namespace, one whose name folds to the same: `corp--web` and `corp-web`). Another organization is
 * never named.
 */
export function gatewayNameRefusal(
  deployment: NameClaim,
  claimants: readonly NameClaim[],
): { reason: 'GatewayNameTaken'; message: string } | undefined {
  const { name = '', namespace = '' } = deployment.metadata;
  const mine = new Set(gatewayNames(namespace, name));
  const sharedWith = (other: NameClaim) =>
    gatewayNames(other.metadata.namespace ?? '', other.metadata.name ?? '').filter((key) => mine.has(key));
  const earlier = claimants.find(
    (other) =>
      !(other.metadata.namespace === namespace && other.metadata.name === name) &&
      other.metadata.uid !== deployment.metadata.uid &&
      (!deployment.metadata.uid || claimedBefore(other, deployment)) &&
      sharedWith(other).length > 0,
  );
  if (!earlier) return undefined;
  const shared = sharedWith(earlier);
  const holder =
    earlier.metadata.namespace === namespace
      ? `deployment ${earlier.metadata.name} already is`
      : 'a deployment of another organization already is';
  return {
    reason: 'GatewayNameTaken',
    message: `the name ${name} in namespace ${namespace} would be ${shared[0]} at the Gateway, which ${holder}; choose another name`,
  };
}

/** The Deployments of any namespace the Gateway would name as it names a deployment, from lookups of the
 * nameStemIndex: each Gateway name, and each less a suffix the application's name takes there. */
export function gatewayNameClaimants<T extends NameClaim>(
  namespace: string,
  deploymentName: string,
  byIndex: (key: string) => readonly T[],
): T[] {
  const mine = new Set(gatewayNames(namespace, deploymentName));
  const found = new Set<T>();
  for (const key of mine) for (const stem of stemCandidates(key)) for (const other of byIndex(gatewayIndexKey(stem))) found.add(other);
  return [...found].filter((other) =>
    gatewayNames(other.metadata.namespace ?? '', other.metadata.name ?? '').some((name) => mine.has(name)),
  );
}
