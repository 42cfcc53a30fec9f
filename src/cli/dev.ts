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
import { installCrds } from '../dev/install-crds.ts';
import { adminUserName } from '../dev/pki.ts';
import { renderRoutePolicy } from '../api/route-policy.ts';
import { fieldManager } from '../api/group.ts';
import { applyObject } from '../runtime/index.ts';
import { startLocalCluster, type LocalCluster } from '../dev/local-cluster.ts';
import { nodeBinaries, pushBuildImages, pushServiceImages } from '../dev/node/node.ts';
import { nodeIp, pushRegistryAddress } from '../dev/node/network.ts';
import { nodeGateway, nodeTlsAppUrlTemplate } from '../dev/node/gateway.ts';
import { metricsStoreUrl } from '../dev/node/metrics-store.ts';
import { nodeActivator } from '../dev/node/http-add-on.ts';
import { nodeTlsIssuer } from '../dev/node/certificates.ts';
import { readPki } from '../dev/controlplane.ts';
import type { TlsIssuer } from '../api/app-tls.ts';
import type { Activator } from '../api/activator.ts';
import { startPushRegistry, type PushRegistry } from '../dev/node/push-registry.ts';
import { mintApiKey } from '../facade/api-keys.ts';
import { ensureDevAccess } from '../facade/dev-access.ts';
import { findConfiguredCluster } from './cluster-config.ts';

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
  /** The node's registry and the images built for it, when the embedded cluster has a node. */
  node?: {
    registry: string;
    pushRegistry: string;
    nodeHost: string;
    postgresImage: string;
    redisImage: string;
    builderImage: string;
    gitImage: string;
    buildToolsImage: string;
    agentToolsImage: string;
    /** Every Deployment's own URL, through the node's Gateway, over TLS. */
    appUrlTemplate: string;
    gateway: { namespace: string; name: string };
    /** The issuer of the apps' certificates, and where its CA certificate is written for clients
     * (curl --cacert, a browser's trust store). */
    tlsIssuer: TlsIssuer;
    appsCaFile: string;
    /** The node's Prometheus-compatible server, where KEDA reads the apps' requests in flight. */
    concurrencyMetrics: string;
    /** The node's activator (KEDA's HTTP add-on): dev_zero apps scale to zero. */
    activator: Activator;
  };
  /** Only on the embedded control plane: a key for the local organization. */
  local?: { organizationNamespace: string; organizationId: string; apiKey: string };
}

const localOrganizationNamespace = 'default';

export async function startDevCluster(options: DevOptions): Promise<DevCluster> {
  const configured = findConfiguredCluster();
  if (configured) {
    options.logger.info({ source: configured.source }, 'using the configured cluster');
    return { kubeConfig: configured.kubeConfig };
  }
  const dataDir = resolve(options.dataDir);
  const log = (message: string) => options.logger.info(message);
  const cluster = await startLocalCluster({ dataDir, node: options.node === 'off' ? 'none' : options.node, forwardDns: true, log });
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cluster.controlPlane.kubeconfigPath);
    const crds = await installCrds(kubeConfig, options.crdsDir);
    options.logger.info({ crds }, 'CRDs installed');
    // As the chart installs it: routes in organization namespaces are Berth's alone.
    for (const object of renderRoutePolicy(adminUserName)) await applyObject(kubeConfig, object as never, fieldManager);
    const access = await localAccess(kubeConfig, dataDir, options.operatorNamespace);
    const node = await nodeDefaults(cluster, dataDir, log);
    return { kubeConfig, kubeconfigPath: cluster.controlPlane.kubeconfigPath, cluster, node, local: access };
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

/** With a node: its registry address for users and scripts (.berth/dev/registry), the Postgres and
 * Redis images built here for Deployments that ask for them, and the images of codehost builds. */
async function nodeDefaults(cluster: LocalCluster, dataDir: string, log: (m: string) => void): Promise<DevCluster['node']> {
  const registryFile = join(dataDir, 'registry');
  if (!cluster.node) {
    rmSync(registryFile, { force: true });
    return undefined;
  }
  writeFileSync(registryFile, `${cluster.node.registry}\n`);
  const appsCaFile = join(dataDir, 'apps-ca.crt');
  writeFileSync(appsCaFile, readPki(cluster.controlPlane.pkiDir).appsCaCert);
  const nodeBin = nodeBinaries();
  const [services, builds] = await Promise.all([pushServiceImages(nodeBin, log), pushBuildImages(nodeBin, log)]);
  return {
    registry: cluster.node.registry,
    // Started once Berth answers (its realm): startDevPushRegistry.
    pushRegistry: pushRegistryAddress,
    // The HTTP API listens there too: the kubelet and build pods reach the registry's realm on it.
    nodeHost: nodeIp,
    postgresImage: services.postgres,
    redisImage: services.redis,
    builderImage: builds.builder,
    gitImage: builds.git,
    buildToolsImage: builds.buildTools,
    agentToolsImage: builds.agentTools,
    appUrlTemplate: nodeTlsAppUrlTemplate,
    gateway: nodeGateway,
    tlsIssuer: nodeTlsIssuer,
    appsCaFile,
    concurrencyMetrics: metricsStoreUrl,
    activator: nodeActivator,
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
