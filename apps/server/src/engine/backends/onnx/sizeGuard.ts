import type * as ort from 'onnxruntime-node';
import { concat, lengthField, readFields, stringField, varintField } from '../../../onnx/protobufWire.ts';
import type { TensorLimits } from '../../types.ts';

// onnxruntime allocates (and fills) a tensor whose size an input's *values* choose before anything can look at it:
// a one-element input asking ConstantOfShape for 2^31 floats took 8 GB before the output check refused it. So the
// tensors that choose such sizes are read first: straight from the feeds when they are graph inputs, otherwise by a
// small model holding only the nodes that compute them (the shape arithmetic, not the model's work).

// ONNX field numbers (onnx.proto3).
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INITIALIZER = 5;
const GRAPH_SPARSE_INITIALIZER = 15;
const GRAPH_INPUT = 11;
const GRAPH_OUTPUT = 12;
const GRAPH_VALUE_INFO = 13;
const NODE_INPUT = 1;
const NODE_OUTPUT = 2;
const NODE_OP_TYPE = 4;
const TENSOR_NAME = 8;
const VALUE_INFO_NAME = 1;
const VALUE_INFO_TYPE = 2;
const TYPE_TENSOR = 1;
const TENSOR_TYPE_ELEM = 1;
const ONNX_INT64 = 7;

/** How many shapes' probe values a guard keeps (a model fed many shapes probes again after that). */
const SHAPES_KEPT = 256;

/** Ops whose output element count is the product of an INT64 input's values (at least), and which input that is. */
const SIZED_BY: Record<string, number> = { ConstantOfShape: 0, Expand: 1, Resize: 3 };

interface Sized {
  /** The tensor the op makes. */
  tensor: string;
  op: string;
  /** The INT64 tensor whose values choose its size. */
  by: string;
}

interface Node {
  op: string;
  inputs: string[];
  outputs: string[];
  raw: Uint8Array;
}

const text = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : '');
const nameOf = (message: Uint8Array, field: number) =>
  text(readFields(message).find((f) => f.field === field)?.payload);

function readNode(payload: Uint8Array, raw: Uint8Array): Node {
  const fields = readFields(payload);
  const strings = (n: number) => fields.filter((f) => f.field === n).map((f) => text(f.payload));
  return { op: strings(NODE_OP_TYPE)[0] ?? '', inputs: strings(NODE_INPUT), outputs: strings(NODE_OUTPUT), raw };
}

/** An output named `name` holding INT64 values (shape left to onnxruntime). */
function int64Output(name: string): Uint8Array {
  const tensorType = lengthField(TYPE_TENSOR, varintField(TENSOR_TYPE_ELEM, ONNX_INT64));
  return lengthField(
    GRAPH_OUTPUT,
    concat([stringField(VALUE_INFO_NAME, name), lengthField(VALUE_INFO_TYPE, tensorType)]),
  );
}

/**
 * The model `model` cut down to what computes `wanted` (the nodes they depend on, with the initializers those
 * read), with `wanted` as its outputs.
 */
function probeModel(model: Uint8Array, graph: Uint8Array, nodes: Node[], wanted: Set<string>): Uint8Array {
  const needed = new Set(wanted);
  const kept = new Set<Node>();
  for (const n of [...nodes].reverse()) {
    if (!n.outputs.some((o) => needed.has(o))) continue;
    kept.add(n);
    for (const i of n.inputs) needed.add(i);
  }
  const parts: Uint8Array[] = [];
  const initializers = new Set<string>();
  for (const f of readFields(graph)) {
    if (f.field === GRAPH_INITIALIZER && f.payload) {
      const name = nameOf(f.payload, TENSOR_NAME);
      initializers.add(name);
      if (needed.has(name)) parts.push(f.raw);
    } else if (f.field === GRAPH_INPUT && f.payload) {
      const name = nameOf(f.payload, VALUE_INFO_NAME);
      // Older models list their initializers as inputs too: one dropped above must not become a feed.
      if (!initializers.has(name) || needed.has(name)) parts.push(f.raw);
    } else if (![GRAPH_NODE, GRAPH_OUTPUT, GRAPH_VALUE_INFO, GRAPH_SPARSE_INITIALIZER].includes(f.field)) {
      parts.push(f.raw);
    }
  }
  for (const n of nodes) if (kept.has(n)) parts.push(n.raw);
  for (const w of wanted) parts.push(int64Output(w));
  const graphField = lengthField(MODEL_GRAPH, concat(parts));
  return concat(readFields(model).map((f) => (f.field === MODEL_GRAPH ? graphField : f.raw)));
}

/** Elements of `values` multiplied (0 for a negative one: onnxruntime refuses those itself). */
function product(t: ort.Tensor): number {
  let n = 1;
  for (const v of t.data as BigInt64Array) n *= v < 0n ? 0 : Number(v);
  return n;
}

