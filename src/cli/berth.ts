// The berth command: parses the command line and runs Berth against the configured cluster (in-cluster
// service account or KUBECONFIG), nothing else. Loaded by src/main.ts once the process is set up.
import { findConfiguredCluster } from './cluster-config.ts';
import { optionsOrExit, stopOnSignals } from './process-lifecycle.ts';
import { startBerth } from './run.ts';
import { createLogger } from '../runtime/index.ts';

const options = optionsOrExit(process.argv.slice(2));

const logger = createLogger();
const stopping = stopOnSignals(logger);
try {
  const kubeConfig = findConfiguredCluster()?.kubeConfig;
  if (!kubeConfig)
    throw new Error('no cluster configured: set KUBECONFIG or run in a cluster (`npm start` in a checkout runs a local one)');
  const berth = await startBerth(kubeConfig, options, logger, {});
  stopping.add(() => berth.stop());
} catch (error) {
  logger.error({ err: error }, 'failed to start');
  await stopping.stop('startup failure', 1);
}
