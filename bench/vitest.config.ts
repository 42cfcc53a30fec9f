// The benchmark's own unit tests (pure helpers only; no control plane, no timing):
//   npx vitest run --config bench/vitest.config.ts
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/**/*.test.ts'],
    root: `${import.meta.dirname}/..`,
  },
});
