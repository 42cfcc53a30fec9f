// 1 and 6. Convergence: N Deployments created at once, timed until every one has its Revision, its
// application Deployment and observedGeneration == generation. The floor client makes the same writes
// into a namespace of its own first; Berth's time is reported against it, at each size.
import { kubeRequest } from '../../src/runtime/index.ts';
import type { BerthProcess } from '../berth-process.ts';
import { startBerth, type BenchContext } from '../context.ts';
import { watchConvergence } from '../convergence-watch.ts';
import { benchDeployment, deploymentNames } from '../fixtures.ts';
import { spawnFloor } from '../floor-process.ts';
import { apiWrites, difference, total } from '../../workbench/support/berth-metrics.ts';
import { inPool } from '../pool.ts';
import { loadAverage, ratio } from '../stats.ts';

export interface ConvergenceResult {
  size: number;
  floorMs: number;
  berthMs: number;
  ratio: number;
  floorWritesPerDeployment: number;
  berthWritesPerDeployment: number;
  /** Berth's writes by verb and resource, per Deployment. */
  berthWriteMix: Record<string, number>;
  berthRssBytes: number;
  loadBefore: number;
  loadAfter: number;
}

/** Berth's converged namespace of one size, still served by the process that converged it. */
export interface ConvergedNamespace {
  namespace: string;
  size: number;
  berth: BerthProcess;
}

const timeoutFor = (size: number) => 120_000 + size * 500;

export async function measureFloor(context: BenchContext, size: number): Promise<{ ms: number; writes: number }> {
  const { cluster } = context;
  const namespace = await cluster.namespace(`floor-${size}`);
  const watch = await watchConvergence(cluster.kubeConfig, namespace);
  try {
    const floor = spawnFloor(cluster.kubeconfigPath, namespace, size, context.options.clientConcurrency);
    await floor.ready;
    const started = performance.now();
    const writes = await floor.go();
    await watch.waitForConverged(size, timeoutFor(size));
    return { ms: performance.now() - started, writes };
  } finally {
    await watch.stop();
  }
}

export async function createDeployments(context: BenchContext, namespace: string, names: readonly string[]): Promise<void> {
  await inPool(names, context.options.clientConcurrency, (name) =>
    kubeRequest(context.cluster.kubeConfig, {
      method: 'POST',
      path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments`,
      body: benchDeployment(namespace, name),
    }),
  );
}

export async function measureBerth(
  context: BenchContext,
  size: number,
): Promise<{ ms: number; writes: Map<string, number>; rss: number; converged: ConvergedNamespace }> {
  const { cluster } = context;
  const namespace = await cluster.namespace(`berth-${size}`);
  const berth = await startBerth(context, [namespace], ['controller'], `convergence-${size}`);
  const watch = await watchConvergence(cluster.kubeConfig, namespace);
  try {
    const before = apiWrites(await berth.metrics());
    const started = performance.now();
    await createDeployments(context, namespace, deploymentNames(size));
    await watch.waitForConverged(size, timeoutFor(size));
    const ms = performance.now() - started;
    const writes = difference(apiWrites(await berth.metrics()), before);
    return { ms, writes, rss: berth.memory().rss, converged: { namespace, size, berth } };
  } catch (error) {
    await berth.stop();
    throw error;
  } finally {
    await watch.stop();
  }
}

export async function convergence(context: BenchContext): Promise<{ results: ConvergenceResult[]; largest?: ConvergedNamespace }> {
  const results: ConvergenceResult[] = [];
  let largest: ConvergedNamespace | undefined;
  for (const size of context.options.sizes) {
    const loadBefore = loadAverage();
    context.log(`convergence N=${size}: floor client`);
    const floor = await measureFloor(context, size);
    context.log(`convergence N=${size}: floor ${Math.round(floor.ms)} ms; Berth`);
    const berth = await measureBerth(context, size);
    const perDeployment = Object.fromEntries([...berth.writes].map(([key, value]) => [key, value / size]));
    results.push({
      size,
      floorMs: floor.ms,
      berthMs: berth.ms,
      ratio: ratio(berth.ms, floor.ms),
      floorWritesPerDeployment: floor.writes / size,
      berthWritesPerDeployment: total(berth.writes.values()) / size,
      berthWriteMix: perDeployment,
      berthRssBytes: berth.rss,
      loadBefore,
      loadAfter: loadAverage(),
    });
    context.log(`convergence N=${size}: Berth ${Math.round(berth.ms)} ms, ratio ${(berth.ms / floor.ms).toFixed(2)}`);
    if (largest) await largest.berth.stop();
    largest = berth.converged;
  }
  return { results, ...(largest ? { largest } : {}) };
}
