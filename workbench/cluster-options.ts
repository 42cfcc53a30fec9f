// What the embedded cluster offers Berth (its node's registry, images, URLs and parts), folded into
// Berth's options wherever a flag left one unset: the product reads its options alone. Pure.
import { parseAppUrlTemplate } from '../src/api/app-urls.ts';
import { publicCodeHostOrigins } from '../src/codehost/outbound.ts';
import type { Options } from '../src/cli/options.ts';
import type { ClusterDefaults } from './cluster-defaults.ts';

/** `options`, each unset one taken from what the cluster offers; a flag always wins. */
export function withClusterDefaults(options: Options, cluster: ClusterDefaults): Options {
  return {
    ...options,
    registry: options.registry ?? cluster.registry,
    pushRegistry: options.pushRegistry ?? cluster.pushRegistry,
    builderImage: options.builderImage ?? cluster.builderImage,
    gitImage: options.gitImage ?? cluster.gitImage,
    buildToolsImage: options.buildToolsImage ?? cluster.buildToolsImage,
    agentToolsImage: options.agentToolsImage ?? cluster.agentToolsImage,
    agentServerImage: options.agentServerImage ?? cluster.agentServerImage,
    postgresImage: options.postgresImage ?? cluster.postgresImage,
    cnpgPostgresImage: options.cnpgPostgresImage ?? cluster.cnpgPostgresImage,
    cnpgStorageClass: options.cnpgStorageClass ?? cluster.cnpgStorageClass,
    redisImage: options.redisImage ?? cluster.redisImage,
    // The node's kube-router refuses a new pod until it has programmed it: its pods wait for it.
    networkWaitImage: options.networkWaitImage ?? cluster.postgresImage,
    appUrlTemplate: options.appUrlTemplate ?? appUrlTemplateOf(cluster),
    gateway: options.gateway ?? cluster.gateway,
    tlsIssuer: options.tlsIssuer ?? cluster.tlsIssuer,
    concurrencyMetrics: options.concurrencyMetrics ?? cluster.concurrencyMetrics,
    buildBlockedCidrs: options.buildBlockedCidrs ?? cluster.buildBlockedCidrs?.slice(),
    // The cluster's own code hosts beside the public ones.
    codeHostOrigins: options.codeHostOrigins ?? (cluster.codeHostOrigins && [...publicCodeHostOrigins, ...cluster.codeHostOrigins]),
    // The node's address, at the HTTP API's port.
    facadeNodeAddress:
      options.facadeNodeAddress ?? (cluster.nodeHost ? { host: cluster.nodeHost, port: options.facadeAddress.port } : undefined),
    ...activatorOf(options, cluster),
    ...backupStoreOf(options, cluster),
  };
}

/** The Secret in Berth's namespace `berth dev` writes the node's backup store credential to. */
export const devBackupStoreSecret = 'berth-backup-store';

/** The backup store the flags name, both halves, else the cluster's (its credential in devBackupStoreSecret,
 * its admin API where the cluster serves it). */
function backupStoreOf(
  options: Options,
  cluster: ClusterDefaults,
): Pick<Options, 'backupStore' | 'backupStoreSecret' | 'backupStoreAdmin'> {
  if ((options.backupStore && options.backupStoreSecret) || !cluster.backupStore) return {};
  const { url, adminUrl } = cluster.backupStore;
  return { backupStore: url, backupStoreSecret: devBackupStoreSecret, backupStoreAdmin: adminUrl };
}

function appUrlTemplateOf(cluster: ClusterDefaults): Options['appUrlTemplate'] {
  const template = cluster.appUrlTemplate ? parseAppUrlTemplate(cluster.appUrlTemplate) : undefined;
  return template && !('error' in template) ? template : undefined;
}

/** The activator the flags name, both halves, else the cluster's. */
function activatorOf(options: Options, cluster: ClusterDefaults): Pick<Options, 'activatorProxy' | 'activatorScaler'> {
  if ((options.activatorProxy && options.activatorScaler) || !cluster.activator) return {};
  return { activatorProxy: cluster.activator.proxy, activatorScaler: cluster.activator.scalerAddress };
}
