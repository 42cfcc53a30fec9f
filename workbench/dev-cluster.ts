// `berth dev`: runs Berth against the configured cluster, or, when none is configured, against an
// embedded local cluster whose data lives in .berth/dev so a restart keeps its objects: the control
// plane, and a real node where the machine allows one (its registry address is written to
// .berth/dev/registry, and Deployments' Postgres and Redis use images built here). It also makes the
// `default` namespace a local organization and keeps one API key for it, so the HTTP API can be called
// at once.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { Logger } from 'pino';
import { installCrds } from './install-crds.ts';
import { adminUserName } from './pki.ts';
import { renderRoutePolicy } from '../src/api/route-policy.ts';
import { renderNetworkPolicyGuard } from '../src/api/network-policy-guard.ts';
import { defaultClusterControllers } from '../src/api/admission-policy.ts';
import { kedaUser } from './node/keda.ts';
import { fieldManager } from '../src/api/group.ts';
import { applyObject } from '../src/runtime/index.ts';
import { startLocalCluster, type LocalCluster } from './local-cluster.ts';
import { nodeBuildBlockedCidrs, nodeIp, pushRegistryAddress, registryAddress } from './node/network.ts';
import { nodeAppUrlTemplate, nodeGateway } from './node/gateway.ts';
import { cnpgPostgresImage, localPathStorageClass } from './node/postgres-operator.ts';
import type { NodeOffers } from './node/parts.ts';
import { readPki } from './controlplane.ts';
import { startPushRegistry, type PushRegistry } from './node/push-registry.ts';
import { mintApiKey } from '../src/facade/api-keys.ts';
import { ensureDevAccess } from './dev-access.ts';
import { findConfiguredCluster } from '../src/cli/cluster-config.ts';

export interface DevOptions {
  dataDir: string;
  crdsDir: string;
  /** The operator's namespace, where the local API key is stored. */
  operatorNamespace: string;
  node: 'auto' | 'required' | 'off';
  logger: Logger;
}

export interface DevCluster {
  kubeConfig: KubeConfig;
  kubeconfigPath?: string;
  cluster?: LocalCluster;
  /** The node's registry and the images built for it, once the embedded cluster's node runs; it grows
   * as the node's parts come up (onChange). */
  node?: DevNode;
  /** Only on the embedded control plane: a key for the local organization. */
  local?: { organizationNamespace: string; organizationId: string; apiKey: string };
  /** Called when `node` changes: the node, then each of its parts, came up. */
  onChange(listener: (node: DevNode) => void): void;
}

export interface DevNode extends NodeOffers {
  /** What CloudNativePG runs a database's instances from, and their volumes' StorageClass: the node's. */
  cnpgPostgresImage: string;
  cnpgStorageClass: string;
  registry: string;
  pushRegistry: string;
  nodeHost: string;
  /** Every Deployment's own URL, through the node's Gateway (over TLS once the node's TLS part runs). */
  appUrlTemplate: string;
  gateway: { namespace: string; name: string };
  /** Where the apps CA's certificate is written for clients (curl --cacert, a browser's trust store). */
  appsCaFile: string;
  codeHostOrigins: string[];
  buildBlockedCidrs: readonly string[];
}

const localOrganizationNamespace = 'default';

/** Starts the embedded cluster when none is configured and answers once its API server does: the node
 * and its parts come up behind it (see onChange), each built where it is not cached yet. */
