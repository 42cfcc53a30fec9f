// `node bench/pass-allocations.ts [--size N]`: what a Deployment pass that changes nothing allocates, by
// function. Such passes are all of a restart's work (one per Deployment, as after an upgrade or a
// failover), and their garbage is what lifts its memory peak above the settled figure.
//
// The floor client writes N Deployments with their Revisions and children; the Deployment reconciler
// runs in this process over caches of them: once to converge (it writes each status), once more after
// the caches caught up, once timed, then once under V8's sampling heap profiler, which counts what the
// collections freed as well as what is kept. Prints the time and bytes of a pass, and its bytes by
// function (self), largest first.
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { deploymentInformers } from '../src/reconcilers/deployment/informers.ts';
import { resolveOptions } from '../src/reconcilers/deployment/options.ts';
import { createDeploymentReconciler } from '../src/reconcilers/deployment/reconcile.ts';
import { createDeploymentWriter } from '../src/reconcilers/deployment/writer.ts';
import {
  createInformer,
  createLogger,
  sleep,
  type EventRecorder,
  type Informer,
  type InformerOptions,
  type ResourceKind,
} from '../src/runtime/index.ts';
import { startBenchCluster } from './cluster.ts';
import { fillWithFloor } from './floor-process.ts';

const { values } = parseArgs({ options: { size: { type: 'string', default: '300' }, top: { type: 'string', default: '25' } } });
const size = Number(values.size);
const log = (message: string) => process.stderr.write(`[pass-allocations] ${message}\n`);

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** Self bytes by function (`name url:line`), summed over the profile's tree. */
function bytesByFunction(root: SamplingNode): Map<string, number> {
  const totals = new Map<string, number>();
  const visit = (node: SamplingNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^file:\/\/.*?\/(src|node_modules|bench)\//, '$1/')}:${lineNumber + 1}` : '(native)';
    const key = `${functionName || '(anonymous)'} ${where}`;
    totals.set(key, (totals.get(key) ?? 0) + node.selfSize);
    node.children.forEach(visit);
  };
  visit(root);
  return totals;
}

const cluster = await startBenchCluster(log);
try {
  const namespace = await cluster.namespace('pass-allocations');
  log(`writing ${size} Deployments with their Revisions and children`);
  await fillWithFloor(cluster.kubeconfigPath, namespace, size, 32);

  const started: Informer[] = [];
  const manager = {
    informer: (resource: ResourceKind, options: InformerOptions = {}) => {
      const informer = createInformer(cluster.kubeConfig, resource, options);
      started.push(informer);
      return informer;
    },
  };
  const informers = deploymentInformers(manager as never, [namespace]);
  for (const informer of started) informer.start();
  await Promise.all(started.map((informer) => informer.waitForSync()));
  const reconcile = createDeploymentReconciler({
    informers,
    writer: createDeploymentWriter(cluster.kubeConfig),
    options: resolveOptions({ namespaces: [namespace] }),
  });
  const recorder: EventRecorder = { event: () => undefined, flush: async () => undefined };
  const context = { logger: createLogger({ level: 'warn' }), signal: new AbortController().signal, recorder };
  const keys = informers.deployments.list().map((d) => ({ namespace, name: d.metadata.name ?? '' }));
  const passes = async () => {
    for (const key of keys) await reconcile(key, context);
  };
  log(`converging ${keys.length} Deployments`);
  await passes();
  await sleep(3000);
  await passes();
  await sleep(3000);
  const began = performance.now();
  await passes();
  const msPerPass = (performance.now() - began) / keys.length;

  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await passes();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } };
  session.disconnect();

  const byFunction = [...bytesByFunction(profile.head)].sort((a, b) => b[1] - a[1]);
  const total = byFunction.reduce((sum, [, bytes]) => sum + bytes, 0);
  const perPass = (bytes: number) => `${(bytes / keys.length / 1024).toFixed(1)} KiB`;
  process.stdout.write(
    `a pass that changes nothing takes ${msPerPass.toFixed(2)} ms and allocates ${perPass(total)} (${keys.length} passes)\n`,
  );
  for (const [where, bytes] of byFunction.slice(0, Number(values.top))) process.stdout.write(`${perPass(bytes).padStart(10)}  ${where}\n`);
  await Promise.all(started.map((informer) => informer.stop()));
} finally {
  await cluster.stop();
}
