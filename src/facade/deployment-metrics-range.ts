// A deployment's figures over a range (GET /v2/deployments/{id}/metrics with start, end and step): the
// Gateway's request series from the metrics store, its revisions made within the range as markers, and
// the figures that have no history here, with why. A figure that cannot be read is listed, never an error
// for the whole.
import type { RequestMetricQueries } from '../api/index.ts';
import type { QueryRange } from '../workloads/metrics-store.ts';
import type { MetricsSources } from './ports.ts';
import type { DeploymentMetricsRange, RevisionResponse } from './wire-schemas.ts';

type Metric = DeploymentMetricsRange['series'][number]['metric'];
type Unavailable = DeploymentMetricsRange['unavailable'];

const requestSeries: [Metric, keyof RequestMetricQueries][] = [
  ['requests_per_second', 'requestsPerSecond'],
  ['errors_per_second', 'errorsPerSecond'],
  ['latency_p50_seconds', 'latencyP50Seconds'],
  ['latency_p99_seconds', 'latencyP99Seconds'],
];

export interface RangeInput {
  deploymentId: string;
  range: QueryRange;
  /** The Gateway's queries of its requests, or why they cannot be read (it scales to zero). */
  requests: RequestMetricQueries | { unavailable: string };
  /** The deployment's revisions, as the revisions route answers them. */
  revisions: readonly RevisionResponse[];
  /** It has a queue worker, whose queue KEDA reads. */
  queued: boolean;
}

export async function metricsOverRange(metrics: MetricsSources, input: RangeInput): Promise<DeploymentMetricsRange> {
  const { range } = input;
  const read = await requestsOverRange(metrics, input.requests, range);
  return {
    deployment_id: input.deploymentId,
    start: range.start.toISOString(),
    end: range.end.toISOString(),
    step_seconds: range.stepSeconds,
    series: read.series,
    revisions: revisionMarkers(input.revisions, range),
    unavailable: [...read.unavailable, ...withoutHistory(input.queued)],
  };
}

async function requestsOverRange(
  metrics: MetricsSources,
  requests: RangeInput['requests'],
  range: QueryRange,
): Promise<{ series: DeploymentMetricsRange['series']; unavailable: Unavailable }> {
  const all = (reason: string) => ({ series: [], unavailable: requestSeries.map(([metric]) => ({ metric, reason })) });
  if ('unavailable' in requests) return all(requests.unavailable);
  const queryRange = metrics.queryRange;
  if (!queryRange) return all('this installation reads no request metrics (--concurrency-metrics)');
  try {
    const series = await Promise.all(
      requestSeries.map(async ([metric, query]) => ({ metric, points: await queryRange(requests[query], range) })),
    );
    return { series, unavailable: [] };
  } catch {
    return all('the metrics store did not answer');
  }
}

/** Revisions made within the range, oldest first. */
export function revisionMarkers(revisions: readonly RevisionResponse[], range: QueryRange): DeploymentMetricsRange['revisions'] {
  return revisions
    .filter((revision) => {
      const at = Date.parse(revision.created_at);
      return at >= range.start.getTime() && at <= range.end.getTime();
    })
    .map(({ id, name, status, created_at }) => ({ id, name, status, created_at }))
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
}

function withoutHistory(queued: boolean): Unavailable {
  const usage = 'metrics-server keeps no history: CPU and memory over time need a store that scrapes the kubelets (cAdvisor)';
  const runs = 'KEDA reads the run queue as it is now and keeps no history';
  return [
    { metric: 'cpu_cores', reason: usage },
    { metric: 'memory_bytes', reason: usage },
    ...(queued
      ? ([
          { metric: 'pending_runs', reason: runs },
          { metric: 'active_runs', reason: runs },
        ] as Unavailable)
      : []),
  ];
}
