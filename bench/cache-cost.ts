// `node --expose-gc bench/cache-cost.ts [--size N] [--show] [--snapshot FILE]`: what each of the Deployment controller's caches
// keeps per object, the heap after a full collection before and after it syncs. The floor client
// writes N Deployments with their Revisions and children (as the memory scenario does), then each
// cache is started on its own, in the order the controller makes them, and kept: the figure of a
// cache is what it adds to the ones before it (strings pooled earlier are not counted twice). `--show`
// prints one cached object of each kind; `--snapshot` writes a heap snapshot once all are synced.
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { deploymentInformers } from '../src/reconcilers/deployment/informers.ts';
import { createInformer, type Informer, type InformerOptions, type ResourceKind } from '../src/runtime/index.ts';
import { startBenchCluster } from './cluster.ts';
import { fillWithFloor } from './floor-process.ts';

const { values } = parseArgs({
  options: { size: { type: 'string', default: '3000' }, show: { type: 'boolean', default: false }, snapshot: { type: 'string' } },
});
const size = Number(values.size);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function heapUsed(): number {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage().heapUsed;
}

const log = (message: string) => console.error(`[cache-cost] ${message}`);
const cluster = await startBenchCluster(log);
try {
  const namespace = await cluster.namespace('cache-cost');
  log(`writing ${size} Deployments with their Revisions and children`);
  await fillWithFloor(cluster.kubeconfigPath, namespace, size, 32);

  const made: { resource: ResourceKind; options: InformerOptions; name: string }[] = [];
  const recorder = {
    informer: (resource: ResourceKind, options: InformerOptions = {}) => {
      made.push({ resource, options, name: resource.kind });
      return { resource } as unknown as Informer;
    },
  };
  deploymentInformers(recorder as never, [namespace]);

  const rows: string[] = ['| cache | objects | heap added (MiB) | bytes per object |', '|---|---|---|---|'];
  const kept: Informer[] = [];
  let before = heapUsed();
  const baseline = before;
  for (const { resource, options } of made) {
    const informer = createInformer(cluster.kubeConfig, resource, options);
    informer.start();
    await informer.waitForSync();
    kept.push(informer);
    const after = heapUsed();
    const count = informer.list().length;
    if (values.show && count) console.error(JSON.stringify(informer.list()[0]));
    rows.push(
      `| ${resource.apiVersion} ${resource.kind} | ${count} | ${((after - before) / 2 ** 20).toFixed(1)} | ${count ? Math.round((after - before) / count) : '-'} |`,
    );
    before = after;
  }
  rows.push(`| all | ${kept.reduce((n, i) => n + i.list().length, 0)} | ${((before - baseline) / 2 ** 20).toFixed(1)} | |`);
  process.stdout.write(`${rows.join('\n')}\n`);
  if (values.snapshot) log(`heap snapshot: ${writeHeapSnapshot(values.snapshot)}`);
  await Promise.all(kept.map((informer) => informer.stop()));
} finally {
  await cluster.stop();
}
