// The application's and the queue worker's autoscalers, from min/max scale: HorizontalPodAutoscalers
// (autoscaling/v2) on CPU; or, where the installation reads apps' requests in flight (--concurrency-metrics),
// the application's is a KEDA ScaledObject on them and on CPU. KEDA makes its HorizontalPodAutoscaler under
// the same name Berth's own would have, so status.scaling and `kubectl get hpa` read one object either way.
import type { V2HorizontalPodAutoscaler, V2HorizontalPodAutoscalerBehavior } from '@kubernetes/client-node';
import { childNames } from '../../../api/child-names.ts';
import { concurrencyQuery, targetConcurrencyPerReplica, type RequestConcurrency } from '../../../api/request-concurrency.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import { applicationMinScale, scaling } from './backing.ts';
import { type Component, type OwnerDeployment, childMetadata } from './common.ts';
import { applicationServicePort } from '../../../api/child-names.ts';
import type { DeploymentSpecInput } from './spec.ts';

/** CPU utilisation the autoscaler holds the pods at, as a share of their CPU request. */
const targetCpuUtilization = 70;

/** How long load must stay low before replicas go, by default: Knative's stable window. The HPA's own
 * default, five minutes, keeps an app's burst capacity (and its cost) long after a burst ends. */
export const defaultScaleDownWindowSeconds = 60;

/** What the installation chooses about every autoscaler Berth renders. */
export interface AutoscalingSettings {
  /** How long load must stay low before replicas go (the HPA's scale-down stabilization window). */
  scaleDownWindowSeconds: number;
  /** Where apps' requests in flight are read: the application then scales on them through KEDA. */
  requestConcurrency?: RequestConcurrency;
}

/** KEDA's kind, which the controller caches and applies and Berth asks the cluster for at start. */
export const scaledObjectKind = { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', plural: 'scaledobjects' } as const;

/** Whether the installation has KEDA: Berth asks for its ScaledObjects at start where apps scale on their
 * requests in flight or to zero (src/cli/run.ts), and caches and writes them only then. */
export function servesScaledObjects(installation: { requestConcurrency?: unknown; activator?: unknown }): boolean {
  return installation.requestConcurrency !== undefined || installation.activator !== undefined;
}

/**
 * Queue workers go one at a time, a minute apart, as the reference's do: each one going first finishes
 * the runs it holds (its drain), so a backlog that ends takes its workers away step by step rather than
 * all at once while their runs drain.
 */
export const queueWorkerScaleDownStep = { type: 'Pods', value: 1, periodSeconds: 60 } as const;

function scaleDownBehavior(windowSeconds: number, component: Component): V2HorizontalPodAutoscalerBehavior {
  const stepped = component === 'queue-worker' ? { policies: [{ ...queueWorkerScaleDownStep }] } : {};
  return { scaleDown: { stabilizationWindowSeconds: windowSeconds, ...stepped } };
}

/** The members of KEDA's ScaledObject that Berth sets. */
export interface ScaledObject extends KubeObject {
  spec: {
    scaleTargetRef: { apiVersion: string; kind: string; name: string };
    minReplicaCount: number;
    maxReplicaCount: number;
    cooldownPeriod?: number;
    initialCooldownPeriod?: number;
    pollingInterval?: number;
    advanced: { horizontalPodAutoscalerConfig: { name: string; behavior: V2HorizontalPodAutoscalerBehavior } };
    triggers: { type: string; name?: string; metricType: 'Utilization' | 'AverageValue'; metadata: Record<string, string> }[];
  };
}

function renderAutoscaler(
  owner: OwnerDeployment,
  target: string,
  component: Component,
  minScale: number | null | undefined,
  maxScale: number | null | undefined,
  scaleDownWindowSeconds: number,
): V2HorizontalPodAutoscaler | undefined {
  const scale = scaling(minScale, maxScale);
  if (scale.kind === 'scaledToZero') return undefined;
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: childMetadata(owner, target, component),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
      minReplicas: scale.minReplicas,
      maxReplicas: scale.maxReplicas,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: targetCpuUtilization } } }],
      behavior: scaleDownBehavior(scaleDownWindowSeconds, component),
    },
  };
}

