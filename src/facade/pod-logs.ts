// The API server's pod log endpoint as the facade's PodLogReader: one container's log with the
// kubelet's timestamps, bounded in lines, bytes and time so a chatty app cannot stall a request.
import type { KubeConfig } from '@kubernetes/client-node';
import { isKubeApiError, kubeText } from '../runtime/kube-request.ts';
import { logReadLimits } from './log-reads.ts';
import type { PodLogReader } from './ports.ts';

/** The newest lines a container contributes to a request when it may take the most bytes one read
 * may (log-reads.ts); fewer, in proportion, when its share is smaller. The API server applies the byte
 * limit to the tail it cut, from its start: lines in proportion keep the tail the newest lines. */
const podLogTailLines = 5000;
const tailLinesFor = (limitBytes: number) => Math.max(100, Math.round((podLogTailLines * limitBytes) / logReadLimits.maxReadBytes));

/** What the kubelet answers, with a 200, in place of the log of a container it has just removed: a
 * notice, not a line of the app's. */
const removedContainerNotice = /^unable to retrieve container logs for \S+\s*$/;

/** A container's log as the kubelet answered it; nothing where it answered its removed-container notice. */
export function containerLog(body: string): string {
  return removedContainerNotice.test(body) ? '' : body;
}

export function kubePodLogReader(kc: KubeConfig): PodLogReader {
  return {
    async read(namespace, pod, container, { previous, limitBytes }) {
      try {
        return containerLog(
          await kubeText(kc, {
            method: 'GET',
            path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`,
            query: {
              container,
              timestamps: true,
              tailLines: tailLinesFor(limitBytes),
              limitBytes,
              ...(previous ? { previous: true } : {}),
            },
            timeoutMs: 10_000,
          }),
        );
      } catch (error) {
        // A pod that went away, or a container that has not started (or has no previous run): no lines.
        if (isKubeApiError(error, 404) || isKubeApiError(error, 400)) return '';
        throw error;
      }
    },
  };
}
