// Public API of the Triton text format (protobuf text format for ModelConfig) and Triton's config rules.
export * from './modelConfig.ts';
export { parsePbtxt, parsePbtxtLenient } from './parser.ts';
export { printPbtxt } from './printer.ts';
export { validateModelConfig } from './validateModelConfig.ts';
export { validateEnsembleConfigs } from './validateEnsembleConfigs.ts';
export { normalizeConfig } from './normalizeConfig.ts';
