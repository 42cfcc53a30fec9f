// The API server's pod log endpoint as the facade's PodLogReader: one container's log with the
// kubelet's timestamps, bounded in lines, bytes and time so a chatty app cannot stall a request.
import type { KubeConfig } from '@kubernetes/client-node';
import { isKubeApiError, kubeText } from '../runtime/kube-request.ts';
import type { PodLogReader } from './ports.ts';

/** The newest lines each container contributes to a request. */
const podLogTailLines = 5000;
const podLogLimitBytes = 4 * 1024 * 1024;

export function kubePodLogReader(kc: KubeConfig): PodLogReader {
  return {
    async read(namespace, pod, container, { previous }) {
      try {
        return await kubeText(kc, {
          method: 'GET',
          path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`,
          query: { container, timestamps: true, tailLines: podLogTailLines, limitBytes: podLogLimitBytes, ...(previous ? { previous: true } : {}) },
          timeoutMs: 10_000,
        });
      } catch (error) {
        // A pod that went away, or a container that has not started (or has no previous run): no lines.
        if (isKubeApiError(error, 404) || isKubeApiError(error, 400)) return '';
        throw error;
      }
    },
  };
}
