// Triton configs → catalogue entries and graphs (`studio import`); the auto-layout is graph/layout.ts.
export { catalogueModelFromConfig } from './catalogueModel.ts';
export { graphFromEnsemble } from './graphFromEnsemble.ts';
