// What a Deployment's tier (sourceConfig.deploymentType) means here. dev_free, dev and prod render the
// same workloads, sized by resourceSpec; dedicated too, with at least two API replicas (src/api).
// dev_zero and serverless ask to scale to zero when idle, which needs a
// request-driven activator (something that holds a request while a pod starts): where the installation
// has one (--activator-proxy) and the app has a URL for it to hold, the app scales to zero; otherwise it
// runs as dev, and its ScaleToZero condition says which of the two is missing. Pure.
import { idleSecondsBeforeZero, scaleToZeroCondition, scaleToZeroTiers, type ConditionDecision } from '../../../api/index.ts';

/** Whether a Deployment scales to zero when idle, or why it does not; undefined for the tiers that never do. */
export type ScaleToZero = 'activated' | 'NoActivator' | 'NoRoute';

export function scaleToZero(
  deploymentType: string | null | undefined,
  where: { activator: boolean; routed: boolean },
): ScaleToZero | undefined {
  if (!deploymentType || !scaleToZeroTiers.has(deploymentType)) return undefined;
  if (!where.activator) return 'NoActivator';
  return where.routed ? 'activated' : 'NoRoute';
}

const conditions: Record<Exclude<ScaleToZero, 'activated'>, ConditionDecision> = {
  NoActivator: {
    type: scaleToZeroCondition,
    status: 'False',
    reason: 'NoActivator',
    message:
      'dev_zero and serverless scale to zero when idle only where the cluster has a request-driven activator; this one has none, so the deployment runs as dev (minScale replicas, at least one).',
  },
  NoRoute: {
    type: scaleToZeroCondition,
    status: 'False',
    reason: 'NoRoute',
    message:
      'dev_zero and serverless scale to zero only where their requests come through a URL, where the activator holds them; this deployment has none, so it runs as dev (minScale replicas, at least one).',
  },
};

/** The condition a Deployment of this tier carries, if any; `idleSeconds` its sourceConfig.idleSeconds. */
export function tierCondition(state: ScaleToZero | undefined, idleSeconds = idleSecondsBeforeZero): ConditionDecision | undefined {
  if (state !== 'activated') return state && conditions[state];
  return {
    type: scaleToZeroCondition,
    status: 'True',
    reason: 'Activated',
    message: `after ${idleSeconds} s without a request the deployment scales to zero; the next request through its URL waits while a pod starts (callers of its Service inside the cluster are not held).`,
  };
}
