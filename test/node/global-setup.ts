// One local cluster with a real node per `npm run test:node`: the control plane, containerd, the
// kubelet, kube-scheduler, kube-proxy, cluster DNS and the registry, with Berth's CRDs installed. Test
// files share it (one node per machine), each in its own namespace, and reach it through inject().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { TestProject } from 'vitest/node';
import { installCrds } from '../../workbench/install-crds.ts';
import { startLocalCluster } from '../../workbench/local-cluster.ts';
import { nodeBinaries } from '../../workbench/node/node.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfigPath: string;
    controlPlaneBin: string;
    nodeBin: string;
    registry: string;
  }
}

export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-node-'));
  const log = (message: string) => console.error(`[node] ${message}`);
  const cluster = await startLocalCluster({ dataDir, ephemeral: true, node: 'required', forwardDns: false, log });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.controlPlane.kubeconfigPath);
  await installCrds(kc, resolve(import.meta.dirname, '../../crds'));
  project.provide('kubeconfigPath', cluster.controlPlane.kubeconfigPath);
  project.provide('controlPlaneBin', cluster.controlPlane.binDir);
  project.provide('nodeBin', nodeBinaries());
  project.provide('registry', cluster.node!.registry);
  return async () => {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
