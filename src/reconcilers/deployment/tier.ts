// What a Deployment's tier (sourceConfig.deploymentType) means here. dev_free, dev and prod render the
// same workloads, sized by resourceSpec. dev_zero asks to scale to zero when idle, which needs a
// request-driven activator (something that holds a request while a pod starts); Berth's clusters have
// none, so a dev_zero Deployment runs as dev and a ScaleToZero condition says so. Pure.
import type { Condition } from '../../api/index.ts';

export const scaleToZeroCondition = 'ScaleToZero';

export type TierCondition = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

/** The condition a Deployment of this tier carries, if any. */
export function tierCondition(deploymentType: string | null | undefined): TierCondition | undefined {
  if (deploymentType !== 'dev_zero') return undefined;
  return {
    type: scaleToZeroCondition,
    status: 'False',
    reason: 'NoActivator',
    message:
      'dev_zero scales to zero when idle only where the cluster has a request-driven activator; this one has none, so the deployment runs as dev (minScale replicas, at least one).',
  };
}
