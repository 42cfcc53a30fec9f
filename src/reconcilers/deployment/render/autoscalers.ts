// HorizontalPodAutoscalers (autoscaling/v2) for the application and the queue worker, from min/max scale.
import type { V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { childNames } from '../../../api/child-names.ts';
import { scaling } from './backing.ts';
import { type Component, type OwnerDeployment, childMetadata } from './common.ts';
import type { DeploymentSpecInput } from './spec.ts';

/** CPU utilisation the autoscaler holds the pods at, as a share of their CPU request. */
const targetCpuUtilization = 70;

/** How long load must stay low before replicas go: Knative's stable window. The HPA's own default,
 * five minutes, keeps an app's burst capacity (and its cost) long after a burst ends. */
const scaleDownWindowSeconds = 60;

function renderAutoscaler(
  owner: OwnerDeployment,
  target: string,
  component: Component,
  minScale: number | null | undefined,
  maxScale: number | null | undefined,
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
      behavior: { scaleDown: { stabilizationWindowSeconds: scaleDownWindowSeconds } },
    },
  };
}

export function renderApplicationAutoscaler(owner: OwnerDeployment, spec: DeploymentSpecInput): V2HorizontalPodAutoscaler | undefined {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  return renderAutoscaler(owner, childNames(owner.name).application, 'application', resources.minScale, resources.maxScale);
}

export function renderQueueWorkerAutoscaler(owner: OwnerDeployment, spec: DeploymentSpecInput): V2HorizontalPodAutoscaler | undefined {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  return renderAutoscaler(owner, childNames(owner.name).queueWorker, 'queue-worker', resources.queueMinScale, resources.queueMaxScale);
}
