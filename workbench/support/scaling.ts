// What the autoscaling tests and benchmarks read of an app: its HorizontalPodAutoscaler (Berth's or KEDA's,
// one name either way), the Berth Deployment's status.scaling and the ready replicas of its pods. No test
// runner here: the node suite and bench/ share it (the tests' steps are in test/node/scaling-steps.ts).
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeRequest } from '../../src/runtime/index.ts';

export interface Autoscaler {
  spec: { minReplicas: number; maxReplicas: number; metrics?: { type: string }[] };
  status?: {
    currentReplicas?: number;
    desiredReplicas?: number;
    currentMetrics?: { type: string; external?: { current?: { averageValue?: string } } }[];
  };
}

export const autoscalerOf = (kc: KubeConfig, namespace: string, name: string) =>
  kubeRequest<Autoscaler>(kc, { method: 'GET', path: `/apis/autoscaling/v2/namespaces/${namespace}/horizontalpodautoscalers/${name}` });

/** The Berth Deployment's status.scaling. */
export const berthScalingOf = async (kc: KubeConfig, namespace: string, name: string) =>
  (
    await kubeRequest<{ status?: { scaling?: { replicas: number; desiredReplicas: number; lastScaleTime?: string } } }>(kc, {
      method: 'GET',
      path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/${name}`,
    })
  ).status?.scaling;

export const readyReplicasOf = async (kc: KubeConfig, namespace: string, name: string) =>
  (
    await kubeRequest<{ status?: { readyReplicas?: number } }>(kc, {
      method: 'GET',
      path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
    })
  ).status?.readyReplicas ?? 0;

/** Reads the autoscaler each second until stopped; answers the most replicas it had or asked for. */
export function watchMostReplicas(kc: KubeConfig, namespace: string, name: string): { stop(): Promise<number> } {
  let most = 0;
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const status = (await autoscalerOf(kc, namespace, name).catch(() => undefined))?.status;
      most = Math.max(most, status?.currentReplicas ?? 0, status?.desiredReplicas ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return {
    async stop() {
      watching = false;
      await watch;
      return most;
    },
  };
}
