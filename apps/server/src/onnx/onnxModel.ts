import { ProtoWriter } from './protobuf.ts';

/** ONNX TensorProto.DataType numbers for the element types the synthetic models use. */
export const ONNX_TYPES = { FLOAT: 1, INT32: 6, INT64: 7, BOOL: 9 } as const;
export type OnnxElemType = (typeof ONNX_TYPES)[keyof typeof ONNX_TYPES];

/** A graph input/output: `dims` entries are a size, or a string for a symbolic (variable) dim. */
export interface ValueInfo {
  name: string;
  elemType: OnnxElemType;
  dims: (number | string)[];
}

/** A constant weight: FP32 `data` of `dims` (stored as raw little-endian bytes). */
export interface Initializer {
  name: string;
  dims: number[];
  data: Float32Array | BigInt64Array;
}

export type Attribute =
  { name: string; int: number } | { name: string; float: number } | { name: string; ints: number[] };

export interface OnnxNode {
  opType: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  attributes?: Attribute[];
}

export interface OnnxGraph {
  name: string;
  nodes: OnnxNode[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  initializers: Initializer[];
}

// AttributeProto.AttributeType
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_INTS = 7;

function writeValueInfo(w: ProtoWriter, v: ValueInfo): void {
  w.string(1, v.name);
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.varint(1, v.elemType);
      tensor.message(2, (shape) => {
        for (const d of v.dims) {
          shape.message(1, (dim) => (typeof d === 'number' ? dim.varint(1, d) : dim.string(2, d)));
        }
      });
    }),
  );
}

function writeInitializer(w: ProtoWriter, t: Initializer): void {
  for (const d of t.dims) w.varint(1, d);
  w.varint(2, t.data instanceof Float32Array ? ONNX_TYPES.FLOAT : ONNX_TYPES.INT64);
  w.string(8, t.name);
  // raw_data is little-endian; every platform Node runs on is little-endian.
  w.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
}

function writeAttribute(w: ProtoWriter, a: Attribute): void {
  w.string(1, a.name);
  if ('int' in a) w.varint(3, a.int).varint(20, ATTR_INT);
  else if ('float' in a) w.float(2, a.float).varint(20, ATTR_FLOAT);
  else w.packedVarints(8, a.ints).varint(20, ATTR_INTS);
}

function writeNode(w: ProtoWriter, n: OnnxNode, index: number): void {
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, n.name ?? `${n.opType.toLowerCase()}_${index}`);
  w.string(4, n.opType);
  for (const a of n.attributes ?? []) w.message(5, (attr) => writeAttribute(attr, a));
}

/** One NodeProto, serialised (for editing an existing model's graph). */
export function encodeNode(n: OnnxNode): Uint8Array {
  const w = new ProtoWriter();
  writeNode(w, n, 0);
  return w.finish();
}

/** One ValueInfoProto (a graph input or output), serialised. */
export function encodeValueInfo(v: ValueInfo): Uint8Array {
  const w = new ProtoWriter();
  writeValueInfo(w, v);
  return w.finish();
}

/**
 * Serialises a graph as an ONNX ModelProto (IR version 8, default-domain opset `opset`).
 * @example const bytes = encodeModel({ name: 'id', nodes: [{ opType: 'Identity', inputs: ['x'], outputs: ['y'] }], inputs: [x], outputs: [y], initializers: [] });
 */
export function encodeModel(graph: OnnxGraph, opset = 13): Uint8Array {
  const w = new ProtoWriter();
  w.varint(1, 8); // ir_version
  w.string(2, 'ensemble-studio');
  w.message(7, (g) => {
    graph.nodes.forEach((n, i) => g.message(1, (nw) => writeNode(nw, n, i)));
    g.string(2, graph.name);
    for (const t of graph.initializers) g.message(5, (tw) => writeInitializer(tw, t));
    for (const v of graph.inputs) g.message(11, (vw) => writeValueInfo(vw, v));
    for (const v of graph.outputs) g.message(12, (vw) => writeValueInfo(vw, v));
  });
  w.message(8, (op) => op.string(1, '').varint(2, opset));
  return w.finish();
}
