// `npm run bench`: starts a control plane like the tests', runs the scenarios one after the other
// against it, prints each ratio as it comes, and writes the tables (Markdown) and raw figures (JSON)
// to the results directory. Each figure is a ratio to a baseline measured in the same run.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { startBenchCluster } from './cluster.ts';
import type { BenchContext } from './context.ts';
import { parseBenchOptions, usage, type BenchOptions } from './options.ts';
import { renderReport, type BenchResults } from './report.ts';
import { atRest } from './scenarios/at-rest.ts';
import { convergence, createDeployments, measureFloor, type ConvergedNamespace } from './scenarios/convergence.ts';
import { latency } from './scenarios/latency.ts';
import { memory } from './scenarios/memory.ts';
import { reads } from './scenarios/reads.ts';
import { deploymentNames } from './fixtures.ts';
import { startBerth } from './context.ts';
import { watchConvergence } from './convergence-watch.ts';
import { fixed, loadAverage } from './stats.ts';

let options: BenchOptions;
try {
  const parsed = parseBenchOptions(process.argv.slice(2));
  if (parsed === 'help') {
    process.stdout.write(usage);
    process.exit(0);
  }
  options = parsed;
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n\n${usage}`);
  process.exit(2);
}

const outDir = resolve(options.outDir);
mkdirSync(outDir, { recursive: true });
const began = performance.now();
const log = (message: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)} load ${fixed(loadAverage(), 1)}] ${message}\n`);
const wants = (scenario: BenchOptions['scenarios'][number]) => options.scenarios.includes(scenario);

const results: BenchResults = {
  startedAt: new Date().toISOString(),
  machine: { cpus: cpus().length, memoryGiB: totalmem() / 1024 ** 3, node: process.version },
  options: {
    quick: options.quick,
    sizes: options.sizes,
    patches: options.patches,
    connections: options.connections,
    readSeconds: options.readSeconds,
    memorySize: options.memorySize,
    clientConcurrency: options.clientConcurrency,
    scenarios: options.scenarios,
    ...(options.reconcileConcurrency ? { reconcileConcurrency: options.reconcileConcurrency } : {}),
  },
  errors: [],
};

function save(): void {
  results.durationMs = performance.now() - began;
  writeFileSync(join(outDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(outDir, 'latest.md'), renderReport(results));
}

async function attempt(scenario: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    log(`${scenario} failed: ${(error as Error).stack ?? String(error)}`);
    results.errors.push({ scenario, message: (error as Error).message });
  }
  save();
}

// Ctrl-C: exit handlers stop Berth's processes; the control plane stops when its pipe closes.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

log('starting the control plane');
// Berth runs as the image runs it: the JavaScript compiled from the current sources.
log('building dist/ (npm run build)');
execFileSync('bash', [resolve(import.meta.dirname, '../scripts/build.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
const cluster = await startBenchCluster((message) => log(`[control plane] ${message}`));
const context: BenchContext = { cluster, options, operatorNamespace: await cluster.namespace('berth-system'), log };

/** Without the convergence scenario, later ones still need converged Deployments of the largest size. */
async function convergeWithoutMeasuring(size: number): Promise<ConvergedNamespace> {
  const namespace = await cluster.namespace(`berth-${size}`);
  const berth = await startBerth(context, [namespace], ['controller'], `setup-${size}`);
  const watch = await watchConvergence(cluster.kubeConfig, namespace);
  try {
    await createDeployments(context, namespace, deploymentNames(size));
    await watch.waitForConverged(size, 120_000 + size * 500);
  } finally {
    await watch.stop();
  }
  return { namespace, size, berth };
}

try {
  // The first minute after kube-apiserver starts is slower (post-start hooks, caches filling): the
  // first size measured would pay for it alone.
  log('warm-up: 50 Deployments through the floor client, not measured');
  await measureFloor(context, 50);
  let converged: ConvergedNamespace | undefined;
  if (wants('convergence')) {
    await attempt('convergence', async () => {
      const outcome = await convergence(context);
      results.convergence = outcome.results;
      converged = outcome.largest;
      for (const r of outcome.results) process.stdout.write(`convergence N=${r.size}: Berth/floor = ${fixed(r.ratio)} (target <= 1.3)\n`);
    });
  }
  const needsConverged = wants('at-rest') || wants('latency') || wants('reads');
  if (needsConverged && !converged) {
    await attempt('setup', async () => {
      converged = await convergeWithoutMeasuring(options.sizes[options.sizes.length - 1]!);
    });
  }
  if (converged && wants('at-rest')) {
    const current: ConvergedNamespace = converged;
    await attempt('at-rest', async () => {
      const outcome = await atRest(context, current);
      results.atRest = outcome.result;
      converged = { ...current, berth: outcome.berth };
      process.stdout.write(`writes at rest N=${outcome.result.size}: ${outcome.result.writes} (target 0)\n`);
    });
  }
  if (converged && wants('latency')) {
    const current: ConvergedNamespace = converged;
    await attempt('latency', async () => {
      results.latency = await latency(context, current.namespace, current.size);
      process.stdout.write(
        `spec-change latency: p50 ratio ${fixed(results.latency.p50Ratio)}, p99 ratio ${fixed(results.latency.p99Ratio)} (target p99 <= 2)\n`,
      );
    });
  }
  await converged?.berth.stop();
  if (converged && wants('reads')) {
    const current: ConvergedNamespace = converged;
    await attempt('reads', async () => {
      results.reads = await reads(context, current.namespace, deploymentNames(current.size)[0]!);
      for (const r of results.reads)
        process.stdout.write(`facade reads (${r.object}): Berth/API server = ${fixed(r.ratio)} (target >= 3)\n`);
    });
  }
  if (wants('memory')) {
    await attempt('memory', async () => {
      results.memory = await memory(context);
      const { settledRssBytes, peakRssBytes, restart } = results.memory;
      const again = restart
        ? `; started again over them: ${fixed(restart.settledRssBytes / 1024 ** 2, 0)} MiB settled, peak ${fixed(restart.peakRssBytes / 1024 ** 2, 0)} MiB`
        : '';
      process.stdout.write(
        `memory with ${results.memory.deployments} Deployments + Revisions: RSS ${fixed(settledRssBytes / 1024 ** 2, 0)} MiB settled, peak ${fixed(peakRssBytes / 1024 ** 2, 0)} MiB (target: peak <= 200)${again}\n`,
      );
    });
  }
} finally {
  save();
  await cluster.stop();
}
process.stdout.write(`\n${renderReport(results)}`);
log(`done; tables in ${join(outDir, 'latest.md')}`);
process.exit(results.errors.length > 0 ? 1 : 0);
