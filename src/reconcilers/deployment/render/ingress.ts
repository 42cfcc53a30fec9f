// How a Deployment is reached from outside the cluster: its own URL's host and its customUrl's host and
// path, routed to the application Service, as HTTPRoutes on the installation's Gateway or, where the
// installation routes through an Ingress controller, as one Ingress. Pure.
import type { V1Ingress } from '@kubernetes/client-node';
import type { CustomUrlRoute } from '../../../api/index.ts';
import { childNames } from '../../../api/child-names.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import { type OwnerDeployment, childMetadata } from './common.ts';
import { applicationServicePort } from '../../../api/child-names.ts';

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

/** A route's backend: the application's Service, or another in its own namespace (scale-to-zero.ts). */
export type RouteBackend = { group: ''; kind: 'Service'; namespace?: string; name: string; port: number; weight: number };

export function applicationBackend(owner: OwnerDeployment): RouteBackend {
  return { group: '', kind: 'Service', name: childNames(owner.name).application, port: applicationServicePort, weight: 1 };
}

/** The canary's Service at a weight beside the application's (canary.ts): weights are percents. */
export function canaryBackends(owner: OwnerDeployment, weight: number): RouteBackend[] {
  const names = childNames(owner.name);
  return [
    { ...applicationBackend(owner), weight: 100 - weight },
    { ...applicationBackend(owner), name: names.canary, weight },
  ];
}

export function renderHttpRoute(
  owner: OwnerDeployment,
  route: ExternalRoute,
  gateway: GatewayRef,
  backends: RouteBackend[] = [applicationBackend(owner)],
): KubeObject {
  return {
    apiVersion: httpRouteApiVersion,
    kind: 'HTTPRoute',
    metadata: childMetadata(owner, route.objectName, 'application'),
    spec: {
      parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: gateway.namespace, name: gateway.name }],
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
export function renderIngress(owner: OwnerDeployment, routes: readonly ExternalRoute[], ingressClassName?: string): V1Ingress {
  const service = childNames(owner.name).application;
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
