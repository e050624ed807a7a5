import { encodeModel, ONNX_TYPES, type Initializer, type OnnxNode } from './onnxModel.ts';

/** Sizes of the synthetic models (the `shared-features` example). */
export const SYNTHETIC = {
  /** extractor: x [-1, D] → feat [-1, F]. */
  D: 64,
  F: 256,
  /** head: feat [-1, F] → HIDDEN (×LAYERS, Relu) → logits [-1, C]. Sized so one call of batch 32 takes several ms. */
  HIDDEN: 1024,
  LAYERS: 4,
  C: 16,
  /** accumulator: x [-1, S], state [-1, S]. */
  S: 8,
  SEED: 20240601,
} as const;

/** A deterministic PRNG (mulberry32) returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Weights uniform in ±1/sqrt(rows) so activations stay O(1), deterministic for a seed. */
export function syntheticWeights(rows: number, cols: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const scale = 1 / Math.sqrt(rows);
  const w = new Float32Array(rows * cols);
  for (let i = 0; i < w.length; i++) w[i] = (rand() * 2 - 1) * scale;
  return w;
}

function weight(name: string, rows: number, cols: number, seed: number): Initializer {
  return { name, dims: [rows, cols], data: syntheticWeights(rows, cols, seed) };
}

/** extractor: FP32 x [-1, D] → MatMul + Relu → feat [-1, F]. */
export function buildExtractor(): Uint8Array {
  const { D, F, SEED } = SYNTHETIC;
  return encodeModel({
    name: 'extractor',
    nodes: [
      { opType: 'MatMul', inputs: ['x', 'w'], outputs: ['h'] },
      { opType: 'Relu', inputs: ['h'], outputs: ['feat'] },
    ],
    inputs: [{ name: 'x', elemType: ONNX_TYPES.FLOAT, dims: ['batch', D] }],
    outputs: [{ name: 'feat', elemType: ONNX_TYPES.FLOAT, dims: ['batch', F] }],
    initializers: [weight('w', D, F, SEED)],
  });
}

/** The weights of the head's layers, in order (shared with tests computing the reference). */
export function headWeights(seed: number = SYNTHETIC.SEED): { rows: number; cols: number; data: Float32Array }[] {
  const { F, HIDDEN, LAYERS, C } = SYNTHETIC;
  const out: { rows: number; cols: number; data: Float32Array }[] = [];
  let rows: number = F;
  for (let l = 0; l < LAYERS; l++) {
    out.push({ rows, cols: HIDDEN, data: syntheticWeights(rows, HIDDEN, seed + 1 + l) });
    rows = HIDDEN;
  }
  out.push({ rows, cols: C, data: syntheticWeights(rows, C, seed + 100) });
  return out;
}

/** head: feat [-1, F] → LAYERS × (MatMul + Relu) → MatMul → logits [-1, C]; `seed` makes distinct heads. */
export function buildHead(seed: number = SYNTHETIC.SEED): Uint8Array {
  const { F, C } = SYNTHETIC;
  const ws = headWeights(seed);
  const nodes: OnnxNode[] = [];
  const initializers: Initializer[] = [];
  let cur = 'feat';
  ws.forEach((w, i) => {
    initializers.push({ name: `w${i}`, dims: [w.rows, w.cols], data: w.data });
    const last = i === ws.length - 1;
    const mm = last ? 'logits' : `m${i}`;
    nodes.push({ opType: 'MatMul', inputs: [cur, `w${i}`], outputs: [mm] });
    if (!last) {
      nodes.push({ opType: 'Relu', inputs: [mm], outputs: [`r${i}`] });
      cur = `r${i}`;
    }
  });
  return encodeModel({
    name: 'head',
    nodes,
    inputs: [{ name: 'feat', elemType: ONNX_TYPES.FLOAT, dims: ['batch', F] }],
    outputs: [{ name: 'logits', elemType: ONNX_TYPES.FLOAT, dims: ['batch', C] }],
    initializers,
  });
}

/** accumulator (batch-first stateful): x [-1, S], state_in [-1, S] → y = x + state_in, state_out = y. */
export function buildAccumulator(): Uint8Array {
  const { S } = SYNTHETIC;
  return encodeModel({
    name: 'accumulator',
    nodes: [
      { opType: 'Add', inputs: ['x', 'state_in'], outputs: ['y'] },
      { opType: 'Identity', inputs: ['y'], outputs: ['state_out'] },
    ],
    inputs: [
      { name: 'x', elemType: ONNX_TYPES.FLOAT, dims: ['batch', S] },
      { name: 'state_in', elemType: ONNX_TYPES.FLOAT, dims: ['batch', S] },
    ],
    outputs: [
      { name: 'y', elemType: ONNX_TYPES.FLOAT, dims: ['batch', S] },
      { name: 'state_out', elemType: ONNX_TYPES.FLOAT, dims: ['batch', S] },
    ],
    initializers: [],
  });
}

/**
 * The synthetic ONNX models of the `shared-features` example, keyed by model name, with
 * deterministic weights (seeded PRNG): same bytes on every call.
 * @example writeFileSync('extractor/1/model.onnx', buildSyntheticModels().extractor!)
 */
export function buildSyntheticModels(): Record<string, Uint8Array> {
  return {
    extractor: buildExtractor(),
    head: buildHead(),
    head_b: buildHead(SYNTHETIC.SEED + 7),
    accumulator: buildAccumulator(),
  };
}
