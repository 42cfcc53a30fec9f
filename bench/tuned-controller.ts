// An experiment, not a product: the Deployment controllers alone, with the number of keys reconciled in
// parallel taken from BENCH_RECONCILE_CONCURRENCY (the shipped default is 4 and no flag sets it). Used
// by `--reconcile-concurrency` to measure what that default costs in the convergence scenario.
//   KUBECONFIG=... BENCH_RECONCILE_CONCURRENCY=16 node bench/tuned-controller.ts <namespace>[,<namespace>]
import { KubeConfig } from '@kubernetes/client-node';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, Manager } from '../src/runtime/index.ts';

const kubeConfig = new KubeConfig();
kubeConfig.loadFromDefault();
const namespaces = (process.argv[2] ?? '').split(',').filter(Boolean);
const manager = new Manager({
  kubeConfig,
  logger: createLogger(),
  healthPort: Number(process.env.BENCH_PROBE_PORT ?? 0),
  healthHost: '127.0.0.1',
});
registerDeploymentControllers(manager, { namespaces, concurrency: Number(process.env.BENCH_RECONCILE_CONCURRENCY ?? 4) });
await manager.start();
process.once('SIGTERM', () => void manager.stop().then(() => process.exit(0)));
