// The berth command: parses the command line and wires the parts together, nothing else. Loaded by
// src/main.ts once the process is set up.
import { resolve } from 'node:path';
import { findConfiguredCluster } from './cluster-config.ts';
import { parseCommandLine, usage, type Options } from './options.ts';
import { startBerth, type RunningBerth } from './run.ts';
import type { DevCluster } from './dev.ts';
import { createLogger } from '../runtime/index.ts';

/** How long `berth dev` waits, after a part of the node comes up, for others before it restarts Berth. */
const restartSettleMs = 2_000;

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
  let berth = await startBerth(kubeConfig, options, logger, dev?.node ?? {});
  let pushRegistry: { stop(): Promise<void> } | undefined;
  let following: Promise<void> = Promise.resolve();
  stopping.push(async () => {
    await following;
    await pushRegistry?.stop();
    await berth.stop();
  });
  /** With a node: the registry for pushed images, whose tokens the running Berth issues (started once). */
  const startPushRegistry = async () => {
    if (pushRegistry || !dev?.node || !devModule || !berth.facade) return;
    pushRegistry = await devModule.startDevPushRegistry(dev, options.dataDir, berth.facade.nodeUrl ?? berth.facade.url, options.namespace);
  };
  await startPushRegistry();
  if (dev?.kubeconfigPath && dev.local) process.stdout.write(banner(dev, berth));
  // Under `berth dev` the node and its parts come up after Berth does (built first where they are not
  // cached): Berth restarts with what they offer as each arrives, and what was applied before converges.
  let startedWith = dev?.node;
  const follow = () => {
    following = following
      // Parts that come up together (a warm start brings them all within seconds) make one restart.
      .then(() => new Promise((settled) => setTimeout(settled, restartSettleMs)))
      .then(async () => {
        if (!dev?.node || dev.node === startedWith || stopRequested) return;
        const first = !startedWith;
        startedWith = dev.node;
        logger.info('restarting Berth with what the node offers now');
        await berth.stop();
        berth = await startBerth(kubeConfig, options, logger, startedWith);
        await startPushRegistry();
        if (first && dev.kubeconfigPath && dev.local) process.stdout.write(banner(dev, berth));
      })
      .catch((error: unknown) => void stop(`restart failed: ${(error as Error).message}`, 1));
  };
  dev?.onChange(follow);
  follow();
} catch (error) {
  logger.error({ err: error }, 'failed to start');
  await stop('startup failure', 1);
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
          `  API key:      ${local.apiKey}  (organization ${local.organizationId}, namespace ${local.organizationNamespace})`,
          `  try:          curl -H 'X-Api-Key: ${local.apiKey}' ${facade}/v2/deployments`,
        ]
      : []),
    `  probes:       http://${options.probeAddress.host}:${berth.manager.healthPort}/readyz and /metrics`,
    '  stop:         Ctrl-C (stops every process Berth started)',
    '',
  ].join('\n');
}
