// A deployment's figures as the metrics route answers them, from what was read: its workload pods (the
// cache), each pod's usage (metrics-server), its database volume's size, the Gateway's measures of its
// requests, and an agent server's run queue (KEDA's readings). What could not be read is null, and named in `unavailable` with the reason. Pure.
import type { V1Pod } from '@kubernetes/client-node';
import { requestMetricsWindowSeconds, type RequestMetricQueries } from '../api/index.ts';
import type { DeepReadonly } from '../runtime/types.ts';
import type { PodUsage, RunQueueFigures } from './ports.ts';
import { workloadComponents } from '../workloads/revision-pods.ts';
import type { DeploymentMetricsResponse } from './wire-schemas.ts';

export type ApiReadings = { [K in keyof RequestMetricQueries]: number | undefined };

export interface MetricsReadings {
  deploymentId: string;
  measuredAt: Date;
  /** The application's and queue worker's pods. */
  pods: readonly DeepReadonly<V1Pod>[];
  /** Each pod's usage, or why there is none. */
  usage: PodUsage[] | { unavailable: string };
  /** The database volume's size; undefined without a database. */
  database: { capacityBytes: number | undefined } | undefined;
  api: ApiReadings | { unavailable: string };
  /** The run queue; undefined without a queue worker. */
  queue: RunQueueFigures | { unavailable: string } | undefined;
}

type Unavailable = DeploymentMetricsResponse['unavailable'];

export function deploymentMetrics(readings: MetricsReadings): DeploymentMetricsResponse {
  const unavailable: Unavailable = [];
  if ('unavailable' in readings.usage) unavailable.push({ metric: 'cpu_cores, memory_bytes', reason: readings.usage.unavailable });
  if ('unavailable' in readings.api) unavailable.push({ metric: 'api', reason: readings.api.unavailable });
  if (readings.queue && 'unavailable' in readings.queue) unavailable.push({ metric: 'queue', reason: readings.queue.unavailable });
  const usage = 'unavailable' in readings.usage ? undefined : readings.usage;
  return {
    deployment_id: readings.deploymentId,
    measured_at: readings.measuredAt.toISOString(),
    application: { ...podCounts(readings.pods), ...usageOf(usage, (component) => workloadComponents.has(component)) },
    database: readings.database
      ? { ...usageOf(usage, (component) => component === 'postgres'), disk_capacity_bytes: readings.database.capacityBytes ?? null }
      : null,
    api: 'unavailable' in readings.api ? null : apiFigures(readings.api),
    queue: readings.queue && !('unavailable' in readings.queue) ? queueFigures(readings.queue) : null,
    unavailable,
  };
}

function podCounts(pods: readonly DeepReadonly<V1Pod>[]) {
  const live = pods.filter((pod) => !pod.metadata?.deletionTimestamp);
  const ready = live.filter((pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  const restarts = live.reduce(
    (total, pod) => total + (pod.status?.containerStatuses ?? []).reduce((sum, status) => sum + (status.restartCount ?? 0), 0),
    0,
  );
  return { replicas: live.length, ready_replicas: ready.length, restarts };
}

function usageOf(usage: PodUsage[] | undefined, counts: (component: string) => boolean) {
  if (!usage) return { cpu_cores: null, memory_bytes: null };
  const pods = usage.filter((pod) => counts(pod.component));
  return {
    cpu_cores: round(
      pods.reduce((total, pod) => total + pod.cpuCores, 0),
      3,
    ),
    memory_bytes: pods.reduce((total, pod) => total + pod.memoryBytes, 0),
  };
}

function apiFigures(api: ApiReadings): NonNullable<DeploymentMetricsResponse['api']> {
  const requests = api.requestsPerSecond ?? 0;
  const errors = api.errorsPerSecond ?? 0;
  return {
    window_seconds: requestMetricsWindowSeconds,
    requests_per_second: round(requests, 3),
    success_ratio: requests > 0 ? round(Math.max(0, 1 - errors / requests), 4) : null,
    errors_per_second: round(errors, 3),
    latency_p50_seconds: api.latencyP50Seconds === undefined ? null : round(api.latencyP50Seconds, 4),
    latency_p99_seconds: api.latencyP99Seconds === undefined ? null : round(api.latencyP99Seconds, 4),
  };
}

/** Active runs are the backlog less the pending ones: two readings a moment apart, so never below 0. */
function queueFigures(queue: RunQueueFigures): NonNullable<DeploymentMetricsResponse['queue']> {
  return { pending_runs: queue.pending, active_runs: Math.max(0, queue.backlog - queue.pending) };
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