/**
 * What refuses a run of one ONNX model before onnxruntime allocates a tensor over the server's limits whose size
 * the request's values choose. `check(feeds)` throws the refusal, naming the model and the tensor.
 * @example const guard = await SizeGuard.create(bytes, 'expand', limits, (b) => ort.InferenceSession.create(b));
 */
export class SizeGuard {
  private constructor(
    private readonly model: string,
    private readonly limits: TensorLimits,
    private readonly sized: Sized[],
    private readonly outputs: Set<string>,
    private readonly probe: ort.InferenceSession | undefined,
    /** When the probed sizes follow from the feeds' shapes alone, the probe's values by those shapes. */
    private readonly byShapes: Map<string, Record<string, ort.Tensor>> | undefined,
  ) {}

  /**
   * The guard of model `bytes`, or undefined when no size in it depends on a request (or it cannot be read: the
   * output check after the run still holds).
   */
  static async create(
    bytes: Uint8Array,
    model: string,
    limits: TensorLimits,
    createSession: (bytes: Uint8Array) => Promise<ort.InferenceSession>,
  ): Promise<SizeGuard | undefined> {
    const graph = readFields(bytes).find((f) => f.field === MODEL_GRAPH)?.payload;
    if (!graph) return undefined;
    const fields = readFields(graph);
    const nodes = fields.filter((f) => f.field === GRAPH_NODE && f.payload).map((f) => readNode(f.payload!, f.raw));
    const inputs = new Set(
      fields.filter((f) => f.field === GRAPH_INPUT && f.payload).map((f) => nameOf(f.payload!, VALUE_INFO_NAME)),
    );
    const constant = new Set(
      fields.filter((f) => f.field === GRAPH_INITIALIZER && f.payload).map((f) => nameOf(f.payload!, TENSOR_NAME)),
    );
    for (const c of constant) inputs.delete(c);
    // What the nodes make from constants alone is constant; what they make from a request's values (not only
    // from its shapes, through Shape or Size) depends on those values. Nodes are in topological order.
    const byValues = new Set(inputs);
    for (const n of nodes) {
      if (n.inputs.every((i) => i === '' || constant.has(i))) for (const o of n.outputs) constant.add(o);
      else if (n.op !== 'Shape' && n.op !== 'Size' && n.inputs.some((i) => byValues.has(i)))
        for (const o of n.outputs) byValues.add(o);
    }
    const sized = nodes.flatMap((n): Sized[] => {
      const by = SIZED_BY[n.op] === undefined ? '' : (n.inputs[SIZED_BY[n.op]!] ?? '');
      return by && !constant.has(by) && n.outputs[0] ? [{ tensor: n.outputs[0], op: n.op, by }] : [];
    });
    if (sized.length === 0) return undefined;
    const outputs = new Set(
      fields.filter((f) => f.field === GRAPH_OUTPUT && f.payload).map((f) => nameOf(f.payload!, VALUE_INFO_NAME)),
    );
    const computed = new Set(sized.map((s) => s.by).filter((b) => !inputs.has(b)));
    const probe = computed.size > 0 ? await createSession(probeModel(bytes, graph, nodes, computed)) : undefined;
    const shapesOnly = [...computed].every((c) => !byValues.has(c));
    return new SizeGuard(model, limits, sized, outputs, probe, shapesOnly ? new Map() : undefined);
  }

  /** The probe's values for these feeds: read again only when they can differ (by the feeds' values or shapes). */
  private async probed(feeds: Record<string, ort.Tensor>): Promise<Record<string, ort.Tensor>> {
    if (!this.probe) return {};
    if (!this.byShapes) return this.probe.run(feeds);
    const key = JSON.stringify(Object.entries(feeds).map(([k, t]) => [k, t.dims]));
    let values = this.byShapes.get(key);
    if (!values) {
      values = await this.probe.run(feeds);
      if (this.byShapes.size >= SHAPES_KEPT) this.byShapes.clear();
      this.byShapes.set(key, values);
    }
    return values;
  }

  /** Throws when a tensor these feeds would have the model make is over `maxTensorElements`. */
  async check(feeds: Record<string, ort.Tensor>): Promise<void> {
    const values: Record<string, ort.Tensor> = { ...feeds, ...(await this.probed(feeds)) };
    for (const s of this.sized) {
      const t = values[s.by];
      if (!t || t.type !== 'int64') continue;
      const count = product(t);
      if (count <= this.limits.maxTensorElements) continue;
      const what = this.outputs.has(s.tensor)
        ? `output '${s.tensor}' of model '${this.model}'`
        : `tensor '${s.tensor}' (${s.op}) of model '${this.model}'`;
      throw new Error(
        `${what} would have ${count} elements, over the limit maxTensorElements=${this.limits.maxTensorElements}; refused before it was made`,
      );
    }
  }
}