export async function startDevCluster(options: DevOptions): Promise<DevCluster> {
  const listeners: Array<(node: DevNode) => void> = [];
  const onChange = (listener: (node: DevNode) => void) => void listeners.push(listener);
  const configured = findConfiguredCluster();
  if (configured) {
    options.logger.info({ source: configured.source }, 'using the configured cluster');
    return { kubeConfig: configured.kubeConfig, onChange };
  }
  const dataDir = resolve(options.dataDir);
  const log = (message: string) => options.logger.info(message);
  const dev: DevCluster = { kubeConfig: new KubeConfig(), onChange };
  const cluster = await startLocalCluster({
    dataDir,
    node: options.node === 'off' ? 'none' : options.node,
    forwardDns: true,
    log,
    progress: (message, state) => options.logger.info({ progress: state }, message),
    waitFor: 'control plane',
    onChange: (offers) => {
      if (!dev.node) writeNodeFiles(dataDir);
      dev.node = devNode(dataDir, offers);
      for (const listener of listeners) listener(dev.node);
    },
  });
  try {
    dev.kubeConfig.loadFromFile(cluster.controlPlane.kubeconfigPath);
    const crds = await installCrds(dev.kubeConfig, options.crdsDir);
    options.logger.info({ crds }, 'CRDs installed');
    // As the chart installs them: routes and NetworkPolicies in organization namespaces are Berth's alone.
    const controllers = [...defaultClusterControllers, kedaUser];
    for (const object of [
      ...renderRoutePolicy(adminUserName, undefined, controllers),
      ...renderNetworkPolicyGuard(adminUserName, undefined, controllers),
    ])
      await applyObject(dev.kubeConfig, object, fieldManager);
    dev.local = await localAccess(dev.kubeConfig, dataDir, options.operatorNamespace);
    Object.assign(dev, { kubeconfigPath: cluster.controlPlane.kubeconfigPath, cluster });
    if (!cluster.node) rmSync(join(dataDir, 'registry'), { force: true });
    return dev;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/** The key is kept in the data dir (the API server keeps only its hash); the organization id derives
 * from the namespace's name, so both survive a restart. */
async function localAccess(kubeConfig: KubeConfig, dataDir: string, operatorNamespace: string): Promise<NonNullable<DevCluster['local']>> {
  const access = await ensureDevAccess(kubeConfig, {
    operatorNamespace,
    namespace: localOrganizationNamespace,
    key: keptValue(join(dataDir, 'api-key'), mintApiKey),
  });
  return { organizationNamespace: access.namespace, organizationId: access.organizationId, apiKey: access.key };
}

/** Once the node runs: its registry address for users and scripts (.berth/dev/registry) and the apps
 * CA's certificate (.berth/dev/apps-ca.crt). */
function writeNodeFiles(dataDir: string): void {
  writeFileSync(join(dataDir, 'registry'), `${registryAddress}\n`);
  writeFileSync(join(dataDir, 'apps-ca.crt'), readPki(join(dataDir, 'pki')).appsCaCert);
}

/** What Berth is started with once the node runs: its registry and URLs, beside what its running parts offer. */
function devNode(dataDir: string, offers: NodeOffers): DevNode {
  const appsCaFile = join(dataDir, 'apps-ca.crt');
  return {
    appUrlTemplate: nodeAppUrlTemplate,
    // The node's own, from its start: its data (CloudNativePG's kinds among it) outlives a restart, so
    // Berth may find Clusters served before the Postgres operator part is up again, and must never
    // render one with another image (a major version's change) or StorageClass meanwhile.
    cnpgPostgresImage,
    cnpgStorageClass: localPathStorageClass,
    ...offers,
    registry: registryAddress,
    // Started once Berth answers (its realm): startDevPushRegistry.
    pushRegistry: pushRegistryAddress,
    // The HTTP API listens there too: the kubelet and build pods reach the registry's realm on it.
    nodeHost: nodeIp,
    // A git server of the developer's own on the node's address serves integrations too.
    codeHostOrigins: [`http://${nodeIp}:*`],
    // Berth, its registries and git servers are on the node's address: no build needs a pod.
    buildBlockedCidrs: nodeBuildBlockedCidrs,
    gateway: nodeGateway,
    appsCaFile,
  };
}

/** A value made once and kept in the data dir (readable by its owner only), so restarts reuse it. */
function keptValue(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

/** With a node: the registry for pushed images, whose tokens the running Berth issues (its data under the data dir). */
export async function startDevPushRegistry(
  dev: DevCluster,
  dataDir: string,
  berthUrl: string,
  operatorNamespace: string,
): Promise<PushRegistry | undefined> {
  if (!dev.node) return undefined;
  return startPushRegistry({ dir: join(dataDir, 'push-registry'), kubeConfig: dev.kubeConfig, operatorNamespace, berthUrl });
}
