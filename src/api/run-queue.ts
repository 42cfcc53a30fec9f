// The runs an agent server's queue holds, as KEDA reads them from the deployment's own Postgres (aegra's
// table `runs`): the queue worker's ScaledObject has a trigger per reading, in this order, and the metrics
// route reads each back through the external metrics API (external.metrics.k8s.io), where KEDA names a
// trigger's metric by its index and scaler. The queue worker scales on the backlog; the pending runs are
// never more than the backlog, so their trigger (the larger of the two wins) never changes the scale. Pure.

export const runQueueReadings = {
  /** Runs waiting for a worker or running on one. */
  backlog: { trigger: 'run-backlog', query: "SELECT count(*) FROM runs WHERE status IN ('pending', 'running')" },
  /** Runs waiting for a worker. */
  pending: { trigger: 'runs-pending', query: "SELECT count(*) FROM runs WHERE status = 'pending'" },
} as const;

export type RunQueueReading = keyof typeof runQueueReadings;

/** The readings in the order of the ScaledObject's triggers. */
export const runQueueTriggerOrder: readonly RunQueueReading[] = ['backlog', 'pending'];

/** The external metric KEDA serves for a reading: `s<trigger index>-postgresql`. */
export function runQueueMetricName(reading: RunQueueReading): string {
  return `s${runQueueTriggerOrder.indexOf(reading)}-postgresql`;
}

/** The label selector KEDA's metrics server finds a ScaledObject's metrics by. */
export function scaledObjectMetricSelector(scaledObject: string): string {
  return `scaledobject.keda.sh/name=${scaledObject}`;
}

/** The series KEDA's operator keeps of each reading it takes (its Prometheus metrics, which a cluster's
 * Prometheus scrapes as the node's store does): the history of a run queue. */
function readingSeries(queue: { namespace: string; scaledObject: string }, reading: RunQueueReading): string {
  return `keda_scaler_metrics_value{namespace="${queue.namespace}",scaledObject="${queue.scaledObject}",metric="${runQueueMetricName(reading)}"}`;
}

export interface RunQueueQueries {
  pendingRuns: string;
  activeRuns: string;
}

/** A queue worker's runs over time, as KEDA read them: those waiting, and those running (the backlog,
 * waiting or running, less those waiting). */
export function runQueueQueries(queue: { namespace: string; scaledObject: string }): RunQueueQueries {
  const pending = `max(${readingSeries(queue, 'pending')})`;
  return { pendingRuns: pending, activeRuns: `max(${readingSeries(queue, 'backlog')}) - ${pending}` };
}
