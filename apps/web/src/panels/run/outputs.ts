import type { TensorSummary, WireTensor } from '@ensemble-studio/core';
import type { RunState } from '../../store/types.ts';

type AnyTensor = Pick<TensorSummary, 'datatype' | 'shape' | 'data'> | WireTensor;
export interface NamedTensor {
  source: string;
  name: string;
  t: AnyTensor;
}

/** Every tensor the run produced so far with full data: final outputs first, then node outputs, then partials. */
export function runTensors(run: RunState): NamedTensor[] {
  const out: NamedTensor[] = [];
  for (const [name, t] of Object.entries(run.outputs)) if (t.data) out.push({ source: 'output', name, t });
  for (const [nodeId, n] of Object.entries(run.nodes)) {
    for (const [name, t] of Object.entries(n.outputs ?? {})) if (t.data) out.push({ source: nodeId, name, t });
  }
  for (const p of run.partials)
    for (const [name, t] of Object.entries(p.outputs))
      if (t.data) out.push({ source: `${p.nodeId}#${p.index}`, name, t });
  return out;
}

/** A box as its corners [x, y] in image pixels. */
export type BoxCorners = [number, number][];

const isBoxes = (t: NamedTensor['t']) =>
  t.datatype === 'FP32' &&
  ((t.shape.length === 3 && t.shape[1] === 4 && t.shape[2] === 2) || (t.shape.length === 2 && t.shape[1] === 4));

/**
 * Boxes from the earliest producer that has them, as corners: [N,4,2] (four corners, as
 * db_postprocess gives them) or [N,4] (x1,y1,x2,y2, axis-aligned). A tensor named like "box" wins.
 * @example findBoxes([{ source: 'db', name: 'boxes', t: { datatype: 'FP32', shape: [1, 4], data: [0, 0, 2, 1], ... } }]) // [[[0,0],[2,0],[2,1],[0,1]]]
 */
export function findBoxes(ts: NamedTensor[]): BoxCorners[] | null {
  const hit = ts.find((x) => isBoxes(x.t) && /box/i.test(x.name)) ?? ts.find((x) => isBoxes(x.t));
  if (!hit?.t.data) return null;
  const d = hit.t.data.map(Number);
  const out: BoxCorners[] = [];
  if (hit.t.shape.length === 3) {
    for (let i = 0; i + 7 < d.length; i += 8)
      out.push([0, 2, 4, 6].map((k): [number, number] => [d[i + k]!, d[i + k + 1]!]));
  } else {
    for (let i = 0; i + 3 < d.length; i += 4) {
      const [x1, y1, x2, y2] = [d[i]!, d[i + 1]!, d[i + 2]!, d[i + 3]!];
      out.push([
        [x1, y1],
        [x2, y1],
        [x2, y2],
        [x1, y2],
      ]);
    }
  }
  return out;
}

/** Recognised texts with their confidences (a BYTES tensor and an FP32 vector of the same length). */
export function findTexts(ts: NamedTensor[]): { text: string; score?: number }[] | null {
  const texts = ts.find((x) => x.t.datatype === 'BYTES' && x.t.data && x.t.data.length > 0);
  if (!texts?.t.data) return null;
  const n = texts.t.data.length;
  const scores =
    ts.find(
      (x) =>
        x.t.datatype === 'FP32' &&
        x.t.shape.length === 1 &&
        x.t.data?.length === n &&
        /score|conf|prob/i.test(x.name) &&
        x.source === texts.source,
    ) ??
    ts.find(
      (x) =>
        x.t.datatype === 'FP32' && x.t.shape.length === 1 && x.t.data?.length === n && /score|conf|prob/i.test(x.name),
    );
  return texts.t.data.map((v, i) => ({
    text: String(v),
    score: scores?.t.data ? Number(scores.t.data[i]) : undefined,
  }));
}
