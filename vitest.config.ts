// The default suite (npm test), in two projects: `unit` (tests beside the code, no cluster) and
// `integration` (test/: a real kube-apiserver and etcd, started once per run by the global setup,
// only when a test of this project runs).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts', 'bench/**/*.test.ts'] } },
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
