// The berth command: parses the command line and wires the parts together, nothing else. Loaded by
// src/main.ts once the process is set up.
import { resolve } from 'node:path';
import { findConfiguredCluster } from './cluster-config.ts';
import { parseCommandLine, usage, type Options } from './options.ts';
import { startBerth } from './run.ts';
import { createLogger } from '../runtime/index.ts';

let options: Options;
try {
  const parsed = parseCommandLine(process.argv.slice(2));
  if (parsed.help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  options = parsed.options;
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n\n${usage}`);
  process.exit(2);
}

const logger = createLogger();
const stopping: Array<() => Promise<void>> = [];
let stopRequested = false;
async function stop(reason: string, exitCode = 0): Promise<void> {
  if (stopRequested) return;
  stopRequested = true;
  logger.info({ reason }, 'stopping');
  for (const step of stopping.reverse()) {
    await step().catch((error: unknown) => logger.error({ err: error }, 'error while stopping'));
  }
  process.exit(exitCode);
}
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));

try {
  // Only `berth dev` loads the local cluster's modules (its PKI, node and control plane): `berth run`,
  // as the image runs it, keeps them out of its memory.
  const devModule = options.command === 'dev' ? await import('./dev.ts') : undefined;
  const devStart = devModule?.startDevCluster({
    dataDir: options.dataDir,
    crdsDir: resolve(import.meta.dirname, '../../crds'),
    operatorNamespace: options.namespace,
    node: options.node,
    logger,
  });
  // A stop during start-up (Ctrl-C while the node comes up) waits for the start, then undoes it.
  if (devStart) stopping.push(async () => (await devStart.catch(() => undefined))?.cluster?.stop());
  const dev = await devStart;
  const kubeConfig = dev?.kubeConfig ?? findConfiguredCluster()?.kubeConfig;
  if (!kubeConfig) throw new Error('no cluster configured: set KUBECONFIG, run in a cluster, or use `berth dev`');
  const berth = await startBerth(kubeConfig, options, logger, dev?.node ?? {});
  stopping.push(() => berth.stop());
  const pushRegistry =
    devModule && dev && berth.facade
      ? await devModule.startDevPushRegistry(dev, options.dataDir, berth.facade.nodeUrl ?? berth.facade.url, options.namespace)
      : undefined;
  if (pushRegistry) stopping.push(() => pushRegistry.stop());

  if (dev?.kubeconfigPath && dev.local) {
    const facade = berth.facade?.url;
    process.stdout.write(
      [
        '',
        dev.node
          ? 'Berth is running against an embedded cluster with a real node.'
          : 'Berth is running against an embedded control plane (no node: Pods will not run).',
        `  kubeconfig:   ${dev.kubeconfigPath}`,
        ...(dev.node
          ? [
              `  registry:     ${dev.node.registry}  (plain HTTP; npm run example:push builds and pushes the example app)`,
              `  pushes:       ${dev.node.pushRegistry}  (plain HTTP; docker login with POST /v2/deployments/{id}/push-token)`,
              `  try:          kubectl --kubeconfig ${dev.kubeconfigPath} apply --server-side -f examples/hello.yaml  (see the README)`,
              `                an app answers at its url: curl --cacert ${dev.node.appsCaFile} $(kubectl get bdeploy hello -o jsonpath='{.status.url}')/`,
              `  apps' CA:     ${dev.node.appsCaFile}  (trust it to open the apps' https:// URLs in a browser)`,
            ]
          : [
              `  node:         ${dev.cluster?.withoutNode ?? 'none'}`,
              `  try:          kubectl --kubeconfig ${dev.kubeconfigPath} apply -f examples/deployment-external-docker.yaml`,
            ]),
        `                kubectl --kubeconfig ${dev.kubeconfigPath} get berth`,
        ...(facade
          ? [
              `  HTTP API:     ${facade}  (OpenAPI: ${facade}/openapi.json)`,
              `  API key:      ${dev.local.apiKey}  (organization ${dev.local.organizationId}, namespace ${dev.local.organizationNamespace})`,
              `  try:          curl -H 'X-Api-Key: ${dev.local.apiKey}' ${facade}/v2/deployments`,
            ]
          : []),
        `  probes:       http://${options.probeAddress.host}:${berth.manager.healthPort}/readyz and /metrics`,
        '  stop:         Ctrl-C (stops every process Berth started)',
        '',
      ].join('\n'),
    );
  }
} catch (error) {
  logger.error({ err: error }, 'failed to start');
  await stop('startup failure', 1);
}
