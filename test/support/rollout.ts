// What the apps/v1 controller would write, for the integration suites' control plane, which runs none:
// a Deployment's rollout marked done.
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeRequest } from '../../src/runtime/index.ts';

/** Marks the apps/v1 Deployment's current template rolled out: every replica updated, ready and available. */
export async function markRolledOut(kc: KubeConfig, namespace: string, name: string): Promise<true> {
  const path = `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`;
  const current = await kubeRequest<{ metadata: { generation?: number }; spec?: { replicas?: number } }>(kc, { method: 'GET', path });
  const replicas = current.spec?.replicas ?? 1;
  await kubeRequest(kc, {
    method: 'PATCH',
    path: `${path}/status`,
    contentType: 'application/merge-patch+json',
    body: {
      status: {
        observedGeneration: current.metadata.generation,
        replicas,
        updatedReplicas: replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
      },
    },
  });
  return true;
}
