// 5. Memory: Berth's resident set, run as the chart's pod runs it (its components, under its memory
// limit), once it caches N Deployments, N Revisions and their child objects. The floor client writes
// them first (Berth is not running), then Berth starts, syncs its caches and reconciles every
// Deployment. RSS is read from /proc when its queues are empty, again once it has settled (what a
// controller holding N objects keeps), and the peak (VmHWM) over the whole start. Then Berth starts
// again over the same objects, now converged, as after an upgrade or a failover: its lists are larger
// (every object has its status) and its passes write nothing.
import { appendFileSync } from 'node:fs';
import { sleep } from '../../src/runtime/index.ts';
import type { BerthProcess } from '../berth-process.ts';
import { startBerth, type BenchContext } from '../context.ts';
import { chartComponents, chartMemoryLimit } from '../memory-cgroup.ts';
import { apiRequests, sumOf, type Sample } from '../../workbench/support/berth-metrics.ts';
import { fillWithFloor } from '../floor-process.ts';
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
  /** What the process held at the highest RSS sampled (every 500 ms): which part of memory makes the peak. */
  atPeak?: MemorySample;
  /** When VmHWM last rose (sampled every 500 ms): the time the peak was reached, give or take a sample. */
  msToPeak?: number;
  /** The chart's memory limit, when the process ran under it (a memory cgroup); else undefined. */
  memoryLimitBytes?: number;
  /** A second start over the same objects, converged by the first. */
  restart?: StartMemory;
}

/** One start of Berth over the objects: RSS when its queues emptied, settled, and at its peak. */
export interface StartMemory {
  rssBytes: number;
  settledRssBytes: number;
  peakRssBytes: number;
  msUntilIdle: number;
  atPeak?: MemorySample;
  msToPeak?: number;
}

/** One reading of the process's own metrics (prom-client's defaults and Berth's reconcile count). */
export interface MemorySample {
  msSinceStart: number;
  rssBytes: number;
  heapTotalBytes: number;
  heapUsedBytes: number;
  externalBytes: number;
  reconciles: number;
}

// BENCH_MEMORY_TRACE=<file>: every sample as a JSON line, with the API requests made so far (by verb
// and resource) and the work queues' depths, to see what the process was doing when its memory rose.
const trace = process.env.BENCH_MEMORY_TRACE;

function queueDepths(samples: readonly Sample[]): Record<string, number> {
  return Object.fromEntries(samples.filter((s) => s.name === 'berth_workqueue_depth').map((s) => [s.labels.name ?? '', s.value]));
}

/** Samples `berth` until the answered function is called; answers the sample of the highest RSS and when VmHWM last rose. */
function sampleMemory(berth: BerthProcess, started: number): () => Promise<{ highest?: MemorySample; msToPeak?: number }> {
  let highest: MemorySample | undefined;
  let peakRss = 0;
  let msToPeak: number | undefined;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { peakRss: hwm } = berth.memory();
      if (hwm > peakRss) [peakRss, msToPeak] = [hwm, performance.now() - started];
      const samples = await berth.metrics().catch(() => undefined);
      if (samples) {
        const sample: MemorySample = {
          msSinceStart: performance.now() - started,
          rssBytes: sumOf(samples, 'process_resident_memory_bytes'),
          heapTotalBytes: sumOf(samples, 'nodejs_heap_size_total_bytes'),
          heapUsedBytes: sumOf(samples, 'nodejs_heap_size_used_bytes'),
          externalBytes: sumOf(samples, 'nodejs_external_memory_bytes'),
          reconciles: sumOf(samples, 'berth_reconcile_total'),
        };
        if (!highest || sample.rssBytes > highest.rssBytes) highest = sample;
        if (trace)
          appendFileSync(
            trace,
            `${JSON.stringify({ ...sample, requests: Object.fromEntries(apiRequests(samples)), queues: queueDepths(samples) })}\n`,
          );
      }
      await sleep(500);
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { ...(highest ? { highest } : {}), ...(msToPeak !== undefined ? { msToPeak } : {}) };
  };
}

const settleMs = 20_000;

async function emptyRss(context: BenchContext): Promise<number> {
  const berth = await startBerth(context, [await context.cluster.namespace('memory-empty')], chartComponents(), 'memory-empty', {
    memoryLimitBytes: chartMemoryLimit(),
  });
  try {
    await waitUntilIdle(berth, 0, 60_000);
    await sleep(settleMs);
    return berth.memory().rss;
  } finally {
    await berth.stop();
  }
}

/** Starts Berth over `namespace` (with `variant`'s environment and Node flags), waits until its queues are empty, then `settleMs` more. */
export async function measureStart(
  context: BenchContext,
  namespace: string,
  size: number,
  label: string,
  variant: { env?: Record<string, string>; nodeFlags?: string[] } = {},
): Promise<StartMemory & { memoryLimitBytes?: number }> {
  const started = performance.now();
  // As the chart's pod runs: its components (the facade's caches and indexes too), under its memory
  // limit, from which Node sizes its heap.
  const berth = await startBerth(context, [namespace], chartComponents(), label, { ...variant, memoryLimitBytes: chartMemoryLimit() });
  const highest = sampleMemory(berth, started);
  try {
    await waitUntilIdle(berth, size, 300_000 + size * 200);
    const msUntilIdle = performance.now() - started;
    const { rss } = berth.memory();
    await sleep(settleMs);
    const { rss: settledRss, peakRss } = berth.memory();
    const { highest: atPeak, msToPeak } = await highest();
    return {
      rssBytes: rss,
      settledRssBytes: settledRss,
      peakRssBytes: peakRss,
      msUntilIdle,
      ...(atPeak ? { atPeak } : {}),
      ...(msToPeak !== undefined ? { msToPeak } : {}),
      ...(berth.memoryLimitBytes ? { memoryLimitBytes: berth.memoryLimitBytes } : {}),
    };
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
  await fillWithFloor(context.cluster.kubeconfigPath, namespace, size, context.options.clientConcurrency);
  const msToFill = performance.now() - filling;
  context.log(`memory: written in ${Math.round(msToFill)} ms; starting Berth over them`);
  const first = await measureStart(context, namespace, size, `memory-${size}`);
  context.log(`memory: first start peak ${Math.round(first.peakRssBytes / 2 ** 20)} MiB; starting Berth again over the converged objects`);
  const { memoryLimitBytes: _limit, ...restart } = await measureStart(context, namespace, size, `memory-${size}-restart`);
  return { deployments: size, revisions: size, ...first, settleMs, emptyRssBytes, msToFill, load: loadAverage(), restart };
}
