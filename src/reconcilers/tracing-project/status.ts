// The status of a TracingProject. Pure: the stored status is returned as it is when nothing but
// timestamps would change, so re-reconciling writes nothing.
//
// The message names no Deployment (spec.deploymentName does): one message for every project lets the
// cache keep one copy of equal conditions instead of three per project (BENCHMARKS.md, 2026-11-26).
export const tracingProjectReadyMessage = "The tracing project receives its Deployment's traces.";
import { markReady, statusesEqual, type TracingProjectStatus } from '../../api/index.ts';

export function nextTracingProjectStatus(previous: TracingProjectStatus | undefined, generation: number, now: Date): TracingProjectStatus {
  const next: TracingProjectStatus = {
    observedGeneration: generation,
    conditions: markReady(
      previous?.conditions,
      { reason: 'Created', message: tracingProjectReadyMessage, observedGeneration: generation },
      now,
    ),
  };
  return previous && statusesEqual(previous, next) ? previous : next;
}
