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
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
);
