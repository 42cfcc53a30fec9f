// One real control plane per test run: etcd + kube-apiserver (+ kube-controller-manager's tidy-up
// controllers) on loopback, with Berth's CRDs installed. Test files reach it through inject().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { TestProject } from 'vitest/node';
import { startControlPlane } from '../../workbench/controlplane.ts';
import { installCrds } from '../../workbench/install-crds.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfigPath: string;
    controlPlaneBin: string;
  }
}

export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-test-'));
  const controlPlane = await startControlPlane({
    dataDir,
    ephemeral: true,
    log: (message) => console.error(`[control plane] ${message}`),
  });
  const kc = new KubeConfig();
  kc.loadFromFile(controlPlane.kubeconfigPath);
  await installCrds(kc, resolve(import.meta.dirname, '../../crds'));
  project.provide('kubeconfigPath', controlPlane.kubeconfigPath);
  project.provide('controlPlaneBin', controlPlane.binDir);
  return async () => {
    await controlPlane.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
