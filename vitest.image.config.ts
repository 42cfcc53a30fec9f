// The image suite (npm run test:image): builds Berth's image from the Dockerfile and checks the running
// container from outside against the same real control plane as the default suite. Needs a Docker
// engine (scripts/start-docker.sh); skips, saying so, when none answers.
import { defineConfig } from 'vitest/config';
import { reporters } from './test/support/reporters.ts';

export default defineConfig({
  test: {
    reporters: reporters('image'),
    include: ['test/image/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // No image can be pulled here, so testcontainers' reaper (an image from a registry) stays off; the
    // suite removes what it starts itself.
    env: { TESTCONTAINERS_RYUK_DISABLED: 'true' },
    testTimeout: 120_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
