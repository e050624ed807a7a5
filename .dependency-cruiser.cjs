// dependency-cruiser: the module graph's rules (`pnpm lint` runs `depcruise`).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules import each other one way: a cycle means something shared belongs in a lower module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'graph-below-importer',
      severity: 'error',
      comment: 'graph/ is the document model; the importer builds on it, so graph/ never imports the importer.',
      from: { path: '^packages/core/src/graph/' },
      to: { path: '^packages/core/src/importer/' },
    },
    {
      name: 'core-is-pure',
      severity: 'error',
      comment: 'packages/core runs in the browser and on the server: no Node built-ins, frameworks or server libraries.',
      from: { path: '^packages/core/src', pathNot: '\\.test\\.ts$' },
      to: {
        dependencyTypesNot: ['type-only'],
        path: '^(node:|react|react-dom|@xyflow/|zustand|express|ws$|onnxruntime-|@grpc/)',
      },
    },
    {
      name: 'core-imports-no-node-builtins',
      severity: 'error',
      comment: 'packages/core runs in the browser too.',
      from: { path: '^packages/core/src', pathNot: '\\.test\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-imports-no-app',
      severity: 'error',
      from: { path: '^packages/core' },
      to: { path: '^apps/' },
    },
    {
      name: 'web-does-not-import-server',
      severity: 'error',
      comment: 'apps/web talks to the server over HTTP and WebSocket; shared types live in packages/core.',
      from: { path: '^apps/web' },
      to: { path: '^apps/server' },
    },
    {
      name: 'server-does-not-import-web',
      severity: 'error',
      from: { path: '^apps/server' },
      to: { path: '^apps/web' },
    },
    {
      name: 'testing-only-from-tests',
      severity: 'error',
      comment: 'testing/ folders hold test scaffolding: only tests, the bench and other test scaffolding import them.',
      from: {
        path: '^(packages|apps)/',
        pathNot: ['\\.(test|spec|stress)\\.tsx?$', '/testing/', '^apps/server/bench/'],
      },
      to: { path: '/testing/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing fails at run time.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.tsbuild|examples|test/fixtures/generated)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
