// Public API of the effective config: what Triton reports for a model after load, and its JSON.
export { effectiveConfig } from './effectiveConfig.ts';
export { configJson } from './configJson.ts';
export { applySettings, effectiveModel, schedulingOf } from './nodeSettings.ts';
