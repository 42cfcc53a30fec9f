// The node suite (npm run test:node): real pods on a real node (containerd, kubelet, kube-proxy,
// CoreDNS, a registry) beside the control plane. Needs root; see the README. Files share one node.
import { defineConfig } from 'vitest/config';
import { reporters } from './test/support/reporters.ts';

export default defineConfig({
  test: {
    reporters: reporters('node'),
    include: ['test/node/**/*.test.ts'],
    globalSetup: ['test/node/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
