// The node's life cycle (part of npm run test:node, run after the shared-node suite): `berth dev`
// starting a node, a crash and the clean-up after it, and a stop that restores the host. Each test
// starts its own node, so the files run one at a time and never beside the shared node.
import { defineConfig } from 'vitest/config';
import { reporters } from './test/support/reporters.ts';

export default defineConfig({
  test: {
    reporters: reporters('node-lifecycle'),
    include: ['test/node-lifecycle/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
