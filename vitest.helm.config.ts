// The helm suite (npm run test:helm): charts/berth installed with helm onto a real node, Berth's image
// built from the Dockerfile by a Docker engine (scripts/start-docker.sh) and pulled by the node from
// its registry. Needs root and a Docker engine; one node per machine, as the node suite.
import { defineConfig } from 'vitest/config';
import { reporters } from './test/support/reporters.ts';

export default defineConfig({
  test: {
    reporters: reporters('helm'),
    include: ['test/helm/**/*.test.ts'],
    globalSetup: ['test/helm/global-setup.ts'],
    env: { TESTCONTAINERS_RYUK_DISABLED: 'true' },
    testTimeout: 300_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
