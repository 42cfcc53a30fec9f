import { join } from 'node:path';
import { includeIgnoreFile } from '@eslint/compat';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// One list of what is not the project's own code: .gitignore (node_modules, dist/, and .berth/, where
// `berth dev` keeps its cluster, container snapshots with JavaScript of their own among it). The
// generated files below are in git but are not lint's to read.
export default tseslint.config(
  includeIgnoreFile(join(import.meta.dirname, '.gitignore')),
  { ignores: ['crds/**', 'charts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // Functions short enough to read at once: the product's, not its tests' describe blocks.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  // The Deployment controller's rooms run in order within a pass: each imports only the rooms before
  // it (src/reconcilers/deployment/index.ts), so no room reaches into one that runs after it.
  ...deploymentRooms(['revisions', 'builds', 'rollout', 'status']),
  {
    // The web console runs in a browser: server code reaches it as types only, the key never leaves
    // sessionStorage for a cookie or localStorage, and no markup is written from strings. Its tests run
    // in Node, outside the bundle: they may check what the console sends against the API's own schemas.
    files: ['src/console/**/*.{ts,tsx}'],
    ignores: ['src/console/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/api/**', '**/facade/**', '**/runtime/**', 'zod', 'node:*', '@kubernetes/*', 'fastify', 'pino'],
              allowTypeImports: true,
              message: 'The console takes only types from the server: import type.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'process', 'Buffer', 'localStorage'],
      'no-restricted-properties': [
        'error',
        { object: 'document', property: 'cookie' },
        { object: 'window', property: 'localStorage' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Text only: no markup from strings.' },
      ],
    },
  },
);

/** A lint block per room of the Deployment controller that refuses imports of the rooms after it. */
function deploymentRooms(rooms) {
  return rooms.slice(0, -1).map((room, index) => ({
    files: [`src/reconcilers/deployment/${room}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: rooms.slice(index + 1).map((later) => ({
            group: [`../${later}/*`],
            message: `${room}/ runs before ${later}/ in a pass: it imports only the rooms before it.`,
          })),
        },
      ],
    },
  }));
}
