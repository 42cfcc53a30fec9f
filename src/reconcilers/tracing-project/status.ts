// The status of a TracingProject. Pure: the stored status is returned as it is when nothing but
// timestamps would change, so re-reconciling writes nothing.
import { conditionsEqual, markReady, type TracingProjectStatus } from '../../api/index.ts';

export function nextTracingProjectStatus(previous: TracingProjectStatus | undefined, generation: number, deploymentName: string, now: Date): TracingProjectStatus {
  const next: TracingProjectStatus = {
    observedGeneration: generation,
    conditions: markReady(previous?.conditions, { reason: 'Created', message: `Tracing project for Deployment ${deploymentName}.`, observedGeneration: generation }, now),
  };
  const same = previous?.observedGeneration === next.observedGeneration && conditionsEqual(previous?.conditions, next.conditions);
  return same && previous ? previous : next;
}
