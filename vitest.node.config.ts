// The node suite (npm run test:node): real pods on a real node (containerd, kubelet, kube-proxy,
// CoreDNS, a registry) beside the control plane. Needs root; see the README. Files share one node; they
// start once its core runs, those that need least first, each once the parts it needs run
// (test/node/file-needs.ts), one at a time beside the agent server's, two at a time once it has ended.
import { defineConfig } from 'vitest/config';
import { reporters } from './test/support/reporters.ts';
import { scaleDownWindowSeconds } from './test/node/scale-down-window.ts';
import { NeedsSequencer } from './test/node/sequencer.ts';
import { nodeBuildBlockedCidrs } from './workbench/node/network.ts';

export default defineConfig({
  test: {
    reporters: reporters('node'),
    include: ['test/node/**/*.test.ts'],
    globalSetup: ['test/node/global-setup.ts'],
    setupFiles: ['test/node/await-needs.ts'],
    sequence: { sequencer: NeedsSequencer },
    // Every Berth a file starts lets load stay low a short window (test/node/scale-down-window.ts), not
    // the default 60 s, before its autoscalers take replicas away: a scale-in is proved the same.
    // And every Berth keeps builds from the node's pod network, as `berth dev` does: all of them keep the
    // one build namespace's NetworkPolicy, and a file's Berth that says otherwise would open it for
    // the builds of the file beside.
    env: {
      BERTH_SCALE_DOWN_WINDOW_SECONDS: String(scaleDownWindowSeconds),
      BERTH_BUILD_BLOCKED_CIDRS: nodeBuildBlockedCidrs.join(','),
      // The node serves CloudNativePG, where Berth's default (auto) makes each database a Cluster: the
      // files keep the StatefulSet, the engine of clusters without CloudNativePG, whose Postgres starts
      // in seconds; postgres-operator.test.ts proves auto on CloudNativePG.
      BERTH_DATABASE_ENGINE: 'statefulset',
    },
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Two files at once: the agent server's long chain, which mostly waits (builds, rollouts, idle
    // windows, TTLs), beside the others, which take turns; once it has ended, two of theirs
    // (test/node/locks.ts).
    maxWorkers: 2,
  },
});
