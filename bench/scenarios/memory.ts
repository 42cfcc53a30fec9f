// 5. Memory: the controller's resident set once it caches N Deployments, N Revisions and their child
// objects. The floor client writes them first (Berth is not running), then Berth starts, syncs its
// caches and reconciles every Deployment. RSS is read from /proc when its queues are empty, again
// once it has settled (the target's figure: what a controller holding N objects keeps), and the peak
// (VmHWM) over the whole start.
import { sleep } from '../../src/runtime/index.ts';
import { startBerth, type BenchContext } from '../context.ts';
import { spawnFloor } from '../floor-process.ts';
import { loadAverage } from '../stats.ts';
import { waitUntilIdle } from './at-rest.ts';

export interface MemoryResult {
  deployments: number;
  revisions: number;
  rssBytes: number;
  /** RSS after `settleMs` more of rest: the garbage of the first reconciles collected. */
  settledRssBytes: number;
  settleMs: number;
  peakRssBytes: number;
  /** The same process over an empty namespace: what Node, the libraries and the idle runtime take. */
  emptyRssBytes: number;
  msToFill: number;
  msUntilIdle: number;
  load: number;
}

const settleMs = 20_000;

async function emptyRss(context: BenchContext): Promise<number> {
  const berth = await startBerth(context, [await context.cluster.namespace('memory-empty')], ['controller'], 'memory-empty');
  try {
    await waitUntilIdle(berth, 0, 60_000);
    await sleep(settleMs);
    return berth.memory().rss;
  } finally {
    await berth.stop();
  }
}

export async function memory(context: BenchContext): Promise<MemoryResult> {
  const size = context.options.memorySize;
  const emptyRssBytes = await emptyRss(context);
  const namespace = await context.cluster.namespace(`memory-${size}`);
  context.log(`memory: writing ${size} Deployments with their Revisions and children`);
  const filling = performance.now();
  const floor = spawnFloor(context.cluster.kubeconfigPath, namespace, size, context.options.clientConcurrency);
  await floor.ready;
  await floor.go();
  const msToFill = performance.now() - filling;
  context.log(`memory: written in ${Math.round(msToFill)} ms; starting Berth over them`);
  const started = performance.now();
  const berth = await startBerth(context, [namespace], ['controller'], `memory-${size}`);
  try {
    await waitUntilIdle(berth, size, 300_000 + size * 200);
    const msUntilIdle = performance.now() - started;
    const { rss } = berth.memory();
    await sleep(settleMs);
    const { rss: settledRss, peakRss } = berth.memory();
    return { deployments: size, revisions: size, rssBytes: rss, settledRssBytes: settledRss, settleMs, peakRssBytes: peakRss, emptyRssBytes, msToFill, msUntilIdle, load: loadAverage() };
  } finally {
    await berth.stop();
  }
}
