// How a Deployment is reached from outside the cluster: its own URL's host and its customUrl's host and
// path, routed to its route Service, as HTTPRoutes on the installation's Gateway or, where the
// installation routes through an Ingress controller, as one Ingress. Pure.
import type { V1Ingress } from '@kubernetes/client-node';
import type { CustomUrlRoute } from '../../../api/index.ts';
import { childNames } from '../../../api/child-names.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import { type OwnerDeployment, childMetadata } from './common.ts';
import { applicationServicePort, type RouteServices } from '../../../api/child-names.ts';

/** A host and path prefix that reach the application, and the name of the object that routes it. */
export interface ExternalRoute extends CustomUrlRoute {
  objectName: string;
}

/** The Gateway the HTTPRoutes attach to. */
export interface GatewayRef {
  namespace: string;
  name: string;
}

export const httpRouteApiVersion = 'gateway.networking.k8s.io/v1';

/** A route's backend: a route Service (child-names.ts routeServiceNames), or the activator's (scale-to-zero.ts). */
export type RouteBackend = { group: ''; kind: 'Service'; namespace?: string; name: string; port: number; weight: number };

export function serviceBackend(service: string): RouteBackend {
  return { group: '', kind: 'Service', name: service, port: applicationServicePort, weight: 1 };
}

/** The canary's Service at a weight beside the application's (canary.ts): weights are percents. */
export function canaryBackends(services: RouteServices, weight: number): RouteBackend[] {
  return [
    { ...serviceBackend(services.stable), weight: 100 - weight },
    { ...serviceBackend(services.canary), weight },
  ];
}

/** A shard of the Gateway (gateway-shards.ts) and the listener on it that serves a route's host. */
export interface ShardListener {
  name: string;
  sectionName: string;
}

/** The route of one host, on the Gateway and, where its host's listener is on a shard, on that listener. */
export function renderHttpRoute(
  owner: OwnerDeployment,
  route: ExternalRoute,
  gateway: GatewayRef,
  backends: RouteBackend[],
  shard?: ShardListener,
): KubeObject {
  const parent = { group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: gateway.namespace, name: gateway.name };
  return {
    apiVersion: httpRouteApiVersion,
    kind: 'HTTPRoute',
    metadata: childMetadata(owner, route.objectName, 'application'),
    spec: {
      parentRefs: [parent, ...(shard ? [{ ...parent, ...shard }] : [])],
      hostnames: [route.host],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: route.path } }],
          backendRefs: backends,
        },
      ],
    },
  } as KubeObject;
}

/** One Ingress for every route (named after the first), for installations that route through Ingress. */
export function renderIngress(
  owner: OwnerDeployment,
  routes: readonly ExternalRoute[],
  service: string,
  ingressClassName?: string,
): V1Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: childMetadata(owner, childNames(owner.name).ingress, 'application'),
    spec: {
      ...(ingressClassName ? { ingressClassName } : {}),
      rules: routes.map((route) => ({
        host: route.host,
        http: {
          paths: [{ path: route.path, pathType: 'Prefix', backend: { service: { name: service, port: { name: 'http' } } } }],
        },
      })),
    },
  };
}
