// The reliability suite (npm run test:reliability): process kills, API server and etcd faults, leader
// failover, concurrent writers, fuzzing and security checks against the same real control plane as the
// default suite. Files run one at a time: each loads the 2-core machine on its own. Sizes come from
// BERTH_RELIABILITY_* variables (see RELIABILITY.md).
import { defineConfig } from 'vitest/config';
import { reporters } from './test/support/reporters.ts';

export default defineConfig({
  test: {
    reporters: reporters('reliability'),
    include: ['test/reliability/**/*.reliability.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
