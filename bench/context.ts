// What every scenario gets: the cluster, the options, a log line writer and a place for Berth's logs.
import { join } from 'node:path';
import type { BenchCluster } from './cluster.ts';
import type { BenchOptions } from './options.ts';
import { startBerthProcess, type BerthProcess, type BerthProcessOptions } from './berth-process.ts';

export interface BenchContext {
  cluster: BenchCluster;
  options: BenchOptions;
  /** Berth's own namespace (API keys); every scenario's Berth process names it. */
  operatorNamespace: string;
  log(message: string): void;
}

let processes = 0;

/** Starts Berth watching `namespaces`, its log in the results directory. */
export function startBerth(
  context: BenchContext,
  namespaces: string[],
  components: Array<'controller' | 'facade'> = ['controller'],
  label = 'berth',
  settings: Pick<BerthProcessOptions, 'memoryLimitBytes' | 'env' | 'nodeFlags'> = {},
): Promise<BerthProcess> {
  processes++;
  return startBerthProcess({
    kubeconfigPath: context.cluster.kubeconfigPath,
    operatorNamespace: context.operatorNamespace,
    watchNamespaces: namespaces,
    components,
    logFile: join(context.options.outDir, `${label}-${processes}.log`),
    ...(context.options.cpuProfile ? { cpuProfileDir: context.options.outDir } : {}),
    ...(context.options.reconcileConcurrency && !components.includes('facade')
      ? { reconcileConcurrency: context.options.reconcileConcurrency }
      : {}),
    ...settings,
  });
}
