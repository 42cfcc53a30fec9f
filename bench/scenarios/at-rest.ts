// 3. Writes at rest: the controller restarts over converged Deployments, re-reconciles every one from
// its caches and should find nothing to write. Counted by the new process itself
// (berth_kube_api_requests_total), from its start until its work queues are empty.
import type { BerthProcess } from '../berth-process.ts';
import { startBerth, type BenchContext } from '../context.ts';
import { apiWrites, sumOf, total } from '../../workbench/support/berth-metrics.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { loadAverage } from '../stats.ts';
import type { ConvergedNamespace } from './convergence.ts';

export interface AtRestResult {
  size: number;
  writes: number;
  writeMix: Record<string, number>;
  reconciles: number;
  msUntilIdle: number;
  load: number;
}

/** Waits until every Deployment and TracingProject was reconciled at least once and no queue holds a key. */
export async function waitUntilIdle(berth: BerthProcess, size: number, timeoutMs: number): Promise<number> {
  let reconciles = 0;
  await eventually(
    async () => {
      const samples = await berth.metrics();
      const deployment = sumOf(samples, 'berth_reconcile_total', { controller: 'deployment' });
      const project = sumOf(samples, 'berth_reconcile_total', { controller: 'tracing-project' });
      const depth = sumOf(samples, 'berth_workqueue_depth');
      reconciles = deployment + project;
      return deployment >= size && project >= size && depth === 0;
    },
    timeoutMs,
    `${size} Deployments re-reconciled and empty queues`,
    200,
  );
  return reconciles;
}

export async function atRest(context: BenchContext, converged: ConvergedNamespace): Promise<{ result: AtRestResult; berth: BerthProcess }> {
  // At rest means the first process has written all it had to: its queues empty, not just every
  // Deployment's status naming its revision (what convergence waits for).
  await waitUntilIdle(converged.berth, converged.size, 120_000 + converged.size * 200);
  await converged.berth.stop();
  const started = performance.now();
  const berth = await startBerth(context, [converged.namespace], ['controller'], `at-rest-${converged.size}`);
  const reconciles = await waitUntilIdle(berth, converged.size, 120_000 + converged.size * 200);
  const msUntilIdle = performance.now() - started;
  const writes = apiWrites(await berth.metrics());
  return {
    result: {
      size: converged.size,
      writes: total(writes.values()),
      writeMix: Object.fromEntries(writes),
      reconciles,
      msUntilIdle,
      load: loadAverage(),
    },
    berth,
  };
}
