// The control plane the benchmark runs against: the same etcd + kube-apiserver (+ controller-manager)
// the tests start, with Berth's CRDs installed, in a throwaway data directory.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startControlPlane } from '../src/dev/controlplane.ts';
import { installCrds } from '../src/dev/install-crds.ts';
import { kubeRequest } from '../src/runtime/index.ts';

export interface BenchCluster {
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  server: string;
  /** A fresh namespace, labelled as given. */
  namespace(prefix: string, labels?: Record<string, string>): Promise<string>;
  stop(): Promise<void>;
}

export async function startBenchCluster(log: (message: string) => void): Promise<BenchCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-'));
  const controlPlane = await startControlPlane({ dataDir, ephemeral: true, log });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(controlPlane.kubeconfigPath);
  await installCrds(kubeConfig, resolve(import.meta.dirname, '../crds'));
  await widenServiceRange(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return {
    kubeConfig,
    kubeconfigPath: controlPlane.kubeconfigPath,
    server: controlPlane.server,
    async namespace(prefix, labels = {}) {
      const name = `${prefix}-${randomBytes(3).toString('hex')}`;
      await core.createNamespace({ body: { metadata: { name, labels } } });
      return name;
    },
    async stop() {
      await controlPlane.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Every benchmark Deployment owns a ClusterIP Service, and the control plane's service range is a /24
 * (254 addresses), too small past a few hundred Deployments. A second ServiceCIDR (networking.k8s.io/v1)
 * adds a /16. Its Ready condition is normally set by kube-controller-manager's service-cidr controller,
 * which this control plane does not run, so the benchmark sets it: the allocator only uses ready ranges.
 */
async function widenServiceRange(kc: KubeConfig): Promise<void> {
  const name = 'berth-bench';
  await kubeRequest(kc, { method: 'POST', path: '/apis/networking.k8s.io/v1/servicecidrs', body: { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.96.0.0/16'] } } });
  await kubeRequest(kc, {
    method: 'PATCH',
    path: `/apis/networking.k8s.io/v1/servicecidrs/${name}/status`,
    contentType: 'application/merge-patch+json',
    body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Benchmark', message: 'Added by the benchmark.', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } },
  });
}
