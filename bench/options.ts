// The benchmark's sizes, from flags or the environment, so that a quick run fits in minutes on a
// small machine and a full run measures the sizes the targets name.
import { parseArgs } from 'node:util';

export type Scenario = 'convergence' | 'at-rest' | 'latency' | 'reads' | 'memory';
export const allScenarios: Scenario[] = ['convergence', 'at-rest', 'latency', 'reads', 'memory'];

export interface BenchOptions {
  quick: boolean;
  /** Convergence and the scaling curve run at each size; at-rest, latency and reads use the largest. */
  sizes: number[];
  /** Spec patches timed one after the other. */
  patches: number;
  /** Concurrent connections of the read benchmark. */
  connections: number;
  /** Seconds each read benchmark runs. */
  readSeconds: number;
  /** Deployments (and as many Revisions) cached when the controller's memory is measured. */
  memorySize: number;
  /** Requests in flight for the floor client and for creating objects. */
  clientConcurrency: number;
  scenarios: Scenario[];
  /** Where results (JSON and Markdown tables) are written. */
  outDir: string;
  /** Run the controller under `node --cpu-prof`, profiles written to outDir. */
  cpuProfile: boolean;
  /** Experiment: controller-only processes run bench/tuned-controller.ts with this many parallel reconciles. */
  reconcileConcurrency?: number;
}

export const usage = `usage: node bench/run.ts [options]   (or: npm run bench -- [options])

  --quick                 N = 100, 300; 100 patches; 5 s reads; memory at 1000     [BENCH_QUICK=1]
  --sizes <list>          convergence sizes (default 100,300,1000,3000)          [BENCH_SIZES]
  --patches <n>           spec patches timed (default 200)                       [BENCH_PATCHES]
  --connections <n>       concurrent read clients (default 50)                   [BENCH_CONNECTIONS]
  --read-seconds <n>      seconds per read benchmark (default 10)                [BENCH_READ_SECONDS]
  --memory-size <n>       Deployments + Revisions cached for RSS (default 10000)  [BENCH_MEMORY_SIZE]
  --client-concurrency <n> requests in flight for the floor client (default 32)  [BENCH_CLIENT_CONCURRENCY]
  --only <list>           ${allScenarios.join(',')}                              [BENCH_ONLY]
  --out <dir>             results directory (default bench/results)              [BENCH_OUT]
  --cpu-prof              profile the controller (node --cpu-prof) into --out
  --reconcile-concurrency <n>  experiment: the Deployment controllers alone, n reconciles in parallel
                          (bench/tuned-controller.ts) instead of \`berth run\` (default 4)
`;

const positiveInt = (flag: string, value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag}: expected a positive integer, got ${JSON.stringify(value)}`);
  return n;
};

export function parseBenchOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      quick: { type: 'boolean' },
      sizes: { type: 'string' },
      patches: { type: 'string' },
      connections: { type: 'string' },
      'read-seconds': { type: 'string' },
      'memory-size': { type: 'string' },
      'client-concurrency': { type: 'string' },
      only: { type: 'string' },
      out: { type: 'string' },
      'cpu-prof': { type: 'boolean' },
      'reconcile-concurrency': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick ?? ['1', 'true'].includes(env.BENCH_QUICK ?? '');
  const sizesText = values.sizes ?? env.BENCH_SIZES ?? (quick ? '100,300' : '100,300,1000,3000');
  const sizes = sizesText.split(',').map((s) => positiveInt('--sizes', s.trim()));
  const onlyText = values.only ?? env.BENCH_ONLY;
  const scenarios = onlyText ? onlyText.split(',').map((s) => s.trim()) : allScenarios;
  for (const s of scenarios)
    if (!allScenarios.includes(s as Scenario))
      throw new Error(`--only: unknown scenario ${JSON.stringify(s)} (known: ${allScenarios.join(', ')})`);
  return {
    quick,
    sizes: [...sizes].sort((a, b) => a - b),
    patches: positiveInt('--patches', values.patches ?? env.BENCH_PATCHES ?? (quick ? '100' : '200')),
    connections: positiveInt('--connections', values.connections ?? env.BENCH_CONNECTIONS ?? '50'),
    readSeconds: positiveInt('--read-seconds', values['read-seconds'] ?? env.BENCH_READ_SECONDS ?? (quick ? '5' : '10')),
    memorySize: positiveInt('--memory-size', values['memory-size'] ?? env.BENCH_MEMORY_SIZE ?? (quick ? '1000' : '10000')),
    clientConcurrency: positiveInt('--client-concurrency', values['client-concurrency'] ?? env.BENCH_CLIENT_CONCURRENCY ?? '32'),
    scenarios: scenarios as Scenario[],
    outDir: values.out ?? env.BENCH_OUT ?? 'bench/results',
    cpuProfile: values['cpu-prof'] ?? false,
    ...(values['reconcile-concurrency']
      ? { reconcileConcurrency: positiveInt('--reconcile-concurrency', values['reconcile-concurrency']) }
      : {}),
  };
}
