// `berth dev`: runs Berth against the configured cluster, or, when none is configured, against an
// embedded control plane whose data lives in .berth/dev so a restart keeps its objects.
import { resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { startControlPlane, type ControlPlane } from '../dev/controlplane.ts';
import { installCrds } from '../dev/install-crds.ts';
import { findConfiguredCluster } from './cluster-config.ts';

export interface DevOptions {
  dataDir: string;
  crdsDir: string;
  logger: Logger;
}

export interface DevCluster {
  kubeConfig: KubeConfig;
  kubeconfigPath?: string;
  controlPlane?: ControlPlane;
}

export async function startDevCluster(options: DevOptions): Promise<DevCluster> {
  const configured = findConfiguredCluster();
  if (configured) {
    options.logger.info({ source: configured.source }, 'using the configured cluster');
    return { kubeConfig: configured.kubeConfig };
  }
  const controlPlane = await startControlPlane({
    dataDir: resolve(options.dataDir),
    log: (message) => options.logger.info(message),
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(controlPlane.kubeconfigPath);
  const crds = await installCrds(kubeConfig, options.crdsDir);
  options.logger.info({ crds }, 'CRDs installed');
  return { kubeConfig, kubeconfigPath: controlPlane.kubeconfigPath, controlPlane };
}
