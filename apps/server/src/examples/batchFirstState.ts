import { encodeNode, encodeValueInfo, ONNX_TYPES } from '../onnx/onnxModel.ts';
import { valueInfoName } from './foldConstantInput.ts';
import { concat, lengthField, readFields, stringField, type WireField } from '../onnx/protobufWire.ts';

// ONNX field numbers (onnx.proto3).
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INPUT = 11;
const GRAPH_OUTPUT = 12;
const GRAPH_VALUE_INFO = 13;
const NODE_INPUT = 1;
const NODE_OUTPUT = 2;
const NODE_ATTRIBUTE = 5;
const ATTR_G = 6;
const ATTR_GRAPHS = 11;
const VALUE_INFO_NAME = 1;

const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** Renames tensor names in a node, and in the subgraphs of its If/Loop/Scan attributes. */
function renameNode(node: Uint8Array, names: Map<string, string>): Uint8Array {
  return concat(
    readFields(node).map((f) => {
      if ((f.field === NODE_INPUT || f.field === NODE_OUTPUT) && f.payload) {
        const to = names.get(decode(f.payload));
        return to === undefined ? f.raw : stringField(f.field, to);
      }
      if (f.field === NODE_ATTRIBUTE && f.payload)
        return lengthField(NODE_ATTRIBUTE, renameAttribute(f.payload, names));
      return f.raw;
    }),
  );
}

function renameAttribute(attr: Uint8Array, names: Map<string, string>): Uint8Array {
  return concat(
    readFields(attr).map((f) =>
      (f.field === ATTR_G || f.field === ATTR_GRAPHS) && f.payload
        ? lengthField(f.field, renameGraph(readFields(f.payload), names))
        : f.raw,
    ),
  );
}

/** Renames every node input/output and value_info named in `names`; graph inputs/outputs are left to the caller. */
function renameGraph(fields: WireField[], names: Map<string, string>): Uint8Array {
  return concat(
    fields.map((f) => {
      if (f.field === GRAPH_NODE && f.payload) return lengthField(GRAPH_NODE, renameNode(f.payload, names));
      if (f.field === GRAPH_VALUE_INFO && f.payload) {
        const name = valueInfoName(f.payload);
        const to = name === undefined ? undefined : names.get(name);
        if (to !== undefined)
          return lengthField(
            GRAPH_VALUE_INFO,
            concat([
              stringField(VALUE_INFO_NAME, to),
              ...readFields(f.payload)
                .filter((x) => x.field !== VALUE_INFO_NAME)
                .map((x) => x.raw),
            ]),
          );
      }
      return f.raw;
    }),
  );
}

/** A FLOAT tensor value_info of shape [batch, ...dims]. */
function floatValueInfo(name: string, dims: number[]): Uint8Array {
  return encodeValueInfo({ name, elemType: ONNX_TYPES.FLOAT, dims: ['batch', ...dims] });
}

/** A Transpose node swapping the first two axes of a rank-3 tensor. */
function swapFirstAxes(name: string, input: string, output: string): Uint8Array {
  return encodeNode({
    opType: 'Transpose',
    name,
    inputs: [input],
    outputs: [output],
    attributes: [{ name: 'perm', ints: [1, 0, 2] }],
  });
}

/**
 * Rewrites a recurrent ONNX model whose FP32 state is batch-second ([L, B, H], like Silero VAD's
 * `state` [2, B, 128]) so that the state input and output are batch-first ([B, L, H]) under the same
 * names: a Transpose after the state input and one before the state output. Triton can batch a
 * stateful model only when its implicit state has the batch dimension first, so this is
 * what lets `vad` set max_batch_size > 0 and run many streams per inference. Results are unchanged:
 * the transposes only move numbers.
 * @example batchFirstState(bytes, { input: 'state', output: 'stateN', dims: [2, 128] })
 */
export function batchFirstState(
  model: Uint8Array,
  state: { input: string; output: string; dims: [number, number] },
): Uint8Array {
  const inner = { input: `${state.input}__batch_second`, output: `${state.output}__batch_second` };
  const names = new Map([
    [state.input, inner.input],
    [state.output, inner.output],
  ]);
  const [l, h] = state.dims;
  let found = 0;
  const parts = readFields(model).map((f) => {
    if (f.field !== MODEL_GRAPH || !f.payload) return f.raw;
    const graph = readFields(f.payload);
    const io: Uint8Array[] = [];
    const rest: WireField[] = [];
    for (const g of graph) {
      const name =
        (g.field === GRAPH_INPUT || g.field === GRAPH_OUTPUT) && g.payload ? valueInfoName(g.payload) : undefined;
      if (g.field === GRAPH_INPUT && name === state.input) {
        found++;
        io.push(lengthField(GRAPH_INPUT, floatValueInfo(state.input, [l, h])));
      } else if (g.field === GRAPH_OUTPUT && name === state.output) {
        found++;
        io.push(lengthField(GRAPH_OUTPUT, floatValueInfo(state.output, [l, h])));
      } else rest.push(g);
    }
    // Nodes must stay topologically sorted: the input transpose goes first, the output one last.
    const body = renameGraph(rest, names);
    return lengthField(
      MODEL_GRAPH,
      concat([
        lengthField(GRAPH_NODE, swapFirstAxes(`${state.input}_to_batch_second`, state.input, inner.input)),
        body,
        lengthField(GRAPH_NODE, swapFirstAxes(`${state.output}_to_batch_first`, inner.output, state.output)),
        ...io,
      ]),
    );
  });
  if (found !== 2)
    throw new Error(`the model needs a graph input '${state.input}' and a graph output '${state.output}'`);
  return concat(parts);
}
