// The object names a Deployment's children take in its namespace, claimed once. Children are named
// after their Deployment (src/api/child-names.ts), so two Deployments can ask for the same child name:
// `a`'s queue worker and a Deployment named `a-queue`; `a.b` and `a-b`, whose dots become dashes. Both
// cannot be served: the earlier keeps the names (as a host claim is settled), the HTTP API refuses the
// later one before writing (409), and the controller stalls one applied with kubectl (NameTaken) before
// it writes a child. Pure.
import { childNames } from './child-names.ts';
import { claimedBefore } from './custom-hosts.ts';

/** What a claim is read from: a Deployment, as stored or as cached (a new one has no uid yet). */
export interface NameClaim {
  readonly metadata: { readonly name?: string; readonly namespace?: string; readonly uid?: string; readonly creationTimestamp?: unknown };
}

/** The informer index of Deployments by `<namespace>/<child name>`, for each name its children take. */
export const childNameIndex = 'berth.dev/child-name';

/** The names a Deployment's children take (of any kind: a Secret and a Service may share one, but a
 * rule that needs no kind is one a user can read). */
export function claimedNames(deploymentName: string): string[] {
  const names = childNames(deploymentName);
  return [
    ...new Set([
      names.application,
      names.queueWorker,
      names.postgres,
      names.postgresCredentials,
      names.redis,
      names.redisCredentials,
      names.secrets,
      names.customRoute,
    ]),
  ];
}

export function indexChildNames(object: unknown): string[] {
  const { name, namespace } = (object as NameClaim).metadata;
  return name ? claimedNames(name).map((child) => `${namespace}/${child}`) : [];
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

/** The claimants of any of a deployment's child names, from a lookup of the index. */
export function nameClaimants<T>(namespace: string, deploymentName: string, byIndex: (key: string) => readonly T[]): T[] {
  return [...new Set(claimedNames(deploymentName).flatMap((child) => byIndex(`${namespace}/${child}`)))];
}

/**
 * The names a Gateway and its metrics give a Deployment's Service and routes: `<namespace>-<name>`, as
 * Traefik names a backend (`<namespace>-<service>-http-<port>`) and a route (`httproute-<namespace>-
 * <route>-...`), merging equal ones. Namespaces hold dashes, so `acme`'s `corp-web` and `acme-corp`'s
 * `web` would share one: the later of two such Deployments is refused, as a child name is.
 */
export const gatewayNameIndex = 'berth.dev/gateway-name';

export function gatewayNames(namespace: string, deploymentName: string): string[] {
  const names = childNames(deploymentName);
  return [...new Set([names.application, names.ingress, names.customRoute].map((name) => `${namespace}-${name}`))];
}

export function indexGatewayNames(object: unknown): string[] {
  const { name, namespace } = (object as NameClaim).metadata;
  return name && namespace ? gatewayNames(namespace, name) : [];
}

/**
 * Why `deployment` may not take the names the Gateway would give it, or undefined: `claimants` are the
 * Deployments of the index for any of those names; one of another namespace that came first refuses it.
 * The other organization is never named.
 */
export function gatewayNameRefusal(
  deployment: NameClaim,
  claimants: readonly NameClaim[],
): { reason: 'GatewayNameTaken'; message: string } | undefined {
  const { name = '', namespace = '' } = deployment.metadata;
  const mine = new Set(gatewayNames(namespace, name));
  const earlier = claimants.find(
    (other) =>
      other.metadata.namespace !== namespace &&
      other.metadata.uid !== deployment.metadata.uid &&
      (!deployment.metadata.uid || claimedBefore(other, deployment)),
  );
  if (!earlier) return undefined;
  const shared = gatewayNames(earlier.metadata.namespace ?? '', earlier.metadata.name ?? '').filter((key) => mine.has(key));
  return {
    reason: 'GatewayNameTaken',
    message: `the name ${name} in namespace ${namespace} would be ${shared[0]} at the Gateway, which a deployment of another organization already is; choose another name`,
  };
}

/** The claimants of any of the Gateway names of a deployment, from a lookup of the index. */
export function gatewayNameClaimants<T>(namespace: string, deploymentName: string, byIndex: (key: string) => readonly T[]): T[] {
  return [...new Set(gatewayNames(namespace, deploymentName).flatMap((key) => byIndex(key)))];
}
