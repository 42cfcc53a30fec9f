// A deployment's figures over a range (GET /v2/deployments/{id}/metrics with start, end and step): the
// Gateway's request series, its pods' CPU and memory (the kubelets' cAdvisor) and an agent server's run
// queue (KEDA's readings) from the metrics store, its revisions made within the range as markers, and
// the figures that have no history here, with why.
// A figure that cannot be read is listed, never an error for the whole.
import type { RequestMetricQueries, RunQueueQueries, UsageMetricQueries } from '../api/index.ts';
import type { QueryRange } from '../workloads/metrics-store.ts';
import type { MetricsSources } from './ports.ts';
import type { DeploymentMetricsRange, RevisionResponse } from './wire-schemas.ts';

type Metric = DeploymentMetricsRange['series'][number]['metric'];
type Unavailable = DeploymentMetricsRange['unavailable'];

type Series = DeploymentMetricsRange['series'];

const requestSeries: [Metric, keyof RequestMetricQueries][] = [
  ['requests_per_second', 'requestsPerSecond'],
  ['errors_per_second', 'errorsPerSecond'],
  ['latency_p50_seconds', 'latencyP50Seconds'],
  ['latency_p99_seconds', 'latencyP99Seconds'],
];

const usageSeries: [Metric, keyof UsageMetricQueries][] = [
  ['cpu_cores', 'cpuCores'],
  ['memory_bytes', 'memoryBytes'],
];

const queueSeries: [Metric, keyof RunQueueQueries][] = [
  ['pending_runs', 'pendingRuns'],
  ['active_runs', 'activeRuns'],
];

const noStore = 'this installation reads no metrics store (--concurrency-metrics)';

export interface RangeInput {
  deploymentId: string;
  range: QueryRange;
  /** The Gateway's queries of its requests, or why they cannot be read (it scales to zero). */
  requests: RequestMetricQueries | { unavailable: string };
  /** The cAdvisor queries of its application's pods. */
  usage: UsageMetricQueries;
  /** The deployment's revisions, as the revisions route answers them. */
  revisions: readonly RevisionResponse[];
  /** The queries of its queue worker's run queue, as KEDA reads it: only where it has one. */
  queue?: RunQueueQueries;
}

export async function metricsOverRange(metrics: MetricsSources, input: RangeInput): Promise<DeploymentMetricsRange> {
  const { range } = input;
  const [requests, usage, queue] = await Promise.all([
    'unavailable' in input.requests
      ? everyUnavailable(requestSeries, input.requests.unavailable)
      : seriesOverRange(metrics, requestSeries, input.requests, range),
    seriesOverRange(metrics, usageSeries, input.usage, range).then((read) =>
      sampledOr(
        read,
        "the metrics store has no sample of its pods in this range: it needs the kubelets' cAdvisor scraped (/metrics/cadvisor)",
      ),
    ),
    input.queue
      ? seriesOverRange(metrics, queueSeries, input.queue, range).then((read) =>
          sampledOr(
            read,
            "the metrics store has no reading of its queue in this range: it needs KEDA's operator metrics scraped (keda_scaler_metrics_value)",
          ),
        )
      : { series: [], unavailable: [] },
  ]);
  return {
    deployment_id: input.deploymentId,
    start: range.start.toISOString(),
    end: range.end.toISOString(),
    step_seconds: range.stepSeconds,
    series: [...requests.series, ...usage.series, ...queue.series],
    revisions: revisionMarkers(input.revisions, range),
    unavailable: [...requests.unavailable, ...usage.unavailable, ...queue.unavailable],
  };
}

interface Read {
  series: Series;
  unavailable: Unavailable;
}

function everyUnavailable<K extends string>(metrics: [Metric, K][], reason: string): Read {
  return { series: [], unavailable: metrics.map(([metric]) => ({ metric, reason })) };
}

/** Each query's series over the range, or every one unavailable with why. */
async function seriesOverRange<K extends string>(
  metrics: MetricsSources,
  wanted: [Metric, K][],
  queries: Record<K, string>,
  range: QueryRange,
): Promise<Read> {
  const queryRange = metrics.queryRange;
  if (!queryRange) return everyUnavailable(wanted, noStore);
  try {
    const series = await Promise.all(wanted.map(async ([metric, query]) => ({ metric, points: await queryRange(queries[query], range) })));
    return { series, unavailable: [] };
  } catch {
    return everyUnavailable(wanted, 'the metrics store did not answer');
  }
}

/** What was read, unless the store has no sample of it in the range: then every series unavailable,
 * saying what the store lacks (or, as well, that nothing ran then). */
function sampledOr(read: Read, reason: string): Read {
  const sampled = read.series.some((series) => series.points.some(([, value]) => value !== null));
  if (read.series.length === 0 || sampled) return read;
  return { series: [], unavailable: read.series.map(({ metric }) => ({ metric, reason })) };
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
