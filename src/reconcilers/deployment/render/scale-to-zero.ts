// A dev_zero app that scales to zero (tier.ts): its routes lead to the activator, KEDA's HTTP add-on, in
// the activator's namespace, which counts and holds each request while the app has no ready pod, then
// forwards it to the app's Service. Berth writes the add-on's InterceptorRoute (which hosts and paths
// are the app's, and its Service) and the KEDA ScaledObject that scales the app on the requests the
// add-on counts, 10 in flight per replica, from zero; and, in the activator's namespace, the
// ReferenceGrant that lets the namespace's HTTPRoutes name the activator's Service. Pure.
//
// The add-on's InterceptorRoute came in its v0.14.0 and replaces its HTTPScaledObject, which Berth wrote
// before: an installation that still serves that kind has Berth prune the ones it wrote (the new route
// takes precedence over one of the same name, so an app is routed throughout).
import { idleSecondsOf, targetConcurrencyPerReplica, type Activator, type ActivatorProxy } from '../../../api/index.ts';
import { childNames } from '../../../api/child-names.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import { applicationServicePort } from '../../../api/child-names.ts';
import { applicationScaledObject, type ScaledObject } from './autoscalers.ts';
import { type OwnerDeployment, childMetadata } from './common.ts';
import type { ExternalRoute, RouteBackend } from './ingress.ts';

export const interceptorRouteKind = { apiVersion: 'http.keda.sh/v1beta1', kind: 'InterceptorRoute', plural: 'interceptorroutes' } as const;
/** The add-on's earlier kind, which Berth wrote before InterceptorRoute: now only pruned. */
export const httpScaledObjectKind = { apiVersion: 'http.keda.sh/v1alpha1', kind: 'HTTPScaledObject', plural: 'httpscaledobjects' } as const;
export const referenceGrantKind = {
  apiVersion: 'gateway.networking.k8s.io/v1beta1',
  kind: 'ReferenceGrant',
  plural: 'referencegrants',
} as const;

/** The label of a ReferenceGrant Berth keeps for one namespace's routes: the namespace. */
export const activatorGrantLabel = 'berth.dev/activator-grant-for';

/** The add-on's routing entry for the app: a rule per host, with that host's paths, and its Service.
 * What it scales on is the ScaledObject's: the route names the metric, the concurrency per replica. */
export function renderInterceptorRoute(owner: OwnerDeployment, routes: readonly ExternalRoute[]): KubeObject {
  const target = childNames(owner.name).application;
  const hosts = [...new Set(routes.map((route) => route.host))];
  return {
    apiVersion: interceptorRouteKind.apiVersion,
    kind: interceptorRouteKind.kind,
    metadata: childMetadata(owner, target, 'application'),
    spec: {
      target: { service: target, port: applicationServicePort },
      rules: hosts.map((host) => ({
        hosts: [host],
        paths: [...new Set(routes.filter((route) => route.host === host).map((route) => route.path))].map((value) => ({ value })),
      })),
      scalingMetric: { concurrency: { targetValue: targetConcurrencyPerReplica } },
    },
  } as KubeObject;
}

/** What KEDA scales the app on: the add-on's count of its requests, from zero; from one while Berth keeps
 * a pod (rollout/keep-awake.ts: a revision rolls out, or was DEPLOYED less than its idle window ago). The HPA KEDA makes above one
 * replica keeps the application's name, as every autoscaler Berth renders does. */
export function renderActivatedScaledObject(
  owner: OwnerDeployment,
  activator: Activator,
  scale: { maxReplicas: number; keepOnePod: boolean; idleSeconds?: number; scaleDownWindowSeconds: number },
): ScaledObject {
  const idleSeconds = idleSecondsOf(activator, scale.idleSeconds);
  const bounds = {
    minReplicaCount: scale.keepOnePod ? 1 : 0,
    maxReplicaCount: scale.maxReplicas,
    cooldownPeriod: idleSeconds,
    // A new app is not taken to zero before its first pod has had the time to answer.
    initialCooldownPeriod: idleSeconds,
    scaleDownWindowSeconds: scale.scaleDownWindowSeconds,
  };
  return applicationScaledObject(owner, bounds, [
    {
      type: 'external-push',
      name: 'requests',
      metricType: 'AverageValue',
      metadata: { scalerAddress: activator.scalerAddress, interceptorRoute: childNames(owner.name).application },
    },
  ]);
}

/** The backend of the app's routes: the activator's proxy Service, in its own namespace. */
export function activatorBackend(proxy: ActivatorProxy): RouteBackend {
  return { group: '', kind: 'Service', namespace: proxy.namespace, name: proxy.name, port: proxy.port, weight: 1 };
}

/** Lets the HTTPRoutes of `namespace` name the activator's proxy Service (the Gateway API's rule for a
 * backend in another namespace). One per namespace, not owned: the Deployments there share it. */
export function renderActivatorGrant(namespace: string, proxy: ActivatorProxy): KubeObject {
  return {
    apiVersion: referenceGrantKind.apiVersion,
    kind: referenceGrantKind.kind,
    metadata: {
      name: activatorGrantName(namespace),
      namespace: proxy.namespace,
      labels: { 'app.kubernetes.io/managed-by': 'berth', [activatorGrantLabel]: namespace },
    },
    spec: {
      from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace }],
      to: [{ group: '', kind: 'Service', name: proxy.name }],
    },
  } as KubeObject;
}

export function activatorGrantName(namespace: string): string {
  return `berth-routes-${namespace}`;
}
