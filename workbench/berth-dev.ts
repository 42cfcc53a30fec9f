// `berth dev`: Berth with the embedded local cluster where no cluster is configured. The cluster's
// node and its parts come up after Berth does (built first where they are not cached): Berth restarts
// with what they offer as each arrives, and with a node, the registry for pushed images starts beside
// it. Loaded by workbench/main.ts once the process is set up.
import { resolve } from 'node:path';
import { parsedOrExit, stopOnSignals } from '../src/cli/process-lifecycle.ts';
import { startBerth, type RunningBerth } from '../src/cli/run.ts';
import type { ClusterDefaults } from './cluster-defaults.ts';
import { devBackupStoreSecret, withClusterDefaults } from './cluster-options.ts';
import { backupStoreAdminSecret } from './node/backup-store.ts';
import { applyObject } from '../src/runtime/apply.ts';
import { fieldManager } from '../src/api/group.ts';
import { createLogger } from '../src/runtime/index.ts';
import { startDevCluster, startDevPushRegistry, type DevCluster } from './dev-cluster.ts';
import { devUsage, parseDevCommandLine } from './dev-options.ts';
import { terminalDestination } from './terminal-log.ts';

/** How long `berth dev` waits, after a part of the node comes up, for others before it restarts Berth. */
const restartSettleMs = 2_000;

const { options, dataDir, node } = parsedOrExit(() => parseDevCommandLine(process.argv.slice(2)), devUsage);
const logger = createLogger({ destination: terminalDestination() });
const stopping = stopOnSignals(logger);

try {
  const devStart = startDevCluster({
    dataDir,
    crdsDir: resolve(import.meta.dirname, '../crds'),
    operatorNamespace: options.namespace,
    node,
    logger,
  });
  // A stop during start-up (Ctrl-C while the node comes up) waits for the start, then undoes it.
  stopping.add(async () => (await devStart.catch(() => undefined))?.cluster?.stop());
  const dev = await devStart;
  const kubeConfig = dev.kubeConfig;
  /** Berth with what the cluster offers where a flag left it unset, its builds waiting for the node's builder. */
  const startBerthOn = async (cluster: ClusterDefaults) => {
    const store = cluster.backupStore;
    if (store)
      await applyObject(kubeConfig, backupStoreAdminSecret(options.namespace, devBackupStoreSecret, store.credentials), fieldManager);
    return startBerth(kubeConfig, withClusterDefaults(options, cluster), logger, { builder: cluster.awaitedBuilder });
  };
  let berth = await startBerthOn(dev.node ?? {});
  let pushRegistry: { stop(): Promise<void> } | undefined;
  let following: Promise<void> = Promise.resolve();
  stopping.add(async () => {
    await following;
    await pushRegistry?.stop();
    await berth.stop();
  });
  /** With a node: the registry for pushed images, whose tokens the running Berth issues (started once). */
  const startPushRegistry = async () => {
    if (pushRegistry || !dev.node || !berth.facade) return;
    pushRegistry = await startDevPushRegistry(dev, dataDir, berth.facade.nodeUrl ?? berth.facade.url, options.namespace);
  };
  await startPushRegistry();
  if (dev.kubeconfigPath && dev.local) process.stdout.write(banner(dev, berth));
  // Under `berth dev` the node and its parts come up after Berth does (built first where they are not
  // cached): Berth restarts with what they offer as each arrives, and what was applied before converges.
  let startedWith = dev.node;
  const follow = () => {
    following = following
      // Parts that come up together (a warm start brings them all within seconds) make one restart.
      .then(() => new Promise((settled) => setTimeout(settled, restartSettleMs)))
      .then(async () => {
        if (!dev.node || dev.node === startedWith || stopping.requested) return;
        const first = !startedWith;
        startedWith = dev.node;
        logger.info('restarting Berth with what the node offers now');
        await berth.stop();
        berth = await startBerthOn(startedWith);
        await startPushRegistry();
        if (first && dev.kubeconfigPath && dev.local) process.stdout.write(banner(dev, berth));
      })
      .catch((error: unknown) => void stopping.stop(`restart failed: ${(error as Error).message}`, 1));
  };
  dev.onChange(follow);
  follow();
} catch (error) {
  logger.error({ err: error }, 'failed to start');
  await stopping.stop('startup failure', 1);
}

/** What `berth dev` prints once Berth answers, and again once the node runs. */
function banner(dev: DevCluster, berth: RunningBerth): string {
  const facade = berth.facade?.url;
  const kubeconfigPath = dev.kubeconfigPath!;
  const local = dev.local!;
  return [
    '',
    dev.node
      ? 'Berth is running against an embedded cluster with a real node.'
      : dev.cluster?.withoutNode
        ? 'Berth is running against an embedded control plane (no node: Pods will not run).'
        : "Berth is running against an embedded control plane; the node's parts are being built and come up one by one (see the progress lines).",
    `  kubeconfig:   ${kubeconfigPath}`,
    ...(dev.node
      ? [
          `  registry:     ${dev.node.registry}  (plain HTTP; npm run example:push builds and pushes the example app)`,
          `  pushes:       ${dev.node.pushRegistry}  (plain HTTP; docker login with POST /v2/deployments/{id}/push-token)`,
          `  try:          kubectl --kubeconfig ${kubeconfigPath} apply --server-side -f examples/hello.yaml  (see the README)`,
          `                an app answers at its url: curl --cacert ${dev.node.appsCaFile} $(kubectl get bdeploy hello -o jsonpath='{.status.url}')/`,
          `  apps' CA:     ${dev.node.appsCaFile}  (trust it to open the apps' https:// URLs in a browser)`,
        ]
      : [
          `  node:         ${dev.cluster?.withoutNode ?? 'starting'}`,
          `  try:          kubectl --kubeconfig ${kubeconfigPath} apply -f examples/deployment-external-docker.yaml`,
        ]),
    `                kubectl --kubeconfig ${kubeconfigPath} get berth`,
    ...(facade
      ? [
          `  HTTP API:     ${facade}  (OpenAPI: ${facade}/openapi.json)`,
          `  console:      ${facade}/console/  (sign in with the API key)`,
          `  API key:      ${local.apiKey}  (organization ${local.organizationId}, namespace ${local.organizationNamespace})`,
          `  try:          curl -H 'X-Api-Key: ${local.apiKey}' ${facade}/v2/deployments`,
        ]
      : []),
    `  probes:       http://${options.probeAddress.host}:${berth.manager.healthPort}/readyz and /metrics`,
    '  stop:         Ctrl-C (stops every process Berth started)',
    '',
  ].join('\n');
}
