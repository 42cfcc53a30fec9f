// The local cluster of the tests and `berth dev`: the embedded control plane, and a real node beside it
// where the machine allows one. Starts the parts in the order they depend on each other (the host
// first: the API server listens on the node's address) and stops them in reverse, undoing every host
// change last.
import { controlPlaneBinaries, startControlPlane, type ControlPlane } from './controlplane.ts';
import {
  gatewayBinaries,
  networkPolicyBinaries,
  metricsBinaries,
  kedaBinaries,
  metricsStoreBinaries,
  httpAddOnBinaries,
  certManagerBinaries,
  nodeBinaries,
  NodePrerequisitesError,
  prepareNodeHost,
  releaseNodeHost,
  startNode,
  type LocalNode,
} from './node/node.ts';

export interface LocalClusterOptions {
  dataDir: string;
  ephemeral?: boolean;
  /** `required`: fail when the machine cannot run a node; `auto`: run without one and say why;
   * `none`: the control plane only. */
  node: 'required' | 'auto' | 'none';
  /** Cluster DNS forwards other names to the host's resolver (`berth dev`); tests keep every query local. */
  forwardDns: boolean;
  log?: (message: string) => void;
}

export interface LocalCluster {
  controlPlane: ControlPlane;
  /** Absent when the machine cannot run a node (`auto`); `withoutNode` says why. */
  node?: LocalNode;
  withoutNode?: string;
  stop(): Promise<void>;
}

export async function startLocalCluster(options: LocalClusterOptions): Promise<LocalCluster> {
  const log = options.log ?? (() => {});
  const kubeBin = controlPlaneBinaries(log);
  if (options.node === 'none') {
    const controlPlane = await startControlPlane({ dataDir: options.dataDir, ephemeral: options.ephemeral, log });
    return { controlPlane, withoutNode: 'no node asked for', stop: () => controlPlane.stop() };
  }
  try {
    await prepareNodeHost(options.dataDir, { masquerade: options.forwardDns, keepVolumes: !options.ephemeral, kubeBin, log });
  } catch (error) {
    if (options.node === 'auto' && error instanceof NodePrerequisitesError) {
      log(`${error.message}; running the control plane only (Pods will not run)`);
      const controlPlane = await startControlPlane({ dataDir: options.dataDir, ephemeral: options.ephemeral, log });
      return { controlPlane, withoutNode: error.message, stop: () => controlPlane.stop() };
    }
    throw error;
  }
  let controlPlane: ControlPlane | undefined;
  let node: LocalNode | undefined;
  const stop = async () => {
    await node?.stop();
    await controlPlane?.stop();
    await releaseNodeHost(kubeBin);
  };
  try {
    log('locating the node binaries (built once, then cached)');
    const binaries = {
      kube: kubeBin,
      node: nodeBinaries(),
      gateway: gatewayBinaries(),
      networkPolicy: networkPolicyBinaries(),
      metrics: metricsBinaries(),
      certManager: certManagerBinaries(),
      keda: kedaBinaries(),
      metricsStore: metricsStoreBinaries(),
      httpAddOn: httpAddOnBinaries(),
    };
    controlPlane = await startControlPlane({ dataDir: options.dataDir, ephemeral: options.ephemeral, forNode: true, log });
    node = await startNode({ dataDir: options.dataDir, controlPlane, binaries, forwardDns: options.forwardDns, log });
    return { controlPlane, node, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
