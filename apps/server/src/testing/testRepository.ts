import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildAccumulator, buildExtractor, buildHead } from '../onnx/synthetic.ts';
import { tempDir } from './tempDir.ts';

/**
 * A small repository on disk for tests (real ONNX models, no npm downloads):
 * - `extractor`: ONNX with no config.pbtxt (signature from onnxruntime: x [-1,64] → feat [-1,256]);
 * - `head`: ONNX with a config (max_batch_size 8, dynamic batching): feat [256] → logits [16];
 * - `pipe`: an ensemble config (no studio.json) x → extractor → head → logits;
 * - `bad`: a config with a syntax error; `ghost`: an ONNX config whose model file is missing;
 * - `acc`: a stateful (sequence-batched, implicit state) accumulator: y = x + previous y, x/y [8];
 * - version dirs starting with 0 are ignored.
 * It is a `tempDir`: removed when the test (or, made outside a test, the file) that made it finishes.
 * @example const dir = makeTestRepository(); const repo = await loadRepository(dir)
 */
export function makeTestRepository(): string {
  const dir = tempDir('studio-repo-');
  const file = (p: string, data: string | Uint8Array) => {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), data);
  };
  file('extractor/1/model.onnx', buildExtractor());
  file('extractor/0/model.onnx', 'not a model: version dirs starting with 0 are ignored');
  file('head/1/model.onnx', buildHead());
  file(
    'head/config.pbtxt',
    `name: "head"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "feat" data_type: TYPE_FP32 dims: [ 256 ] } ]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ 16 ] } ]
dynamic_batching { max_queue_delay_microseconds: 100 }
some_future_field: 7
`,
  );
  file('pipe/1/.gitkeep', '');
  file(
    'pipe/config.pbtxt',
    `name: "pipe"
platform: "ensemble"
max_batch_size: 0
input [ { name: "x" data_type: TYPE_FP32 dims: [ -1, 64 ] } ]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ -1, 16 ] } ]
ensemble_scheduling {
  step [
    { model_name: "extractor" model_version: -1 input_map { key: "x" value: "x" } output_map { key: "feat" value: "feat" } },
    { model_name: "head" model_version: -1 input_map { key: "feat" value: "feat" } output_map { key: "logits" value: "logits" } }
  ]
}
`,
  );
  file('bad/1/model.onnx', buildHead());
  file(
    'bad/config.pbtxt',
    'name: "bad"\nplatform: "onnxruntime_onnx"\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] \n',
  );
  file('ghost/1/.gitkeep', '');
  file(
    'ghost/config.pbtxt',
    'name: "ghost"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n',
  );
  file('acc/1/model.onnx', buildAccumulator());
  file(
    'acc/config.pbtxt',
    `name: "acc"
platform: "onnxruntime_onnx"
max_batch_size: 4
input [ { name: "x" data_type: TYPE_FP32 dims: [ 8 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 8 ] } ]
sequence_batching {
  max_sequence_idle_microseconds: 5000000
  direct { }
  state [ { input_name: "state_in" output_name: "state_out" data_type: TYPE_FP32 dims: [ 8 ]
    initial_state [ { data_type: TYPE_FP32 dims: [ 8 ] zero_data: true name: "zeros" } ] } ]
}
`,
  );
  mkdirSync(join(dir, '.hidden'));
  return dir;
}
