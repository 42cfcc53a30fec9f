// One local cluster with a real node per `npm run test:node`: the control plane, containerd, the
// kubelet, kube-scheduler, kube-proxy, cluster DNS and the registry, with Berth's CRDs installed. Test
// files share it (one node per machine), each in its own namespace, and reach it through inject(). The
// suite starts once the node's core runs; each file waits for the parts it needs (./await-needs.ts), and
// a part that failed fails the run at its end even if no file needed it.
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { TestProject } from 'vitest/node';
import { installCrds } from '../../workbench/install-crds.ts';
import { startLocalCluster } from '../../workbench/local-cluster.ts';
import { nodeBinaries } from '../../workbench/node/node.ts';
import { recordParts } from '../../workbench/node/part-markers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfigPath: string;
    controlPlaneBin: string;
    nodeBin: string;
    registry: string;
    /** Where the node's parts are said ready or failed (workbench/node/part-markers.ts). */
    nodePartsDir: string;
  }
}

export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-node-'));
  const log = (message: string) => console.error(`[node] ${message}`);
  const cluster = await startLocalCluster({ dataDir, ephemeral: true, node: 'required', forwardDns: false, log, waitFor: 'node' });
  const partsDir = join(dataDir, 'parts');
  recordParts(cluster.parts, partsDir);
  // A part that fails while the suite runs (not one whose build the stop below cancels).
  let partFailed: Error | undefined;
  let stopping = false;
  cluster.ready.catch((error: Error) => {
    if (!stopping) partFailed = error;
  });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.controlPlane.kubeconfigPath);
  await installCrds(kc, resolve(import.meta.dirname, '../../crds'));
  project.provide('kubeconfigPath', cluster.controlPlane.kubeconfigPath);
  project.provide('controlPlaneBin', cluster.controlPlane.binDir);
  project.provide('nodeBin', nodeBinaries());
  project.provide('registry', cluster.node!.registry);
  project.provide('nodePartsDir', partsDir);
  return async () => {
    stopping = true;
    try {
      keepNodeLogs(dataDir);
    } catch (error) {
      log(`the node's logs were not kept: ${(error as Error).message}`);
    }
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (partFailed) throw partFailed;
  };
}

/** With a report directory (CI's), the node's logs go there before the node does: its processes' own, and
 * the logs of the pods left in kube-system (the activator, CoreDNS). A few megabytes; what a failure
 * that did not reproduce needs to be explained. */
function keepNodeLogs(dataDir: string): void {
  const report = process.env.BERTH_TEST_REPORT_DIR;
  if (!report) return;
  const copy = (from: string, to: string) => {
    if (existsSync(from)) cpSync(from, join(report, 'node-logs', to), { recursive: true });
  };
  copy(join(dataDir, 'logs'), '.');
  const podLogs = join(dataDir, 'node', 'pod-logs');
  if (!existsSync(podLogs)) return;
  for (const pod of readdirSync(podLogs).filter((name) => name.startsWith('kube-system_'))) copy(join(podLogs, pod), join('pods', pod));
}
