// What the application's autoscaler is doing, as the Deployment's status says it (`status.scaling`):
// its replicas, what it wants, when it last scaled and why. Pure.
import type { V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { timestamp, timestampText, type DeploymentScaling } from '../../../api/index.ts';
import { statusOnlyUpdate, type DeepReadonly, type KubeObject } from '../../../runtime/index.ts';

type Autoscaler = DeepReadonly<V2HorizontalPodAutoscaler> | V2HorizontalPodAutoscaler;

/** The members of an autoscaler's status a pass reads (the cache keeps these, informers.ts). */
export const autoscalerStatusPaths = ['status.currentReplicas', 'status.desiredReplicas', 'status.lastScaleTime', 'status.conditions'];

export function scalingStatus(autoscaler: Autoscaler | undefined): DeploymentScaling | undefined {
  const status = autoscaler?.status;
  if (!status) return undefined;
  const conditions = status.conditions ?? [];
  // A metric it cannot read says most (the pods' CPU, or requests in flight where KEDA reads them);
  // then being held at a bound; else what the last attempt to scale did.
  const blind = conditions.find((c) => c.type === 'ScalingActive' && c.status === 'False');
  const limited = conditions.find((c) => c.type === 'ScalingLimited' && c.status === 'True');
  const why = blind ?? limited ?? conditions.find((c) => c.type === 'AbleToScale');
  const lastScaleTime = timestampText(status.lastScaleTime);
  return {
    replicas: status.currentReplicas ?? 0,
    desiredReplicas: status.desiredReplicas ?? 0,
    ...(lastScaleTime ? { lastScaleTime: timestamp(new Date(lastScaleTime)) } : {}),
    ...(why?.reason ? { reason: why.reason } : {}),
    ...(why?.message ? { message: why.message.slice(0, 1024) } : {}),
  };
}

/** An autoscaler's status moves with every metrics reading; a pass is due only when what it reports changes. */
export function autoscalerChangeMatters(object: DeepReadonly<KubeObject>, previous: DeepReadonly<KubeObject>): boolean {
  if (!statusOnlyUpdate(object, previous)) return true;
  const reading = (o: DeepReadonly<KubeObject>) => JSON.stringify(scalingStatus(o as Autoscaler) ?? null);
  return reading(object) !== reading(previous);
}
