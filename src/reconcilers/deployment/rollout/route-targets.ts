// Which Services a Deployment's routes name in a pass (docs/route-names.md). A new Deployment's routes
// name its route Services at once. One whose routes still name its application's and canary's own
// Services (routed by an earlier Berth) moves once its route Service has stood long enough for the
// Gateway to know its endpoints, so that no request meets a Service the Gateway has not seen, and once a
// canary in flight is over, so that no step's figures start a new series mid-step.
import type { V1Ingress } from '@kubernetes/client-node';
import { childNames, routeServiceNames, type RouteServices } from '../../../api/child-names.ts';
import type { DeepReadonly, KubeObject } from '../../../runtime/index.ts';
import type { DeploymentInformers } from '../informers.ts';
import type { OwnerDeployment } from '../render/common.ts';

/** How long a new route Service stands before routes move to it: the Gateway then knows its endpoints. */
export const routeServiceSettleMs = 10_000;

export interface RouteTargets {
  routeTo: RouteServices;
  /** When to look again: the route Service has not stood long enough yet. */
  recheckMs?: number;
}

/** What the decision reads: the Services the routes name now, and when the route Service was made. */
export interface RoutedNow {
  routed: readonly string[];
  routeServiceCreated?: Date;
  now: Date;
}

/** The Services to route to in this pass. Pure. */
export function decideRouteTargets(owner: OwnerDeployment, { routed, routeServiceCreated, now }: RoutedNow): RouteTargets {
  const names = childNames(owner.name);
  const own = { stable: names.application, canary: names.canary };
  if (routed.includes(own.canary)) return { routeTo: own };
  if (!routed.includes(own.stable)) return { routeTo: routeServiceNames(owner.uid) };
  const stood = routeServiceCreated ? now.getTime() - routeServiceCreated.getTime() : 0;
  if (routeServiceCreated && stood >= routeServiceSettleMs) return { routeTo: routeServiceNames(owner.uid) };
  return { routeTo: own, recheckMs: routeServiceSettleMs - stood };
}

/** The Services the cached routes of a Deployment name (its HTTPRoutes, or its Ingress). */
export function routedServices(informers: DeploymentInformers, owner: OwnerDeployment): string[] {
  const names = childNames(owner.name);
  const routes = [names.ingress, names.customRoute].flatMap((name) => informers.httpRoutes?.get(owner.namespace, name) ?? []);
  const ingress = informers.ingresses.get(owner.namespace, names.ingress);
  return [...routes.flatMap(httpRouteServices), ...(ingress ? ingressServices(ingress) : [])];
}

/** The route targets of a pass, from the caches. */
export function routeTargetsOf(informers: DeploymentInformers, owner: OwnerDeployment, now: Date): RouteTargets {
  const created = informers.services.get(owner.namespace, routeServiceNames(owner.uid).stable)?.metadata?.creationTimestamp;
  return decideRouteTargets(owner, {
    routed: routedServices(informers, owner),
    ...(created ? { routeServiceCreated: new Date(created) } : {}),
    now,
  });
}

interface HttpRouteSpec {
  rules?: { backendRefs?: { name?: string; namespace?: string }[] }[];
}

function httpRouteServices(route: DeepReadonly<KubeObject>): string[] {
  const spec = (route as { spec?: HttpRouteSpec }).spec;
  return (spec?.rules ?? []).flatMap((rule) => (rule.backendRefs ?? []).filter((ref) => !ref.namespace).map((ref) => ref.name ?? ''));
}

function ingressServices(ingress: DeepReadonly<V1Ingress>): string[] {
  return (ingress.spec?.rules ?? []).flatMap((rule) => (rule.http?.paths ?? []).map((path) => path.backend.service?.name ?? ''));
}
