// @ts-check
// ESLint for the whole workspace (`pnpm lint` runs it with --max-warnings 0).
// Not type-aware on purpose: typescript-eslint's type-checked rules cost ~45 s of CPU on this tree (two minutes of
// wall time on the shared 2-core machine); `tsc -b` already runs in CI and catches what types can catch.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Files that only tests, the bench and the e2e harness run; they may import `testing/` helpers and Node. */
const testFiles = [
  '**/*.test.ts',
  '**/*.test.tsx',
  '**/*.spec.ts',
  '**/*.stress.ts',
  '**/testing/**',
  'test/**',
  'apps/server/bench/**',
];

const boundaries = {
  testing: {
    group: ['**/testing/**', '**/testing'],
    message: 'testing/ holds test scaffolding: only tests and the bench import it.',
  },
  // Bare built-in names (`fs`, `fs/promises`) are matched exactly: as patterns they would also match `./inspector/x`.
  node: {
    group: ['node:*'],
    paths: builtinModules,
    message: 'Node APIs belong to apps/server; this package runs without Node.',
  },
  frameworks: {
    group: ['react', 'react-dom', 'react/*', 'react-dom/*', '@xyflow/*', 'zustand', 'zustand/*'],
    message: 'UI frameworks belong to apps/web.',
  },
  serverLibraries: {
    group: ['express', 'ws', 'onnxruntime-*', '@grpc/*'],
    message: 'server libraries belong to apps/server.',
  },
  server: {
    group: ['@ensemble-studio/server', '@ensemble-studio/server/*', '**/apps/server/**', '**/server/src/**'],
    message: 'apps/web talks to the server over HTTP and WebSocket only; shared types live in @ensemble-studio/core.',
  },
  web: {
    group: ['@ensemble-studio/web', '@ensemble-studio/web/*', '**/apps/web/**', '**/web/src/**'],
    message: 'apps/server does not import the web app; shared code lives in @ensemble-studio/core.',
  },
  apps: {
    group: ['@ensemble-studio/server', '@ensemble-studio/web', '**/apps/**'],
    message: 'packages/core depends on nothing in the workspace.',
  },
};

/** One `no-restricted-imports` rule from the named boundaries (a later config replaces the whole rule, so each area lists all of its own). */
function restrict(...names) {
  return {
    'no-restricted-imports': [
      'error',
      {
        paths: names.flatMap((n) =>
          (boundaries[n].paths ?? []).map((name) => ({ name, message: boundaries[n].message })),
        ),
        patterns: names.map((n) => ({ group: boundaries[n].group, message: boundaries[n].message })),
      },
    ],
  };
}

// Type names that would hide a global of the language or of TypeScript's lib (`interface Partial` hides Partial<T>).
const tsLibTypes = [
  'Partial',
  'Required',
  'Readonly',
  'Record',
  'Pick',
  'Omit',
  'Exclude',
  'Extract',
  'NonNullable',
  'Parameters',
  'ConstructorParameters',
  'ReturnType',
  'InstanceType',
  'Awaited',
  'NoInfer',
  'ThisType',
  'Uppercase',
  'Lowercase',
  'Capitalize',
  'Uncapitalize',
  'PropertyKey',
  'PropertyDescriptor',
  'ReadonlyArray',
  'ReadonlyMap',
  'ReadonlySet',
  'ArrayLike',
  'PromiseLike',
  'Iterable',
  'IterableIterator',
  'AsyncIterable',
  'AsyncIterator',
  'Generator',
  'AsyncGenerator',
  'TemplateStringsArray',
  'ArrayBufferLike',
  'ArrayBufferView',
];
const shadowedNames = [...Object.keys(globals.builtin).filter((n) => /^[A-Z]/.test(n)), ...tsLibTypes].join('|');
const noGlobalTypeNames = {
  'no-restricted-syntax': [
    'error',
    ...['TSInterfaceDeclaration', 'TSTypeAliasDeclaration', 'ClassDeclaration', 'TSEnumDeclaration'].map((node) => ({
      selector: `${node} > Identifier.id[name=/^(${shadowedNames})$/]`,
      message: 'This name hides a JavaScript/TypeScript global of the same name; name what it is instead.',
    })),
  ],
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.tsbuild/**',
      '.ci/out/**',
      'examples/**',
      'test/fixtures/generated/**',
      'test-results/**',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // The codebase marks intentionally unused bindings with a leading underscore (`{ dropped: _old, ...rest }`,
      // Express's four-argument error handler).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      ...noGlobalTypeNames,
    },
  },
  {
    // Tests hand deliberately malformed values to the validators of untrusted input and read untyped JSON and gRPC
    // replies; `any` is what those values are. Production code names its few `any`s (grpc/loadService.ts).
    files: testFiles,
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    // Screenshot and perf scripts: Node code whose page.evaluate callbacks run in the browser.
    files: ['apps/web/scripts/**'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },

  // Package boundaries (the README's architecture table). A later block replaces the rule of an earlier one for the
  // files both match, so test files get the looser set and everything else the full one.
  { files: ['packages/core/**/*.ts'], rules: restrict('frameworks', 'serverLibraries', 'apps') },
  {
    files: ['packages/core/**/*.ts'],
    ignores: testFiles,
    rules: restrict('testing', 'node', 'frameworks', 'serverLibraries', 'apps'),
  },
  { files: ['apps/web/**/*.{ts,tsx,js,mjs}'], rules: restrict('server') },
  { files: ['apps/web/src/**/*.{ts,tsx}'], ignores: testFiles, rules: restrict('testing', 'node', 'server') },
  { files: ['apps/server/**/*.{ts,js,mjs}'], rules: restrict('frameworks', 'web') },
  { files: ['apps/server/**/*.ts'], ignores: testFiles, rules: restrict('testing', 'frameworks', 'web') },
);
