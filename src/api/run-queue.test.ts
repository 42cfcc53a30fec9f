import { describe, expect, it } from 'vitest';
import { runQueueMetricName, runQueueQueries, runQueueTriggerOrder } from './run-queue.ts';

describe('run queue readings', () => {
  it("name KEDA's external metrics by their trigger's place", () => {
    expect(runQueueTriggerOrder.map(runQueueMetricName)).toEqual(['s0-postgresql', 's1-postgresql']);
  });

  it("read the queue over time from the operator's series of its ScaledObject: pending, and the backlog less it", () => {
    const queries = runQueueQueries({ namespace: 'team', scaledObject: 'shop-queue' });
    const series = (metric: string) => `keda_scaler_metrics_value{namespace="team",scaledObject="shop-queue",metric="${metric}"}`;
    expect(queries.pendingRuns).toBe(`max(${series('s1-postgresql')})`);
    expect(queries.activeRuns).toBe(`max(${series('s0-postgresql')}) - max(${series('s1-postgresql')})`);
  });
});
