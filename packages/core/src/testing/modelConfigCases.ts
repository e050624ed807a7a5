import { expect, it } from 'vitest';
import type { ModelConfig } from '../pbtxt/modelConfig.ts';
import { validateModelConfig } from '../pbtxt/validateModelConfig.ts';

// Model configs for the tests of Triton's per-config rules (pbtxt/rules/*.test.ts): valid bases, patches of them,
// and the check every rule's table of cases goes through.

/** A valid ONNX model config: batching, one FP32 input `x` and output `y` of dims [3]. */
export const BASE: ModelConfig = {
  name: 'm',
  platform: 'onnxruntime_onnx',
  backend: 'onnxruntime',
  max_batch_size: 8,
  input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [3] }],
  output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [3] }],
};
/** {@link BASE} with `patch` applied. */
export const onnx = (patch: Partial<ModelConfig>): ModelConfig => ({ ...BASE, ...patch });
/** {@link BASE} whose input `x` has `patch` applied (and the config `extra`). */
export const withInput = (patch: Record<string, unknown>, extra: Partial<ModelConfig> = {}): ModelConfig =>
  onnx({ input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [3], ...patch }], ...extra });

/** A valid two-step ensemble config: IN → a → mid → b → OUT. */
export const ENSEMBLE: ModelConfig = {
  name: 'e',
  platform: 'ensemble',
  max_batch_size: 8,
  input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [3] }],
  output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [3] }],
  ensemble_scheduling: {
    step: [
      { model_name: 'a', model_version: -1, input_map: { x: 'IN' }, output_map: { y: 'mid' } },
      { model_name: 'b', model_version: 2, input_map: { x: 'mid' }, output_map: { y: 'OUT' } },
    ],
  },
};
/** {@link ENSEMBLE} with `patch` applied. */
export const ens = (patch: Partial<ModelConfig>): ModelConfig => ({ ...ENSEMBLE, ...patch });
/** An `ensemble_scheduling` of these steps. */
export const steps = (...s: Record<string, unknown>[]): Partial<ModelConfig> => ({
  ensemble_scheduling: { step: s as never },
});
/** An ensemble step running model `a` (latest version) with these maps. */
export const step = (
  input_map: Record<string, string>,
  output_map: Record<string, string>,
  extra: Record<string, unknown> = {},
) => ({ model_name: 'a', model_version: -1, input_map, output_map, ...extra });

/** {@link BASE} with this `sequence_batching`. */
export const seq = (sb: Record<string, unknown>, extra: Partial<ModelConfig> = {}): ModelConfig =>
  onnx({ sequence_batching: sb, ...extra });
/** A sequence control input. */
export const ctl = (name: string, control: Record<string, unknown>[]) => ({ name, control });
/** A valid START control. */
export const START_OK = { kind: 'CONTROL_SEQUENCE_START', int32_false_true: [0, 1] };
/** A sequence_batching with one implicit state (si → so, FP32 [-1, 4]) patched by `s`. */
export const state = (s: Record<string, unknown>) => ({
  state: [{ input_name: 'si', output_name: 'so', data_type: 'TYPE_FP32', dims: [-1, 4], ...s }],
});
/** {@link state} with one zero initial state patched by `i`. */
export const init = (i: Record<string, unknown>) =>
  state({ initial_state: [{ name: 'z', data_type: 'TYPE_FP32', dims: [1, 4], zero_data: true, ...i }] });

/** A rule's case: the diagnostic `code`, a config that triggers it, a close one that does not (`dirName`: the model's directory). */
export type ConfigCase = [code: string, bad: ModelConfig, good: ModelConfig, dirName?: string];

/**
 * Registers the tests of a table of cases: each code is reported for its bad config and not for its good one, and
 * every diagnostic a bad config gets has a message and a fix.
 * @example describe('sequence rules', () => checkConfigCases(CASES))
 */
export function checkConfigCases(cases: readonly ConfigCase[]): void {
  it.each(cases)('%s: triggered by the bad config, not by the good one', (code, bad, good, dirName) => {
    const codes = (c: ModelConfig) => validateModelConfig(c, dirName ? { dirName } : {}).map((d) => d.code);
    expect(codes(bad)).toContain(code);
    expect(codes(good)).not.toContain(code);
  });

  it('gives every diagnostic a message naming the model and a fix', () => {
    for (const [, bad] of cases) {
      for (const d of validateModelConfig(bad)) {
        expect(d.message.length).toBeGreaterThan(10);
        expect(d.fix?.length ?? 0).toBeGreaterThan(3);
      }
    }
  });
}
