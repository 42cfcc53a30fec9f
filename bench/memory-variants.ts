// Memory experiments without refilling: the floor client writes N Deployments once, then Berth starts
// over them again and again, each start with a variant of its environment and Node flags, in rounds
// (variants alternated, so a change of load falls on each). Each start prints its peak, its RSS when
// its queues emptied and 20 s later. Starts after the first are restarts over converged objects.
//
//   node bench/memory-variants.ts --size 10000 --rounds 3 \
//     --variants '{"base":{},"arenas":{"env":{"MALLOC_ARENA_MAX":"2"}},"semi":{"flags":"--max-semi-space-size=4"}}'
//
// With --queue DIR it then stays up: each JSON file dropped in DIR ({"rounds", "variants", "rebuild"})
// runs once, so experiments that need a change of code (rebuild: true builds dist/ again, for every
// variant alike: gate the change on an environment variable) reuse the same objects. A file named
// `stop` in DIR ends it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sleep } from '../src/runtime/index.ts';
import { startBenchCluster } from './cluster.ts';
import type { BenchContext } from './context.ts';
import { fillWithFloor } from './floor-process.ts';
import { parseBenchOptions, type BenchOptions } from './options.ts';
import { measureStart } from './scenarios/memory.ts';

type Variants = Record<string, { env?: Record<string, string>; flags?: string }>;
interface Job {
  rounds: number;
  rebuild?: boolean;
  variants: Variants;
}

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '2' },
    variants: { type: 'string', default: '{"base":{}}' },
    queue: { type: 'string' },
    logs: { type: 'string', default: 'bench/results' },
  },
});
const size = Number(values.size);
const log = (message: string) => process.stderr.write(`[memory-variants ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const mib = (bytes: number) => (bytes / 1024 ** 2).toFixed(1);
const build = () => execFileSync('bash', [resolve(import.meta.dirname, '../scripts/build.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });

build();
const cluster = await startBenchCluster((message) => log(`[control plane] ${message}`));
const operatorNamespace = await cluster.namespace('berth-system');
const namespace = await cluster.namespace(`memory-${size}`);
log(`writing ${size} Deployments with their Revisions and children`);
const options = parseBenchOptions(['--out', values.logs]) as BenchOptions;
const context: BenchContext = { cluster, options, operatorNamespace, log };
await fillWithFloor(cluster.kubeconfigPath, namespace, size, options.clientConcurrency);

async function measure(name: string, variant: Variants[string]): Promise<void> {
  const nodeFlags = (variant.flags ?? '').split(' ').filter(Boolean);
  const start = await measureStart(context, namespace, size, `memory-variant-${name}`, {
    ...(variant.env ? { env: variant.env } : {}),
    nodeFlags,
  });
  const at = start.atPeak;
  const where = at
    ? ` (highest sample at ${(at.msSinceStart / 1000).toFixed(1)} s: heap ${mib(at.heapUsedBytes)} of ${mib(at.heapTotalBytes)}, external ${mib(at.externalBytes)}, ${at.reconciles} reconciles; VmHWM last rose at ${((start.msToPeak ?? 0) / 1000).toFixed(1)} s)`
    : '';
  process.stdout.write(
    `${name}: peak ${mib(start.peakRssBytes)}, when idle ${mib(start.rssBytes)}, settled ${mib(start.settledRssBytes)} MiB${where}\n`,
  );
}

async function run(job: Job): Promise<void> {
  if (job.rebuild) build();
  for (let round = 0; round < job.rounds; round++) for (const [name, variant] of Object.entries(job.variants)) await measure(name, variant);
}

try {
  await measure('first', {});
  await run({ rounds: Number(values.rounds), variants: JSON.parse(values.variants) as Variants });
  const queue = values.queue;
  while (queue && !existsSync(join(queue, 'stop'))) {
    const next = readdirSync(queue).sort()[0];
    if (!next) {
      await sleep(2000);
      continue;
    }
    const job = JSON.parse(readFileSync(join(queue, next), 'utf8')) as Job;
    rmSync(join(queue, next));
    process.stdout.write(`# ${next}\n`);
    await run(job);
  }
} finally {
  await cluster.stop();
}