/** How a ScaledObject scales: its replica bounds, KEDA's periods and the scale-down window of its HPA. */
type ScaledObjectBounds = Pick<
  ScaledObject['spec'],
  'minReplicaCount' | 'maxReplicaCount' | 'cooldownPeriod' | 'initialCooldownPeriod' | 'pollingInterval'
> & { scaleDownWindowSeconds: number };

/** The application's ScaledObject with its bounds and triggers: KEDA's HPA keeps the application's name. */
export function applicationScaledObject(
  owner: OwnerDeployment,
  bounds: ScaledObjectBounds,
  triggers: ScaledObject['spec']['triggers'],
): ScaledObject {
  return scaledObject(owner, { name: childNames(owner.name).application, component: 'application' }, bounds, triggers);
}

/** A ScaledObject of one of the Deployment's workloads, named after it, as KEDA's HPA then is. */
export function scaledObject(
  owner: OwnerDeployment,
  workload: { name: string; component: Component },
  bounds: ScaledObjectBounds,
  triggers: ScaledObject['spec']['triggers'],
): ScaledObject {
  const target = workload.name;
  const { scaleDownWindowSeconds, ...kedaBounds } = bounds;
  return {
    apiVersion: scaledObjectKind.apiVersion,
    kind: scaledObjectKind.kind,
    metadata: childMetadata(owner, target, workload.component),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
      ...kedaBounds,
      advanced: {
        horizontalPodAutoscalerConfig: { name: target, behavior: scaleDownBehavior(scaleDownWindowSeconds, workload.component) },
      },
      triggers,
    },
  };
}

/** The application's ScaledObject: replicas for its requests in flight (10 each) or its CPU, whichever asks more. */
function renderScaledObject(
  owner: OwnerDeployment,
  routedService: string,
  signal: RequestConcurrency,
  minScale: number | null | undefined,
  maxScale: number | null | undefined,
  scaleDownWindowSeconds: number,
): ScaledObject | undefined {
  const scale = scaling(minScale, maxScale);
  if (scale.kind === 'scaledToZero') return undefined;
  const query = concurrencyQuery(signal.query, { namespace: owner.namespace, name: routedService, port: applicationServicePort });
  const bounds = { minReplicaCount: scale.minReplicas, maxReplicaCount: scale.maxReplicas, scaleDownWindowSeconds };
  return applicationScaledObject(owner, bounds, [
    { type: 'cpu', metricType: 'Utilization', metadata: { value: String(targetCpuUtilization) } },
    {
      type: 'prometheus',
      name: 'requests-in-flight',
      metricType: 'AverageValue',
      metadata: {
        serverAddress: signal.serverAddress,
        query,
        threshold: String(targetConcurrencyPerReplica),
        ignoreNullValues: 'true',
      },
    },
  ]);
}

/** The application's autoscaler; with a request-concurrency signal, read at `routedService`, the
 * Service the Gateway's routes name (child-names.ts routeServiceNames). */
export function renderApplicationAutoscaler(
  owner: OwnerDeployment,
  spec: DeploymentSpecInput,
  settings: AutoscalingSettings,
  routedService: string,
): V2HorizontalPodAutoscaler | ScaledObject | undefined {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  const minScale = applicationMinScale(spec);
  const { requestConcurrency, scaleDownWindowSeconds } = settings;
  if (requestConcurrency)
    return renderScaledObject(owner, routedService, requestConcurrency, minScale, resources.maxScale, scaleDownWindowSeconds);
  const name = childNames(owner.name).application;
  return renderAutoscaler(owner, name, 'application', minScale, resources.maxScale, scaleDownWindowSeconds);
}

export function renderQueueWorkerAutoscaler(
  owner: OwnerDeployment,
  spec: DeploymentSpecInput,
  settings: AutoscalingSettings,
): V2HorizontalPodAutoscaler | undefined {
  const { queueMinScale, queueMaxScale } = spec.sourceConfig?.resourceSpec ?? {};
  const name = childNames(owner.name).queueWorker;
  return renderAutoscaler(owner, name, 'queue-worker', queueMinScale, queueMaxScale, settings.scaleDownWindowSeconds);
}
