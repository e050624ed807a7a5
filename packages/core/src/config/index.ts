// Public API of the effective config: what Triton reports for a model after load, and its JSON.
export { effectiveConfig, SEQUENCE_IDLE_DEFAULT_MICROSECONDS, type EffectiveConfigOptions } from './effectiveConfig.ts';
export { configJson } from './configJson.ts';
export {
  applySettings,
  effectiveModel,
  sameSettings,
  schedulingOf,
  type EffectiveModel,
  type ModelScheduling,
} from './nodeSettings.ts';
