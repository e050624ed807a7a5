import type { TensorSummary, WireTensor } from '@ensemble-studio/core';
import type { RunState } from '../../store/types.ts';

type AnyTensor = Pick<TensorSummary, 'datatype' | 'shape' | 'data'> | WireTensor;
export interface NamedTensor { source: string; name: string; t: AnyTensor }

/** Every tensor the run produced so far with full data: final outputs first, then node outputs, then partials. */
export function runTensors(run: RunState): NamedTensor[] {
  const out: NamedTensor[] = [];
  for (const [name, t] of Object.entries(run.outputs)) if (t.data) out.push({ source: 'output', name, t });
  for (const [nodeId, n] of Object.entries(run.nodes)) {
    for (const [name, t] of Object.entries(n.outputs ?? {})) if (t.data) out.push({ source: nodeId, name, t });
  }
  for (const p of run.partials) for (const [name, t] of Object.entries(p.outputs)) if (t.data) out.push({ source: `${p.nodeId}#${p.index}`, name, t });
  return out;
}

/** Boxes [N,4] (x1,y1,x2,y2 in image pixels) from the earliest producer that has them. */
export function findBoxes(ts: NamedTensor[]): number[][] | null {
  const hit = ts.find((x) => x.t.datatype === 'FP32' && x.t.shape.length === 2 && x.t.shape[1] === 4 && /box/i.test(x.name))
    ?? ts.find((x) => x.t.datatype === 'FP32' && x.t.shape.length === 2 && x.t.shape[1] === 4);
  if (!hit?.t.data) return null;
  const d = hit.t.data.map(Number);
  const rows: number[][] = [];
  for (let i = 0; i + 3 < d.length; i += 4) rows.push(d.slice(i, i + 4));
  return rows;
}

/** Recognised texts with their confidences (a BYTES tensor and an FP32 vector of the same length). */
export function findTexts(ts: NamedTensor[]): { text: string; score?: number }[] | null {
  const texts = ts.find((x) => x.t.datatype === 'BYTES' && x.t.data && x.t.data.length > 0);
  if (!texts?.t.data) return null;
  const n = texts.t.data.length;
  const scores = ts.find((x) => x.t.datatype === 'FP32' && x.t.shape.length === 1 && x.t.data?.length === n && /score|conf|prob/i.test(x.name) && x.source === texts.source)
    ?? ts.find((x) => x.t.datatype === 'FP32' && x.t.shape.length === 1 && x.t.data?.length === n && /score|conf|prob/i.test(x.name));
  return texts.t.data.map((v, i) => ({ text: String(v), score: scores?.t.data ? Number(scores.t.data[i]) : undefined }));
}
