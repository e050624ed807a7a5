import { join } from 'node:path';
import type { Tensor } from '@ensemble-studio/core';
import { catalogueModel } from '@ensemble-studio/core';
import { copyData, ownsWholeBuffer } from '../engine/tensorTransfer.ts';
import { classify, labelsIn, type EncodedBytes } from './classification.ts';
import { INLINE_JSON_ELEMENTS } from './responseJobs.ts';
import type { ServedModel } from './servedModels.ts';
import type { Studio } from './Studio.ts';

// A client may ask for the classes of a large output, and for as many classes as it has elements: the top 1000 of a
// million FP32 took 25 ms of the main thread, a million classes a million strings. Such outputs are classified in
// the body worker, which sends the classes back as wire bytes.

/** Elements of an output above which it is classified in the body worker (as many as a large JSON response's numbers). */
const INLINE_CLASSIFY_ELEMENTS = INLINE_JSON_ELEMENTS;

/**
 * Classifies output `name` of `served` as Triton would (batched when the model or graph batches), with the labels of
 * the output's `label_filename` when the model's config names one: here for an output of at most
 * INLINE_CLASSIFY_ELEMENTS elements, else in the body worker. `mayMove`: the output's buffer may be handed to the
 * worker (the run is over and nothing else sends it); otherwise it is copied.
 * @throws ApiError 400 for what Triton refuses to classify (from the worker: the promise rejects with it).
 * @example const classes = await classifyOutput(studio, served, 'probs', t, 5, true)
 */
export function classifyOutput(
  studio: Studio,
  served: ServedModel,
  name: string,
  t: Tensor,
  count: number,
  mayMove: boolean,
): Tensor | Promise<EncodedBytes> {
  const model = served.graph ? undefined : (served.helper?.model ?? catalogueModel(studio.catalogue, served.name));
  const batched = (served.graph ? served.graph.maxBatchSize : (model?.maxBatchSize ?? 0)) > 0;
  const file = model?.config.output?.find((o) => o.name === name)?.label_filename;
  const labelFile = file ? join(studio.repository.dir, served.name, file) : undefined;
  // BYTES outputs are refused by classify at once.
  if (t.data.length <= INLINE_CLASSIFY_ELEMENTS || Array.isArray(t.data))
    return classify(t, count, batched, labelFile ? labelsIn(labelFile) : undefined);
  const tensor = mayMove && ownsWholeBuffer(t.data) ? t : { ...t, shape: [...t.shape], data: copyData(t.data) };
  return studio.bodies.classify({ kind: 'classify', tensor, count, batched, labelFile });
}
