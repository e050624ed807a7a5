// Public API of the Triton text format (protobuf text format for ModelConfig) and Triton's config rules.
export * from './modelConfig.ts';
export type { PbtxtError } from './lexer.ts';
export { parsePbtxt, parsePbtxtLenient, type PbtxtResult } from './parser.ts';
export { printPbtxt } from './printer.ts';
export { validateModelConfig, type ValidateModelOptions } from './validateModelConfig.ts';
export { validateEnsembleConfigs, isEnsembleDecoupled } from './validateEnsembleConfigs.ts';
export { normalizeConfig, autoCompleteBackend, type NormalizeOptions, type BackendFields } from './normalizeConfig.ts';
