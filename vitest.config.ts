// The default suite (npm test), in two projects: `unit` (tests beside the code, no cluster) and
// `integration` (test/: a real kube-apiserver and etcd, started once per run by the global setup,
// only when a test of this project runs).
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { reporters } from './test/support/reporters.ts';

export default defineConfig({
  test: {
    reporters: reporters('npm-test'),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // At least two files at once, even on two cores (vitest's default there is one): much of a file's
    // time is its imports and the API server's answers, so two overlap well (4.6 to 3.9 minutes).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The runtime's own lines (reconnects, lease hand-overs, retried reconciles) are expected here and
    // would bury the runner's output: tests log nothing unless BERTH_TEST_LOG_LEVEL asks. Tests that
    // check log lines give their logger a level and a sink of their own; Berth processes they start log
    // at Berth's default level (test/support/berth-process.ts).
    env: { BERTH_LOG_LEVEL: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['src/**/*.test.ts', 'workbench/**/*.test.ts', 'bench/**/*.test.ts', 'scripts/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/image/**', 'test/helm/**', 'test/node/**', 'test/node-lifecycle/**', 'node_modules/**'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
