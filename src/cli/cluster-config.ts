// Finds the cluster Berth should talk to: an explicit kubeconfig, the in-cluster service account,
// or the default kubeconfig file. Undefined means none is configured.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';

export interface ConfiguredCluster {
  kubeConfig: KubeConfig;
  source: string;
}

export function findConfiguredCluster(env: NodeJS.ProcessEnv = process.env): ConfiguredCluster | undefined {
  const kc = new KubeConfig();
  if (env.KUBECONFIG) {
    kc.loadFromDefault();
    return { kubeConfig: kc, source: `KUBECONFIG=${env.KUBECONFIG}` };
  }
  if (env.KUBERNETES_SERVICE_HOST && existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token')) {
    kc.loadFromCluster();
    return { kubeConfig: kc, source: 'in-cluster service account' };
  }
  const defaultFile = join(env.HOME ?? homedir(), '.kube', 'config');
  if (existsSync(defaultFile)) {
    kc.loadFromFile(defaultFile);
    return { kubeConfig: kc, source: defaultFile };
  }
  return undefined;
}
