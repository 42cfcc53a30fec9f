// The node suite (npm run test:node): real pods on a real node (containerd, kubelet, kube-proxy,
// CoreDNS, a registry) beside the control plane. Needs root; see the README. Files share one node.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/node/**/*.test.ts'],
    globalSetup: ['test/node/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
