// The only entry point of @ensemble-studio/core. Pure TypeScript: no DOM, no Node APIs, no React.
export * from './tensor/dtype.ts';
export * from './tensor/tensor.ts';
export * from './pbtxt/modelConfig.ts';
export * from './catalogue/types.ts';
export * from './graph/types.ts';
export * from './kinds/params.ts';
export * from './kinds/registry.ts';
export * from './ops/defs.ts';
export * from './validate/diagnostic.ts';
export * from './compile/types.ts';
export * from './protocol/messages.ts';
export * from './protocol/validateMessage.ts';
export * from './expr/index.ts';
export * from './pbtxt/index.ts';
