// `berth dev`: runs Berth against the configured cluster, or, when none is configured, against an
// embedded control plane whose data lives in .berth/dev so a restart keeps its objects. On the embedded
// plane it also makes the `default` namespace a local organization and keeps one API key for it, so
// the HTTP API can be called at once.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { Logger } from 'pino';
import { startControlPlane, type ControlPlane } from '../dev/controlplane.ts';
import { installCrds } from '../dev/install-crds.ts';
import { mintApiKey } from '../facade/api-keys.ts';
import { ensureDevAccess } from '../facade/dev-access.ts';
import { findConfiguredCluster } from './cluster-config.ts';

export interface DevOptions {
  dataDir: string;
  crdsDir: string;
  /** The operator's namespace, where the local API key is stored. */
  operatorNamespace: string;
  logger: Logger;
}

export interface DevCluster {
  kubeConfig: KubeConfig;
  kubeconfigPath?: string;
  controlPlane?: ControlPlane;
  /** Only on the embedded control plane: a key for the local organization. */
  local?: { organizationNamespace: string; organizationId: string; apiKey: string };
}

export const localOrganizationNamespace = 'default';

export async function startDevCluster(options: DevOptions): Promise<DevCluster> {
  const configured = findConfiguredCluster();
  if (configured) {
    options.logger.info({ source: configured.source }, 'using the configured cluster');
    return { kubeConfig: configured.kubeConfig };
  }
  const dataDir = resolve(options.dataDir);
  const controlPlane = await startControlPlane({ dataDir, log: (message) => options.logger.info(message) });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(controlPlane.kubeconfigPath);
  const crds = await installCrds(kubeConfig, options.crdsDir);
  options.logger.info({ crds }, 'CRDs installed');
  // The key is kept in the data dir (the API server keeps only its hash); the organization id derives
  // from the namespace's name, so both survive a restart.
  const access = await ensureDevAccess(kubeConfig, {
    operatorNamespace: options.operatorNamespace,
    namespace: localOrganizationNamespace,
    key: keptValue(join(dataDir, 'api-key'), mintApiKey),
  });
  return {
    kubeConfig,
    kubeconfigPath: controlPlane.kubeconfigPath,
    controlPlane,
    local: { organizationNamespace: access.namespace, organizationId: access.organizationId, apiKey: access.key },
  };
}

/** A value made once and kept in the data dir (readable by its owner only), so restarts reuse it. */
function keptValue(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}
