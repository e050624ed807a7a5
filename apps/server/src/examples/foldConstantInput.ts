import { concat, lengthField, readFields, stringField, varint, varintField } from '../onnx/protobufWire.ts';

// ONNX field numbers (onnx.proto3).
const MODEL_GRAPH = 7;
const GRAPH_INITIALIZER = 5;
const GRAPH_INPUT = 11;
const VALUE_INFO_NAME = 1;
const TENSOR_DATA_TYPE = 2;
const TENSOR_INT64_DATA = 7;
const TENSOR_NAME = 8;
const ONNX_INT64 = 7;

/**
 * Rewrites an ONNX model so that a scalar INT64 graph input becomes a constant initializer.
 * Triton cannot feed a scalar to a non-batching model (an empty `reshape` is refused when
 * max_batch_size is 0), so Silero VAD's `sr` input is folded to 16000 before the model is served —
 * what a Triton user would do with onnx tooling.
 * @example foldScalarInput(bytes, 'sr', 16000n)
 */
export function foldScalarInput(model: Uint8Array, inputName: string, value: bigint): Uint8Array {
  let found = false;
  const parts = readFields(model).map((f) => {
    if (f.field !== MODEL_GRAPH || !f.payload) return f.raw;
    const graphParts: Uint8Array[] = [];
    for (const g of readFields(f.payload)) {
      if (g.field === GRAPH_INPUT && g.payload && valueInfoName(g.payload) === inputName) {
        found = true;
        continue;
      }
      graphParts.push(g.raw);
    }
    const tensor = concat([
      varintField(TENSOR_DATA_TYPE, ONNX_INT64),
      lengthField(TENSOR_INT64_DATA, varint(value)),
      stringField(TENSOR_NAME, inputName),
    ]);
    graphParts.push(lengthField(GRAPH_INITIALIZER, tensor));
    return lengthField(MODEL_GRAPH, concat(graphParts));
  });
  if (!found) throw new Error(`the model has no graph input named '${inputName}'`);
  return concat(parts);
}

/** The name of a serialised ValueInfoProto. */
export function valueInfoName(valueInfo: Uint8Array): string | undefined {
  const name = readFields(valueInfo).find((f) => f.field === VALUE_INFO_NAME);
  return name?.payload ? new TextDecoder().decode(name.payload) : undefined;
}
