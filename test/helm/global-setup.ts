// The helm suite's cluster: the same local cluster with a real node as the node suite, but with no CRD
// installed (the chart installs them), and Berth's image built from the Dockerfile, saved from the
// Docker engine and pushed to the node's registry, where the node pulls it as any cluster would.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalCluster } from '../../workbench/local-cluster.ts';
import { nodeBinaries, nodeDirs } from '../../workbench/node/node.ts';
import { imageUnderTest } from '../image/docker.ts';
import { cachedBuild } from '../../workbench/cache-dir.ts';

// kubeconfigPath, controlPlaneBin, nodeBin and registry are declared with the node suite's setup.
declare module 'vitest' {
  export interface ProvidedContext {
    /** Berth's image in the node's registry, pinned by digest: <registry>/berth/berth@sha256:... */
    berthImage: string;
    helmBin: string;
    /** The node's containerd socket: a test kills a container there as a crash would. */
    containerdSocket: string;
  }
}

export default async function setup(project: TestProject) {
  // No image can be pulled here: testcontainers' reaper (an image from a registry) stays off. The
  // config's test.env reaches the test files only, not this setup.
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-helm-'));
  const log = (message: string) => console.error(`[helm] ${message}`);
  const helmBin = join(cachedBuild('tools'), 'helm');
  const image = await imageUnderTest();
  log(`image ${image.tag} from ${image.base}: ${(image.sizeBytes / 1e6).toFixed(0)} MB`);
  const cluster = await startLocalCluster({ dataDir, ephemeral: true, node: 'required', forwardDns: false, log });
  try {
    const nodeBin = nodeBinaries();
    project.provide('berthImage', pushFromDocker(join(nodeBin, 'crane'), image.tag, `${cluster.node!.registry}/berth/berth:test`, dataDir));
    project.provide('kubeconfigPath', cluster.controlPlane.kubeconfigPath);
    project.provide('controlPlaneBin', cluster.controlPlane.binDir);
    project.provide('nodeBin', nodeBin);
    project.provide('registry', cluster.node!.registry);
    project.provide('helmBin', helmBin);
    project.provide('containerdSocket', nodeDirs(dataDir).containerdSocket);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return async () => {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}

/** `docker save`, then crane pushes the archive; returns the reference pinned by digest. */
function pushFromDocker(crane: string, tag: string, reference: string, scratch: string): string {
  const archive = join(scratch, 'berth-image.tar');
  execFileSync('docker', ['save', '-o', archive, tag]);
  execFileSync(crane, ['push', '--insecure', archive, reference], { stdio: ['ignore', 'ignore', 'inherit'] });
  rmSync(archive);
  const digest = execFileSync(crane, ['digest', '--insecure', reference], { encoding: 'utf8' }).trim();
  return `${reference.replace(/:[^:/]+$/, '')}@${digest}`;
}
