// ESLint flat config: typescript-eslint with type information (for no-floating-promises), and the
// layering rules of docs/ARCHITECTURE.md enforced by no-restricted-imports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noVscode = { name: 'vscode', message: 'src/core and src/emulator never import vscode (docs/ARCHITECTURE.md, "Invariants").' };
const noAzurite = {
  regex: '^azurite(/|$)',
  message: 'Only src/emulator/azurite.ts imports azurite: go through the adapter.',
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.vscode-test/**', 'src/emulator/stubs/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/emulator/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noVscode], patterns: [noAzurite] }] },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/core/**', 'src/emulator/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noAzurite] }] },
  },
  {
    files: ['src/emulator/azurite.ts', 'src/emulator/azurite.d.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noVscode] }] },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.cjs', 'test/fixtures/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', fetch: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortSignal: 'readonly', Buffer: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', performance: 'readonly', document: 'readonly', window: 'readonly', getComputedStyle: 'readonly' } },
  },
);
