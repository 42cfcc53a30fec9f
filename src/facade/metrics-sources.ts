// The cluster's figures as the metrics route reads them: each pod's usage from metrics-server
// (metrics.k8s.io, through the API server), a volume claim's size, an agent server's run queue as KEDA
// reads it (external.metrics.k8s.io, through the API server), and PromQL instant queries to the
// Prometheus-compatible store the installation reads request metrics from. Each read is bounded in time;
// nothing a team chooses reaches a query but its Service's name, a DNS label.
import type { KubeConfig, PodMetricsList } from '@kubernetes/client-node';
import { componentLabel } from '../workloads/revision-pods.ts';
import { isKubeApiError, kubeRequest } from '../runtime/kube-request.ts';
import { quantityValue } from '../runtime/quantity.ts';
import { labels } from '../api/group.ts';
import { runQueueMetricName, scaledObjectMetricSelector, type RunQueueReading } from '../api/run-queue.ts';
import type { MetricsSources, PodUsage } from './ports.ts';
import { instantValue, rangeValues, type QueryRange } from '../workloads/metrics-store.ts';

const readTimeoutMs = 5_000;

export function clusterMetricsSources(kc: KubeConfig, store?: string): MetricsSources {
  return {
    async podUsage(namespace, deploymentLabel) {
      try {
        const list = await kubeRequest<PodMetricsList>(kc, {
          method: 'GET',
          path: `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods`,
          query: { labelSelector: `${labels.deployment}=${deploymentLabel}` },
          timeoutMs: readTimeoutMs,
        });
        return list.items.map(podUsage);
      } catch (error) {
        // No metrics-server (or one that is not ready yet): the figures are unavailable, not an error.
        if (isKubeApiError(error, 404) || isKubeApiError(error, 503)) return undefined;
        throw error;
      }
    },
    async claimCapacity(namespace, claim) {
      try {
        const found = await kubeRequest<{ status?: { capacity?: Record<string, string> } }>(kc, {
          method: 'GET',
          path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/persistentvolumeclaims/${encodeURIComponent(claim)}`,
          timeoutMs: readTimeoutMs,
        });
        return quantityValue(found.status?.capacity?.storage ?? '');
      } catch (error) {
        if (isKubeApiError(error, 404)) return undefined;
        throw error;
      }
    },
    async runQueue(namespace, scaledObject) {
      const read = async (reading: RunQueueReading) => {
        const list = await kubeRequest<{ items: { value: string }[] }>(kc, {
          method: 'GET',
          path: `/apis/external.metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/${runQueueMetricName(reading)}`,
          query: { labelSelector: scaledObjectMetricSelector(scaledObject) },
          timeoutMs: readTimeoutMs,
        });
        const value = quantityValue(list.items[0]?.value ?? '');
        if (value === undefined) throw new Error(`KEDA has no ${reading} reading for ${scaledObject}`);
        return Math.round(value);
      };
      const [backlog, pending] = await Promise.all([read('backlog'), read('pending')]);
      return { backlog, pending };
    },
    ...(store
      ? {
          query: (promql: string) => instantValue(store, promql),
          queryRange: (promql: string, range: QueryRange) => rangeValues(store, promql, range),
        }
      : {}),
  };
}

function podUsage(item: PodMetricsList['items'][number]): PodUsage {
  const sum = (read: (usage: { cpu: string; memory: string }) => string) =>
    item.containers.reduce((total, container) => total + (quantityValue(read(container.usage)) ?? 0), 0);
  return {
    component: item.metadata.labels?.[componentLabel] ?? '',
    cpuCores: sum((usage) => usage.cpu),
    memoryBytes: Math.round(sum((usage) => usage.memory)),
  };
}
