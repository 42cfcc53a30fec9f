// The web console (src/console) built into static files: dist/console, served by Berth at /console/
// (src/facade/console.ts). No CDN, no inline script or style, no data: URLs, so the strict CSP holds.
import { join } from 'node:path';
import { defineConfig } from 'vite';

export default defineConfig({
  root: join(import.meta.dirname, 'src/console'),
  base: '/console/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: join(import.meta.dirname, 'dist/console'),
    emptyOutDir: true,
    target: 'es2023',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
});
