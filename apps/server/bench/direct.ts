// The baselines of the bench: the same onnxruntime sessions and the same TypeScript ops, called
// directly in a loop on the main thread (no engine, no workers).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { GraphDoc, OpNode, Tensor } from '@ensemble-studio/core';
import { conditionHolds } from '../src/engine/condition.ts';
import { OPS, type OpContext } from '../src/engine/ops/registry.ts';
import type { Repository } from '../src/repo/types.ts';

/** Sessions created like the engine's (1 intra-op thread). */
export async function directSessions(
  repo: Repository,
  models: string[],
): Promise<Record<string, ort.InferenceSession>> {
  const out: Record<string, ort.InferenceSession> = {};
  for (const m of models)
    out[m] = await ort.InferenceSession.create(repo.modelFile(m)!, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  return out;
}

async function runSession(s: ort.InferenceSession, feeds: Record<string, Tensor>): Promise<Record<string, Tensor>> {
  const ortFeeds = Object.fromEntries(
    Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data as Float32Array, t.shape as number[])]),
  );
  const out = await s.run(ortFeeds);
  return Object.fromEntries(
    Object.entries(out).map(([k, t]) => [
      k,
      { datatype: 'FP32', shape: [...t.dims], data: t.data as Float32Array } as Tensor,
    ]),
  );
}

const textCache: Record<string, string> = {};

/** Milliseconds per stage (node id), one entry per run: where a pipeline's time went. */
export type StageTimes = Record<string, number[]>;

/**
 * The OCR pipeline by hand: preprocess → det → DB → (exit when no boxes) → crop → rec → CTC, cls → top-k,
 * reading the op params from the same graph the engine runs; each stage's time goes into `stages` when given
 * (keyed by the graph's node ids, to set beside the engine's `NodeTiming.computeMs`).
 */
export async function directOcr(
  repo: Repository,
  graph: GraphDoc,
  s: Record<string, ort.InferenceSession>,
  image: Tensor,
  stages?: StageTimes,
): Promise<{ texts?: Tensor; exited: boolean }> {
  const ctx: OpContext = { readText: (p) => (textCache[p] ??= readFileSync(join(repo.dir, p), 'utf8')) };
  const values = (id: string) => (graph.nodes.find((n) => n.id === id) as OpNode).params.values;
  let t = performance.now();
  const stage = <T>(id: string, result: T): T => {
    const now = performance.now();
    if (stages) (stages[id] ??= []).push(now - t);
    t = now;
    return result;
  };
  const pre = stage('preprocess', OPS.image_preprocess.run({ image }, values('preprocess'), ctx));
  const prob = stage('det', await runSession(s.det!, { x: pre.tensor! }))['sigmoid_0.tmp_0']!;
  const db = stage('db', OPS.db_postprocess.run({ prob, shape_info: pre.shape_info! }, values('db'), ctx));
  const cond = graph.nodes.find((n) => n.id === 'has_text');
  if (cond?.kind === 'condition' && conditionHolds(cond.params.expression, { boxes: db.boxes!, image }, cond.id).holds)
    return { exited: true };
  t = performance.now();
  const crops = stage('crop', OPS.crop_resize.run({ image, boxes: db.boxes! }, values('crop'), ctx)).crops!;
  const probs = stage('rec', await runSession(s.rec!, { x: crops }))['softmax_11.tmp_0']!;
  const texts = stage('ctc', OPS.ctc_decode.run({ probs }, values('ctc'), ctx)).texts!;
  const angles = stage('cls', await runSession(s.cls!, { x: crops }))['softmax_0.tmp_0']!;
  stage('angle', OPS.topk.run({ scores: angles }, values('angle'), ctx));
  return { texts, exited: false };
}

/** extractor → head → head, one after the other (the sequential side of the fan-out bench). */
export async function directFanout(s: Record<string, ort.InferenceSession>, x: Tensor): Promise<void> {
  const feat = (await runSession(s.extractor!, { x })).feat!;
  await directBranches(s.head!, { feat });
}

/** One session twice on the same feeds: two branches run one after the other. */
export async function directBranches(s: ort.InferenceSession, feeds: Record<string, Tensor>): Promise<void> {
  await runSession(s, feeds);
  await runSession(s, feeds);
}
